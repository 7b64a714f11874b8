#include "engines/engine_verdict.h"

#include <fmt/format.h>

#include "engines/engine_rules.h"
#include "support/bisect.h"

namespace kvcat {

Rational engine_runtime_bytes(const FitTerms& terms, const EngineAnswer& answer) {
    return answer.runtime_bytes ? *answer.runtime_bytes : terms.reserve;
}

Rational engine_start_bytes(const FitTerms& terms, const EngineAnswer& answer) {
    return terms.weights - terms.weights_off_card + engine_runtime_bytes(terms, answer) + answer.kv_bytes +
           answer.state_bytes + answer.fit_target_bytes;
}

std::optional<std::string> engine_held_edge(const FitTerms& terms, const EngineAnswer& answer) {
    return rules_of(answer.engine).held_edge(answer, terms.memory - engine_start_bytes(terms, answer));
}

void whole_start_ask(EngineSettings& settings, const FitTerms& /*terms*/, std::int64_t context, std::int64_t slots) {
    settings.context = checked_mul(context, slots);
    settings.parallel = slots;
    settings.available_bytes.reset();
}

EngineVerdict whole_start_judge(const EngineAnswer& a, const FitTerms& terms, std::int64_t /*context*/,
                                std::int64_t /*slots*/) {
    EngineVerdict v;
    Rational need = engine_start_bytes(terms, a);
    v.fits = !(need > terms.memory);
    if (!v.fits) {
        v.why = a.fit_target_bytes > Rational(0)
                    ? fmt::format("its allocation and the {} bytes its --fit keeps free need {} bytes of {}",
                                  a.fit_target_bytes.floor(), need.floor(), terms.memory.floor())
                    : fmt::format("its allocation needs {} bytes of {}", need.floor(), terms.memory.floor());
    }
    return v;
}

EngineVerdict engine_verdict(const Model& model, const CacheDtype& dtype, Engine engine, EngineSettings settings,
                             const FitTerms& terms, std::int64_t context, std::int64_t slots) {
    EngineVerdict v;
    if (!terms.fits) {
        v.why = "the weights, state and reserve alone do not fit";
        return v;
    }
    const EngineRules& rules = rules_of(engine);
    rules.card_defaults(settings, terms);  // the budget reads them (vLLM's sequences and batched tokens)
    if (rules.sizing == EngineSizing::from_memory) {
        Rational left = rules.budget(settings, terms).available;
        if (!(left > Rational(0))) {
            v.why = fmt::format("the weights and what {} holds back leave no memory for the cache", rules.name);
            return v;
        }
        settings.available_bytes = left;
    }
    rules.ask(settings, terms, context, slots);
    EngineAnswer a;
    try {
        a = rules.allocate(model, dtype, settings);
    } catch (const EngineRefusal& e) {
        v.why = e.what();
        return v;
    }
    return rules.judge(a, terms, context, slots);
}

std::int64_t engine_max_context(const Model& model, const CacheDtype& dtype, Engine engine,
                                const EngineSettings& settings, const FitTerms& terms, std::int64_t slots,
                                std::int64_t limit) {
    return largest_holding(1, limit, [&](std::int64_t context) {
        return engine_verdict(model, dtype, engine, settings, terms, context, slots).fits;
    });
}

void engine_plan(std::vector<PlanRow>& rows, const PlanGrid& grid, const Model& model, Engine engine,
                 const EngineSettings& settings) {
    EngineSettings base = settings;
    base.gpus = grid.gpus;
    for (PlanRow& row : rows) {
        if (!row.error.empty()) continue;
        if (auto refused = grid.refused_weights.find(row.weights); refused != grid.refused_weights.end()) {
            row.fits_at.assign(grid.contexts.size(), false);
            row.max_context = 0;
            row.why_not = refused->second;
            continue;
        }
        auto dtype = find_cache_dtype(row.kv_dtype);
        if (!dtype) continue;  // plan_fits has refused such a name already
        std::int64_t limit = row.terms.native_context > 0 ? row.terms.native_context
                             : grid.contexts.empty()      ? 0
                                                          : grid.contexts.back();
        try {
            for (std::size_t i = 0; i < grid.contexts.size(); ++i) {
                EngineVerdict v = engine_verdict(model, *dtype, engine, base, row.terms, grid.contexts[i], row.slots);
                row.fits_at[i] = v.fits;
                if (i == 0 && !v.fits) row.why_not = v.why;
            }
            row.max_context = engine_max_context(model, *dtype, engine, base, row.terms, row.slots, limit);
        } catch (const std::exception& e) {  // a setting or shape the engine does not take
            row.error = e.what();
            row.max_context = 0;
            row.fits_at.assign(grid.contexts.size(), false);
        }
    }
}

}  // namespace kvcat
