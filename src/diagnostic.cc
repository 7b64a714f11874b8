#include "diagnostic.h"

#include <algorithm>
#include <array>
#include <tuple>

#include <fmt/format.h>

namespace kvcat {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::error: return "error";
        case Severity::warning: return "warning";
        case Severity::note: return "note";
    }
    return "error";
}

std::string format_text(const Diagnostic& d) {
    std::string where = d.pos.file;
    if (d.pos.line > 0) {
        where += fmt::format(":{}:{}", d.pos.line, std::max(d.pos.column, 1));
    }
    return fmt::format("{}: {}: [{}] {}", where, to_string(d.severity), d.rule, d.message);
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

constexpr std::array kRules = {
    RuleInfo{"file-unreadable", Severity::error, "a record file could not be read"},
    RuleInfo{"file-too-large", Severity::error, "a record file is over the size limit"},
    RuleInfo{"file-outside-root", Severity::error,
             "a record path resolves, through a link, outside the records root; it is never read"},
    RuleInfo{"file-empty", Severity::error, "a record file holds no document"},
    RuleInfo{"yaml-encoding", Severity::error, "a record is not clean UTF-8 text (NUL byte, invalid UTF-8, a control character in a value)"},
    RuleInfo{"yaml-syntax", Severity::error, "the YAML does not parse"},
    RuleInfo{"yaml-duplicate-key", Severity::error, "a mapping names the same key twice"},
    RuleInfo{"yaml-alias", Severity::error, "anchors and aliases are refused in records"},
    RuleInfo{"yaml-too-deep", Severity::error, "nesting deeper than any record needs"},
    RuleInfo{"yaml-multiple-documents", Severity::error, "a record file holds more than one document"},
    RuleInfo{"record-kind", Severity::error, "a record file is outside models/, accelerators/ and kv-efficiency/"},
    RuleInfo{"schema-not-mapping", Severity::error, "a record or nested object is not a mapping"},
    RuleInfo{"schema-missing-key", Severity::error, "a required key is absent"},
    RuleInfo{"schema-type", Severity::error, "a value has the wrong type"},
    RuleInfo{"schema-unknown-key", Severity::error, "a key the schema does not define (with a did-you-mean)"},
    RuleInfo{"schema-enum", Severity::error, "a value outside its allowed set"},
    RuleInfo{"schema-value", Severity::error, "a value of the right type but impossible (zero or negative count)"},
    RuleInfo{"id-path-mismatch", Severity::error, "the id is not the file's path under records/ without .yaml"},
    RuleInfo{"id-duplicate", Severity::error, "two records share an id"},
    RuleInfo{"ref-unresolved", Severity::error, "model, accelerator or measured_on_model names no record of that kind"},
    RuleInfo{"model-layers", Severity::error, "a model's KV-caching layers disagree with its layer count"},
    RuleInfo{"kv-basis-product", Severity::error, "the basis factors do not multiply to kv_bytes_per_token"},
    RuleInfo{"kv-basis-model", Severity::error, "a basis factor disagrees with the model record"},
    RuleInfo{"kv-dtype-bytes", Severity::error, "bytes_per_element disagrees with kv_cache_dtype"},
    RuleInfo{"attention-variant-mismatch", Severity::error, "attention_variant disagrees with the model record"},
    RuleInfo{"context-above-native", Severity::warning,
             "context_length exceeds the model's native context and no context_extension is declared"},
    RuleInfo{"arith-overflow", Severity::error, "a product does not fit in 64 bits"},
    RuleInfo{"tps-above-roofline", Severity::error,
             "measured_tps_at_ctx exceeds memory bandwidth / (active weights + KV at the context + fixed state)"},
    RuleInfo{"exceeds-memory", Severity::warning,
             "weights + KV at the context + fixed state exceed the accelerator's memory and no offload is stated"},
    RuleInfo{"prose-arithmetic", Severity::error,
             "arithmetic stated in a record's prose does not hold (the recomputed figure is given)"},
    RuleInfo{"kv-statement-mismatch", Severity::error,
             "kv_bytes_basis.statement does not state the basis factors and kv_bytes_per_token"},
    RuleInfo{"id-context-tag", Severity::warning, "an id's context tag (-64k, -256k, -1m) disagrees with context_length"},
    RuleInfo{"engine-name", Severity::error,
             "engine is not in the catalog's vocabulary, or is spelled otherwise (vllm for vLLM)"},
    RuleInfo{"weight-format-name", Severity::warning,
             "weight_quant is not a weight format the catalog knows, or is spelled otherwise (q4_k_m for Q4_K_M)"},
    RuleInfo{"quality-recovery", Severity::error,
             "a quality entry's recovery_percent is not value / baseline_value x 100 at its stated precision"},
    RuleInfo{"lint-ignore", Severity::warning,
             "a lint_ignore entry without a reason, for an unknown or error rule, or that silences nothing"},
};

Diagnostic make(std::string_view rule, Severity severity, Position pos, std::string message) {
    Diagnostic d;
    d.rule = std::string(rule);
    d.severity = severity;
    d.pos = std::move(pos);
    d.message = std::move(message);
    return d;
}

Position whole_file(const std::string& file) { return Position{file, 0, 0}; }

}  // namespace

