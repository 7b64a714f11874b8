// tensors-mapping: a model record's `tensors` mapping is there so that kvcat can list the GGUF's
// tensors (engines/llamacpp/llamacpp_tensors.h) and give a llama.cpp mix to the byte. A mapping
// it cannot follow (a dense width missing, experts on an architecture that has none, a shared
// expert's width missing for qwen35moe, a hybrid without its linear layers) would leave fit and
// plan to take the mix at its base type with nothing said at the lint; the lint says it here,
// with the reason the inventory gives.
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "engines/llamacpp/llamacpp_tensors.h"

namespace kvcat::rules {

namespace {

/// Why the record's mapping cannot be followed, or "" when it can (or when the schema's own
/// findings already cover it: a required key missing or of the wrong type).
std::string why_not_followed(const Model& m, const YamlNode& node) {
    if (!m.tensors) {
        // The loader keeps a mapping only with a dense width or routed experts with theirs.
        bool widths = node.find("ffn_size") || (node.find("experts") && node.find("expert_ffn_size"));
        bool required = node.find("llama_arch") && node.find("hidden_size") && node.find("vocab_size") &&
                        node.find("tied_embeddings");
        if (widths || !required) return "";
        return "it needs ffn_size, or experts with expert_ffn_size";
    }
    if (!has_tensor_inventory(m)) return "the record lacks num_layers, attention_heads, kv_heads or head_dim";
    try {
        llamacpp_tensors(m);
    } catch (const std::invalid_argument& e) {
        return e.what();
    } catch (const std::overflow_error& e) {
        return e.what();
    }
    return "";
}

void tensors_mapping(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::model || !r.model) return;
    const YamlNode* node = r.node("tensors");
    if (!node || !node->is_mapping()) return;
    std::string why = why_not_followed(*r.model, *node);
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
                 RuleStage::record, tensors_mapping},
    };
    return kRules;
}

}  // namespace kvcat::rules
