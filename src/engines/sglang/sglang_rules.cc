// SGLang's answers to every question kvcat asks an engine (engines/engine_rules.h).
#include <fmt/format.h>

#include "engines/checkpoint_layers.h"
#include "engines/engine_rules.h"
#include "engines/sglang/sglang_allocation.h"
#include "engines/sglang/sglang_log.h"
#include "engines/sglang/sglang_record_check.h"

namespace kvcat {

namespace {

/// Its token pool is sized from the memory alone; the context and the slots are not settings.
void sglang_ask(EngineSettings& /*settings*/, const FitTerms& /*terms*/, std::int64_t /*context*/,
                std::int64_t /*slots*/) {}

/// With --mem-fraction-static, that share of the card less the weights, the reserve and, over
/// several cards, NCCL's buffers. SGLang's profile_max_num_token
/// (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at
/// 226149ac457bd1a1b5d450f55c01f72f604320d6) gives the pool the free memory after loading less the
/// card x (1 - mem_fraction_static), the card's total being CUDA's (runtime_total); the free memory
/// is that total less the weights and what else the process holds: the CUDA context, for which kvcat
/// holds back kTorchContextBytes, and over several cards NCCL's buffers, for which it holds back the
/// fitted kTensorParallelNonTorchBytes beside it (--reserve-gib, given, stands for both). Without a
/// share, the card less the weights and the reserve.
EngineBudget sglang_budget(const EngineSettings& settings, const FitTerms& terms) {
    if (!settings.mem_fraction_static) return card_less_weights_and_reserve(settings, terms);
    RuntimeTotal total = runtime_total(terms);
    BudgetTerm reserve{"CUDA context and NCCL", terms.reserve,
                       "--reserve-gib: kvcat's allowance for what the process holds beside the weights"};
    if (!terms.reserve_given) {
        reserve = {"CUDA context", Rational(kTorchContextBytes),
                   fmt::format("fitted, {} MiB: what a PyTorch process holds before it loads anything (vLLM 0.19.0's "
                               "worker prints 0.51 GiB on one H100 at its start)",
                               kTorchContextBytes >> 20)};
    }
    EngineBudget b =
        share_less_weights_and_reserve({"the card x mem_fraction_static", total.bytes * *settings.mem_fraction_static,
                                        fmt::format("{} of {}", settings.mem_fraction_static->to_display(), total.how)},
                                       std::move(reserve), terms);
    if (!terms.reserve_given) {
        hold_back_tensor_parallel_non_torch(b, settings.gpus,
                                            "vLLM's starts over several H100s; SGLang's one start over four H100s "
                                            "holds 2.06 GiB a card beside its weights");
    }
    return b;
}

/// The slots fit when their tokens do.
EngineVerdict sglang_judge(const EngineAnswer& a, const FitTerms& /*terms*/, std::int64_t context, std::int64_t slots) {
    EngineVerdict v;
    v.fits = !a.refusal && a.tokens && *a.tokens >= context * slots;
    if (!v.fits) v.why = a.refusal ? *a.refusal : fmt::format("its pool holds {} tokens", a.tokens.value_or(0));
    return v;
}

}  // namespace

extern const EngineRules sglang_rules;
const EngineRules sglang_rules{
    .engine = Engine::sglang,
    .name = "sglang",
    .catalog_name = "SGLang",
    .log_family = Engine::sglang,
    .sizing = EngineSizing::from_memory,
    .without_memory = EngineWithoutMemory::holds_nothing,
    .ctx_size_sizes = true,
    .one_card_only = false,
    .plan_kv_dtypes = "bf16,fp8",
    .verdict_rule = "its token pool in the card less the weights and the reserve, against context x slots",
    .allocate = sglang_allocation,
    .log_lines = [](const EngineAnswer& a, const Model& /*m*/) { return sglang_log_lines(a); },
    .loaded_weights = [](const Model& m, std::string_view format,
                         const EngineSettings& s) { return checkpoint_layers(m, format, s.gpus, false, "SGLang"); },
    .card_defaults = no_card_defaults,
    .budget = sglang_budget,
    .ask = sglang_ask,
    .judge = sglang_judge,
    .held_edge = no_held_edge,
    .check_record = sglang_check_record,
    .summarise = sglang_summarise,
    .logged_figures = sglang_logged_figures,
    .log_reader = sglang_log_reader,
    .record_block = sglang_record_block,
    .log_formats = "KV Cache is allocated, Mamba Cache is allocated, max_total_num_tokens",
};

}  // namespace kvcat
