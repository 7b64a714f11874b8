#include "import/import_config.h"

// GCC 12 at -O2 reports the std::optional figures of import_model_config, read only after a
// has_value() check, as maybe used uninitialized: a false positive of its flow analysis there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "import/import_config_keys.h"
#include "import/import_config_stages.h"
#include "model/kv_math.h"
#include "support/json_input.h"
#include "support/rational.h"

namespace kvcat {

namespace import_stages {

bool Importer::open_scope() {
    if (!config_.is_object()) {
        problems_.push_back(fmt::format("the config is {}, not a JSON object", config_.type_name()));
        return false;
    }
    const json* scope = &config_;
    std::string prefix;
    if (auto it = config_.find("text_config"); it != config_.end() && !it->is_null()) {
        if (!it->is_object()) {
            problems_.push_back(fmt::format("text_config is {}, not a JSON object", it->type_name()));
            return false;
        }
        scope = &*it;
        prefix = "text_config.";
        nested_ = true;
    }
    r_.emplace(*scope, prefix, problems_);
    for (const json* s : {scope, &config_}) {
        if (auto it = s->find("model_type"); it != s->end() && it->is_string() && d_.model_type.empty()) {
            d_.model_type = it->get<std::string>();
        }
    }
    return true;
}

void Importer::check_keys() {
    // Right or refused: every key of the decoder's config (and of the wrapper around a
    // text_config) is one kvcat reads, one it knows to be irrelevant, or a refusal.
    auto check = [&](const json& scope, const std::string& prefix) {
        for (const auto& [key, value] : scope.items()) {
            if (value.is_null()) continue;  // a key set to null states nothing
            if (const ConfigKey* k = find_config_key(key)) {
                if (k->use == KeyUse::refused) {
                    problems_.push_back(
                        fmt::format("{}{} is set: {}. The cache or state figures would be wrong, so "
                                    "kvcat writes no record",
                                    prefix, key, k->why));
                }
            } else if (looks_cache_relevant(key)) {
                problems_.push_back(
                    fmt::format("{}{} is a key kvcat does not know, and its name says it may change "
                                "the KV cache or the fixed state; rather than a figure that may be "
                                "wrong, kvcat writes no record",
                                prefix, key));
            } else {
                unknown_keys_.push_back(prefix + key);
            }
        }
    };
    check(r_->scope(), nested_ ? "text_config." : "");
    if (nested_) check(config_, "");
    if (!unknown_keys_.empty()) {
        notes_.push_back(
            fmt::format("Keys kvcat does not know, taken as not bearing on the cache because their "
                        "names say nothing of layers, heads, windows or state: {}.",
                        join(unknown_keys_)));
    }
}

void Importer::read_size() {
    FieldReader& r = *r_;
    d_.layers = r.positive("num_hidden_layers");
    if (!d_.layers && !r.has("num_hidden_layers")) missing_.push_back(r.path("num_hidden_layers"));
    if (d_.layers && *d_.layers > kMaxLayers) {
        problems_.push_back(
            fmt::format("{} is {}; no model has that many layers", r.path("num_hidden_layers"), *d_.layers));
        d_.layers.reset();
    }
    d_.heads = r.positive("num_attention_heads");
    if (!d_.heads && !r.has("num_attention_heads")) missing_.push_back(r.path("num_attention_heads"));
    // LFM2 states its query heads twice; two answers would leave the head width in doubt.
    if (r.has("num_heads")) {
        auto again = r.positive("num_heads");
        if (again && d_.heads && *again != *d_.heads) {
            problems_.push_back(
                fmt::format("{} is {} but num_attention_heads is {}; kvcat does not know which "
                            "the attention uses",
                            r.path("num_heads"), *again, *d_.heads));
        }
    }

    // The context the model was built for.
    d_.native = r.positive("max_position_embeddings");
    if (!d_.native && !r.has("max_position_embeddings")) {
        if (opt_.native_context) {
            d_.native = opt_.native_context;
            notes_.push_back(
                fmt::format("The config has no max_position_embeddings; native_context {} was given "
                            "with --native-context.",
                            *d_.native));
        } else {
            missing_.push_back(r.path("max_position_embeddings") + " (or give --native-context)");
        }
    } else if (d_.native && opt_.native_context && *opt_.native_context != *d_.native) {
        problems_.push_back(
            fmt::format("--native-context {} disagrees with {} {}; the option only fills in a "
                        "config that lacks the field",
                        *opt_.native_context, r.path("max_position_embeddings"), *d_.native));
    }
    if (const json* rope = r.get("rope_scaling"); rope && rope->is_object()) {
        std::vector<std::string> parts;
        for (const char* k : {"rope_type", "type", "factor", "original_max_position_embeddings"}) {
            if (auto it = rope->find(k); it != rope->end() && !it->is_null()) {
                parts.push_back(fmt::format("{} {}", k, it->is_string() ? it->get<std::string>() : json_text(*it)));
            }
        }
        notes_.push_back(
            fmt::format("The config sets rope_scaling ({}); native_context is "
                        "max_position_embeddings as configured.",
                        parts.empty() ? std::string("no type given") : join(parts)));
    }
}

void Importer::read_heads() {
    FieldReader& r = *r_;
    // MLA: one latent per layer, no per-head K and V.
    d_.mla = r.has("kv_lora_rank") || r.has("qk_rope_head_dim");
    if (d_.mla) {
        d_.lora_rank = r.positive("kv_lora_rank");
        d_.rope_dim = r.positive("qk_rope_head_dim");
        if (!r.has("kv_lora_rank")) missing_.push_back(r.path("kv_lora_rank"));
        if (!r.has("qk_rope_head_dim")) missing_.push_back(r.path("qk_rope_head_dim"));
        if (r.has("num_key_value_heads")) {
            notes_.push_back(
                "num_key_value_heads is not recorded: an MLA layer caches one compressed latent, not K "
                "and V per head.");
        }
        // The per-head widths the latent expands to: what an engine that runs MLA as plain
        // attention caches (ik_llama.cpp -mla 0 keeps every head's K of qk_nope + qk_rope and V of
        // v_head_dim). Without them that setting cannot be checked against its log.
        auto nope = r.positive("qk_nope_head_dim");
        auto v = r.positive("v_head_dim");
        if (nope && d_.rope_dim && v) {
            d_.head_dim = *nope + *d_.rope_dim;
            d_.v_head_dim = v;
            notes_.push_back(fmt::format(
                "head_dim {} is qk_nope_head_dim {} + qk_rope_head_dim {}, and v_head_dim {}: the widths of the "
                "heads the latent expands to, which only an engine that caches them (ik_llama.cpp -mla 0) keeps.",
                *d_.head_dim, *nope, *d_.rope_dim, *v));
        }
        return;
    }
    if (r.has("num_key_value_heads")) {
        d_.kv_heads = r.positive("num_key_value_heads");
    } else if (r.has("block_configs")) {
        // A null (or absent) num_key_value_heads beside per-layer blocks means "see each
        // layer": the layout stage reads the heads from block_configs, never the default.
    } else if (d_.heads) {
        d_.kv_heads = d_.heads;
        notes_.push_back(
            fmt::format("The config has no num_key_value_heads; it defaults to "
                        "num_attention_heads ({}), as in Hugging Face transformers, so every "
                        "query head has its own K and V head.",
                        *d_.heads));
    }
    if (d_.kv_heads && d_.heads && *d_.kv_heads > *d_.heads) {
        problems_.push_back(fmt::format("{} is {}, more than num_attention_heads {}", r.path("num_key_value_heads"),
                                        *d_.kv_heads, *d_.heads));
    } else if (d_.kv_heads && d_.heads && *d_.heads % *d_.kv_heads != 0) {
        // Grouped-query attention shares each K and V head among a whole group of query heads.
        problems_.push_back(
            fmt::format("{} is {}, which does not divide num_attention_heads {}: the query heads "
                        "cannot be shared out in equal groups",
                        r.path("num_key_value_heads"), *d_.kv_heads, *d_.heads));
    }
    // Nemotron-H spells the head width attention_head_dim.
    std::string width_key = spelling(r, {"head_dim", "attention_head_dim"});
    if (r.has(width_key)) {
        d_.head_dim = r.positive(width_key);
    } else if (r.has("hidden_size")) {
        auto hidden = r.positive("hidden_size");
        if (hidden && d_.heads) {
            if (*hidden % *d_.heads != 0) {
                problems_.push_back(
                    fmt::format("the config has no head_dim, and hidden_size {} does not divide "
                                "by num_attention_heads {}",
                                *hidden, *d_.heads));
            } else {
                d_.head_dim = *hidden / *d_.heads;
                notes_.push_back(
                    fmt::format("The config has no head_dim; it is derived as {} (hidden_size) / "
                                "{} (num_attention_heads) = {}.",
                                *hidden, *d_.heads, *d_.head_dim));
            }
        }
    } else {
        missing_.push_back(r.path("head_dim") + " (or hidden_size, to derive it)");
    }
}

void Importer::read_window() {
    FieldReader& r = *r_;
    std::int64_t sliding = d_.count(Role::sliding), chunked = d_.count(Role::chunked);
    if (sliding && chunked) {
        problems_.push_back(
            "a config with both sliding-window and chunked layers is not supported: a model record "
            "states one window");
        return;
    }
    if (chunked) {
        d_.window = r.positive("attention_chunk_size");
        if (!r.has("attention_chunk_size")) {
            missing_.push_back(r.path("attention_chunk_size") +
                               fmt::format(" (the chunk of the {} chunked layers)", chunked));
        }
    } else if (sliding) {
        if (!r.has("sliding_window")) {
            missing_.push_back(r.path("sliding_window") +
                               fmt::format(" (the window of the {} sliding layers)", sliding));
            return;
        }
        d_.window = r.positive("sliding_window");
        if (auto size = r.positive("sliding_window_size"); size && d_.window && *size != *d_.window) {
            problems_.push_back(fmt::format("{} {} disagrees with {} {}", r.path("sliding_window_size"), *size,
                                            r.path("sliding_window"), *d_.window));
        }
    }
}

void Importer::read_sharing() {
    // Gemma 3n: the last num_kv_shared_layers layers read the cache of an earlier layer of
    // their own type and keep none.
    FieldReader& r = *r_;
    if (!r.has("num_kv_shared_layers") || d_.roles.empty()) return;
    auto shared = r.index("num_kv_shared_layers");
    if (!shared || *shared == 0) return;
    auto n = static_cast<std::int64_t>(d_.roles.size());
    if (*shared >= n) {
        problems_.push_back(fmt::format("{} is {}, but the model has {} layers: some layer must keep a cache",
                                        r.path("num_kv_shared_layers"), *shared, n));
        return;
    }
    for (std::int64_t i = n - *shared; i < n; ++i) {
        Role role = d_.roles[static_cast<std::size_t>(i)];
        if (role != Role::full && role != Role::sliding) {
            problems_.push_back(fmt::format("{}: layer {} shares another's KV cache but is not an attention layer",
                                            r.path("num_kv_shared_layers"), i));
            return;
        }
        d_.roles[static_cast<std::size_t>(i)] = Role::shared;
    }
    d_.shared = *shared;
    notes_.push_back(
        fmt::format("num_kv_shared_layers {}: layers {} to {} reuse the KV cache of an earlier layer of "
                    "their type (as transformers' Gemma 3n does) and add none; they are counted in "
                    "kv_layers.shared.",
                    *shared, n - *shared, n - 1));
}

void Importer::read_indexer() {
    // DeepSeek-V3.2's sparse attention: a lightning indexer caches one key of index_head_dim
    // per token in every layer, beside the MLA latent.
    FieldReader& r = *r_;
    if (!r.has("index_head_dim")) return;
    auto width = r.positive("index_head_dim");
    if (!width) return;
    if (!d_.mla) {
        problems_.push_back(
            fmt::format("{} is set on a model that is not MLA; kvcat models the indexer only beside "
                        "an MLA latent (DeepSeek-V3.2)",
                        r.path("index_head_dim")));
        return;
    }
    // vLLM and SGLang keep the indexer keys at fp8 with one 4-byte float32 scale per 128 values.
    d_.indexer = IndexerShape{*width, "fp8", 4, 128};
    notes_.push_back(
        fmt::format("index_head_dim {}: every layer also caches the sparse-attention indexer's key, "
                    "kept at fp8 with a 4-byte scale per 128 values as vLLM and SGLang keep it ({} B "
                    "per token per layer), whatever the KV cache dtype.",
                    *width, indexer_bytes_per_token_layer(*d_.indexer)));
}

void Importer::read_mtp() {
    // Multi-token-prediction layers are trained with the model and serve only as the draft of
    // speculative decoding: an engine that runs MTP caches K and V for them too, and one that
    // does not allocates nothing for them. They are left out of num_layers unless asked for.
    FieldReader& r = *r_;
    std::vector<std::string> said;
    std::int64_t mtp = 0;
    for (const char* key : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
        if (auto n = r.index(key); n && *n > 0) {
            said.push_back(fmt::format("{} {}", key, *n));
            mtp = std::max(mtp, *n);
        }
    }
    // MiniMax-M2: use_mtp, with num_mtp_modules modules of mtp_transformer_layers layers each.
    const json* use = r.get("use_mtp");
    bool used = !(use && use->is_boolean() && !use->get<bool>());
    if (r.has("num_mtp_modules") && used) {
        auto modules = r.index("num_mtp_modules");
        auto per = r.has("mtp_transformer_layers") ? r.index("mtp_transformer_layers") : std::optional<std::int64_t>(1);
        if (modules && per && *modules * *per > 0) {
            said.push_back(fmt::format("num_mtp_modules {} of mtp_transformer_layers {}", *modules, *per));
            mtp = std::max(mtp, *modules * *per);
        }
    }
    if (mtp == 0) return;
    // Nemotron-H: each MTP layer is a small block pattern; only its '*' blocks are attention.
    std::int64_t attention = mtp;
    if (const json* pattern = r.get("mtp_hybrid_override_pattern"); pattern && pattern->is_string()) {
        std::string p = pattern->get<std::string>();
        auto stars = static_cast<std::int64_t>(std::count(p.begin(), p.end(), '*'));
        r.note_read(fmt::format("mtp_hybrid_override_pattern {}", p));
        said.push_back(
            fmt::format("mtp_hybrid_override_pattern {} ({} attention block{} each)", p, stars, stars == 1 ? "" : "s"));
        attention = mtp * stars;
    }
    d_.mtp_layers = attention;
    if (!opt_.count_mtp) {
        notes_.push_back(fmt::format(
            "Multi-token prediction ({}): {} MTP attention layer{} not counted in num_layers, which is "
            "num_hidden_layers ({}). They hold a KV cache only while an engine runs MTP speculative "
            "decoding, then as full-attention layers of the model's shape; import with --count-mtp to count "
            "them.",
            join(said), attention, attention == 1 ? " is" : "s are", d_.layers.value_or(0)));
        return;
    }
    if (attention == 0 || d_.roles.empty()) return;
    if (!d_.layer_kv_heads.empty()) {
        problems_.push_back(
            "--count-mtp: the layers state their own KV heads (block_configs), so kvcat cannot say which shape the "
            "MTP layers have");
        return;
    }
    for (std::int64_t i = 0; i < attention; ++i) d_.roles.push_back(Role::full);
    *d_.layers += attention;
    notes_.push_back(fmt::format(
        "Multi-token prediction ({}): counted with --count-mtp, so num_layers is num_hidden_layers plus {} MTP "
        "attention layer{}, each taken as a full-attention layer of the model's shape; they hold this cache "
        "only while an engine runs MTP speculative decoding.",
        join(said), attention, attention == 1 ? "" : "s"));
}

void Importer::check_design() {
    if (d_.roles.empty()) return;
    std::int64_t n_state = d_.count(Role::linear) + d_.count(Role::mamba) + d_.count(Role::conv) +
                           d_.count(Role::lightning) + d_.count(Role::kda);
    std::int64_t bounded = d_.count(Role::sliding) + d_.count(Role::chunked);
    if (d_.mla && d_.count(Role::full) + d_.count(Role::kda) != *d_.layers) {
        problems_.push_back(
            "an MLA config whose layers are not all full attention (or Kimi Delta Attention beside it) is not "
            "supported");
    }
    if (bounded && (n_state || d_.state_beside_attention)) {
        problems_.push_back("a config with both sliding-window and linear or Mamba layers is not supported");
    }
    if (d_.count(Role::full) == 0 && bounded == 0) {
        problems_.push_back("no layer is attention, so no layer keeps a KV cache; a model record needs at least one");
    }
}

void Importer::read_options() {
    // Figures no config.json states.
    std::vector<std::string> options_missing;
    if (!opt_.total_params_b) options_missing.push_back("--total-params-b");
    if (!opt_.active_params_b) options_missing.push_back("--active-params-b");
    if (!options_missing.empty()) {
        problems_.push_back(
            fmt::format("a config.json does not state parameter counts: give {} (billions; equal for "
                        "a dense model)",
                        join(options_missing, " and ")));
    }
    for (auto [flag, value] :
         {std::pair{"--total-params-b", opt_.total_params_b}, std::pair{"--active-params-b", opt_.active_params_b}}) {
        if (value && !(std::isfinite(*value) && *value > 0)) {
            problems_.push_back(fmt::format("{} must be a number greater than zero", flag));
        }
    }
    if (opt_.total_params_b && opt_.active_params_b && *opt_.active_params_b > *opt_.total_params_b) {
        problems_.push_back(fmt::format("--active-params-b {} is more than --total-params-b {}",
                                        number_text(*opt_.active_params_b), number_text(*opt_.total_params_b)));
    }
    if (opt_.id) {
        std::string given = *opt_.id;
        if (given.starts_with("models/")) given = given.substr(7);
        if (given.find('/') != std::string::npos) {
            problems_.push_back(fmt::format("--id '{}' is not a model id; write models/NAME", *opt_.id));
        } else if (given.empty() || file_safe_name(given) != given) {
            problems_.push_back(fmt::format("--id '{}': NAME must be a plain file name such as '{}'", *opt_.id,
                                            file_safe_name(given).empty() ? "llama-3.1-8b" : file_safe_name(given)));
        } else {
            id_name_ = given;
        }
    }
    if (opt_.name) {
        name_ = *opt_.name;
        if (name_.empty()) problems_.push_back("--name must not be empty");
    } else if (auto it = config_.find("_name_or_path");
               it != config_.end() && it->is_string() && !last_path_part(it->get<std::string>()).empty()) {
        name_ = last_path_part(it->get<std::string>());
        notes_.push_back(
            fmt::format("The name is the last part of the config's _name_or_path, {}.", it->get<std::string>()));
    } else if (!id_name_.empty()) {
        name_ = id_name_;
    } else {
        problems_.push_back(
            "the config does not name the model: give --name (its published name, e.g. "
            "Llama-3.1-8B) or --id models/NAME");
    }
    if (id_name_.empty() && !name_.empty() && !opt_.id) {
        id_name_ = file_safe_name(name_);
        if (id_name_.empty()) {
            problems_.push_back(
                fmt::format("cannot make a file name from the name '{}'; give --id models/NAME", name_));
        }
    }
}

void Importer::run() {
    if (!open_scope()) return;
    read_size();
    read_heads();
    read_layout();
    read_window();
    read_sharing();
    read_layer_shapes();
    read_state();
    read_indexer();
    read_mtp();
    check_design();
    check_keys();
    if (!missing_.empty()) {
        std::string what;
        for (const char* k : {"model_type", "architectures"}) {
            if (auto it = config_.find(k); it != config_.end()) {
                what = fmt::format(" ({} {})", k, json_text(*it));
                break;
            }
        }
        problems_.insert(problems_.begin(),
                         fmt::format("not a decoder config kvcat can read{}: missing {}", what, join(missing_)));
    }
    read_options();
    for (const auto& k : r_->consulted()) out_.keys_read.push_back(k);
    if (!problems_.empty()) return;
    write();
}

}  // namespace import_stages

using import_stages::join;
using import_stages::json;

std::string ImportResult::message() const {
    return join(problems, "\n");
}

std::string file_safe_name(std::string_view text) {
    std::string out;
    bool dash = false;
    for (char raw : text) {
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
        bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
        if (keep) {
            if (dash && !out.empty()) out += '-';
            dash = false;
            out += c;
        } else {
            dash = true;  // '-' and every other character: one '-' between kept runs
        }
    }
    while (!out.empty() && (out.back() == '.' || out.back() == '-')) out.pop_back();
    std::size_t start = 0;
    while (start < out.size() && (out[start] == '.' || out[start] == '-')) ++start;
    return out.substr(start);
}

std::string yaml_inline(std::string_view text) {
    auto quoted = [&] { return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace); };
    if (text.empty() || text.front() == ' ' || text.back() == ' ') return quoted();
    if (!std::isalnum(static_cast<unsigned char>(text.front()))) return quoted();
    bool number_like = true;
    for (char c : text) {
        bool ok = std::isalnum(static_cast<unsigned char>(c)) ||
                  std::string_view(" ._/()+-").find(c) != std::string_view::npos;
        if (!ok) return quoted();
        if (std::string_view("0123456789.+-eE_").find(c) == std::string_view::npos) number_like = false;
    }
    std::string lower;
    for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::set<std::string> kSpecial = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
    if (number_like || kSpecial.count(lower) || lower.starts_with("0x") || lower.starts_with("0o")) return quoted();
    return std::string(text);
}

std::string yaml_folded(std::string_view text, int indent, std::size_t width) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        std::size_t start = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) words.push_back(text.substr(start, i - start));
    }
    std::string pad(static_cast<std::size_t>(indent), ' ');
    std::string out = ">-\n";
    std::string line;
    for (auto w : words) {
        if (!line.empty() && pad.size() + line.size() + 1 + w.size() > width) {
            out += pad + line + "\n";
            line.clear();
        }
        if (!line.empty()) line += ' ';
        line += w;
    }
    if (!line.empty()) out += pad + line + "\n";
    out.pop_back();  // the caller ends the line
    return out;
}

json parse_config_json(std::string_view text) {
    bool rewrote = false;
    std::string out = python_floats_as_strings(text, rewrote);
    return json::parse(out);
}

ImportResult import_model_config(const json& config, const ImportOptions& opt) {
    ImportResult out;
    import_stages::Importer(config, opt, out).run();
    return out;
}

}  // namespace kvcat
