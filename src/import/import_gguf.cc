#include "import/import_gguf.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "import/import_config_keys.h"
#include "import/import_config_stages.h"

namespace kvcat {

namespace {

using json = nlohmann::json;

// The architectures read, as llama.cpp's LLM_ARCH_NAMES spells them (src/llama-arch.cpp).
constexpr std::array<std::string_view, 12> kArchitectures = {"llama",     "qwen2",  "qwen3",     "qwen3moe",
                                                             "gemma2",    "gemma3", "gpt-oss",   "deepseek2",
                                                             "qwen3next", "qwen35", "qwen35moe", "minimax-m2"};

/// What a key under `<arch>.` is to the import: read, or irrelevant to the cache.
enum class Use { read, ignored };
struct ArchKey {
    std::string_view suffix;
    Use use;
};

// Keys under `<arch>.`, sorted. The ignored ones set weights, routing, norms and rope, not
// what is cached.
constexpr std::array kArchKeys = {
    ArchKey{"attention.head_count", Use::read},
    ArchKey{"attention.head_count_kv", Use::read},
    ArchKey{"attention.key_length", Use::read},
    ArchKey{"attention.key_length_mla", Use::read},  // MLA's per-head query/key width, qk_nope + qk_rope
    ArchKey{"attention.kv_lora_rank", Use::read},
    ArchKey{"attention.layer_norm_epsilon", Use::ignored},
    ArchKey{"attention.layer_norm_rms_epsilon", Use::ignored},
    ArchKey{"attention.q_lora_rank", Use::ignored},
    ArchKey{"attention.scale", Use::ignored},
    ArchKey{"attention.sliding_window", Use::read},
    ArchKey{"attention.value_length", Use::read},
    ArchKey{"attention.value_length_mla", Use::read},  // MLA's per-head value width after up-projection
    ArchKey{"attn_logit_softcapping", Use::ignored},
    ArchKey{"block_count", Use::read},
    ArchKey{"context_length", Use::read},
    ArchKey{"embedding_length", Use::read},
    ArchKey{"expert_count", Use::ignored},
    ArchKey{"expert_feed_forward_length", Use::ignored},
    ArchKey{"expert_gating_func", Use::ignored},
    ArchKey{"expert_group_count", Use::ignored},
    ArchKey{"expert_group_used_count", Use::ignored},
    ArchKey{"expert_shared_count", Use::ignored},
    ArchKey{"expert_shared_feed_forward_length", Use::ignored},
    ArchKey{"expert_used_count", Use::ignored},
    ArchKey{"expert_weights_norm", Use::ignored},
    ArchKey{"expert_weights_scale", Use::ignored},
    ArchKey{"feed_forward_length", Use::ignored},
    ArchKey{"final_logit_softcapping", Use::ignored},
    ArchKey{"full_attention_interval", Use::read},
    ArchKey{"leading_dense_block_count", Use::ignored},
    ArchKey{"nextn_predict_layers", Use::read},
    ArchKey{"rope.dimension_count", Use::read},
    ArchKey{"rope.dimension_sections", Use::ignored},
    ArchKey{"rope.freq_base", Use::ignored},
    ArchKey{"rope.freq_base_swa", Use::ignored},
    ArchKey{"rope.scaling.attn_factor", Use::ignored},
    ArchKey{"rope.scaling.factor", Use::ignored},
    ArchKey{"rope.scaling.original_context_length", Use::ignored},
    ArchKey{"rope.scaling.type", Use::ignored},
    ArchKey{"rope.scaling.yarn_beta_fast", Use::ignored},
    ArchKey{"rope.scaling.yarn_beta_slow", Use::ignored},
    ArchKey{"rope.scaling.yarn_log_multiplier", Use::ignored},
    ArchKey{"ssm.conv_kernel", Use::read},
    ArchKey{"ssm.group_count", Use::read},
    ArchKey{"ssm.inner_size", Use::read},
    ArchKey{"ssm.state_size", Use::read},
    ArchKey{"ssm.time_step_rank", Use::read},
    ArchKey{"swiglu_clamp_exp", Use::ignored},
    ArchKey{"swiglu_clamp_shexp", Use::ignored},
    ArchKey{"vocab_size", Use::ignored},
};

const ArchKey* find_arch_key(std::string_view suffix) {
    auto it = std::lower_bound(kArchKeys.begin(), kArchKeys.end(), suffix,
                               [](const ArchKey& k, std::string_view s) { return k.suffix < s; });
    return it != kArchKeys.end() && it->suffix == suffix ? &*it : nullptr;
}

class Translator {
  public:
    explicit Translator(const std::map<std::string, json>& md) : md_(md) {}

