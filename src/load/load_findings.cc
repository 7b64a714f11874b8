#include "load/load_findings.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace kvcat {

std::span<const LoaderRule> loader_rules() {
    static constexpr LoaderRule kRules[] = {
        LoaderRule{"file-unreadable", "a record file could not be read (or is a directory named like one)"},
        LoaderRule{"file-too-large", "a record file is over 1 MiB"},
        LoaderRule{
            "file-outside-root",
            "a record path resolves, through a link at any level, outside the records root; the file is never opened"},
        LoaderRule{"file-empty", "a record file holds no document"},
        LoaderRule{"yaml-encoding", "not clean UTF-8: a NUL byte, invalid UTF-8, a byte-order mark"},
        LoaderRule{"yaml-syntax", "the YAML does not parse"},
        LoaderRule{"yaml-duplicate-key", "a mapping names a key twice (both lines are named)"},
        LoaderRule{"yaml-alias", "anchors and aliases are refused in records"},
        LoaderRule{"yaml-too-deep", "nesting deeper than 32 levels"},
        LoaderRule{"yaml-multiple-documents", "more than one document in a file"},
        LoaderRule{"record-kind", "a file outside `models/`, `accelerators/`, `kv-efficiency/`"},
        LoaderRule{"schema-not-mapping", "a record or nested object is not a mapping"},
        LoaderRule{"schema-missing-key", "a required key is absent (for a measurement: write `null`)"},
        LoaderRule{"schema-type", "a value of the wrong type"},
        LoaderRule{"schema-unknown-key", "a key the schema does not define, with a did-you-mean"},
        LoaderRule{"schema-enum", "a value outside its allowed set"},
        LoaderRule{"schema-value", "an impossible value: a zero or negative count, an empty string"},
    };
    return kRules;
}

namespace {

/// A loader finding: an error of one of the rules above, or arith-overflow for a number the
/// schema reads that does not fit in 64 bits (a run rule of the lint, also an error).
Diagnostic make(std::string_view rule, Position pos, std::string message) {
    auto rules = loader_rules();
    bool known = rule == "arith-overflow" ||
                 std::any_of(rules.begin(), rules.end(), [&](const LoaderRule& r) { return r.id == rule; });
    if (!known) throw std::logic_error(fmt::format("'{}' is not a loader rule", rule));
    Diagnostic d;
    d.rule = std::string(rule);
    d.severity = Severity::error;
    d.pos = std::move(pos);
    d.message = std::move(message);
    return d;
}

Position whole_file(const std::string& file) {
    return Position{file, 0, 0};
}

}  // namespace

namespace diag {

Diagnostic file_unreadable(const std::string& file, const std::string& why) {
    return make("file-unreadable", whole_file(file), fmt::format("cannot read the file: {}", why));
}

Diagnostic file_outside_root(const std::string& file, const std::string& resolves_to, const std::string& root) {
    return make("file-outside-root", whole_file(file),
                fmt::format("the file resolves to {}, outside the records root {}; it is not read (a record must "
                            "be a file inside the root)",
                            resolves_to, root));
}

Diagnostic folder_outside_root(const std::string& link, const std::string& resolves_to, const std::string& root) {
    return make("file-outside-root", whole_file(link),
                fmt::format("a link to the folder {}, outside the records root {}; nothing under it is read (records "
                            "must be inside the root)",
                            resolves_to, root));
}

Diagnostic file_too_large(const std::string& file, std::size_t size, std::size_t limit) {
    return make("file-too-large", whole_file(file),
                fmt::format("the file is {} bytes; a record may be at most {} bytes", size, limit));
}

Diagnostic file_empty(const std::string& file) {
    return make("file-empty", whole_file(file), "the file holds no YAML document; expected one mapping with an id");
}

Diagnostic encoding(const Position& pos, const std::string& what) {
    return make("yaml-encoding", pos, what);
}

Diagnostic yaml_syntax(const Position& pos, const std::string& what) {
    return make("yaml-syntax", pos, fmt::format("YAML does not parse: {}", what));
}

Diagnostic duplicate_key(const Position& pos, const std::string& key, int first_line) {
    return make("yaml-duplicate-key", pos,
                fmt::format("key '{}' appears twice (first at line {}); a key may appear once", key, first_line));
}

Diagnostic alias(const Position& pos) {
    return make("yaml-alias", pos, "anchors and aliases are not allowed in records; write the value out");
}

Diagnostic too_deep(const Position& pos, int limit) {
    return make("yaml-too-deep", pos, fmt::format("nesting deeper than {} levels; no record needs that", limit));
}

Diagnostic multiple_documents(const Position& pos) {
    return make("yaml-multiple-documents", pos, "a second YAML document; a record file holds exactly one");
}

Diagnostic not_a_mapping(const Position& pos, const std::string& what) {
    return make("schema-not-mapping", pos, fmt::format("{} must be a mapping of keys to values", what));
}

Diagnostic missing_key(const Position& pos, const std::string& key, const std::string& expected,
                       bool nullable_required) {
    std::string message = fmt::format("required key '{}' is missing (expected {})", key, expected);
    if (nullable_required) {
        message += fmt::format("; if the source did not report it, write '{}: null'", key);
    }
    return make("schema-missing-key", pos, message);
}

Diagnostic wrong_type(const Position& pos, const std::string& key, const std::string& expected,
                      const std::string& found) {
    return make("schema-type", pos, fmt::format("'{}' must be {}, found {}", key, expected, found));
}

Diagnostic unknown_key(const Position& pos, const std::string& key, const std::string& suggestion,
                       const std::string& kind) {
    bool vowel = !kind.empty() && std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
    std::string message = fmt::format("unknown key '{}' in {} {} record", key, vowel ? "an" : "a", kind);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    return make("schema-unknown-key", pos, message);
}

Diagnostic bad_enum(const Position& pos, const std::string& key, const std::string& value, const std::string& allowed,
                    const std::string& suggestion) {
    std::string message = fmt::format("'{}' is not a valid {}", value, key);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    message += fmt::format(" (one of: {})", allowed);
    return make("schema-enum", pos, message);
}

Diagnostic bad_value(const Position& pos, const std::string& key, const std::string& what) {
    return make("schema-value", pos, fmt::format("'{}' {}", key, what));
}

Diagnostic unknown_kind(const std::string& file, const std::string& folder, const std::string& folders) {
    return make("record-kind", whole_file(file), fmt::format("records must live under {}, not '{}'", folders, folder));
}

Diagnostic overflow(const Position& pos, const std::string& what) {
    return make("arith-overflow", pos, fmt::format("{} does not fit in 64 bits", what));
}

}  // namespace diag

}  // namespace kvcat
