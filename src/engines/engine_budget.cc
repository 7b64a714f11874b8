#include "engines/engine_budget.h"

#include <fmt/format.h>

namespace kvcat {

EngineBudget share_less_weights_and_reserve(BudgetTerm share, std::string_view reserve_name,
                                            std::string_view reserve_how, const FitTerms& terms) {
    EngineBudget b;
    b.available = share.bytes - terms.weights - terms.reserve;
    b.terms = {
        std::move(share),
        {"weights", Rational(0) - terms.weights, terms.weights_how},
        {std::string(reserve_name), Rational(0) - terms.reserve, std::string(reserve_how)},
    };
    return b;
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
    return share_less_weights_and_reserve({"the card's memory", terms.memory, terms.memory_how}, "runtime reserve",
                                          "--reserve-gib, kvcat's assumption for the runtime", terms);
}

}  // namespace kvcat
