// Did-you-mean for a mistyped subcommand. CLI11 2.1 reports "kvcat lnt" only as "A
// subcommand is required", which hides the typo; main() asks here first.
#include <fmt/format.h>

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

}  // namespace kvcat::cmd
