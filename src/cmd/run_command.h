// How a subcommand's body ends: its exit code, or an exception turned into one. Every
// subcommand runs through run_command(), so an I/O failure or a corrupt catalog is logged
// once, the same way, and exits 2 whichever command met it.
#pragma once

#include <functional>

namespace kvcat::cmd {

/// Exit codes, as the README documents them.
enum ExitCode : int { ok = 0, findings = 1, failure = 2 };

/// Runs `body` and returns its exit code; an exception it throws is logged as an error
/// (its what(), nothing added) and returns ExitCode::failure.
int run_command(const std::function<int()>& body);

}  // namespace kvcat::cmd
