// A model record's `tensors` mapping, checked once through the tensor inventory it implies
// (engines/llamacpp/llamacpp_tensors.h), for two rules:
//
// tensors-mapping: the mapping is there so that kvcat can list the GGUF's tensors and give a
// llama.cpp mix to the byte. A mapping it cannot follow (a dense width missing, experts on an
// architecture that has none, a shared expert's width missing for qwen35moe, a hybrid without
// its linear layers) would leave fit and plan to take the mix at its base type with nothing said
// at the lint; the lint says it here, with the reason the inventory gives.
//
// total-params-tensors: a mapping kvcat can follow fixes the parameters of the text model;
// total_params_b cannot be below that count at the precision it is written in. kvcat sizes the
// weights of an exact format as total_params_b x the format's bytes (vLLM's and SGLang's bf16,
// the textbook's), so a name's size written as the count ("7" for Qwen2-7B's 7.62 billion) takes
// 1.2 GB off every fit. A count above the text model's is not judged: a checkpoint may hold more
// than its GGUF (Llama 4 Scout's 109 billion count its vision encoder, which llama.cpp keeps in
// another file). The count is every element of every tensor of the GGUF the record implies but
// llama.cpp's own rope_freqs (64 values for Llama 3.1, which the converter computes from the
// rope scaling): the checkpoint's parameters, to the unit.
//
// One check serves both rules (the registry runs each check once), so the inventory, a few
// hundred named tensors, is listed once a record.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "engines/llamacpp/llamacpp_tensors.h"
#include "support/rational.h"

namespace kvcat::rules {

namespace {

/// The inventory the record's mapping implies, or why there is none: `why` is left empty when
/// the mapping is absent from the loaded model because the schema's own findings cover it (a
/// required key missing or of the wrong type).
std::optional<std::vector<GgufTensorShape>> inventory(const Model& m, const YamlNode& node, std::string& why) {
    if (!m.tensors) {
        // The loader keeps a mapping only with a dense width or routed experts with theirs.
        bool widths = node.find("ffn_size") || (node.find("experts") && node.find("expert_ffn_size"));
        bool required = node.find("llama_arch") && node.find("hidden_size") && node.find("vocab_size") &&
                        node.find("tied_embeddings");
        if (!widths && required) why = "it needs ffn_size, or experts with expert_ffn_size";
        return std::nullopt;
    }
    if (!has_tensor_inventory(m)) {
        why = "the record lacks num_layers, attention_heads, kv_heads or head_dim";
        return std::nullopt;
    }
    try {
        return llamacpp_tensors(m);
    } catch (const std::invalid_argument& e) {
        why = e.what();
    } catch (const std::overflow_error& e) {
        why = e.what();
    }
    return std::nullopt;
}

/// Half a unit of the last place a decimal is written to: "7" 1/2, "8.03" 1/200, "30.5e0" 1/20.
/// nullopt for a text that is not a plain decimal.
std::optional<Rational> half_unit_written(const std::string& text) {
    std::size_t e = text.find_first_of("eE");
    std::string mantissa = text.substr(0, e);
    std::int64_t exponent = 0;
    if (e != std::string::npos) {
        try {
            exponent = std::stoll(text.substr(e + 1));
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    std::size_t dot = mantissa.find('.');
    std::int64_t places = dot == std::string::npos ? 0 : static_cast<std::int64_t>(mantissa.size() - dot - 1);
    std::int64_t shift = places - exponent;  // the last place is 10^-shift
    if (shift < -18 || shift > 18) return std::nullopt;
    Rational unit(1);
    for (std::int64_t i = 0; i < (shift < 0 ? -shift : shift); ++i) unit = unit * Rational(10);
    if (shift > 0) unit = Rational(1) / unit;
    return unit / Rational(2);
}

void total_params_tensors(const Record& r, const std::vector<GgufTensorShape>& tensors, std::vector<Diagnostic>& out) {
    const Model& m = *r.model;
    if (!m.total_params_b_exact) return;
    std::int64_t count = 0;
    std::size_t weights = 0;
    for (const auto& t : tensors) {
        if (t.name == "rope_freqs.weight") continue;
        count = checked_add(count, checked_mul(checked_mul(t.ne[0], t.ne[1]), t.ne[2]));
        ++weights;
    }
    const YamlNode* node = r.node("total_params_b");
    auto half = node && node->is_scalar() ? half_unit_written(node->value) : std::nullopt;
    if (!half) return;
    Rational billions = Rational(count) / Rational(1000000000);
    if (!(*m.total_params_b_exact + *half < billions)) return;
    Diagnostic d = diag::finding(
        "total-params-tensors", r.where("total_params_b"),
        fmt::format("total_params_b is {}, but the text model alone has {} parameters ({} tensors of the {} GGUF "
                    "the tensors mapping implies): {} billion, above the figure by more than half a unit of its "
                    "last place",
                    node->value, group_thousands(count), weights, m.tensors->llama_arch, billions.to_display()));
    d.stated = node->value;
    d.computed = billions.to_display();
    out.push_back(std::move(d));
}

void tensors_checks(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::model || !r.model) return;
    const YamlNode* node = r.node("tensors");
    if (!node || !node->is_mapping()) return;
    std::string why;
    if (auto tensors = inventory(*r.model, *node, why)) {
        total_params_tensors(r, *tensors, out);
        return;
    }
    if (why.empty()) return;
    out.push_back(diag::finding(
        "tensors-mapping", r.where("tensors"),
        fmt::format("kvcat cannot list the tensors this mapping describes: {}. Until it can, fit and plan take a "
                    "llama.cpp mix of this model at its base type, a lower bound",
                    why)));
}

}  // namespace

KVCAT_RULES(tensors_mapping) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"tensors-mapping", Severity::error,
                 "a model record's `tensors` mapping that kvcat's tensor inventory cannot follow (a width the "
                 "architecture needs is missing, or the architecture has no such layers); the inventory's reason "
                 "is given",
                 RuleStage::record, tensors_checks},
        RuleInfo{"total-params-tensors", Severity::error,
                 "a model record with a `tensors` mapping states a total_params_b below its text model's parameter "
                 "count (every element of the tensors the mapping implies) at the precision written; the count is "
                 "given",
                 RuleStage::record, tensors_checks},
    };
    return kRules;
}

}  // namespace kvcat::rules
