// The stages of import-config, shared by the files that implement them.
//
// import_model_config() runs an Importer: one stage per part of the config (the scope and
// its keys, size, heads, layer layout, windows, sharing, fixed state, indexer, MTP, the
// options), each filling a typed Draft, then one writer turns the Draft into the record.
// The stages live in import_config.cc, import_config_layout.cc and import_config_state.cc,
// the writer in import_config_writer.cc. Nothing here is used outside them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "import/import_config.h"
#include "load/records.h"
#include "vocab/design.h"

namespace kvcat::import_stages {

using json = nlohmann::json;

/// What one decoder layer keeps, as the config lays the layers out.
enum class Role {
    full,       ///< attention over every token: grows a KV cache
    sliding,    ///< attention over the last `window` tokens
    chunked,    ///< attention within fixed chunks of `window` tokens (Llama 4's local layers)
    linear,     ///< Gated DeltaNet: a fixed state
    mamba,      ///< Mamba-1 or Mamba-2: a fixed state
    conv,       ///< a gated short convolution (LFM2): a fixed conv state
    lightning,  ///< MiniMax's lightning attention: a fixed state
    none,       ///< an MLP-only block: nothing kept
    shared,     ///< reuses an earlier layer's KV cache (Gemma 3n): adds nothing
    kda,        ///< Kimi Delta Attention: a fixed state
};

/// Far more layers than any model has; a bigger count is a broken config, not a model.
inline constexpr std::int64_t kMaxLayers = 100000;

inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += sep;
        out += item;
    }
    return out;
}

inline std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

inline std::string json_text(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// A number as a record writes it: 8, 70.6, 671.
inline std::string number_text(double v) {
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
inline KvLayout kv_layout(const std::vector<Role>& roles) {
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

inline std::string last_path_part(const std::string& text) {
    std::string s = text;
    while (!s.empty() && (s.back() == '/' || s.back() == '\\')) s.pop_back();
    auto slash = s.find_last_of("/\\");
    return slash == std::string::npos ? s : s.substr(slash + 1);
}

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
    /// KV heads of each layer, when the config states them per layer (block_configs); 0 for a
    /// layer without attention. Empty when every attention layer has kv_heads.
    std::vector<std::int64_t> layer_kv_heads;
    std::string layout_how;
    std::optional<std::int64_t> window;
    std::optional<std::int64_t> v_head_dim;  ///< V's width in the growing layers, when not head_dim
    /// The bounded layers' own shape, when it is not the growing layers'.
    std::optional<std::int64_t> sliding_kv_heads, sliding_head_dim, sliding_v_head_dim;
    bool state_beside_attention = false;  ///< Falcon-H1: a Mamba-2 mixer in every attention layer
    std::optional<StateDraft> state;
    std::optional<IndexerShape> indexer;
    std::int64_t shared = 0;
    std::int64_t mtp_layers = 0;  ///< multi-token-prediction attention layers the config states
    std::string model_type;

    std::int64_t count(Role r) const { return static_cast<std::int64_t>(std::count(roles.begin(), roles.end(), r)); }
};

inline std::string ordinal_every(std::int64_t n) {
    if (n == 2) return "every other";
    const char* suffix = n % 10 == 1 && n % 100 != 11   ? "st"
                         : n % 10 == 2 && n % 100 != 12 ? "nd"
                         : n % 10 == 3 && n % 100 != 13 ? "rd"
                                                        : "th";
    return fmt::format("every {}{}", n, suffix);
}

/// The first key of `spellings` the config states, or the first spelling when none is stated.
inline std::string spelling(const FieldReader& r, std::initializer_list<const char*> spellings) {
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
    void read_layer_shapes();
    void read_state();
    void read_indexer();
    void read_mtp();
    void check_design();
    void read_options();
    void write();

    // Layout sources, tried in read_layout's order.
    bool layout_from_block_configs(std::size_t n);
    bool layout_from_hybrid_layer_pattern(std::size_t n);
    bool layout_from_linear_attn_config(std::size_t n);
    bool layout_from_layer_types(std::size_t n);
    bool layout_from_attention_indices(std::size_t n);
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
    void read_kda(std::int64_t n_layers);
    /// The state dtype: the config's mamba_ssm_dtype, else float32 (said in the notes; a
    /// convolution-only state, which has no SSM, is worded as such).
    std::optional<std::string> state_dtype(bool conv_only = false);

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

}  // namespace kvcat::import_stages
