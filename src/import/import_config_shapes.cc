// import-config: layer types with heads and widths of their own, and K and V of different
// widths.
//
// MiMo-V2-Flash lists each layer's type in hybrid_layer_pattern (1 sliding-window, 0 full
// attention) and gives the sliding layers their own heads and widths (swa_num_key_value_heads,
// swa_head_dim, swa_v_head_dim); both types cache K of head_dim and V of v_head_dim elements per
// head. Gemma 4 gives its full-attention layers their own head width (global_head_dim) and, when
// attention_k_eq_v is set, their own KV heads (num_global_key_value_heads), as transformers'
// Gemma 4 attention builds them; its sliding layers keep num_key_value_heads of head_dim.
#include "import/import_config_stages.h"

namespace kvcat::import_stages {

bool Importer::layout_from_hybrid_layer_pattern(std::size_t n) {
    FieldReader& r = *r_;
    const json* list = r.get("hybrid_layer_pattern");
    if (!list) return false;
    if (!list->is_array() || list->size() != n) {
        problems_.push_back(fmt::format("{} must have one entry per layer ({}); found {}",
                                        r.path("hybrid_layer_pattern"), n, json_text(*list).substr(0, 80)));
        return true;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const json& v = (*list)[i];
        if (!v.is_number_integer() || (v.get<std::int64_t>() != 0 && v.get<std::int64_t>() != 1)) {
            problems_.push_back(fmt::format("{}[{}] is {}; expected 1 (sliding-window attention) or 0 (full attention)",
                                            r.path("hybrid_layer_pattern"), i, json_text(v)));
            d_.roles.clear();
            return true;
        }
        d_.roles.push_back(v.get<std::int64_t>() == 1 ? Role::sliding : Role::full);
    }
    r.note_read(
        fmt::format("hybrid_layer_pattern ({} full, {} sliding)", d_.count(Role::full), d_.count(Role::sliding)));
    d_.layout_how = fmt::format("hybrid_layer_pattern: {} full-attention layers (0) and {} sliding-window layers (1)",
                                d_.count(Role::full), d_.count(Role::sliding));
    // MiMo-V2-Flash also states attention_chunk_size, equal to its window; a different value
    // would leave the sliding layers' bound in doubt.
    if (auto chunk = r.positive("attention_chunk_size")) {
        auto window = r.positive("sliding_window", false);
        if (window && *chunk != *window) {
            problems_.push_back(
                fmt::format("{} {} disagrees with {} {}: kvcat does not know which bounds the "
                            "sliding layers",
                            r.path("attention_chunk_size"), *chunk, r.path("sliding_window"), *window));
        }
    }
    return true;
}

void Importer::read_layer_shapes() {
    FieldReader& r = *r_;
    if (d_.mla || !d_.head_dim) return;
    // V narrower or wider than K in the layers the model-wide fields describe.
    if (auto v = r.positive("v_head_dim"); v && *v != *d_.head_dim) d_.v_head_dim = v;
    bool gemma4 = r.has("global_head_dim") || r.has("num_global_key_value_heads") || r.has("attention_k_eq_v");
    bool swa = r.has("swa_num_key_value_heads") || r.has("swa_head_dim") || r.has("swa_v_head_dim");
    if (gemma4 && swa) {
        problems_.push_back(
            "the config states both Gemma 4's global_* and MiMo's swa_* layer shapes; kvcat does not "
            "know which layers each describes");
        return;
    }
    if (swa) {
        if (d_.count(Role::sliding) == 0) {
            problems_.push_back(
                fmt::format("{} and its kin describe sliding-window layers, but no layer slides",
                            r.path(spelling(r, {"swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim"}))));
            return;
        }
        std::int64_t heads = r.positive("swa_num_key_value_heads").value_or(d_.kv_heads.value_or(0));
        std::int64_t k = r.positive("swa_head_dim").value_or(*d_.head_dim);
        std::int64_t v = r.positive("swa_v_head_dim").value_or(d_.v_head_dim.value_or(k));
        if (r.has("swa_num_attention_heads")) r.positive("swa_num_attention_heads");
        if (heads != d_.kv_heads.value_or(0)) d_.sliding_kv_heads = heads;
        if (k != *d_.head_dim) d_.sliding_head_dim = k;
        if (v != k) d_.sliding_v_head_dim = v;
        notes_.push_back(fmt::format(
            "The {} sliding-window layers have their own shape (swa_num_key_value_heads, swa_head_dim, "
            "swa_v_head_dim): {} KV heads with K of {} and V of {} elements per head; the {} full-attention layers "
            "have {} KV heads with K of {} and V of {}.",
            d_.count(Role::sliding), heads, k, v, d_.count(Role::full), d_.kv_heads.value_or(0), *d_.head_dim,
            d_.v_head_dim.value_or(*d_.head_dim)));
        return;
    }
    if (!gemma4) {
        if (d_.v_head_dim) {
            notes_.push_back(
                fmt::format("K and V differ in width: each KV head caches K of head_dim {} and V of "
                            "v_head_dim {} elements.",
                            *d_.head_dim, *d_.v_head_dim));
        }
        return;
    }
    // Gemma 4: the model-wide fields become the full layers'; the sliding layers keep the
    // config's num_key_value_heads and head_dim.
    std::int64_t local_heads = d_.kv_heads.value_or(0), local_dim = *d_.head_dim;
    std::int64_t global_dim = r.positive("global_head_dim").value_or(local_dim);
    const json* k_eq_v = r.get("attention_k_eq_v");
    bool shared_kv = k_eq_v && k_eq_v->is_boolean() && k_eq_v->get<bool>();
    if (k_eq_v) r.note_read(fmt::format("attention_k_eq_v {}", shared_kv ? "true" : "false"));
    std::int64_t global_heads = local_heads;
    if (shared_kv && r.has("num_global_key_value_heads")) {
        if (auto g = r.positive("num_global_key_value_heads")) global_heads = *g;
    }
    if (d_.count(Role::full) == 0 || (global_heads == local_heads && global_dim == local_dim)) return;
    if (d_.count(Role::sliding) == 0 && d_.count(Role::chunked) == 0) {
        d_.kv_heads = global_heads;
        d_.head_dim = global_dim;
    } else {
        d_.kv_heads = global_heads;
        d_.head_dim = global_dim;
        if (local_heads != global_heads) d_.sliding_kv_heads = local_heads;
        if (local_dim != global_dim) d_.sliding_head_dim = local_dim;
    }
    notes_.push_back(fmt::format(
        "Gemma 4's layer types have their own shapes, as transformers' Gemma 4 attention builds them: the {} "
        "full-attention layers have {} KV heads ({}) of global_head_dim {}, the {} sliding layers {} KV heads "
        "(num_key_value_heads) of head_dim {}.{}",
        d_.count(Role::full), global_heads,
        shared_kv ? "num_global_key_value_heads, as attention_k_eq_v is set" : "num_key_value_heads", global_dim,
        d_.count(Role::sliding), local_heads, local_dim,
        shared_kv ? " attention_k_eq_v makes a full layer's V from its K projection, but V is normalised apart "
                    "and K is rotated, so the cache keeps both, as vLLM's attention layer stores them."
                  : ""));
}

}  // namespace kvcat::import_stages