    GgufConfig run() {
        auto arch_it = md_.find("general.architecture");
        if (arch_it == md_.end() || !arch_it->second.is_string()) {
            out_.problems.push_back("the header has no general.architecture; a GGUF model file states it");
            return out_;
        }
        arch_ = arch_it->second.get<std::string>();
        out_.architecture = arch_;
        out_.keys_read.push_back("general.architecture " + arch_);
        if (std::find(kArchitectures.begin(), kArchitectures.end(), arch_) == kArchitectures.end()) {
            std::string known;
            for (auto a : kArchitectures) known += (known.empty() ? "" : ", ") + std::string(a);
            out_.problems.push_back(
                fmt::format("general.architecture is '{}'; kvcat reads the GGUF keys of {}", arch_, known));
            return out_;
        }
        check_keys();
        if (!out_.problems.empty()) return out_;
        translate();
        return out_;
    }

  private:
    std::string key(std::string_view suffix) const { return fmt::format("{}.{}", arch_, suffix); }
    const json* get(std::string_view suffix) {
        auto it = md_.find(key(suffix));
        if (it == md_.end()) return nullptr;
        out_.keys_read.push_back(fmt::format("{} {}", it->first, it->second.dump().substr(0, 60)));
        return &it->second;
    }
    /// A whole number >= 0 stated as a scalar.
    std::optional<std::int64_t> number(std::string_view suffix, bool required) {
        const json* v = get(suffix);
        if (!v) {
            if (required) out_.problems.push_back(fmt::format("the header lacks {}", key(suffix)));
            return std::nullopt;
        }
        if (v->is_number_unsigned()) {
            if (v->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) return v->get<std::int64_t>();
            out_.problems.push_back(fmt::format("{} is {}, beyond 2^63 - 1", key(suffix), v->get<std::uint64_t>()));
            return std::nullopt;
        }
        if (v->is_number_integer() && v->get<std::int64_t>() >= 0) return v->get<std::int64_t>();
        out_.problems.push_back(fmt::format("{} is {}; expected a whole number", key(suffix), v->dump()));
        return std::nullopt;
    }

    void check_keys() {
        // Right or refused, as for a config.json: a key of the architecture that is neither read
        // nor known to be irrelevant refuses the import when its name may bear on the cache.
        std::string prefix = arch_ + ".";
        std::vector<std::string> unknown;
        for (const auto& [k, v] : md_) {
            if (!k.starts_with(prefix)) continue;
            std::string suffix = k.substr(prefix.size());
            if (find_arch_key(suffix)) continue;
            if (looks_cache_relevant(suffix) || suffix.find("swa") != std::string::npos) {
                out_.problems.push_back(
                    fmt::format("{} is a GGUF key kvcat does not read, and its name says it may change the KV cache "
                                "or the fixed state; rather than a figure that may be wrong, kvcat writes no record",
                                k));
            } else {
                unknown.push_back(k);
            }
        }
        if (!unknown.empty()) {
            std::string list;
            for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
            out_.notes.push_back(
                fmt::format("GGUF keys kvcat does not know, taken as not bearing on the cache because "
                            "their names say nothing of layers, heads, windows or state: {}.",
                            list));
        }
    }

