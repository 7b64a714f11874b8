// The report's content and page: the figures drawn are kvcat's own, charts appear only when
// the catalog has their columns, nothing from a record can break out of the page, and
// `kvcat report` writes one self-contained file. The drawing itself is checked in a real
// browser by report_browser_test.py.
#include "output/report.h"
#include "engines/engine_rules.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "engines/engine_memory.h"
#include "engines/sglang/sglang_allocation.h"
#include "kvcat_runner.h"
#include "model/curve.h"
#include "model/physics.h"
#include "output/report_page.h"
#include "vocab/weight_quant.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ReportTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        lint_ = new LintResult(lint_paths({test::fixture_path("seed-catalog/records")}));
        tmp_ = new test::TempDir();
        build_catalog(lint_->records, db());
    }
    static void TearDownTestSuite() {
        delete tmp_;
        delete lint_;
    }
    static fs::path db() { return *tmp_ / "kvcat.db"; }

    ReportInput input() const {
        ReportInput in;
        in.rows = run_read_only(db(), "SELECT * FROM kv_rows ORDER BY id");
        in.records = &lint_->records;
        in.link = [](const std::string& file) { return "../" + file; };
        in.generated_by = "kvcat test";
        for (const auto& row :
             run_read_only(db(), "SELECT record_id, name FROM sources ORDER BY record_id, position").rows) {
            in.sources[std::get<std::string>(row[0])].push_back(std::get<std::string>(row[1]));
        }
        return in;
    }

    static const json& chart(const json& content, const std::string& id) {
        for (const auto& c : content["charts"]) {
            if (c["id"] == id) return c;
        }
        static const json none;
        ADD_FAILURE() << "no chart " << id;
        return none;
    }

    static LintResult* lint_;
    static test::TempDir* tmp_;
};

LintResult* ReportTest::lint_ = nullptr;
test::TempDir* ReportTest::tmp_ = nullptr;

TEST(ContextGrid, PowersOfTwoToTheTopWithTheWindowInside) {
    EXPECT_EQ(context_grid(8192, {}), (std::vector<std::int64_t>{1024, 2048, 4096, 8192}));
    EXPECT_EQ(context_grid(5000, {1536, 512, 9000}), (std::vector<std::int64_t>{1024, 1536, 2048, 4096, 5000}));
}

// A native context past 2^62 once doubled the grid's step past 2^63, wrapped around, and the
// report never ended: the grid stops at the top whatever it is.
TEST(ContextGrid, ATopNearTheLargestIntegerEndsTheGrid) {
    for (std::int64_t top : {std::int64_t{5000000000000000000}, std::numeric_limits<std::int64_t>::max(),
                             (std::int64_t{1} << 62) + 1, std::int64_t{1} << 62}) {
        auto grid = context_grid(top, {});
        ASSERT_EQ(grid.back(), top);
        EXPECT_EQ(grid.front(), 1024);
        EXPECT_LE(grid.size(), 54u);
        EXPECT_TRUE(std::is_sorted(grid.begin(), grid.end()));
    }
}

