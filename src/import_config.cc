#include "import_config.h"

// GCC 12 at -O2 reports the std::optional figures of import_model_config, read only after a
// has_value() check, as maybe used uninitialized: a false positive of its flow analysis there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "rational.h"

namespace kvcat {

namespace {

using json = nlohmann::json;

enum class Role { full, sliding, linear, mamba };

/// Far more layers than any model has; a bigger count is a broken config, not a model.
constexpr std::int64_t kMaxLayers = 100000;

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += sep;
        out += item;
    }
    return out;
}

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string json_text(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// A number as a record writes it: 8, 70.6, 671.
std::string number_text(double v) {
    if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(v));
    return fmt::format("{}", v);
}

/// Reads fields from one JSON object (the config, or its text_config), recording what it
/// read for the record's sources and every problem for the caller.
class FieldReader {
public:
    FieldReader(const json& scope, std::string prefix, std::vector<std::string>& problems)
        : scope_(scope), prefix_(std::move(prefix)), problems_(problems) {}

    /// Present and not null.
    bool has(const std::string& key) const {
        auto it = scope_.find(key);
        return it != scope_.end() && !it->is_null();
    }
    const json* get(const std::string& key) const {
        auto it = scope_.find(key);
        return (it == scope_.end() || it->is_null()) ? nullptr : &*it;
    }
    std::string path(const std::string& key) const { return prefix_ + key; }

    /// A whole number > 0, or nullopt when absent (no problem) or invalid (a problem).
    std::optional<std::int64_t> positive(const std::string& key, bool record = true) {
        const json* v = get(key);
        if (!v) return std::nullopt;
        std::optional<std::int64_t> n;
        if (v->is_number_unsigned()) {
            auto u = v->get<std::uint64_t>();
            if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                n = static_cast<std::int64_t>(u);
            }
        } else if (v->is_number_integer()) {
            n = v->get<std::int64_t>();
        } else if (v->is_number_float()) {
            double d = v->get<double>();
            if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15) n = static_cast<std::int64_t>(d);
        }
        if (!n) {
            problems_.push_back(fmt::format("{} is {}; expected a whole number", path(key), json_text(*v)));
            return std::nullopt;
        }
        if (*n <= 0) {
            problems_.push_back(fmt::format("{} is {}; expected a whole number greater than zero", path(key), *n));
            return std::nullopt;
        }
        if (record) read_.push_back(fmt::format("{} {}", key, *n));
        return n;
    }

    /// A whole number >= 0 (a layer index), or nullopt.
    std::optional<std::int64_t> index(const std::string& key) {
        const json* v = get(key);
        if (!v) return std::nullopt;
        if (v->is_number_integer() && v->get<std::int64_t>() == 0) {
            read_.push_back(fmt::format("{} 0", key));
            return 0;
        }
        return positive(key);
    }

    std::optional<std::string> text(const std::string& key) {
        const json* v = get(key);
        if (!v) return std::nullopt;
        if (!v->is_string()) {
            problems_.push_back(fmt::format("{} is {}; expected a string", path(key), json_text(*v)));
            return std::nullopt;
        }
        read_.push_back(fmt::format("{} {}", key, v->get<std::string>()));
        return v->get<std::string>();
    }

    void note_read(std::string what) { read_.push_back(std::move(what)); }
    const std::vector<std::string>& read() const { return read_; }

private:
    const json& scope_;
    std::string prefix_;
    std::vector<std::string>& problems_;
    std::vector<std::string> read_;
};

struct KvLayout {
    std::int64_t count = 0;
    std::optional<std::int64_t> interval;
    std::optional<std::int64_t> first_index;
    std::vector<std::int64_t> indices;  ///< only when neither every layer nor every Nth
};

