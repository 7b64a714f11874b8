// ik_llama.cpp's answers to every question kvcat asks an engine (engines/engine_rules.h). Its
// lines are read as llama.cpp's, with its own MLA layout; its cache is its own.
#include "engines/engine_rules.h"
#include "engines/ik_llama/ik_llama_allocation.h"
#include "engines/llamacpp/llamacpp_log.h"
#include "engines/llamacpp/llamacpp_record_check.h"

namespace kvcat {

extern const EngineRules ik_llama_rules;
const EngineRules ik_llama_rules{
    .engine = Engine::ik_llama,
    .name = "ik_llama.cpp",
    .catalog_name = "ik_llama.cpp",
    .log_family = Engine::llamacpp,
    .sizing = EngineSizing::at_start,
    .without_memory = EngineWithoutMemory::sized_by_context,
    .ctx_size_sizes = true,
    .one_card_only = true,
    .plan_kv_dtypes = "f16,q8_0,q4_0",
    .verdict_rule = "its whole allocation at -c context x slots and -np slots, beside the weights and the reserve",
    .allocate = ik_llama_allocation,
    .log_lines = [](const EngineAnswer& a, const Model& /*m*/) { return ik_llama_log_lines(a); },
    .loaded_weights = no_loaded_weights,
    .card_defaults = no_card_defaults,
    .budget = card_less_weights_and_reserve,
    .ask = whole_start_ask,
    .judge = whole_start_judge,
    .held_edge = no_held_edge,
    // Its graph was not read, so a start's buffers are not judged against a bound.
    .check_record = [](const Record& r, const Model& m,
                       AllocationCheck& out) { llama_family_check_record(r, m, out, /*whole_start=*/false); },
    .summarise = llama_family_summarise,
    .logged_figures = llama_family_logged_figures,
    .log_reader = nullptr,  // its lines are read as llama.cpp's (log_family)
    .record_block = llamacpp_record_block,
    .log_formats = "",
};

}  // namespace kvcat
