#include "output/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/curve.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "output/report_planner.h"
#include "vocab/dtype.h"
#include "vocab/weight_quant.h"

namespace kvcat {

namespace {

using json = nlohmann::json;

const Rational kGiB(1LL << 30);

json page_cell_json(const Cell& c) {
    if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
    if (const auto* d = std::get_if<double>(&c)) return *d;
    if (const auto* s = std::get_if<std::string>(&c)) return *s;
    return nullptr;
}

/// A number for plotting: exact bytes stay whole when they are.
json plot_number(const Rational& r) {
    if (r.is_integer()) return r.num();
    return r.to_double();
}

/// The rows of a table, read by column name; a column the catalog lacks reads as NULL.
class Columns {
  public:
    explicit Columns(const Table& t) : table_(t) {
        for (std::size_t i = 0; i < t.columns.size(); ++i) index_[t.columns[i]] = i;
    }
    bool has(const std::string& name) const { return index_.count(name) != 0; }
    const Cell& at(const std::vector<Cell>& row, const std::string& name) const {
        static const Cell kNull;
        auto it = index_.find(name);
        return it == index_.end() || it->second >= row.size() ? kNull : row[it->second];
    }
    std::string text(const std::vector<Cell>& row, const std::string& name) const {
        const Cell& c = at(row, name);
        if (const auto* s = std::get_if<std::string>(&c)) return *s;
        if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
        return "";
    }
    std::optional<double> number(const std::vector<Cell>& row, const std::string& name) const {
        const Cell& c = at(row, name);
        if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
        if (const auto* d = std::get_if<double>(&c)) return *d;
        return std::nullopt;
    }
    std::optional<std::int64_t> integer(const std::vector<Cell>& row, const std::string& name) const {
        const Cell& c = at(row, name);
        if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
        return std::nullopt;
    }
    /// The first of `names` the table has, or "".
    std::string first_of(std::initializer_list<const char*> names) const {
        for (const char* n : names) {
            if (has(n)) return n;
        }
        return "";
    }
    const Table& table() const { return table_; }

  private:
    const Table& table_;
    std::map<std::string, std::size_t> index_;
};

/// Tick labels in the units contexts are spoken of: 1k, 128k, 1M.
const char* kContextLabel =
    "datum.value >= 1048576 ? format(datum.value / 1048576, '~g') + 'M' : "
    "datum.value >= 1024 ? format(datum.value / 1024, '~g') + 'k' : format(datum.value, '~g')";

json context_axis() {
    return {{"field", "context_length"},
            {"type", "quantitative"},
            {"title", "context (tokens)"},
            // Logarithmic above a thousand tokens and linear below, so a depth-0 point has a place.
            {"scale", {{"type", "symlog"}, {"constant", 1024}}},
            {"axis", {{"labelExpr", kContextLabel}, {"values", {1024, 4096, 16384, 65536, 262144, 1048576}}}}};
}

json tooltip(std::initializer_list<std::pair<const char*, const char*>> fields) {
    json out = json::array();
    for (const auto& [field, title] : fields) out.push_back({{"field", field}, {"title", title}});
    return out;
}

struct Context {
    const ReportInput& input;
    Columns rows;
    std::vector<const Record*> models;
    std::vector<const Record*> accelerators;
    std::vector<CacheDtype> dtypes;
    json notes = json::array();

