#include "engines/engine_budget.h"

#include <fmt/format.h>

#include "engines/engine_rules.h"

namespace kvcat {

EngineBudget card_less_weights_and_reserve(const EngineSettings& /*settings*/, const FitTerms& terms) {
    EngineBudget b;
    b.available = terms.memory - terms.weights - terms.reserve;
    b.terms = {
        {"the card's memory", terms.memory, terms.memory_how},
        {"weights", Rational(0) - terms.weights, terms.weights_how},
        {"runtime reserve", Rational(0) - terms.reserve, "--reserve-gib, kvcat's assumption for the runtime"},
    };
    return b;
}

EngineBudget engine_budget(Engine engine, const EngineSettings& settings, const FitTerms& terms) {
    return rules_of(engine).budget(settings, terms);
}

}  // namespace kvcat