/// The growing layers as the record states them: all, every Nth from an index, or a list.
KvLayout kv_layout(const std::vector<Role>& roles) {
    KvLayout out;
    std::vector<std::int64_t> full;
    for (std::size_t i = 0; i < roles.size(); ++i) {
        if (roles[i] == Role::full) full.push_back(static_cast<std::int64_t>(i));
    }
    out.count = static_cast<std::int64_t>(full.size());
    auto total = static_cast<std::int64_t>(roles.size());
    if (out.count == total || full.empty()) return out;
    if (full.size() >= 2) {
        std::int64_t step = full[1] - full[0];
        bool regular = step > 0 && full[0] < step && full.back() + step >= total;
        for (std::size_t i = 1; regular && i < full.size(); ++i) regular = full[i] - full[i - 1] == step;
        if (regular) {
            out.interval = step;
            out.first_index = full[0];
            return out;
        }
    }
    out.indices = full;
    return out;
}

std::string last_path_part(const std::string& text) {
    std::string s = text;
    while (!s.empty() && (s.back() == '/' || s.back() == '\\')) s.pop_back();
    auto slash = s.find_last_of("/\\");
    return slash == std::string::npos ? s : s.substr(slash + 1);
}

std::optional<std::string> state_dtype_from(const std::string& configured) {
    std::string v = configured;
    if (v.starts_with("torch.")) v = v.substr(6);
    if (v == "float32" || v == "fp32") return std::string("float32");
    if (v == "bfloat16" || v == "bf16") return std::string("bfloat16");
    if (v == "float16" || v == "fp16") return std::string("float16");
    return std::nullopt;
}

}  // namespace

std::string ImportResult::message() const { return join(problems, "\n"); }

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
        bool ok = std::isalnum(static_cast<unsigned char>(c)) || std::string_view(" ._/()+-").find(c) != std::string_view::npos;
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

