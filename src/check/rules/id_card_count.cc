// id-card-count: a record whose id names a card count ("-2x-rtx3090", "-8x-a100") must say as
// much in `gpus`. The id is what a reader sees in every table; `gpus` is what the roofline and
// memory rules multiply the card by and what `query gpus=8` finds. A run on eight cards filed
// as one looks eight times as fast per card as it was, and the lint then passes it.
#include <regex>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/records.h"

namespace kvcat::rules {

namespace {

/// The card count an id's name states as a word of its own, "-4x-" (or at its start); nullopt
/// when it states none. "b12x" or "mxfp4" are not counts: the word is digits, then x.
std::optional<std::int64_t> card_count_of_id(std::string_view id) {
    std::string_view name = id_name(id);
    static const std::regex count(R"((?:^|-)([1-9][0-9]{0,2})x-)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(name.begin(), name.end(), m, count)) return std::nullopt;
    return std::stoll(m[1].str());
}

void id_card_count(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv || r.id.empty()) return;
    auto named = card_count_of_id(r.id);
    if (!named || *named == r.kv->gpus) return;
    out.push_back(diag::finding(
        "id-card-count", r.where("gpus"),
        fmt::format("the id names {} cards ('{}x'), but gpus is {}{}; write gpus: {} (and the card and the split "
                    "the source gives), or rename the record",
                    *named, *named, r.kv->gpus, r.kv->gpus == 1 ? " (1 when absent)" : "", *named)));
}

}  // namespace

KVCAT_RULES(id_card_count) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"id-card-count", Severity::error, "an id's card count (`-4x-`) disagrees with `gpus`",
                 RuleStage::record, id_card_count},
    };
    return kRules;
}

}  // namespace kvcat::rules
