#include "import_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "design.h"
#include "import_config_keys.h"
#include "kv_math.h"
#include "rational.h"
#include "records.h"

namespace kvcat {

namespace {

using json = nlohmann::json;

/// What one decoder layer keeps, as the config lays the layers out.
enum class Role {
    full,     ///< attention over every token: grows a KV cache
    sliding,  ///< attention over the last `window` tokens
    chunked,  ///< attention within fixed chunks of `window` tokens (Llama 4's local layers)
    linear,   ///< Gated DeltaNet: a fixed state
    mamba,    ///< Mamba-1 or Mamba-2: a fixed state
    conv,     ///< a gated short convolution (LFM2): a fixed conv state
    lightning,  ///< MiniMax's lightning attention: a fixed state
    none,     ///< an MLP-only block: nothing kept
    shared,   ///< reuses an earlier layer's KV cache (Gemma 3n): adds nothing
};

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
    bool has(const std::string& key) const { return get(key) != nullptr; }
    const json* get(const std::string& key) const {
        consulted_.insert(key);
        auto it = scope_.find(key);
        return (it == scope_.end() || it->is_null()) ? nullptr : &*it;
    }
    /// Every key looked at, present or not: the keys import-config reads.
    const std::set<std::string>& consulted() const { return consulted_; }
    const json& scope() const { return scope_; }
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
    mutable std::set<std::string> consulted_;
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

namespace {

/// The fixed-state layers as the config describes them, before they become a LinearShape.
struct StateDraft {
    StateKind kind = StateKind::gated_deltanet;
    std::int64_t layers = 0;
    std::int64_t key_heads = 0, value_heads = 0, key_head_dim = 0, value_head_dim = 0;
    std::int64_t inner_dim = 0, state_dim = 0, conv_kernel = 0;
    std::string state_dtype;
    bool beside_attention = false;
};

/// A model as the config states it, filled stage by stage, then written by one writer.
struct Draft {
    std::optional<std::int64_t> layers, heads, native, kv_heads, head_dim;
    bool mla = false;
    std::optional<std::int64_t> lora_rank, rope_dim;
    std::vector<Role> roles;
    std::string layout_how;
    std::optional<std::int64_t> window;
    bool state_beside_attention = false;  ///< Falcon-H1: a Mamba-2 mixer in every attention layer
    std::optional<StateDraft> state;
    std::optional<IndexerShape> indexer;
    std::int64_t shared = 0;
    std::string model_type;

    std::int64_t count(Role r) const { return static_cast<std::int64_t>(std::count(roles.begin(), roles.end(), r)); }
};

std::string ordinal_every(std::int64_t n) {
    if (n == 2) return "every other";
    const char* suffix = n % 10 == 1 && n % 100 != 11 ? "st" : n % 10 == 2 && n % 100 != 12 ? "nd"
                       : n % 10 == 3 && n % 100 != 13 ? "rd" : "th";
    return fmt::format("every {}{}", n, suffix);
}

/// The first key of `spellings` the config states, or the first spelling when none is stated.
std::string spelling(const FieldReader& r, std::initializer_list<const char*> spellings) {
    for (const char* k : spellings) {
        if (r.has(k)) return k;
    }
    return *spellings.begin();
}

class Importer {
public:
    Importer(const json& config, const ImportOptions& opt, ImportResult& out)
        : config_(config), opt_(opt), out_(out), problems_(out.problems) {}

    void run();

private:
    // Stages, in order; each reads a part of the config into the draft.
    bool open_scope();
    void check_keys();
    void read_size();
    void read_heads();
    void read_layout();
    void read_window();
    void read_sharing();
    void read_state();
    void read_indexer();
    void read_mtp();
    void check_design();
    void read_options();
    void write();

    // Layout sources, tried in read_layout's order.
    bool layout_from_layer_types(std::size_t n);
    bool layout_from_pattern_string(std::size_t n);
    bool layout_from_attention_types(std::size_t n);
    bool layout_from_attention_period(std::size_t n);
    bool layout_from_chunking(std::size_t n);
    bool layout_from_sliding_window(std::size_t n);
    void check_stated_intervals(std::size_t n);