std::span<const RuleInfo> all_rules() { return kRules; }

namespace diag {

Diagnostic file_unreadable(const std::string& file, const std::string& why) {
    return make("file-unreadable", Severity::error, whole_file(file), fmt::format("cannot read the file: {}", why));
}

Diagnostic file_outside_root(const std::string& file, const std::string& resolves_to, const std::string& root) {
    return make("file-outside-root", Severity::error, whole_file(file),
                fmt::format("the file resolves to {}, outside the records root {}; it is not read (a record must "
                            "be a file inside the root)",
                            resolves_to, root));
}

Diagnostic file_too_large(const std::string& file, std::size_t size, std::size_t limit) {
    return make("file-too-large", Severity::error, whole_file(file),
                fmt::format("the file is {} bytes; a record may be at most {} bytes", size, limit));
}

Diagnostic file_empty(const std::string& file) {
    return make("file-empty", Severity::error, whole_file(file),
                "the file holds no YAML document; expected one mapping with an id");
}

Diagnostic encoding(const Position& pos, const std::string& what) {
    return make("yaml-encoding", Severity::error, pos, what);
}

Diagnostic yaml_syntax(const Position& pos, const std::string& what) {
    return make("yaml-syntax", Severity::error, pos, fmt::format("YAML does not parse: {}", what));
}

Diagnostic duplicate_key(const Position& pos, const std::string& key, int first_line) {
    return make("yaml-duplicate-key", Severity::error, pos,
                fmt::format("key '{}' appears twice (first at line {}); a key may appear once", key, first_line));
}

Diagnostic alias(const Position& pos) {
    return make("yaml-alias", Severity::error, pos,
                "anchors and aliases are not allowed in records; write the value out");
}

Diagnostic too_deep(const Position& pos, int limit) {
    return make("yaml-too-deep", Severity::error, pos,
                fmt::format("nesting deeper than {} levels; no record needs that", limit));
}

Diagnostic multiple_documents(const Position& pos) {
    return make("yaml-multiple-documents", Severity::error, pos,
                "a second YAML document; a record file holds exactly one");
}

Diagnostic not_a_mapping(const Position& pos, const std::string& what) {
    return make("schema-not-mapping", Severity::error, pos, fmt::format("{} must be a mapping of keys to values", what));
}

Diagnostic missing_key(const Position& pos, const std::string& key, const std::string& expected,
                       bool nullable_required) {
    std::string message = fmt::format("required key '{}' is missing (expected {})", key, expected);
    if (nullable_required) {
        message += fmt::format("; if the source did not report it, write '{}: null'", key);
    }
    return make("schema-missing-key", Severity::error, pos, message);
}

Diagnostic wrong_type(const Position& pos, const std::string& key, const std::string& expected,
                      const std::string& found) {
    return make("schema-type", Severity::error, pos,
                fmt::format("'{}' must be {}, found {}", key, expected, found));
}

Diagnostic unknown_key(const Position& pos, const std::string& key, const std::string& suggestion,
                       const std::string& kind) {
    bool vowel = !kind.empty() && std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
    std::string message = fmt::format("unknown key '{}' in {} {} record", key, vowel ? "an" : "a", kind);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    return make("schema-unknown-key", Severity::error, pos, message);
}

Diagnostic bad_enum(const Position& pos, const std::string& key, const std::string& value,
                    const std::string& allowed, const std::string& suggestion) {
    std::string message = fmt::format("'{}' is not a valid {}", value, key);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    message += fmt::format(" (one of: {})", allowed);
    return make("schema-enum", Severity::error, pos, message);
}

Diagnostic bad_value(const Position& pos, const std::string& key, const std::string& what) {
    return make("schema-value", Severity::error, pos, fmt::format("'{}' {}", key, what));
}

Diagnostic unknown_kind(const std::string& file, const std::string& folder) {
    return make("record-kind", Severity::error, whole_file(file),
                fmt::format("records must live under models/, accelerators/ or kv-efficiency/, not '{}'", folder));
}

Diagnostic id_path_mismatch(const Position& pos, const std::string& id, const std::string& expected) {
    Diagnostic d = make("id-path-mismatch", Severity::error, pos,
                        fmt::format("id '{}' does not match the file's path; expected '{}'", id, expected));
    d.stated = id;
    d.computed = expected;
    return d;
}

Diagnostic duplicate_id(const Position& pos, const std::string& id, const std::string& other_file) {
    return make("id-duplicate", Severity::error, pos, fmt::format("id '{}' is also used by {}", id, other_file));
}

Diagnostic unresolved_reference(const Position& pos, const std::string& key, const std::string& id,
                                const std::string& wanted_kind, const std::string& suggestion) {
    std::string message = fmt::format("{} '{}' names no {} record", key, id, wanted_kind);
    if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
    }
    return make("ref-unresolved", Severity::error, pos, message);
}

