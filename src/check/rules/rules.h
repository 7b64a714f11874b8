// The lint rules. Each file of src/check/rules/ declares its rules with KVCAT_RULES(<file name>):
// one descriptor per rule (id, severity, one line of what it checks, the stage it runs at
// and, for a record rule, its check function, named after the id). The registry
// (src/check/rule_registry.cc) finds every file's descriptors; nothing else lists a rule.
// `tools/new-rule ID` writes a new rule's file and fixtures.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "check/lint.h"
#include "check/rule_registry.h"
#include "predict/speed_points.h"
#include "support/diagnostic.h"

/// The rules one file of src/check/rules/ declares: `KVCAT_RULES(kv_rules) { static constexpr
/// RuleInfo kRules[] = {...}; return kRules; }` in src/check/rules/kv_rules.cc. The name is the
/// file's name without .cc; a file whose function is missing or misnamed fails to link.
#define KVCAT_RULES(file_stem) std::span<const ::kvcat::RuleInfo> rules_in_##file_stem()

namespace kvcat::rules {

/// One id as the lint saw it, for the uniqueness check.
struct IdEntry {
    std::string id;
    Position pos;  ///< where the id is written; pos.file is the record's file
};
/// id-duplicate: the run's check, over every id at once.
void id_duplicate(const std::vector<IdEntry>& ids, std::vector<Diagnostic>& out);

/// What the run keeps of one row for its checks across rows, however many rows there are: its
/// measured points, where each decode figure is written, and its acknowledgements.
struct RowSpeeds {
    std::string file;
    std::vector<SpeedPoint> points;
    std::vector<Position> decode_at;  ///< per point
    std::vector<LintIgnore> ignores;
    std::vector<Position> ignore_at;  ///< per ignore
};
RowSpeeds row_speeds(const Record& r, const RecordSet& refs);

/// decode-far-from-prediction: every measured decode point against what the other records of its
/// setup predict; `refs` holds the models and cards. A finding a row acknowledges becomes a
/// note in `ignored`; an acknowledgement that matches no finding is a finding itself. The rows'
/// points move into the predictor (a copy of each showed among a lint's allocations).
void decode_far_from_prediction(std::vector<RowSpeeds> rows, const RecordSet& refs, std::vector<Diagnostic>& out,
                                std::vector<Diagnostic>& ignored);

/// The accelerator record a row names, when it resolves to one.
const Accelerator* accelerator_of(const RecordSet& set, const KvRow& row);

/// The model record a kv-efficiency row names, when it resolves to a model.
const Model* model_of(const RecordSet& set, const KvRow& row);

}  // namespace kvcat::rules
