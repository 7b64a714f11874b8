// allocation-log-lines: an allocation record keeps the lines its engine printed (log_lines) beside
// the figures read from them, and `kvcat explain` shows those lines as what the engine printed.
// The lines are read again here, as import-log reads a log, and every figure they give must be
// the one the record holds: a figure edited without its line (or a line without its figure) is a
// record that says two things, and engine-allocation judges only the figure.
#include <cstdio>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "engines/engine_log.h"
#include "engines/engine_rules.h"
#include "load/records.h"
#include "support/rational.h"

namespace kvcat::rules {

namespace {

bool same(const LoggedFigure& f, const std::string& held) {
    if (!f.decimal) return f.value == held;
    auto a = Rational::parse(f.value), b = Rational::parse(held);
    return a && b && *a == *b;
}

void allocation_log_lines(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (r.kind != RecordKind::allocation || !r.source) return;
    const YamlNode* lines = r.node("log_lines");
    if (!lines || !lines->is_sequence() || lines->items.empty()) return;  // the schema's finding
    std::string text;
    for (const auto& item : lines->items) text += (item.is_scalar() ? item.value : std::string()) + "\n";
    ParsedLog log;
    try {
        log = parse_engine_log(text, "log_lines", LogText::record_lines);
    } catch (const LogError& e) {
        // "log_lines:N: why: 'line'": the N-th line of the list is where the finding sits.
        std::string why = e.what();
        Position at = r.where("log_lines");
        int n = 0;
        if (std::sscanf(why.c_str(), "log_lines:%d:", &n) == 1 && n >= 1 &&
            static_cast<std::size_t>(n) <= lines->items.size()) {
            at = r.source->position(lines->items[static_cast<std::size_t>(n) - 1].mark);
            why = why.substr(why.find(':', std::string("log_lines:").size()) + 2);
        }
        out.push_back(
            diag::finding("allocation-log-lines", at, fmt::format("this line does not read as the engine's: {}", why)));
        return;
    }
    const YamlNode* engine = r.node("engine");
    auto named = engine && engine->is_scalar() ? parse_engine(engine->value) : std::nullopt;
    if (engine && engine->is_scalar() && (!named || log_family(*named) != log.engine)) {
        out.push_back(diag::finding(
            "allocation-log-lines", r.where("engine"),
            fmt::format("engine is {}, but log_lines are {}'s lines", engine->value, name_of(log.engine))));
    }
    for (const LoggedFigure& f : logged_figures(log)) {
        const YamlNode* held = r.node(f.key);
        if (!held || !held->is_scalar() || held->value == "null") continue;
        if (same(f, held->value)) continue;
        Diagnostic d = diag::finding(
            "allocation-log-lines", r.where(f.key),
            fmt::format("{} is {}, but log_lines print {}: the figure and the line the engine printed must agree",
                        f.key, held->value, f.value));
        d.stated = held->value;
        d.computed = f.value;
        out.push_back(std::move(d));
    }
}

}  // namespace

KVCAT_RULES(allocation_log_lines) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"allocation-log-lines", Severity::error,
                 "an allocation record's figure disagrees with its `log_lines` read again as import-log reads them, "
                 "or a line does not read as the engine's",
                 RuleStage::record, allocation_log_lines},
    };
    return kRules;
}

}  // namespace kvcat::rules
