#include "engines/engine_log.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engines/engine_rules.h"
#include "engines/log_reading.h"

namespace kvcat {

namespace {

/// Colour and cursor sequences (ESC [ ... a final letter) that a terminal-coloured log keeps when
/// it is pasted; they are no part of what the engine printed.
std::string without_colour(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            std::size_t j = i + 2;
            while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';' || s[j] == '?')) ++j;
            if (j < s.size() && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z'))) {
                i = j;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

}  // namespace

/// The longest line parse_engine_log searches, bytes.
constexpr std::size_t kLongestLogLine = 8192;

ParsedLog parse_engine_log(const std::string& text, const std::string& file, LogText kind) {
    ParsedLog out;
    // One reader per family of lines (ik_llama.cpp's are read as llama.cpp's), in the list's order.
    std::vector<std::pair<Engine, std::unique_ptr<LogReader>>> readers;
    for (const EngineRules* r : all_engine_rules()) {
        if (r->log_family == r->engine) readers.emplace_back(r->engine, r->log_reader(kind));
    }
    std::istringstream in(text);
    std::string raw;
    LogCursor cur{file, 0, {}, {}};
    while (std::getline(in, raw)) {
        ++cur.n;
        // std::regex recurses once a character: a line of some 30 KB overflowed the stack. No
        // engine prints an allocation or setting line near this long (vLLM's argument dump, the
        // longest, stays within a few KB), so a longer line is passed over, and said so.
        if (raw.size() > kLongestLogLine) {
            spdlog::warn(
                "{}:{}: a line of {} bytes, longer than any engine line kvcat reads ({} bytes), is passed over", file,
                cur.n, raw.size(), kLongestLogLine);
            continue;
        }
        cur.line = trim_line(without_colour(raw));
        bool consumed =
            std::any_of(readers.begin(), readers.end(), [&](auto& r) { return r.second->read_settings(cur, out); });
        if (consumed) continue;
        // A line holding an allocation figure must read in full as one engine's, or the import stops.
        std::optional<std::size_t> start;
        for (const auto& [engine, reader] : readers) {
            auto at = reader->figure_start(cur);
            if (at && (!start || *at < *start)) start = at;
        }
        if (!start) continue;
        std::string figure = cur.line.substr(*start);
        bool read = std::any_of(readers.begin(), readers.end(),
                                [&](auto& r) { return r.second->read_figure(cur, figure, out); });
        if (!read) cur.fail(figure, "this line carries an allocation figure but does not read as one kvcat knows");
        out.lines.push_back(figure);
    }
    auto seen = std::count_if(readers.begin(), readers.end(), [](const auto& r) { return r.second->seen; });
    if (seen == 0) {
        throw LogError(fmt::format("{}: no line of llama.cpp's, vLLM's or SGLang's allocation is in this log", file));
    }
    if (seen > 1) {
        throw LogError(fmt::format("{}: this log has the allocation lines of more than one engine", file));
    }
    for (const auto& [engine, reader] : readers) {
        if (!reader->seen) continue;
        out.engine = engine;
        reader->finish(file, kind, out);
    }
    return out;
}

void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::optional<std::int64_t>& value) {
    if (value) out.push_back({key, std::to_string(*value), true});
}

void add_logged(std::vector<LoggedFigure>& out, const std::string& key, const std::string& value, bool decimal) {
    if (!value.empty()) out.push_back({key, value, decimal});
}

std::vector<LoggedFigure> logged_figures(const ParsedLog& log) {
    std::vector<LoggedFigure> out;
    rules_of(log.engine).logged_figures(log, out);
    return out;
}

std::string allocation_record_text(const ParsedLog& log, const std::string& id, const std::string& model_id,
                                   const std::string& engine_version, const std::string& url, const std::string& notes,
                                   const std::string& log_name) {
    std::string t;
    t += "# yaml-language-server: $schema=../../schema/allocation.schema.json\n";
    t += fmt::format("# Written by `kvcat import-log` from {}. The figures are as the engine printed\n", log_name);
    t += "# them; `kvcat lint` recomputes each from the model record and the settings (engine-allocation).\n";
    if (url.empty() || notes.empty()) {
        t += "# The lint fails on this file (schema-missing-key) until url and notes, at the end, are written.\n";
    }
    t += fmt::format("id: {}\n", id);
    t += fmt::format("model: {}\n", model_id);
    t += fmt::format("engine: {}\n", log.engine_name.empty() ? std::string(name_of(log.engine)) : log.engine_name);
    std::string version = engine_version.empty() ? log.version : engine_version;
    t += fmt::format("engine_version: {}\n", version.empty() ? "null" : yaml_quoted(version));
    rules_of(log.engine).record_block(log, t);
    t += "log_lines:\n";
    for (const auto& l : log.lines) t += fmt::format("  - {}\n", yaml_quoted(l));
    if (url.empty()) {
        t += "# url: the address of the issue, page or file the log was copied from\n";
    } else {
        t += fmt::format("url: {}\n", url);
    }
    if (notes.empty()) {
        t += "# notes: |\n#   The settings the log leaves unsaid (cache type, ubatch, build) and what was assumed.\n";
    } else {
        t += fmt::format("notes: {}\n", yaml_quoted(notes));
    }
    return t;
}

std::string engine_log_formats() {
    std::vector<std::string> families;
    for (const EngineRules* r : all_engine_rules()) {
        if (r->log_family == r->engine) families.push_back(fmt::format("{} ({})", r->catalog_name, r->log_formats));
    }
    std::string out = "Reads the start-up lines of:";
    for (const std::string& f : families) out += "\n  " + f;
    return out;
}

}  // namespace kvcat