    void translate() {
        json& c = out_.config;
        c = json::object();
        auto blocks = number("block_count", true);
        auto nextn = number("nextn_predict_layers", false);
        if (blocks) {
            // llama.cpp counts the multi-token-prediction layers in block_count and names them in
            // nextn_predict_layers: they are the last blocks (convert_hf_to_gguf.py's Qwen3.5 MTP
            // mixin adds mtp_num_hidden_layers to block_count).
            // Per-layer lists are built from block_count before the config's own check of the
            // layers: 10^8 blocks took 17 GB and never ended.
            if (*blocks > import_stages::kMaxLayers) {
                out_.problems.push_back(
                    fmt::format("{} is {}; no model has that many layers", key("block_count"), *blocks));
                return;
            }
            std::int64_t mtp = nextn.value_or(0);
            if (mtp >= *blocks) {
                out_.problems.push_back(fmt::format("{} {} is not below {} {}", key("nextn_predict_layers"), mtp,
                                                    key("block_count"), *blocks));
                return;
            }
            c["num_hidden_layers"] = *blocks - mtp;
            if (mtp > 0) {
                c["num_nextn_predict_layers"] = mtp;
                out_.notes.push_back(
                    fmt::format("{} {} counts {} multi-token-prediction layer{} ({} {}); the decoder has {} layers.",
                                key("block_count"), *blocks, mtp, mtp == 1 ? "" : "s", key("nextn_predict_layers"), mtp,
                                *blocks - mtp));
            }
        }
        if (auto ctx = number("context_length", true)) c["max_position_embeddings"] = *ctx;
        if (auto hidden = number("embedding_length", false)) c["hidden_size"] = *hidden;
        if (auto heads = number("attention.head_count", true)) c["num_attention_heads"] = *heads;

        bool mla = md_.count(key("attention.kv_lora_rank")) > 0;
        if (mla) {
            // DeepSeek-V2/V3: kv_lora_rank and the RoPE part of the key (rope.dimension_count is
            // qk_rope_head_dim); head_count_kv and key_length describe the latent's expanded heads.
            if (auto rank = number("attention.kv_lora_rank", true)) c["kv_lora_rank"] = *rank;
            auto rope = number("rope.dimension_count", true);
            if (rope) c["qk_rope_head_dim"] = *rope;
            // The per-head widths the latent expands to, under the _mla keys of llama.cpp's
            // converter (conversion/deepseek.py: key_length_mla is qk_nope + qk_rope, value_length_mla
            // v_head_dim; key_length and value_length are the latent's).
            auto k_mla = number("attention.key_length_mla", false);
            auto v_mla = number("attention.value_length_mla", false);
            if (rope && k_mla && v_mla && *k_mla > *rope) {
                c["qk_nope_head_dim"] = *k_mla - *rope;
                c["v_head_dim"] = *v_mla;
            }
        } else {
            kv_heads(c);
            if (auto k = number("attention.key_length", false)) {
                c["head_dim"] = *k;
                if (auto v = number("attention.value_length", false); v && *v != *k) c["v_head_dim"] = *v;
            }
        }
        if (auto window = number("attention.sliding_window", false)) {
            c["sliding_window"] = *window;
            layout_of_windows(c);
        }
        if (auto every = number("full_attention_interval", false)) c["full_attention_interval"] = *every;
        if (md_.count(key("ssm.conv_kernel"))) gated_deltanet(c);
        if (!c.contains("layer_types") && !c.contains("full_attention_interval") &&
            (arch_ == "qwen35" || arch_ == "qwen35moe" || arch_ == "qwen3next")) {
            out_.problems.push_back(
                fmt::format("the header lacks {}: which layers are full attention", key("full_attention_interval")));
        }
        if (auto name = md_.find("general.name"); name != md_.end() && name->second.is_string()) {
            c["_name_or_path"] = name->second.get<std::string>();
            out_.keys_read.push_back("general.name " + name->second.get<std::string>());
        }
        c["model_type"] = fmt::format("gguf:{}", arch_);
    }

    void kv_heads(json& c) {
        const json* v = get("attention.head_count_kv");
        if (!v) return;  // llama.cpp then takes the query heads; the import says so
        if (v->is_number_integer() || v->is_number_unsigned()) {
            c["num_key_value_heads"] = *v;
            return;
        }
        if (!v->is_array()) {
            out_.problems.push_back(fmt::format("{} is {}; expected a number or one per layer",
                                                key("attention.head_count_kv"), v->dump().substr(0, 60)));
            return;
        }
        // One per layer: uniform, or a layer with 0 keeps no cache. Written as per-layer blocks,
        // the layout config.json uses for layers of differing heads (block_configs).
        std::set<std::int64_t> values;
        for (const auto& x : *v) {
            if (!x.is_number_integer() || x.get<std::int64_t>() < 0) {
                out_.problems.push_back(
                    fmt::format("{} holds {}; expected whole numbers", key("attention.head_count_kv"), x.dump()));
                return;
            }
            values.insert(x.get<std::int64_t>());
        }
        if (values.size() == 1 && *values.begin() > 0) {
            c["num_key_value_heads"] = *values.begin();
            return;
        }
        auto heads = md_.find(key("attention.head_count"));
        if (heads == md_.end() || !heads->second.is_number_integer()) return;
        std::int64_t q = heads->second.get<std::int64_t>();
        json blocks = json::array();
        for (const auto& x : *v) {
            std::int64_t kv = x.get<std::int64_t>();
            json attention = {{"no_op", kv == 0}, {"replace_with_linear", false}};
            if (kv > 0) {
                if (q % kv != 0) {
                    out_.problems.push_back(fmt::format("{} holds {}, which does not divide {} query heads",
                                                        key("attention.head_count_kv"), kv, q));
                    return;
                }
                attention["n_heads_in_group"] = q / kv;
            }
            blocks.push_back({{"attention", attention}});
        }
        c["block_configs"] = blocks;
        c["num_key_value_heads"] = nullptr;
        out_.notes.push_back(fmt::format("{} gives each layer its KV heads; a layer with 0 keeps no cache.",
                                         key("attention.head_count_kv")));
    }

