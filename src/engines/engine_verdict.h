// Whether an engine starts with a number of requests of a context on a card, as that engine
// decides it: the one verdict `kvcat plan --engine` gives for each cell of its grid.
//
// - llama.cpp and ik_llama.cpp (-c context x slots, -np slots) allocate their whole cache and
//   state at start-up: they fit when that, the weights and the reserve fit the card's memory.
// - vLLM (--max-model-len context) is given its budget (engines/vllm/vllm_budget.h: the card x
//   gpu_memory_utilization less the weights and the reserve): it starts when one request of
//   max_model_len fits (its refusal otherwise), and holds the slots when its maximum concurrency
//   reaches them.
// - SGLang sizes its token pool from its budget: the slots fit when their tokens do.
#pragma once

#include <cstdint>
#include <string>

#include "engines/engine_memory.h"
#include "model/physics.h"
#include "model/plan.h"

namespace kvcat {

struct EngineVerdict {
    bool fits = false;
    std::string why;  ///< why not, in a sentence; "" when it fits
};

/// The verdict for `slots` requests of `context` tokens; `settings` holds the engine's other
/// settings (its build, cards, flash attention), `terms` one card's memory, weights and reserve
/// (fit_context's). Throws what engine_allocation throws for a model it cannot hold.
EngineVerdict engine_verdict(const Model& model, const CacheDtype& dtype, Engine engine, EngineSettings settings,
                             const FitTerms& terms, std::int64_t context, std::int64_t slots);

/// The largest context up to `limit` whose verdict fits (each engine's allocation only grows with
/// the context); 0 when none does.
std::int64_t engine_max_context(const Model& model, const CacheDtype& dtype, Engine engine,
                                const EngineSettings& settings, const FitTerms& terms, std::int64_t slots,
                                std::int64_t limit);

/// A plan's rows as `engine` decides them (its settings but the context and the slots as given):
/// each row's verdict at every context step, its largest context up to the model's native one,
/// and why its smallest step does not fit. A row the engine cannot hold at all gets `error`.
void engine_plan(std::vector<PlanRow>& rows, const PlanGrid& grid, const Model& model, Engine engine,
                 const EngineSettings& settings);

/// How llama.cpp and ik_llama.cpp are asked for a verdict: -c context x slots and -np slots, no
/// memory handed to them (they allocate what the context needs at start-up).
void whole_start_ask(EngineSettings& settings, const FitTerms& terms, std::int64_t context, std::int64_t slots);
/// Their verdict: the whole start (engine_start_bytes) within the card's memory.
EngineVerdict whole_start_judge(const EngineAnswer& answer, const FitTerms& terms, std::int64_t context,
                                std::int64_t slots);

/// The runtime's share of a start: what the engine's answer works out (llama.cpp: its compute buffer
/// and what the card holds, llamacpp_runtime), or the reserve for an engine that works out none
/// (ik_llama.cpp, whose graph was not read).
Rational engine_runtime_bytes(const FitTerms& terms, const EngineAnswer& answer);

/// llama.cpp's and ik_llama.cpp's whole start-up allocation beside the card: the weights, the
/// runtime (engine_runtime_bytes), the cache and the state of `answer`, one card's, and the memory
/// llama.cpp's --fit keeps free beside them (answer.fit_target_bytes): with less left, llama.cpp
/// does not start as asked but moves layers off the card.
Rational engine_start_bytes(const FitTerms& terms, const EngineAnswer& answer);

/// For a start whose runtime counts a fitted figure of what the card holds (EngineAnswer::card_held),
/// the held memory that would turn its verdict, when the starts the figure is fitted to reach it
/// (the engine's EngineRules::held_edge); nullopt otherwise.
std::optional<std::string> engine_held_edge(const FitTerms& terms, const EngineAnswer& answer);

}  // namespace kvcat
