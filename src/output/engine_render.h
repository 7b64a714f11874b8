// An engine's answer for a person and for a program: the lines the engine itself prints at
// start-up (so a reader can hold kvcat's figure beside the engine's log), the parts, the
// differences from the textbook figure, and the same as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/engine_memory.h"

namespace kvcat {

/// The start-up lines the engine prints for this allocation: llama.cpp's "llama_kv_cache: size
/// = ..." (one per cache) and "llama_memory_recurrent: size = ...", vLLM's "GPU KV cache size"
/// and "Maximum concurrency" (with a pool), SGLang's "KV Cache is allocated".
std::vector<std::string> engine_log_lines(const EngineAnswer& answer, const Model& model);

/// The answer as text, indented for kvcat fit.
std::string engine_text(const EngineAnswer& answer, const Model& model);

/// engine_kv_bytes, engine_state_bytes, engine_tokens and the rest of the answer.
nlohmann::json engine_json(const EngineAnswer& answer, const Model& model);

}  // namespace kvcat
