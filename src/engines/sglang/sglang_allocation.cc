#include "engines/sglang/sglang_allocation.h"

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

std::int64_t torch_bytes_or_throw(const std::string& name, std::string_view what) {
    auto b = torch_dtype_bytes(name);
    if (!b) throw EngineError(fmt::format("kvcat has no size for the {} '{}'", what, name));
    return *b;
}

/// The token pool's K and V (or MLA latent) as a part: `tokens` and the padded page, over `layers`
/// (`which` names them, "{} layers").
EnginePart pool_part(const SglangPoolBytes& pool, std::int64_t tokens, std::int64_t page, const CacheDtype& dtype,
                     std::int64_t layers, std::string_view which) {
    EnginePart p;
    p.kind = pool.mla ? EnginePartKind::mla_latent : EnginePartKind::base_cache;
    p.cells = checked_add(tokens, page);
    p.k_bytes = pool.k;
    p.v_bytes = pool.v;
    p.k_type = std::string(dtype.name);
    p.v_type = std::string(dtype.name);
    p.layers = layers;
    p.how = fmt::format("({} tokens + {} padding slot{}) x {} bytes per token over {}", group_thousands(tokens), page,
                        page == 1 ? "" : "s", ((pool.k + pool.v) / Rational(p.cells)).to_display(),
                        fmt::format(fmt::runtime(which), layers));
    return p;
}

/// The Mamba pool's requests for the memory given: --max-mamba-cache-size when set; else, as
/// KVCacheConfigurator._handle_max_mamba_cache takes it (python/sglang/srt/mem_cache/
/// kv_cache_configurator.py at 003fca8027387a3d6565b2c08e497e3020ac6211, without speculative
/// decoding or pipeline stages), the budget rest x r / (1 + r) for --mamba-full-memory-ratio r and
/// int((budget - per_req) // per_req) requests: the padded slot's row is paid from the budget too
/// (sgl-project/sglang pull 32184, merged 2026-07-23; before it the pool took budget // per_req
/// requests, a rule kvcat does not hold). SGLang works in floats; kvcat exactly.
std::int64_t mamba_slots_for(const EngineSettings& s, const Rational& per_slot) {
    if (s.mamba_slots) return *s.mamba_slots;
    if (!s.available_bytes) return std::max<std::int64_t>(1, s.parallel);
    const Rational& r = s.mamba_full_memory_ratio;
    Rational share = *s.available_bytes * r / (Rational(1) + r);
    // One slot more than fits is the padded slot 0, which the pool keeps too.
    std::int64_t slots = (share / per_slot).floor() - 1;
    if (slots < 1) throw EngineError("the memory given holds no request's Mamba state");
    return slots;
}

