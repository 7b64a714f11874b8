// A plan before the download: for a model on a card (or several), every weight format x KV
// cache dtype x slots asked for, whether each context step fits and the largest context, each
// row fit_context's answer for those settings (the same terms `kvcat fit` prints one by one).
//
// A llama.cpp mix (Q4_K_M, ...) is taken at its base type throughout, a lower bound of its
// weights (vocab/weight_mix.h): its row says so, and its "fits" is at most what the file allows.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <map>
#include <set>
#include <utility>

#include "model/physics.h"

namespace kvcat {

/// What to plan over.
struct PlanGrid {
    /// Exact formats or llama.cpp mixes as the user spells them, or a file's name (its bytes
    /// in exact_weights).
    std::vector<std::string> weights;
    std::vector<std::string> kv_dtypes;  ///< cache dtypes
    std::vector<std::int64_t> slots;     ///< sequences held at once
    std::vector<std::int64_t> contexts;  ///< the context steps, ascending; empty: plan_context_steps()
    std::int64_t gpus = 1;
    Rational reserve = kDefaultReserveBytes;  ///< held back on each card
    bool reserve_given = false;               ///< FitSetup::reserve_given
    /// A weight format's exact bytes, by its name as given, with where they come from (the
    /// caller's: llama-quantize's plan of a mix, engines/llamacpp/llamacpp_quant.h, or a GGUF file's
    /// header); such a row is no lower bound.
    std::map<std::string, std::pair<Rational, std::string>> exact_weights;
    /// Of those bytes, what the engine keeps in host memory, by the same name (FitTerms::weights_off_card).
    std::map<std::string, std::pair<Rational, std::string>> weights_off_card;
    /// Of exact_weights, the names whose bytes are the engine's own layers (EngineRules::loaded_weights),
    /// not llama-quantize's plan or a file's.
    std::set<std::string> engine_layers;
    /// The engine's refusal to load a format on these cards, in its own words, by the same name
    /// (EngineRules::loaded_weights): every context of such a row does not fit.
    std::map<std::string, std::string> refused_weights;
};

/// A weight format or cache dtype the plan does not know (the message lists the known ones).
class PlanError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct PlanRow {
    std::string weights;               ///< the format's own spelling ("Q4_K_M")
    bool weights_lower_bound = false;  ///< a mix, taken at its base type
    std::string kv_dtype;
    std::int64_t slots = 1;
    FitTerms terms;  ///< the textbook's terms (one card's memory, weights and reserve)
    /// The largest context that fits, up to the model's native one; 0 when none does.
    std::int64_t max_context = 0;
    std::vector<bool> fits_at;  ///< per context step
    std::string error;          ///< why this row has no answer (the model cannot be split so); "" otherwise
    std::string why_not;        ///< with an engine: why its smallest step does not fit; "" otherwise
};

/// Powers of two from 4,096 up to the model's native context, and the native context itself when
/// it is not one.
std::vector<std::int64_t> plan_context_steps(const Model& model);

/// Every row of the grid, weights first, then KV dtype, then slots, in the order given. Throws
/// PlanError for a format or dtype it does not know; a row the physics cannot answer (its KV
/// heads cannot be spread over the cards) carries the reason in `error`.
std::vector<PlanRow> plan_fits(const Model& model, const Accelerator& accelerator, PlanGrid& grid);

}  // namespace kvcat
