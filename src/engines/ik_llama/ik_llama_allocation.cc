#include "engines/ik_llama/ik_llama_allocation.h"

#include <algorithm>

#include <fmt/format.h>

#include "engines/llamacpp/llamacpp_allocation.h"
#include "model/curve.h"
#include "model/kv_math.h"

namespace kvcat {

namespace {

bool is_f16_or_bf16(const CacheDtype& d) {
    std::string_view n(d.name);
    return n == "f16" || n == "bf16";
}

/// The latent's type as allocated: -ctk's, but -ctv's under -mla 2 or 3 without flash attention.
const CacheDtype& latent_type(const CacheDtype& k, const CacheDtype& v, const EngineSettings& s) {
    return s.flash_attn || s.ik_mla == 1 ? k : v;
}

void fill(const Model& model, const CacheDtype& k, const CacheDtype& v, const EngineSettings& s, std::int64_t cells,
          EngineAnswer& a) {
    a.parts.clear();
    bool mla = model.mla && model.variant == AttentionVariant::mla && s.ik_mla > 0;
    bool kv_t = mla && s.ik_mla == 1 && !s.flash_attn;
    LlamaCacheBytes b =
        model.mla && s.ik_mla == 0
            ? llamacpp_every_head_bytes(model, k, v, cells)
            : llamacpp_cache_bytes(model, LlamaCacheScope::all, mla ? latent_type(k, v, s) : k, v, cells, 1, kv_t);
    EnginePart p;
    p.kind = mla ? EnginePartKind::mla_latent : EnginePartKind::base_cache;
    p.layers = b.layers;
    p.cells = cells;
    p.streams = 1;
    p.k_bytes = b.k;
    p.v_bytes = b.v;
    // The names the line prints: -ctk's and -ctv's as given, whatever type the latent took.
    p.k_type = std::string(k.name);
    p.v_type = std::string(v.name);
    p.how = fmt::format("{} layers x {} cells, one cache for every sequence", b.layers, group_thousands(cells));
    a.parts.push_back(p);
    a.kv_bytes = p.bytes();
    a.state_bytes = Rational(0);
}

}  // namespace

EngineAnswer ik_llama_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& s) {
    if (model.linear) {
        throw EngineError("ik_llama.cpp's recurrent state is not modelled; --engine llama.cpp gives llama.cpp's");
    }
    if (model.sliding && model.sliding->layers > 0) {
        throw EngineError(
            "ik_llama.cpp's cache for sliding-window layers is not modelled; --engine llama.cpp gives llama.cpp's");
    }
    CacheDtype v = llamacpp_v_type(dtype, s);
    bool mla = model.mla && model.variant == AttentionVariant::mla;
    if (s.ik_mla < 0 || s.ik_mla > 3) throw EngineError(fmt::format("-mla {} is not one of 0, 1, 2, 3", s.ik_mla));
    if (mla && s.ik_mla == 0) llamacpp_every_head_bytes(model, dtype, v, 1);  // refuses a record without the widths
    if (!s.flash_attn && !is_f16_or_bf16(v)) {
        throw EngineError(
            fmt::format("ik_llama.cpp refuses a {} V cache without flash attention (\"V cache "
                        "quantization requires flash_attn\"): give --flash-attn on, or an f16 V",
                        v.name));
    }
    std::int64_t unit = s.flash_attn ? kIkCellPadFlash : kIkCellPad;
    std::int64_t parallel = std::max<std::int64_t>(1, s.parallel);
    std::int64_t context = llamacpp_context(model, s);
    EngineAnswer a;
    a.engine = Engine::ik_llama;
    a.ik_flash_attn = s.flash_attn;
    a.rule = s.version.empty() ? "ik_llama.cpp, the newest rules held (src/llama.cpp at 8337e4cd: llama_kv_cache_init)"
                               : fmt::format("ik_llama.cpp {}, read with the newest rules held", s.version);
    a.sequences = parallel;
    if (s.available_bytes) {
        // The largest -c whose cache fits: the cells move in steps of the padding.
        context = llamacpp_largest_fit(unit, *s.available_bytes, [&](std::int64_t cells) {
            EngineAnswer probe;
            fill(model, dtype, v, s, cells, probe);
            return probe.kv_bytes;
        });
        if (context == 0) throw EngineError(fmt::format("not even {} cells fit in the memory given", unit));
    }
    std::int64_t cells = llama_pad(context, unit);
    fill(model, dtype, v, s, cells, a);
    a.context = cells;
    a.tokens = cells;
    Rational bpe = (dtype.bytes_per_element() + v.bytes_per_element()) / Rational(2);
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(model, dtype);
    if (s.v_dtype) a.textbook_bytes_per_token = a.textbook_bytes_per_token / dtype.bytes_per_element() * bpe;
    a.textbook_kv_bytes = kv_cache_bytes(model, mla ? dtype.bytes_per_element() : bpe, context);
    a.textbook_state_bytes = Rational(0);
    if (cells > 0) a.engine_bytes_per_token = a.kv_bytes / Rational(cells);

    if (cells != context) {
        a.differences.push_back(
            {"padding",
             fmt::format("-c {} becomes {} cells: ik_llama.cpp pads n_ctx to {} ({} flash attention; "
                         "llama_kv_cache::get_padding)",
                         group_thousands(context), group_thousands(cells), unit, s.flash_attn ? "with" : "without")});
    }
    if (parallel > 1) {
        a.differences.push_back(
            {"one cache", fmt::format("-np {} shares the {} cells: ik_llama.cpp keeps one cache for every sequence "
                                      "and the server gives each slot {} of them",
                                      parallel, group_thousands(cells), group_thousands(cells / parallel))});
    }
    if (mla && s.ik_mla == 0) {
        a.differences.push_back(
            {"MLA off", fmt::format("-mla 0: each layer keeps every head's expanded K ({} heads x {}, {}) and V ({} "
                                    "heads x {}, {}) where the latent is {} elements",
                                    *model.attention_heads, *model.head_dim, dtype.name, *model.attention_heads,
                                    *model.v_head_dim, v.name, model.mla->latent_dim())});
    } else if (mla) {
        std::string how;
        if (s.ik_mla == 1 && !s.flash_attn) {
            how = fmt::format(
                "-mla 1 without flash attention: K holds the latent ({} elements, {}) and V its first {} "
                "elements again, transposed (kv^T, {})",
                model.mla->latent_dim(), dtype.name, model.mla->kv_lora_rank, v.name);
        } else if (!s.flash_attn) {
            how = fmt::format(
                "-mla {} without flash attention: K holds the latent ({} elements) in -ctv's type {}, "
                "though the line names -ctk's ({}); no V",
                s.ik_mla, model.mla->latent_dim(), v.name, dtype.name);
        } else {
            how = fmt::format("-mla {} with flash attention: K holds the latent ({} elements, {}); no V", s.ik_mla,
                              model.mla->latent_dim(), dtype.name);
        }
        a.differences.push_back({"MLA latent", how});
    }
    return a;
}

