#include "engines/vllm/vllm_budget.h"

#include <fmt/format.h>

#include "engines/vllm/vllm_allocation.h"

namespace kvcat {

Rational vllm_default_gpu_memory_utilization(std::string_view version) {
    return vllm_version_before(version, "0.20.0") ? Rational(9, 10) : Rational(92, 100);
}

EngineBudget vllm_budget(const EngineSettings& settings, const FitTerms& terms) {
    bool given = settings.gpu_memory_utilization.has_value();
    Rational utilization =
        given ? *settings.gpu_memory_utilization : vllm_default_gpu_memory_utilization(settings.version);
    bool graphs = !vllm_version_before(settings.version, "0.20.0");
    EngineBudget b;
    Rational share = terms.memory * utilization;
    b.available = share - terms.weights - terms.reserve;
    b.terms = {
        {"the card x gpu_memory_utilization", share,
         fmt::format("{}{} of {}; vLLM takes CUDA's total, a little under the driver's on NVIDIA cards",
                     utilization.to_display(), given ? "" : " (vLLM's default)", terms.memory_how)},
        {"weights", Rational(0) - terms.weights, terms.weights_how},
        {graphs ? "activations, non-torch and CUDA graphs" : "activation peak and non-torch memory",
         Rational(0) - terms.reserve,
         "--reserve-gib: kvcat's allowance for what vLLM measures at start, which kvcat does not model"},
    };
    return b;
}

}  // namespace kvcat
