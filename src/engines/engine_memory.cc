#include "engines/engine_memory.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include <fmt/format.h>

#include "model/kv_math.h"

namespace kvcat {

std::optional<EngineSwitch> parse_engine_switch(std::string_view text) {
    if (text == "auto") return EngineSwitch::automatic;
    if (text == "on") return EngineSwitch::on;
    if (text == "off") return EngineSwitch::off;
    return std::nullopt;
}

std::string_view name_of(EnginePartKind k) {
    switch (k) {
        case EnginePartKind::base_cache:
            return "base cache";
        case EnginePartKind::swa_cache:
            return "SWA cache";
        case EnginePartKind::mla_latent:
            return "MLA latent";
        case EnginePartKind::indexer:
            return "indexer";
        case EnginePartKind::recurrent_state:
            return "recurrent state";
    }
    return "";
}

std::vector<LayerSet> engine_layers(const Model& m) {
    auto basis = model_basis(m);
    if (!basis)
        throw EngineError("the model record lacks the shape of its caching layers (kv_heads and head_dim, or mla)");
    // The engine models keep K and V of one width, and bounded layers of the growing layers'
    // shape. A record that says otherwise (MiMo-V2-Flash's K 192 and V 128, Gemma 4's sliding
    // layers of their own heads) is refused here rather than given a figure that is wrong. An MLA
    // model's head widths are those of its expanded heads, which only a cache without MLA holds
    // (ik_llama_allocation's -mla 0); its layers here keep the latent.
    bool mla = basis->latent_dim.has_value();
    bool v_differs = (!mla && m.v_head_dim && m.head_dim && *m.v_head_dim != *m.head_dim) ||
                     std::any_of(m.kv_groups.begin(), m.kv_groups.end(),
                                 [](const KvGroup& g) { return g.v_head_dim && *g.v_head_dim != g.head_dim; });
    if (v_differs)
        throw EngineError(
            "the model's K and V heads differ in width (v_head_dim), which the engine models do not follow yet; "
            "kvcat fit without --engine counts them");
    if (m.sliding && (m.sliding->kv_heads || m.sliding->head_dim || m.sliding->v_head_dim))
        throw EngineError(
            "the model's bounded layers have heads or widths of their own, which the engine models do not follow "
            "yet; kvcat fit without --engine counts them");
    std::vector<LayerSet> out;
    using Role = LayerSet::Role;
    std::int64_t growing = basis->window ? 0 : basis->layers;
    if (basis->latent_dim) {
        if (growing > 0) out.push_back({Role::mla, growing, 1, *basis->latent_dim, 0});
    } else if (!basis->groups.empty()) {
        for (const auto& g : basis->groups) out.push_back({Role::full, g.layers, g.kv_heads, g.head_dim, 0});
    } else if (growing > 0) {
        out.push_back({Role::full, growing, basis->kv_heads.value_or(0), basis->head_dim.value_or(0), 0});
    }
    if (m.sliding && m.sliding->layers > 0) {
        // The bounded layers have the uniform shape (kv_heads x head_dim), as kv_math counts them.
        Role role = m.sliding->kind == WindowKind::chunked ? Role::chunked : Role::sliding;
        std::int64_t heads = basis->latent_dim ? 1 : basis->kv_heads.value_or(0);
        std::int64_t width = basis->latent_dim ? *basis->latent_dim : basis->head_dim.value_or(0);
        out.push_back({role, m.sliding->layers, heads, width, m.sliding->window});
    }
    if (m.linear && m.linear->layers > 0) out.push_back({Role::state, m.linear->layers, 0, 0, 0});
    return out;
}

std::optional<std::int64_t> torch_dtype_bytes(std::string_view name) {
    static constexpr std::array<std::pair<std::string_view, std::int64_t>, 11> kBytes = {{
        {"float32", 4},
        {"fp32", 4},
        {"f32", 4},
        {"float", 4},
        {"bfloat16", 2},
        {"bf16", 2},
        {"float16", 2},
        {"fp16", 2},
        {"f16", 2},
        {"half", 2},
        {"fp8", 1},
    }};
    for (const auto& [n, b] : kBytes) {
        if (n == name) return b;
    }
    if (name.starts_with("fp8")) return 1;
    return std::nullopt;
}

std::string llamacpp_mib_text(const Rational& bytes) {
    // llama.cpp computes (float) size / (1024.0f * 1024.0f) and prints it with %.2f; the same
    // conversion here rounds the same way (to the nearest float, then to two decimals).
    auto b = static_cast<std::int64_t>(bytes.floor());
    float mib = static_cast<float>(b) / (1024.0f * 1024.0f);
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.2f", static_cast<double>(mib));
    return buf.data();
}

std::string python_gib_text(const Rational& bytes) {
    // Python divides in double precision and formats with correct rounding; so does this.
    double gib = static_cast<double>(bytes.floor()) / static_cast<double>(1LL << 30);
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), "%.2f", gib);
    return buf.data();
}

std::string right_aligned(const std::string& text, int width) {
    return text.size() >= static_cast<std::size_t>(width) ? text : std::string(width - text.size(), ' ') + text;
}

}  // namespace kvcat
