// A model record from a GGUF file's header, for the llama.cpp and ollama user who holds a
// .gguf and no config.json.
//
// The header's metadata keys (as llama.cpp names them in src/llama-arch.cpp, LLM_KV_NAMES:
// `<arch>.block_count`, `<arch>.attention.head_count_kv`, `<arch>.attention.key_length`, ...)
// are translated to the config.json fields they were converted from (llama.cpp's
// convert_hf_to_gguf.py writes them), and the translated config is imported as any other: the
// same stages, the same right-or-refused rule, the same record. The record says it came from
// GGUF metadata and which file. Only the architectures in gguf_architectures() are read; a
// key of the architecture that may change the cache and is not read refuses the import.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "import/import_config.h"

namespace kvcat {

/// The general.architecture values whose keys kvcat reads.
std::span<const std::string_view> gguf_architectures();

/// The header's metadata as the config.json it stands for, or the problems. `keys_read`
/// lists the GGUF keys the translation used.
struct GgufConfig {
    nlohmann::json config;
    std::string architecture;
    std::vector<std::string> keys_read;
    std::vector<std::string> problems;
    std::vector<std::string> notes;
};
GgufConfig config_from_gguf(const std::map<std::string, nlohmann::json>& metadata);

/// A model record from the metadata of the GGUF file `options.config_file` names. Never
/// throws for bad input.
ImportResult import_model_gguf(const std::map<std::string, nlohmann::json>& metadata, const ImportOptions& options);

}  // namespace kvcat