namespace {

std::string ik_llama_line(const EnginePart& p, bool flash_attn) {
    std::string total = right_aligned(llamacpp_mib_text(p.bytes()), 7);
    if (p.kind != EnginePartKind::mla_latent) {
        return fmt::format("llama_init_from_model: KV self size  = {} MiB, K ({}): {} MiB, V ({}): {} MiB", total,
                           p.k_type, right_aligned(llamacpp_mib_text(p.k_bytes), 7), p.v_type,
                           right_aligned(llamacpp_mib_text(p.v_bytes), 7));
    }
    std::string kv_t = flash_attn
                           ? std::string("kv^T: not used")
                           : fmt::format("kv^T ({}): {} MiB", p.v_type, right_aligned(llamacpp_mib_text(p.v_bytes), 7));
    return fmt::format("llama_init_from_model: KV self size  = {} MiB, c^KV ({}): {} MiB, {}", total, p.k_type,
                       right_aligned(llamacpp_mib_text(p.k_bytes), 7), kv_t);
}

}  // namespace

std::vector<std::string> ik_llama_log_lines(const EngineAnswer& a) {
    std::vector<std::string> out;
    for (const auto& p : a.parts) out.push_back(ik_llama_line(p, a.ik_flash_attn));
    return out;
}

}  // namespace kvcat