ImportResult import_model_config(const json& config, const ImportOptions& opt) {
    ImportResult out;
    std::vector<std::string>& problems = out.problems;
    if (!config.is_object()) {
        problems.push_back(fmt::format("the config is {}, not a JSON object", config.type_name()));
        return out;
    }
    const json* scope = &config;
    std::string prefix;
    bool nested = false;
    if (auto it = config.find("text_config"); it != config.end() && !it->is_null()) {
        if (!it->is_object()) {
            problems.push_back(fmt::format("text_config is {}, not a JSON object", it->type_name()));
            return out;
        }
        scope = &*it;
        prefix = "text_config.";
        nested = true;
    }
    FieldReader r(*scope, prefix, problems);
    std::vector<std::string> missing;  // fields the config must have and does not
    std::vector<std::string> notes;

    auto layers = r.positive("num_hidden_layers");
    if (!layers && !r.has("num_hidden_layers")) missing.push_back(r.path("num_hidden_layers"));
    if (layers && *layers > kMaxLayers) {
        problems.push_back(fmt::format("{} is {}; no model has that many layers", r.path("num_hidden_layers"), *layers));
        layers.reset();
    }
    auto heads = r.positive("num_attention_heads");
    if (!heads && !r.has("num_attention_heads")) missing.push_back(r.path("num_attention_heads"));

    // The context the model was built for.
    std::optional<std::int64_t> native = r.positive("max_position_embeddings");
    if (!native && !r.has("max_position_embeddings")) {
        if (opt.native_context) {
            native = opt.native_context;
            notes.push_back(fmt::format("The config has no max_position_embeddings; native_context {} was given "
                                        "with --native-context.",
                                        *native));
        } else {
            missing.push_back(r.path("max_position_embeddings") + " (or give --native-context)");
        }
    } else if (native && opt.native_context && *opt.native_context != *native) {
        problems.push_back(fmt::format("--native-context {} disagrees with {} {}; the option only fills in a "
                                       "config that lacks the field",
                                       *opt.native_context, r.path("max_position_embeddings"), *native));
    }
    if (const json* rope = r.get("rope_scaling")) {
        if (rope->is_object()) {
            std::vector<std::string> parts;
            for (const char* k : {"rope_type", "type", "factor", "original_max_position_embeddings"}) {
                if (auto it = rope->find(k); it != rope->end() && !it->is_null()) {
                    parts.push_back(fmt::format("{} {}", k, it->is_string() ? it->get<std::string>() : json_text(*it)));
                }
            }
            notes.push_back(fmt::format("The config sets rope_scaling ({}); native_context is "
                                        "max_position_embeddings as configured.",
                                        parts.empty() ? std::string("no type given") : join(parts)));
        }
    }

    // MLA: one latent per layer, no per-head K and V.
    bool mla = r.has("kv_lora_rank") || r.has("qk_rope_head_dim");
    std::optional<std::int64_t> lora_rank, rope_dim;
    if (mla) {
        lora_rank = r.positive("kv_lora_rank");
        rope_dim = r.positive("qk_rope_head_dim");
        if (!r.has("kv_lora_rank")) missing.push_back(r.path("kv_lora_rank"));
        if (!r.has("qk_rope_head_dim")) missing.push_back(r.path("qk_rope_head_dim"));
    }

    // Query and KV heads, head width (not recorded for MLA, whose cache is the latent).
    std::optional<std::int64_t> kv_heads, head_dim;
    if (!mla) {
        if (r.has("num_key_value_heads")) {
            kv_heads = r.positive("num_key_value_heads");
        } else if (heads) {
            kv_heads = heads;
            notes.push_back(fmt::format("The config has no num_key_value_heads; it defaults to "
                                        "num_attention_heads ({}), as in Hugging Face transformers, so every "
                                        "query head has its own K and V head.",
                                        *heads));
        }
        if (kv_heads && heads && *kv_heads > *heads) {
            problems.push_back(fmt::format("{} is {}, more than num_attention_heads {}", r.path("num_key_value_heads"),
                                           *kv_heads, *heads));
        }
        if (r.has("head_dim")) {
            head_dim = r.positive("head_dim");
        } else if (r.has("hidden_size")) {
            auto hidden = r.positive("hidden_size");
            if (hidden && heads) {
                if (*hidden % *heads != 0) {
                    problems.push_back(fmt::format("the config has no head_dim, and hidden_size {} does not divide "
                                                   "by num_attention_heads {}",
                                                   *hidden, *heads));
                } else {
                    head_dim = *hidden / *heads;
                    notes.push_back(fmt::format("The config has no head_dim; it is derived as {} (hidden_size) / "
                                                "{} (num_attention_heads) = {}.",
                                                *hidden, *heads, *head_dim));
                }
            }
        } else {
            missing.push_back(r.path("head_dim") + " (or hidden_size, to derive it)");
        }
    } else if (r.has("num_key_value_heads")) {
        notes.push_back("num_key_value_heads and the per-head widths are not recorded: an MLA layer caches one "
                        "compressed latent, not K and V per head.");
    }

    // Which layer is which.
    std::vector<Role> roles;
    std::string layout_how;
    std::optional<std::int64_t> window;
    if (layers) {
        auto n = static_cast<std::size_t>(*layers);
        const json* types = r.get("layer_types");
        bool has_attn_period = r.has("attn_layer_period") || r.has("attn_layer_offset") || r.has("attn_layer_indices");
        if (types) {
            if (!types->is_array() || types->size() != n) {
                problems.push_back(fmt::format("{} must list one type per layer ({}); found {}", r.path("layer_types"),
                                               n,
                                               types->is_array() ? fmt::format("{} entries", types->size())
                                                                 : std::string(types->type_name())));
            } else {
                std::size_t counts[4] = {0, 0, 0, 0};
                for (std::size_t i = 0; i < n; ++i) {
                    const json& t = (*types)[i];
                    std::string name = t.is_string() ? t.get<std::string>() : json_text(t);
                    Role role;
                    if (name == "full_attention" || name == "attention") {
                        role = Role::full;
                    } else if (name == "sliding_attention") {
                        role = Role::sliding;
                    } else if (name == "linear_attention") {
                        role = Role::linear;
                    } else if (name == "mamba") {
                        role = Role::mamba;
                    } else {
                        problems.push_back(fmt::format("{}[{}] is '{}'; kvcat reads full_attention, attention, "
                                                       "sliding_attention, linear_attention and mamba",
                                                       r.path("layer_types"), i, name));
                        roles.clear();
                        break;
                    }
                    ++counts[static_cast<int>(role)];
                    roles.push_back(role);
                }
                if (!roles.empty()) {
                    std::vector<std::string> parts;
                    const char* names[4] = {"full_attention", "sliding_attention", "linear_attention", "mamba"};
                    for (int k = 0; k < 4; ++k) {
                        if (counts[k]) parts.push_back(fmt::format("{} {}", counts[k], names[k]));
                    }
                    r.note_read(fmt::format("layer_types ({})", join(parts)));
                    layout_how = fmt::format("layer_types lists {}", join(parts));
                }
            }
            // A stated interval or pattern must say the same as the list.
            for (const char* key : {"full_attention_interval", "sliding_window_pattern", "_sliding_window_pattern"}) {
                if (roles.empty() || !r.has(key)) continue;
                auto every = r.positive(key);
                if (!every) continue;
                if (std::string_view(key) != "full_attention_interval" &&
                    std::none_of(roles.begin(), roles.end(), [](Role x) { return x == Role::sliding; })) {
                    continue;
                }
                for (std::size_t i = 0; i < n; ++i) {
                    bool full_by_rule = (static_cast<std::int64_t>(i) + 1) % *every == 0;
                    if (full_by_rule != (roles[i] == Role::full)) {
                        problems.push_back(fmt::format("{} says every {}th layer is full attention, but {}[{}] "
                                                       "disagrees",
                                                       r.path(key), *every, r.path("layer_types"), i));
                        break;
                    }
                }
            }
        } else if (has_attn_period) {
            if (r.has("attn_layer_indices")) {
                const json* list = r.get("attn_layer_indices");
                std::set<std::int64_t> at;
                bool ok = list->is_array();
                if (ok) {
                    for (const auto& v : *list) {
                        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
                            v.get<std::int64_t>() >= *layers) {
                            ok = false;
                            break;
                        }
                        at.insert(v.get<std::int64_t>());
                    }
                }
                if (!ok) {
                    problems.push_back(fmt::format("{} must be a list of layer indices from 0 to {}",
                                                   r.path("attn_layer_indices"), *layers - 1));
                } else {
                    for (std::size_t i = 0; i < n; ++i) {
                        roles.push_back(at.count(static_cast<std::int64_t>(i)) ? Role::full : Role::mamba);
                    }
                    r.note_read(fmt::format("attn_layer_indices ({} layers)", at.size()));
                    layout_how = "attn_layer_indices lists the attention layers; the others are Mamba layers";
                }
            } else {
                auto period = r.positive("attn_layer_period");
                auto offset = r.index("attn_layer_offset");
                if (!r.has("attn_layer_period")) missing.push_back(r.path("attn_layer_period"));
                if (!r.has("attn_layer_offset")) missing.push_back(r.path("attn_layer_offset"));
                if (period && offset && *offset >= *period) {
                    problems.push_back(fmt::format("{} {} is not below attn_layer_period {}: no layer would be "
                                                   "attention",
                                                   r.path("attn_layer_offset"), *offset, *period));
                } else if (period && offset) {
                    for (std::size_t i = 0; i < n; ++i) {
                        roles.push_back(static_cast<std::int64_t>(i) % *period == *offset ? Role::full : Role::mamba);
                    }
                    layout_how = fmt::format("attn_layer_period {} and attn_layer_offset {}: layer i is attention "
                                             "when i mod {} is {}, the others are Mamba layers",
                                             *period, *offset, *period, *offset);
                }
            }
        } else if (r.has("full_attention_interval")) {
            if (auto every = r.positive("full_attention_interval")) {
                for (std::size_t i = 0; i < n; ++i) {
                    roles.push_back((static_cast<std::int64_t>(i) + 1) % *every == 0 ? Role::full : Role::linear);
                }
                layout_how = fmt::format("full_attention_interval {}: every {}th layer is full attention, the "
                                         "others linear attention",
                                         *every, *every);
            }
        } else if (r.has("sliding_window") && !(r.get("use_sliding_window") && r.get("use_sliding_window")->is_boolean() &&
                                                 !r.get("use_sliding_window")->get<bool>())) {
            std::string pattern_key = r.has("sliding_window_pattern") ? "sliding_window_pattern"
                                      : r.has("_sliding_window_pattern") ? "_sliding_window_pattern"
                                                                          : "";
            if (pattern_key.empty()) {
                problems.push_back(fmt::format("{} is set, but neither sliding_window_pattern nor layer_types says "
                                               "which layers use it; kvcat does not guess (every layer, every other "
                                               "layer, ...)",
                                               r.path("sliding_window")));
            } else if (auto every = r.positive(pattern_key)) {
                for (std::size_t i = 0; i < n; ++i) {
                    roles.push_back((static_cast<std::int64_t>(i) + 1) % *every == 0 ? Role::full : Role::sliding);
                }
                layout_how = fmt::format("{} {}: every {}th layer is global (full attention), the others use the "
                                         "sliding window",
                                         pattern_key, *every, *every);
            }
        } else {
            roles.assign(n, Role::full);
            if (r.has("sliding_window")) {
                notes.push_back(fmt::format("sliding_window {} is not used: use_sliding_window is false, so every "
                                            "layer is full attention.",
                                            json_text(*r.get("sliding_window"))));
            }
        }
    }

    auto count_of = [&](Role role) {
        return static_cast<std::int64_t>(std::count(roles.begin(), roles.end(), role));
    };
    std::int64_t n_full = count_of(Role::full), n_sliding = count_of(Role::sliding),
                 n_linear = count_of(Role::linear), n_mamba = count_of(Role::mamba);
    if (!roles.empty()) {
        if (mla && n_full != *layers) {
            problems.push_back("an MLA config whose layers are not all full attention is not supported");
        }
        if (n_sliding && (n_linear || n_mamba)) {
            problems.push_back("a config with both sliding-window and linear or Mamba layers is not supported");
        }
        if (n_linear && n_mamba) {
            problems.push_back("a config with both linear-attention and Mamba layers is not supported");
        }
        if (n_full == 0) {
            problems.push_back("no layer is full attention, so no layer grows a KV cache; a model record needs at "
                               "least one");
        }
    }
    if (n_sliding) {
        if (!r.has("sliding_window")) {
            missing.push_back(r.path("sliding_window") + fmt::format(" (the window of the {} sliding layers)", n_sliding));
        } else {
            window = r.positive("sliding_window");
        }
    }

    // The fixed-state layers of a hybrid.
    struct Linear {
        std::string kind;
        std::int64_t key_heads = 0, value_heads = 0, key_head_dim = 0, value_head_dim = 0, conv_kernel = 0;
        std::string state_dtype;
    };
    std::optional<Linear> linear;
    auto state_dtype = [&]() -> std::optional<std::string> {
        if (!r.has("mamba_ssm_dtype")) {
            notes.push_back("The config has no mamba_ssm_dtype; the recurrent state is taken as float32, the larger "
                            "reading.");
            return std::string("float32");
        }
        auto configured = r.text("mamba_ssm_dtype");
        if (!configured) return std::nullopt;
        auto dtype = state_dtype_from(*configured);
        if (!dtype) {
            problems.push_back(fmt::format("{} is '{}'; kvcat knows float32, bfloat16 and float16",
                                           r.path("mamba_ssm_dtype"), *configured));
            return std::nullopt;
        }
        notes.push_back(fmt::format("The state dtype is the config's mamba_ssm_dtype, {}.", *configured));
        return dtype;
    };
    if (n_linear && !mla) {
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
            problems.push_back(fmt::format("the {} linear-attention layers need linear_num_key_heads, "
                                           "linear_num_value_heads, linear_key_head_dim, linear_value_head_dim and "
                                           "linear_conv_kernel_dim; the config lacks {}",
                                           n_linear, join(lacking)));
        }
        auto dtype = state_dtype();
        if (ok && dtype) {
            linear = Linear{"gated-deltanet", v[0], v[1], v[2], v[3], v[4], *dtype};
            notes.push_back(fmt::format("The {} linear-attention layers are taken as Gated DeltaNet (the "
                                        "linear_* fields); each keeps a fixed state per sequence that does not grow "
                                        "with context.",
                                        n_linear));
        }
    }
    if (n_mamba) {
        const char* keys[] = {"mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv"};
        std::vector<std::string> lacking;
        std::int64_t v[5] = {0, 0, 0, 0, 0};
        bool ok = true;
        for (int k = 0; k < 5; ++k) {
            std::string key = keys[k];
            if (!r.has(key)) {
                lacking.push_back(r.path(key));
                ok = false;
                continue;
            }
            const json* raw = r.get(key);
            if (key == "mamba_d_head" && raw->is_string() && raw->get<std::string>() == "auto") {
                continue;  // derived below, once the heads are known
            }
            if (auto x = r.positive(key)) {
                v[k] = *x;
            } else {
                ok = false;
            }
        }
        if (ok && v[1] == 0) {
            // mamba_d_head "auto": the inner width mamba_expand x hidden_size split over the heads.
            auto expand = r.positive("mamba_expand");
            auto hidden = r.positive("hidden_size");
            if (!expand || !hidden) {
                lacking.push_back(r.path(expand ? "hidden_size" : "mamba_expand") + " (mamba_d_head is auto)");
                ok = false;
            } else if ((*expand * *hidden) % v[0] != 0) {
                problems.push_back(fmt::format("mamba_d_head is auto, but mamba_expand {} x hidden_size {} does not "
                                               "divide by mamba_n_heads {}",
                                               *expand, *hidden, v[0]));
                ok = false;
            } else {
                v[1] = *expand * *hidden / v[0];
                notes.push_back(fmt::format("mamba_d_head is auto, so it is derived: {} (mamba_expand) x {} "
                                            "(hidden_size) / {} (mamba_n_heads) = {}.",
                                            *expand, *hidden, v[0], v[1]));
            }
        }
        if (!lacking.empty()) {
            problems.push_back(fmt::format("the {} Mamba layers cannot be written as linear_attention: the config "
                                           "lacks {} (kvcat reads a Mamba layer's state from the Mamba-2 fields "
                                           "mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state and "
                                           "mamba_d_conv; a Mamba-1 layer, as in Jamba, has no heads, and kvcat does "
                                           "not invent them)",
                                           n_mamba, join(lacking)));
        }
        auto dtype = state_dtype();
        if (ok && dtype) {
            // Mamba-2 as linear attention: B and C are the keys and queries (n_groups heads of
            // d_state), x the values (n_heads of d_head). The conv state then covers
            // 2 x n_groups x d_state + n_heads x d_head channels and the SSM state is
            // n_heads x d_head x d_state, the shapes fixed_state_bytes() computes.
            linear = Linear{"mamba2", v[2], v[0], v[3], v[1], v[4], *dtype};
            notes.push_back(fmt::format("The {} Mamba layers are taken as Mamba-2 and written as linear attention: "
                                        "key heads are mamba_n_groups with head width mamba_d_state, value heads "
                                        "are mamba_n_heads with head width mamba_d_head, so the conv and SSM state "
                                        "sizes come out as Mamba-2 keeps them.",
                                        n_mamba));
        }
    }

    // An MTP head is trained with the model but does not serve requests as a decoder layer.
    for (const char* key : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
        if (auto mtp = r.positive(key)) {
            notes.push_back(fmt::format("{} {}: the multi-token-prediction {} not counted as a decoder layer that "
                                        "serves requests, so num_layers is num_hidden_layers ({}); an engine that "
                                        "runs MTP speculative decoding caches for {} as well.",
                                        key, *mtp, *mtp == 1 ? "layer is" : "layers are", layers.value_or(0),
                                        *mtp == 1 ? "it" : "them"));
        }
    }

    if (!missing.empty()) {
        std::string what;
        for (const char* k : {"model_type", "architectures"}) {
            if (auto it = config.find(k); it != config.end()) {
                what = fmt::format(" ({} {})", k, json_text(*it));
                break;
            }
        }
        problems.insert(problems.begin(),
                        fmt::format("not a decoder config kvcat can read{}: missing {}", what, join(missing)));
    }

    // Figures no config.json states.
    std::vector<std::string> options_missing;
    if (!opt.total_params_b) options_missing.push_back("--total-params-b");
    if (!opt.active_params_b) options_missing.push_back("--active-params-b");
    if (!options_missing.empty()) {
        problems.push_back(fmt::format("a config.json does not state parameter counts: give {} (billions; equal for "
                                       "a dense model)",
                                       join(options_missing, " and ")));
    }
    for (auto [flag, value] : {std::pair{"--total-params-b", opt.total_params_b},
                               std::pair{"--active-params-b", opt.active_params_b}}) {
        if (value && !(std::isfinite(*value) && *value > 0)) {
            problems.push_back(fmt::format("{} must be a number greater than zero", flag));
        }
    }
    if (opt.total_params_b && opt.active_params_b && *opt.active_params_b > *opt.total_params_b) {
        problems.push_back(fmt::format("--active-params-b {} is more than --total-params-b {}",
                                       number_text(*opt.active_params_b), number_text(*opt.total_params_b)));
    }

    // Name and id.
    std::string name;
    std::string id_name;
    if (opt.id) {
        std::string given = *opt.id;
        if (given.starts_with("models/")) given = given.substr(7);
        if (given.find('/') != std::string::npos) {
            problems.push_back(fmt::format("--id '{}' is not a model id; write models/NAME", *opt.id));
        } else if (given.empty() || file_safe_name(given) != given) {
            problems.push_back(fmt::format("--id '{}': NAME must be a plain file name such as '{}'", *opt.id,
                                           file_safe_name(given).empty() ? "llama-3.1-8b" : file_safe_name(given)));
        } else {
            id_name = given;
        }
    }
    if (opt.name) {
        name = *opt.name;
        if (name.empty()) problems.push_back("--name must not be empty");
    } else if (auto it = config.find("_name_or_path"); it != config.end() && it->is_string() &&
                                                      !last_path_part(it->get<std::string>()).empty()) {
        name = last_path_part(it->get<std::string>());
        notes.push_back(fmt::format("The name is the last part of the config's _name_or_path, {}.",
                                    it->get<std::string>()));
    } else if (!id_name.empty()) {
        name = id_name;
    } else {
        problems.push_back("the config does not name the model: give --name (its published name, e.g. "
                           "Llama-3.1-8B) or --id models/NAME");
    }
    if (id_name.empty() && !name.empty() && !opt.id) {
        id_name = file_safe_name(name);
        if (id_name.empty()) {
            problems.push_back(fmt::format("cannot make a file name from the name '{}'; give --id models/NAME", name));
        }
    }

    if (!problems.empty()) return out;

    // Everything is known: write the record.
    KvLayout kv = kv_layout(roles);
    std::string variant;
    if (mla) {
        variant = "mla";
    } else if (n_linear || n_mamba) {
        variant = "hybrid";
    } else if (n_sliding) {
        variant = "sliding";
    } else if (*kv_heads == *heads) {
        variant = "mha";
    } else if (*kv_heads == 1) {
        variant = "mqa";
    } else {
        variant = "gqa";
    }
    if (!layout_how.empty() && (n_sliding || n_linear || n_mamba)) {
        notes.insert(notes.begin(), fmt::format("Layer layout: {}; {} of {} grow a KV cache.", layout_how,
                                                plural(n_full, "layer", "layers"), *layers));
    }
    if (n_sliding) {
        notes.push_back(fmt::format("The {} sliding-window layers keep at most {} tokens each and are counted in "
                                    "sliding_window, not in kv_layers.",
                                    n_sliding, group_thousands(*window)));
    }
    if (mla) {
        notes.push_back(fmt::format("Each of the {} layers caches one latent of kv_lora_rank {} plus "
                                    "qk_rope_head_dim {}, {} elements per token.",
                                    *layers, *lora_rank, *rope_dim, *lora_rank + *rope_dim));
    }
    notes.push_back("total_params_b and active_params_b were given on the command line: a config.json does not "
                    "state them.");
    std::string source = opt.source && !opt.source->empty() ? *opt.source : opt.config_file;
    notes.insert(notes.begin(), fmt::format("Written by kvcat import-config from {}{}.", opt.config_file,
                                            nested ? " (its text_config)" : ""));

    out.id = "models/" + id_name;
    std::string t;
    t += "# yaml-language-server: $schema=../../schema/model.schema.json\n";
    t += fmt::format("id: {}\n", yaml_inline(out.id));
    t += fmt::format("name: {}\n", yaml_inline(name));
    std::string config_source = nested ? fmt::format("text_config of {}", source) : source;
    t += fmt::format("config_source: {}\n", config_source.size() > 60 ? yaml_folded(config_source, 2)
                                                                       : yaml_inline(config_source));
    t += fmt::format("config_verified: {}\n", opt.verified ? "true" : "false");
    t += fmt::format("total_params_b: {}\n", number_text(*opt.total_params_b));
    t += fmt::format("active_params_b: {}\n", number_text(*opt.active_params_b));
    t += fmt::format("native_context: {}\n", *native);
    t += fmt::format("num_layers: {}\n", *layers);
    t += fmt::format("attention_variant: {}\n", variant);
    t += fmt::format("attention_heads: {}\n", *heads);
    if (!mla) {
        t += fmt::format("kv_heads: {}\n", *kv_heads);
        t += fmt::format("head_dim: {}\n", *head_dim);
    }
    t += "kv_layers:\n";
    t += fmt::format("  count: {}\n", kv.count);
    if (kv.interval) {
        t += fmt::format("  interval: {}\n", *kv.interval);
        t += fmt::format("  first_index: {}\n", *kv.first_index);
    } else if (!kv.indices.empty()) {
        std::vector<std::string> idx;
        for (auto i : kv.indices) idx.push_back(std::to_string(i));
        t += fmt::format("  indices: [{}]\n", join(idx));
    }
    if (mla) {
        t += "mla:\n";
        t += fmt::format("  kv_lora_rank: {}\n", *lora_rank);
        t += fmt::format("  qk_rope_head_dim: {}\n", *rope_dim);
    }
    if (n_sliding) {
        t += "sliding_window:\n";
        t += fmt::format("  window: {}\n", *window);
        t += fmt::format("  layers: {}\n", n_sliding);
    }
    if (linear) {
        t += "linear_attention:\n";
        t += fmt::format("  kind: {}\n", linear->kind);
        t += fmt::format("  layers: {}\n", n_linear + n_mamba);
        t += fmt::format("  key_heads: {}\n", linear->key_heads);
        t += fmt::format("  value_heads: {}\n", linear->value_heads);
        t += fmt::format("  key_head_dim: {}\n", linear->key_head_dim);
        t += fmt::format("  value_head_dim: {}\n", linear->value_head_dim);
        t += fmt::format("  conv_kernel: {}\n", linear->conv_kernel);
        t += fmt::format("  state_dtype: {}\n", linear->state_dtype);
    }
    t += "sources:\n";
    t += fmt::format("  - name: {}\n", source.size() > 60 ? yaml_folded(source, 6) : yaml_inline(source));
    std::string detail = (nested ? "text_config: " : "") + join(r.read());
    t += fmt::format("    detail: {}\n", yaml_folded(detail, 6));
    t += fmt::format("notes: {}\n", yaml_folded(join(notes, " "), 2));
    out.text = std::move(t);
    return out;
}

}  // namespace kvcat
