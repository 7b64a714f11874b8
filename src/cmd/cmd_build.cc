// kvcat build: lint the records, then write the catalog (cmd/catalog_access.cc does both).
#include <memory>
#include <string>
#include <vector>

#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"

namespace kvcat::cmd {

namespace {

struct BuildOptions {
    Common common;
    std::vector<std::string> paths;
    bool full = false;
};

}  // namespace

void setup_build(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<BuildOptions>();
    CLI::App* sub = app.add_subcommand("build", "Lint the records, then write the SQLite catalog atomically");
    add_db_option(*sub, options->common, DbUse::write);
    sub->add_option("paths", options->paths, "Record folders (default: records/)");
    sub->add_flag("--full", options->full, "Read and check every record, even those unchanged since the last build");
    sub->footer(
        "Examples:\n"
        "  kvcat build\n"
        "  kvcat build --db /tmp/catalog.db records\n"
        "With any lint error nothing is written and the exit status is 1.");
    set_command_body(*sub, exit_code, [options] {
        std::vector<std::string> paths = options->paths;
        if (paths.empty()) paths.push_back(options->common.records);  // records/ here, else the installed ones
        return lint_and_build(options->common.db, paths, true, options->full);
    });
}

}  // namespace kvcat::cmd
