// import-config: which layer is which, from whichever layout key the config states.
#include "import/import_config_stages.h"

#include <map>

namespace kvcat::import_stages {

void Importer::read_layout() {
    if (!d_.layers) return;
    auto n = static_cast<std::size_t>(*d_.layers);
    bool done = layout_from_block_configs(n) || layout_from_linear_attn_config(n) ||
                layout_from_hybrid_layer_pattern(n) || layout_from_layer_types(n) || layout_from_attention_indices(n) ||
                layout_from_pattern_string(n) || layout_from_attention_types(n) || layout_from_attention_period(n) ||
                layout_from_chunking(n) || layout_from_sliding_window(n);
    if (done) return;
    FieldReader& r = *r_;
    if (r.has("full_attention_interval")) {
        if (auto every = r.positive("full_attention_interval")) {
            for (std::size_t i = 0; i < n; ++i) {
                d_.roles.push_back((static_cast<std::int64_t>(i) + 1) % *every == 0 ? Role::full : Role::linear);
            }
            d_.layout_how = fmt::format(
                "full_attention_interval {}: every {}th layer is full attention, the "
                "others linear attention",
                *every, *every);
        }
        return;
    }
    d_.roles.assign(n, Role::full);
    if (r.has("mamba_d_ssm") || d_.model_type == "falcon_h1") {
        // Falcon-H1 runs attention and a Mamba-2 mixer side by side in every layer and states
        // no layout: every layer grows a KV cache and keeps a Mamba state.
        d_.state_beside_attention = true;
        d_.layout_how = "no layout key: every layer has attention, and a Mamba-2 mixer beside it (mamba_d_ssm)";
    }
}

bool Importer::layout_from_layer_types(std::size_t n) {
    FieldReader& r = *r_;
    const json* types = r.get("layer_types");
    if (!types) return false;
    if (!types->is_array() || types->size() != n) {
        problems_.push_back(fmt::format(
            "{} must list one type per layer ({}); found {}", r.path("layer_types"), n,
            types->is_array() ? fmt::format("{} entries", types->size()) : std::string(types->type_name())));
        return true;
    }
    static const std::pair<std::string_view, Role> kNames[] = {
        {"full_attention", Role::full},
        {"attention", Role::full},
        {"sliding_attention", Role::sliding},
        {"chunked_attention", Role::chunked},
        {"linear_attention", Role::linear},
        {"mamba", Role::mamba},
        {"conv", Role::conv},
        {"short_conv", Role::conv},
    };
    std::map<std::string, std::int64_t> counts;
    for (std::size_t i = 0; i < n; ++i) {
        const json& t = (*types)[i];
        std::string name = t.is_string() ? t.get<std::string>() : json_text(t);
        auto it = std::find_if(std::begin(kNames), std::end(kNames), [&](const auto& p) { return p.first == name; });
        if (it == std::end(kNames)) {
            problems_.push_back(
                fmt::format("{}[{}] is '{}'; kvcat reads full_attention, attention, "
                            "sliding_attention, chunked_attention, linear_attention, mamba and conv",
                            r.path("layer_types"), i, name));
            d_.roles.clear();
            return true;
        }
        d_.roles.push_back(it->second);
        ++counts[name];
    }
    std::vector<std::string> parts;
    for (const auto& [name, k] : counts) parts.push_back(fmt::format("{} {}", k, name));
    r.note_read(fmt::format("layer_types ({})", join(parts)));
    d_.layout_how = fmt::format("layer_types lists {}", join(parts));
    check_stated_intervals(n);
    // LFM2 states its attention layers twice: the list and full_attn_idxs must agree.
    if (const json* idxs = r.get("full_attn_idxs"); idxs && idxs->is_array()) {
        std::set<std::int64_t> at;
        for (const auto& v : *idxs) {
            if (v.is_number_integer()) at.insert(v.get<std::int64_t>());
        }
        for (std::size_t i = 0; i < n; ++i) {
            if ((d_.roles[i] == Role::full) != (at.count(static_cast<std::int64_t>(i)) > 0)) {
                problems_.push_back(fmt::format("{} and {} disagree about layer {}", r.path("full_attn_idxs"),
                                                r.path("layer_types"), i));
                break;
            }
        }
    }
    return true;
}

bool Importer::layout_from_attention_indices(std::size_t n) {
    // LFM2's first configs list only full_attn_idxs; transformers (Lfm2Config) then makes the
    // listed layers full attention and every other layer a short convolution.
    FieldReader& r = *r_;
    const json* idxs = r.get("full_attn_idxs");
    if (!idxs) return false;
    if (!idxs->is_array()) {
        problems_.push_back(
            fmt::format("{} is {}; expected a list of layer indices", r.path("full_attn_idxs"), json_text(*idxs)));
        return true;
    }
    std::set<std::int64_t> at;
    for (const auto& v : *idxs) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
            v.get<std::int64_t>() >= static_cast<std::int64_t>(n)) {
            problems_.push_back(fmt::format("{} holds {}; expected layer indices from 0 to {}",
                                            r.path("full_attn_idxs"), json_text(v), n - 1));
            return true;
        }
        at.insert(v.get<std::int64_t>());
    }
    for (std::size_t i = 0; i < n; ++i) {
        d_.roles.push_back(at.count(static_cast<std::int64_t>(i)) ? Role::full : Role::conv);
    }
    r.note_read(fmt::format("full_attn_idxs ({} of {} layers)", at.size(), n));
    d_.layout_how = fmt::format("full_attn_idxs lists {} attention layers; the other {} are convolutions", at.size(),
                                n - at.size());
    notes_.push_back(
        fmt::format("The config has full_attn_idxs but no layer_types, so the rule transformers applies "
                    "(Lfm2Config) was applied: the {} listed layers are full attention and the other {} "
                    "short convolutions.",
                    at.size(), n - at.size()));
    return true;
}

