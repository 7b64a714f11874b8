#include "engines/vllm/vllm_budget.h"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>

#include "engines/checkpoint_layers.h"
#include "engines/torch_allocator.h"
#include "engines/vllm/vllm_allocation.h"

namespace kvcat {

namespace {

/// The most batched tokens kvcat works the sampler's peak out for: 2^31 - 1.
constexpr std::int64_t kVllmMostBatchedTokens = 2147483647;

/// The requests the profiling run samples: min(max_num_seqs, max_num_batched_tokens)
/// (gpu_model_runner.py, _dummy_run); max_num_seqs unset (no card) is vLLM's smaller default.
std::int64_t sampler_requests(const EngineSettings& settings) {
    return std::min(settings.max_num_seqs.value_or(kVllmSmallCardMaxNumSeqs), settings.max_num_batched_tokens);
}

/// The largest batch vLLM captures a CUDA graph for: min(2 x max_num_seqs, 512,
/// max_num_batched_tokens) (vllm/config/vllm.py, _set_cudagraph_sizes), the sequences capped
/// before they are doubled so that no count overflows.
std::int64_t largest_capture(const EngineSettings& settings) {
    std::int64_t seqs = settings.max_num_seqs.value_or(kVllmSmallCardMaxNumSeqs);
    return std::min(std::min(seqs, std::int64_t{256}) * 2, settings.max_num_batched_tokens);
}

/// What the sampler holds beside the logits in the model's dtype, in words.
std::string sampler_words(const EngineSettings& settings) {
    switch (vllm_sampler(settings)) {
        case VllmSampler::sorting:
            return fmt::format(
                "{} bytes an entry while PyTorch sorts them for top-k and top-p (the float32 copy, the sorted values "
                "and their int64 indices, and the sort's own buffers{})",
                vllm_sampler_entry_bytes(settings),
                vllm_sampler_entry_bytes(settings) == kVllmFullSortSamplerBytes
                    ? ": fewer than 128 rows are sorted all at once, then by row"
                    : "");
        case VllmSampler::in_place:
            return "12 bytes an entry in float32 (PyTorch's sampler: the copy, its softmax, the exponential draw)";
        case VllmSampler::flashinfer:
            return "12 bytes an entry in float32 (FlashInfer's sampler: the copy, the masked logits, their softmax)";
    }
    return "";
}

/// The rows PyTorch sorts by cub's segmented sort from; fewer (but more than one) are sorted all
/// at once and then by row (SortStable.cu, launch_stable_sort_kernel).
constexpr std::int64_t kSegmentedSortRows = 128;

/// The float32 scalars vLLM's Attention layer makes on the card: _k_scale, _v_scale, _q_scale and
/// _prob_scale, and q_range, k_range and v_range (vllm/attention/layer.py at v0.10.0 and v0.11.2,
/// model_executor/layers/attention/attention.py at v0.17.0 to v0.20.1, set_default_quant_scales).
constexpr std::int64_t kVllmAttentionScalars = 7;

}  // namespace

VllmSampler vllm_sampler(const EngineSettings& settings) {
    bool flashinfer =
        settings.flashinfer_sampler.value_or(!vllm_version_before(settings.version, kVllmFlashInferSamplerDefault));
    if (flashinfer) return VllmSampler::flashinfer;
    if (vllm_version_before(settings.version, kVllmInPlaceSampler)) return VllmSampler::sorting;
    return sampler_requests(settings) < kVllmInPlaceSamplerRows ? VllmSampler::sorting : VllmSampler::in_place;
}

std::int64_t vllm_sampler_entry_bytes(const EngineSettings& settings) {
    if (vllm_sampler(settings) != VllmSampler::sorting) return kVllmSamplerBytes;
    std::int64_t rows = sampler_requests(settings);
    return rows > 1 && rows < kSegmentedSortRows ? kVllmFullSortSamplerBytes : kVllmSortingSamplerBytes;
}

std::int64_t vllm_cuda_graph_sizes(const EngineSettings& settings, bool full) {
    std::int64_t largest = largest_capture(settings);
    // The full graphs: uniform decode batches of one token a request.
    if (full) largest = std::min(largest, settings.max_num_seqs.value_or(kVllmSmallCardMaxNumSeqs));
    if (largest < 1) return 0;
    std::int64_t sizes = largest >= 4 ? 3 : largest >= 2 ? 2 : 1;                   // 1, 2, 4
    if (largest >= 8) sizes += (std::min(largest, std::int64_t{255}) - 8) / 8 + 1;  // 8, 16, ..., under 256
    if (largest >= 256) sizes += (largest - 256) / 16 + 1;                          // 256, 272, ...
    return sizes;
}

std::optional<Rational> vllm_cuda_graph_estimate(const EngineSettings& settings) {
    if (settings.enforce_eager || vllm_version_before(settings.version, kVllmGraphEstimate)) return std::nullopt;
    std::int64_t piecewise = vllm_cuda_graph_sizes(settings, false);
    std::int64_t full = vllm_cuda_graph_sizes(settings, true);
    if (piecewise < 1) return std::nullopt;
    std::int64_t further = (piecewise - 1) + std::max<std::int64_t>(full - 1, 0);
    return Rational(kVllmGraphFirstBytes) + Rational(further) * Rational(kVllmGraphEachBytes);
}

std::optional<Rational> vllm_moe_workspace(const EngineSettings& settings, const FitTerms& terms) {
    if (terms.experts < 1 || terms.experts_used < 1 || terms.expert_ffn_size < 1 || terms.hidden_size < 1) {
        return std::nullopt;
    }
    if (vllm_version_before(settings.version, kVllmPersistentMoeWorkspace)) return std::nullopt;
    auto float_dtype = checkpoint_float_dtype(terms.weight_format);
    if (!float_dtype) return std::nullopt;
    std::int64_t tokens = settings.max_num_batched_tokens;
    if (tokens < 1 || tokens > kVllmMostBatchedTokens) return std::nullopt;
    std::int64_t cards = settings.expert_parallel ? 1 : std::max<std::int64_t>(1, settings.gpus);
    std::int64_t n = 2 * terms.expert_ffn_size / cards;
    std::int64_t k = terms.hidden_size;
    Rational rows = Rational(tokens) * Rational(terms.experts_used) * Rational(*torch_dtype_bytes(*float_dtype));
    Rational ws13 = rows * Rational(std::max(n / 2, k));
    Rational ws2 = rows * Rational(std::max(n, k));
    // get_simultaneous rounds each view up to 256 bytes (vllm/v1/worker/workspace.py).
    auto aligned = [](const Rational& bytes) { return (bytes.floor() + 255) / 256 * 256; };
    std::int64_t together = aligned(ws13) + aligned(ws2);
    return Rational(torch_allocated_bytes(std::array{together}));
}

std::optional<Rational> vllm_sampler_peak(const EngineSettings& settings, const FitTerms& terms) {
    if (terms.vocab_size < 1 || terms.hidden_size < 1) return std::nullopt;
    std::int64_t tokens = settings.max_num_batched_tokens;
    if (tokens > kVllmMostBatchedTokens) {
        throw EngineError(
            fmt::format("max_num_batched_tokens of {}: kvcat works vLLM's profiling run out for at "
                        "most {} tokens",
                        tokens, kVllmMostBatchedTokens));
    }
    std::int64_t requests = sampler_requests(settings);
    std::int64_t dtype = torch_dtype_bytes(settings.model_dtype).value_or(2);
    std::int64_t padded = (terms.vocab_size + 63) / 64 * 64;
    // The tokens are bounded above; the products are taken in Rational, which refuses a product
    // beyond 64 bits (a model record's widths are not bounded).
    Rational hidden = Rational(tokens + 2 * requests) * Rational(terms.hidden_size) * Rational(dtype);
    Rational logits = Rational(requests) * Rational(padded) * Rational(dtype);
    Rational float32 = Rational(requests) * Rational(terms.vocab_size) * Rational(vllm_sampler_entry_bytes(settings));
    return hidden + logits + float32;
}

std::optional<Rational> vllm_rotary_table(const EngineSettings& settings, const FitTerms& terms) {
    static constexpr std::array<std::string_view, 4> kWholeHeadRotary = {"llama", "qwen2", "qwen3", "qwen3moe"};
    if (std::find(kWholeHeadRotary.begin(), kWholeHeadRotary.end(), terms.arch) == kWholeHeadRotary.end())
        return std::nullopt;
    if (terms.native_context < 1 || terms.head_dim < 1) return std::nullopt;
    std::int64_t dtype = torch_dtype_bytes(settings.model_dtype).value_or(2);
    return Rational(terms.native_context) * Rational(terms.head_dim) * Rational(dtype);
}

std::optional<EngineWeights> vllm_loaded_weights(const Model& model, std::string_view format,
                                                 const EngineSettings& settings) {
    auto weights = checkpoint_layers(model, format, settings.gpus, settings.expert_parallel, "vLLM");
    if (!weights) return weights;
    EngineSettings in_format = settings;  // the rotary table is in the checkpoint's dtype
    if (auto dtype = checkpoint_float_dtype(format)) in_format.model_dtype = *dtype;
    auto rotary = vllm_rotary_table(in_format, model_terms(model));
    std::int64_t rotary_bytes = rotary ? rotary->floor() : 0;
    auto sizes = checkpoint_allocations(model, format, settings.gpus, settings.expert_parallel, rotary_bytes,
                                        kVllmAttentionScalars);
    if (!sizes) return weights;
    Rational made = 0;
    for (std::int64_t size : *sizes) made += Rational(size);
    Rational rounding = Rational(torch_allocated_bytes(*sizes)) - made;
    weights->bytes += rounding;
    weights->how += fmt::format(
        ", and {} bytes more that PyTorch's caching allocator counts with them, made one after another: a tensor "
        "that would leave 1 MiB or less of its segment takes it whole",
        group_thousands(rounding.floor()));
    return weights;
}

Rational vllm_default_gpu_memory_utilization(std::string_view version) {
    return vllm_version_before(version, kVllmGraphEstimate) ? Rational(9, 10) : Rational(92, 100);
}

EngineBudget vllm_budget(const EngineSettings& settings, const FitTerms& terms) {
    bool given = settings.gpu_memory_utilization.has_value();
    Rational utilization =
        given ? *settings.gpu_memory_utilization : vllm_default_gpu_memory_utilization(settings.version);
    bool graphs = !vllm_version_before(settings.version, kVllmGraphEstimate);
    // Given, the reserve is all vLLM takes beside the weights; else kvcat derives the sampler's
    // peak where it can and holds the allowance back for the rest.
    std::optional<Rational> sampler = terms.reserve_given ? std::nullopt : vllm_sampler_peak(settings, terms);
    std::string reserve_name =
        graphs ? "activations, non-torch and CUDA graphs" : "activation peak and non-torch memory";
    BudgetTerm reserve{reserve_name, terms.reserve,
                       "--reserve-gib: kvcat's allowance for what vLLM measures at start, which kvcat does not model"};
    if (sampler) {
        reserve.name = "non-torch and the rest";
        reserve.bytes = Rational(kVllmAllowanceBytes);
        reserve.how = fmt::format(
            "fitted, {} MiB: what vLLM measures at start beside the sampler, which kvcat does not model: the memory "
            "outside torch on one card (0.07 GiB printed by 0.10.2, 0.24 to 0.27 by 0.19.0 on an H100), a forward pass "
            "that peaks above the sampler",
            kVllmAllowanceBytes >> 20);
    }
    RuntimeTotal total = runtime_total(terms);
    EngineBudget b = share_less_weights_and_reserve(
        {"the card x gpu_memory_utilization", total.bytes * utilization,
         fmt::format("{}{} of {}", utilization.to_display(), given ? "" : " (vLLM's default)", total.how)},
        std::move(reserve), terms);
    if (sampler) {
        hold_back_tensor_parallel_non_torch(b, settings.gpus,
                                            "vLLM 0.19.0 on H100s: 2.07 GiB a rank over two, 0.25 on one; 0.10.0 "
                                            "over eight H100s alike; 0.27.1 over four RTX PRO 6000: 0.37 GiB less; "
                                            "0.10.1.1 over two A100s: next to none");
    }
    if (sampler) {
        b.available = b.available - *sampler;
        b.terms.insert(b.terms.begin() + 2,
                       BudgetTerm{"the sampler's peak", Rational(0) - *sampler,
                                  fmt::format("derived: the profiling run samples {} requests (min of max_num_seqs and "
                                              "max_num_batched_tokens {}) over the {}-token vocabulary: the logits in "
                                              "the model's dtype, {} and the hidden states",
                                              sampler_requests(settings), settings.max_num_batched_tokens,
                                              terms.vocab_size, sampler_words(settings))});
    }
    if (auto workspace = sampler ? vllm_moe_workspace(settings, terms) : std::nullopt) {
        b.available = b.available - *workspace;
        b.terms.insert(
            b.terms.begin() + 3,
            BudgetTerm{"the experts' workspace", Rational(0) - *workspace,
                       fmt::format("derived: the workspace vLLM's fused experts keep from the profiling run's "
                                   "forward pass, still held while the sampler runs: {} tokens x {} experts "
                                   "x the larger of the hidden width and the experts' width, twice, in the "
                                   "model's dtype",
                                   settings.max_num_batched_tokens, terms.experts_used)});
    }
    if (auto estimate = sampler ? vllm_cuda_graph_estimate(settings) : std::nullopt) {
        b.available = b.available - *estimate;
        b.terms.insert(
            b.terms.end() - 1,
            BudgetTerm{"the CUDA graphs' estimate", Rational(0) - *estimate,
                       fmt::format("fitted: vLLM measures the first capture and one more of each mode "
                                   "and takes the rest alike; kvcat takes {} MiB for the first and {} MiB for "
                                   "each of the other {} piecewise and {} full graphs (sizes up to {})",
                                   kVllmGraphFirstBytes >> 20, kVllmGraphEachBytes >> 20,
                                   vllm_cuda_graph_sizes(settings, false) - 1,
                                   std::max<std::int64_t>(vllm_cuda_graph_sizes(settings, true) - 1, 0),
                                   largest_capture(settings))});
    }
    if (auto rotary = vllm_rotary_table(settings, terms)) {
        b.available = b.available - *rotary;
        b.terms.insert(b.terms.begin() + 2,
                       BudgetTerm{"the rotary table", Rational(0) - *rotary,
                                  fmt::format("derived: the cos/sin table vLLM loads beside the weights on each card, "
                                              "{} positions x {} x {} bytes in the model's dtype",
                                              terms.native_context, terms.head_dim,
                                              torch_dtype_bytes(settings.model_dtype).value_or(2))});
    }
    return b;
}

}  // namespace kvcat
