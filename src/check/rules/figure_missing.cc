// figure-missing: a rule that needs a figure no record gives says so, on the row it could not
// judge, naming the rule and the record that lacks the figure. The roofline, memory, depth and
// native-context rules each skip a row whose card or model lacks what they need; the lacking
// record has its own schema finding, but the row itself passed those rules in silence, and a
// reviewer of the row's pull request saw nothing about it. A weight format kvcat cannot size is
// not missing: those rules count such weights as none and judge the row on a looser bound.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "model/kv_math.h"
#include "support/spoken_list.h"

namespace kvcat::rules {

namespace {

void warn(const Record& r, const std::string& key, const std::vector<std::string>& rules, const std::string& lacks,
          std::vector<Diagnostic>& out) {
    if (rules.empty()) return;
    out.push_back(diag::finding("figure-missing", r.where(key),
                                fmt::format("{} {} not judged for this row: {}; give that figure in that record",
                                            spoken_list(rules), rules.size() == 1 ? "is" : "are", lacks)));
}

bool measured_speed(const KvRow& row) {
    for (const auto& p : row.points) {
        if (p.tps_exact || p.total_tps_exact) return true;
    }
    return false;
}

void figure_missing(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const KvRow& row = *r.kv;
    // The rules below need the row's card (speed and memory) or its model (all of them). A row
    // that names none, or an id no record has, has a finding of its own (measured-without-card,
    // unresolved-reference) that says so.
    bool speculative = row.speculative_decoding && !row.speculative_decoding->empty();
    bool speed = measured_speed(row) && !speculative;
    bool memory = !row.offload && !row.points.empty();
    if (const Accelerator* a = accelerator_of(refs, row)) {
        if (!a->memory_bandwidth_gb_s_exact) {
            std::vector<std::string> rules;
            if (speed) rules.push_back("tps-above-roofline");
            if (speed && !row.offload && row.points.size() > 1) rules.push_back("engine-bound-at-depth");
            warn(r, "accelerator", rules, fmt::format("{} gives no memory_bandwidth_gb_s", *row.accelerator), out);
        }
        if (!a->memory_reported && !a->memory_gb_exact && memory) {
            warn(r, "accelerator", {"exceeds-memory"},
                 fmt::format("{} gives neither memory_reported nor memory_gb", *row.accelerator), out);
        }
    }
    const Model* model = model_of(refs, row);
    if (!model) return;
    bool basis = false;
    try {
        basis = model_basis(*model).has_value();
    } catch (const OverflowError&) {
        basis = true;  // arith-overflow reports it where the model's figures multiply
    }
    if (!basis) {
        std::vector<std::string> rules{"kv-basis-model"};
        if (speed && accelerator_of(refs, row)) rules.push_back("tps-above-roofline");
        if (memory && accelerator_of(refs, row)) rules.push_back("exceeds-memory");
        warn(r, "model", rules,
             fmt::format("{} gives no KV figures kvcat can read (its kv_layers, kv_heads and head_dim, or its mla "
                         "widths)",
                         row.model),
             out);
    }
    if (!model->native_context && !row.context_extension && !row.points.empty()) {
        warn(r, "model", {"context-above-native"}, fmt::format("{} gives no native_context", row.model), out);
    }
}

}  // namespace

KVCAT_RULES(figure_missing) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"figure-missing", Severity::warning,
                 "a row that a rule cannot judge for want of a figure of the card or model it names (bandwidth, "
                 "memory, KV figures, native context) says which rules and which figure; a weight format of no "
                 "exact size is not missing (the weights count as none)",
                 RuleStage::record, figure_missing},
    };
    return kRules;
}

}  // namespace kvcat::rules
