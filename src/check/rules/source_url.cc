// A measured figure a reader cannot open the source of is a claim, not a measurement: every
// kv-efficiency record that states a speed, a time or a quality result names at least one
// source with an address and the date it was published or read.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"

namespace kvcat::rules {

namespace {

/// How many of the row's points carry a measured figure.
std::size_t measured_points(const KvRow& k) {
    std::size_t n = 0;
    for (const auto& p : k.points) {
        if (p.tps || p.prefill_tps || p.ttft_ms || p.total_tps) ++n;
    }
    return n;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

void source_url(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const KvRow& k = *r.kv;
    std::size_t points = measured_points(k);
    std::size_t quality = k.quality.size();
    if (points == 0 && quality == 0) return;
    std::string holds = points && quality
                            ? fmt::format("{} and {}", plural(points, "measured point", "measured points"),
                                          plural(quality, "quality entry", "quality entries"))
                        : points ? plural(points, "measured point", "measured points")
                                 : plural(quality, "quality entry", "quality entries");
    bool addressed = false;
    for (std::size_t i = 0; i < r.sources.size(); ++i) {
        const Source& s = r.sources[i];
        if (s.url.empty()) continue;
        addressed = true;
        if (s.date.empty()) {
            out.push_back(diag::finding(
                "source-url", r.where(fmt::format("sources.{}.url", i)),
                fmt::format("source '{}' gives an address but no date: add `date: YYYY-MM-DD`, when the page was "
                            "published or read, so a reader knows which version the figures came from",
                            s.name)));
        }
    }
    if (addressed) return;
    bool listed = r.node("sources") != nullptr;
    out.push_back(diag::finding(
        "source-url", listed ? r.where_key("sources") : r.where_key("id"),
        fmt::format("the record holds {} but {}: give the page, file or thread the figures were read from as "
                    "`url:` with its `date:`; a figure whose source cannot be opened cannot be checked",
                    holds, listed ? "none of its sources has a `url`" : "names no source")));
}

KVCAT_RULES(source_url) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"source-url", Severity::warning,
                 "a kv-efficiency record with a measured value or a quality entry names no source with a `url`, or "
                 "a source with a `url` gives no `date`",
                 RuleStage::record, source_url},
    };
    return kRules;
}

}  // namespace kvcat::rules
