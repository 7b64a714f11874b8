// engine-profile: a vLLM start's memory profile adds up.
//
// The line a vLLM V1 worker prints once its CUDA graphs are captured gives the card's free and
// total memory, the share it requested, what the weights, the peak activation, the memory outside
// torch and the CUDA graphs took, two --kv-cache-memory suggestions in bytes and the pool; each
// follows from the others by sums vllm/v1/worker/gpu_worker.py makes (engines/vllm/vllm_profile.h
// gives them with the commits they were read at). A record whose figure breaks a sum was copied
// wrong or edited: the rule names the figure and the value the others give, once each figure's
// rounding to 0.01 GiB is undone. It needs no model record: the sums are the line's own.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "engines/vllm/vllm_profile.h"

namespace kvcat::rules {

namespace {

/// engine-profile: every figure of a vLLM profile line that its sums fix is what they give.
void engine_profile(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::allocation || !r.root || !r.node("vllm")) return;
    VllmProfileCheck check = vllm_profile_check(r);
    for (const auto& f : check.part.figures) {
        if (f.holds) continue;
        Diagnostic d =
            diag::finding("engine-profile", r.where(f.key),
                          fmt::format("{} is {}, but {} {} {}", f.key, f.printed, f.why, f.computed, f.unit));
        d.stated = f.printed;
        d.computed = f.computed;
        out.push_back(std::move(d));
    }
}

}  // namespace

KVCAT_RULES(engine_profile) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"engine-profile", Severity::error,
                 "a vLLM start's memory profile line does not add up: the requested memory is CUDA's total x "
                 "gpu_memory_utilization, the --kv-cache-memory suggestions and the pool are the requested (or free) "
                 "memory less what the profile says was used, each to the rounding vLLM prints; the right figure is "
                 "given",
                 RuleStage::record, engine_profile},
    };
    return kRules;
}

}  // namespace kvcat::rules
