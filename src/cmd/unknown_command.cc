// What main() says for a command line CLI11 refuses, where CLI11's own words hide the point:
// the did-you-mean for a mistyped subcommand (CLI11 2.1 reports "kvcat lnt" only as "A
// subcommand is required"), and every missing required option at once (CLI11 names the first).
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cmd/commands.h"
#include "support/suggest.h"

namespace kvcat::cmd {

std::string unknown_subcommand_message(const CLI::App& app, int argc, const char* const* argv) {
    // The first word that is not an option is where the subcommand should be. The top-level
    // options are all flags, so no option value can sit in that place.
    std::string word;
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg == "--") break;
        if (arg.starts_with('-')) continue;
        word = arg;
        break;
    }
    if (word.empty()) return "";
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name() == word) return "";  // known: the error is about something else
        names.push_back(sub->get_name());
    }
    std::vector<std::string_view> views(names.begin(), names.end());
    std::string hint = closest_match(word, views);
    std::string message = fmt::format("unknown command '{}'", word);
    if (!hint.empty()) message += fmt::format("; did you mean '{}'?", hint);
    message += fmt::format(" (commands: {})", fmt::join(names, ", "));
    return message;
}

std::string missing_required_message(const CLI::App& app) {
    // The command being run: the deepest subcommand that was parsed ("kvcat new kv-efficiency").
    const CLI::App* command = &app;
    std::string path = "kvcat";
    for (bool deeper = true; deeper;) {
        deeper = false;
        for (const CLI::App* sub : command->get_subcommands()) {
            if (sub->parsed()) {
                command = sub;
                path += " " + sub->get_name();
                deeper = true;
                break;
            }
        }
    }
    std::vector<std::string> missing;
    for (const CLI::Option* opt : command->get_options()) {
        if (!opt->get_required() || opt->count() > 0) continue;
        std::string name = opt->get_name();
        // A positional has no dashes: its name, with what it is.
        if (!name.starts_with('-')) {
            std::string what = opt->get_description();
            if (what.size() > 60) what = what.substr(0, what.find_first_of(",;:("));  // its first phrase
            while (!what.empty() && what.back() == ' ') what.pop_back();
            if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
            name = what.empty() ? name : fmt::format("{} ({})", name, what);
        }
        missing.push_back(name);
    }
    if (missing.empty()) return "";
    std::string list =
        missing.size() == 1
            ? missing[0]
            : fmt::format("{} and {}", fmt::join(missing.begin(), missing.end() - 1, ", "), missing.back());
    return fmt::format("{} needs {}; `{} --help` shows every option with an example", path, list, path);
}

}  // namespace kvcat::cmd
