#include "check/findings.h"

#include <stdexcept>

#include <fmt/format.h>

#include "check/rule_registry.h"

namespace kvcat {

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

}  // namespace

namespace diag {

Diagnostic finding(std::string_view rule, const Position& pos, std::string message) {
    return make(rule, pos, std::move(message));
}

Diagnostic with_claim(Diagnostic d, std::string claim) {
    d.message += fmt::format(" [claim: \"{}\"]", claim);
    d.claim = std::move(claim);
    return d;
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

Diagnostic quality_baseline(const Position& pos, const std::string& stated, const std::string& what) {
    Diagnostic d = make("quality-baseline", pos, what);
    d.stated = stated;
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
