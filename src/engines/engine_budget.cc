#include "engines/engine_budget.h"

#include <fmt/format.h>

namespace kvcat {

EngineBudget share_less_weights_and_reserve(BudgetTerm share, BudgetTerm reserve, const FitTerms& terms) {
    EngineBudget b;
    b.available = share.bytes - terms.weights - reserve.bytes;
    reserve.bytes = Rational(0) - reserve.bytes;
    b.terms = {
        std::move(share),
        {"weights", Rational(0) - terms.weights, terms.weights_how},
        std::move(reserve),
    };
    return b;
}

RuntimeTotal runtime_total(const FitTerms& terms) {
    if (terms.runtime_memory) return {*terms.runtime_memory, terms.runtime_memory_how};
    Rational gap(kRuntimeTotalGapBytes);
    if (terms.memory_by != "nvidia-smi" || terms.memory <= gap) {
        return {terms.memory, fmt::format("{}; the card's record gives no runtime total", terms.memory_how)};
    }
    return {terms.memory - gap,
            fmt::format("{} less {} MiB: the card's record gives no CUDA total, the one the engine takes, and on the "
                        "cards whose records give both it is up to that much under nvidia-smi's",
                        terms.memory_how, kRuntimeTotalGapBytes >> 20)};
}

void hold_back_tensor_parallel_non_torch(EngineBudget& budget, std::int64_t gpus, std::string_view evidence) {
    if (gpus < 2) return;
    Rational held(kTensorParallelNonTorchBytes);
    budget.available = budget.available - held;
    budget.terms.insert(budget.terms.begin() + 2,
                        BudgetTerm{"memory outside torch over several cards", Rational(0) - held,
                                   fmt::format("fitted: NCCL and the all-reduce buffers on each of the {} cards, "
                                               "1.82 GiB beside what one card holds ({})",
                                               gpus, evidence)});
}

EngineBudget card_less_weights_and_reserve(const EngineSettings& /*settings*/, const FitTerms& terms) {
    return share_less_weights_and_reserve(
        {"the card's memory", terms.memory, terms.memory_how},
        {"runtime reserve", terms.reserve, "--reserve-gib, kvcat's assumption for the runtime"}, terms);
}

}  // namespace kvcat
