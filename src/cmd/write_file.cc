#include "cmd/write_file.h"

#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "load/yaml_loader.h"
#include "support/hidden_text.h"
#include "support/replace_file.h"

namespace kvcat::cmd {

namespace fs = std::filesystem;

bool write_whole_file(const fs::path& path, const std::string& text, bool force) {
    std::error_code ec;
    // symlink_status: a link, dangling or not, is an existing entry (refused below even with --force).
    if (fs::exists(fs::symlink_status(path, ec)) && !force) {
        spdlog::error("{} exists; give --force to replace it", path.string());
        return false;
    }
    try {
        replace_file(path, text);
    } catch (const ReplaceError& e) {
        spdlog::error("{}", e.what());
        return false;
    }
    return true;
}

bool generated_record_is_printable(const std::string& text, const std::string& source) {
    LoadedYaml loaded = load_yaml("record", text);
    for (const auto& d : loaded.diagnostics) {
        if (d.rule != "yaml-encoding") continue;
        // The key is what the line starts with: "engine_version: ..." or "  - name: ...".
        std::size_t start = 0;
        for (int line = 1; line < d.pos.line && start != std::string::npos; ++line) {
            start = text.find('\n', start);
            if (start != std::string::npos) ++start;
        }
        std::string line = start == std::string::npos ? "" : text.substr(start, text.find('\n', start) - start);
        std::string key = line.substr(0, line.find(':'));
        key.erase(0, key.find_first_not_of(" -"));
        std::string what = d.message.substr(0, d.message.find(';'));  // "the control character U+001B in a value"
        what = what.substr(0, what.find(" in a "));
        spdlog::error("{}: the record would hold {} in {} (line {}); kvcat writes no control character into a record",
                      escape_for_terminal(source), what,
                      key.empty() || key.size() == line.size() ? "a value" : "the value of " + escape_for_terminal(key),
                      d.pos.line);
        return false;
    }
    return true;
}

}  // namespace kvcat::cmd
