// What the lint checked for one record, and what it could not.
//
// explain_record() gathers, for one kv-efficiency record: every claim found in its
// prose with where it sits and whether it holds; its structured basis and product;
// the basis the model record implies, layer type by layer type; the exact bytes at
// the row's context; the what-if baselines; and the record's own findings. The two
// renderers print the same Explanation as text or as JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check/lint.h"

namespace kvcat {

/// Builds the explanation as JSON data (the text form is rendered from it).
/// Throws std::invalid_argument when the record is not in the result.
nlohmann::json explain_record(const LintResult& lint, const Record& record);

/// The human-readable form of explain_record's data.
std::string render_explanation_text(const nlohmann::json& explanation);

/// The record a command-line argument names: an id, or a path to a record file.
const Record* find_record(const LintResult& lint, const std::string& id_or_file);

}  // namespace kvcat
