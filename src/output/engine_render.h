// An engine's answer for a person and for a program: the lines the engine itself prints at
// start-up (engine_log_lines, from each engine's own file), the parts, the differences from
// the textbook figure, and the same as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/engine_memory.h"

namespace kvcat {

/// The answer as text, indented for kvcat fit.
std::string engine_text(const EngineAnswer& answer, const Model& model);

/// engine_kv_bytes, engine_state_bytes, engine_tokens and the rest of the answer.
nlohmann::json engine_json(const EngineAnswer& answer, const Model& model);

}  // namespace kvcat