    void layout_of_windows(json& c) {
        // The header states a window but no per-layer pattern; the architecture decides which
        // layers slide, as its config.json does.
        auto blocks = c.value("num_hidden_layers", std::int64_t{0});
        if (arch_ == "gpt-oss") {
            // gpt-oss alternates, a sliding layer first (its config.json's layer_types).
            json types = json::array();
            for (std::int64_t i = 0; i < blocks; ++i)
                types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
            c["layer_types"] = types;
            out_.notes.push_back(
                "The header states no per-layer pattern; gpt-oss alternates sliding and full layers, "
                "a sliding one first, as its config.json's layer_types does.");
        } else if (arch_ == "gemma2") {
            c["model_type"] = "gemma2";
        } else if (arch_ == "gemma3") {
            c["sliding_window_pattern"] = 6;
            out_.notes.push_back(
                "The header states no per-layer pattern; Gemma 3 has a global layer in every 6, as "
                "transformers' Gemma3 config and llama.cpp's loader lay it out.");
        } else {
            out_.problems.push_back(fmt::format("{} is set, but kvcat knows no layer pattern for architecture {}",
                                                key("attention.sliding_window"), arch_));
        }
    }

    void gated_deltanet(json& c) {
        // convert_hf_to_gguf.py (Qwen3NextModel) writes linear_conv_kernel_dim as ssm.conv_kernel,
        // linear_key_head_dim as ssm.state_size, linear_num_key_heads as ssm.group_count,
        // linear_num_value_heads as ssm.time_step_rank and linear_value_head_dim x
        // linear_num_value_heads as ssm.inner_size; read back, they are the config's fields.
        if (arch_ != "qwen35" && arch_ != "qwen35moe" && arch_ != "qwen3next") {
            out_.problems.push_back(
                fmt::format("{} is set, but kvcat reads the ssm.* keys only of qwen3next, qwen35 "
                            "and qwen35moe (Gated DeltaNet)",
                            key("ssm.conv_kernel")));
            return;
        }
        auto conv = number("ssm.conv_kernel", true);
        auto state = number("ssm.state_size", true);
        auto groups = number("ssm.group_count", true);
        auto v_heads = number("ssm.time_step_rank", true);
        auto inner = number("ssm.inner_size", true);
        if (!conv || !state || !groups || !v_heads || !inner) return;
        if (*v_heads == 0 || *inner % *v_heads != 0) {
            out_.problems.push_back(fmt::format("{} {} does not divide by {} {}", key("ssm.inner_size"), *inner,
                                                key("ssm.time_step_rank"), *v_heads));
            return;
        }
        c["linear_conv_kernel_dim"] = *conv;
        c["linear_key_head_dim"] = *state;
        c["linear_num_key_heads"] = *groups;
        c["linear_num_value_heads"] = *v_heads;
        c["linear_value_head_dim"] = *inner / *v_heads;
    }

    const std::map<std::string, json>& md_;
    std::string arch_;
    GgufConfig out_;
};

}  // namespace

std::span<const std::string_view> gguf_architectures() {
    return kArchitectures;
}

GgufConfig config_from_gguf(const std::map<std::string, json>& metadata) {
    return Translator(metadata).run();
}

ImportResult import_model_gguf(const std::map<std::string, json>& metadata, const ImportOptions& options) {
    GgufConfig g = config_from_gguf(metadata);
    ImportResult out;
    if (!g.problems.empty()) {
        out.problems = g.problems;  // the command names the file, as it does a config.json's problems
        return out;
    }
    ImportOptions o = options;
    o.gguf = true;
    o.gguf_notes = g.notes;
    o.gguf_keys_read = g.keys_read;
    if (!o.source)
        o.source = fmt::format("GGUF metadata of {} (general.architecture {})", options.config_file, g.architecture);
    return import_model_config(g.config, o);
}

}  // namespace kvcat
