#include "engine_sglang.h"

#include <algorithm>

#include <fmt/format.h>

#include "curve.h"
#include "kv_math.h"

namespace kvcat {

namespace {

void refuse_unmodelled(const Model& m) {
    if (m.sliding && m.sliding->layers > 0) {
        throw EngineError("kvcat does not model SGLang's SWA pool (its full/SWA token ratio) for sliding layers");
    }
    if (m.linear) throw EngineError("kvcat does not model SGLang's Mamba state pool");
}

std::int64_t heads_per_card(std::int64_t heads, std::int64_t tp) {
    if (heads % tp == 0) return heads / tp;
    if (tp % heads == 0) return 1;
    throw EngineError(fmt::format("{} KV heads do not spread over {} cards", heads, tp));
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
