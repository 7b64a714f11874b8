// The memory vLLM V1 sizes its KV cache pool from, as its worker works it out before it
// allocates (vllm/v1/worker/gpu_worker.py, determine_available_memory, from 0.10.0 to 0.20.1):
//
//   available = total x gpu_memory_utilization - (weights + torch peak increase + non-torch increase)
//                                               - the CUDA graphs' estimate (from 0.20.0)
//
// - The total is CUDA's (torch.cuda.mem_get_info at the worker's start), which on NVIDIA cards
//   is a little under the driver's; kvcat takes it from the card's record (runtime_total).
// - gpu_memory_utilization defaults to 0.9 up to 0.19.1 and 0.92 from 0.20.0 (vllm/config/
//   cache.py; commit 96a85c57, #38284, which also turned on the CUDA graph estimate:
//   VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, vllm/envs.py).
// - The weights are what loading added to torch's allocations ("Model loading took"): the
//   parameters, and buffers such as the one rotary cos/sin cache of max_position_embeddings x
//   rotary_dim in the model's dtype (rotary_embedding.py, register_buffer, shared through
//   get_rope's _ROPE_DICT). kvcat takes the fit's weights and, where it can size it, the rotary
//   table (vllm_rotary_table).
// - The torch peak increase is the profiling run's (gpu_model_runner.py, profile_run): a forward
//   pass of max_num_batched_tokens tokens split into n = min(max_num_seqs, max_num_batched_tokens)
//   requests, then one sampling step for each request with top-k and top-p on
//   (_dummy_sampler_run). kvcat derives the sampler's peak (vllm_sampler_peak) for the sampler the
//   release runs (vllm_sampler): PyTorch's, which sorts the logits for top-k and top-p before 0.17.0
//   (apply_top_k_top_p, torch.sort) and applies them in place from it (apply_top_k_top_p_triton,
//   vllm/v1/sample/ops/topk_topp_triton.py), or FlashInfer's (flashinfer_sample).
// - The memory outside torch over several cards (NCCL) grows by a figure fitted to real starts
//   (kTensorParallelNonTorchBytes, engines/engine_budget.h), held back beside a derived sampler peak.
// - The memory outside torch on one card (the CUDA context's growth), a forward pass that peaks
//   above the sampler (a mixture of experts with few sequences) and, from 0.20.0, the CUDA graphs
//   are measured by vLLM at start; kvcat does not model them and holds back --reserve-gib for
//   them. Given, --reserve-gib stands for all vLLM takes beside the weights (what a start's log
//   leaves), the sampler included. docs/engines.md sets both beside real starts.
// Read in the CentML/vllm mirror, whose tags carry upstream's commits: v0.10.0 6d8d0a24,
// v0.11.0 b8b302cd, v0.16.0 89a77b10, v0.17.0 b31e9326, v0.19.0 2a69949b, v0.19.1 b1388b1f,
// v0.20.0 88d34c64, v0.20.1 132765e3.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engines/engine_budget.h"