    /// The record a row comes from: its record_id where the catalog has one (a point of a
    /// curve is "<record id>@<context>"), else its id.
    std::string record_of(const std::vector<Cell>& row) const {
        std::string record = rows.text(row, "record_id");
        return record.empty() ? rows.text(row, "id") : record;
    }
    std::string source_of(const std::string& id) const {
        auto it = input.sources.find(id);
        if (it == input.sources.end() || it->second.empty()) return "";
        return it->second.front();
    }
    static std::string record_source(const Record& r) { return r.sources.empty() ? "" : r.sources.front().name; }
    /// The largest context a curve of this model reaches: its native context, or further
    /// when a row of the catalog went further.
    std::int64_t top_context(const Record& model) const {
        std::int64_t top = model.model->native_context.value_or(131072);
        for (const auto& row : rows.table().rows) {
            if (rows.text(row, "model") == model.id)
                top = std::max(top, rows.integer(row, "context_length").value_or(0));
        }
        return top;
    }
};

/// Which models, accelerators and dtypes to draw: those of the rows when filtered, else every
/// model and accelerator record; the dtypes the rows use (bf16 when there are none).
void choose_subjects(Context& c) {
    std::set<std::string> row_models, row_accelerators, row_dtypes;
    for (const auto& row : c.rows.table().rows) {
        row_models.insert(c.rows.text(row, "model"));
        row_accelerators.insert(c.rows.text(row, "accelerator"));
        row_dtypes.insert(c.rows.text(row, "kv_cache_dtype"));
    }
    for (const auto& r : c.input.records->records()) {
        if (r.model && (!c.input.filtered || row_models.count(r.id))) c.models.push_back(&r);
        if (r.accelerator && (!c.input.filtered || row_accelerators.count(r.id))) c.accelerators.push_back(&r);
    }
    for (const auto& d : cache_dtypes()) {
        if (row_dtypes.count(std::string(d.name))) c.dtypes.push_back(d);
    }
    if (c.dtypes.empty()) c.dtypes.push_back(*find_cache_dtype("bf16"));
}

constexpr int kMemoryChartHeightPx = 360;

/// Ten colours that stay apart from one another and from the faded grey of what is not chosen.
const std::vector<std::string> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#393b79"};
/// Twenty colours for a chart that gives each model its own: the ten above, then ten darker or
/// lighter ones still told apart from them and from the faded grey.
const std::vector<std::string> kWidePalette = [] {
    std::vector<std::string> all = kPalette;
    all.insert(all.end(), {"#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5",
                           "#dbdb8d", "#637939"});
    return all;
}();
const char* kFaded = "#c8cdd2";

/// An accelerator's name up to its first " (" or ",": "M4 Max, 16-core CPU / 40-core GPU
/// (128 GB configuration)" is "M4 Max".
std::string short_accelerator_name(const std::string& name) {
    std::size_t cut = std::min(name.find(" ("), name.find(','));
    return cut == std::string::npos ? name : name.substr(0, cut);
}

constexpr std::size_t kPanelTitleChars = 40;
/// Above this many series a speed chart draws the other models as one band, not a line each.
constexpr std::size_t kMaxFadedLines = 120;

/// `text` broken into lines of at most `width` characters at spaces (a longer word keeps its line).
std::string wrap_words(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t line = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        std::string word = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (line > 0 && line + 1 + word.size() > width) {
            out += '\n';
            line = 0;
        } else if (line > 0) {
            out += ' ';
            ++line;
        }
        out += word;
        line += word.size();
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

/// Charts follow the planner: these signals start at the planner's default choice, and the
/// page sets them whenever the choice changes.
json planner_params(const Context& c) {
    auto first_or = [](const std::vector<const Record*>& list, const std::string& preferred) {
        for (const Record* r : list) {
            if (r->id == preferred) return preferred;
        }
        return list.empty() ? std::string() : list.front()->id;
    };
    return json::array(
        {{{"name", "chosen_model"}, {"value", first_or(c.models, "models/qwen3.5-27b")}},
         {{"name", "chosen_accelerator"}, {"value", first_or(c.accelerators, "accelerators/nvidia-rtx-4090")}},
         {{"name", "chosen_kv"}, {"value", "q8_0"}}});
}

/// A chart as wide as the page (down to a phone's), its height fixed.
void fit_to_width(json& spec, int height) {
    spec["width"] = "container";
    spec["height"] = height;
    spec["autosize"] = {{"type", "fit-x"}, {"contains", "padding"}};
}

json kv_memory_chart(Context& c) {
    json kv = json::array();
    for (const Record* m : c.models) {
        std::vector<std::int64_t> extra;
        if (m->model->sliding) extra.push_back(m->model->sliding->window);
        auto grid = context_grid(c.top_context(*m), extra);
        for (const auto& d : c.dtypes) {
            try {
                Rational fixed = fixed_state_bytes(*m->model);
                for (std::int64_t context : grid) {
                    Rational bytes = kv_cache_bytes(*m->model, d, context);
                    kv.push_back({{"model", m->id},
                                  {"model_name", m->model->name},
                                  {"kv_cache_dtype", std::string(d.name)},
                                  {"series", fmt::format("{} {}", m->model->name, d.name)},
                                  {"context_length", context},
                                  {"kv_bytes", plot_number(bytes)},
                                  {"fixed_state_bytes", plot_number(fixed)},
                                  {"total_gib", ((bytes + fixed) / kGiB).to_double()},
                                  {"record", m->id},
                                  {"source", Context::record_source(*m)}});
                }
            } catch (const std::exception& e) {
                c.notes.push_back(fmt::format("{} at {}: no KV curve ({})", m->id, d.name, e.what()));
            }
        }
    }
    // Only the chosen card's memory is drawn and labelled, so no two labels can meet.
    json memory = json::array();
    for (const Record* a : c.accelerators) {
        if (!a->accelerator->memory_gb_exact) continue;
        Rational bytes = memory_bytes(*a->accelerator);
        memory.push_back({{"accelerator", a->id},
                          {"name", a->accelerator->name},
                          {"label", fmt::format("{}: {} GB", short_accelerator_name(a->accelerator->name),
                                                (bytes / Rational(1000000000)).to_display())},
                          {"memory_bytes", plot_number(bytes)},
                          {"total_gib", (bytes / kGiB).to_double()},
                          {"record", a->id},
                          {"source", Context::record_source(*a)}});
    }
    json y = {{"field", "total_gib"},
              {"type", "quantitative"},
              {"title", "KV cache + fixed state, one sequence (GiB)"},
              {"scale", {{"type", "log"}}},
              {"axis", {{"format", ",~r"}, {"tickCount", 6}}}};
    json kv_tooltip = tooltip({{"model_name", "model"},
                               {"kv_cache_dtype", "cache dtype"},
                               {"context_length", "context"},
                               {"kv_bytes", "KV bytes"},
                               {"fixed_state_bytes", "fixed state bytes"},
                               {"total_gib", "GiB"},
                               {"record", "record"},
                               {"source", "source"}});
    kv_tooltip[5]["format"] = ".3f";
    json chosen_model = {{"filter", "datum.model === chosen_model"}};
    json chosen_card = {{"filter", "datum.accelerator === chosen_accelerator"}};
    std::vector<std::string> dtype_order;
    for (const auto& d : c.dtypes) dtype_order.emplace_back(d.name);
    json colour = {{"field", "kv_cache_dtype"},
                   {"type", "nominal"},
                   {"title", "cache dtype"},
                   {"sort", dtype_order},
                   {"scale", {{"domain", dtype_order}, {"range", kPalette}}},
                   {"legend", {{"orient", "bottom"}, {"direction", "horizontal"}, {"columns", 4}}}};
    json spec = {
        {"params", planner_params(c)},
        // The chart's datasets join these in the page (each is written once): only the room is the page's.
        {"datasets", {{"room", json::array()}}},
        {"layer",
         {{{"name", "kv_faded"},
           {"data", {{"name", "kv"}}},
           {"mark", {{"type", "line"}, {"strokeWidth", 1}, {"color", kFaded}, {"opacity", 0.6}}},
           {"encoding", {{"x", context_axis()}, {"y", y}, {"detail", {{"field", "series"}}}}}},
          {{"name", "memory_rules"},
           {"data", {{"name", "memory"}}},
           {"transform", {chosen_card}},
           {"mark", {{"type", "rule"}, {"color", "#50575e"}, {"strokeWidth", 1.2}}},
           {"encoding",
            {{"y", y},
             {"tooltip", tooltip({{"name", "accelerator"},
                                  {"memory_bytes", "memory bytes"},
                                  {"record", "record"},
                                  {"source", "source"}})}}}},
          {{"name", "memory_labels"},
           {"data", {{"name", "memory"}}},
           {"transform", {chosen_card}},
           {"mark",
            {{"type", "text"}, {"align", "right"}, {"dx", -4}, {"dy", -7}, {"fontSize", 11}, {"color", "#50575e"}}},
           {"encoding", {{"y", y}, {"x", {{"value", "width"}}}, {"text", {{"field", "label"}}}}}},
          {{"name", "room_rules"},
           {"data", {{"name", "room"}}},
           {"mark", {{"type", "rule"}, {"color", "#b5462f"}, {"strokeDash", {5, 3}}, {"strokeWidth", 1.2}}},
           {"encoding", {{"y", y}}}},
          {{"name", "room_labels"},
           {"data", {{"name", "room"}}},
           {"mark",
            {{"type", "text"}, {"align", "left"}, {"dx", 4}, {"dy", 12}, {"fontSize", 11}, {"color", "#b5462f"}}},
           {"encoding", {{"y", y}, {"x", {{"value", 0}}}, {"text", {{"field", "label"}}}}}},
          {{"name", "kv_lines"},
           {"data", {{"name", "kv"}}},
           {"transform", {chosen_model}},
           {"mark", {{"type", "line"}, {"strokeWidth", 2.2}}},
           {"encoding", {{"x", context_axis()}, {"y", y}, {"color", colour}, {"detail", {{"field", "series"}}}}}},
          {{"name", "kv_points"},
           {"data", {{"name", "kv"}}},
           {"transform", {chosen_model}},
           {"mark", {{"type", "point"}, {"filled", true}, {"size", 26}}},
           {"encoding", {{"x", context_axis()}, {"y", y}, {"color", colour}, {"tooltip", kv_tooltip}}}}}}};
    fit_to_width(spec, kMemoryChartHeightPx);
    return {
        {"id", "kv-memory"},
        {"title", "KV cache memory against context"},
        {"description",
         "The planner's model in colour, one line per cache dtype of the catalog; every other model in "
         "grey behind it. One sequence's KV cache plus the fixed state of linear-attention layers, worked "
         "out exactly by kvcat from the model records: sliding-window layers stop growing at their window, "
         "an MLA layer caches its latent once. Grey rule: the chosen card's whole memory; red dashes: what "
         "is left on it for the cache once the chosen weights and the runtime reserve are in. Dtypes of "
         "one size (bf16 and f16, fp8 and fp8_e4m3) draw one line."},
        {"spec", spec},
        {"datasets", {{"kv", kv}, {"memory", memory}}},
        {"follows", {"chosen_model", "chosen_accelerator"}},
        {"room", true},
        {"marks",
         {{"kv_faded", {{"dataset", "kv"}, {"per", "series"}}},
          {"kv_lines", {{"dataset", "kv"}, {"per", "series"}, {"where", {{"model", "chosen_model"}}}}},
          {"kv_points", {{"dataset", "kv"}, {"per", "row"}, {"where", {{"model", "chosen_model"}}}}},
          {"memory_rules", {{"dataset", "memory"}, {"per", "row"}, {"where", {{"accelerator", "chosen_accelerator"}}}}},
          {"memory_labels",
           {{"dataset", "memory"}, {"per", "row"}, {"where", {{"accelerator", "chosen_accelerator"}}}}}}}};
}

/// "Llama-3.1-8B · RTX 3090 · llama.cpp · bf16", and " · 4 at once" with a concurrency column.
std::string speed_series(const Context& c, const std::vector<Cell>& row) {
    std::string card = c.rows.has("card") ? c.rows.text(row, "card") : c.rows.text(row, "accelerator_name");
    std::string out =
        fmt::format("{} · {} · {} · {}", c.rows.text(row, "model_name"), card.empty() ? "no accelerator named" : card,
                    c.rows.text(row, "engine"), c.rows.text(row, "kv_cache_dtype"));
    if (auto n = c.rows.integer(row, "concurrency"); n && *n > 1) out += fmt::format(" · {} at once", *n);
    // A draft model or MTP head emits several tokens a step: such a line is not one-token decoding.
    if (c.rows.has("speculative") && c.rows.text(row, "speculative") == "on") out += " · speculative decoding";
    return out;
}

/// The series without its model's name, for the chosen model's legend: "RTX 3090 · llama.cpp · bf16".
std::string speed_label(const Context& c, const std::vector<Cell>& row) {
    std::string series = speed_series(c, row);
    std::string model = c.rows.text(row, "model_name") + " · ";
    return series.starts_with(model) ? series.substr(model.size()) : series;
}

json speed_row(const Context& c, const std::vector<Cell>& row, const char* value_name, double value) {
    std::string record = c.record_of(row);
    return {{"series", speed_series(c, row)},
            {"model", c.rows.text(row, "model")},
            {"label", speed_label(c, row)},
            {"model_name", c.rows.text(row, "model_name")},
            {"accelerator", c.rows.text(row, "accelerator_name")},
            {"engine", c.rows.text(row, "engine")},
            {"kv_cache_dtype", c.rows.text(row, "kv_cache_dtype")},
            {"context_length", c.rows.integer(row, "context_length").value_or(0)},
            {value_name, value},
            {"roofline_tps", page_cell_json(c.rows.at(row, "roofline_tps"))},
            {"row", c.rows.text(row, "id")},
            {"record", record},
            {"file", c.rows.text(row, "file")},
            {"source", c.source_of(record)}};
}

/// The dashed ceiling of one series: what each of `concurrency` requests can decode at most,
/// bandwidth / (active weights + concurrency x (KV at the context + fixed state)), with the
/// row's weights as the catalog takes them (stated, else from an exact weight format).
void add_roofline(const Context& c, const std::vector<Cell>& row, const std::string& series, const json& colour,
                  json& out) {
    const Record* model = c.input.records->find(c.rows.text(row, "model"));
    const Record* accelerator = c.input.records->find(c.rows.text(row, "accelerator"));
    std::string v_dtype = c.rows.text(row, "v_cache_dtype");
    auto element = element_bytes(c.rows.text(row, "kv_cache_dtype"),
                                 v_dtype.empty() ? std::nullopt : std::optional<std::string>(v_dtype));
    if (!model || !model->model || !accelerator || !accelerator->accelerator || !element) return;
    std::string quant = c.rows.text(row, "weight_quant");
    std::optional<std::int64_t> stated_weights;
    if (c.rows.text(row, "weight_bytes_source") == "stated") stated_weights = c.rows.integer(row, "weight_bytes");
    std::int64_t concurrency = c.rows.integer(row, "concurrency").value_or(1);
    std::vector<std::int64_t> extra;
    if (model->model->sliding) extra.push_back(model->model->sliding->window);
    try {
        auto weights = row_weights(*model->model, quant.empty() ? std::nullopt : std::optional(quant), stated_weights);
        if (!weights) return;
        // The row's own state (in its engine's state dtype, when it states one), as the catalog keeps it.
        auto row_fixed = c.rows.integer(row, "fixed_state_bytes");
        Rational fixed = row_fixed ? Rational(*row_fixed) : fixed_state_bytes(*model->model);
        for (std::int64_t context : context_grid(c.top_context(*model), extra)) {
            Roofline r = batch_roofline(*accelerator->accelerator, weights->active,
                                        kv_cache_bytes(*model->model, *element, context), fixed, concurrency);
            out.push_back({{"series", series},
                           {"model", c.rows.text(row, "model")},
                           {"colour", colour},
                           {"context_length", context},
                           {"ceiling_tps", r.ceiling_tps.to_double()},
                           {"record", c.record_of(row)},
                           {"source",
                            "kvcat: memory bandwidth / (active weights + concurrency x (KV at the "
                            "context + fixed state))"}});
        }
    } catch (const std::exception&) {
        // A figure is missing from a record: that series has no ceiling.
    }
}

json speed_chart(Context& c, const std::string& id, const std::string& column, const char* value_name,
                 const std::string& title, const std::string& heading, const std::string& description,
                 bool with_roofline) {
    json points = json::array();
    json ceilings = json::array();
    std::set<std::string> with_ceiling;
    std::map<std::string, std::set<std::string>> records_of_series;
    for (const auto& row : c.rows.table().rows) {
        if (c.rows.number(row, column)) records_of_series[speed_series(c, row)].insert(c.record_of(row));
    }
    // Each model's series get the palette's colours in turn: the chosen model's lines are told
    // apart by colour, and the page lists them in an HTML legend that wraps instead of cutting.
    std::map<std::string, std::map<std::string, std::size_t>> colour_of;  // model -> series -> index
    for (const auto& row : c.rows.table().rows) {
        auto value = c.rows.number(row, column);
        if (!value) continue;
        json p = speed_row(c, row, value_name, *value);
        std::string series = p["series"];
        // Two records of one model, card, engine and dtype (one with speculative decoding,
        // one without) are two lines, not one line zigzagging between them.
        if (records_of_series[series].size() > 1) {
            std::string record = p["record"];
            std::string suffix = " · " + record.substr(record.rfind('/') + 1);
            series += suffix;
            p["series"] = series;
            p["label"] = p["label"].get<std::string>() + suffix;
        }
        auto& colours = colour_of[p["model"].get<std::string>()];
        std::size_t index = colours.emplace(series, colours.size()).first->second;
        p["colour"] = kPalette[index % kPalette.size()];
        json colour = p["colour"];
        points.push_back(std::move(p));
        if (with_roofline && with_ceiling.insert(series).second) add_roofline(c, row, series, colour, ceilings);
    }
    if (points.empty()) return nullptr;
    json colour = {{"field", "colour"}, {"type", "nominal"}, {"scale", nullptr}, {"legend", nullptr}};
    json y = {{"field", value_name},
              {"type", "quantitative"},
              {"title", title},
              {"scale", {{"type", "log"}}},
              {"axis", {{"format", ",~r"}, {"tickCount", 6}}}};
    json chosen = {{"filter", "datum.model === chosen_model"}};
    json where = {{"model", "chosen_model"}};
    json layers = json::array();
    json marks = json::object();
    std::string faded = id + "_faded", lines = id + "_lines", dots = id + "_points";
    std::set<std::string> all_series;
    for (const auto& p : points) all_series.insert(p["series"].get<std::string>());
    json spread = json::array();
    if (all_series.size() <= kMaxFadedLines) {
        layers.push_back({{"name", faded},
                          {"data", {{"name", "measured"}}},
                          {"mark", {{"type", "line"}, {"strokeWidth", 1}, {"color", kFaded}, {"opacity", 0.7}}},
                          {"encoding", {{"x", context_axis()}, {"y", y}, {"detail", {{"field", "series"}}}}}});
        marks[faded] = {{"dataset", "measured"}, {"per", "series"}};
    } else {
        // Thousands of grey lines draw slowly and read as one grey mass: the rest is a band from
        // the slowest to the fastest measured point at each context instead.
        std::map<std::int64_t, std::pair<double, double>> range;
        for (const auto& p : points) {
            double v = p[value_name];
            auto [it, fresh] = range.try_emplace(p["context_length"].get<std::int64_t>(), v, v);
            if (!fresh) it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
        }
        for (const auto& [context, low_high] : range)
            spread.push_back({{"context_length", context}, {"low", low_high.first}, {"high", low_high.second}});
        json low = y, high = y;
        low["field"] = "low";
        high = {{"field", "high"}};
        layers.push_back({{"name", faded},
                          {"data", {{"name", "spread"}}},
                          {"mark", {{"type", "area"}, {"color", kFaded}, {"opacity", 0.6}}},
                          {"encoding", {{"x", context_axis()}, {"y", low}, {"y2", high}}}});
        marks[faded] = {{"dataset", "spread"}, {"per", "mark"}};
    }
    if (!ceilings.empty()) {
        json ceiling_y = y;
        ceiling_y["field"] = "ceiling_tps";
        layers.push_back({{"name", "roofline_lines"},
                          {"data", {{"name", "roofline"}}},
                          {"transform", {chosen}},
                          {"mark", {{"type", "line"}, {"strokeDash", {6, 4}}, {"strokeWidth", 1.2}}},
                          {"encoding",
                           {{"x", context_axis()},
                            {"y", ceiling_y},
                            {"color", colour},
                            {"detail", {{"field", "series"}}},
                            {"tooltip", tooltip({{"series", "series"},
                                                 {"context_length", "context"},
                                                 {"ceiling_tps", "ceiling, tokens/s"},
                                                 {"record", "record"},
                                                 {"source", "source"}})}}}});
        marks["roofline_lines"] = {{"dataset", "roofline"}, {"per", "series"}, {"where", where}};
    }
    layers.push_back(
        {{"name", lines},
         {"data", {{"name", "measured"}}},
         {"transform", {chosen}},
         {"mark", {{"type", "line"}, {"strokeWidth", 2}}},
         {"encoding", {{"x", context_axis()}, {"y", y}, {"color", colour}, {"detail", {{"field", "series"}}}}}});
    layers.push_back({{"name", dots},
                      {"data", {{"name", "measured"}}},
                      {"transform", {chosen}},
                      {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
                      {"encoding",
                       {{"x", context_axis()},
                        {"y", y},
                        {"color", colour},
                        {"tooltip", tooltip({{"series", "series"},
                                             {"context_length", "context"},
                                             {value_name, title.c_str()},
                                             {"roofline_tps", "roofline, tokens/s"},
                                             {"record", "record"},
                                             {"source", "source"}})}}}});
    marks[lines] = {{"dataset", "measured"}, {"per", "series"}, {"where", where}};
    marks[dots] = {{"dataset", "measured"}, {"per", "row"}, {"where", where}};
    json datasets = {{"measured", points}};
    if (!ceilings.empty()) datasets["roofline"] = ceilings;
    if (!spread.empty()) datasets["spread"] = spread;
    json spec = {{"params", planner_params(c)}, {"layer", layers}};
    fit_to_width(spec, 320);
    return {{"id", id},
            {"title", heading},
            {"description", description},
            {"spec", spec},
            {"datasets", datasets},
            {"marks", marks},
            {"follows", {"chosen_model"}},
            {"legend", {{"dataset", "measured"}, {"label", "label"}, {"colour", "colour"}, {"where", where}}}};
}

json bytes_per_token_chart(Context& c) {
    json dots = json::array();
    for (const Record* m : c.models) {
        // Every cache dtype, so the chart follows whichever the planner picks.
        for (const auto& d : cache_dtypes()) {
            auto add = [&](const char* basis, const std::optional<Rational>& bytes) {
                if (!bytes) return;
                dots.push_back({{"model", m->id},
                                {"model_name", m->model->name},
                                {"kv_cache_dtype", std::string(d.name)},
                                {"label", fmt::format("{} · {}", m->model->name, d.name)},
                                {"basis", basis},
                                {"bytes_per_token", plot_number(*bytes)},
                                {"record", m->id},
                                {"source", Context::record_source(*m)}});
            };
            try {
                // The baselines first, so the model's own figure is drawn on top where they meet.
                add("all layers MHA", all_layers_mha_bytes(*m->model, d.bytes_per_element()));
                add("all layers GQA", all_layers_gqa_bytes(*m->model, d.bytes_per_element()));
                add("as built", growing_kv_bytes_per_token(*m->model, d));
            } catch (const std::exception& e) {
                c.notes.push_back(fmt::format("{} at {}: no bytes per token ({})", m->id, d.name, e.what()));
            }
        }
    }
    json basis_order = {"as built", "all layers GQA", "all layers MHA"};
    // Dots, not bars: on a log axis a bar's length means nothing. One row per model at the
    // planner's dtype, the planner's model in full colour and the others lighter.
    json spec = {
        {"params", planner_params(c)},
        {"datasets", {{"bytes", dots}}},
        {"data", {{"name", "bytes"}}},
        {"transform", {{{"filter", "datum.kv_cache_dtype === chosen_kv"}}}},
        {"name", "bpt"},
        {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}}},
        {"encoding",
         {{"y",
           {{"field", "model_name"},
            {"type", "nominal"},
            {"title", nullptr},
            {"sort", nullptr},
            {"axis", {{"labelLimit", 210}}}}},
          {"x",
           {{"field", "bytes_per_token"},
            {"type", "quantitative"},
            {"title", "KV bytes per token"},
            {"scale", {{"type", "log"}}},
            {"axis", {{"format", "~s"}, {"tickCount", 5}}}}},
          {"color",
           {{"field", "basis"},
            {"type", "nominal"},
            {"sort", basis_order},
            {"scale", {{"domain", basis_order}, {"range", {"#2f6db5", "#e0a030", "#c44e52"}}}},
            {"legend", {{"orient", "bottom"}, {"direction", "vertical"}}},
            {"title", nullptr}}},
          {"shape",
           {{"field", "basis"},
            {"type", "nominal"},
            {"sort", basis_order},
            {"scale", {{"domain", basis_order}, {"range", {"circle", "square", "triangle-up"}}}}}},
          {"opacity", {{"condition", {{"test", "datum.model === chosen_model"}, {"value", 1}}}, {"value", 0.3}}},
          {"tooltip", tooltip({{"model_name", "model"},
                               {"kv_cache_dtype", "cache dtype"},
                               {"basis", "layout"},
                               {"bytes_per_token", "bytes per token"},
                               {"record", "record"},
                               {"source", "source"}})}}}};
    spec["width"] = "container";  // fit-x: one row per model sets the height
    spec["height"] = {{"step", 16}};
    return {{"id", "bytes-per-token"},
            {"title", "KV bytes per token by model"},
            {"description",
             "What one more token of context costs in the layers that keep growing, at the planner's cache "
             "dtype, as each model is built, against two what-ifs: every layer caching as GQA at the model's KV "
             "heads, and as full MHA at its query heads. The planner's model is in full colour. Sliding-window "
             "layers stop at their window and linear-attention layers keep a fixed state, so neither is in "
             "the first figure. Log scale."},
            {"spec", spec},
            {"datasets", {{"bytes", dots}}},
            {"follows", {"chosen_model", "chosen_kv"}},
            {"marks", {{"bpt", {{"dataset", "bytes"}, {"per", "row"}, {"where", {{"kv_cache_dtype", "chosen_kv"}}}}}}}};
}

/// Quality against cache dtype, from the catalog's quality results (the quality_rows view, or
/// a quality table). Columns are found by name: a cache dtype and a value are needed; a
/// model, benchmark, metric, unit, record id and a baseline dtype and value are used when
/// there. A result measured against a baseline gives two points, the baseline's and its own,
/// joined by a line; each metric gets its own panel and scale.
constexpr std::size_t kQualityPanelsPerRecord = 24;

json quality_chart(Context& c) {
    if (!c.input.quality) return nullptr;
    Columns q(*c.input.quality);
    std::string dtype = q.first_of({"kv_cache_dtype", "kv_dtype", "dtype"});
    std::string score = q.first_of({"value", "score", "accuracy", "quality"});
    if (dtype.empty() || score.empty()) {
        c.notes.push_back(
            "the catalog's quality results have no cache dtype or value column this report "
            "knows; quality is not drawn");
        return nullptr;
    }
    std::string model = q.first_of({"model_name", "model"});
    std::string benchmark = q.first_of({"benchmark", "task", "eval"});
    std::string metric = q.first_of({"metric"});
    std::string unit = q.first_of({"unit"});
    std::string record = q.first_of({"record_id", "id", "record"});
    std::string v_dtype = q.first_of({"v_cache_dtype"});
    std::string baseline_dtype = q.first_of({"baseline_kv_cache_dtype"});
    std::string baseline_value = q.first_of({"baseline_value"});
    std::set<std::string> row_records;  // with filters, only the results of the rows shown
    for (const auto& row : c.rows.table().rows) row_records.insert(c.record_of(row));
    json points = json::array();
    std::map<std::string, std::size_t> colour_of_model;  // each model its own colour, the legend one entry each
    std::set<std::tuple<std::string, std::string, double>> seen;
    // A panel per metric: a record with thousands of metrics would make a page no browser
    // draws in reasonable time, so each record gets at most kQualityPanelsPerRecord panels.
    std::map<std::string, std::set<std::string>> panels_of;  // record -> panels drawn
    std::map<std::string, std::set<std::string>> left_out;   // record -> panels not drawn
    for (const auto& row : q.table().rows) {
        auto value = q.number(row, score);
        if (!value) continue;
        std::string id = record.empty() ? "" : q.text(row, record);
        if (c.input.filtered && !record.empty() && !row_records.count(id)) continue;
        {
            std::string panel = metric.empty() ? "value" : q.text(row, metric);
            if (!unit.empty() && !q.text(row, unit).empty()) panel += fmt::format(" ({})", q.text(row, unit));
            auto& drawn = panels_of[id];
            if (!drawn.count(panel) && drawn.size() >= kQualityPanelsPerRecord) {
                left_out[id].insert(panel);
                continue;
            }
            drawn.insert(panel);
        }
        std::string model_text = model.empty() ? "" : q.text(row, model);
        std::string model_id = q.has("model") ? q.text(row, "model") : "";
        if (const Record* r = c.input.records->find(model_text); r && r->model) model_text = r->model->name;
        std::vector<std::string> parts;
        for (const std::string& part : {model_text, benchmark.empty() ? "" : q.text(row, benchmark)}) {
            if (!part.empty()) parts.push_back(part);
        }
        std::string series = parts.empty() ? "quality" : fmt::format("{}", fmt::join(parts, " · "));
        std::string panel = metric.empty() ? "value" : q.text(row, metric);
        if (!unit.empty() && !q.text(row, unit).empty()) panel += fmt::format(" ({})", q.text(row, unit));
        panel = wrap_words(panel, kPanelTitleChars);
        std::string model_label = model_text.empty() ? std::string("quality") : model_text;
        auto add = [&](const std::string& at, double v, const char* role) {
            if (!seen.insert({series + "\n" + panel, at, v}).second) return;
            std::size_t index = colour_of_model.emplace(model_label, colour_of_model.size()).first->second;
            points.push_back({{"series", series},
                              {"model_label", model_label},
                              {"colour", kWidePalette[index % kWidePalette.size()]},
                              {"model", model_id},
                              {"panel", panel},
                              {"kv_cache_dtype", at},
                              {"value", v},
                              {"role", role},
                              {"record", id},
                              {"source", c.source_of(id)}});
        };
        if (!baseline_dtype.empty()) {
            if (auto base = q.number(row, baseline_value)) add(q.text(row, baseline_dtype), *base, "baseline");
        }
        // K's type, and V's after a slash when it differs: a K-only quantisation is not drawn
        // at the dtype of both.
        std::string at = q.text(row, dtype);
        if (std::string v = v_dtype.empty() ? "" : q.text(row, v_dtype); !v.empty() && v != at) at += "/" + v;
        add(at, *value, "measured");
    }
    if (colour_of_model.size() > kWidePalette.size()) {
        c.notes.push_back(fmt::format("the quality chart holds {} models and {} colours: some colours serve two models",
                                      colour_of_model.size(), kWidePalette.size()));
    }
    for (const auto& [id, panels] : left_out) {
        c.notes.push_back(fmt::format(
            "{} has quality results in {} metrics; the quality chart draws the first {}, and the catalog's quality "
            "table holds them all",
            id.empty() ? "a record" : id, panels.size() + kQualityPanelsPerRecord, kQualityPanelsPerRecord));
    }
    if (points.empty()) {
        c.notes.push_back("the catalog holds no quality results; quality is not drawn");
        return nullptr;
    }
    std::vector<std::string> order;
    for (const auto& d : cache_dtypes()) order.emplace_back(d.name);
    // Every panel has its own dtype axis, with its own dtypes: a reader of a panel in the
    // middle of the grid need not look for the axis at the bottom of it.
    json x = {{"field", "kv_cache_dtype"},
              {"type", "ordinal"},
              {"title", "cache dtype"},
              {"sort", order},
              {"axis", {{"labelAngle", 0}, {"labelOverlap", "greedy"}}}};
    json y = {{"field", "value"},
              {"type", "quantitative"},
              {"title", nullptr},
              {"scale", {{"zero", false}}},
              {"axis", {{"format", ",~r"}}}};
    // Colours are the data's own and the legend is the page's HTML, which wraps a long name.
    json color = {{"field", "colour"}, {"type", "nominal"}, {"scale", nullptr}, {"legend", nullptr}};
    json opacity = {{"condition", {{"test", "datum.model === chosen_model"}, {"value", 1}}}, {"value", 0.35}};
    // The page sets the columns to what its width holds (one on a phone).
    json spec = {
        {"params", planner_params(c)},
        {"datasets", {{"quality", points}}},
        {"data", {{"name", "quality"}}},
        {"facet",
         {{"field", "panel"},
          {"type", "nominal"},
          {"title", nullptr},
          // A long metric is written on several lines, never cut.
          {"header", {{"labelExpr", "split(datum.value, '\\n')"}, {"labelLimit", 0}}}}},
        {"columns", 3},
        {"resolve", {{"scale", {{"x", "independent"}, {"y", "independent"}}}, {"axis", {{"x", "independent"}}}}},
        {"spec",
         {{"width", 260},
          {"height", 200},
          {"layer",
           {{{"name", "quality_lines"},
             {"mark", {{"type", "line"}}},
             {"encoding",
              {{"x", x}, {"y", y}, {"color", color}, {"opacity", opacity}, {"detail", {{"field", "series"}}}}}},
            {{"name", "quality_points"},
             {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
             {"encoding",
              {{"x", x},
               {"y", y},
               {"color", color},
               {"opacity", opacity},
               {"tooltip", tooltip({{"series", "model · benchmark"},
                                    {"panel", "metric"},
                                    {"kv_cache_dtype", "cache dtype"},
                                    {"value", "value"},
                                    {"role", "measured or baseline"},
                                    {"record", "record"},
                                    {"source", "source"}})}}}}}}}}};
    return {
        {"id", "quality"},
        {"title", "Quality against cache dtype"},
        {"description",
         "The quality results the catalog holds, each beside its baseline dtype where the record gives the "
         "baseline's figure: one panel per metric, each with its own axis of cache dtypes (K/V where they differ), "
         "one line per model and benchmark, one colour per model."},
        {"spec", spec},
        {"datasets", {{"quality", points}}},
        {"follows", {"chosen_model"}},
        {"panel_width", 330},
        {"legend", {{"dataset", "quality"}, {"label", "model_label"}, {"colour", "colour"}, {"where", json::object()}}},
        {"marks",
         {{"quality_lines", {{"dataset", "quality"}, {"per", "series"}}},
          {"quality_points", {{"dataset", "quality"}, {"per", "row"}}}}}};
}

json rows_table(const Context& c) {
    const Table& t = c.rows.table();
    json rows = json::array();
    json links = json::array();
    for (const auto& row : t.rows) {
        json cells = json::array();
        for (const auto& cell : row) cells.push_back(page_cell_json(cell));
        rows.push_back(std::move(cells));
        std::string file = c.rows.text(row, "file");
        links.push_back(file.empty() || !c.input.link ? json(nullptr) : json(c.input.link(file)));
    }
    // record_id is the start of every id (the id adds the point's context): the page does not
    // show it twice, and the CSV and the row filter keep it.
    json hidden = json::array();
    if (std::find(t.columns.begin(), t.columns.end(), "record_id") != t.columns.end() &&
        std::find(t.columns.begin(), t.columns.end(), "id") != t.columns.end()) {
        hidden.push_back("record_id");
    }
    return {
        {"columns", t.columns}, {"rows", rows}, {"links", links}, {"link_column", "id"}, {"hidden_columns", hidden}};
}

}  // namespace

std::vector<std::int64_t> context_grid(std::int64_t top, const std::vector<std::int64_t>& extra) {
    std::set<std::int64_t> points;
    // Doubling stops before it could pass top: a native context near 2^63 must not wrap around.
    for (std::int64_t p = 1024; p < top; p *= 2) {
        points.insert(p);
        if (p > top / 2) break;
    }
    points.insert(top);
    for (std::int64_t e : extra) {
        if (e >= 1024 && e <= top) points.insert(e);
    }
    return {points.begin(), points.end()};
}

json report_content(const ReportInput& input) {
    Context c{input, Columns(input.rows), {}, {}, {}, json::array()};
    choose_subjects(c);
    json charts = json::array();
    charts.push_back(kv_memory_chart(c));
    json decode = speed_chart(c, "decode", "measured_tps_at_ctx", "decode_tps", "decode, tokens/s",
                              "Decode speed against context",
                              "The planner's model in colour, every other model in grey. "
                              "Measured decode speed of one request at each context, per model, "
                              "accelerator, engine and cache dtype (and concurrency, when several requests "
                              "ran at once). Dashed: the bandwidth roofline per request, memory bandwidth / "
                              "(active weights + concurrency x (KV cache at the context + fixed state)), "
                              "drawn where the catalog knows the accelerator and the weights' size.",
                              true);
    if (decode.is_null()) {
        c.notes.push_back("no row of the catalog reports a decode speed; the decode chart is not drawn");
    } else {
        charts.push_back(std::move(decode));
    }
    if (c.rows.has("measured_prefill_tps_at_ctx")) {
        json prefill = speed_chart(c, "prefill", "measured_prefill_tps_at_ctx", "prefill_tps", "prefill, tokens/s",
                                   "Prefill speed against context",
                                   "The planner's model in colour, every other model in grey. Measured prefill (prompt "
                                   "processing) speed at each context.",
                                   false);
        if (prefill.is_null()) {
            c.notes.push_back("no row of the catalog reports a prefill speed; the prefill chart is not drawn");
        } else {
            charts.push_back(std::move(prefill));
        }
    }
    charts.push_back(bytes_per_token_chart(c));
    if (json quality = quality_chart(c); !quality.is_null()) charts.push_back(std::move(quality));

    std::set<std::string> row_models;
    for (const auto& row : input.rows.rows) row_models.insert(c.rows.text(row, "model"));
    json dtypes = json::array();
    for (const auto& d : c.dtypes) dtypes.push_back(std::string(d.name));
    return {{"title", input.title},
            {"generated_by", input.generated_by},
            {"summary",
             {{"rows", input.rows.rows.size()},
              {"models", c.models.size()},
              {"accelerators", c.accelerators.size()},
              {"dtypes", dtypes},
              {"filtered", input.filtered}}},
            {"charts", charts},
            {"table", rows_table(c)},
            {"planner", planner_content(input, c.models, c.accelerators)},
            {"notes", c.notes}};
}

}  // namespace kvcat
