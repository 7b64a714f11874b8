// A model record from a Hugging Face config.json.
//
// import_model_config() reads the figures that decide a model's KV cache from a parsed
// config (the text model's own fields, from `text_config` when the config nests one) and
// writes a model record that lints clean. It never guesses: a figure the schema needs and
// the config does not state (parameter counts, a layer layout it cannot read), and a key
// that changes the cache in a way kvcat does not model, is an error naming it, and every
// default or derivation it does apply (num_key_value_heads defaulting to the query heads, head_dim
// derived from hidden_size, an MTP layer left out, a state dtype taken as float32) is
// said in the record's notes. It is a pure function: parsed JSON and options in, record
// text or the list of problems out; reading and writing files is the caller's business.
//
// Which keys it reads, ignores or refuses is the table in import_config_keys.h; the layouts
// and designs it reads (sliding, chunked, shared, MLA with an indexer, Gated DeltaNet,
// Mamba-1, Mamba-2 in layers of their own or beside attention, short convolutions, MLP-only
// layers) are listed in the README's design table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvcat {

struct ImportOptions {
    std::string config_file;                     ///< the file name, as shown in notes and sources
    std::optional<std::string> id;               ///< "models/NAME" or "NAME"; default from the name
    std::optional<std::string> name;             ///< the published name; default _name_or_path's last part
    std::optional<std::string> source;           ///< what the config is, for sources/config_source
    std::optional<double> total_params_b;        ///< required: a config does not state it
    std::optional<double> active_params_b;       ///< required: a config does not state it
    std::optional<std::int64_t> native_context;  ///< only when the config lacks max_position_embeddings
    bool verified = false;                       ///< config_verified
    /// Count the multi-token-prediction layers as layers that cache (they do only while an
    /// engine runs MTP speculative decoding); by default they are named in the notes only.
    bool count_mtp = false;
    /// The config was translated from a GGUF file's metadata (import_model_gguf): the record
    /// says so, with the GGUF keys read and what the translation assumed.
    bool gguf = false;
    std::vector<std::string> gguf_notes;
    std::vector<std::string> gguf_keys_read;
};

struct ImportResult {
    std::string id;                      ///< models/NAME
    std::string text;                    ///< the record, YAML
    std::vector<std::string> problems;   ///< empty on success; each names the field or option
    std::vector<std::string> keys_read;  ///< every config key the import looked at, present or not
    bool ok() const { return problems.empty(); }
    /// Every problem, one a line.
    std::string message() const;
};

/// Parses config.json text. Python's json module, which writes most configs, spells the
/// floats it cannot write in JSON as NaN, Infinity and -Infinity (Nemotron-H's
/// time_step_limit); outside strings those are read as the strings "NaN", "Infinity" and
/// "-Infinity", so a key kvcat reads that holds one is "not a number" with its name, never
/// absent. Throws nlohmann::json::parse_error for anything else that is not JSON.
nlohmann::json parse_config_json(std::string_view text);

/// Builds a model record from a parsed config.json. Never throws for bad input.
ImportResult import_model_config(const nlohmann::json& config, const ImportOptions& options);

/// "llama-3.1-8b" from "Llama-3.1-8B": lower case, every run of characters other than
/// a-z, 0-9, '.', '_' and '-' made one '-', no leading or trailing '-' or '.'.
std::string file_safe_name(std::string_view text);

// Small YAML writers, shared with the kv-efficiency skeleton.

/// A scalar on one line: plain when YAML reads it back as the same string, else double-quoted.
std::string yaml_inline(std::string_view text);
/// A `>-` folded block for a long string: the indicator, then lines of at most `width`
/// columns indented by `indent` spaces. Words are never split.
std::string yaml_folded(std::string_view text, int indent, std::size_t width = 88);

}  // namespace kvcat