TEST_F(ReportTest, KvCurvesAreKvcatsOwnBytesForEveryModelAndCatalogDtype) {
    json content = report_content(input());
    const json& kv = chart(content, "kv-memory")["datasets"]["kv"];
    std::set<std::string> series, dtypes;
    std::size_t models = 0;
    for (const auto& r : lint_->records.records()) models += r.model ? 1 : 0;
    for (const auto& row : run_read_only(db(), "SELECT DISTINCT kv_cache_dtype FROM kv_efficiency").rows) {
        dtypes.insert(std::get<std::string>(row[0]));
    }
    for (const auto& p : kv) {
        series.insert(p["series"].get<std::string>());
        const Model& m = *lint_->records.find(p["model"].get<std::string>())->model;
        Rational bytes = kv_cache_bytes(m, *find_cache_dtype(p["kv_cache_dtype"].get<std::string>()),
                                        p["context_length"].get<std::int64_t>());
        ASSERT_TRUE(bytes.is_integer());
        EXPECT_EQ(p["kv_bytes"].get<std::int64_t>(), bytes.num()) << p.dump();
    }
    EXPECT_EQ(series.size(), models * dtypes.size());
    // Gemma's curve bends at its 1,024-token window: from there only 10 of 62 layers grow.
    std::map<std::int64_t, std::int64_t> gemma;
    for (const auto& p : kv) {
        if (p["model"] == "models/gemma-3-27b" && p["kv_cache_dtype"] == "bf16") {
            gemma[p["context_length"]] = p["kv_bytes"];
        }
    }
    EXPECT_EQ(gemma.at(2048) - gemma.at(1024), 10LL * 16 * 128 * 2 * 2 * 1024);
    EXPECT_EQ(chart(content, "kv-memory")["datasets"]["memory"].size(), 5u);
}

/// The report of the shipped catalog (records/), which grows; for properties that must hold
/// whatever it holds.
json shipped_report() {
    LintResult shipped = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    test::TempDir tmp;
    build_catalog(shipped.records, tmp / "kvcat.db");
    ReportInput in;
    in.rows = run_read_only(tmp / "kvcat.db", "SELECT * FROM kv_rows ORDER BY id");
    in.records = &shipped.records;
    in.link = [](const std::string& file) { return file; };
    return report_content(in);
}

// The memory chart draws and labels only the planner's card (a filter on chosen_accelerator),
// so two card labels can never meet, whatever sizes the catalog holds; each card's label names
// it and its memory.
TEST(ReportMemoryLabels, OnlyTheChosenCardIsLabelledAndEachLabelNamesItsSize) {
    json content = shipped_report();
    const json* memory_chart = nullptr;
    for (const auto& c : content["charts"]) {
        if (c["id"] == "kv-memory") memory_chart = &c;
    }
    ASSERT_NE(memory_chart, nullptr);
    for (const auto& layer : (*memory_chart)["spec"]["layer"]) {
        if (layer["name"] == "memory_labels" || layer["name"] == "memory_rules") {
            EXPECT_EQ(layer["transform"][0]["filter"], "datum.accelerator === chosen_accelerator") << layer.dump();
        }
    }
    for (const auto& m : (*memory_chart)["datasets"]["memory"]) {
        std::string label = m["label"];
        EXPECT_TRUE(label.ends_with(" GB")) << label;
        EXPECT_EQ(label.find(','), std::string::npos) << label << ": the name should stop before its first comma";
    }
}

