// id-engine-tag: a kv-efficiency id that starts with an engine, spelt as the shipped records
// spell it (llama.cpp is "llamacpp-", ik_llama.cpp "ik-llamacpp-", vLLM "vllm-"), starts with
// the record's own. The id is what a reader sorts and greps by; an ik_llama.cpp run filed under
// "llamacpp-", or a vLLM row whose engine says SGLang, puts a speed under the wrong engine in
// every table that shows ids. An id that names no engine first ("row-64k") is left alone.
#include <cctype>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/records.h"
#include "vocab/vocabulary.h"

namespace kvcat::rules {

namespace {

/// The engine as an id spells it: lower case, dots left out, '_' and spaces as '-'.
std::string engine_tag(std::string_view engine) {
    std::string tag;
    for (char c : engine) {
        if (c == '.') continue;
        tag += (c == '_' || c == ' ') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return tag;
}

void id_engine_tag(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv || r.id.empty() || r.kv->engine.empty()) return;
    std::string_view name = id_name(r.id);
    std::string tag = engine_tag(r.kv->engine);
    // A fork's own tool keeps its name after the engine's ("mlxcel-" for an MLX engine).
    if (tag.empty() || name.starts_with(tag)) return;
    // The engine the id starts with, the longest tag that fits ("ik-llamacpp-" over "llamacpp-").
    std::string named;
    for (const auto& e : engine_names()) {
        std::string other = engine_tag(e.name);
        if (!other.empty() && name.starts_with(other + "-") && other.size() > named.size()) named = other;
    }
    if (named.empty()) return;
    std::string_view first = std::string_view(name).substr(0, named.size());
    out.push_back(diag::finding(
        "id-engine-tag", r.where("engine"),
        fmt::format("engine is {}, but the id starts '{}-'; an id starts with its engine ('{}-...'): rename the record "
                    "or correct the engine",
                    r.kv->engine, first, tag)));
}

}  // namespace

KVCAT_RULES(id_engine_tag) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"id-engine-tag", Severity::error,
                 "a kv-efficiency id does not start with its engine (`vllm-`, `llamacpp-`)", RuleStage::record,
                 id_engine_tag},
    };
    return kRules;
}

}  // namespace kvcat::rules
