// What a user types for a record: its id, or less. `qwen3.5-27b` names models/qwen3.5-27b
// when a model is asked for; `vllm-qwen35` names the one record whose name starts so.
// Anything else is an error that offers the nearest id or lists the ones it could mean.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

/// A record a command names: what the user typed, and the kind it must be.
struct RecordName {
    std::string given;
    RecordKind kind;
};

/// The files of the records `names` resolve to among `set`; a name that resolves to none adds
/// nothing (the command resolves it again and says why). For LintOptions::judge_only: the
/// records a command answers from are judged, and their findings shown beside its answer.
std::set<std::string> files_named(const RecordSet& set, const std::vector<RecordName>& names);

}  // namespace kvcat
