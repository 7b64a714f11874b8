#include "output/explain_allocation.h"

#include <fmt/format.h>

#include "engines/allocation_check.h"
#include "engines/engine_rules.h"
#include "output/engine_render.h"

namespace kvcat {

namespace {

using nlohmann::json;

std::string scalar(const Record& r, std::string_view key) {
    const YamlNode* n = r.node(key);
    return n && n->is_scalar() && n->value != "null" ? n->value : "";
}

json pairs_json(const std::vector<std::pair<std::string, std::string>>& pairs) {
    json out = json::object();
    for (const auto& [k, v] : pairs) out[k] = v;
    return out;
}

std::string bytes_display(const Rational& r) {
    return r.is_integer() ? group_thousands(r.num()) : r.to_display();
}

json figure_json(const AllocationFigure& f) {
    return {{"key", f.key},   {"printed", f.printed}, {"computed", f.computed},
            {"unit", f.unit}, {"holds", f.holds},     {"why", f.why}};
}

json part_json(const AllocationPartCheck& p) {
    json figures = json::array();
    for (const auto& f : p.figures) figures.push_back(figure_json(f));
    json out = {{"part", p.key},
                {"what", p.what},
                {"printed", pairs_json(p.printed)},
                {"settings", pairs_json(p.settings)},
                {"terms", p.terms},
                {"figures", figures}};
    if (p.bytes) out["bytes"] = bytes_display(*p.bytes);
    return out;
}

/// The textbook figure beside the engine's, and each difference the engine model names.
json textbook_json(const AllocationCheck& c, const Model& m) {
    const EngineAnswer& a = *c.answer;
    json diffs = json::array();
    for (const auto& d : a.differences) diffs.push_back({{"name", d.name}, {"detail", d.detail}});
    json out = {{"rule", a.rule},
                {"context", a.context},
                {"sequences", a.sequences},
                {"engine_bytes_per_token", bytes_display(a.engine_bytes_per_token)},
                {"textbook_bytes_per_token", bytes_display(a.textbook_bytes_per_token)},
                {"textbook_kv_bytes", bytes_display(a.textbook_kv_bytes)},
                {"textbook_state_bytes", bytes_display(a.textbook_state_bytes)},
                {"per_card", a.per_card},
                {"differences", diffs}};
    if (rules_of(c.engine).sizing == EngineSizing::at_start) {
        // The engine's bytes are the ones recomputed from the printed cells, part by part.
        Rational kv(0), state(0);
        for (const auto& p : c.parts) {
            if (!p.bytes) continue;
            (p.key == "recurrent" ? state : kv) += *p.bytes;
        }
        out["engine_kv_bytes"] = bytes_display(kv);
        out["engine_state_bytes"] = bytes_display(state);
    } else {
        out["engine_kv_bytes"] = bytes_display(a.kv_bytes);
        out["engine_state_bytes"] = bytes_display(a.state_bytes);
        json parts = json::array();
        for (const auto& p : a.parts) {
            parts.push_back(
                {{"part", std::string(name_of(p.kind))}, {"bytes", bytes_display(p.bytes())}, {"how", p.how}});
        }
        out["request_parts"] = parts;
        if (a.hybrid_manager) out["hybrid_manager"] = a.hybrid_manager_why;
        if (a.block_size > 0) out["block_size"] = a.block_size;
    }
    out["log_lines"] = engine_log_lines(a, m);
    return out;
}

}  // namespace

json explain_allocation(const RecordSet& refs, const Record& r) {
    json out;
    out["model"] = scalar(r, "model");
    out["engine"] = scalar(r, "engine");
    out["engine_version"] = scalar(r, "engine_version");
    out["url"] = scalar(r, "url");
    json lines = json::array();
    if (const YamlNode* n = r.node("log_lines"); n && n->is_sequence()) {
        for (const auto& item : n->items) lines.push_back(item.value);
    }
    out["log_lines"] = lines;
    const Record* model = refs.find(scalar(r, "model"));
    if (!model || !model->model) {
        out["unchecked"] = "no model record has this id, so no figure is recomputed";
        return out;
    }
    AllocationCheck c = check_allocation(r, *model->model);
    json parts = json::array();
    for (const auto& p : c.parts) parts.push_back(part_json(p));
    out["parts"] = parts;
    json problems = json::array();
    for (const auto& p : c.problems) {
        problems.push_back({{"key", p.key}, {"stated", p.stated}, {"expected", p.expected}, {"why", p.why}});
    }
    out["problems"] = problems;
    json not_judged = json::array();
    for (const auto& n : c.not_judged) not_judged.push_back(n.text());
    out["not_judged"] = not_judged;
    AllocationSummary s = summarise_allocation(r, c);
    out["printed"] = s.printed;
    out["computed"] = s.computed;
    if (c.answer) out["textbook"] = textbook_json(c, *model->model);
    return out;
}

namespace {

std::string joined(const json& object) {
    std::string out;
    for (const auto& [k, v] : object.items()) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{} {}", k, v.get<std::string>());
    }
    return out;
}

}  // namespace

