#include "model/kv_math.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "vocab/dtype.h"
#include "vocab/state_dtype.h"

namespace kvcat {

std::optional<Rational> basis_product(const KvBasis& b) {
    if (!b.layers || !b.kv_factor || !b.bytes_per_element) return std::nullopt;
    // K and V of different widths: kv_factor 2 caches head_dim + v_head_dim per head, not 2 x head_dim.
    auto widths = [&](std::int64_t head_dim, std::optional<std::int64_t> v_head_dim) {
        if (v_head_dim && *b.kv_factor == 2) return Rational(head_dim) + Rational(*v_head_dim);
        return Rational(head_dim) * Rational(*b.kv_factor);
    };
    if (!b.groups.empty()) {
        Rational elements(0);
        for (const auto& g : b.groups) {
            elements += Rational(g.layers) * Rational(g.kv_heads) * widths(g.head_dim, g.v_head_dim);
        }
        return elements * *b.bytes_per_element;
    }
    Rational per_layer;
    if (b.latent_dim) {
        per_layer = Rational(*b.latent_dim) * Rational(*b.kv_factor);
    } else if (b.kv_heads && b.head_dim) {
        per_layer = Rational(*b.kv_heads) * widths(*b.head_dim, b.v_head_dim);
    } else {
        return std::nullopt;
    }
    Rational out = Rational(*b.layers) * per_layer * *b.bytes_per_element;
    if (b.indexer_bytes) out += Rational(*b.layers) * Rational(*b.indexer_bytes);
    return out;
}

std::string basis_expression(const KvBasis& b) {
    if (!b.groups.empty()) {
        std::string sum;
        for (const auto& g : b.groups) {
            if (!sum.empty()) sum += " + ";
            sum += g.v_head_dim
                       ? fmt::format("{} x {} x ({} + {}) / 2", g.layers, g.kv_heads, g.head_dim, *g.v_head_dim)
                       : fmt::format("{} x {} x {}", g.layers, g.kv_heads, g.head_dim);
        }
        return fmt::format("({}) x {} x {}", sum, b.kv_factor ? std::to_string(*b.kv_factor) : "?",
                           b.bytes_per_element ? b.bytes_per_element->to_string() : "?");
    }
    std::string out = b.layers ? std::to_string(*b.layers) : "?";
    if (b.latent_dim) {
        out += fmt::format(" x {}", *b.latent_dim);
    } else if (b.v_head_dim) {
        out += fmt::format(" x {} x ({} + {}) / 2", b.kv_heads ? std::to_string(*b.kv_heads) : "?",
                           b.head_dim ? std::to_string(*b.head_dim) : "?", *b.v_head_dim);
    } else {
        out += fmt::format(" x {} x {}", b.kv_heads ? std::to_string(*b.kv_heads) : "?",
                           b.head_dim ? std::to_string(*b.head_dim) : "?");
    }
    out += fmt::format(" x {} x {}", b.kv_factor ? std::to_string(*b.kv_factor) : "?",
                       b.bytes_per_element ? b.bytes_per_element->to_string() : "?");
    if (b.indexer_bytes) out += fmt::format(" + {} x {}", b.layers ? std::to_string(*b.layers) : "?", *b.indexer_bytes);
    return out;
}

namespace {

std::string ordinal(std::int64_t n) {
    const char* suffix = "th";
    if (n % 100 < 11 || n % 100 > 13) {
        if (n % 10 == 1) suffix = "st";
        if (n % 10 == 2) suffix = "nd";
        if (n % 10 == 3) suffix = "rd";
    }
    return fmt::format("{}{}", n, suffix);
}

/// The first of every `interval`-th KV-caching layer: the record's first_index, else interval - 1,
/// as llama.cpp's full_attention_interval places them.
std::int64_t first_kv_layer(const KvLayers& kl) {
    return kl.first_index.value_or(*kl.interval - 1);
}

}  // namespace

std::optional<std::vector<bool>> kv_layer_places(const Model& m) {
    if (!m.num_layers || *m.num_layers <= 0) return std::nullopt;
    std::int64_t total = *m.num_layers;
    std::vector<bool> out(static_cast<std::size_t>(total), false);
    const KvLayers& kl = m.kv_layers;
    if (!kl.indices.empty()) {
        for (auto i : kl.indices) {
            if (i < 0 || i >= total) return std::nullopt;
            out[static_cast<std::size_t>(i)] = true;
        }
        return out;
    }
    if (!kl.interval || *kl.interval <= 0) return std::nullopt;
    std::int64_t first = first_kv_layer(kl);
    if (first < 0 || first >= total) return std::nullopt;
    for (std::int64_t i = first; i < total; i += *kl.interval) out[static_cast<std::size_t>(i)] = true;
    return out;
}

KvLayerCount kv_layer_count(const Model& m, std::string* problem) {
    KvLayerCount out;
    if (!m.num_layers || *m.num_layers <= 0) {
        // Without a valid layer count nothing can be derived or checked; the schema says why.
        out.count = m.kv_layers.indices.empty() ? m.kv_layers.count.value_or(0)
                                                : static_cast<std::int64_t>(m.kv_layers.indices.size());
        out.how = fmt::format("{} layers, as stated", out.count);
        out.valid = false;
        return out;
    }
    const KvLayers& kl = m.kv_layers;
    std::int64_t total = m.num_layers.value_or(0);
    auto fail = [&](std::string why) {
        if (problem && problem->empty()) *problem = std::move(why);
    };
    if (!kl.indices.empty()) {
        std::set<std::int64_t> unique(kl.indices.begin(), kl.indices.end());
        if (unique.size() != kl.indices.size()) fail("kv_layers.indices names a layer twice");
        if (total > 0 && *unique.rbegin() >= total) {
            fail(fmt::format("kv_layers.indices names layer {}, but the model has {} layers (0 to {})",
                             *unique.rbegin(), total, total - 1));
        }
        out.count = static_cast<std::int64_t>(kl.indices.size());
        out.how = fmt::format("{} listed layers", out.count);
        if (kl.count && *kl.count != out.count) {
            fail(fmt::format("kv_layers.count is {}, but kv_layers.indices lists {} layers", *kl.count, out.count));
        }
    } else if (kl.interval) {
        std::int64_t interval = *kl.interval;
        std::int64_t first = first_kv_layer(kl);
        std::int64_t n = 0;
        if (total > 0 && interval > 0 && first >= 0 && first < total) {
            n = (total - 1 - first) / interval + 1;
        }
        out.count = n;
        out.how = fmt::format("{} of {} layers: every {} from index {}", n, total, ordinal(interval), first);
        if (kl.count && *kl.count != n) {
            fail(fmt::format("kv_layers.count is {}, but every {} of {} layers from index {} is {}", *kl.count,
                             ordinal(interval), total, first, n));
        }
    } else {
        out.count = kl.count.value_or(0);
        out.how = fmt::format("{} layers", out.count);
    }
    if (total > 0 && out.count > total) {
        fail(fmt::format("{} KV-caching layers, but the model has {} layers", out.count, total));
    }
    // Every layer is accounted for exactly once: growing, sliding, linear, sharing another's
    // cache or keeping nothing. Mixers beside attention live in attention layers, counted there.
    std::int64_t sliding = m.sliding ? m.sliding->layers : 0;
    bool beside = m.linear && m.linear->beside_attention;
    std::int64_t linear = m.linear && !beside ? m.linear->layers : 0;
    std::int64_t shared = kl.shared.value_or(0);
    std::int64_t stateless = kl.stateless.value_or(0);
    std::int64_t sum =
        checked_add(checked_add(checked_add(out.count, sliding), checked_add(linear, shared)), stateless);
    if (total > 0 && sum != total) {
        std::string parts = fmt::format("{} KV-caching + {} sliding + {} linear layers", out.count, sliding, linear);
        if (shared > 0) parts += fmt::format(" + {} sharing another's cache", shared);
        if (stateless > 0) parts += fmt::format(" + {} keeping no cache", stateless);
        fail(fmt::format("{} = {}, but num_layers is {}", parts, sum, total));
    }
    if (beside && m.linear->layers > checked_add(out.count, sliding)) {
        fail(fmt::format("linear_attention.layers {} run beside attention, but only {} layers have attention",
                         m.linear->layers, checked_add(out.count, sliding)));
    }
    if (total > 0 && out.count == 0 && sliding == 0 && !m.linear) {
        fail("no layer keeps a KV cache or a state: kv_layers.count is 0 and there are no sliding or linear layers");
    }
    if (!m.kv_groups.empty()) {
        std::int64_t grouped = 0;
        for (const auto& g : m.kv_groups) grouped = checked_add(grouped, g.layers);
        if (grouped != out.count) {
            fail(fmt::format("kv_groups cover {} layers, but {} layers grow a KV cache", grouped, out.count));
        }
    }
    return out;
}

std::optional<ModelBasis> model_basis(const Model& m) {
    ModelBasis b;
    std::string ignored;
    KvLayerCount layers = kv_layer_count(m, &ignored);
    if (!layers.valid) return std::nullopt;
    // A record's variant is parsed when it is read; a model built in memory may carry only the text.
    // An unknown variant is the schema's finding; its layers are taken as caching K and V.
    auto variant = m.variant ? m.variant : parse_attention_variant(m.attention_variant);
    b.layers = layers.count;
    b.layers_how = layers.how;
    if (layers.count == 0 && m.sliding) {
        // Every caching layer is bounded: the basis is what each token adds until the window is full.
        b.layers = m.sliding->layers;
        b.window = m.sliding->window;
        b.layers_how = fmt::format("{} {} layers, all bounded at {} tokens", m.sliding->layers,
                                   name_of(m.sliding->kind), m.sliding->window);
    }
    if (m.indexer) b.indexer_bytes = indexer_bytes_per_token_layer(*m.indexer);
    switch (variant.value_or(AttentionVariant::gqa)) {
        case AttentionVariant::mla:
            if (!m.mla) return std::nullopt;
            b.latent_dim = m.mla->latent_dim();
            b.kv_factor = 1;
            return b;
        case AttentionVariant::mha:
        case AttentionVariant::gqa:
        case AttentionVariant::mqa:
        case AttentionVariant::hybrid:
        case AttentionVariant::sliding:
            break;
    }
    b.kv_factor = 2;
    if (!m.kv_groups.empty()) {
        b.groups = m.kv_groups;
        b.kv_heads = m.kv_heads;
        b.head_dim = m.head_dim;
        return b;
    }
    if (!m.kv_heads || !m.head_dim) return std::nullopt;
    b.kv_heads = m.kv_heads;
    b.head_dim = m.head_dim;
    b.v_head_dim = m.v_head_dim;
    if (b.window && m.sliding) {
        // Every caching layer is bounded: the basis is the bounded layers' own shape.
        if (m.sliding->kv_heads) b.kv_heads = m.sliding->kv_heads;
        if (m.sliding->head_dim) b.head_dim = m.sliding->head_dim;
        if (m.sliding->v_head_dim) b.v_head_dim = m.sliding->v_head_dim;
    }
    return b;
}

std::int64_t indexer_bytes_per_token_layer(const IndexerShape& ix) {
    // head_dim keys in their dtype, plus one scale per quant_block of them (rounded up).
    auto dtype = find_cache_dtype(ix.cache_dtype);
    Rational keys = Rational(ix.head_dim) * (dtype ? dtype->bytes_per_element() : Rational(1));
    std::int64_t blocks = ix.quant_block > 0 ? (ix.head_dim + ix.quant_block - 1) / ix.quant_block : 0;
    Rational total = keys + Rational(blocks) * Rational(ix.scale_bytes);
    return total.ceil();
}

Rational growing_bytes_per_token(const ModelBasis& b, const Rational& bytes_per_element) {
    Rational out = growing_elements_per_token(b) * bytes_per_element;
    if (b.indexer_bytes) out += Rational(b.layers) * Rational(*b.indexer_bytes);
    return out;
}

Rational growing_elements_per_token(const ModelBasis& b) {
    if (!b.groups.empty()) {
        Rational sum(0);
        for (const auto& g : b.groups) {
            Rational widths = g.v_head_dim ? Rational(g.head_dim) + Rational(*g.v_head_dim)
                                           : Rational(g.head_dim) * Rational(b.kv_factor);
            sum += Rational(g.layers) * Rational(g.kv_heads) * widths;
        }
        return sum;
    }
    return Rational(b.layers) * elements_per_layer_token(b);
}

Rational elements_per_layer_token(const ModelBasis& b) {
    if (b.latent_dim) return Rational(*b.latent_dim) * Rational(b.kv_factor);
    if (b.v_head_dim && b.kv_factor == 2) {
        return Rational(b.kv_heads.value_or(0)) * (Rational(b.head_dim.value_or(0)) + Rational(*b.v_head_dim));
    }
    return Rational(b.kv_heads.value_or(0)) * Rational(b.head_dim.value_or(0)) * Rational(b.kv_factor);
}

Rational bounded_elements_per_layer_token(const Model& m, const ModelBasis& b) {
    if (!m.sliding || b.latent_dim || (!m.sliding->kv_heads && !m.sliding->head_dim && !m.sliding->v_head_dim)) {
        return elements_per_layer_token(b);
    }
    std::int64_t heads = m.sliding->kv_heads.value_or(b.kv_heads.value_or(0));
    std::int64_t k = m.sliding->head_dim.value_or(b.head_dim.value_or(0));
    // A bounded layer's V is as wide as its K unless it says otherwise (or, stating no K
    // width of its own, the model's V width applies).
    std::int64_t v = m.sliding->v_head_dim ? *m.sliding->v_head_dim
                     : m.sliding->head_dim ? k
                                           : b.v_head_dim.value_or(k);
    return Rational(heads) * (Rational(k) + Rational(v));
}

Rational kv_bytes_at_context(const Model& m, const Rational& bytes_per_token, std::int64_t context,
                             const Rational& bytes_per_element) {
    auto basis = model_basis(m);
    if (basis && basis->window) {
        // No layer grows: every caching layer holds at most the window.
        return bytes_per_token * Rational(std::min(context, *basis->window));
    }
    Rational total = bytes_per_token * Rational(context);
    if (m.sliding && basis) {
        // A sliding layer keeps the last `window` tokens; a chunked one the tokens of the current
        // chunk, at most `window` (vLLM sizes both at the window plus what one step schedules).
        Rational per_layer_token = bounded_elements_per_layer_token(m, *basis) * bytes_per_element;
        if (basis->indexer_bytes) per_layer_token += Rational(*basis->indexer_bytes);
        total += Rational(m.sliding->layers) * per_layer_token * Rational(std::min(context, m.sliding->window));
    }
    return total;
}

namespace {

/// The state of `m`'s fixed-state layers with the recurrent state in `state_dtype` and the
/// conv state in `conv_dtype`.
Rational state_bytes_as(const Model& m, std::int64_t cards, const std::string& state_dtype,
                        const std::string& conv_dtype);

}  // namespace

Rational fixed_state_bytes(const Model& m, std::int64_t cards) {
    if (!m.linear) return Rational(0);
    const LinearShape& l = *m.linear;
    // The conv state may be kept in another dtype than the recurrent state (vLLM keeps it in
    // the model's dtype, llama.cpp in f32); without conv_state_dtype both are state_dtype.
    return state_bytes_as(m, cards, l.state_dtype, l.conv_state_dtype.empty() ? l.state_dtype : l.conv_state_dtype);
}

Rational fixed_state_bytes(const Model& m, const KvRow& row, std::int64_t cards) {
    if (!m.linear || (!row.state_dtype && !row.conv_state_dtype)) return fixed_state_bytes(m, cards);
    const LinearShape& l = *m.linear;
    // The row's state_dtype is the whole state's unless it states the conv state's apart.
    std::string state = row.state_dtype.value_or(l.state_dtype);
    std::string conv = row.conv_state_dtype         ? *row.conv_state_dtype
                       : row.state_dtype            ? *row.state_dtype
                       : l.conv_state_dtype.empty() ? l.state_dtype
                                                    : l.conv_state_dtype;
    return state_bytes_as(m, cards, state, conv);
}

namespace {

Rational state_bytes_as(const Model& m, std::int64_t cards, const std::string& state_dtype,
                        const std::string& conv_dtype) {
    StateElements e = fixed_state_elements(m, cards);
    auto bytes = [](const std::string& dtype) { return Rational(state_dtype_bytes(dtype)); };
    return e.conv * bytes(conv_dtype) + e.recurrent * bytes(state_dtype);
}

}  // namespace

StateElements fixed_state_elements(const Model& m, std::int64_t cards) {
    StateElements out;
    if (!m.linear) return out;
    if (cards < 1) cards = 1;
    const LinearShape& l = *m.linear;
    Rational conv_channels;
    Rational recurrent;
    switch (l.kind) {
        case StateKind::gated_deltanet:
        case StateKind::kda:
        case StateKind::mamba2: {
            // Kimi Delta Attention has the Gated DeltaNet shapes with as many key heads as value
            // heads, all of one width (vLLM kda_state_shape: three convs of heads x head_dim
            // channels for q, k and v, and a heads x head_dim x head_dim recurrent state).
            // vLLM (mamba_utils.py): a Gated DeltaNet layer convolves its keys, queries and
            // values, 2 x key heads x key width + value heads x value width channels, and keeps
            // value heads x value width x key width of recurrent state. Mamba-2 has the same
            // shapes with B and C as keys and queries (n_groups heads of d_state) and x as values
            // (n_heads of d_head): conv over d_inner + 2 x n_groups x d_state channels, state
            // n_heads x d_head x d_state.
            // Over several cards vLLM splits the heads, and repeats Mamba-2's groups until they
            // split too: groups that the cards do not divide become `cards` groups.
            std::int64_t key_heads = l.key_heads;
            if (l.kind == StateKind::mamba2 && cards > 1 && key_heads % cards != 0) key_heads = cards;
            conv_channels = Rational(l.key_head_dim) * Rational(key_heads) * Rational(2) +
                            Rational(l.value_head_dim) * Rational(l.value_heads);
            recurrent = Rational(l.value_heads) * Rational(l.value_head_dim) * Rational(l.key_head_dim);
            break;
        }
        case StateKind::mamba1:
            // Mamba-1 (vLLM mamba1_state_shape): conv over d_inner channels, SSM d_inner x d_state.
            conv_channels = Rational(l.inner_dim);
            recurrent = Rational(l.inner_dim) * Rational(l.state_dim);
            break;
        case StateKind::short_conv:
            // A gated short convolution (vLLM short_conv_state_shape): conv state only.
            conv_channels = Rational(l.inner_dim);
            recurrent = Rational(0);
            break;
        case StateKind::lightning:
            // Lightning attention (vLLM linear_attention_state_shape): one head_dim x head_dim
            // state per head, no convolution.
            conv_channels = Rational(0);
            recurrent = Rational(l.value_heads) * Rational(l.value_head_dim) * Rational(l.value_head_dim);
            break;
    }
    Rational conv = l.conv_kernel > 0 ? Rational(l.conv_kernel - 1) * conv_channels : Rational(0);
    out.layers = l.layers;
    out.conv = Rational(l.layers) * conv / Rational(cards);
    out.recurrent = Rational(l.layers) * recurrent / Rational(cards);
    return out;
}

std::optional<Rational> all_layers_gqa_bytes(const Model& m, const Rational& bpe) {
    if (!m.num_layers || !m.kv_heads || !m.head_dim) return std::nullopt;
    return Rational(*m.num_layers) * Rational(*m.kv_heads) * Rational(*m.head_dim) * Rational(2) * bpe;
}

std::optional<Rational> all_layers_mha_bytes(const Model& m, const Rational& bpe) {
    if (!m.num_layers || !m.attention_heads || !m.head_dim) return std::nullopt;
    return Rational(*m.num_layers) * Rational(*m.attention_heads) * Rational(*m.head_dim) * Rational(2) * bpe;
}

}  // namespace kvcat

