#include "engines/engine_sglang.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/curve.h"
#include "model/kv_math.h"

namespace kvcat {

namespace {

bool has_sliding(const Model& m) {
    return m.sliding && m.sliding->layers > 0;
}

void refuse_unmodelled(const Model& m) {
    if (has_sliding(m)) throw EngineError("a model with sliding layers has SGLang's two pools, not one");
    if (m.linear) throw EngineError("kvcat does not model SGLang's Mamba state pool");
}

std::int64_t heads_per_card(std::int64_t heads, std::int64_t tp) {
    if (heads % tp == 0) return heads / tp;
    if (tp % heads == 0) return 1;
    throw EngineError(fmt::format("{} KV heads do not spread over {} cards", heads, tp));
}

/// Python's float floor division (floatobject.c float_floor_div) for positive operands: the
/// quotient of the exact remainder's complement, floored, and raised when it lies over half
/// way; it is not always floor(v / w).
double python_floor_div(double v, double w) {
    double mod = std::fmod(v, w);
    double div = (v - mod) / w;
    if (div == 0.0) return 0.0;
    double floored = std::floor(div);
    if (div - floored > 0.5) floored += 1.0;
    return floored;
}

/// A count as Python holds it in a float: exact below 2^53.
double exact_double(std::int64_t value) {
    if (value >= (std::int64_t{1} << 53)) throw OverflowError("a pool figure exceeds what a float holds exactly");
    return static_cast<double>(value);
}

/// Python's int() of a positive float.
std::int64_t python_int(double value) {
    if (!(value < 9.2e18)) throw OverflowError("a pool figure exceeds 64 bits");
    return static_cast<std::int64_t>(value);
}

/// The hybrid SWA model's layers as HybridSWAPoolConfigurator reads them: bytes per token of
/// one full and one sliding layer (K and V, per card) and how many of each.
struct SwaLayers {
    std::int64_t full_layers = 0;
    std::int64_t swa_layers = 0;
    std::int64_t full_layer_bytes = 0;
    std::int64_t swa_layer_bytes = 0;
    std::int64_t window = 0;
};

SwaLayers swa_layers(const Model& m, const CacheDtype& dtype, std::int64_t tp) {
    if (m.linear) throw EngineError("kvcat does not model SGLang's Mamba state pool");
    Rational element = dtype.bytes_per_element();
    if (!element.is_integer()) throw EngineError(fmt::format("SGLang keeps no '{}' cache", dtype.name));
    SwaLayers out;
    for (const auto& set : engine_layers(m)) {
        std::int64_t heads = heads_per_card(set.kv_heads, tp);
        std::int64_t bytes = checked_mul(checked_mul(checked_mul(heads, set.head_dim), 2), element.num());
        switch (set.role) {
            case LayerSet::Role::full:
                if (out.full_layers > 0 && bytes != out.full_layer_bytes)
                    throw EngineError("SGLang's SWA pool takes one shape for every full layer");
                out.full_layers = checked_add(out.full_layers, set.layers);
                out.full_layer_bytes = bytes;
                break;
            case LayerSet::Role::sliding:
                out.swa_layers = set.layers;
                out.swa_layer_bytes = bytes;
                out.window = set.window;
                break;
            case LayerSet::Role::chunked:
                throw EngineError("kvcat does not model SGLang's pool for chunked attention (Llama 4)");
            case LayerSet::Role::mla:
                throw EngineError("kvcat does not model SGLang's SWA pool beside MLA layers");
            case LayerSet::Role::state:
                throw EngineError("kvcat does not model SGLang's Mamba state pool");
        }
    }
    if (out.full_layers == 0) {
        // SGLang sizes an all-SWA pool without the ratio, but which models take that path
        // rather than one pool of every layer is not read yet.
        throw EngineError("every layer of the model slides; kvcat does not model which pool SGLang gives it");
    }
    return out;
}

/// The full and the SWA pool's tokens (HybridSWAPoolConfigurator._solve_pool_sizes).
struct SwaPoolTokens {
    std::int64_t full = 0;
    std::int64_t swa = 0;
};

SwaPoolTokens swa_pool_tokens(const SwaLayers& l, const EngineSettings& s, std::int64_t page) {
    const Rational& r = s.swa_full_tokens_ratio;
    // SGLang holds the ratio as a Python float: the double nearest the decimal, which the
    // quotient of its exact numerator and denominator is while both are below 2^53.
    double ratio = exact_double(r.num()) / exact_double(r.den());
    std::int64_t full_bytes = checked_mul(l.full_layer_bytes, l.full_layers);
    std::int64_t max_total = s.context;
    if (s.available_bytes) {
        // cell_size = full_per_token x full_layers + ratio x swa_per_token x swa_layers, a float,
        // and max_total_num_tokens = int(available_bytes // cell_size).
        double cell = exact_double(full_bytes) + ratio * exact_double(l.swa_layer_bytes) * exact_double(l.swa_layers);
        max_total = python_int(python_floor_div(exact_double(s.available_bytes->floor()), cell));
    }
    SwaPoolTokens t;
    t.full = max_total / page * page;
    if (t.full <= 0) throw EngineError("the memory given holds no page of the pool");
    t.swa = python_int(exact_double(t.full) * ratio) / page * page;
    if (checked_add(l.window, page) >= t.swa) {
        throw EngineError(
            fmt::format("SGLang refuses a SWA pool of {} tokens: one request needs the window ({}) and a page ({}); "
                        "raise --swa-full-tokens-ratio or the memory",
                        t.swa, l.window, page));
    }
    return t;
}

EnginePart swa_part(EnginePartKind kind, std::int64_t tokens, std::int64_t page, std::int64_t layers,
                    std::int64_t layer_bytes, const CacheDtype& dtype, std::string_view which) {
    EnginePart p;
    p.kind = kind;
    p.layers = layers;
    p.cells = checked_add(tokens, page);
    Rational half = Rational(p.cells) * Rational(layers) * Rational(layer_bytes / 2);
    p.k_bytes = half;
    p.v_bytes = half;
    p.k_type = std::string(dtype.name);
    p.v_type = std::string(dtype.name);
    p.how =
        fmt::format("({} tokens + {} padding slot{}) x {} bytes per token over {} {} layers", group_thousands(tokens),
                    page, page == 1 ? "" : "s", group_thousands(checked_mul(layer_bytes, layers)), layers, which);
    return p;
}

EngineAnswer sglang_swa_allocation(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    if (dtype.block_values != 1) throw EngineError(fmt::format("SGLang keeps no '{}' cache", dtype.name));
    if (!(s.swa_full_tokens_ratio > Rational(0))) throw EngineError("--swa-full-tokens-ratio must be above 0");
    std::int64_t page = std::max<std::int64_t>(1, s.page_size);
    std::int64_t tp = std::max<std::int64_t>(1, s.gpus);
    SwaLayers l = swa_layers(m, dtype, tp);
    SwaPoolTokens t = swa_pool_tokens(l, s, page);
    EngineAnswer a;
    a.engine = Engine::sglang;
    a.rule = s.version.empty()
                 ? "SGLang, the newest rules held (memory_pool.py at 000ccdba, pool_configurator.py at 003fca80)"
                 : fmt::format("SGLang {}", s.version);
    a.tokens = t.full;
    a.swa_tokens = t.swa;
    a.context = *a.tokens;
    // SWAKVPool builds the SWA pool first, then the full pool.
    a.parts.push_back(
        swa_part(EnginePartKind::swa_cache, t.swa, page, l.swa_layers, l.swa_layer_bytes, dtype, "sliding"));
    a.parts.push_back(
        swa_part(EnginePartKind::base_cache, t.full, page, l.full_layers, l.full_layer_bytes, dtype, "full"));
    for (const auto& p : a.parts) a.kv_bytes += p.bytes();
    Rational full_bytes = Rational(l.full_layer_bytes) * Rational(l.full_layers);
    Rational swa_bytes = Rational(l.swa_layer_bytes) * Rational(l.swa_layers);
    a.engine_bytes_per_token = full_bytes + s.swa_full_tokens_ratio * swa_bytes;
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(m, dtype) / Rational(tp);
    a.textbook_kv_bytes = kv_cache_bytes(m, dtype, *a.tokens) / Rational(tp);
    a.per_card = tp > 1;
    a.differences.push_back(
        {"SWA pool",
         fmt::format("the {} sliding layers keep a pool of their own, {} tokens shared by every request "
                     "(--swa-full-tokens-ratio {} of the full pool's {}, pool_configurator.py), where the textbook "
                     "keeps a window of {} tokens for each sequence; each token of the full pool is charged {} "
                     "bytes, its full layers' {} and {} of its sliding layers' {}",
                     l.swa_layers, group_thousands(t.swa), s.swa_full_tokens_ratio.to_display(),
                     group_thousands(t.full), group_thousands(l.window), a.engine_bytes_per_token.to_display(),
                     group_thousands(full_bytes.num()), s.swa_full_tokens_ratio.to_display(),
                     group_thousands(swa_bytes.num()))});
    a.differences.push_back(
        {"padding slot", fmt::format("each pool keeps {} more slot{} than it hands out: the padded slot that padded "
                                     "tokens write to (memory_pool.py)",
                                     page, page == 1 ? "" : "s")});
    if (page > 1) {
        a.differences.push_back({"page rounding", fmt::format("each pool holds whole pages of {} tokens", page)});
    }
    return a;
}

}  // namespace

SglangPoolBytes sglang_pool_bytes(const Model& m, const CacheDtype& dtype, std::int64_t tokens, std::int64_t page_size,
                                  std::int64_t gpus) {
    refuse_unmodelled(m);
    if (dtype.block_values != 1) throw EngineError(fmt::format("SGLang keeps no '{}' cache", dtype.name));
    SglangPoolBytes out;
    Rational slots = Rational(checked_add(tokens, page_size));
    std::int64_t tp = std::max<std::int64_t>(1, gpus);
    for (const auto& set : engine_layers(m)) {
        if (set.role == LayerSet::Role::mla) {
            out.mla = true;
            out.k += slots * Rational(set.layers) * Rational(set.head_dim) * dtype.bytes_per_element();
        } else if (set.role == LayerSet::Role::full) {
            Rational per = slots * Rational(set.layers) * Rational(heads_per_card(set.kv_heads, tp)) *
                           Rational(set.head_dim) * dtype.bytes_per_element();
            out.k += per;
            out.v += per;
        }
    }
    return out;
}

Rational sglang_cell_bytes(const Model& m, const CacheDtype& dtype, std::int64_t gpus) {
    SglangPoolBytes one = sglang_pool_bytes(m, dtype, 1, 0, gpus);
    return one.k + one.v;
}

EngineAnswer sglang_allocation(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    if (has_sliding(m)) return sglang_swa_allocation(m, dtype, s);
    std::int64_t page = std::max<std::int64_t>(1, s.page_size);
    Rational cell = sglang_cell_bytes(m, dtype, s.gpus);
    std::int64_t tokens = s.context;
    if (s.available_bytes) {
        tokens = (*s.available_bytes / cell).floor() / page * page;
        if (tokens <= 0) throw EngineError("the memory given holds no page of the pool");
    }
    SglangPoolBytes pool = sglang_pool_bytes(m, dtype, tokens, page, s.gpus);
    EngineAnswer a;
    a.engine = Engine::sglang;
    a.rule = s.version.empty() ? "SGLang, the newest rules held (memory_pool.py at 000ccdba)"
                               : fmt::format("SGLang {}", s.version);
    a.tokens = tokens;
    a.context = tokens;
    EnginePart p;
    p.kind = pool.mla ? EnginePartKind::mla_latent : EnginePartKind::base_cache;
    p.cells = checked_add(tokens, page);
    p.k_bytes = pool.k;
    p.v_bytes = pool.v;
    p.k_type = std::string(dtype.name);
    p.v_type = std::string(dtype.name);
    auto basis = model_basis(m);
    p.layers = basis ? basis->layers : 0;
    p.how = fmt::format("({} tokens + {} padding slot{}) x {} bytes per token over {} layers", group_thousands(tokens),
                        page, page == 1 ? "" : "s", cell.to_display(), p.layers);
    a.parts.push_back(p);
    a.kv_bytes = pool.k + pool.v;
    std::int64_t tp = std::max<std::int64_t>(1, s.gpus);
    a.engine_bytes_per_token = cell;
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(m, dtype) / Rational(tp);
    a.textbook_kv_bytes = kv_cache_bytes(m, dtype, tokens) / Rational(tp);
    a.per_card = tp > 1;
    a.differences.push_back(
        {"padding slot", fmt::format("the pool keeps {} more slot{} than it hands out: the padded slot that padded "
                                     "tokens write to (memory_pool.py)",
                                     page, page == 1 ? "" : "s")});
    if (page > 1) {
        a.differences.push_back({"page rounding", fmt::format("the pool holds whole pages of {} tokens", page)});
    }
    return a;
}

}  // namespace kvcat
