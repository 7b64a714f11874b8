// import-config: the fixed-state layers (Gated DeltaNet, Mamba-1, Mamba-2, short convolution,
// lightning attention) and the dtype of their state.
#include "import/import_config_stages.h"

#include "vocab/state_dtype.h"

namespace kvcat::import_stages {

std::optional<std::string> Importer::state_dtype(bool conv_only) {
    FieldReader& r = *r_;
    if (!r.has("mamba_ssm_dtype") && conv_only) {
        // A short convolution has no SSM, so a missing mamba_ssm_dtype says nothing about it.
        notes_.push_back(
            "The config states no dtype for the convolution state; it is taken as float32, the "
            "larger reading (llama.cpp keeps conv state in f32, vLLM in the model's dtype).");
        return std::string("float32");
    }
    if (!r.has("mamba_ssm_dtype")) {
        notes_.push_back(
            "The config has no mamba_ssm_dtype; the fixed state is taken as float32, the larger "
            "reading (llama.cpp keeps it in f32; vLLM keeps the conv state in the model's dtype "
            "and the "
            "recurrent state in mamba_ssm_cache_dtype).");
        return std::string("float32");
    }
    auto configured = r.text("mamba_ssm_dtype");
    if (!configured) return std::nullopt;
    auto dtype = kvcat::state_dtype_from(*configured);
    if (!dtype) {
        problems_.push_back(
            fmt::format("{} is '{}'; kvcat knows {}", r.path("mamba_ssm_dtype"), *configured, state_dtypes_known()));
        return std::nullopt;
    }
    notes_.push_back(fmt::format("The state dtype is the config's mamba_ssm_dtype, {}.", *configured));
    return dtype;
}

void Importer::read_state() {
    std::int64_t n_linear = d_.count(Role::linear), n_mamba = d_.count(Role::mamba), n_conv = d_.count(Role::conv),
                 n_lightning = d_.count(Role::lightning), n_kda = d_.count(Role::kda);
    if (d_.state_beside_attention) n_mamba = d_.count(Role::full);
    int kinds = (n_linear > 0) + (n_mamba > 0) + (n_conv > 0) + (n_lightning > 0) + (n_kda > 0);
    if (kinds > 1) {
        problems_.push_back(
            "a config with more than one kind of fixed-state layer (linear attention, Mamba, "
            "convolution) is not supported");
        return;
    }
    if (n_kda) read_kda(n_kda);   // beside full attention that may be MLA (Kimi Linear)
    if (d_.mla && kinds) return;  // check_design refuses any other state beside MLA
    if (n_linear) read_gated_deltanet(n_linear);
    if (n_mamba) read_mamba(n_mamba);
    if (n_conv) read_short_conv(n_conv);
    if (n_lightning) read_lightning(n_lightning);
    if (d_.state && d_.state_beside_attention) d_.state->beside_attention = true;
}

void Importer::read_gated_deltanet(std::int64_t n_layers) {
    FieldReader& r = *r_;
    const char* keys[] = {"linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                          "linear_value_head_dim", "linear_conv_kernel_dim"};
    std::vector<std::string> lacking;
    std::int64_t v[5] = {0, 0, 0, 0, 0};
    bool ok = true;
    for (int k = 0; k < 5; ++k) {
        if (!r.has(keys[k])) {
            lacking.push_back(r.path(keys[k]));
            ok = false;
        } else if (auto x = r.positive(keys[k])) {
            v[k] = *x;
        } else {
            ok = false;
        }
    }
    if (!lacking.empty()) {
        problems_.push_back(
            fmt::format("the {} linear-attention layers need linear_num_key_heads, "
                        "linear_num_value_heads, linear_key_head_dim, linear_value_head_dim and "
                        "linear_conv_kernel_dim; the config lacks {}",
                        n_layers, join(lacking)));
    }
    auto dtype = state_dtype();
    if (!ok || !dtype) return;
    StateDraft s;
    s.kind = StateKind::gated_deltanet;
    s.layers = n_layers;
    s.key_heads = v[0];
    s.value_heads = v[1];
    s.key_head_dim = v[2];
    s.value_head_dim = v[3];
    s.conv_kernel = v[4];
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(
        fmt::format("The {} linear-attention layers are taken as Gated DeltaNet (the linear_* fields); "
                    "each keeps a fixed state per sequence that does not grow with context.",
                    n_layers));
}

void Importer::read_mamba(std::int64_t n_layers) {
    // Mamba fields come in several spellings: Jamba, Bamba, Granite-4.0-H and Falcon-H1 write
    // mamba_*, Nemotron-H writes mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size,
    // conv_kernel and expand.
    FieldReader& r = *r_;
    std::string heads_key = spelling(r, {"mamba_n_heads", "mamba_num_heads"});
    std::string head_dim_key = spelling(r, {"mamba_d_head", "mamba_head_dim"});
    std::string groups_key = spelling(r, {"mamba_n_groups", "n_groups"});
    std::string state_key = spelling(r, {"mamba_d_state", "ssm_state_size"});
    std::string conv_key = spelling(r, {"mamba_d_conv", "conv_kernel"});
    std::string expand_key = spelling(r, {"mamba_expand", "expand"});
    std::string where = d_.state_beside_attention ? "Mamba mixers" : "Mamba layers";

    if (!r.has(heads_key) && !r.has(head_dim_key) && !r.has(groups_key)) {
        // Mamba-1 (Jamba): no heads; the state spans d_inner = mamba_expand x hidden_size channels.
        std::vector<std::string> lacking;
        for (const std::string& k : {state_key, conv_key, expand_key, std::string("hidden_size")}) {
            if (!r.has(k)) lacking.push_back(r.path(k));
        }
        if (!lacking.empty()) {
            problems_.push_back(
                fmt::format("the {} {} state no heads, so they are read as Mamba-1, which needs "
                            "{}, {}, {} and hidden_size; the config lacks {} (a Mamba-2 layer "
                            "states mamba_n_heads, mamba_d_head and mamba_n_groups)",
                            n_layers, where, state_key, conv_key, expand_key, join(lacking)));
            return;
        }
        auto d_state = r.positive(state_key);
        auto d_conv = r.positive(conv_key);
        auto expand = r.positive(expand_key);
        auto hidden = r.positive("hidden_size");
        auto dtype = state_dtype();
        if (!d_state || !d_conv || !expand || !hidden || !dtype) return;
        StateDraft s;
        s.kind = StateKind::mamba1;
        s.layers = n_layers;
        s.inner_dim = checked_mul(*expand, *hidden);
        s.state_dim = *d_state;
        s.conv_kernel = *d_conv;
        s.state_dtype = *dtype;
        d_.state = s;
        notes_.push_back(
            fmt::format("The {} {} state no heads and are taken as Mamba-1: d_inner = {} ({}) x {} "
                        "(hidden_size) = {} channels, each with a conv state of {} - 1 positions and "
                        "an SSM state of {} ({}).",
                        n_layers, where, *expand, expand_key, *hidden, s.inner_dim, *d_conv, *d_state, state_key));
        return;
    }

    // Mamba-2: B and C are the keys and queries (n_groups heads of d_state), x the values
    // (n_heads of d_head).
    const std::string keys[] = {heads_key, head_dim_key, groups_key, state_key, conv_key};
    std::vector<std::string> lacking;
    std::int64_t v[5] = {0, 0, 0, 0, 0};
    bool ok = true;
    for (int k = 0; k < 5; ++k) {
        if (!r.has(keys[k])) {
            lacking.push_back(r.path(keys[k]));
            ok = false;
            continue;
        }
        const json* raw = r.get(keys[k]);
        if (k == 1 && raw->is_string() && raw->get<std::string>() == "auto") continue;  // derived below
        if (auto x = r.positive(keys[k])) {
            v[k] = *x;
        } else {
            ok = false;
        }
    }
    if (ok && v[1] == 0) {
        // mamba_d_head "auto": the inner width mamba_expand x hidden_size split over the heads.
        auto expand = r.positive(expand_key);
        auto hidden = r.positive("hidden_size");
        if (!expand || !hidden) {
            lacking.push_back(r.path(expand ? "hidden_size" : expand_key) + " (mamba_d_head is auto)");
            ok = false;
        } else if ((*expand * *hidden) % v[0] != 0) {
            problems_.push_back(
                fmt::format("mamba_d_head is auto, but {} {} x hidden_size {} does not divide by "
                            "{} {}",
                            expand_key, *expand, *hidden, heads_key, v[0]));
            ok = false;
        } else {
            v[1] = *expand * *hidden / v[0];
            notes_.push_back(
                fmt::format("mamba_d_head is auto, so it is derived: {} ({}) x {} (hidden_size) / {} "
                            "({}) = {}.",
                            *expand, expand_key, *hidden, v[0], heads_key, v[1]));
        }
    }
    if (!lacking.empty()) {
        problems_.push_back(
            fmt::format("the {} {} are read as Mamba-2, and the config lacks {} (a Mamba-2 state "
                        "needs heads, head width, groups, state size and conv width)",
                        n_layers, where, join(lacking)));
    }
    if (ok && r.has("mamba_d_ssm")) {
        // Falcon-H1 states the inner width; the conv state spans it, so it must be heads x head
        // width.
        if (auto d_ssm = r.positive("mamba_d_ssm"); d_ssm && *d_ssm != checked_mul(v[0], v[1])) {
            problems_.push_back(
                fmt::format("{} {} is not {} {} x {} {}: kvcat's Mamba-2 conv state spans heads x "
                            "head width, so it would be wrong for this config",
                            r.path("mamba_d_ssm"), *d_ssm, heads_key, v[0], head_dim_key, v[1]));
            ok = false;
        }
    }
    auto dtype = state_dtype();
    if (!ok || !dtype) return;
    StateDraft s;
    s.kind = StateKind::mamba2;
    s.layers = n_layers;
    s.key_heads = v[2];
    s.key_head_dim = v[3];
    s.value_heads = v[0];
    s.value_head_dim = v[1];
    s.conv_kernel = v[4];
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(
        fmt::format("The {} {} are taken as Mamba-2 and written as linear attention: key heads are "
                    "{} with head width {}, value heads are {} with head width {}, so the conv and SSM "
                    "state sizes come out as Mamba-2 keeps them.",
                    n_layers, where, groups_key, state_key, heads_key, head_dim_key));
}

void Importer::read_short_conv(std::int64_t n_layers) {
    // LFM2: a gated short convolution over hidden_size channels keeps the last
    // conv_L_cache - 1 inputs; it has no recurrent state.
    FieldReader& r = *r_;
    std::vector<std::string> lacking;
    for (const char* k : {"conv_L_cache", "hidden_size"}) {
        if (!r.has(k)) lacking.push_back(r.path(k));
    }
    if (!lacking.empty()) {
        problems_.push_back(
            fmt::format("the {} convolution layers need conv_L_cache and hidden_size; the config "
                        "lacks {}",
                        n_layers, join(lacking)));
        return;
    }
    auto kernel = r.positive("conv_L_cache");
    auto hidden = r.positive("hidden_size");
    auto dtype = state_dtype(true);
    if (!kernel || !hidden || !dtype) return;
    // LFM2's configs also state the convolution's width as conv_dim; the layer convolves
    // hidden_size channels, so a different figure is a config kvcat cannot read right.
    if (r.has("conv_dim")) {
        auto conv_dim = r.positive("conv_dim");
        if (!conv_dim) return;
        if (*conv_dim != *hidden) {
            problems_.push_back(
                fmt::format("{} is {} but hidden_size is {}; the conv state's width would be "
                            "wrong with either",
                            r.path("conv_dim"), *conv_dim, *hidden));
            return;
        }
    }
    StateDraft s;
    s.kind = StateKind::short_conv;
    s.layers = n_layers;
    s.inner_dim = *hidden;
    s.conv_kernel = *kernel;
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(
        fmt::format("The {} conv layers are gated short convolutions: each keeps the last {} - 1 "
                    "inputs over {} (hidden_size) channels and no recurrent state.",
                    n_layers, *kernel, *hidden));
}

void Importer::read_lightning(std::int64_t n_layers) {
    // Lightning attention keeps, per head, a head_dim x head_dim state and no convolution;
    // it runs on the query heads (num_attention_heads) at head_dim.
    if (!d_.heads || !d_.head_dim) return;  // read_size and read_heads name what is missing
    auto dtype = state_dtype();
    if (!dtype) return;
    StateDraft s;
    s.kind = StateKind::lightning;
    s.layers = n_layers;
    s.value_heads = *d_.heads;
    s.value_head_dim = *d_.head_dim;
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(
        fmt::format("The {} lightning-attention layers each keep a state of {} heads (num_attention_heads) "
                    "x {} x {} (head_dim) elements, as vLLM's linear-attention state has it, and no conv "
                    "state; it does not grow with context.",
                    n_layers, *d_.heads, *d_.head_dim, *d_.head_dim));
}

}  // namespace kvcat::import_stages
