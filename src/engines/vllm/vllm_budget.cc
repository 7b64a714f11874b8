#include "engines/vllm/vllm_budget.h"

#include <string>

#include <fmt/format.h>

#include "engines/vllm/vllm_allocation.h"

namespace kvcat {

namespace {

/// The release that raised the default share to 0.92 and took the CUDA graphs' estimate off the
/// pool by default (commit 96a85c57).
constexpr std::string_view kVllmGraphEstimate = "0.20.0";

}  // namespace

Rational vllm_default_gpu_memory_utilization(std::string_view version) {
    return vllm_version_before(version, kVllmGraphEstimate) ? Rational(9, 10) : Rational(92, 100);
}

EngineBudget vllm_budget(const EngineSettings& settings, const FitTerms& terms) {
    bool given = settings.gpu_memory_utilization.has_value();
    Rational utilization =
        given ? *settings.gpu_memory_utilization : vllm_default_gpu_memory_utilization(settings.version);
    bool graphs = !vllm_version_before(settings.version, kVllmGraphEstimate);
    // vLLM's larger defaults on a large card (1,024 sequences, 8,192 batched tokens) profile a
    // larger peak: in the seven such starts kvcat compares, 1.6 to 7.7 GiB more than the allowance.
    bool large_defaults =
        settings.max_num_seqs_default && settings.max_num_seqs == kVllmLargeCardMaxNumSeqs && !terms.reserve_given;
    std::string reserve_how =
        "--reserve-gib: kvcat's allowance for what vLLM measures at start, which kvcat does not model";
    if (large_defaults) reserve_how += kVllmLargeDefaultsNote;
    return share_less_weights_and_reserve(
        {"the card x gpu_memory_utilization", terms.memory * utilization,
         fmt::format("{}{} of {}; vLLM takes CUDA's total, a little under the driver's on NVIDIA cards",
                     utilization.to_display(), given ? "" : " (vLLM's default)", terms.memory_how)},
        graphs ? "activations, non-torch and CUDA graphs" : "activation peak and non-torch memory", reserve_how, terms);
}

}  // namespace kvcat