namespace kvcat {

std::string_view name_of(LayerRole role) {
    switch (role) {
        case LayerRole::full:
            return "full";
        case LayerRole::sliding:
            return "sliding";
        case LayerRole::chunked:
            return "chunked";
        case LayerRole::shared:
            return "shared";
        case LayerRole::state:
            return "state";
        case LayerRole::none:
            return "none";
    }
    return "";
}

std::int64_t LayerRow::elements_per_token() const {
    switch (role) {
        case LayerRole::full:
        case LayerRole::sliding:
        case LayerRole::chunked:
            return checked_mul(kv_heads, checked_add(k_width, v_width));
        case LayerRole::shared:
        case LayerRole::state:
        case LayerRole::none:
            return 0;
    }
    return 0;
}

std::vector<LayerRow> layer_rows(const Model& m) {
    std::vector<LayerRow> rows;
    std::string ignored;
    KvLayerCount growing = kv_layer_count(m, &ignored);
    std::int64_t indexer = m.indexer ? indexer_bytes_per_token_layer(*m.indexer) : 0;
    auto variant = m.variant ? m.variant : parse_attention_variant(m.attention_variant);
    bool mla = variant == AttentionVariant::mla && m.mla;
    // One attention layer's shape: an MLA latent, or heads of K and V widths.
    auto shaped = [&](LayerRole role, std::int64_t layers, std::int64_t heads, std::int64_t k,
                      std::optional<std::int64_t> v) {
        LayerRow row;
        row.role = role;
        row.layers = layers;
        row.indexer_bytes = indexer;
        if (mla) {
            row.kv_heads = 1;
            row.k_width = m.mla->latent_dim();
        } else {
            row.kv_heads = heads;
            row.k_width = k;
            row.v_width = v.value_or(k);
        }
        return row;
    };
    if (growing.count > 0) {
        if (!m.kv_groups.empty() && !mla) {
            for (const auto& g : m.kv_groups) {
                rows.push_back(shaped(LayerRole::full, g.layers, g.kv_heads, g.head_dim, g.v_head_dim));
            }
        } else {
            rows.push_back(
                shaped(LayerRole::full, growing.count, m.kv_heads.value_or(0), m.head_dim.value_or(0), m.v_head_dim));
        }
    }
    if (m.sliding) {
        LayerRole role = m.sliding->kind == WindowKind::chunked ? LayerRole::chunked : LayerRole::sliding;
        std::int64_t heads = m.sliding->kv_heads.value_or(m.kv_heads.value_or(0));
        std::int64_t k = m.sliding->head_dim.value_or(m.head_dim.value_or(0));
        std::optional<std::int64_t> v = m.sliding->v_head_dim ? m.sliding->v_head_dim
                                        : m.sliding->head_dim ? std::optional<std::int64_t>(k)
                                                              : m.v_head_dim;
        LayerRow row = shaped(role, m.sliding->layers, heads, k, v);
        row.window = m.sliding->window;
        rows.push_back(row);
    }
    if (m.kv_layers.shared.value_or(0) > 0) {
        LayerRow row;
        row.role = LayerRole::shared;
        row.layers = *m.kv_layers.shared;
        rows.push_back(row);
    }
    if (m.linear) {
        LayerRow row;
        row.role = LayerRole::state;
        row.layers = m.linear->layers;
        row.state = m.linear->kind;
        row.beside_attention = m.linear->beside_attention;
        rows.push_back(row);
    }
    if (m.kv_layers.stateless.value_or(0) > 0) {
        LayerRow row;
        row.role = LayerRole::none;
        row.layers = *m.kv_layers.stateless;
        rows.push_back(row);
    }
    return rows;
}

namespace {

/// One token's bytes in every layer of a row: its elements in the cache dtype plus the indexer.
Rational row_bytes_per_token(const LayerRow& row, const Rational& bytes_per_element) {
    return Rational(row.layers) *
           (Rational(row.elements_per_token()) * bytes_per_element + Rational(row.indexer_bytes));
}

}  // namespace

Rational rows_growing_bytes_per_token(const std::vector<LayerRow>& rows, const Rational& bytes_per_element) {
    Rational out(0);
    for (const auto& row : rows) {
        if (row.role == LayerRole::full) out += row_bytes_per_token(row, bytes_per_element);
    }
    return out;
}

Rational rows_bounded_bytes(const std::vector<LayerRow>& rows, std::int64_t context,
                            const Rational& bytes_per_element) {
    Rational out(0);
    for (const auto& row : rows) {
        if (row.role == LayerRole::sliding || row.role == LayerRole::chunked) {
            out += row_bytes_per_token(row, bytes_per_element) * Rational(std::min(context, row.window));
        }
    }
    return out;
}

Rational rows_bytes_at_context(const std::vector<LayerRow>& rows, std::int64_t context,
                               const Rational& bytes_per_element) {
    return rows_growing_bytes_per_token(rows, bytes_per_element) * Rational(context) +
           rows_bounded_bytes(rows, context, bytes_per_element);
}

}  // namespace kvcat
