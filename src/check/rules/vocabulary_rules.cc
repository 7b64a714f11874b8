// One vocabulary for engines and weight formats, so rows from many sources query together.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/schema.h"
#include "support/suggest.h"
#include "vocab/vocabulary.h"

namespace kvcat::rules {

namespace {

template <typename Names>
std::string nearest(std::string_view written, const Names& names) {
    std::vector<std::string_view> all;
    for (const auto& n : names) all.push_back(n.name);
    return closest_match(written, all);
}

}  // namespace

void engine_name(const Record& r, const RecordSet&, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->engine.empty() || find_engine(r.kv->engine)) return;
    const YamlNode* node = r.node("engine");
    // A number or a boolean where the name belongs is schema-type's finding, not this one.
    if (!node || !node->is_scalar() || node->value != r.kv->engine || !as_string(node) ||
        (!node->quoted && (as_number(node) || node->value == "true" || node->value == "false"))) {
        return;
    }
    std::string known;
    for (const auto& e : engine_names()) known += (known.empty() ? "" : ", ") + std::string(e.name);
    if (const EngineName* meant = engine_spelled(r.kv->engine)) {
        out.push_back(diag::engine_name(r.where("engine"), r.kv->engine,
                                        fmt::format("write '{}', the catalog's spelling, so that its rows query "
                                                    "together",
                                                    meant->name),
                                        std::string(meant->name)));
        return;
    }
    std::string near = nearest(r.kv->engine, engine_names());
    out.push_back(diag::engine_name(
        r.where("engine"), r.kv->engine,
        fmt::format("it is not an engine the catalog knows{}; known: {} (a new engine or fork is added to "
                    "src/vocab/vocabulary.cc with its upstream)",
                    near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), known),
        near));
}

void weight_format_name(const Record& r, const RecordSet&, std::vector<Diagnostic>& out) {
    if (!r.kv || !r.kv->weight_quant || find_weight_format(*r.kv->weight_quant)) return;
    const std::string& written = *r.kv->weight_quant;
    if (const WeightFormatName* meant = weight_format_spelled(written)) {
        out.push_back(diag::weight_format_name(r.where("weight_quant"), written,
                                               fmt::format("write '{}', the catalog's spelling", meant->name),
                                               std::string(meant->name)));
        return;
    }
    std::string near = nearest(written, weight_format_names());
    out.push_back(diag::weight_format_name(
        r.where("weight_quant"), written,
        fmt::format("it is not a weight format the catalog knows{}; if it is a real format, add it to "
                    "src/vocab/vocabulary.cc",
                    near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)),
        near));
}

KVCAT_RULES(vocabulary_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{
            "engine-name", Severity::error,
            "`engine` is not in the catalog's vocabulary (`src/vocab/vocabulary.cc`: llama.cpp, ik_llama.cpp, vLLM, "
            "SGLang, TensorRT-LLM, MLX, ds4, ollama, ...), or is spelled otherwise (`vllm` for `vLLM`); the "
            "spelling to write is given",
            RuleStage::record, engine_name},
        RuleInfo{
            "weight-format-name", Severity::warning,
            "`weight_quant` is not a weight format the catalog knows, or is spelled otherwise (`q4_k_m` for `Q4_K_M`)",
            RuleStage::record, weight_format_name},
    };
    return kRules;
}

}  // namespace kvcat::rules
