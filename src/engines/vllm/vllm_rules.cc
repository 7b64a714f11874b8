// vLLM's answers to every question kvcat asks an engine (engines/engine_rules.h).
#include <fmt/format.h>

#include "engines/checkpoint_layers.h"
#include "engines/engine_rules.h"
#include "engines/vllm/vllm_allocation.h"
#include "engines/vllm/vllm_budget.h"
#include "engines/vllm/vllm_log.h"
#include "engines/vllm/vllm_record_check.h"

namespace kvcat {

namespace {

/// --max-model-len is the context; the memory is vllm_budget's.
void vllm_ask(EngineSettings& settings, const FitTerms& terms, std::int64_t context, std::int64_t /*slots*/) {
    settings.max_model_len = context;
    vllm_card_defaults(settings, terms.memory, terms.card_name);
}

/// It starts when one request of max_model_len fits (it refuses otherwise), and holds the slots
/// when its maximum concurrency reaches them.
EngineVerdict vllm_judge(const EngineAnswer& a, const FitTerms& /*terms*/, std::int64_t /*context*/,
                         std::int64_t slots) {
    EngineVerdict v;
    v.fits = !a.refusal && a.max_concurrency && *a.max_concurrency >= static_cast<double>(slots);
    if (!v.fits) {
        v.why = a.refusal ? *a.refusal
                          : fmt::format("its maximum concurrency is {:.2f} requests", a.max_concurrency.value_or(0.0));
    }
    return v;
}

}  // namespace

extern const EngineRules vllm_rules;
const EngineRules vllm_rules{
    .engine = Engine::vllm,
    .name = "vllm",
    .catalog_name = "vLLM",
    .log_family = Engine::vllm,
    .sizing = EngineSizing::from_memory,
    .without_memory = EngineWithoutMemory::refuses,
    .ctx_size_sizes = false,
    .one_card_only = false,
    .plan_kv_dtypes = "bf16,fp8",
    .verdict_rule =
        "given CUDA's total x gpu_memory_utilization less the weights and what its profiling run takes (kvcat fit "
        "lists each term), it starts when one request of --max-model-len context fits and holds the slots when its "
        "maximum concurrency reaches them",
    .allocate = vllm_allocation,
    .log_lines = [](const EngineAnswer& a, const Model& /*m*/) { return vllm_log_lines(a); },
    .loaded_weights = vllm_loaded_weights,
    .card_defaults =
        [](EngineSettings& settings, const FitTerms& terms) {
            vllm_card_defaults(settings, terms.memory, terms.card_name);
            // A float checkpoint runs in its own dtype (vLLM's dtype "auto"; checkpoint_float_dtype).
            if (auto dtype = checkpoint_float_dtype(terms.weight_format)) settings.model_dtype = *dtype;
        },
    .budget = vllm_budget,
    .ask = vllm_ask,
    .judge = vllm_judge,
    .held_edge = no_held_edge,
    .check_record = vllm_check_record,
    .summarise = vllm_summarise,
    .logged_figures = vllm_logged_figures,
    .log_reader = vllm_log_reader,
    .record_block = vllm_record_block,
    .log_formats =
        "Available KV cache memory, GPU KV cache size, Maximum concurrency, its memory profile line and its config "
        "line",
};

}  // namespace kvcat
