#include "engines/engine_budget.h"

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

EngineBudget card_less_weights_and_reserve(const EngineSettings& /*settings*/, const FitTerms& terms) {
    return share_less_weights_and_reserve({"the card's memory", terms.memory, terms.memory_how}, "runtime reserve",
                                          "--reserve-gib, kvcat's assumption for the runtime", terms);
}

}  // namespace kvcat