    void read_gated_deltanet(std::int64_t n_layers);
    void read_mamba(std::int64_t n_layers);
    void read_short_conv(std::int64_t n_layers);
    void read_lightning(std::int64_t n_layers);
    std::optional<std::string> state_dtype();

    const json& config_;
    const ImportOptions& opt_;
    ImportResult& out_;
    std::vector<std::string>& problems_;
    std::optional<FieldReader> r_;
    bool nested_ = false;
    std::vector<std::string> missing_;
    std::vector<std::string> notes_;
    std::vector<std::string> unknown_keys_;
    std::string name_, id_name_;
    Draft d_;
};

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
                    problems_.push_back(fmt::format("{}{} is set: {}. The cache or state figures would be wrong, so "
                                                    "kvcat writes no record",
                                                    prefix, key, k->why));
                }
            } else if (looks_cache_relevant(key)) {
                problems_.push_back(fmt::format("{}{} is a key kvcat does not know, and its name says it may change "
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
        notes_.push_back(fmt::format("Keys kvcat does not know, taken as not bearing on the cache because their "
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

    // The context the model was built for.
    d_.native = r.positive("max_position_embeddings");
    if (!d_.native && !r.has("max_position_embeddings")) {
        if (opt_.native_context) {
            d_.native = opt_.native_context;
            notes_.push_back(fmt::format("The config has no max_position_embeddings; native_context {} was given "
                                         "with --native-context.",
                                         *d_.native));
        } else {
            missing_.push_back(r.path("max_position_embeddings") + " (or give --native-context)");
        }
    } else if (d_.native && opt_.native_context && *opt_.native_context != *d_.native) {
        problems_.push_back(fmt::format("--native-context {} disagrees with {} {}; the option only fills in a "
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
        notes_.push_back(fmt::format("The config sets rope_scaling ({}); native_context is "
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
            notes_.push_back("num_key_value_heads and the per-head widths are not recorded: an MLA layer caches one "
                             "compressed latent, not K and V per head.");
        }
        return;
    }
    if (r.has("num_key_value_heads")) {
        d_.kv_heads = r.positive("num_key_value_heads");
    } else if (d_.heads) {
        d_.kv_heads = d_.heads;
        notes_.push_back(fmt::format("The config has no num_key_value_heads; it defaults to "
                                     "num_attention_heads ({}), as in Hugging Face transformers, so every "
                                     "query head has its own K and V head.",
                                     *d_.heads));
    }
    if (d_.kv_heads && d_.heads && *d_.kv_heads > *d_.heads) {
        problems_.push_back(fmt::format("{} is {}, more than num_attention_heads {}", r.path("num_key_value_heads"),
                                        *d_.kv_heads, *d_.heads));
    }
    // Nemotron-H spells the head width attention_head_dim.
    std::string width_key = spelling(r, {"head_dim", "attention_head_dim"});
    if (r.has(width_key)) {
        d_.head_dim = r.positive(width_key);
    } else if (r.has("hidden_size")) {
        auto hidden = r.positive("hidden_size");
        if (hidden && d_.heads) {
            if (*hidden % *d_.heads != 0) {
                problems_.push_back(fmt::format("the config has no head_dim, and hidden_size {} does not divide "
                                                "by num_attention_heads {}",
                                                *hidden, *d_.heads));
            } else {
                d_.head_dim = *hidden / *d_.heads;
                notes_.push_back(fmt::format("The config has no head_dim; it is derived as {} (hidden_size) / "
                                             "{} (num_attention_heads) = {}.",
                                             *hidden, *d_.heads, *d_.head_dim));
            }
        }
    } else {
        missing_.push_back(r.path("head_dim") + " (or hidden_size, to derive it)");
    }
}

void Importer::read_layout() {
    if (!d_.layers) return;
    auto n = static_cast<std::size_t>(*d_.layers);
    bool done = layout_from_layer_types(n) || layout_from_pattern_string(n) || layout_from_attention_types(n) ||
                layout_from_attention_period(n) ||
                layout_from_chunking(n) || layout_from_sliding_window(n);
    if (done) return;
    FieldReader& r = *r_;
    if (r.has("full_attention_interval")) {
        if (auto every = r.positive("full_attention_interval")) {
            for (std::size_t i = 0; i < n; ++i) {
                d_.roles.push_back((static_cast<std::int64_t>(i) + 1) % *every == 0 ? Role::full : Role::linear);
            }
            d_.layout_how = fmt::format("full_attention_interval {}: every {}th layer is full attention, the "
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
        problems_.push_back(fmt::format("{} must list one type per layer ({}); found {}", r.path("layer_types"), n,
                                        types->is_array() ? fmt::format("{} entries", types->size())
                                                          : std::string(types->type_name())));
        return true;
    }
    static const std::pair<std::string_view, Role> kNames[] = {
        {"full_attention", Role::full},      {"attention", Role::full},
        {"sliding_attention", Role::sliding}, {"chunked_attention", Role::chunked},
        {"linear_attention", Role::linear},  {"mamba", Role::mamba},
        {"conv", Role::conv},                {"short_conv", Role::conv},
    };
    std::map<std::string, std::int64_t> counts;
    for (std::size_t i = 0; i < n; ++i) {
        const json& t = (*types)[i];
        std::string name = t.is_string() ? t.get<std::string>() : json_text(t);
        auto it = std::find_if(std::begin(kNames), std::end(kNames), [&](const auto& p) { return p.first == name; });
        if (it == std::end(kNames)) {
            problems_.push_back(fmt::format("{}[{}] is '{}'; kvcat reads full_attention, attention, "
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
            case 'M': d_.roles.push_back(Role::mamba); break;
            case '*': d_.roles.push_back(Role::full); break;
            case '-':
            case 'E': d_.roles.push_back(Role::none); break;
            default:
                problems_.push_back(fmt::format("{}[{}] is '{}'; kvcat reads M (Mamba-2), * (attention), - (MLP) "
                                                "and E (mixture-of-experts MLP)",
                                                r.path("hybrid_override_pattern"), i, p[i]));
                d_.roles.clear();
                return true;
        }
    }
    r.note_read(fmt::format("hybrid_override_pattern ({} attention, {} Mamba, {} MLP-only)", d_.count(Role::full),
                            d_.count(Role::mamba), d_.count(Role::none)));
    d_.layout_how = fmt::format("hybrid_override_pattern {}: {} attention (*), {} Mamba-2 (M) and {} MLP-only (-, E) "
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
    r.note_read(fmt::format("attn_type_list ({} softmax, {} lightning)", d_.count(Role::full),
                            d_.count(Role::lightning)));
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
        d_.layout_how = fmt::format("attn_layer_period {} and attn_layer_offset {}: layer i is attention "
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
            problems_.push_back(fmt::format("{} must have one entry per layer ({}); found {}",
                                            r.path("no_rope_layers"), n, list->size()));
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
        d_.layout_how = fmt::format("attention_chunk_size with no_rope_layers: the {} NoPE layers attend over the "
                                    "whole context, the {} RoPE layers within chunks",
                                    d_.count(Role::full), d_.count(Role::chunked));
        return true;
    }
    bool llama4 = d_.model_type == "llama4" || d_.model_type == "llama4_text";
    if (!llama4) {
        problems_.push_back(fmt::format("{} is set, but no_rope_layers does not say which layers are chunked, and "
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
    d_.layout_how = fmt::format("attention_chunk_size with no no_rope_layers list: {} layer is NoPE and global, the "
                                "others chunked",
                                ordinal_every(every));
    notes_.push_back(fmt::format("The config does not list no_rope_layers, so the rule transformers applies for "
                                 "model_type {} was applied: {} layer (no_rope_layer_interval {}{}) is a NoPE layer "
                                 "with global attention, the others attend within chunks.",
                                 d_.model_type, ordinal_every(every), every,
                                 r.has("no_rope_layer_interval") ? "" : ", its default"));
    return true;
}

bool Importer::layout_from_sliding_window(std::size_t n) {
    FieldReader& r = *r_;
    if (!r.has("sliding_window")) return false;
    const json* use = r.get("use_sliding_window");
    if (use && use->is_boolean() && !use->get<bool>()) {
        d_.roles.assign(n, Role::full);
        notes_.push_back(fmt::format("sliding_window {} is not used: use_sliding_window is false, so every layer "
                                     "is full attention.",
                                     json_text(*r.get("sliding_window"))));
        return true;
    }
    auto slide_where = [&](auto&& is_sliding) {
        for (std::size_t i = 0; i < n; ++i) d_.roles.push_back(is_sliding(static_cast<std::int64_t>(i)) ? Role::sliding : Role::full);
    };
    std::string pattern_key = r.has("sliding_window_pattern")    ? "sliding_window_pattern"
                              : r.has("_sliding_window_pattern") ? "_sliding_window_pattern"
                                                                 : "";
    if (!pattern_key.empty()) {
        auto every = r.positive(pattern_key);
        if (!every) return true;
        if (*every == 1) {
            problems_.push_back(fmt::format("{} is 1, which makes every layer global, yet {} is set: the window "
                                            "would be silently dropped. For a model whose every layer slides (as "
                                            "Mistral-7B-v0.1), leave the pattern out",
                                            r.path(pattern_key), r.path("sliding_window")));
            return true;
        }
        slide_where([&](std::int64_t i) { return (i + 1) % *every != 0; });
        d_.layout_how = fmt::format("{} {}: every {}th layer is global (full attention), the others use the "
                                    "sliding window",
                                    pattern_key, *every, *every);
        return true;
    }
    if (use && use->is_boolean() && use->get<bool>() && r.has("max_window_layers")) {
        // Qwen2's rule: the layers from max_window_layers on slide, the ones below it are global.
        auto below = r.positive("max_window_layers");
        if (!below) return true;
        slide_where([&](std::int64_t i) { return i >= *below; });
        d_.layout_how = fmt::format("use_sliding_window with max_window_layers {}: layers from index {} on slide",
                                    *below, *below);
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
        problems_.push_back(fmt::format("{} is set, but neither sliding_window_pattern nor layer_types says "
                                        "which layers use it; kvcat does not guess (every layer, every other "
                                        "layer, ...)",
                                        r.path("sliding_window")));
        return true;
    }
    notes_.push_back(fmt::format("The config states sliding_window but no layer_types or pattern, so the rule "
                                 "transformers applies was applied: {}.",
                                 d_.layout_how));
    return true;
}

void Importer::read_window() {
    FieldReader& r = *r_;
    std::int64_t sliding = d_.count(Role::sliding), chunked = d_.count(Role::chunked);
    if (sliding && chunked) {
        problems_.push_back("a config with both sliding-window and chunked layers is not supported: a model record "
                            "states one window");
        return;
    }
    if (chunked) {
        d_.window = r.positive("attention_chunk_size");
        if (!r.has("attention_chunk_size")) {
            missing_.push_back(r.path("attention_chunk_size") + fmt::format(" (the chunk of the {} chunked layers)", chunked));
        }
    } else if (sliding) {
        if (!r.has("sliding_window")) {
            missing_.push_back(r.path("sliding_window") + fmt::format(" (the window of the {} sliding layers)", sliding));
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
    notes_.push_back(fmt::format("num_kv_shared_layers {}: layers {} to {} reuse the KV cache of an earlier layer of "
                                 "their type (as transformers' Gemma 3n does) and add none; they are counted in "
                                 "kv_layers.shared.",
                                 *shared, n - *shared, n - 1));
}

std::optional<std::string> Importer::state_dtype() {
    FieldReader& r = *r_;
    if (!r.has("mamba_ssm_dtype")) {
        notes_.push_back("The config has no mamba_ssm_dtype; the fixed state is taken as float32, the larger "
                         "reading (llama.cpp keeps it in f32; vLLM keeps the conv state in the model's dtype and the "
                         "recurrent state in mamba_ssm_cache_dtype).");
        return std::string("float32");
    }
    auto configured = r.text("mamba_ssm_dtype");
    if (!configured) return std::nullopt;
    auto dtype = state_dtype_from(*configured);
    if (!dtype) {
        problems_.push_back(fmt::format("{} is '{}'; kvcat knows float32, bfloat16 and float16",
                                        r.path("mamba_ssm_dtype"), *configured));
        return std::nullopt;
    }
    notes_.push_back(fmt::format("The state dtype is the config's mamba_ssm_dtype, {}.", *configured));
    return dtype;
}

void Importer::read_state() {
    std::int64_t n_linear = d_.count(Role::linear), n_mamba = d_.count(Role::mamba), n_conv = d_.count(Role::conv),
                 n_lightning = d_.count(Role::lightning);
    if (d_.state_beside_attention) n_mamba = d_.count(Role::full);
    int kinds = (n_linear > 0) + (n_mamba > 0) + (n_conv > 0) + (n_lightning > 0);
    if (kinds > 1) {
        problems_.push_back("a config with more than one kind of fixed-state layer (linear attention, Mamba, "
                            "convolution) is not supported");
        return;
    }
    if (d_.mla && kinds) return;  // check_design refuses it
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
        problems_.push_back(fmt::format("the {} linear-attention layers need linear_num_key_heads, "
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
    notes_.push_back(fmt::format("The {} linear-attention layers are taken as Gated DeltaNet (the linear_* fields); "
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
            problems_.push_back(fmt::format("the {} {} state no heads, so they are read as Mamba-1, which needs "
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
        notes_.push_back(fmt::format("The {} {} state no heads and are taken as Mamba-1: d_inner = {} ({}) x {} "
                                     "(hidden_size) = {} channels, each with a conv state of {} - 1 positions and "
                                     "an SSM state of {} ({}).",
                                     n_layers, where, *expand, expand_key, *hidden, s.inner_dim, *d_conv, *d_state,
                                     state_key));
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
            problems_.push_back(fmt::format("mamba_d_head is auto, but {} {} x hidden_size {} does not divide by "
                                            "{} {}",
                                            expand_key, *expand, *hidden, heads_key, v[0]));
            ok = false;
        } else {
            v[1] = *expand * *hidden / v[0];
            notes_.push_back(fmt::format("mamba_d_head is auto, so it is derived: {} ({}) x {} (hidden_size) / {} "
                                         "({}) = {}.",
                                         *expand, expand_key, *hidden, v[0], heads_key, v[1]));
        }
    }
    if (!lacking.empty()) {
        problems_.push_back(fmt::format("the {} {} are read as Mamba-2, and the config lacks {} (a Mamba-2 state "
                                        "needs heads, head width, groups, state size and conv width)",
                                        n_layers, where, join(lacking)));
    }
    if (ok && r.has("mamba_d_ssm")) {
        // Falcon-H1 states the inner width; the conv state spans it, so it must be heads x head width.
        if (auto d_ssm = r.positive("mamba_d_ssm"); d_ssm && *d_ssm != checked_mul(v[0], v[1])) {
            problems_.push_back(fmt::format("{} {} is not {} {} x {} {}: kvcat's Mamba-2 conv state spans heads x "
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
    notes_.push_back(fmt::format("The {} {} are taken as Mamba-2 and written as linear attention: key heads are "
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
        problems_.push_back(fmt::format("the {} convolution layers need conv_L_cache and hidden_size; the config "
                                        "lacks {}",
                                        n_layers, join(lacking)));
        return;
    }
    auto kernel = r.positive("conv_L_cache");
    auto hidden = r.positive("hidden_size");
    auto dtype = state_dtype();
    if (!kernel || !hidden || !dtype) return;
    StateDraft s;
    s.kind = StateKind::short_conv;
    s.layers = n_layers;
    s.inner_dim = *hidden;
    s.conv_kernel = *kernel;
    s.state_dtype = *dtype;
    d_.state = s;
    notes_.push_back(fmt::format("The {} conv layers are gated short convolutions: each keeps the last {} - 1 "
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
    notes_.push_back(fmt::format("The {} lightning-attention layers each keep a state of {} heads (num_attention_heads) "
                                 "x {} x {} (head_dim) elements, as vLLM's linear-attention state has it, and no conv "
                                 "state; it does not grow with context.",
                                 n_layers, *d_.heads, *d_.head_dim, *d_.head_dim));
}

void Importer::read_indexer() {
    // DeepSeek-V3.2's sparse attention: a lightning indexer caches one key of index_head_dim
    // per token in every layer, beside the MLA latent.
    FieldReader& r = *r_;
    if (!r.has("index_head_dim")) return;
    auto width = r.positive("index_head_dim");
    if (!width) return;
    if (!d_.mla) {
        problems_.push_back(fmt::format("{} is set on a model that is not MLA; kvcat models the indexer only beside "
                                        "an MLA latent (DeepSeek-V3.2)",
                                        r.path("index_head_dim")));
        return;
    }
    // vLLM and SGLang keep the indexer keys at fp8 with one 4-byte float32 scale per 128 values.
    d_.indexer = IndexerShape{*width, "fp8", 4, 128};
    notes_.push_back(fmt::format("index_head_dim {}: every layer also caches the sparse-attention indexer's key, "
                                 "kept at fp8 with a 4-byte scale per 128 values as vLLM and SGLang keep it ({} B "
                                 "per token per layer), whatever the KV cache dtype.",
                                 *width, indexer_bytes_per_token_layer(*d_.indexer)));
}

void Importer::read_mtp() {
    // An MTP head is trained with the model but does not serve requests as a decoder layer.
    FieldReader& r = *r_;
    for (const char* key : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
        if (auto mtp = r.index(key); mtp && *mtp > 0) {
            notes_.push_back(fmt::format("{} {}: the multi-token-prediction {} not counted as a decoder layer that "
                                         "serves requests, so num_layers is num_hidden_layers ({}); an engine that "
                                         "runs MTP speculative decoding caches for {} as well.",
                                         key, *mtp, *mtp == 1 ? "layer is" : "layers are", d_.layers.value_or(0),
                                         *mtp == 1 ? "it" : "them"));
        }
    }
}

void Importer::check_design() {
    if (d_.roles.empty()) return;
    std::int64_t n_state =
        d_.count(Role::linear) + d_.count(Role::mamba) + d_.count(Role::conv) + d_.count(Role::lightning);
    std::int64_t bounded = d_.count(Role::sliding) + d_.count(Role::chunked);
    if (d_.mla && d_.count(Role::full) != *d_.layers) {
        problems_.push_back("an MLA config whose layers are not all full attention is not supported");
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
        problems_.push_back(fmt::format("a config.json does not state parameter counts: give {} (billions; equal for "
                                        "a dense model)",
                                        join(options_missing, " and ")));
    }
    for (auto [flag, value] : {std::pair{"--total-params-b", opt_.total_params_b},
                               std::pair{"--active-params-b", opt_.active_params_b}}) {
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
    } else if (auto it = config_.find("_name_or_path"); it != config_.end() && it->is_string() &&
                                                       !last_path_part(it->get<std::string>()).empty()) {
        name_ = last_path_part(it->get<std::string>());
        notes_.push_back(fmt::format("The name is the last part of the config's _name_or_path, {}.",
                                     it->get<std::string>()));
    } else if (!id_name_.empty()) {
        name_ = id_name_;
    } else {
        problems_.push_back("the config does not name the model: give --name (its published name, e.g. "
                            "Llama-3.1-8B) or --id models/NAME");
    }
    if (id_name_.empty() && !name_.empty() && !opt_.id) {
        id_name_ = file_safe_name(name_);
        if (id_name_.empty()) {
            problems_.push_back(fmt::format("cannot make a file name from the name '{}'; give --id models/NAME", name_));
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

void Importer::write() {
    const FieldReader& r = *r_;
    std::int64_t layers = *d_.layers;
    std::int64_t n_full = d_.count(Role::full), n_sliding = d_.count(Role::sliding),
                 n_chunked = d_.count(Role::chunked), n_none = d_.count(Role::none);
    std::int64_t n_bounded = n_sliding + n_chunked;
    KvLayout kv = kv_layout(d_.roles);
    if (n_full == 0) kv = KvLayout{};  // every caching layer is bounded

    AttentionVariant variant = d_.mla ? AttentionVariant::mla
                               : d_.state ? AttentionVariant::hybrid
                               : n_bounded ? AttentionVariant::sliding
                               : *d_.kv_heads == *d_.heads ? AttentionVariant::mha
                               : *d_.kv_heads == 1 ? AttentionVariant::mqa
                                                   : AttentionVariant::gqa;
    if (!d_.layout_how.empty() && (n_bounded || d_.state || n_none || d_.shared)) {
        notes_.insert(notes_.begin(), fmt::format("Layer layout: {}; {} of {} grow a KV cache.", d_.layout_how,
                                                  plural(n_full, "layer", "layers"), layers));
    }
    if (n_sliding) {
        notes_.push_back(fmt::format("The {} sliding-window layers keep at most {} tokens each and are counted in "
                                     "sliding_window, not in kv_layers.",
                                     n_sliding, group_thousands(*d_.window)));
    }
    if (n_chunked) {
        notes_.push_back(fmt::format("The {} chunked layers attend within chunks of {} tokens, so each holds at most "
                                     "one chunk (vLLM sizes them like a sliding window of the chunk); they are "
                                     "counted in sliding_window with kind chunked, not in kv_layers.",
                                     n_chunked, group_thousands(*d_.window)));
    }
    if (n_full == 0 && n_bounded) {
        notes_.push_back(fmt::format("No layer grows without bound: at any context the cache holds at most {} "
                                     "tokens per layer.",
                                     group_thousands(*d_.window)));
    }
    if (d_.mla) {
        notes_.push_back(fmt::format("Each of the {} layers caches one latent of kv_lora_rank {} plus "
                                     "qk_rope_head_dim {}, {} elements per token.",
                                     layers, *d_.lora_rank, *d_.rope_dim, *d_.lora_rank + *d_.rope_dim));
    }
    notes_.push_back("total_params_b and active_params_b were given on the command line: a config.json does not "
                     "state them.");
    std::string source = opt_.source && !opt_.source->empty() ? *opt_.source : opt_.config_file;
    notes_.insert(notes_.begin(), fmt::format("Written by kvcat import-config from {}{}.", opt_.config_file,
                                              nested_ ? " (its text_config)" : ""));

    out_.id = "models/" + id_name_;
    std::string t;
    t += "# yaml-language-server: $schema=../../schema/model.schema.json\n";
    t += fmt::format("id: {}\n", yaml_inline(out_.id));
    t += fmt::format("name: {}\n", yaml_inline(name_));
    std::string config_source = nested_ ? fmt::format("text_config of {}", source) : source;
    t += fmt::format("config_source: {}\n", config_source.size() > 60 ? yaml_folded(config_source, 2)
                                                                       : yaml_inline(config_source));
    t += fmt::format("config_verified: {}\n", opt_.verified ? "true" : "false");
    t += fmt::format("total_params_b: {}\n", number_text(*opt_.total_params_b));
    t += fmt::format("active_params_b: {}\n", number_text(*opt_.active_params_b));
    t += fmt::format("native_context: {}\n", *d_.native);
    t += fmt::format("num_layers: {}\n", layers);
    t += fmt::format("attention_variant: {}\n", name_of(variant));
    t += fmt::format("attention_heads: {}\n", *d_.heads);
    if (!d_.mla) {
        t += fmt::format("kv_heads: {}\n", *d_.kv_heads);
        t += fmt::format("head_dim: {}\n", *d_.head_dim);
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
    std::string detail = (nested_ ? "text_config: " : "") + join(r.read());
    t += fmt::format("    detail: {}\n", yaml_folded(detail, 6));
    t += fmt::format("notes: {}\n", yaml_folded(join(notes_, " "), 2));
    out_.text = std::move(t);
}

}  // namespace

json parse_config_json(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) {
                out += text[++i];
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
            out += c;
            continue;
        }
        bool matched = false;
        for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
            if (text.substr(i, word.size()) == word) {
                out += "null";
                i += word.size() - 1;
                matched = true;
                break;
            }
        }
        if (!matched) out += c;
    }
    return json::parse(out);
}

ImportResult import_model_config(const json& config, const ImportOptions& opt) {
    ImportResult out;
    Importer(config, opt, out).run();
    return out;
}

}  // namespace kvcat