Diagnostic basis_product(const Position& pos, const std::string& expression, const std::string& computed,
                         const std::string& stated) {
    Diagnostic d = make("kv-basis-product", Severity::error, pos,
                        fmt::format("{} = {}, but kv_bytes_per_token is {}", expression, computed, stated));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic basis_model(const Position& pos, const std::string& factor, const std::string& stated,
                       const std::string& expected, const std::string& model_id, const std::string& why) {
    Diagnostic d = make("kv-basis-model", Severity::error, pos,
                        fmt::format("kv_bytes_basis.{} is {}, but {} gives {} ({})", factor, stated, model_id,
                                    expected, why));
    d.stated = stated;
    d.computed = expected;
    return d;
}

Diagnostic dtype_bytes(const Position& pos, const std::string& dtype, const std::string& stated,
                       const std::string& expected, const std::string& block_note) {
    Diagnostic d = make("kv-dtype-bytes", Severity::error, pos,
                        fmt::format("bytes_per_element is {}, but {} stores {} bytes per element{}", stated, dtype,
                                    expected, block_note));
    d.stated = stated;
    d.computed = expected;
    return d;
}

Diagnostic variant_mismatch(const Position& pos, const std::string& stated, const std::string& model_variant,
                            const std::string& model_id) {
    Diagnostic d = make("attention-variant-mismatch", Severity::error, pos,
                        fmt::format("attention_variant is {}, but {} is {}", stated, model_id, model_variant));
    d.stated = stated;
    d.computed = model_variant;
    return d;
}

Diagnostic context_above_native(const Position& pos, const std::string& context, const std::string& native,
                                const std::string& model_id) {
    Diagnostic d = make("context-above-native", Severity::warning, pos,
                        fmt::format("context_length {} exceeds {}'s native context {}; declare how it was reached "
                                    "in context_extension",
                                    context, model_id, native));
    d.stated = context;
    d.computed = native;
    return d;
}

Diagnostic overflow(const Position& pos, const std::string& what) {
    return make("arith-overflow", Severity::error, pos, fmt::format("{} does not fit in 64 bits", what));
}

Diagnostic model_layers(const Position& pos, const std::string& what) {
    return make("model-layers", Severity::error, pos, what);
}

Diagnostic ignore_problem(const Position& pos, const std::string& what) {
    return make("lint-ignore", Severity::warning, pos, what);
}

Diagnostic prose_arithmetic(const Position& pos, const std::string& expression, const std::string& computed,
                            const std::string& stated) {
    Diagnostic d = make("prose-arithmetic", Severity::error, pos,
                        fmt::format("{} = {}, not {}", expression, computed, stated));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic statement_mismatch(const Position& pos, const std::string& what, const std::string& stated,
                              const std::string& expected) {
    Diagnostic d = make("kv-statement-mismatch", Severity::error, pos, what);
    if (!stated.empty()) d.stated = stated;
    if (!expected.empty()) d.computed = expected;
    return d;
}

Diagnostic above_roofline(const Position& pos, const std::string& measured, const std::string& ceiling,
                          const std::string& how, const std::string& field) {
    Diagnostic d = make("tps-above-roofline", Severity::error, pos,
                        fmt::format("{} {} is above the bandwidth ceiling of {} tokens/s: {}", field, measured,
                                    ceiling, how));
    d.stated = measured;
    d.computed = ceiling;
    return d;
}

Diagnostic exceeds_memory(const Position& pos, const std::string& needed, const std::string& memory,
                          const std::string& how, double needed_gib, double memory_gib) {
    Diagnostic d = make("exceeds-memory", Severity::warning, pos,
                        fmt::format("needs {} bytes ({:.2f} GiB) but the accelerator has {} ({:.2f} GiB): {}; state "
                                    "an offload if part of it ran elsewhere",
                                    needed, needed_gib, memory, memory_gib, how));
    d.stated = memory;
    d.computed = needed;
    return d;
}

Diagnostic engine_name(const Position& pos, const std::string& written, const std::string& what,
                       const std::string& meant) {
    Diagnostic d = make("engine-name", Severity::error, pos, fmt::format("engine '{}': {}", written, what));
    d.stated = written;
    if (!meant.empty()) d.computed = meant;
    return d;
}

Diagnostic weight_format_name(const Position& pos, const std::string& written, const std::string& what,
                              const std::string& meant) {
    Diagnostic d =
        make("weight-format-name", Severity::warning, pos, fmt::format("weight_quant '{}': {}", written, what));
    d.stated = written;
    if (!meant.empty()) d.computed = meant;
    return d;
}

Diagnostic quality_recovery(const Position& pos, const std::string& stated, const std::string& computed,
                            const std::string& how) {
    Diagnostic d = make("quality-recovery", Severity::error, pos,
                        fmt::format("recovery_percent {} does not follow from the values: {} = {}", stated, how,
                                    computed));
    d.stated = stated;
    d.computed = computed;
    return d;
}

Diagnostic id_context_tag(const Position& pos, const std::string& tag, const std::string& tag_tokens,
                          const std::string& context) {
    Diagnostic d = make("id-context-tag", Severity::warning, pos,
                        fmt::format("the id names {} ({} tokens), but context_length is {}", tag, tag_tokens, context));
    d.stated = tag_tokens;
    d.computed = context;
    return d;
}

}  // namespace diag

}  // namespace kvcat
