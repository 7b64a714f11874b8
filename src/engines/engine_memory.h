// What an inference engine allocates for a model's KV cache and state, beside the textbook figure.
//
// kv_math answers what a design needs: so many bytes per token of the growing layers, a window
// for the sliding ones, a fixed state per sequence. An engine allocates something else: llama.cpp
// pads its cells and keeps one stream per sequence, vLLM rounds every layer group to whole blocks
// and may switch its hybrid manager off, SGLang keeps a padding slot and a pool of tokens. Each
// engine's allocator rules live in their own file pair (llamacpp_allocation, vllm_allocation,
// sglang_allocation) over the same per-layer model; this file holds the settings every engine is
// asked with, the answer every engine gives, and the one function that dispatches between them.
// Every figure is exact (Rational); each rule names the engine file and commit it was read from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine_list.h"
#include "engines/llamacpp/llamacpp_card_held.h"
#include "engines/llamacpp/llamacpp_compute.h"
#include "engines/llamacpp/llamacpp_host_compute.h"
#include "load/records.h"
#include "support/rational.h"
#include "vocab/dtype.h"

namespace kvcat {

/// The engines kvcat models (engines/engine_list.h), each with its own folder of rules. Every
/// question about one goes through its EngineRules (engines/engine_rules.h), which it fills whole.
#define KVCAT_ENGINE_ENUMERATOR(id) id,
enum class Engine { KVCAT_ENGINES(KVCAT_ENGINE_ENUMERATOR) };
#undef KVCAT_ENGINE_ENUMERATOR

/// A switch the engine decides itself unless told.
enum class EngineSwitch { automatic, on, off };
std::optional<EngineSwitch> parse_engine_switch(std::string_view text);

/// The settings an engine is started with, each with the engine's own default. A setting
/// another engine does not read is ignored by it.
struct EngineSettings {
    std::string version;                 ///< "b6713", "0.10.1.1"; "" = the newest rule kvcat holds
    std::optional<std::string> v_dtype;  ///< llama.cpp -ctv when it differs from -ctk
    std::int64_t gpus = 1;               ///< tensor parallel over this many cards
    // llama.cpp (llama-server / llama-cli)
    std::int64_t context = 4096;  ///< -c, tokens in all
    std::int64_t parallel = 1;    ///< -np, sequences held at once
    bool kv_unified = false;      ///< --kv-unified: one stream for every sequence
    std::int64_t ubatch = 512;    ///< -ub
    bool swa_full = false;        ///< --swa-full: the sliding layers get the full-size cache
    // ik_llama.cpp (--engine ik_llama.cpp; engines/ik_llama/ik_llama_allocation.h): its own cache layout
    int ik_mla = 3;          ///< -mla 0..3; 3 is its default since 2025-11
    bool flash_attn = true;  ///< -fa (llama.cpp, ik_llama.cpp); llama.cpp's auto turns it on where it is needed
                             ///< (a quantized V), ik_llama.cpp's default has been on since 2025-10
    /// llama.cpp --fit-target, MiB: the memory its --fit (on by default) keeps free on the card.
    /// common_fit_params moves layers off the card, or shortens an unset -c, when the weights,
    /// cache, state and compute buffers leave less (common/fit.cpp at 80fb11ac; default 1024 in
    /// common/common.h). 0 stands for -fit off, and for a build from before --fit.
    std::int64_t fit_target_mib = 1024;
    /// What the card holds beside llama.cpp's own buffers (engines/llamacpp/llamacpp_card_held.h),
    /// set from the fit's card (EngineRules::card_defaults) or --reserve-gib; unset, `reserve`
    /// stands for it and for the compute buffer together.
    std::optional<CardHeld> card_held;
    /// The fit's reserve (--reserve-gib, 1 GiB unless given), bytes: what llama.cpp's runtime is taken
    /// to need where kvcat cannot work it out (a model without a tensors mapping, a card without a
    /// figure for what it holds).
    Rational reserve = Rational(std::int64_t{1} << 30);
    // vLLM V1
    std::optional<std::int64_t> block_size;      ///< --block-size; 16 when not set
    std::int64_t max_num_batched_tokens = 2048;  ///< --max-num-batched-tokens
    /// Set when --max-num-batched-tokens was given; otherwise the caller that knows the card fills
    /// in vLLM's default for it (vllm_card_defaults: 8192 on a large card).
    bool max_num_batched_tokens_given = false;
    std::optional<std::int64_t> max_model_len;  ///< --max-model-len; the model's native context when not set
    /// --max-num-seqs; when not set, vLLM's default for the card (vllm_default_max_num_seqs),
    /// which the caller that knows the card fills in, with max_num_seqs_default set.
    std::optional<std::int64_t> max_num_seqs;
    bool max_num_seqs_default = false;
    std::string mamba_ssm_cache_dtype = "auto";             ///< --mamba-ssm-cache-dtype
    std::string mamba_cache_dtype = "auto";                 ///< --mamba-cache-dtype (the conv state)
    std::string model_dtype = "bfloat16";                   ///< --dtype
    EngineSwitch hybrid_manager = EngineSwitch::automatic;  ///< on unless vLLM switches it off
    EngineSwitch prefix_caching = EngineSwitch::automatic;  ///< --enable-prefix-caching; on unless told (V1's default)
    bool expert_parallel = false;  ///< --enable-expert-parallel: the experts divided among the cards, each whole
    bool enforce_eager = false;    ///< --enforce-eager: vLLM captures no CUDA graphs
    /// --flashinfer-sampler: whether vLLM samples with FlashInfer (VLLM_USE_FLASHINFER_SAMPLER; before
    /// 0.11.1 it does whenever FlashInfer is installed, as in vLLM's image). Unset, vLLM's default for
    /// the version as kvcat takes it (vllm_sampler): PyTorch's before 0.20.2, FlashInfer's from it.
    std::optional<bool> flashinfer_sampler;
    /// --gpu-memory-utilization: the share of the card's total memory vLLM takes for the weights,
    /// its activations and the pool; when unset, its default for the version (vllm_budget.h).
    std::optional<Rational> gpu_memory_utilization;
    // SGLang
    std::int64_t page_size = 1;  ///< --page-size
    /// --mem-fraction-static: the card's share for the weights and the pool; when unset, the
    /// card less the weights and the reserve.
    std::optional<Rational> mem_fraction_static;
    /// --swa-full-tokens-ratio: the SWA pool's tokens over the full pool's, for a model with
    /// sliding layers (SGLang's default 0.8). Kept as the decimal given; SGLang reads it as a
    /// Python float, and the two steps it takes in floating point are taken as it takes them.
    Rational swa_full_tokens_ratio = Rational(4, 5);
    /// --max-mamba-cache-size: the requests' states SGLang's Mamba pool keeps for a hybrid; when
    /// unset, what --mamba-full-memory-ratio gives of the memory.
    std::optional<std::int64_t> mamba_slots;
    /// --mamba-full-memory-ratio: the Mamba pool's memory over the KV pool's (SGLang's default 0.9).
    Rational mamba_full_memory_ratio = Rational(9, 10);
    /// The memory the engine has for its cache and state (vLLM prints it as "Available KV cache
    /// memory"); when unset, an answer holds the bytes of one allocation and no token count.
    std::optional<Rational> available_bytes;
};

/// The parts an engine allocates.
enum class EnginePartKind {
    base_cache,       ///< K and V of the layers that keep every token
    swa_cache,        ///< K and V of the sliding or chunked layers
    mla_latent,       ///< the latent of an MLA layer (K only, or K and V as the engine keeps it)
    indexer,          ///< a sparse-attention indexer's key cache
    recurrent_state,  ///< the fixed state: R (conv) and S (recurrent), per sequence
};
std::string_view name_of(EnginePartKind k);

struct EnginePart {
    EnginePartKind kind = EnginePartKind::base_cache;
    std::int64_t layers = 0;
    std::int64_t cells = 0;    ///< cells (llama.cpp), tokens or slots held, per stream
    std::int64_t streams = 1;  ///< llama.cpp: one per sequence unless unified
    Rational k_bytes;          ///< K, or R for the recurrent state
    Rational v_bytes;          ///< V, or S for the recurrent state
    std::string k_type;        ///< the element type printed beside K (R)
    std::string v_type;
    std::string how;  ///< the arithmetic, in words and numbers
    Rational bytes() const { return k_bytes + v_bytes; }
};

/// One term of the memory an engine sizes its pool from (engines/engine_budget.h): the card's
/// share it starts from (positive), or what it takes off that (negative), with its source.
struct BudgetTerm {
    std::string name;  ///< "the card x gpu_memory_utilization", "weights", ...
    Rational bytes;
    std::string how;
};

/// One place the engine's figure leaves the textbook's, named.
struct EngineDifference {
    std::string name;    ///< "padding", "block rounding", "SWA reserve", "state dtype", "hybrid manager off", ...
    std::string detail;  ///< what the engine does, with the figures and the source it was read from
};

/// How llama.cpp words its recurrent-state line, which changed twice (engines/llamacpp/llamacpp_allocation.h).
enum class LlamaStateLine {
    seqs,      ///< "(1 cells, 32 layers, 1 seqs), R (f32): ..., S (f32): ..." (b8999 and before)
    rs_seq,    ///< "... 1 seqs  0 rs_seq), R ..., S ..." (seen from b9421)
    rs_seq_p,  ///< "... 1 seqs  0 rs_seq), R ..., S ..., P (f32): ..." (release v0.4.0, the pinned one)
};

struct EngineAnswer {
    Engine engine = Engine::llamacpp;
    bool ik_flash_attn = false;  ///< ik_llama.cpp: with flash attention (its line differs without)
    LlamaStateLine llama_state_line = LlamaStateLine::rs_seq_p;  ///< llama.cpp: its recurrent line's wording
    std::string rule;  ///< which rule set answered: "llama.cpp at 3514e9f6 (newest held)"
    std::vector<EnginePart> parts;
    Rational kv_bytes;     ///< every cache part, one allocation
    Rational state_bytes;  ///< the recurrent state, one allocation
    /// Tokens the allocation holds (llama.cpp: cells x streams; vLLM and SGLang: the pool in the
    /// available memory, as the engine prints it); nullopt without an available memory for vLLM/SGLang.
    std::optional<std::int64_t> tokens;
    std::optional<double> max_concurrency;  ///< vLLM: requests of max_model_len the pool holds, as it computes it
    /// The engine would not start with these settings: its own words (vLLM's ValueError text).
    std::optional<std::string> refusal;
    /// vLLM, when it refuses for want of memory: the maximum model length it estimates would fit.
    std::optional<std::int64_t> estimated_max_context;
    std::optional<std::int64_t> blocks;  ///< vLLM: blocks in the pool
    /// SGLang, for a model with sliding layers: the tokens of the SWA pool (`tokens` is the full
    /// pool's, SGLang's max_total_num_tokens).
    std::optional<std::int64_t> swa_tokens;
    /// SGLang, for a hybrid with fixed-state layers: the Mamba pool's requests (max_mamba_cache_size).
    std::optional<std::int64_t> mamba_slots;
    std::int64_t block_size = 0;  ///< vLLM: tokens per block, after any raise
    std::int64_t context = 0;     ///< the context the allocation is for (per sequence)
    std::int64_t sequences = 1;
    /// vLLM: whether the hybrid KV-cache manager is on, and why (always set for vLLM).
    std::optional<bool> hybrid_manager;
    std::string hybrid_manager_why;
    /// vLLM, for a model with bounded layers: the bytes per token (and tokens, with a memory)
    /// with the hybrid manager the other way.
    std::optional<Rational> other_manager_bytes_per_token;
    std::optional<std::int64_t> other_manager_tokens;
    std::optional<double> other_manager_concurrency;
    bool per_card = false;              ///< vLLM and SGLang with several cards: every figure is one card's
    Rational engine_bytes_per_token;    ///< cache bytes one token costs in this engine, every layer it allocates for
    Rational textbook_bytes_per_token;  ///< kv_math's growing bytes per token at the same dtype
    Rational textbook_kv_bytes;         ///< kv_math's cache for the same sequences at the same context
    Rational textbook_state_bytes;      ///< kv_math's state for the same sequences (model record's dtypes)
    std::vector<EngineDifference> differences;
    /// llama.cpp: its compute buffer for these settings (engines/llamacpp/llamacpp_compute.h), a lower
    /// bound; nullopt for another engine or a model record without a tensors mapping.
    std::optional<LlamaComputeBuffer> compute_buffer;
    /// llama.cpp: its compute buffer on the host, the graph's inputs (engines/llamacpp/
    /// llamacpp_host_compute.h), exact; in the host's memory, not the card's.
    std::optional<LlamaHostCompute> host_compute;
    /// llama.cpp: the memory its --fit keeps free on the card beside the start (--fit-target),
    /// bytes; zero for another engine, and with -fit off.
    Rational fit_target_bytes;
    /// llama.cpp: what its start takes on the card beside the weights, cache and state: the compute
    /// buffer and what the card holds (card_held), or the reserve where kvcat cannot work those
    /// out (engines/llamacpp/llamacpp_fit.h, llamacpp_runtime); nullopt for another engine.
    std::optional<Rational> runtime_bytes;
    std::string runtime_how;
    /// llama.cpp: the card's held memory counted in runtime_bytes; nullopt when the reserve stood in.
    std::optional<CardHeld> card_held;
    /// llama.cpp without -c: how its --fit chose the context (engines/llamacpp/llamacpp_fit.h).
    std::string context_how;
    /// vLLM and SGLang: the memory its pool was sized from, term by term, when kvcat worked it out
    /// from the card (fit and plan); empty when the memory was given (--available-kv-gib).
    std::vector<BudgetTerm> budget;
};

/// The weights an engine loads on each card, where it holds a rule for the model and format.
struct EngineWeights {
    Rational bytes;   ///< on each card
    std::string how;  ///< what they are, in one clause
};

/// Thrown when the engine cannot hold the model as asked (a setting it refuses, a shape its
/// allocator does not take) or the model record lacks a figure.
class EngineError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

/// The engine itself would refuse these settings and not start: the message is its own words.
/// fit reports it as the engine's verdict (exit 1), not as a mistake in the command.
class EngineRefusal : public EngineError {
  public:
    using EngineError::EngineError;
};

// The per-layer model every engine reads: the layers as kv_math describes them, grouped by role.

/// One set of layers of the same role and shape, elements per token per layer (per card for vLLM).
struct LayerSet {
    enum class Role { full, sliding, chunked, mla, state } role = Role::full;
    std::int64_t layers = 0;
    std::int64_t kv_heads = 0;  ///< full and sliding: K and V heads (MLA: 1)
    std::int64_t head_dim = 0;  ///< full and sliding: width of one head; MLA: the latent width
    std::int64_t window = 0;    ///< sliding and chunked
};

/// The model's caching layers, from the model record as kv_math reads it. Throws EngineError
/// when the record lacks a shape.
std::vector<LayerSet> engine_layers(const Model& model);

/// The bytes per element of `dtype` names such as "float32", "bfloat16", "fp8": 4, 2 or 1;
/// nullopt when unknown.
std::optional<std::int64_t> torch_dtype_bytes(std::string_view name);

/// "4352.00" as C's printf("%.2f") shows a value that the engine computed in single precision:
/// (float) bytes / (1024.0f * 1024.0f). llama.cpp prints every MiB this way, and a figure
/// reproduced to the printed decimals must round as it rounds.
std::string llamacpp_mib_text(const Rational& bytes);
/// "8.23" as Python's f"{x:.2f}" shows bytes / 2^30 (SGLang's GB, vLLM's GiB).
std::string python_gib_text(const Rational& bytes);

/// `text` right-aligned in `width` columns, as the engines' printf("%7s") pads their figures.
std::string right_aligned(const std::string& text, int width);

}  // namespace kvcat