void Importer::check_stated_intervals(std::size_t n) {
    // A stated interval or pattern must say the same as the list.
    FieldReader& r = *r_;
    for (const char* key : {"full_attention_interval", "sliding_window_pattern", "_sliding_window_pattern"}) {
        if (d_.roles.empty() || !r.has(key)) continue;
        auto every = r.positive(key);
        if (!every) continue;
        if (std::string_view(key) != "full_attention_interval" && d_.count(Role::sliding) == 0) continue;
        for (std::size_t i = 0; i < n; ++i) {
            bool full_by_rule = (static_cast<std::int64_t>(i) + 1) % *every == 0;
            if (full_by_rule != (d_.roles[i] == Role::full)) {
                problems_.push_back(fmt::format("{} says every {}th layer is full attention, but {}[{}] disagrees",
                                                r.path(key), *every, r.path("layer_types"), i));
                break;
            }
        }
    }
}

bool Importer::layout_from_pattern_string(std::size_t n) {
    // Nemotron-H: one character per layer, M a Mamba-2 mixer, * attention, - an MLP, E a
    // mixture-of-experts MLP; the MLP layers keep nothing.
    FieldReader& r = *r_;
    const json* pattern = r.get("hybrid_override_pattern");
    if (!pattern) return false;
    if (!pattern->is_string() || pattern->get<std::string>().size() != n) {
        problems_.push_back(fmt::format("{} must have one character per layer ({}); found {}",
                                        r.path("hybrid_override_pattern"), n, json_text(*pattern)));
        return true;
    }
    std::string p = pattern->get<std::string>();
    for (std::size_t i = 0; i < n; ++i) {
        switch (p[i]) {
            case 'M':
                d_.roles.push_back(Role::mamba);
                break;
            case '*':
                d_.roles.push_back(Role::full);
                break;
            case '-':
            case 'E':
                d_.roles.push_back(Role::none);
                break;
            default:
                problems_.push_back(
                    fmt::format("{}[{}] is '{}'; kvcat reads M (Mamba-2), * (attention), - (MLP) "
                                "and E (mixture-of-experts MLP)",
                                r.path("hybrid_override_pattern"), i, p[i]));
                d_.roles.clear();
                return true;
        }
    }
    r.note_read(fmt::format("hybrid_override_pattern ({} attention, {} Mamba, {} MLP-only)", d_.count(Role::full),
                            d_.count(Role::mamba), d_.count(Role::none)));
    d_.layout_how = fmt::format(
        "hybrid_override_pattern {}: {} attention (*), {} Mamba-2 (M) and {} MLP-only (-, E) "
        "layers",
        p, d_.count(Role::full), d_.count(Role::mamba), d_.count(Role::none));
    return true;
}

bool Importer::layout_from_attention_types(std::size_t n) {
    // MiniMax: attn_type_list has 1 for a softmax-attention layer and 0 for lightning attention.
    FieldReader& r = *r_;
    const json* list = r.get("attn_type_list");
    if (!list) return false;
    if (!list->is_array() || list->size() != n) {
        problems_.push_back(fmt::format("{} must have one entry per layer ({}); found {}", r.path("attn_type_list"), n,
                                        json_text(*list).substr(0, 80)));
        return true;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const json& v = (*list)[i];
        if (!v.is_number_integer() || (v.get<std::int64_t>() != 0 && v.get<std::int64_t>() != 1)) {
            problems_.push_back(fmt::format("{}[{}] is {}; expected 1 (softmax attention) or 0 (lightning attention)",
                                            r.path("attn_type_list"), i, json_text(v)));
            d_.roles.clear();
            return true;
        }
        d_.roles.push_back(v.get<std::int64_t>() == 1 ? Role::full : Role::lightning);
    }
    r.note_read(
        fmt::format("attn_type_list ({} softmax, {} lightning)", d_.count(Role::full), d_.count(Role::lightning)));
    d_.layout_how = fmt::format("attn_type_list: {} softmax-attention layers (1) and {} lightning-attention layers (0)",
                                d_.count(Role::full), d_.count(Role::lightning));
    return true;
}

