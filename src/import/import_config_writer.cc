// import-config: the one writer, from a finished Draft to the model record's YAML.
#include "import/import_config_stages.h"

#include "model/kv_math.h"

namespace kvcat::import_stages {

void Importer::write() {
    const FieldReader& r = *r_;
    std::int64_t layers = *d_.layers;
    std::int64_t n_full = d_.count(Role::full), n_sliding = d_.count(Role::sliding),
                 n_chunked = d_.count(Role::chunked), n_none = d_.count(Role::none);
    std::int64_t n_bounded = n_sliding + n_chunked;
    KvLayout kv = kv_layout(d_.roles);
    if (n_full == 0) kv = KvLayout{};  // every caching layer is bounded

    // Layers that state their own KV heads (block_configs) and differ become kv_groups.
    std::vector<KvGroup> groups;
    if (!d_.kv_heads && !d_.layer_kv_heads.empty()) {
        for (std::size_t i = 0; i < d_.roles.size(); ++i) {
            if (d_.roles[i] != Role::full) continue;
            std::int64_t heads = d_.layer_kv_heads[i];
            auto g = std::find_if(groups.begin(), groups.end(), [&](const KvGroup& x) { return x.kv_heads == heads; });
            if (g == groups.end()) {
                groups.push_back(KvGroup{1, heads, *d_.head_dim});
            } else {
                ++g->layers;
            }
        }
    }
    std::int64_t most_kv_heads = d_.kv_heads.value_or(0);
    for (const auto& g : groups) most_kv_heads = std::max(most_kv_heads, g.kv_heads);
    AttentionVariant variant = d_.mla                       ? AttentionVariant::mla
                               : d_.state                   ? AttentionVariant::hybrid
                               : n_bounded                  ? AttentionVariant::sliding
                               : most_kv_heads == *d_.heads ? AttentionVariant::mha
                               : most_kv_heads == 1         ? AttentionVariant::mqa
                                                            : AttentionVariant::gqa;
    if (!d_.layout_how.empty() && (n_bounded || d_.state || n_none || d_.shared)) {
        notes_.insert(notes_.begin(), fmt::format("Layer layout: {}; {} of {} grow a KV cache.", d_.layout_how,
                                                  plural(n_full, "layer", "layers"), layers));
    }
    if (n_sliding) {
        notes_.push_back(
            fmt::format("The {} sliding-window layers keep at most {} tokens each and are counted in "
                        "sliding_window, not in kv_layers.",
                        n_sliding, group_thousands(*d_.window)));
    }
    if (n_chunked) {
        notes_.push_back(
            fmt::format("The {} chunked layers attend within chunks of {} tokens, so each holds at most "
                        "one chunk (vLLM sizes them like a sliding window of the chunk); they are "
                        "counted in sliding_window with kind chunked, not in kv_layers.",
                        n_chunked, group_thousands(*d_.window)));
    }
    if (n_full == 0 && n_bounded) {
        notes_.push_back(
            fmt::format("No layer grows without bound: at any context the cache holds at most {} "
                        "tokens per layer.",
                        group_thousands(*d_.window)));
    }
    if (d_.mla) {
        notes_.push_back(
            fmt::format("{} caches one latent of kv_lora_rank {} plus qk_rope_head_dim {}, {} elements per "
                        "token.",
                        n_full == layers ? fmt::format("Each of the {} layers", layers)
                                         : fmt::format("Each of the {} attention layers", n_full),
                        *d_.lora_rank, *d_.rope_dim, *d_.lora_rank + *d_.rope_dim));
    }
    notes_.push_back(opt_.gguf
                         ? "total_params_b and active_params_b were given on the command line."
                         : "total_params_b and active_params_b were given on the command line: a config.json does not "
                           "state them.");
    std::string source = opt_.source && !opt_.source->empty() ? *opt_.source : opt_.config_file;
    if (opt_.gguf) {
        // The fields above are the GGUF keys under their config.json names; say which file and keys.
        for (auto it = opt_.gguf_notes.rbegin(); it != opt_.gguf_notes.rend(); ++it) notes_.insert(notes_.begin(), *it);
        notes_.insert(notes_.begin(),
                      fmt::format("Written by kvcat import-config from the GGUF metadata of {}: its header's keys, "
                                  "as llama.cpp names them, read as the config.json fields they were converted from.",
                                  opt_.config_file));
    } else {
        notes_.insert(notes_.begin(), fmt::format("Written by kvcat import-config from {}{}.", opt_.config_file,
                                                  nested_ ? " (its text_config)" : ""));
    }

    out_.id = "models/" + id_name_;
    std::string t;
    t += "# yaml-language-server: $schema=../../schema/model.schema.json\n";
    t += fmt::format("id: {}\n", yaml_inline(out_.id));
    t += fmt::format("name: {}\n", yaml_inline(name_));
    std::string config_source = nested_ ? fmt::format("text_config of {}", source) : source;
    t += fmt::format("config_source: {}\n",
                     config_source.size() > 60 ? yaml_folded(config_source, 2) : yaml_inline(config_source));
    t += fmt::format("config_verified: {}\n", opt_.verified ? "true" : "false");
    t += fmt::format("total_params_b: {}\n", number_text(*opt_.total_params_b));
    t += fmt::format("active_params_b: {}\n", number_text(*opt_.active_params_b));
    t += fmt::format("native_context: {}\n", *d_.native);
    t += fmt::format("num_layers: {}\n", layers);
    t += fmt::format("attention_variant: {}\n", name_of(variant));
    t += fmt::format("attention_heads: {}\n", *d_.heads);
    if (!d_.mla && groups.empty()) {
        t += fmt::format("kv_heads: {}\n", *d_.kv_heads);
        t += fmt::format("head_dim: {}\n", *d_.head_dim);
        if (d_.v_head_dim) t += fmt::format("v_head_dim: {}\n", *d_.v_head_dim);
    }
    if (d_.mla && d_.head_dim && d_.v_head_dim) {
        t += fmt::format("head_dim: {}\n", *d_.head_dim);
        t += fmt::format("v_head_dim: {}\n", *d_.v_head_dim);
    }
    t += "kv_layers:\n";
    t += fmt::format("  count: {}\n", n_full);
    if (kv.interval) {
        t += fmt::format("  interval: {}\n", *kv.interval);
        t += fmt::format("  first_index: {}\n", *kv.first_index);
    } else if (!kv.indices.empty()) {
        std::vector<std::string> idx;
        for (auto i : kv.indices) idx.push_back(std::to_string(i));
        t += fmt::format("  indices: [{}]\n", join(idx));
    }
    if (d_.shared) t += fmt::format("  shared: {}\n", d_.shared);
    if (n_none) t += fmt::format("  stateless: {}\n", n_none);
    if (!groups.empty()) {
        t += "kv_groups:\n";
        for (const auto& g : groups) {
            t += fmt::format("  - layers: {}\n", g.layers);
            t += fmt::format("    kv_heads: {}\n", g.kv_heads);
            t += fmt::format("    head_dim: {}\n", g.head_dim);
        }
    }
    if (d_.mla) {
        t += "mla:\n";
        t += fmt::format("  kv_lora_rank: {}\n", *d_.lora_rank);
        t += fmt::format("  qk_rope_head_dim: {}\n", *d_.rope_dim);
    }
    if (n_bounded) {
        t += "sliding_window:\n";
        t += fmt::format("  window: {}\n", *d_.window);
        t += fmt::format("  layers: {}\n", n_bounded);
        if (n_chunked) t += "  kind: chunked\n";
        if (d_.sliding_kv_heads) t += fmt::format("  kv_heads: {}\n", *d_.sliding_kv_heads);
        if (d_.sliding_head_dim) t += fmt::format("  head_dim: {}\n", *d_.sliding_head_dim);
        if (d_.sliding_v_head_dim) t += fmt::format("  v_head_dim: {}\n", *d_.sliding_v_head_dim);
    }
    if (d_.state) {
        const StateDraft& s = *d_.state;
        t += "linear_attention:\n";
        t += fmt::format("  kind: {}\n", name_of(s.kind));
        t += fmt::format("  layers: {}\n", s.layers);
        for (std::string_view width : state_kind_widths(s.kind)) {
            std::int64_t v = width == "key_heads"        ? s.key_heads
                             : width == "value_heads"    ? s.value_heads
                             : width == "key_head_dim"   ? s.key_head_dim
                             : width == "value_head_dim" ? s.value_head_dim
                             : width == "inner_dim"      ? s.inner_dim
                             : width == "state_dim"      ? s.state_dim
                                                         : s.conv_kernel;
            t += fmt::format("  {}: {}\n", width, v);
        }
        t += fmt::format("  state_dtype: {}\n", s.state_dtype);
        if (s.beside_attention) t += "  beside_attention: true\n";
    }
    if (d_.indexer) {
        t += "indexer:\n";
        t += fmt::format("  head_dim: {}\n", d_.indexer->head_dim);
        t += fmt::format("  cache_dtype: {}\n", d_.indexer->cache_dtype);
        t += fmt::format("  scale_bytes: {}\n", d_.indexer->scale_bytes);
        t += fmt::format("  quant_block: {}\n", d_.indexer->quant_block);
    }
    t += "sources:\n";
    t += fmt::format("  - name: {}\n", source.size() > 60 ? yaml_folded(source, 6) : yaml_inline(source));
    std::string detail =
        opt_.gguf ? "GGUF metadata: " + join(opt_.gguf_keys_read) : (nested_ ? "text_config: " : "") + join(r.read());
    t += fmt::format("    detail: {}\n", yaml_folded(detail, 6));
    t += fmt::format("notes: {}\n", yaml_folded(join(notes_, " "), 2));
    out_.text = std::move(t);
}

}  // namespace kvcat::import_stages
