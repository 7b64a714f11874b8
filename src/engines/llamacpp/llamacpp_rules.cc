// llama.cpp's answers to every question kvcat asks an engine (engines/engine_rules.h).
#include "engines/engine_rules.h"
#include "engines/llamacpp/llamacpp_allocation.h"
#include "engines/llamacpp/llamacpp_card_held.h"
#include "engines/llamacpp/llamacpp_fit.h"
#include "engines/llamacpp/llamacpp_log.h"
#include "engines/llamacpp/llamacpp_record_check.h"

namespace kvcat {

extern const EngineRules llamacpp_rules;
const EngineRules llamacpp_rules{
    .engine = Engine::llamacpp,
    .name = "llama.cpp",
    .catalog_name = "llama.cpp",
    .log_family = Engine::llamacpp,
    .sizing = EngineSizing::at_start,
    .without_memory = EngineWithoutMemory::sized_by_context,
    .ctx_size_sizes = true,
    .one_card_only = true,
    .plan_kv_dtypes = "f16,q8_0,q4_0",
    .verdict_rule =
        "its whole allocation at -c context x slots and -np slots, beside the weights on the card, its "
        "compute buffer and what the card holds before it starts (or the reserve) and the memory its --fit keeps "
        "free",
    .allocate = llamacpp_allocation,
    .log_lines = llamacpp_log_lines,
    .loaded_weights = no_loaded_weights,
    .card_defaults = llamacpp_card_defaults,
    .budget = llamacpp_budget,
    .ask =
        [](EngineSettings& settings, const FitTerms& terms, std::int64_t context, std::int64_t slots) {
            whole_start_ask(settings, terms, context, slots);
            llamacpp_card_defaults(settings, terms);
        },
    .judge = whole_start_judge,
    .held_edge = [](const EngineAnswer& answer, const Rational& spare) -> std::optional<std::string> {
        // Only a runtime that counts the fitted figure has an edge; --reserve-gib has no spread.
        if (!answer.card_held || !answer.runtime_bytes) return std::nullopt;
        return llamacpp_held_edge(*answer.card_held, spare);
    },
    .check_record = [](const Record& r, const Model& m,
                       AllocationCheck& out) { llama_family_check_record(r, m, out, /*whole_start=*/true); },
    .summarise = llama_family_summarise,
    .logged_figures = llama_family_logged_figures,
    .log_reader = llamacpp_log_reader,
    .record_block = llamacpp_record_block,
    .log_formats =
        "llama_kv_cache, llama_kv_cache_unified, llama_kv_cache_iswa, llama_memory_recurrent, KV self "
        "size, and a start's model, compute and output buffers",
};

}  // namespace kvcat
