// The memory vLLM V1 sizes its KV cache pool from, as its worker works it out before it
// allocates (vllm/v1/worker/gpu_worker.py, determine_available_memory, from 0.10.0 to 0.20.1):
//
//   available = total x gpu_memory_utilization - (weights + torch peak increase + non-torch increase)
//                                               - the CUDA graphs' estimate (from 0.20.0)
//
// - The total is CUDA's (torch.cuda.mem_get_info at the worker's start), which on NVIDIA cards
//   is a little under the driver's figure kvcat's card records hold.
// - gpu_memory_utilization defaults to 0.9 up to 0.19.1 and 0.92 from 0.20.0 (vllm/config/
//   cache.py; commit 96a85c57, #38284, which also turned on the CUDA graph estimate:
//   VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, vllm/envs.py).
// - The weights are what loading added to torch's allocations ("Model loading took"): the
//   parameters, and buffers such as the one rotary cos/sin cache of max_position_embeddings x
//   rotary_dim in the model's dtype (rotary_embedding.py, register_buffer, shared through
//   get_rope's _ROPE_DICT). kvcat takes the fit's weights.
// - The activation peak, the memory outside torch (NCCL, the CUDA context) and, from 0.20.0, the
//   CUDA graphs are measured by vLLM at start; kvcat does not model them and holds back
//   --reserve-gib for them. docs/engines.md sets that allowance beside real starts.
// Read in the CentML/vllm mirror, whose tags carry upstream's commits: v0.10.0 6d8d0a24,
// v0.11.0 b8b302cd, v0.19.1 b1388b1f, v0.20.0 88d34c64.
#pragma once

#include <string_view>

#include "engines/engine_budget.h"

namespace kvcat {

/// vLLM's --gpu-memory-utilization when it is not given: 0.92 from 0.20.0 and for the newest
/// rules (version ""), 0.9 before.
Rational vllm_default_gpu_memory_utilization(std::string_view version);

/// What the reserve's explanation adds when vLLM's defaults for a card of at least 70 GiB that is
/// no A100 apply (1,024 sequences, 8,192 batched tokens) and --reserve-gib is not given: in the
/// seven such starts kvcat compares, the allowance was too small by 1.6 to 7.7 GiB (docs/engines.md).
inline constexpr std::string_view kVllmLargeDefaultsNote =
    "; with vLLM's defaults for this card (1,024 sequences, 8,192 batched tokens) the seven such starts kvcat "
    "compares in the records (vLLM 0.10.0 to 0.19.0, on H100s and an H200) left this pool 1.6 to 7.7 GiB too "
    "large: give --reserve-gib what your start leaves";

EngineBudget vllm_budget(const EngineSettings& settings, const FitTerms& terms);

}  // namespace kvcat