// The planner's exported terms, multiplied by a batch as the page does, are fit_context's own
// terms at that batch, for every model, cache dtype and card count kvcat can split; and each
// weight format's bytes are resident_weight_bytes. So the page's sum is `kvcat fit`'s.
TEST_F(ReportTest, PlannerTermsAreFitContextsAtAnyBatch) {
    json planner = report_content(input())["planner"];
    auto exact = [](const json& text) {
        auto r = Rational::parse(text.get<std::string>());
        EXPECT_TRUE(r) << text;
        return r.value_or(Rational(0));
    };
    EXPECT_EQ(exact(planner["reserve"]), kDefaultReserveBytes);
    const Record* card = lint_->records.find("accelerators/nvidia-h200");
    ASSERT_TRUE(card && card->accelerator);
    auto q4 = *find_weight_quant("Q4_K");
    int checked = 0;
    for (const auto& m : planner["models"]) {
        const Model& model = *lint_->records.find(m["id"].get<std::string>())->model;
        EXPECT_EQ(exact(m["weights"]["Q4_K"]), resident_weight_bytes(model, q4)) << m["id"];
        EXPECT_EQ(exact(m["active_weights"]["Q4_K"]), active_weight_bytes(model, q4)) << m["id"];
        for (const auto& [dtype_name, by_cards] : m["terms"]["textbook"].items()) {
            auto dtype = *find_cache_dtype(dtype_name);
            for (const auto& [cards, t] : by_cards.items()) {
                FitSetup setup;
                setup.batch = 3;
                setup.gpus = std::stoll(cards);
                if (t.contains("error")) {
                    EXPECT_THROW(fit_context(model, *card->accelerator, &q4, dtype, setup), PhysicsError);
                    continue;
                }
                FitTerms f = fit_context(model, *card->accelerator, &q4, dtype, setup);
                EXPECT_EQ(exact(t["growing"]) * Rational(3), f.growing_per_token) << m["id"] << dtype_name << cards;
                EXPECT_EQ(exact(t["sliding"]) * Rational(3), f.sliding_per_token) << m["id"] << dtype_name << cards;
                EXPECT_EQ(exact(t["fixed"]) * Rational(3), f.fixed_state) << m["id"] << dtype_name << cards;
                EXPECT_EQ(t["window"].get<std::int64_t>(), f.window);
                EXPECT_EQ(exact(m["weights"]["Q4_K"]) / Rational(setup.gpus), f.weights);
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 100);
}

// What the page does with an engine's exported coefficients (src/output/report_planner.js), done
// again here, against engine_allocation() at contexts and batches off any grid, for every
// model, cache dtype and card count of the shipped catalog: the page's engine figures are
// what `kvcat fit --engine` prints.
Rational q(const json& text) {
    auto r = Rational::parse(text.get<std::string>());
    EXPECT_TRUE(r) << text;
    return r.value_or(Rational(0));
}

std::int64_t pad_to(std::int64_t n, std::int64_t to) {
    return (n + to - 1) / to * to;
}

TEST(ReportPlannerEngines, CoefficientsGiveTheEnginesFiguresAtAnyContextAndBatch) {
    LintResult shipped = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    test::TempDir tmp;
    build_catalog(shipped.records, tmp / "kvcat.db");
    ReportInput in;
    in.rows = run_read_only(tmp / "kvcat.db", "SELECT * FROM kv_rows ORDER BY id");
    in.records = &shipped.records;
    json planner = report_content(in)["planner"];
    const std::int64_t contexts[] = {1, 1000, 4097, 65536, 100000, 262145};
    const std::int64_t batches[] = {1, 3, 8};
    std::map<std::string, int> checked;
    for (const auto& m : planner["models"]) {
        const Model& model = *shipped.records.find(m["id"].get<std::string>())->model;
        for (const auto& d : cache_dtypes()) {
            const std::string name(d.name);
            // llama.cpp, one card: cells padded to 256 and shared by the streams, the SWA cache
            // its window plus a ubatch.
            const json& l = m["engines"]["llama.cpp"][name];
            if (!l.contains("error")) {
                for (std::int64_t c : contexts) {
                    for (std::int64_t b : batches) {
                        EngineSettings s;
                        s.context = c * b;
                        s.parallel = b;
                        EngineAnswer a = engine_allocation(model, d, Engine::llamacpp, s);
                        std::int64_t n_ctx = pad_to(c * b, 256);
                        std::int64_t cells = b == 1 ? n_ctx : pad_to(n_ctx / b, 256);
                        std::int64_t window = l["swa_window"];
                        std::int64_t swa = window > 0 ? pad_to(std::min(cells, window + 512), 256) : 0;
                        Rational kv =
                            q(l["base_per_cell"]) * Rational(cells * b) + q(l["swa_per_cell"]) * Rational(swa * b);
                        EXPECT_EQ(kv, a.kv_bytes) << m["id"] << " " << name << " " << c << "x" << b;
                        EXPECT_EQ(q(l["state_per_sequence"]) * Rational(b), a.state_bytes) << m["id"] << " " << name;
                        EXPECT_EQ(cells * b, a.tokens.value_or(-1)) << m["id"] << " " << name;
                        ++checked["llama.cpp"];
                    }
                }
            } else {
                EXPECT_THROW(engine_allocation(model, d, Engine::llamacpp, EngineSettings()), std::exception);
            }
            for (const auto& [cards, v] : m["engines"]["vllm"][name].items()) {
                EngineSettings s;
                s.gpus = std::stoll(cards);
                s.available_bytes = Rational(19876543210);
                if (v.contains("error")) {
                    s.max_model_len = 4096;
                    EXPECT_THROW(engine_allocation(model, d, Engine::vllm, s), std::exception) << m["id"] << name;
                    continue;
                }
                // The pool holds available // divisor blocks; a request of the context takes, per term,
                // cdiv(context, block) blocks (full), cdiv(min(window - 1 + 2048, context), block) + 1
                // (sliding), cdiv(min(chunk + 2048, context), block) (chunked) or one (state).
                std::int64_t block = v["block_size"], divisor = v["divisor"];
                std::int64_t blocks = s.available_bytes->floor() / divisor;
                for (std::int64_t c : contexts) {
                    s.max_model_len = c;
                    EngineAnswer a = engine_allocation(model, d, Engine::vllm, s);
                    Rational kv(0);
                    std::int64_t need = 0;
                    std::int64_t request = 0;  // every layer's pages for one request, as vLLM checks them
                    for (const auto& t : v["terms"]) {
                        std::string kind = t[0];
                        std::int64_t page = t[1], layers = t[2], weight = t[3], window = t[4];
                        std::int64_t n = kind == "full"      ? (c + block - 1) / block
                                         : kind == "sliding" ? (std::min(window - 1 + 2048, c) + block - 1) / block + 1
                                         : kind == "chunked" ? (std::min(window + 2048, c) + block - 1) / block
                                                             : 1;
                        if (kind != "state") kv += Rational(page * n * layers);
                        need += weight * page * n;
                        request += page * n * layers;
                    }
                    if (request > s.available_bytes->floor()) {
                        // vLLM refuses to start: no pool, its words and its estimate instead.
                        EXPECT_TRUE(a.refusal.has_value()) << m["id"] << " " << name << " " << c;
                        EXPECT_FALSE(a.blocks.has_value()) << m["id"] << " " << name << " " << c;
                        EXPECT_LT(a.estimated_max_context.value_or(c), c) << m["id"] << " " << name << " " << c;
                        ++checked["vllm refusals"];
                        continue;
                    }
                    EXPECT_FALSE(a.refusal.has_value()) << m["id"] << " " << name << " " << c;
                    std::int64_t per_request = (need + divisor - 1) / divisor;
                    double concurrency = static_cast<double>(blocks) / static_cast<double>(per_request);
                    EXPECT_EQ(kv, a.kv_bytes) << m["id"] << " " << name << " " << cards << " " << c;
                    EXPECT_EQ(q(v["state"]), a.state_bytes) << m["id"] << " " << name << " " << cards;
                    EXPECT_EQ(blocks, a.blocks.value_or(-1)) << m["id"] << " " << name << " " << cards;
                    EXPECT_EQ(concurrency, a.max_concurrency.value_or(-1)) << m["id"] << " " << name << " " << c;
                    EXPECT_EQ(static_cast<std::int64_t>(concurrency * static_cast<double>(c)), a.tokens.value_or(-1))
                        << m["id"] << " " << name << " " << cards << " " << c;
                    ++checked["vllm"];
                }
            }
            for (const auto& [cards, g] : m["engines"]["sglang"][name].items()) {
                EngineSettings s;
                s.gpus = std::stoll(cards);
                if (model.sliding && model.sliding->layers > 0) continue;  // two pools: fit's, not the planner's
                if ((model.linear && model.linear->layers > 0) || sglang_dsa(model)) {
                    // A hybrid's Mamba pool, or DeepSeek's DSA pool: fit's too, and the page says so.
                    EXPECT_TRUE(g.contains("error")) << m["id"] << name;
                    continue;
                }
                if (g.contains("error")) {
                    EXPECT_THROW(engine_allocation(model, d, Engine::sglang, s), std::exception) << m["id"] << name;
                    continue;
                }
                // The pool: floor(memory / cell) tokens and one padding slot; sized: tokens + 1 slots.
                Rational cell = q(g["cell"]);
                s.available_bytes = Rational(19876543210);
                EngineAnswer pool = engine_allocation(model, d, Engine::sglang, s);
                std::int64_t tokens = (*s.available_bytes / cell).floor();
                EXPECT_EQ(tokens, pool.tokens.value_or(-1)) << m["id"] << " " << name << " " << cards;
                EXPECT_EQ(Rational(tokens + 1) * cell, pool.kv_bytes) << m["id"] << " " << name << " " << cards;
                s.available_bytes.reset();
                s.context = 100000 * 3;
                EngineAnswer sized = engine_allocation(model, d, Engine::sglang, s);
                EXPECT_EQ(Rational(300001) * cell, sized.kv_bytes) << m["id"] << " " << name << " " << cards;
                ++checked["sglang"];
            }
        }
    }
    EXPECT_GT(checked["llama.cpp"], 1000);
    EXPECT_GT(checked["vllm"], 500);
    EXPECT_GT(checked["sglang"], 50);
}

// The planner carries each quality result under its model, with a link to its record, and each
// record's first source with its address.
TEST_F(ReportTest, PlannerCarriesQualityAndSourcesByRecord) {
    ReportInput in = input();
    in.source_urls["kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"] = "https://example.org/page";
    Table quality;
    quality.columns = {"record_id", "model", "kv_cache_dtype", "benchmark", "value", "file"};
    quality.rows.push_back({Cell{std::string("kv-efficiency/x")}, Cell{std::string("models/qwen3.5-27b")},
                            Cell{std::string("q8_0")}, Cell{std::string("wikitext-2")}, Cell{6.5},
                            Cell{std::string("records/kv-efficiency/x.yaml")}});
    in.quality = quality;
    json planner = report_content(in)["planner"];
    ASSERT_EQ(planner["quality"].size(), 1u);
    EXPECT_EQ(planner["quality"][0]["model"], "models/qwen3.5-27b");
    EXPECT_EQ(planner["quality"][0]["link"], "../records/kv-efficiency/x.yaml");
    EXPECT_EQ(planner["quality"][0]["value"], 6.5);
    EXPECT_EQ(planner["sources"]["kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"]["url"], "https://example.org/page");
}

// A speed chart draws one line per series: a series holding two points at one context would
// be drawn as a line zigzagging between two runs (the shipped catalog has two SGLang records
// of one model, card and dtype, with and without speculative decoding).
TEST(ReportSpeedSeries, EachSeriesHasOnePointPerContextOnTheShippedCatalog) {
    json content = shipped_report();
    int charts = 0;
    for (const auto& c : content["charts"]) {
        if (c["id"] != "decode" && c["id"] != "prefill") continue;
        ++charts;
        std::map<std::string, std::set<std::int64_t>> contexts;
        for (const auto& p : c["datasets"]["measured"]) {
            EXPECT_TRUE(contexts[p["series"]].insert(p["context_length"].get<std::int64_t>()).second)
                << c["id"] << ": series '" << p["series"] << "' has two points at " << p["context_length"];
        }
    }
    EXPECT_EQ(charts, 2);
}

// A decode speed taken with a draft model or an MTP head is several tokens a step: its line says
// so in its name and its legend, and a line without speculation never does.
TEST(ReportSpeedSeries, SpeculativeLinesSaySoOnTheShippedCatalog) {
    json content = shipped_report();
    std::size_t marked = 0;
    for (const auto& c : content["charts"]) {
        if (c["id"] != "decode") continue;
        for (const auto& p : c["datasets"]["measured"]) {
            // What the record itself writes: a method, or off, or nothing.
            std::string text = test::read_file(fs::path(KVCAT_SOURCE_DIR) / p["file"].get<std::string>());
            auto at = text.find("\nspeculative_decoding: ");
            std::string method =
                at == std::string::npos ? "null" : text.substr(at + 23, text.find('\n', at + 1) - at - 23);
            bool speculative = method != "null" && method != "off" && method != "\"off\"";
            bool says = p["label"].get<std::string>().find("speculative decoding") != std::string::npos;
            EXPECT_EQ(says, speculative) << p["series"] << " (" << method << ")";
            marked += says ? 1 : 0;
        }
    }
    EXPECT_GT(marked, 0u);
}

TEST_F(ReportTest, RooflineMeetsTheCatalogsCeilingAtTheRowsContext) {
    json content = report_content(input());
    const json& decode = chart(content, "decode");
    Table row = run_read_only(db(),
                              "SELECT context_length, roofline_tps, measured_tps_at_ctx FROM kv_rows "
                              "WHERE roofline_tps IS NOT NULL AND measured_tps_at_ctx IS NOT NULL");
    ASSERT_FALSE(row.rows.empty());
    std::int64_t context = std::get<std::int64_t>(row.rows[0][0]);
    bool met = false;
    for (const auto& p : decode["datasets"]["roofline"]) {
        if (p["context_length"] == context) {
            EXPECT_NEAR(p["ceiling_tps"].get<double>(), std::get<double>(row.rows[0][1]), 1e-9);
            met = true;
        }
    }
    EXPECT_TRUE(met) << "no ceiling at " << context;
    EXPECT_EQ(decode["datasets"]["measured"].size(), row.rows.size());
    EXPECT_EQ(decode["datasets"]["measured"][0]["source"].get<std::string>().empty(), false);
}

TEST_F(ReportTest, PrefillAndQualityAreDrawnOnlyWhenTheCatalogHasThem) {
    json plain = report_content(input());
    for (const auto& c : plain["charts"]) {
        EXPECT_NE(c["id"], "prefill");
        EXPECT_NE(c["id"], "quality");
    }
    ReportInput in = input();
    in.rows.columns.push_back("measured_prefill_tps_at_ctx");
    for (std::size_t i = 0; i < in.rows.rows.size(); ++i) {
        in.rows.rows[i].push_back(i == 0 ? Cell{1500.0} : Cell{});
    }
    Table quality;
    quality.columns = {"model", "kv_cache_dtype", "metric", "score"};
    quality.rows = {{std::string("models/qwen3.5-27b"), std::string("bf16"), std::string("gsm8k"), 0.91},
                    {std::string("models/qwen3.5-27b"), std::string("q8_0"), std::string("gsm8k"), 0.90}};
    in.quality = quality;
    json content = report_content(in);
    EXPECT_EQ(chart(content, "prefill")["datasets"]["measured"].size(), 1u);
    EXPECT_EQ(chart(content, "prefill")["datasets"]["measured"][0]["prefill_tps"], 1500.0);
    EXPECT_EQ(chart(content, "quality")["datasets"]["quality"].size(), 2u);

    in.quality->columns = {"model", "flavour", "metric", "verdict"};
    json unknown = report_content(in);
    EXPECT_NE(unknown["notes"].dump().find("quality is not drawn"), std::string::npos) << unknown["notes"];
}

// A record with thousands of quality metrics is drawn in a bounded number of panels (a
// panel per metric made 7,000 panels, which a browser took 42 s to draw), and the page says
// what it left out.
TEST_F(ReportTest, QualityPanelsAreBoundedPerRecord) {
    ReportInput in = input();
    Table quality;
    quality.columns = {"record_id", "model", "kv_cache_dtype", "metric", "value"};
    for (int i = 0; i < 7000; ++i) {
        quality.rows.push_back({std::string("kv-efficiency/many"), std::string("models/qwen3.5-27b"),
                                std::string("bf16"), std::string("metric ") + std::to_string(i), 0.5});
    }
    quality.rows.push_back({std::string("kv-efficiency/few"), std::string("models/qwen3.5-27b"), std::string("q8_0"),
                            std::string("gsm8k"), 0.9});
    in.quality = quality;
    json content = report_content(in);
    std::set<std::string> many_panels;
    bool few_drawn = false;
    for (const auto& p : chart(content, "quality")["datasets"]["quality"]) {
        if (p["record"] == "kv-efficiency/many") many_panels.insert(p["panel"].get<std::string>());
        if (p["record"] == "kv-efficiency/few") few_drawn = true;
    }
    EXPECT_EQ(many_panels.size(), 24u);
    EXPECT_TRUE(few_drawn) << "another record's results are drawn still";
    EXPECT_NE(content["notes"].dump().find("kv-efficiency/many has quality results in 7000 metrics; the quality "
                                           "chart draws the first 24"),
              std::string::npos)
        << content["notes"];
}

TEST_F(ReportTest, ACatalogWithoutRowsStillDrawsItsModelsAtBf16) {
    ReportInput in = input();
    in.rows.rows.clear();
    json content = report_content(in);
    std::vector<std::string> ids;
    for (const auto& c : content["charts"]) ids.push_back(c["id"]);
    EXPECT_EQ(ids, (std::vector<std::string>{"kv-memory", "bytes-per-token"}));
    EXPECT_EQ(content["summary"]["dtypes"], json::array({"bf16"}));
    EXPECT_NE(content["notes"].dump().find("decode chart is not drawn"), std::string::npos);
    EXPECT_TRUE(content["table"]["rows"].empty());
}

TEST_F(ReportTest, TableHoldsEveryRowWithItsLink) {
    json content = report_content(input());
    const json& table = content["table"];
    EXPECT_EQ(table["rows"].size(), 2u);
    EXPECT_EQ(table["columns"][0], "id");
    std::size_t file_at = 0;
    while (file_at < table["columns"].size() && table["columns"][file_at] != "file") ++file_at;
    ASSERT_LT(file_at, table["columns"].size());
    for (std::size_t i = 0; i < table["rows"].size(); ++i) {
        std::string file = table["rows"][i][file_at];
        EXPECT_EQ(table["links"][i], "../" + file);
    }
}

TEST(ReportPage, NothingFromARecordCanCloseItsScriptElement) {
    json hostile = {{"title", "</script><script>alert(1)</script><!--"}, {"note", "a & b > c"}};
    std::string text = json_for_script(hostile);
    EXPECT_EQ(text.find('<'), std::string::npos) << text;
    EXPECT_EQ(text.find('>'), std::string::npos) << text;
    EXPECT_EQ(text.find('&'), std::string::npos) << text;
    EXPECT_EQ(json::parse(text), hostile);
    EXPECT_EQ(html_escape("<b title='x'>\"&\"</b>"), "&lt;b title=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/b&gt;");
}

TEST(ReportPage, InlineScriptDropsTheSourceMapAndCannotEndItsElement) {
    std::string script = inline_script("var s = '</SCRIPT>';\n//# sourceMappingURL=lib.min.js.map");
    EXPECT_EQ(script, "var s = '<\\/SCRIPT>';\n");
}

TEST(ReportPage, CarriesTheLibrariesTheirLicensesAndNoOutsideReference) {
    std::string page = report_html({{"title", "t"}, {"charts", json::array()}});
    EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
    for (const char* needed : {"vegaEmbed", "vegaLite", "Interactive Data Lab", "Vega-Lite 6.5.0", "Vega 6.4.0",
                               "vega-embed 7.3.0", "default-src 'none'"}) {
        EXPECT_NE(page.find(needed), std::string::npos) << needed;
    }
    EXPECT_EQ(page.find("sourceMappingURL"), std::string::npos);
    // The page's own part, before the libraries' code, refers to nothing outside it.
    std::string own = page.substr(0, page.find("<script>\n"));
    for (const char* outside : {"<script src", "<link", "<img", "src=", "href=", "@import", "url("}) {
        EXPECT_EQ(own.find(outside), std::string::npos) << outside;
    }
}

TEST(ReportPage, EmbedsEachVendoredLibraryByteForByte) {
    std::string page = report_html({{"title", "t"}, {"charts", json::array()}});
    for (const char* lib : {"third_party/vega/vega.min.js", "third_party/vega-lite/vega-lite.min.js",
                            "third_party/vega-embed/vega-embed.min.js"}) {
        std::string text = test::read_file(fs::path(KVCAT_SOURCE_DIR) / lib);
        // Everything but a source-map comment, which the page leaves out.
        std::string code = text.substr(0, text.find("//# sourceMappingURL="));
        ASSERT_GT(code.size(), 50000u) << lib;
        EXPECT_NE(page.find(code), std::string::npos) << lib << " is not in the page as it is on disk";
    }
}

using test::KvcatRunner;
using test::Outcome;

/// The report's JSON, read back out of the page.
json content_of(const std::string& page) {
    const std::string open = "<script type=\"application/json\" id=\"report-content\">";
    std::size_t from = page.find(open);
    if (from == std::string::npos) return nullptr;
    from += open.size();
    return json::parse(page.substr(from, page.find("</script>", from) - from));
}

TEST(CmdReport, WritesOnePageIntoANewFolderAndFiltersItsRows) {
    KvcatRunner k;
    Outcome all = k.run({"report", "--out", "site/index.html"});
    ASSERT_EQ(all.status, 0) << all.err;
    json content = content_of(test::read_file(k.dir() / "site/index.html"));
    ASSERT_TRUE(content.is_object());
    EXPECT_EQ(content["table"]["rows"].size(), 2u);
    EXPECT_EQ(content["table"]["links"][0].get<std::string>().rfind("../records/kv-efficiency/", 0), 0u);

    // `--out ../page.html` from the folder that holds the records: the page is one folder up,
    // and every link opens its record from there (sub/records/...).
    fs::create_directories(k.dir() / "up/sub");
    fs::copy(k.dir() / "records", k.dir() / "up/sub/records", fs::copy_options::recursive);
    int status = test::run_shell("cd " + test::shell_quote((k.dir() / "up/sub").string()) + " && " +
                                 test::shell_quote(::kvcat::test::kvcat_binary()) +
                                 " -q report --out ../page.html >/dev/null 2>&1");
    ASSERT_EQ(status, 0);
    json links = content_of(test::read_file(k.dir() / "up/page.html"))["table"]["links"];
    ASSERT_EQ(links.size(), 2u);
    for (const auto& link : links) {
        ASSERT_TRUE(link.is_string()) << link;
        EXPECT_EQ(link.get<std::string>().rfind("sub/records/kv-efficiency/", 0), 0u) << link;
        EXPECT_TRUE(fs::exists(k.dir() / "up" / link.get<std::string>())) << link;
    }

    Outcome some = k.run(
        {"report", "--out", "-", "--link-base", "https://example.org/repo/blob/main", "model=models/qwen3.5-27b"});
    ASSERT_EQ(some.status, 0) << some.err;
    json filtered = content_of(some.out);
    ASSERT_EQ(filtered["table"]["rows"].size(), 1u);
    EXPECT_EQ(filtered["table"]["links"][0],
              "https://example.org/repo/blob/main/records/kv-efficiency/"
              "llamacpp-qwen35-27b-rtx3090-64k.yaml");
    EXPECT_EQ(filtered["summary"]["models"], 1);
    EXPECT_EQ(filtered["summary"]["accelerators"], 1);
}

TEST(CmdReport, ABadFilterIsNamedAndNothingIsWritten) {
    KvcatRunner k;
    Outcome r = k.run({"report", "--out", "r.html", "contxt_length>64k"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("context_length"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(k.dir() / "r.html"));
}

}  // namespace
}  // namespace kvcat
