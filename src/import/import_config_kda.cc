// import-config: Kimi Linear's layout (Kimi-Linear, Kimi-K3), where linear_attn_config lists
// which layers are Kimi Delta Attention and which are full attention, and gives the KDA
// layers' heads, head width and short-convolution kernel.
//
// The layer lists count from 1: vLLM's KimiLinearConfig asks `(layer_idx + 1) in
// kda_layers`. The full-attention layers are MLA when the config states kv_lora_rank.
#include "import/import_config_stages.h"

namespace kvcat::import_stages {

namespace {

/// The 1-based layer numbers of `list`, or a problem.
std::optional<std::set<std::int64_t>> layer_numbers(const json& config, const char* key, std::size_t n,
                                                    const std::string& path, std::vector<std::string>& problems) {
    auto it = config.find(key);
    if (it == config.end() || !it->is_array()) {
        problems.push_back(
            fmt::format("{}.{} is missing; expected a list of layer numbers from 1 to {}", path, key, n));
        return std::nullopt;
    }
    std::set<std::int64_t> out;
    for (const auto& v : *it) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
            v.get<std::int64_t>() > static_cast<std::int64_t>(n)) {
            problems.push_back(
                fmt::format("{}.{} holds {}; expected layer numbers from 1 to {} (the list counts "
                            "from 1, as vLLM's KimiLinearConfig reads it)",
                            path, key, json_text(v), n));
            return std::nullopt;
        }
        out.insert(v.get<std::int64_t>());
    }
    return out;
}

}  // namespace

bool Importer::layout_from_linear_attn_config(std::size_t n) {
    FieldReader& r = *r_;
    const json* cfg = r.get("linear_attn_config");
    if (!cfg) return false;
    std::string path = r.path("linear_attn_config");
    if (!cfg->is_object()) {
        problems_.push_back(fmt::format("{} is {}; expected an object", path, json_text(*cfg)));
        return true;
    }
    auto full = layer_numbers(*cfg, "full_attn_layers", n, path, problems_);
    auto kda = layer_numbers(*cfg, "kda_layers", n, path, problems_);
    if (!full || !kda) return true;
    for (std::size_t i = 1; i <= n; ++i) {
        auto k = static_cast<std::int64_t>(i);
        bool is_full = full->count(k) > 0, is_kda = kda->count(k) > 0;
        if (is_full == is_kda) {
            problems_.push_back(
                fmt::format("{}: layer {} (counting from 1) is {} full_attn_layers and kda_layers; "
                            "each layer must be in exactly one",
                            path, k, is_full ? "in both" : "in neither"));
            d_.roles.clear();
            return true;
        }
        d_.roles.push_back(is_full ? Role::full : Role::kda);
    }
    r.note_read(fmt::format("linear_attn_config ({} full attention, {} KDA)", full->size(), kda->size()));
    d_.layout_how = fmt::format(
        "linear_attn_config lists {} full-attention layers (full_attn_layers) and {} Kimi Delta Attention "
        "layers (kda_layers), counting from 1",
        full->size(), kda->size());
    return true;
}

void Importer::read_kda(std::int64_t n_layers) {
    FieldReader& r = *r_;
    const json& cfg = *r.get("linear_attn_config");
    std::string path = r.path("linear_attn_config");
    std::int64_t v[3] = {0, 0, 0};
    const char* keys[] = {"num_heads", "head_dim", "short_conv_kernel_size"};
    for (int k = 0; k < 3; ++k) {
        auto it = cfg.find(keys[k]);
        if (it == cfg.end() || !it->is_number_integer() || it->get<std::int64_t>() <= 0) {
            problems_.push_back(
                fmt::format("{}.{} is {}; the {} KDA layers need num_heads, head_dim and "
                            "short_conv_kernel_size as whole numbers greater than zero",
                            path, keys[k], it == cfg.end() ? std::string("missing") : json_text(*it), n_layers));
            return;
        }
        v[k] = it->get<std::int64_t>();
    }
    // Settings of linear_attn_config that would change the state's shape, which kvcat does not read.
    for (const auto& [key, value] : cfg.items()) {
        static const std::set<std::string> kKnown = {
            "full_attn_layers",       "kda_layers",       "num_heads",         "head_dim",
            "short_conv_kernel_size", "gate_lower_bound", "use_full_rank_gate"};
        if (!kKnown.count(key) && !value.is_null()) {
            problems_.push_back(
                fmt::format("{}.{} is a setting of the KDA layers kvcat does not know; rather than a "
                            "state that may be wrong, kvcat writes no record",
                            path, key));
            return;
        }
    }
    r.note_read(
        fmt::format("linear_attn_config num_heads {}, head_dim {}, short_conv_kernel_size {}", v[0], v[1], v[2]));
    auto dtype = state_dtype();
    if (!dtype) return;
    StateDraft s;
    s.kind = StateKind::kda;
    s.layers = n_layers;
    s.key_heads = s.value_heads = v[0];
    s.key_head_dim = s.value_head_dim = v[1];
    s.conv_kernel = v[2];
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(
        fmt::format("The {} Kimi Delta Attention layers each keep a fixed state per sequence: a short convolution "
                    "(kernel {}) over q, k and v, {} heads x {} channels each, and a {} x {} x {} recurrent state, as "
                    "vLLM's kda_state_shape lays it out (gate_lower_bound and use_full_rank_gate change values, not "
                    "shapes). vLLM keeps the recurrent state in float32 and the conv state in the model's dtype "
                    "(kda_state_dtype).",
                    n_layers, v[2], v[0], v[1], v[0], v[1], v[1]));
}

}  // namespace kvcat::import_stages