bool Importer::layout_from_attention_period(std::size_t n) {
    FieldReader& r = *r_;
    if (!(r.has("attn_layer_period") || r.has("attn_layer_offset") || r.has("attn_layer_indices"))) return false;
    std::int64_t layers = *d_.layers;
    if (r.has("attn_layer_indices")) {
        const json* list = r.get("attn_layer_indices");
        std::set<std::int64_t> at;
        bool ok = list->is_array();
        for (std::size_t i = 0; ok && i < list->size(); ++i) {
            const json& v = (*list)[i];
            ok = v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() < layers;
            if (ok) at.insert(v.get<std::int64_t>());
        }
        if (!ok) {
            problems_.push_back(fmt::format("{} must be a list of layer indices from 0 to {}",
                                            r.path("attn_layer_indices"), layers - 1));
            return true;
        }
        for (std::size_t i = 0; i < n; ++i) {
            d_.roles.push_back(at.count(static_cast<std::int64_t>(i)) ? Role::full : Role::mamba);
        }
        r.note_read(fmt::format("attn_layer_indices ({} layers)", at.size()));
        d_.layout_how = "attn_layer_indices lists the attention layers; the others are Mamba layers";
        return true;
    }
    auto period = r.positive("attn_layer_period");
    auto offset = r.index("attn_layer_offset");
    if (!r.has("attn_layer_period")) missing_.push_back(r.path("attn_layer_period"));
    if (!r.has("attn_layer_offset")) missing_.push_back(r.path("attn_layer_offset"));
    if (period && offset && *offset >= *period) {
        problems_.push_back(fmt::format("{} {} is not below attn_layer_period {}: no layer would be attention",
                                        r.path("attn_layer_offset"), *offset, *period));
    } else if (period && offset) {
        for (std::size_t i = 0; i < n; ++i) {
            d_.roles.push_back(static_cast<std::int64_t>(i) % *period == *offset ? Role::full : Role::mamba);
        }
        d_.layout_how = fmt::format(
            "attn_layer_period {} and attn_layer_offset {}: layer i is attention "
            "when i mod {} is {}, the others are Mamba layers",
            *period, *offset, *period, *offset);
    }
    return true;
}

bool Importer::layout_from_chunking(std::size_t n) {
    // Llama 4: the layers with RoPE attend within chunks of attention_chunk_size tokens; the
    // NoPE layers (no_rope_layers[i] == 0) attend over everything.
    FieldReader& r = *r_;
    if (!r.has("attention_chunk_size")) return false;
    const json* list = r.get("no_rope_layers");
    if (list && list->is_array() && !list->empty()) {
        if (list->size() != n) {
            problems_.push_back(fmt::format("{} must have one entry per layer ({}); found {}", r.path("no_rope_layers"),
                                            n, list->size()));
            return true;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const json& v = (*list)[i];
            if (!v.is_number_integer() || (v.get<std::int64_t>() != 0 && v.get<std::int64_t>() != 1)) {
                problems_.push_back(fmt::format("{}[{}] is {}; expected 1 (RoPE, chunked) or 0 (NoPE, global)",
                                                r.path("no_rope_layers"), i, json_text(v)));
                d_.roles.clear();
                return true;
            }
            d_.roles.push_back(v.get<std::int64_t>() == 1 ? Role::chunked : Role::full);
        }
        r.note_read(fmt::format("no_rope_layers ({} NoPE)", d_.count(Role::full)));
        d_.layout_how = fmt::format(
            "attention_chunk_size with no_rope_layers: the {} NoPE layers attend over the "
            "whole context, the {} RoPE layers within chunks",
            d_.count(Role::full), d_.count(Role::chunked));
        return true;
    }
    bool llama4 = d_.model_type == "llama4" || d_.model_type == "llama4_text";
    if (!llama4) {
        problems_.push_back(
            fmt::format("{} is set, but no_rope_layers does not say which layers are chunked, and "
                        "model_type '{}' has no rule kvcat knows; kvcat does not guess",
                        r.path("attention_chunk_size"), d_.model_type));
        return true;
    }
    std::int64_t every = 4;
    if (r.has("no_rope_layer_interval")) {
        auto stated = r.positive("no_rope_layer_interval");
        if (!stated) return true;
        every = *stated;
    }
    for (std::size_t i = 0; i < n; ++i) {
        d_.roles.push_back((static_cast<std::int64_t>(i) + 1) % every == 0 ? Role::full : Role::chunked);
    }
    d_.layout_how = fmt::format(
        "attention_chunk_size with no no_rope_layers list: {} layer is NoPE and global, the "
        "others chunked",
        ordinal_every(every));
    notes_.push_back(fmt::format(
        "The config does not list no_rope_layers, so the rule transformers applies for "
        "model_type {} was applied: {} layer (no_rope_layer_interval {}{}) is a NoPE layer "
        "with global attention, the others attend within chunks.",
        d_.model_type, ordinal_every(every), every, r.has("no_rope_layer_interval") ? "" : ", its default"));
    return true;
}

