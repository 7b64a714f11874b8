#include "support/diagnostic.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "support/hidden_text.h"

namespace kvcat {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::note:
            return "note";
    }
    return "error";
}

std::string format_text(const Diagnostic& d) {
    // A file name or a quoted value is shown, never obeyed: a newline or an escape sequence in
    // it would forge or hide a finding line (hidden_text.h).
    std::string where = escape_for_terminal(d.pos.file);
    if (d.pos.line > 0) {
        where += fmt::format(":{}:{}", d.pos.line, std::max(d.pos.column, 1));
    }
    return fmt::format("{}: {}: [{}] {}", where, to_string(d.severity), d.rule, escape_for_terminal(d.message));
}

void sort_diagnostics(std::vector<Diagnostic>& diagnostics) {
    std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.pos.file, a.pos.line, a.pos.column, a.rule) <
               std::tie(b.pos.file, b.pos.line, b.pos.column, b.rule);
    });
}

bool has_errors(std::span<const Diagnostic> diagnostics) {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::error; });
}

namespace {

/// A finding of `rule` at its registered severity: a factory names its rule, the registry
/// says how severe it is.
Diagnostic make(std::string_view rule, Position pos, std::string message) {
    const RuleInfo* info = find_rule_info(rule);
    if (info == nullptr) throw std::logic_error(fmt::format("no rule '{}' is registered", rule));
    Diagnostic d;
    d.rule = std::string(info->id);
    d.severity = info->severity;
    d.pos = std::move(pos);
    d.message = std::move(message);
    return d;
}

Position whole_file(const std::string& file) {
    return Position{file, 0, 0};
}

}  // namespace

