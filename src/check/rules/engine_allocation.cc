// engine-allocation: an allocation record's printed figures are what the engine's allocator
// gives for the model record and the settings the log shows.
//
// check_allocation() (src/engines/allocation_check.h) asks the engine models (src/engines/llamacpp/llamacpp_allocation,
// src/engines/vllm/vllm_allocation, src/engines/sglang/sglang_allocation; their rules and sources in docs/engines.md)
// for each figure, and this rule reports the ones that do not hold:
//  - llama.cpp: K, V, R and S (and each size) in MiB, to the two decimals the engine prints,
//    rounded as it rounds them (single precision, then printf's %.2f);
//  - vLLM: the "GPU KV cache size" tokens must lie within what the printed "Available KV cache
//    memory" allows once its rounding to 0.01 GiB is undone, give or take one block; for a
//    release before 0.20, which prints num_blocks // groups x the block size
//    (vllm/v1/core/kv_cache_utils.py at 001cabc1be16a59a70d720ed61a13b678c060a18), a whole
//    number of blocks too; and the printed maximum concurrency within the same range;
//  - SGLang: K and V (or an MLA pool's KV) in GB of 2^30 bytes to two decimals, for the
//    printed #tokens;
//  - a llama.cpp whole start (`start:`): the compute buffer of the one device that ran the
//    layers at least kvcat's bound for a log of any build (engines/llamacpp/llamacpp_compute.h).
// A figure the engine did not print is not judged; a shape kvcat does not model (EngineError)
// is a finding that says so, so a record never passes unchecked in silence.
#include <string>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "engines/allocation_check.h"

namespace kvcat::rules {

namespace {

void finding(const Record& r, const std::string& key, const std::string& stated, const std::string& computed,
             const std::string& what, std::vector<Diagnostic>& out) {
    Diagnostic d = diag::finding("engine-allocation", r.where(key),
                                 fmt::format("{} is {}, but {}: {}", key, stated, what, computed));
    d.stated = stated;
    d.computed = computed;
    out.push_back(std::move(d));
}

/// engine-allocation: every printed figure of an allocation record recomputes.
void engine_allocation(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::allocation || !r.root) return;
    const YamlNode* model_node = r.node("model");
    std::string model_id =
        model_node && model_node->is_scalar() && model_node->value != "null" ? model_node->value : "";
    const Record* model = model_id.empty() ? nullptr : refs.find(model_id);
    if (!model || !model->model) {
        if (!model_id.empty()) {
            finding(r, "model", model_id, "a model record", "no model record has this id, so no figure can be checked",
                    out);
        }
        return;
    }
    AllocationCheck check = check_allocation(r, *model->model);
    // In the record's order: each part's problem, or the figures of it that do not hold.
    for (const auto& part : check.parts) {
        if (!part.rule.empty()) continue;  // another rule's figures (engine-profile)
        for (const auto& p : check.problems) {
            if (p.key == part.key || p.key.starts_with(part.key + "."))
                finding(r, p.key, p.stated, p.expected, p.why, out);
        }
        for (const auto& f : part.figures) {
            if (!f.holds) finding(r, f.key, f.printed, f.computed, f.why, out);
        }
    }
}

/// not-judged: each figure of an allocation record that engine-allocation passes without a rule
/// or an input to judge it by, said as a note where the figure is, so that a reviewer sees what
/// the lint did not hold the record to. A note, not a warning: the gap is kvcat's (a compute
/// buffer of a sliding-window cache, a start split over devices) or the log's (a line without
/// its types), and no change to the record can close it.
void not_judged(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::allocation || !r.root) return;
    const YamlNode* model_node = r.node("model");
    if (!model_node || !model_node->is_scalar()) return;
    const Record* model = refs.find(model_node->value);
    if (!model || !model->model) return;  // engine-allocation says so
    for (const auto& n : check_allocation(r, *model->model).not_judged) {
        out.push_back(diag::finding("not-judged", r.where(n.key), "not judged by engine-allocation: " + n.why));
    }
}

}  // namespace

KVCAT_RULES(engine_allocation) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"engine-allocation", Severity::error,
                 "an allocation record's printed figure is not what the engine's allocator gives for the model "
                 "record and the settings the log shows (llama.cpp MiB of K, V, R and S; vLLM tokens within the "
                 "printed memory's rounding and one block, in whole blocks where the release prints blocks; SGLang GB; "
                 "a llama.cpp start's compute buffer at least kvcat's bound); the right figure is given",
                 RuleStage::record, engine_allocation},
        RuleInfo{"not-judged", Severity::note,
                 "an allocation record's figure that engine-allocation has no rule or no printed input to judge (a "
                 "compute buffer kvcat does not give, a line without its types) is named where it is written",
                 RuleStage::record, not_judged},
    };
    return kRules;
}

}  // namespace kvcat::rules