bool Importer::layout_from_sliding_window(std::size_t n) {
    FieldReader& r = *r_;
    if (!r.has("sliding_window")) return false;
    const json* use = r.get("use_sliding_window");
    if (use && use->is_boolean() && !use->get<bool>()) {
        d_.roles.assign(n, Role::full);
        notes_.push_back(
            fmt::format("sliding_window {} is not used: use_sliding_window is false, so every layer "
                        "is full attention.",
                        json_text(*r.get("sliding_window"))));
        return true;
    }
    auto slide_where = [&](auto&& is_sliding) {
        for (std::size_t i = 0; i < n; ++i)
            d_.roles.push_back(is_sliding(static_cast<std::int64_t>(i)) ? Role::sliding : Role::full);
    };
    std::string pattern_key = r.has("sliding_window_pattern")    ? "sliding_window_pattern"
                              : r.has("_sliding_window_pattern") ? "_sliding_window_pattern"
                                                                 : "";
    if (!pattern_key.empty()) {
        auto every = r.positive(pattern_key);
        if (!every) return true;
        if (*every == 1) {
            problems_.push_back(
                fmt::format("{} is 1, which makes every layer global, yet {} is set: the window "
                            "would be silently dropped. For a model whose every layer slides (as "
                            "Mistral-7B-v0.1), leave the pattern out",
                            r.path(pattern_key), r.path("sliding_window")));
            return true;
        }
        slide_where([&](std::int64_t i) { return (i + 1) % *every != 0; });
        d_.layout_how = fmt::format(
            "{} {}: every {}th layer is global (full attention), the others use the "
            "sliding window",
            pattern_key, *every, *every);
        return true;
    }
    if (use && use->is_boolean() && use->get<bool>() && r.has("max_window_layers")) {
        // Qwen2's rule: the layers from max_window_layers on slide, the ones below it are global.
        auto below = r.positive("max_window_layers");
        if (!below) return true;
        slide_where([&](std::int64_t i) { return i >= *below; });
        d_.layout_how =
            fmt::format("use_sliding_window with max_window_layers {}: layers from index {} on slide", *below, *below);
        return true;
    }
    // The layouts transformers derives from model_type when a raw config states no pattern.
    const std::string& mt = d_.model_type;
    if (mt == "gemma2") {
        slide_where([](std::int64_t i) { return i % 2 == 0; });
        d_.layout_how = "model_type gemma2: layers alternate, sliding at even indices and global at odd ones";
    } else if (mt == "gemma3" || mt == "gemma3_text") {
        slide_where([](std::int64_t i) { return (i + 1) % 6 != 0; });
        d_.layout_how = "model_type gemma3: every 6th layer is global, the others slide";
    } else if (mt == "cohere2") {
        slide_where([](std::int64_t i) { return (i + 1) % 4 != 0; });
        d_.layout_how = "model_type cohere2: every 4th layer is global, the others slide";
    } else if (mt == "mistral" || mt == "mixtral" || mt == "starcoder2") {
        d_.roles.assign(n, Role::sliding);
        d_.layout_how = fmt::format("model_type {}: every layer attends over the sliding window", mt);
    } else {
        problems_.push_back(
            fmt::format("{} is set, but neither sliding_window_pattern nor layer_types says "
                        "which layers use it; kvcat does not guess (every layer, every other "
                        "layer, ...)",
                        r.path("sliding_window")));
        return true;
    }
    notes_.push_back(
        fmt::format("The config states sliding_window but no layer_types or pattern, so the rule "
                    "transformers applies was applied: {}.",
                    d_.layout_how));
    return true;
}

}  // namespace kvcat::import_stages
