#include "kv_math.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "dtype.h"

namespace kvcat {

std::optional<Rational> basis_product(const KvBasis& b) {
    if (!b.layers || !b.kv_factor || !b.bytes_per_element) return std::nullopt;
    if (!b.groups.empty()) {
        Rational elements(0);
        for (const auto& g : b.groups) elements += Rational(g.layers) * Rational(g.kv_heads) * Rational(g.head_dim);
        return elements * Rational(*b.kv_factor) * *b.bytes_per_element;
    }
    Rational per_layer;
    if (b.latent_dim) {
        per_layer = Rational(*b.latent_dim);
    } else if (b.kv_heads && b.head_dim) {
        per_layer = Rational(*b.kv_heads) * Rational(*b.head_dim);
    } else {
        return std::nullopt;
    }
    return Rational(*b.layers) * per_layer * Rational(*b.kv_factor) * *b.bytes_per_element;
}

std::string basis_expression(const KvBasis& b) {
    if (!b.groups.empty()) {
        std::string sum;
        for (const auto& g : b.groups) {
            if (!sum.empty()) sum += " + ";
            sum += fmt::format("{} x {} x {}", g.layers, g.kv_heads, g.head_dim);
        }
        return fmt::format("({}) x {} x {}", sum, b.kv_factor ? std::to_string(*b.kv_factor) : "?",
                           b.bytes_per_element ? b.bytes_per_element->to_string() : "?");
    }
    std::string out = b.layers ? std::to_string(*b.layers) : "?";
    if (b.latent_dim) {
        out += fmt::format(" x {}", *b.latent_dim);
    } else {
        out += fmt::format(" x {} x {}", b.kv_heads ? std::to_string(*b.kv_heads) : "?",
                           b.head_dim ? std::to_string(*b.head_dim) : "?");
    }
    out += fmt::format(" x {} x {}", b.kv_factor ? std::to_string(*b.kv_factor) : "?",
                       b.bytes_per_element ? b.bytes_per_element->to_string() : "?");
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

}  // namespace

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
        std::int64_t first = kl.first_index.value_or(interval - 1);
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
    // Every layer is accounted for exactly once: growing, sliding, linear or sharing another's cache.
    std::int64_t sliding = m.sliding ? m.sliding->layers : 0;
    std::int64_t linear = m.linear ? m.linear->layers : 0;
    std::int64_t shared = kl.shared.value_or(0);
    std::int64_t sum = checked_add(checked_add(out.count, sliding), checked_add(linear, shared));
    if (total > 0 && sum != total) {
        std::string parts = fmt::format("{} KV-caching + {} sliding + {} linear layers", out.count, sliding, linear);
        if (shared > 0) parts += fmt::format(" + {} sharing another's cache", shared);
        fail(fmt::format("{} = {}, but num_layers is {}", parts, sum, total));
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
    b.layers = layers.count;
    b.layers_how = layers.how;
    if (m.attention_variant == "mla") {
        if (!m.mla) return std::nullopt;
        b.latent_dim = m.mla->latent_dim();
        b.kv_factor = 1;
        return b;
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
    return b;
}

Rational growing_elements_per_token(const ModelBasis& b) {
    if (!b.groups.empty()) {
        Rational sum(0);
        for (const auto& g : b.groups) {
            sum += Rational(g.layers) * Rational(g.kv_heads) * Rational(g.head_dim) * Rational(b.kv_factor);
        }
        return sum;
    }
    return Rational(b.layers) * elements_per_layer_token(b);
}

Rational elements_per_layer_token(const ModelBasis& b) {
    if (b.latent_dim) return Rational(*b.latent_dim) * Rational(b.kv_factor);
    return Rational(b.kv_heads.value_or(0)) * Rational(b.head_dim.value_or(0)) * Rational(b.kv_factor);
}

Rational kv_bytes_at_context(const Model& m, const Rational& bytes_per_token, std::int64_t context,
                             const Rational& bytes_per_element) {
    Rational total = bytes_per_token * Rational(context);
    if (m.sliding) {
        if (auto basis = model_basis(m)) {
            Rational per_layer_token = elements_per_layer_token(*basis) * bytes_per_element;
            total += Rational(m.sliding->layers) * per_layer_token * Rational(std::min(context, m.sliding->window));
        }
    }
    return total;
}

Rational fixed_state_bytes(const Model& m) {
    if (!m.linear) return Rational(0);
    const LinearShape& l = *m.linear;
    // vLLM's gated_delta_net_state_shape: conv (kernel - 1) x (2 x key + value) channels,
    // recurrent value_heads x value_head_dim x key_head_dim.
    Rational conv = Rational(l.conv_kernel - 1) *
                    (Rational(l.key_head_dim) * Rational(l.key_heads) * Rational(2) +
                     Rational(l.value_head_dim) * Rational(l.value_heads));
    Rational recurrent = Rational(l.value_heads) * Rational(l.value_head_dim) * Rational(l.key_head_dim);
    std::int64_t bytes = (l.state_dtype == "float32" || l.state_dtype == "fp32") ? 4 : 2;
    return Rational(l.layers) * (conv + recurrent) * Rational(bytes);
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
