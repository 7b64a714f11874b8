#include "output/explain.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "check/record_claims.h"
#include "check/rules/rules.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "output/explain_allocation.h"
#include "vocab/design.h"
#include "vocab/dtype.h"

namespace kvcat {

namespace {

using nlohmann::json;

/// An exact figure as JSON: an integer when it is one, else {"exact": "17/16", "approx": 1.0625}.
json exact(const Rational& r) {
    if (r.is_integer()) return r.num();
    return json{{"exact", r.to_string()}, {"approx", r.to_double()}};
}

std::string show(const json& v) {
    if (v.is_number_integer()) return group_thousands(v.get<std::int64_t>());
    if (v.is_object() && v.contains("exact")) return v["exact"].get<std::string>();
    if (v.is_null()) return "-";
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

std::string gib(const Rational& bytes) {
    Rational g = bytes / Rational(1LL << 30);
    std::int64_t scaled = g.round_scaled(2);
    return fmt::format("{}.{:02d} GiB", group_thousands(scaled / 100), std::llabs(scaled % 100));
}

const char* verdict_name(Claim::Verdict v) {
    switch (v) {
        case Claim::Verdict::holds:
            return "holds";
        case Claim::Verdict::wrong:
            return "wrong";
        case Claim::Verdict::binary_only:
            return "binary-units";
        case Claim::Verdict::unjudged:
            return "unjudged";
    }
    return "unjudged";
}

/// How explain labels a claim: "checked, holds", "WRONG", ...
const char* verdict_label(const std::string& verdict) {
    if (verdict == "wrong") return "WRONG";
    if (verdict == "binary-units") return "holds only in KiB/MiB/GiB";
    if (verdict == "unjudged") return "not judged";
    return "checked, holds";
}

json claims_json(const Record& record) {
    json out = json::array();
    for (const auto& c : record_claims(record)) {
        json j{{"line", c.pos.line},
               {"column", c.pos.column},
               {"field", c.field},
               {"text", c.claim.text},
               {"expression", c.claim.expression},
               {"computed", c.claim.computed_display},
               {"holds", c.claim.holds},
               {"verdict", verdict_name(c.claim.verdict)},
               {"kind", c.claim.kind == Claim::Kind::ratio ? "ratio" : "equation"}};
        if (!c.claim.why.empty()) j["why"] = c.claim.why;
        if (!c.claim.holds && c.claim.wrong_side < c.claim.sides.size()) {
            j["wrong_side"] = c.claim.sides[c.claim.wrong_side].text;
        }
        out.push_back(std::move(j));
    }
    return out;
}

json model_accounting(const Model& m, const Rational& bpe, const KvRow& row) {
    json out;
    std::string problem;
    KvLayerCount layers = kv_layer_count(m, &problem);
    auto basis = model_basis(m);
    out["num_layers"] = m.num_layers ? json(*m.num_layers) : json(nullptr);
    out["growing_layers"] = layers.count;
    out["growing_layers_how"] = layers.how;
    if (!problem.empty()) out["layer_problem"] = problem;
    if (!basis) {
        out["complete"] = false;
        return out;
    }
    out["complete"] = true;
    Rational per_layer = elements_per_layer_token(*basis);
    Rational growing = growing_elements_per_token(*basis);
    // The text form prints growing_layers x per_layer_elements; for differing layers that is
    // the average, so it is given as the exact total over the layers instead.
    out["per_layer_elements"] =
        basis->groups.empty() || basis->layers == 0 ? exact(per_layer) : exact(growing / Rational(basis->layers));
    if (basis->latent_dim) {
        out["latent_dim"] = *basis->latent_dim;
        out["per_layer_how"] =
            fmt::format("one MLA latent of {} elements (kv_lora_rank + qk_rope_head_dim)", *basis->latent_dim);
    } else if (!basis->groups.empty()) {
        std::string how;
        json groups = json::array();
        for (const auto& g : basis->groups) {
            if (!how.empty()) how += " + ";
            how += fmt::format("{} layers x {} kv heads x {} head_dim x 2", g.layers, g.kv_heads, g.head_dim);
            groups.push_back({{"layers", g.layers}, {"kv_heads", g.kv_heads}, {"head_dim", g.head_dim}});
        }
        out["groups"] = groups;
        out["per_layer_how"] = fmt::format("layers differ: {} = {} elements", how, group_thousands(growing.floor()));
    } else {
        out["kv_heads"] = *basis->kv_heads;
        out["head_dim"] = *basis->head_dim;
        out["per_layer_how"] = fmt::format("{} kv heads x {} head_dim x 2 (K and V) = {} elements", *basis->kv_heads,
                                           *basis->head_dim, group_thousands(per_layer.num()));
    }
    out["kv_factor"] = basis->kv_factor;
    out["bytes_per_element"] = exact(bpe);
    Rational per_token = growing_bytes_per_token(*basis, bpe);
    out["bytes_per_token"] = exact(per_token);
    if (basis->indexer_bytes) out["indexer_bytes_per_layer_token"] = *basis->indexer_bytes;
    if (basis->window) out["bounded_at"] = *basis->window;
    if (m.sliding) {
        out["sliding"] = {{"layers", m.sliding->layers},
                          {"window", m.sliding->window},
                          {"kind", std::string(name_of(m.sliding->kind))},
                          {"bytes_per_token_until_window", exact(Rational(m.sliding->layers) * per_layer * bpe)}};
    }
    if (m.linear) {
        // A row that states its engine's state dtype replaces the model's assumption.
        std::string conv = row.conv_state_dtype                 ? *row.conv_state_dtype
                           : row.state_dtype                    ? *row.state_dtype
                           : m.linear->conv_state_dtype.empty() ? m.linear->state_dtype
                                                                : m.linear->conv_state_dtype;
        out["linear"] = {{"kind", std::string(name_of(m.linear->kind))},
                         {"layers", m.linear->layers},
                         {"state_dtype", row.state_dtype.value_or(m.linear->state_dtype)},
                         {"conv_state_dtype", conv},
                         {"state_dtype_from", row.state_dtype || row.conv_state_dtype ? "row" : "model"},
                         {"fixed_state_bytes", exact(fixed_state_bytes(m, row))}};
    }
    if (!row.points.empty()) {
        // The longest context the row describes; every point's figures are in "points".
        std::int64_t ctx = 0;
        for (const auto& p : row.points) ctx = std::max(ctx, p.context_length);
        Rational total = kv_bytes_at_context(m, per_token, ctx, bpe);
        Rational growing_bytes = basis->window ? Rational(0) : per_token * Rational(ctx);
        out["at_context"] = {{"context_length", ctx},
                             {"growing_bytes", exact(growing_bytes)},
                             {"sliding_bytes", exact(total - growing_bytes)},
                             {"kv_bytes_at_context", exact(total)},
                             {"fixed_state_bytes", exact(fixed_state_bytes(m, row))},
                             {"kv_gib_at_context", gib(total)}};
    }
    json baselines = json::object();
    if (auto g = all_layers_gqa_bytes(m, bpe)) {
        baselines["all_layers_gqa_bytes_per_token"] = exact(*g);
        if (!per_token.is_zero()) baselines["all_layers_gqa_factor"] = (*g / per_token).to_double();
    }
    if (auto h = all_layers_mha_bytes(m, bpe)) {
        baselines["all_layers_mha_bytes_per_token"] = exact(*h);
        if (!per_token.is_zero()) baselines["all_layers_mha_factor"] = (*h / per_token).to_double();
    }
    out["baselines"] = baselines;
    return out;
}

/// Why the lint applied no bandwidth ceiling to the row's speeds, checked in the order the
/// roofline needs its figures; "" when it has them all.
std::string why_no_ceiling(const RecordSet& set, const KvRow& row, const Model* model,
                           const std::optional<Rational>& element) {
    if (!model) return fmt::format("the model {} is not a model record kvcat could read", row.model);
    if (!row.accelerator) {
        return "the record names no accelerator (a run over several cards, or none named)";
    }
    if (!rules::accelerator_of(set, row)) {
        return fmt::format("the accelerator {} is not an accelerator record kvcat could read", *row.accelerator);
    }
    if (!row.weight_bytes) {
        if (!row.weight_quant) {
            return "the record names no weight format and states no weight_bytes";
        }
        if (!find_weight_quant(*row.weight_quant)) {
            return fmt::format("the weight format {} has no exact size in kvcat and the record states no weight_bytes",
                               *row.weight_quant);
        }
    }
    if (!element) return fmt::format("the cache dtype {} has no known bytes per element", row.kv_cache_dtype);
    if (!model_basis(*model)) return "the model record lacks the layer figures the KV bytes at a context need";
    return "";
}

json points_json(const RecordSet& set, const KvRow& row, const Model* model, const std::optional<Rational>& element) {
    json out = json::array();
    const Accelerator* accelerator = rules::accelerator_of(set, row);
    for (const auto& p : row.points) {
        json j{{"context_length", p.context_length},
               {"concurrency", p.concurrency},
               {"measured_tps_at_ctx", p.tps ? json(*p.tps) : json(nullptr)},
               {"measured_prefill_tps_at_ctx", p.prefill_tps ? json(*p.prefill_tps) : json(nullptr)},
               {"measured_total_tps_at_ctx", p.total_tps ? json(*p.total_tps) : json(nullptr)},
               {"measured_ttft_ms_at_ctx", p.ttft_ms ? json(*p.ttft_ms) : json(nullptr)}};
        if (model && element) {
            try {
                auto basis = model_basis(*model);
                if (basis) {
                    Rational bpe = *element;
                    Rational kv =
                        kv_bytes_at_context(*model, growing_bytes_per_token(*basis, bpe), p.context_length, bpe);
                    j["kv_bytes_at_context"] = exact(kv);
                    auto weights = row_weights(*model, row.weight_quant, row.weight_bytes);
                    if (weights && accelerator) {
                        Roofline roof = batch_roofline(*accelerator, weights->active, kv,
                                                       fixed_state_bytes(*model, row), p.concurrency, row.gpus);
                        j["roofline_tps"] = roof.ceiling_tps.to_double();
                        j["roofline_how"] =
                            roofline_how(*accelerator, roof, weights->label, kv, fixed_state_bytes(*model, row),
                                         p.context_length, p.concurrency, row.gpus);
                        if (p.tps_exact) j["roofline_fraction"] = (*p.tps_exact / roof.ceiling_tps).to_double();
                    }
                }
            } catch (const std::exception& e) {
                // an overflow or a missing figure: the lint's findings say which
                j["no_ceiling"] = fmt::format("the ceiling could not be worked out: {}", e.what());
            }
        }
        if (!j.contains("roofline_tps") && !j.contains("no_ceiling")) {
            std::string why = why_no_ceiling(set, row, model, element);
            j["no_ceiling"] = why.empty() ? std::string("the ceiling could not be worked out") : why;
        }
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace

const Record* find_record(const LintResult& lint, const std::string& id_or_file) {
    namespace fs = std::filesystem;
    std::string as_file = fs::path(id_or_file).lexically_normal().generic_string();
    for (const auto& r : lint.records.records()) {
        if (r.id == id_or_file || r.file == as_file || r.path_id == id_or_file) return &r;
    }
    return nullptr;
}

nlohmann::json explain_record(const LintResult& lint, const Record& record) {
    json out;
    out["id"] = record.id;
    out["file"] = record.file;
    out["kind"] = std::string(kind_name(record.kind));
    out["claims"] = claims_json(record);
    json findings = json::array();
    for (const auto& d : lint.diagnostics) {
        if (d.pos.file != record.file) continue;
        findings.push_back({{"line", d.pos.line},
                            {"column", d.pos.column},
                            {"severity", std::string(to_string(d.severity))},
                            {"rule", d.rule},
                            {"message", d.message}});
    }
    out["findings"] = findings;
    json silenced = json::array();
    for (const auto& d : lint.ignored) {
        if (d.pos.file != record.file) continue;
        silenced.push_back({{"line", d.pos.line}, {"column", d.pos.column}, {"rule", d.rule}, {"message", d.message}});
    }
    out["silenced"] = silenced;
    // A claim that a lint_ignore names is shown as silenced, with the reason.
    for (const auto& d : lint.ignored) {
        if (d.pos.file != record.file || d.rule != "prose-arithmetic") continue;
        for (auto& c : out["claims"]) {
            if (c["line"] == d.pos.line && c["column"] == d.pos.column) c["silenced"] = d.message;
        }
    }
    if (record.kind == RecordKind::allocation && record.root) {
        out["allocation"] = explain_allocation(lint.records, record);
        return out;
    }
    if (!record.kv) return out;

    const KvRow& row = *record.kv;
    out["model"] = row.model;
    out["kv_cache_dtype"] = row.kv_cache_dtype;
    json basis;
    const KvBasis& b = row.basis;
    basis["expression"] = basis_expression(b);
    basis["kv_bytes_per_token"] = row.kv_bytes_per_token ? exact(*row.kv_bytes_per_token) : json(nullptr);
    try {
        auto product = basis_product(b);
        basis["product"] = product ? exact(*product) : json(nullptr);
        basis["agrees"] = product && row.kv_bytes_per_token && *product == *row.kv_bytes_per_token;
    } catch (const OverflowError&) {
        basis["product"] = "overflow";
        basis["agrees"] = false;
    }
    basis["statement"] = b.statement;
    out["basis"] = basis;

    auto dtype = find_cache_dtype(row.kv_cache_dtype);
    // The bytes per element the basis multiplies: K's, or the mean of K's and V's.
    auto element = element_bytes(row.kv_cache_dtype, row.v_cache_dtype);
    if (dtype) {
        out["dtype"] = {{"name", std::string(dtype->name)},
                        {"block_values", dtype->block_values},
                        {"block_bytes", dtype->block_bytes},
                        {"bytes_per_element", exact(dtype->bytes_per_element())}};
        if (row.v_cache_dtype && element) {
            out["dtype"]["v_name"] = *row.v_cache_dtype;
            out["dtype"]["mean_bytes_per_element"] = exact(*element);
        }
    }
    const Model* model = rules::model_of(lint.records, row);
    if (model && element) {
        try {
            out["model_basis"] = model_accounting(*model, *element, row);
        } catch (const OverflowError&) {
            out["model_basis"] = {{"complete", false}, {"layer_problem", "a product does not fit in 64 bits"}};
        }
    }
    out["points"] = points_json(lint.records, row, model, element);
    json unverified = json::array();
    for (std::size_t i = 0; i < row.points.size(); ++i) {
        const auto& p = row.points[i];
        const json& point = out["points"][i];
        std::string at = p.listed ? fmt::format(" at context {}", group_thousands(p.context_length)) : "";
        // Only a point the roofline was worked out for was held under it.
        bool ceiling = point.contains("roofline_tps");
        std::string no_ceiling = ceiling ? "" : point.value("no_ceiling", std::string());
        unverified.push_back(!p.tps ? fmt::format("measured_tps_at_ctx{} is null: the source did not report it", at)
                             : ceiling
                                 ? fmt::format("measured_tps_at_ctx {}{} is a measurement: checked to be a positive "
                                               "number under the bandwidth ceiling, not re-measured",
                                               *p.tps, at)
                                 : fmt::format("measured_tps_at_ctx {}{} is a measurement: checked to be a positive "
                                               "number, not re-measured; no bandwidth ceiling was applied: {}",
                                               *p.tps, at, no_ceiling));
        if (p.total_tps) {
            unverified.push_back(
                ceiling ? fmt::format("measured_total_tps_at_ctx {}{} is a measurement: checked to be a "
                                      "positive number under {} times the bandwidth ceiling, not re-measured",
                                      *p.total_tps, at, p.concurrency)
                        : fmt::format("measured_total_tps_at_ctx {}{} is a measurement: checked to be a "
                                      "positive number, not re-measured; no bandwidth ceiling was applied: {}",
                                      *p.total_tps, at, no_ceiling));
        }
        if (p.prefill_tps) {
            unverified.push_back(
                fmt::format("measured_prefill_tps_at_ctx {}{} is a measurement: checked to be a "
                            "positive number, not re-measured",
                            *p.prefill_tps, at));
        }
        unverified.push_back(p.ttft_ms
                                 ? fmt::format("measured_ttft_ms_at_ctx {}{} is a measurement: checked to be a "
                                               "positive number, not re-measured",
                                               *p.ttft_ms, at)
                                 : fmt::format("measured_ttft_ms_at_ctx{} is null: the source did not report it", at));
    }
    for (const auto& q : row.quality) {
        unverified.push_back(fmt::format("quality {} {} {} {} is a measurement, not re-measured", q.benchmark, q.metric,
                                         q.value ? fmt::format("{}", *q.value) : "?", q.unit));
    }
    unverified.push_back("sources are named, not fetched: kvcat cannot read them");
    unverified.push_back("sentences that state no arithmetic are not checked");
    out["not_verified"] = unverified;
    return out;
}

std::string render_explanation_text(const nlohmann::json& e) {
    std::string out = fmt::format("{}  ({})\n", e.value("id", std::string()), e.value("file", std::string()));
    if (e.contains("model")) {
        out += fmt::format("model {}, cache dtype {}", e["model"].get<std::string>(),
                           e["kv_cache_dtype"].get<std::string>());
        if (e.contains("dtype")) {
            const auto& d = e["dtype"];
            if (d["block_values"].get<int>() > 1) {
                out += fmt::format(" ({} bytes per block of {} = {} bytes per element)", d["block_bytes"].get<int>(),
                                   d["block_values"].get<int>(), show(d["bytes_per_element"]));
            } else {
                out += fmt::format(" ({} bytes per element)", show(d["bytes_per_element"]));
            }
            if (d.contains("v_name")) {
                out += fmt::format(" for K, {} for V: {} bytes per element on average", d["v_name"].get<std::string>(),
                                   show(d["mean_bytes_per_element"]));
            }
        }
        out += "\n";
    }

    const auto& claims = e["claims"];
    std::size_t holding = 0;
    std::size_t unjudged = 0;
    for (const auto& c : claims) {
        std::string verdict = c.value("verdict", std::string("holds"));
        holding += verdict == "holds" || verdict == "binary-units" ? 1 : 0;
        unjudged += verdict == "unjudged" ? 1 : 0;
    }
    out += fmt::format("\nArithmetic found in the prose: {} claim{}, {} hold{}", claims.size(),
                       claims.size() == 1 ? "" : "s", holding, holding == 1 ? "s" : "");
    out += unjudged ? fmt::format(", {} left unjudged\n", unjudged) : std::string("\n");
    for (const auto& c : claims) {
        std::string text = c["text"].get<std::string>();
        for (auto& ch : text) {
            if (ch == '\n') ch = ' ';
        }
        out +=
            fmt::format("  {}:{}  {}  {}\n      {}\n", c["line"].get<int>(), c["column"].get<int>(),
                        verdict_label(c.value("verdict", std::string("holds"))), c["field"].get<std::string>(), text);
        if (c.contains("why")) out += fmt::format("      {}\n", c["why"].get<std::string>());
        if (c.contains("silenced"))
            out += fmt::format("      silenced by lint_ignore: {}\n", c["silenced"].get<std::string>());
        if (!c["holds"].get<bool>()) {
            out += fmt::format("      {} = {}, not {}\n", c["expression"].get<std::string>(),
                               c["computed"].get<std::string>(), c.value("wrong_side", std::string("?")));
        }
    }

    if (e.contains("basis")) {
        const auto& b = e["basis"];
        out += fmt::format("\nStructured basis: {} = {}; kv_bytes_per_token {}: {}\n",
                           b["expression"].get<std::string>(), show(b["product"]), show(b["kv_bytes_per_token"]),
                           b["agrees"].get<bool>() ? "agrees" : "DISAGREES");
    }
    if (e.contains("model_basis")) {
        const auto& m = e["model_basis"];
        out += fmt::format("\nFrom the model record ({}), layer type by layer type:\n", e["model"].get<std::string>());
        out += fmt::format("  growing layers: {}\n", m.value("growing_layers_how", std::string("?")));
        if (m.contains("layer_problem")) out += fmt::format("  problem: {}\n", m["layer_problem"].get<std::string>());
        if (m.value("complete", false)) {
            out += fmt::format("  per layer per token: {}\n", m["per_layer_how"].get<std::string>());
            std::string indexer;
            if (m.contains("indexer_bytes_per_layer_token")) {
                indexer = fmt::format(" + {} layers x {} indexer bytes", m["growing_layers"].get<std::int64_t>(),
                                      m["indexer_bytes_per_layer_token"].get<std::int64_t>());
            }
            out += fmt::format("  {} layers x {} elements x {} bytes{} = {} B/token\n",
                               m["growing_layers"].get<std::int64_t>(), show(m["per_layer_elements"]),
                               show(m["bytes_per_element"]), indexer, show(m["bytes_per_token"]));
            if (m.contains("bounded_at")) {
                out += fmt::format("  no layer grows: those bytes stop at the {}-token window\n",
                                   m["bounded_at"].get<std::int64_t>());
            } else if (m.contains("sliding")) {
                const auto& s = m["sliding"];
                // The kind was written by name_of(WindowKind); the words come from the enum.
                WindowKind kind =
                    parse_window_kind(s.value("kind", std::string("sliding"))).value_or(WindowKind::sliding);
                out += fmt::format("  {} layers: {} holding at most {} tokens ({}), {} B/token until it fills\n",
                                   name_of(kind), s["layers"].get<std::int64_t>(), s["window"].get<std::int64_t>(),
                                   bound_of(kind), show(s["bytes_per_token_until_window"]));
            }
            if (m.contains("linear")) {
                const auto& l = m["linear"];
                auto kind = parse_state_kind(l["kind"].get<std::string>());
                std::string dtypes = l["state_dtype"].get<std::string>();
                if (l.value("conv_state_dtype", dtypes) != dtypes) {
                    dtypes += fmt::format(", conv state {}", l["conv_state_dtype"].get<std::string>());
                }
                if (l.value("state_dtype_from", std::string("model")) == "row") dtypes += ", as the row states";
                out += fmt::format("  {} {} layers: no per-token cache; fixed state {} bytes per sequence ({})\n",
                                   l["layers"].get<std::int64_t>(),
                                   kind ? title_of(*kind) : std::string_view(l["kind"].get<std::string>()),
                                   show(l["fixed_state_bytes"]), dtypes);
            }
            if (m.contains("at_context")) {
                const auto& a = m["at_context"];
                out += fmt::format(
                    "  at context {}: growing {} + sliding {} = {} bytes of KV ({}), plus {} bytes of "
                    "fixed state\n",
                    show(a["context_length"]), show(a["growing_bytes"]), show(a["sliding_bytes"]),
                    show(a["kv_bytes_at_context"]), a["kv_gib_at_context"].get<std::string>(),
                    show(a["fixed_state_bytes"]));
            }
            const auto& bl = m["baselines"];
            if (bl.contains("all_layers_gqa_bytes_per_token")) {
                out +=
                    fmt::format("  what if every layer cached as GQA: {} B/token ({:.1f}x)\n",
                                show(bl["all_layers_gqa_bytes_per_token"]), bl["all_layers_gqa_factor"].get<double>());
            }
            if (bl.contains("all_layers_mha_bytes_per_token")) {
                out +=
                    fmt::format("  what if every layer cached as MHA: {} B/token ({:.1f}x)\n",
                                show(bl["all_layers_mha_bytes_per_token"]), bl["all_layers_mha_factor"].get<double>());
            }
        }
    }
    if (e.contains("points") && !e["points"].empty()) {
        out += "\nMeasured points (the roofline is the ceiling the lint applied):\n";
        auto number = [](const json& v) { return v.is_null() ? std::string("-") : fmt::format("{}", v.get<double>()); };
        for (const auto& p : e["points"]) {
            out +=
                fmt::format("  context {:>9}  decode {:>8} t/s  prefill {:>9} t/s  ttft {:>8} ms",
                            group_thousands(p["context_length"].get<std::int64_t>()), number(p["measured_tps_at_ctx"]),
                            number(p["measured_prefill_tps_at_ctx"]), number(p["measured_ttft_ms_at_ctx"]));
            if (p["concurrency"].get<std::int64_t>() != 1) {
                out += fmt::format("  x{}", p["concurrency"].get<std::int64_t>());
                if (p.contains("measured_total_tps_at_ctx") && !p["measured_total_tps_at_ctx"].is_null()) {
                    out += fmt::format("  total {} t/s", number(p["measured_total_tps_at_ctx"]));
                }
            }
            if (p.contains("roofline_tps")) {
                out += fmt::format("  ceiling {:.2f} t/s", p["roofline_tps"].get<double>());
                if (p.contains("roofline_fraction")) {
                    out += fmt::format(" ({:.0f}%)", 100 * p["roofline_fraction"].get<double>());
                }
            }
            out += "\n";
        }
        // Why the points without a ceiling have none, once for each reason.
        std::vector<std::string> reasons;
        for (const auto& p : e["points"]) {
            if (!p.contains("no_ceiling")) continue;
            auto why = p["no_ceiling"].get<std::string>();
            if (std::find(reasons.begin(), reasons.end(), why) == reasons.end()) reasons.push_back(why);
        }
        for (const auto& why : reasons) out += fmt::format("  no bandwidth ceiling: {}\n", why);
    }
    if (e.contains("allocation")) out += render_allocation_text(e["allocation"]);
    if (e.contains("not_verified")) {
        out += "\nNot verified:\n";
        for (const auto& n : e["not_verified"]) out += fmt::format("  {}\n", n.get<std::string>());
    }
    const auto& findings = e["findings"];
    out += fmt::format("\nFindings: {}\n", findings.empty() ? "none" : std::to_string(findings.size()));
    for (const auto& f : findings) {
        out += fmt::format("  {}:{}: {}: [{}] {}\n", f["line"].get<int>(), f["column"].get<int>(),
                           f["severity"].get<std::string>(), f["rule"].get<std::string>(),
                           f["message"].get<std::string>());
    }
    for (const auto& f : e["silenced"]) {
        out += fmt::format("  {}:{}: silenced by lint_ignore: [{}] {}\n", f["line"].get<int>(), f["column"].get<int>(),
                           f["rule"].get<std::string>(), f["message"].get<std::string>());
    }
    return out;
}

}  // namespace kvcat