std::string render_allocation_text(const json& a) {
    std::string version = a.value("engine_version", std::string());
    std::string out = fmt::format("\nWhat the engine printed ({}{}, {}):\n", a.value("engine", std::string()),
                                  version.empty() ? "" : " " + version, a.value("model", std::string()));
    for (const auto& l : a["log_lines"]) out += fmt::format("  {}\n", l.get<std::string>());
    if (std::string url = a.value("url", std::string()); !url.empty()) out += fmt::format("  from {}\n", url);
    if (a.contains("unchecked")) return out + fmt::format("\n{}\n", a["unchecked"].get<std::string>());

    out += "\nSettings read from the log:\n";
    for (const auto& p : a["parts"]) {
        std::string settings = joined(p["settings"]);
        out += fmt::format("  {} ({}): {}\n", p["part"].get<std::string>(), p["what"].get<std::string>(),
                           settings.empty() ? "none printed" : settings);
    }

    out += "\nkvcat's recomputation, part by part:\n";
    for (const auto& p : a["parts"]) {
        out += fmt::format("  {} ({})\n", p["part"].get<std::string>(), p["what"].get<std::string>());
        for (const auto& t : p["terms"]) out += fmt::format("    {}\n", t.get<std::string>());
        for (const auto& f : p["figures"]) {
            std::string unit = f["unit"].get<std::string>();
            if (unit != "x") unit = " " + unit;  // 5.73x, as vLLM prints it
            out += fmt::format("    {:<20} printed {}{}, kvcat {}{}: {}\n", f["key"].get<std::string>(),
                               f["printed"].get<std::string>(), unit, f["computed"].get<std::string>(), unit,
                               f["holds"].get<bool>() ? "holds" : "DIFFERS (" + f["why"].get<std::string>() + ")");
        }
    }
    for (const auto& p : a["problems"]) {
        out += fmt::format("  {}: {} is not {}: {}\n", p["key"].get<std::string>(), p["stated"].get<std::string>(),
                           p["expected"].get<std::string>(), p["why"].get<std::string>());
    }
    for (const auto& n : a["not_judged"]) out += fmt::format("  not judged: {}\n", n.get<std::string>());
    if (std::string printed = a.value("printed", std::string()); !printed.empty()) {
        std::string computed = a.value("computed", std::string());
        out += fmt::format("  in all: printed {}, kvcat {}\n", printed, computed.empty() ? "not recomputed" : computed);
    }

    if (!a.contains("textbook")) return out;
    const auto& t = a["textbook"];
    out += fmt::format("\nBeside the textbook figure ({}{}):\n", t["rule"].get<std::string>(),
                       t["per_card"].get<bool>() ? "; every engine figure is one card's" : "");
    if (t.contains("hybrid_manager")) {
        out += fmt::format("  hybrid KV-cache manager: {}\n", t["hybrid_manager"].get<std::string>());
    }
    if (t.contains("request_parts")) {
        std::string tokens = group_thousands(t["context"].get<std::int64_t>());
        out += t.contains("block_size") ? fmt::format("  one request of {} tokens takes (blocks of {}):\n", tokens,
                                                      t["block_size"].get<int>())
                                        : fmt::format("  the pool of {} tokens holds:\n", tokens);
        for (const auto& p : t["request_parts"]) {
            out += fmt::format("    {:<16} {:>18} bytes  ({})\n", p["part"].get<std::string>(),
                               p["bytes"].get<std::string>(), p["how"].get<std::string>());
        }
    }
    out +=
        fmt::format("  cache bytes per token: {} in the engine, {} in the textbook\n",
                    t["engine_bytes_per_token"].get<std::string>(), t["textbook_bytes_per_token"].get<std::string>());
    out += fmt::format("  engine cache {} bytes, state {} bytes; textbook cache {} bytes, state {} bytes\n",
                       t["engine_kv_bytes"].get<std::string>(), t["engine_state_bytes"].get<std::string>(),
                       t["textbook_kv_bytes"].get<std::string>(), t["textbook_state_bytes"].get<std::string>());
    if (!t["differences"].empty()) {
        out += "  where the engine differs from the textbook:\n";
        for (const auto& d : t["differences"]) {
            out += fmt::format("    - {}: {}\n", d["name"].get<std::string>(), d["detail"].get<std::string>());
        }
    }
    return out;
}

}  // namespace kvcat
