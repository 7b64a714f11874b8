#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "support/suggest.h"

namespace kvcat::rules {

const Model* model_of(const RecordSet& set, const KvRow& row) {
    const Record* m = set.find(row.model);
    return (m && m->kind == RecordKind::model && m->model) ? &*m->model : nullptr;
}

namespace {

void check_reference(const RecordSet& set, const Record& r, const char* key, const std::string& id, RecordKind wanted,
                     std::vector<Diagnostic>& out) {
    const Record* target = set.find(id);
    if (target && target->kind == wanted) return;
    auto candidates = set.ids_of(wanted);
    out.push_back(diag::unresolved_reference(r.where(key), key, id, std::string(kind_name(wanted)),
                                             closest_match(id, candidates)));
}

}  // namespace

void ref_unresolved(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const KvRow& row = *r.kv;
    if (!row.model.empty()) check_reference(set, r, "model", row.model, RecordKind::model, out);
    if (row.accelerator && !row.accelerator->empty()) {
        check_reference(set, r, "accelerator", *row.accelerator, RecordKind::accelerator, out);
    }
    if (row.measured_on_model && !row.measured_on_model->empty()) {
        check_reference(set, r, "measured_on_model", *row.measured_on_model, RecordKind::model, out);
    }
}

KVCAT_RULES(reference_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"ref-unresolved", Severity::error,
                 "`model`, `accelerator` or `measured_on_model` names no such record", RuleStage::record,
                 ref_unresolved},
    };
    return kRules;
}

}  // namespace kvcat::rules