namespace kvcat {

/// vLLM's --gpu-memory-utilization when it is not given: 0.92 from 0.20.0 and for the newest
/// rules (version ""), 0.9 before.
Rational vllm_default_gpu_memory_utilization(std::string_view version);

/// The first release whose profiling run samples with top-k and top-p in place, without a sort.
inline constexpr std::string_view kVllmInPlaceSampler = "0.17.0";

/// The first release that samples with FlashInfer unless told otherwise, on the cards FlashInfer
/// supports (compute capability 7.5 to 12.1: every NVIDIA card in the records): commit b92ef9ec
/// (#40376), first in v0.20.2rc0. From 0.11.1 (e66d87bc, #26859) to it, FlashInfer's sampler is
/// off unless VLLM_USE_FLASHINFER_SAMPLER=1; before 0.11.1 it is on whenever FlashInfer is installed,
/// which vLLM's image does and its pip package does not require (kvcat takes it off there).
inline constexpr std::string_view kVllmFlashInferSamplerDefault = "0.20.2";

/// The fewest requests PyTorch's sampler applies top-k and top-p to in place from 0.17.0
/// (apply_top_k_top_p: HAS_TRITON and logits.shape[0] >= 8, at v0.17.0 to v0.20.2rc0); fewer
/// are sorted (apply_top_k_top_p_pytorch), as every batch was before.
inline constexpr std::int64_t kVllmInPlaceSamplerRows = 8;

/// The sampler vLLM's profiling run samples with.
enum class VllmSampler {
    sorting,     ///< PyTorch's, sorting the logits for top-k and top-p: before 0.17.0, or fewer than 8 requests
    in_place,    ///< PyTorch's from 0.17.0 for 8 requests or more: top-k and top-p in place
    flashinfer,  ///< FlashInfer's top_k_top_p_sampling_from_logits
};

/// The sampler for the settings: --flashinfer-sampler where given, else vLLM's default for the
/// version as kvcat takes it (kVllmFlashInferSamplerDefault); PyTorch's sorts or works in place by
/// the version and the requests (kVllmInPlaceSampler, kVllmInPlaceSamplerRows).
VllmSampler vllm_sampler(const EngineSettings& settings);

/// The bytes an entry of the n x vocab logits the sampler holds at its peak beside their copy in
/// the model's dtype: 12 in place and with FlashInfer; while PyTorch sorts them, 36 in one row or
/// in 128 rows or more and 48 in 2 to 127 (vllm_sampler_peak says why).
inline constexpr std::int64_t kVllmSamplerBytes = 12;
inline constexpr std::int64_t kVllmSortingSamplerBytes = 36;
inline constexpr std::int64_t kVllmFullSortSamplerBytes = 48;

/// The bytes an entry for the settings' sampler and requests.
std::int64_t vllm_sampler_entry_bytes(const EngineSettings& settings);

/// The bytes vLLM's profiling run holds on each card at its sampler's peak, with n =
/// min(max_num_seqs, max_num_batched_tokens) requests, N = max_num_batched_tokens tokens and the
/// model's dtype of d bytes:
///
///   (N + 2n) x hidden x d       the hidden states of the forward pass (profile_run keeps them),
///                               the n last ones and their rand_like copy (_dummy_sampler_run)
///   n x vocab64 x d             the logits as the output layer gives them, the vocabulary padded
///                               to 64 (vocab_parallel_embedding.py, pad_vocab_size); gathered whole
///                               on every rank (LogitsProcessor._gather_logits)
///   n x vocab x b               what the sampler holds beside them, b bytes an entry:
///
/// - PyTorch's sampler from 0.17.0, b = 12 at random_sample: the float32 copy (Sampler.forward), its
///   softmax and the exponential draw q (topk_topp_sampler.py). Top-k and top-p rewrite the
///   float32 logits in place, beside a cached float32 buffer of min(n, the card's SMs) rows that
///   kvcat does not count (no card record gives its SMs: 0.06 to 0.10 GiB on an H100's 132).
/// - FlashInfer's, b = 12: the float32 copy, the masked logits top_k_mask_logits returns and their
///   softmax (flashinfer/sampling.py, top_k_top_p_sampling_from_logits with "top_k_first", the
///   same from v0.2.8rc1 to v0.6.8.post1, the versions vLLM 0.10.0 and 0.20.2rc0 pin); from
///   FlashInfer 0.6.3 (vLLM 0.16.0's pin) also a cached 1 MiB of row states kvcat does not count.
/// - PyTorch's sampler while apply_top_k_top_p sorts (logits.sort; before 0.17.0, read at v0.10.0,
///   v0.11.2 and v0.16.0, and from it for fewer than 8 requests): the float32 copy (4), the sorted
///   values (4) and their int64 indices (8), and what the sort takes while it runs, which depends on
///   the rows (aten/src/ATen/native/cuda/SortStable.cu, pytorch/pytorch at 061531e8, for rows over
///   4,096 wide). In 128 rows or more, segmented_sort_pairs: int64 indices to sort beside the keys
///   (8), and cub's DeviceSegmentedRadixSort::SortPairs, which, not told it may overwrite its input,
///   takes a third buffer for the keys (4) and one for the values (8) from the caching allocator
///   (ATen/cuda/cub.cuh's CUB_WRAPPER, pytorch/pytorch at 0d9e42a3;
///   DispatchSegmentedRadixSort::InvokePasses in cub/device/dispatch/dispatch_radix_sort.cuh,
///   NVIDIA/cccl at 002af086): b = 36. In one row, segmented_sort_large_segments: the same 20 (its
///   indices, and DeviceRadixSort::SortPairs's third buffers): b = 36. In 2 to 127 rows,
///   segmented_sort_pairs_by_full_sort: an int2 of index and row for every entry, twice (16), the
///   sorted keys radix_sort_pairs allocates (4) and cub's third buffers for the keys (4) and the
///   int2 values (8): b = 48. What the sort leaves after it (its two masks, the softmax and the
///   scattered logits: 26 bytes an entry at most) is less.
///
/// nullopt when the model record gives no vocabulary or hidden width (no tensors mapping).
std::optional<Rational> vllm_sampler_peak(const EngineSettings& settings, const FitTerms& terms);

/// The rotary cos/sin table vLLM loads beside the weights on each card, which "Model loading took"
/// counts: one buffer of max_position_embeddings x rotary_dim in the model's dtype
/// (rotary_embedding/base.py, RotaryEmbedding.__init__ registers cos_sin_cache, cast to the dtype
/// get_rope takes, the default one while the model is built), shared by every layer through
/// get_rope's _ROPE_DICT (rotary_embedding/__init__.py). kvcat sizes it where the model's file
/// passes max_position_embeddings and rotates the whole head (llama.py, qwen2.py, qwen3.py,
/// qwen3_moe.py, read at v0.19.0: the llama, qwen2, qwen3 and qwen3moe architectures; the
/// record's native context as max_position_embeddings, its head_dim as rotary_dim); nullopt for
/// any other (a partial rotary, YaRN's longer table, Gemma's two tables) or without a tensors
/// mapping. Llama 3.1 8B: 131,072 x 128 x 2 bytes, 32 MiB.
std::optional<Rational> vllm_rotary_table(const EngineSettings& settings, const FitTerms& terms);

/// The weights vLLM loads on each card for a checkpoint in `format` (EngineRules::loaded_weights):
/// its layers (checkpoint_layers), and for a float checkpoint what PyTorch's caching allocator
/// counts beside their bytes as the model's file makes them one after another, the rotary table
/// and the attention layers' float32 scalars among them (checkpoint_allocations,
/// torch_allocated_bytes): a tensor that leaves 1 MiB or less of its segment takes it whole. "Model loading took" is
/// torch's allocated bytes, so it counts them: 57 MiB for Qwen2-7B on one card, 49 MiB a rank for Qwen3-32B over eight,
/// none for Llama 3.1 8B, whose every width is a whole number of 2 MiB segments. An fp8 checkpoint's layers are
/// replaced once loaded (process_weights_after_loading) and get no such term.
std::optional<EngineWeights> vllm_loaded_weights(const Model& model, std::string_view format,
                                                 const EngineSettings& settings);

/// The release that raised the default share to 0.92 and took the CUDA graphs' estimate off the
/// pool by default (commit 96a85c57, #38284: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on).
inline constexpr std::string_view kVllmGraphEstimate = "0.20.0";

/// The CUDA graphs vLLM captures for each mode of its default FULL_AND_PIECEWISE (vllm/config/
/// vllm.py, _set_cudagraph_sizes; vllm/v1/cudagraph_dispatcher.py, initialize_cudagraph_keys, read
/// at v0.20.0): the sizes 1, 2, 4, every 8 under 256 and every 16 from 256, up to min(2 x
/// max_num_seqs, 512, max_num_batched_tokens) for the piecewise graphs, and of those the sizes up
/// to max_num_seqs for the full ones (`full`). 51 and 51 at vLLM's defaults for a large card.
std::int64_t vllm_cuda_graph_sizes(const EngineSettings& settings, bool full);

/// vLLM's estimate of its CUDA graphs' memory (gpu_model_runner.py, profile_cudagraph_memory, the
/// same code at v0.19.0 and v0.20.0): for each mode it captures the two largest sizes and takes the
/// first capture's memory once and the second's for every further size, the larger first capture
/// for both modes. It measures what a capture takes, which kvcat cannot, so the two figures are
/// fitted: the first capture 260 MiB and each further graph 6 MiB, the medians of the study's
/// 0.19.0 starts on one H100 (their DEBUG lines give first captures of 224 to 266 MiB and further
/// graphs of 4 to 10 MiB for the dense models and Qwen3-30B-A3B), which print the estimate
/// though 0.19.0 does not take it off the pool. docs/engines.md sets it beside every printed
/// estimate in the records. From kVllmGraphEstimate; nullopt before it and with --enforce-eager
/// (cudagraph_mode NONE: gpu_worker.py skips the estimate).
inline constexpr std::int64_t kVllmGraphFirstBytes = std::int64_t{260} << 20;
inline constexpr std::int64_t kVllmGraphEachBytes = std::int64_t{6} << 20;
std::optional<Rational> vllm_cuda_graph_estimate(const EngineSettings& settings);

/// The first release whose fused experts keep their workspace between forward passes
/// (vllm/v1/worker/workspace.py's WorkspaceManager, which fused_moe/modular_kernel.py draws from,
/// without chunking from commit 2cdf9222, #34086): read at v0.18.0, v0.19.0, v0.20.1 and
/// v0.20.2rc0, the same each time.
inline constexpr std::string_view kVllmPersistentMoeWorkspace = "0.18.0";

/// The workspace vLLM's fused experts keep on each card from the profiling run's forward pass, still
/// allocated while the sampler runs, so torch's peak counts it beside the sampler's: for a mixture of
/// experts in a float checkpoint (the Triton experts' shapes, fused_moe.py's
/// TritonExperts.workspace_shapes) from kVllmPersistentMoeWorkspace and for the newest rules, with
/// M = max_num_batched_tokens tokens, k = experts_used, K = hidden, N = 2 x the expert's width
/// (divided by the cards without --enable-expert-parallel) and d the model's dtype bytes:
///
///   M x k x max(N / 2, K) x d      workspace13, which the output reuses
///   M x k x max(N, K) x d          workspace2
///
/// each rounded up to 256 bytes and allocated as one tensor (WorkspaceManager.get_simultaneous),
/// which PyTorch's caching allocator rounds as torch_allocated_bytes does. Qwen3-30B-A3B on one card
/// at 8,192 tokens: 512 MiB. nullopt for a dense model, a quantized or unnamed checkpoint (another
/// experts kernel, not read), an earlier release, or a record without the experts' widths.
std::optional<Rational> vllm_moe_workspace(const EngineSettings& settings, const FitTerms& terms);

/// What kvcat holds back beside a derived sampler peak, the weights and NCCL when --reserve-gib is
/// not given: the memory outside torch on one card and a forward pass above the sampler, fitted to
/// the starts in docs/engines.md with the card's runtime total taken.
inline constexpr std::int64_t kVllmAllowanceBytes = std::int64_t{600} << 20;

EngineBudget vllm_budget(const EngineSettings& settings, const FitTerms& terms);

}  // namespace kvcat