EngineAnswer sglang_mamba_allocation(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    if (dtype.block_values != 1) throw EngineError(fmt::format("SGLang keeps no '{}' cache", dtype.name));
    std::int64_t page = std::max<std::int64_t>(1, s.page_size);
    std::int64_t tp = std::max<std::int64_t>(1, s.gpus);
    std::string conv_type(kSglangConvDtype);
    std::string ssm_type = sglang_ssm_dtype(m, s.mamba_ssm_cache_dtype);
    SglangMambaBytes one = sglang_mamba_bytes(m, 1, tp, conv_type, ssm_type);
    std::int64_t slots = mamba_slots_for(s, one.per_slot);
    SglangMambaBytes mamba = sglang_mamba_bytes(m, slots, tp, conv_type, ssm_type);
    Rational cell = sglang_cell_bytes(m, dtype, tp);
    std::int64_t tokens = s.context;
    if (s.available_bytes) {
        Rational rest = *s.available_bytes - mamba.conv - mamba.ssm;
        tokens = (rest / cell).floor() / page * page;
        if (tokens <= 0) throw EngineError("the memory left beside the Mamba pool holds no page of the KV pool");
    }
    SglangPoolBytes pool = sglang_pool_bytes(m, dtype, tokens, page, tp);
    EngineAnswer a;
    a.engine = Engine::sglang;
    a.rule = s.version.empty() ? "SGLang, the newest rules held (memory_pool.py MambaPool and the KV pool)"
                               : fmt::format("SGLang {}", s.version);
    a.tokens = tokens;
    a.context = tokens;
    a.mamba_slots = slots;
    a.sequences = slots;
    EnginePart st;
    st.kind = EnginePartKind::recurrent_state;
    st.layers = mamba.layers;
    st.cells = slots + 1;
    st.k_bytes = mamba.conv;
    st.v_bytes = mamba.ssm;
    st.k_type = conv_type;
    st.v_type = ssm_type;
    st.how = fmt::format(
        "({} requests + the padded slot) x {} bytes of state over {} layers, conv state in {}, SSM "
        "state in {}",
        group_thousands(slots), one.per_slot.to_display(), mamba.layers, conv_type, ssm_type);
    a.parts.push_back(st);
    a.parts.push_back(pool_part(pool, tokens, page, dtype, m.kv_layers.count.value_or(0), "the {} attention layers"));
    a.kv_bytes = pool.k + pool.v;
    a.state_bytes = mamba.conv + mamba.ssm;
    a.engine_bytes_per_token = cell;
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(m, dtype) / Rational(tp);
    a.textbook_kv_bytes = kv_cache_bytes(m, dtype, tokens) / Rational(tp);
    a.textbook_state_bytes = fixed_state_bytes(m) * Rational(slots) / Rational(tp);
    a.per_card = tp > 1;
    a.differences.push_back(
        {"Mamba pool",
         s.mamba_slots
             ? fmt::format("the state of {} requests (max_mamba_cache_size) is kept in a pool of its own, beside a "
                           "KV pool of the attention layers only",
                           group_thousands(slots))
         : s.available_bytes
             ? fmt::format("the state of {} requests is kept in a pool of its own: --mamba-full-memory-ratio {} "
                           "gives it {} of the memory, r / (1 + r), and the KV pool of the attention layers the rest",
                           group_thousands(slots), s.mamba_full_memory_ratio.to_display(),
                           (s.mamba_full_memory_ratio / (Rational(1) + s.mamba_full_memory_ratio)).to_display())
             : fmt::format(
                   "the state of {} request{} (the sequences asked for; give --max-mamba-cache-size) is kept in "
                   "a pool of its own, beside a KV pool of the attention layers only",
                   slots, slots == 1 ? "" : "s")});
    a.differences.push_back({"padding slot", fmt::format("the Mamba pool keeps one row more than its requests and the "
                                                         "KV pool {} slot{} more than its tokens: the padded slot 0 "
                                                         "(memory_pool.py)",
                                                         page, page == 1 ? "" : "s")});
    // The dtypes differ from the model record's when one request's state does (the padded row aside).
    if (one.per_slot * Rational(slots) != a.textbook_state_bytes) {
        a.differences.push_back(
            {"state dtype", fmt::format("the conv state is kept in {} and the SSM state in {}: {} bytes a request{}, "
                                        "where the model record's dtypes give {}",
                                        conv_type, ssm_type, one.per_slot.to_display(), tp > 1 ? " per card" : "",
                                        (fixed_state_bytes(m) / Rational(tp)).to_display())});
    }
    return a;
}

}  // namespace

std::string sglang_ssm_dtype(const Model& m, const std::string& setting) {
    if (!setting.empty() && setting != "auto") return setting;
    if (m.linear && !m.linear->state_dtype.empty()) return m.linear->state_dtype;
    return "float32";
}

SglangMambaBytes sglang_mamba_bytes(const Model& m, std::int64_t slots, std::int64_t gpus,
                                    const std::string& conv_dtype, const std::string& ssm_dtype) {
    if (!m.linear || m.linear->layers <= 0) throw EngineError("the model has no fixed-state layers");
    std::int64_t tp = std::max<std::int64_t>(1, gpus);
    StateElements e = fixed_state_elements(m, tp);
    SglangMambaBytes out;
    out.layers = m.linear->layers;
    out.conv_type = conv_dtype;
    out.ssm_type = ssm_dtype;
    Rational conv_one = e.conv * Rational(torch_bytes_or_throw(conv_dtype, "conv state dtype"));
    Rational ssm_one = e.recurrent * Rational(torch_bytes_or_throw(ssm_dtype, "SSM state dtype"));
    if (!conv_one.is_integer() || !ssm_one.is_integer())
        throw EngineError("the state does not split evenly over the cards");
    Rational rows(checked_add(slots, 1));
    out.conv = conv_one * rows;
    out.ssm = ssm_one * rows;
    out.per_slot = conv_one + ssm_one;
    return out;
}

