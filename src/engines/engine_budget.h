// The memory an engine that sizes its pool from memory (vLLM, SGLang) keeps for its cache and
// state on one card, worked out as that engine works it out: from the card's total, the weights
// and what it holds back. Each engine's rules name their own (EngineRules::budget); fit, plan and
// the report's planner take this one figure, so they agree with each other and with the engine.
#pragma once

#include <string_view>
#include <vector>

#include "engines/engine_memory.h"
#include "model/physics.h"

namespace kvcat {

struct EngineBudget {
    Rational available;             ///< the memory for the cache and state, bytes (may be zero or less)
    std::vector<BudgetTerm> terms;  ///< the share it starts from, then each term taken off it
};

/// `share` (the card, or the engine's share of it) less the weights and the reserve (--reserve-gib),
/// each a term; `reserve_name` and `reserve_how` say what the reserve stands for in this engine.
EngineBudget share_less_weights_and_reserve(BudgetTerm share, std::string_view reserve_name,
                                            std::string_view reserve_how, const FitTerms& terms);

/// The card less the weights and the reserve: what kvcat assumes of an engine that does not say
/// how it keeps memory back.
EngineBudget card_less_weights_and_reserve(const EngineSettings& settings, const FitTerms& terms);

}  // namespace kvcat
