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
#include "load/records.h"
#include "support/rational.h"

namespace kvcat::rules {

namespace {

/// One figure the lines give: the record's key for it, and the value as import-log writes it.
struct LineFigure {
    std::string key;
    std::string value;
    bool decimal = false;  ///< compared as a number ("45.3" and "45.30" alike), else as text
};

void add(std::vector<LineFigure>& out, const std::string& key, const std::optional<std::int64_t>& v) {
    if (v) out.push_back({key, std::to_string(*v), true});
}

void add(std::vector<LineFigure>& out, const std::string& key, const std::string& v, bool decimal) {
    if (!v.empty()) out.push_back({key, v, decimal});
}

/// Every figure the parsed lines give, under the record keys allocation_record_text writes.
std::vector<LineFigure> figures_of(const ParsedLog& log) {
    std::vector<LineFigure> out;
    for (const auto& c : log.caches) {
        std::string part = c.scope == "swa" ? "swa_cache." : "kv_cache.";
        add(out, part + "cells", c.cells);
        add(out, part + "seqs", c.seqs);
        add(out, part + "layers", c.layers);
        add(out, part + "size_mib", c.size_mib, true);
        add(out, part + "k_type", c.k_type, false);
        add(out, part + "k_mib", c.k_mib, true);
        add(out, part + "v_type", c.v_type, false);
        add(out, part + "v_mib", c.v_mib, true);
    }
    if (log.recurrent) {
        const LoggedRecurrent& r = *log.recurrent;
        add(out, "recurrent.cells", r.cells);
        add(out, "recurrent.seqs", r.seqs);
        add(out, "recurrent.layers", r.layers);
        add(out, "recurrent.size_mib", r.size_mib, true);
        add(out, "recurrent.r_type", r.r_type, false);
        add(out, "recurrent.r_mib", r.r_mib, true);
        add(out, "recurrent.s_type", r.s_type, false);
        add(out, "recurrent.s_mib", r.s_mib, true);
    }
    for (std::size_t i = 0; i < log.buffers.size(); ++i) {  // in the log's order, as import-log writes them
        add(out, fmt::format("start.buffers.{}.device", i), log.buffers[i].device, false);
        add(out, fmt::format("start.buffers.{}.kind", i), log.buffers[i].kind, false);
        add(out, fmt::format("start.buffers.{}.mib", i), log.buffers[i].mib, true);
    }
    if (log.engine == Engine::vllm) {
        add(out, "vllm.available_kv_gib", log.available_gib, true);
        add(out, "vllm.tokens", log.tokens);
        add(out, "vllm.concurrency", log.concurrency, true);
    }
    if (log.engine == Engine::sglang) {
        add(out, "sglang.tokens", log.tokens);
        add(out, "sglang.k_gb", log.k_gb, true);
        add(out, "sglang.v_gb", log.v_gb, true);
        add(out, "sglang.kv_gb", log.kv_gb, true);
        add(out, "sglang.mamba_slots", log.mamba_slots);
        add(out, "sglang.conv_state_gb", log.conv_state_gb, true);
        add(out, "sglang.ssm_state_gb", log.ssm_state_gb, true);
    }
    return out;
}

bool same(const LineFigure& f, const std::string& held) {
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
    for (const LineFigure& f : figures_of(log)) {
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