bool sglang_dsa(const Model& m) {
    return m.mla.has_value() && m.indexer.has_value();
}

std::int64_t sglang_page_size(const Model& m, std::int64_t requested) {
    // server_args.py: "Setting page size to 64 for DeepSeek DSA"; the pool asserts it on CUDA.
    if (sglang_dsa(m)) return kSglangDsaPage;
    return std::max<std::int64_t>(1, requested);
}

namespace {

/// Bytes one token of an MLA layer's latent takes in SGLang. A DeepSeek-V3.2 (DSA) pool keeps an
/// fp8_e4m3 latent as kv_lora_rank fp8 values, a float32 scale per 128 of them and the rope part
/// in bfloat16 (calculate_mla_kv_cache_dim: 512 + 16 + 128 = 656 bytes); otherwise the latent is
/// kv_lora_rank + qk_rope_head_dim elements of the cache dtype.
Rational sglang_latent_bytes(const Model& m, const CacheDtype& dtype, std::int64_t latent_dim) {
    std::string_view name = dtype.name;
    if (sglang_dsa(m) && (name == "fp8" || name == "fp8_e4m3")) {
        const MlaShape& mla = *m.mla;
        return Rational(checked_add(checked_add(mla.kv_lora_rank, mla.kv_lora_rank / 128 * 4),
                                    checked_mul(mla.qk_rope_head_dim, 2)));
    }
    return Rational(latent_dim) * dtype.bytes_per_element();
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
            out.k += slots * Rational(set.layers) * sglang_latent_bytes(m, dtype, set.head_dim);
            if (m.indexer && page_size > 0) {
                // IndexKeyCache: (size + page + 1) // page pages a layer, each of page tokens of
                // index_head_dim fp8 keys and their float32 scales (index_key_cache.py).
                std::int64_t pages = checked_add(checked_add(tokens, page_size), 1) / page_size;
                out.indexer += Rational(checked_mul(pages, page_size)) * Rational(set.layers) *
                               Rational(indexer_bytes_per_token_layer(*m.indexer));
            }
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
    Rational cell = one.k + one.v;
    // The configurator charges the indexer per token (pool_configurator.py: indexer_size_per_token
    // x layers), the pool rounds it to pages.
    if (sglang_dsa(m)) {
        for (const auto& set : engine_layers(m)) {
            if (set.role == LayerSet::Role::mla)
                cell += Rational(set.layers) * Rational(indexer_bytes_per_token_layer(*m.indexer));
        }
    }
    return cell;
}

EngineAnswer sglang_allocation(const Model& m, const CacheDtype& dtype, const EngineSettings& s) {
    if (has_sliding(m)) return sglang_swa_allocation(m, dtype, s);
    if (m.linear && m.linear->layers > 0) return sglang_mamba_allocation(m, dtype, s);
    std::int64_t page = sglang_page_size(m, s.page_size);
    Rational cell = sglang_cell_bytes(m, dtype, s.gpus);
    std::int64_t tokens = s.context;
    if (s.available_bytes) {
        tokens = (*s.available_bytes / cell).floor() / page * page;
        if (tokens <= 0) throw EngineError("the memory given holds no page of the pool");
    }
    SglangPoolBytes pool = sglang_pool_bytes(m, dtype, tokens, page, s.gpus);
    EngineAnswer a;
    a.engine = Engine::sglang;
    a.rule = s.version.empty() ? (sglang_dsa(m) ? "SGLang, the newest rules held (memory_pool.py DSATokenToKVPool at "
                                                  "fe571baa)"
                                                : "SGLang, the newest rules held (memory_pool.py at 000ccdba)")
                               : fmt::format("SGLang {}", s.version);
    a.tokens = tokens;
    a.context = tokens;
    auto basis = model_basis(m);
    EnginePart p = pool_part(pool, tokens, page, dtype, basis ? basis->layers : 0, "{} layers");
    a.parts.push_back(p);
    if (!pool.indexer.is_zero()) {
        EnginePart ix;
        ix.kind = EnginePartKind::indexer;
        ix.layers = p.layers;
        ix.cells = checked_add(checked_add(tokens, page), 1) / page * page;
        ix.k_bytes = pool.indexer;
        ix.k_type = m.indexer->cache_dtype;
        ix.how =
            fmt::format("{} pages of {} tokens x {} bytes per token (the key and its scale) over {} layers",
                        group_thousands(ix.cells / page), page, indexer_bytes_per_token_layer(*m.indexer), ix.layers);
        a.parts.push_back(ix);
    }
    a.kv_bytes = pool.k + pool.v + pool.indexer;
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
    if (sglang_dsa(m)) {
        a.differences.push_back(
            {"DSA layout",
             fmt::format("SGLang sets pages of {} tokens for DeepSeek's sparse attention whatever --page-size says, "
                         "and keeps the indexer's keys ({} bytes a token and layer) in a paged buffer of one page "
                         "more (memory_pool.py DSATokenToKVPool, index_key_cache.py){}",
                         page, indexer_bytes_per_token_layer(*m.indexer),
                         sglang_latent_bytes(m, dtype, 0) == Rational(656)
                             ? "; its fp8 latent is 512 fp8 values, 4 float32 scales and a bfloat16 rope: 656 bytes "
                               "a token and layer, where the textbook counts 576"
                             : "")});
    }
    return a;
}

std::vector<std::string> sglang_log_lines(const EngineAnswer& a) {
    std::vector<std::string> out;
    if (a.swa_tokens) {
        out.push_back(fmt::format("Use sliding window memory pool. full_layer_tokens={}, swa_layer_tokens={}",
                                  a.tokens.value_or(0), *a.swa_tokens));
    }
    for (const auto& p : a.parts) {
        if (p.kind == EnginePartKind::recurrent_state) {
            // MambaPool's line, with no space before "GB" (SGLang ends it with a blank, left out here).
            out.push_back(fmt::format(
                "Mamba Cache is allocated. max_mamba_cache_size: {}, conv_state size: {}GB, ssm_state size: "
                "{}GB",
                a.mamba_slots.value_or(p.cells - 1), python_gib_text(p.k_bytes), python_gib_text(p.v_bytes)));
        } else if (a.swa_tokens) {
            // SWAKVPool: each of its pools prints its own line, then the two together.
            std::int64_t held = p.kind == EnginePartKind::swa_cache ? *a.swa_tokens : a.tokens.value_or(0);
            out.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {} GB, V size: {} GB", held,
                                      python_gib_text(p.k_bytes), python_gib_text(p.v_bytes)));
        } else if (p.kind == EnginePartKind::indexer) {
            continue;  // printed inside the latent's "KV size"
        } else if (p.kind == EnginePartKind::mla_latent) {
            // DeepSeek-V3.2's pool prints its latent and its indexer's keys as one figure.
            Rational kv = p.bytes();
            for (const auto& q : a.parts) {
                if (q.kind == EnginePartKind::indexer) kv += q.bytes();
            }
            out.push_back(fmt::format("KV Cache is allocated. #tokens: {}, KV size: {} GB", a.tokens.value_or(0),
                                      python_gib_text(kv)));
        } else {
            out.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {} GB, V size: {} GB",
                                      a.tokens.value_or(0), python_gib_text(p.k_bytes), python_gib_text(p.v_bytes)));
        }
    }
    if (a.swa_tokens) {
        out.push_back(fmt::format("SWAKVPool mem usage: {} GB, swa size: {}, full size: {}",
                                  python_gib_text(a.kv_bytes), *a.swa_tokens, a.tokens.value_or(0)));
    }
    return out;
}

}  // namespace kvcat