namespace diag {

Diagnostic finding(std::string_view rule, const Position& pos, std::string message) {
    return make(rule, pos, std::move(message));
}

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

Diagnostic id_path_mismatch(const Position& pos, const std::string& id, const std::string& expected) {
    Diagnostic d = make("id-path-mismatch", pos,
                        fmt::format("id '{}' does not match the file's path; expected '{}'", id, expected));
    d.stated = id;
    d.computed = expected;
    return d;
}

Diagnostic duplicate_id(const Position& pos, const std::string& id, const std::string& other_file) {
    return make("id-duplicate", pos, fmt::format("id '{}' is also used by {}", id, other_file));
}

Diagnostic unresolved_reference(const Position& pos, const std::string& key, const std::string& id,
                                const std::string& wanted_kind, const std::string& suggestion) {
    std::string message = fmt::format("{} '{}' names no {} record", key, id, wanted_kind);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    return make("ref-unresolved", pos, message);
}

Diagnostic basis_product(const Position& pos, const std::string& expression, const std::string& computed,
                         const std::string& stated) {
    Diagnostic d = make("kv-basis-product", pos,
                        fmt::format("{} = {}, but kv_bytes_per_token is {}", expression, computed, stated));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic basis_model(const Position& pos, const std::string& factor, const std::string& stated,
                       const std::string& expected, const std::string& model_id, const std::string& why) {
    Diagnostic d =
        make("kv-basis-model", pos,
             fmt::format("kv_bytes_basis.{} is {}, but {} gives {} ({})", factor, stated, model_id, expected, why));
    d.stated = stated;
    d.computed = expected;
    return d;
}

Diagnostic state_dtype_without_state(const Position& pos, const std::string& key, const std::string& model_id) {
    Diagnostic d = make("kv-basis-model", pos,
                        fmt::format("{} is set, but {} has no fixed-state layers (no linear_attention), so there is "
                                    "no state for it to be the dtype of",
                                    key, model_id));
    d.computed = "absent";
    return d;
}

Diagnostic dtype_bytes(const Position& pos, const std::string& dtype, const std::string& stated,
                       const std::string& expected, const std::string& block_note) {
    Diagnostic d = make("kv-dtype-bytes", pos,
                        fmt::format("bytes_per_element is {}, but {} stores {} bytes per element{}", stated, dtype,
                                    expected, block_note));
    d.stated = stated;
    d.computed = expected;
    return d;
}

Diagnostic variant_mismatch(const Position& pos, const std::string& stated, const std::string& model_variant,
                            const std::string& model_id) {
    Diagnostic d = make("attention-variant-mismatch", pos,
                        fmt::format("attention_variant is {}, but {} is {}", stated, model_id, model_variant));
    d.stated = stated;
    d.computed = model_variant;
    return d;
}

Diagnostic context_above_native(const Position& pos, const std::string& context, const std::string& native,
                                const std::string& model_id) {
    Diagnostic d = make("context-above-native", pos,
                        fmt::format("context_length {} exceeds {}'s native context {}; declare how it was reached "
                                    "in context_extension",
                                    context, model_id, native));
    d.stated = context;
    d.computed = native;
    return d;
}

Diagnostic overflow(const Position& pos, const std::string& what) {
    return make("arith-overflow", pos, fmt::format("{} does not fit in 64 bits", what));
}

Diagnostic model_layers(const Position& pos, const std::string& what) {
    return make("model-layers", pos, what);
}

Diagnostic ignore_problem(const Position& pos, const std::string& what) {
    return make("lint-ignore", pos, what);
}

Diagnostic prose_arithmetic(const Position& pos, const std::string& expression, const std::string& computed,
                            const std::string& stated_as_written) {
    // A stated figure wrapped across lines ("4" then "GiB" on the next) is shown on one.
    std::string stated;
    for (std::size_t i = 0; i < stated_as_written.size(); ++i) {
        char c = stated_as_written[i];
        if (c == '\n') {
            while (!stated.empty() && stated.back() == ' ') stated.pop_back();
            while (i + 1 < stated_as_written.size() && stated_as_written[i + 1] == ' ') ++i;
            stated += ' ';
        } else {
            stated += c;
        }
    }
    Diagnostic d = make("prose-arithmetic", pos, fmt::format("{} = {}, not {}", expression, computed, stated));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic statement_mismatch(const Position& pos, const std::string& what, const std::string& stated,
                              const std::string& expected) {
    Diagnostic d = make("kv-statement-mismatch", pos, what);
    if (!stated.empty()) d.stated = stated;
    if (!expected.empty()) d.computed = expected;
    return d;
}

Diagnostic above_roofline(const Position& pos, const std::string& measured, const std::string& ceiling,
                          const std::string& how, const std::string& field) {
    Diagnostic d =
        make("tps-above-roofline", pos,
             fmt::format("{} {} is above the bandwidth ceiling of {} tokens/s: {}", field, measured, ceiling, how));
    d.stated = measured;
    d.computed = ceiling;
    return d;
}

Diagnostic exceeds_memory(const Position& pos, const std::string& needed, const std::string& memory,
                          const std::string& how, double needed_gib, double memory_gib) {
    Diagnostic d = make("exceeds-memory", pos,
                        fmt::format("needs {} bytes ({:.2f} GiB) but the accelerator has {} ({:.2f} GiB): {}; state "
                                    "an offload if part of it ran elsewhere",
                                    needed, needed_gib, memory, memory_gib, how));
    d.stated = memory;
    d.computed = needed;
    return d;
}

Diagnostic engine_name(const Position& pos, const std::string& written, const std::string& what,
                       const std::string& meant) {
    Diagnostic d = make("engine-name", pos, fmt::format("engine '{}': {}", written, what));
    d.stated = written;
    if (!meant.empty()) d.computed = meant;
    return d;
}

Diagnostic weight_format_name(const Position& pos, const std::string& written, const std::string& what,
                              const std::string& meant) {
    Diagnostic d = make("weight-format-name", pos, fmt::format("weight_quant '{}': {}", written, what));
    d.stated = written;
    if (!meant.empty()) d.computed = meant;
    return d;
}

Diagnostic quality_recovery(const Position& pos, const std::string& stated, const std::string& computed,
                            const std::string& how) {
    Diagnostic d =
        make("quality-recovery", pos,
             fmt::format("recovery_percent {} does not follow from the values: {} = {}", stated, how, computed));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic id_context_tag(const Position& pos, const std::string& tag, const std::string& tag_tokens,
                          const std::string& context) {
    Diagnostic d = make("id-context-tag", pos,
                        fmt::format("the id names {} ({} tokens), but context_length is {}", tag, tag_tokens, context));
    d.stated = tag_tokens;
    d.computed = context;
    return d;
}

}  // namespace diag

}  // namespace kvcat
