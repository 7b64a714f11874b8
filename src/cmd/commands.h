// The subcommands. Each file defines an options struct, setup_X() that registers it
// with CLI11, and run_X() that does the work and returns the exit code.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "cmd/run_command.h"

namespace kvcat::cmd {

/// Makes `body` the subcommand's callback. It runs through run_command(), so an exception
/// is logged and exits 2, and what it returns is the program's exit code.
inline void set_command_body(CLI::App& sub, int& exit_code, std::function<int()> body) {
    sub.callback([&exit_code, body = std::move(body)] { exit_code = run_command(body); });
}

void setup_lint(CLI::App& app, int& exit_code);
void setup_build(CLI::App& app, int& exit_code);
void setup_query(CLI::App& app, int& exit_code);
void setup_sql(CLI::App& app, int& exit_code);
void setup_explain(CLI::App& app, int& exit_code);
void setup_import_config(CLI::App& app, int& exit_code);
void setup_import_bench(CLI::App& app, int& exit_code);
void setup_import_log(CLI::App& app, int& exit_code);
void setup_new(CLI::App& app, int& exit_code);
void setup_fit(CLI::App& app, int& exit_code);
void setup_columns(CLI::App& app, int& exit_code);
void setup_curve(CLI::App& app, int& exit_code);
void setup_plan(CLI::App& app, int& exit_code);
void setup_predict(CLI::App& app, int& exit_code);
void setup_report(CLI::App& app, int& exit_code);
void setup_complete(CLI::App& app, int& exit_code);

/// For a command line whose first word is not a subcommand: "unknown command 'lnt'; did you
/// mean 'lint'? (commands: ...)". Empty when the first word is a subcommand (or absent).
std::string unknown_subcommand_message(const CLI::App& app, int argc, const char* const* argv);

/// After CLI11 refused a command line for a missing required option: every required option
/// of the command being run that is missing, in one sentence ("kvcat fit needs --model,
/// --accelerator and --kv-dtype; ..."), or "" when none is (the error is about something else).
std::string missing_required_message(const CLI::App& app);

}  // namespace kvcat::cmd
