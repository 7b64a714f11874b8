// KV-cache accounting, exactly, layer type by layer type.
//
// Full-attention layers (MHA, GQA, MQA) cache K and V: kv_heads x head_dim x 2
// elements per token per layer. An MLA layer caches one latent of kv_lora_rank +
// qk_rope_head_dim elements, plus (DeepSeek-V3.2) an indexer key in its own dtype. A
// sliding-window or chunked layer stops growing at its window or chunk; when every
// caching layer does, nothing grows. A fixed-state layer (Gated DeltaNet, Mamba-1,
// Mamba-2, a short convolution, lightning attention) keeps a state per sequence that
// does not grow with context; each kind's shape is one case of a switch over StateKind.
// Every figure is a Rational; a product that does not fit in 64 bits throws
// OverflowError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "load/records.h"
#include "support/rational.h"
#include "vocab/design.h"

namespace kvcat {

/// The product a kv_bytes_basis states: layers x (kv_heads x head_dim | latent_dim) x kv_factor x bytes.
/// nullopt when a factor is missing.
std::optional<Rational> basis_product(const KvBasis& basis);
/// "16 x 4 x 256 x 2 x 2" for the same factors.
std::string basis_expression(const KvBasis& basis);

/// The layers that grow a KV cache without bound, as the model record describes them.
struct KvLayerCount {
    std::int64_t count = 0;
    std::string how;    ///< "16 of 64 layers: every 4th from index 3"
    bool valid = true;  ///< false when the model's num_layers is missing or invalid
};
/// Derives and checks the model's KV-caching layers; an inconsistency is a message in `problem`.
KvLayerCount kv_layer_count(const Model& model, std::string* problem);

/// Which of the model's layers are its KV-caching ones, by index, as kv_layers places them: its
/// indices, or every `interval`-th layer from `first_index` (`interval - 1` when not given, the
/// place kv_layer_count counts from, and llama.cpp's). nullopt when kv_layers places none (a
/// count only) or a place lies outside num_layers.
std::optional<std::vector<bool>> kv_layer_places(const Model& model);

/// What the model says one token costs per growing layer, before the dtype: elements.
struct ModelBasis {
    std::int64_t layers = 0;
    std::optional<std::int64_t> kv_heads;
    std::optional<std::int64_t> head_dim;
    std::optional<std::int64_t> v_head_dim;  ///< V's width when it differs from K's (head_dim)
    std::optional<std::int64_t> latent_dim;
    std::int64_t kv_factor = 2;
    std::vector<KvGroup> groups;                ///< when the growing layers differ in shape
    std::optional<std::int64_t> indexer_bytes;  ///< an indexer's key cache per token per layer, bytes
    std::optional<std::int64_t> window;         ///< set when no layer grows: `layers` are bounded layers, capped here
    std::string layers_how;
};
/// nullopt when the model record lacks the figures.
std::optional<ModelBasis> model_basis(const Model& model);

/// Bytes per token per layer of an indexer's key cache: keys in their dtype plus the scales.
std::int64_t indexer_bytes_per_token_layer(const IndexerShape& indexer);

/// Bytes each token adds across the growing layers (for an all-bounded model, until the
/// window): growing elements x bytes_per_element, plus the indexer's bytes per layer.
Rational growing_bytes_per_token(const ModelBasis& basis, const Rational& bytes_per_element);

/// Elements per token per growing layer: kv_heads x head_dim x kv_factor, or the latent.
/// For a model with kv_groups, the shape of its uniform (sliding) layers.
Rational elements_per_layer_token(const ModelBasis& basis);

/// Elements per token of one sliding or chunked layer: the bounded layers' own shape where the
/// model's sliding_window states one (kv_heads, head_dim, v_head_dim), else the growing layers'.
Rational bounded_elements_per_layer_token(const Model& model, const ModelBasis& basis);

/// Elements per token across every growing layer: layers x the per-layer figure, or the sum
/// over kv_groups when the layers differ.
Rational growing_elements_per_token(const ModelBasis& basis);

/// Bytes of the whole cache at `context` tokens for one sequence: growing layers x context,
/// plus sliding or chunked layers x min(context, window); for a model with no growing layer,
/// bytes_per_token (the bounded layers') x min(context, window).
Rational kv_bytes_at_context(const Model& model, const Rational& bytes_per_token, std::int64_t context,
                             const Rational& bytes_per_element);

/// The fixed per-sequence state of the linear-attention layers, bytes (0 when none).
/// With `cards` > 1, one card's share under tensor parallelism: the heads and channels split
/// over the cards, a Mamba-2 layer's groups repeated until the cards divide them, as vLLM does.
Rational fixed_state_bytes(const Model& model, std::int64_t cards = 1);
/// The same for one row: the dtypes its engine kept the state in when the row states them
/// (state_dtype for the whole state, conv_state_dtype for the conv state apart), else the
/// model record's.
Rational fixed_state_bytes(const Model& model, const KvRow& row, std::int64_t cards = 1);

/// The elements of one sequence's fixed state, across every fixed-state layer, before a dtype:
/// the conv state apart from the recurrent (SSM, delta-rule, lightning) state, as engines
/// allocate them in two tensors. With `cards` > 1, one card's share, split as vLLM splits it.
struct StateElements {
    std::int64_t layers = 0;
    Rational conv;       ///< (conv_kernel - 1) x conv channels, summed over the layers
    Rational recurrent;  ///< the recurrent state's elements, summed over the layers
};
/// Zero elements when the model has no fixed-state layers.
StateElements fixed_state_elements(const Model& model, std::int64_t cards = 1);

/// The per-layer view: every layer of a model, in groups of alike layers, with what it keeps.
/// Each figure of a model (growing bytes, bounded bytes, fixed state) is a sum over these
/// rows; layer_rows() derives them from the record's fields, and the sums below agree with
/// growing_bytes_per_token(), kv_bytes_at_context() and fixed_state_bytes().
enum class LayerRole {
    full,     ///< grows without bound: K and V (or an MLA latent) for every token
    sliding,  ///< keeps the last `window` tokens
    chunked,  ///< keeps at most one chunk of `window` tokens
    shared,   ///< reads another layer's cache and keeps none
    state,    ///< a fixed state per sequence of kind `state` (linear attention, SSM, convolution)
    none,     ///< keeps nothing (an MLP-only block, attention replaced or removed)
};
std::string_view name_of(LayerRole role);

struct LayerRow {
    LayerRole role = LayerRole::full;
    std::int64_t layers = 0;         ///< how many layers of the model are this row
    std::int64_t kv_heads = 0;       ///< KV heads; 1 for an MLA latent
    std::int64_t k_width = 0;        ///< elements per K head (an MLA layer: the whole latent)
    std::int64_t v_width = 0;        ///< elements per V head; 0 when nothing but K (or the latent) is kept
    std::int64_t window = 0;         ///< sliding or chunked: the tokens kept at most
    std::optional<StateKind> state;  ///< role state: the kind of fixed state
    std::int64_t indexer_bytes = 0;  ///< bytes per token per layer of an indexer's key cache, in its own dtype
    bool beside_attention = false;   ///< role state: a mixer inside attention layers, not layers of its own
    /// Elements one token adds to one layer of this row (0 for shared, state and none).
    std::int64_t elements_per_token() const;
};

/// The model's layers as rows: growing layers (one row per kv_group, or one), bounded layers,
/// shared, fixed-state and stateless layers. Throws OverflowError for sums past 64 bits.
std::vector<LayerRow> layer_rows(const Model& model);

/// Bytes every token adds across the rows that grow without bound, at bytes_per_element.
Rational rows_growing_bytes_per_token(const std::vector<LayerRow>& rows, const Rational& bytes_per_element);
/// Bytes the bounded rows hold at `context` tokens for one sequence: each at most its window.
Rational rows_bounded_bytes(const std::vector<LayerRow>& rows, std::int64_t context, const Rational& bytes_per_element);
/// The whole cache at `context`: growing x context plus bounded.
Rational rows_bytes_at_context(const std::vector<LayerRow>& rows, std::int64_t context,
                               const Rational& bytes_per_element);

/// What-if baselines that records argue with: every layer caching as GQA at the model's KV
/// heads, and as full MHA at its query heads, bytes per token at `bytes_per_element`.
std::optional<Rational> all_layers_gqa_bytes(const Model& model, const Rational& bytes_per_element);
std::optional<Rational> all_layers_mha_bytes(const Model& model, const Rational& bytes_per_element);

}  // namespace kvcat
