#include "model/plan.h"

#include <algorithm>
#include <optional>

#include "vocab/dtype.h"
#include "vocab/weight_mix.h"

namespace kvcat {

std::vector<std::int64_t> plan_context_steps(const Model& model) {
    std::int64_t native = model.native_context.value_or(0);
    std::vector<std::int64_t> steps;
    for (std::int64_t c = 4096; c <= native && c > 0; c *= 2) steps.push_back(c);
    if (native > 0 && (steps.empty() || steps.back() != native)) steps.push_back(native);
    return steps;
}

std::vector<PlanRow> plan_fits(const Model& model, const Accelerator& accelerator, PlanGrid& grid) {
    if (grid.contexts.empty()) grid.contexts = plan_context_steps(model);
    // A name the vocabulary does not know is a file's, when its exact bytes were given.
    std::vector<std::pair<std::string, std::optional<NamedWeights>>> weights;
    for (const auto& w : grid.weights) {
        auto named = find_weights(w);
        if (!named && !grid.exact_weights.count(w)) throw PlanError(unknown_weights_message(w));
        weights.emplace_back(named ? std::string(named->name()) : w, named);
    }
    std::vector<CacheDtype> dtypes;
    for (const auto& d : grid.kv_dtypes) {
        auto dtype = find_cache_dtype(d);
        if (!dtype) throw PlanError(unknown_cache_dtype_message(d));
        dtypes.push_back(*dtype);
    }
    std::vector<PlanRow> rows;
    for (const auto& [name, w] : weights) {
        for (const CacheDtype& d : dtypes) {
            for (std::int64_t slots : grid.slots) {
                PlanRow row;
                row.weights = name;
                auto exact = grid.exact_weights.find(row.weights);
                row.weights_lower_bound = w && w->mix.has_value() && exact == grid.exact_weights.end();
                row.kv_dtype = std::string(d.name);
                row.slots = slots;
                FitSetup setup;
                setup.batch = slots;
                setup.gpus = grid.gpus;
                setup.reserve = grid.reserve;
                setup.reserve_given = grid.reserve_given;
                if (exact != grid.exact_weights.end()) {
                    setup.weight_bytes = exact->second.first;
                    setup.weight_how = exact->second.second;
                }
                try {
                    row.terms = fit_context(model, accelerator, w ? &w->quant : nullptr, d, setup);
                    if (auto off = grid.weights_off_card.find(row.weights); off != grid.weights_off_card.end()) {
                        row.terms.weights_off_card = off->second.first;
                        row.terms.weights_off_card_how = off->second.second;
                    }
                    // The model as published: a longer context needs its RoPE stretched, which is no plan.
                    std::int64_t native = row.terms.native_context;
                    if (row.terms.fits) {
                        row.max_context = native > 0 ? std::min(row.terms.max_context, native) : row.terms.max_context;
                    }
                    for (std::int64_t c : grid.contexts) {
                        row.fits_at.push_back(row.terms.fits && !(fit_bytes_at(row.terms, c) > row.terms.memory));
                    }
                } catch (const std::exception& e) {  // a split the physics cannot make, or overflow
                    row.error = e.what();
                    row.terms.fits = false;
                    row.fits_at.assign(grid.contexts.size(), false);
                }
                rows.push_back(std::move(row));
            }
        }
    }
    return rows;
}

}  // namespace kvcat
