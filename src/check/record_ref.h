// What a user types for a record: its id, or less. `qwen3.5-27b` names models/qwen3.5-27b
// when a model is asked for; `vllm-qwen35` names the one record whose name starts so.
// Anything else is an error that offers the nearest id or lists the ones it could mean.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "check/lint.h"
#include "load/schema.h"

namespace kvcat {

struct RecordRef {
    const Record* record = nullptr;  ///< null when nothing or several match
    std::string error;               ///< why not, with a did-you-mean when one is near
};

/// Finds the record `given` names, among records of `kind` (any kind when unset): its id,
/// its id without the kind's folder, or a start of its name that ends where a word does and
/// only one record has ("vllm-qwen35", also written "vllm-qwen35-...").
RecordRef resolve_record(const RecordSet& set, std::string_view given, std::optional<RecordKind> kind);

}  // namespace kvcat
