// The whole command line: logging set up, the subcommand picked and run, an exit code out.
#pragma once

namespace kvcat::cmd {

/// kvcat's main(): src/main.cc calls it, and so does the fuzz target of the whole command line
/// (fuzz/fuzz_cli.cc), once per input. Registers the "kvcat" logger, which a second call in
/// the same process needs dropped first (spdlog::drop).
int kvcat_main(int argc, char** argv);

}  // namespace kvcat::cmd
