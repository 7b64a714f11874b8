// id-invisible-character: a record's id and file name hold no character a reader cannot see
// (hidden_text.h): an id with a zero-width space or a right-to-left mark looks exactly like
// another record's, so a row could pass for the one a reviewer thinks they read, and a control
// character in a file name reaches terminals, links and the catalog.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "support/hidden_text.h"

namespace kvcat::rules {

namespace {

/// id-invisible-character: the file's path under the root, then the id when it says
/// something else (when they agree, one finding says it for both).
void id_invisible_character(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    Position at = r.root && r.root->find("id") ? r.where("id") : Position{r.file, 1, 1};
    if (auto c = first_hidden_character(r.path_id)) {
        out.push_back(diag::finding(
            "id-invisible-character", at,
            fmt::format("the record's path holds {} at byte {}; name the file with visible characters only{}",
                        describe(*c), c->offset, r.id == r.path_id ? " (the id repeats it: change both)" : "")));
        if (r.id == r.path_id) return;
    }
    if (r.id.empty()) return;
    if (auto c = first_hidden_character(r.id)) {
        out.push_back(
            diag::finding("id-invisible-character", at,
                          fmt::format("the id holds {} at byte {}; an id is written in visible characters only",
                                      describe(*c), c->offset)));
    }
}

}  // namespace

KVCAT_RULES(id_invisible_character) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"id-invisible-character", Severity::error,
                 "a record's id or file name holds a control, zero-width or bidirectional character", RuleStage::record,
                 id_invisible_character},
    };
    return kRules;
}

}  // namespace kvcat::rules
