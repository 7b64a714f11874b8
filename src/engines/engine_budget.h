// The memory an engine that sizes its pool from memory (vLLM, SGLang) keeps for its cache and
// state on one card, worked out as that engine works it out: from the card's total, the weights
// and what it holds back. Each engine's rules name their own (EngineRules::budget); fit, plan and
// the report's planner take this one figure, so they agree with each other and with the engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine_memory.h"
#include "model/physics.h"

namespace kvcat {

struct EngineBudget {
    Rational available;             ///< the memory for the cache and state, bytes (may be zero or less)
    std::vector<BudgetTerm> terms;  ///< the share it starts from, then each term taken off it
};

/// `share` (the card, or the engine's share of it) less the weights and `reserve` (what the engine
/// holds back beside them: --reserve-gib, or the engine's own allowance), each a term; `reserve.bytes`
/// is the amount held back, positive.
EngineBudget share_less_weights_and_reserve(BudgetTerm share, BudgetTerm reserve, const FitTerms& terms);

/// The total an engine built on PyTorch (vLLM, SGLang) takes its share of: what CUDA or HIP gives
/// the process (torch.cuda.mem_get_info), which the card's record gives as memory_runtime_total.
/// Without one, the driver's total less kRuntimeTotalGapBytes.
struct RuntimeTotal {
    Rational bytes;
    std::string how;  ///< "CUDA's total, 79.19 GiB", or how it was taken without one
};
RuntimeTotal runtime_total(const FitTerms& terms);

/// What kvcat takes off nvidia-smi's total for a card whose record gives no runtime total: the
/// largest difference between the two on the cards whose records give both, in whole MiB (the A100
/// 80GB's, 869.4 MiB; the nine records give 350 to 869.4 MiB). A test holds it to the records.
inline constexpr std::int64_t kRuntimeTotalGapBytes = std::int64_t{870} << 20;

/// What a process built on PyTorch holds on a card before it loads anything: the CUDA context
/// and the libraries' workspaces. vLLM 0.19.0's worker prints it at its start ("worker init memory
/// snapshot: ... cuda_memory=0.51GiB, torch_memory=0.0GiB") on one H100 in three records; SGLang's
/// free memory after loading counts it. 512 MiB.
inline constexpr std::int64_t kTorchContextBytes = std::int64_t{512} << 20;

/// What the memory outside torch grows by on each card when the model is split over several: NCCL's
/// communicators and buffers, and an engine's own all-reduce buffers. Fitted, not derived, and the
/// same for every engine that splits a model with NCCL (vLLM, SGLang). The five vLLM 0.19.0 starts
/// on H100s in the records print their non-torch memory: 0.24 and 0.25 GiB on the three on one
/// card, 2.07 GiB a rank on the two over two (Llama 3.1 8B and gpt-oss-20b). The 1 GiB allowance
/// holds the first; this holds the 1.82 GiB more, as 1,864 MiB. One vLLM 0.27.1 start over four RTX
/// PRO 6000 prints 1.70 GiB (its consumed memory less its weights as loaded), 0.37 GiB under what
/// the two give together; two vLLM 0.10.0 starts over eight H100s leave 1.8 GiB a rank beside their
/// sampler and the allowance, alike, and SGLang's one start over four H100s holds 2.06 GiB a card
/// beside its weights. The 0.10.1.1 starts over two A100s took next to none of it, and kvcat's pool
/// for them is 2.3 GiB under (docs/engines.md).
inline constexpr std::int64_t kTensorParallelNonTorchBytes = std::int64_t{1864} << 20;

/// Takes kTensorParallelNonTorchBytes off `budget` as a term of its own after the weights when the
/// model is split over `gpus` cards (none on one), with `evidence` ending its explanation.
void hold_back_tensor_parallel_non_torch(EngineBudget& budget, std::int64_t gpus, std::string_view evidence);

/// The card less the weights and the reserve: what kvcat assumes of an engine that does not say
/// how it keeps memory back.
EngineBudget card_less_weights_and_reserve(const EngineSettings& settings, const FitTerms& terms);

}  // namespace kvcat
