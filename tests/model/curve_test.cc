// The KV curve and the model_kv view: bytes at a context from kv_math, what fits, the table
// kvcat curve prints, and the SQL view held to the same arithmetic for every shipped model.
#include "model/curve.h"

#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "kvcat_runner.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "output/report.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

const LintResult& shipped() {
    static const LintResult r = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    return r;
}

const Model& model(const std::string& id) {
    return *shipped().records.find(id)->model;
}
const CacheDtype& dtype(std::string_view name) {
    static std::map<std::string, CacheDtype, std::less<>> cache;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(std::string(name), *find_cache_dtype(name)).first;
    return it->second;
}

constexpr std::int64_t kGiB = 1LL << 30;

TEST(Curve, Llama8bAtBf16IsOneGibAt8kAndSixteenAt128k) {
    // 32 layers x 8 kv heads x 128 x 2 (K+V) x 2 bytes = 131,072 bytes per token.
    EXPECT_EQ(growing_kv_bytes_per_token(model("models/llama-3.1-8b"), dtype("bf16")), Rational(131072));
    EXPECT_EQ(kv_cache_bytes(model("models/llama-3.1-8b"), dtype("bf16"), 8192), Rational(kGiB));
    EXPECT_EQ(kv_cache_bytes(model("models/llama-3.1-8b"), dtype("bf16"), 131072), Rational(16 * kGiB));
}

TEST(Curve, SlidingLayersStopGrowingAtTheirWindow) {
    // Gemma 3 27B: 10 global layers grow; 52 sliding layers keep at most 1,024 tokens.
    const Model& gemma = model("models/gemma-3-27b");
    Rational per_layer_token(16 * 128 * 2 * 2);
    EXPECT_EQ(kv_cache_bytes(gemma, dtype("bf16"), 512), Rational(62) * per_layer_token * Rational(512));
    Rational at_window = kv_cache_bytes(gemma, dtype("bf16"), 1024);
    Rational at_128k = kv_cache_bytes(gemma, dtype("bf16"), 131072);
    EXPECT_EQ(at_128k - at_window, Rational(10) * per_layer_token * Rational(131072 - 1024));
}

TEST(Curve, QuantisedCacheKeepsItsBlockFraction) {
    // q8_0 is 34/32 bytes per element, so the cache is 17/16 of the fp8 one, exactly.
    const Model& llama = model("models/llama-3.1-8b");
    EXPECT_EQ(kv_cache_bytes(llama, dtype("q8_0"), 1000), kv_cache_bytes(llama, dtype("fp8"), 1000) * Rational(17, 16));
}

TEST(Curve, FitsComparesCacheStateAndWeightsWithMemory) {
    const LintResult& r = shipped();
    CurveRequest request;
    request.model_id = "models/qwen3.5-27b";
    request.model = &model(request.model_id);
    request.dtypes = {dtype("bf16")};
    request.accelerators = {
        {"accelerators/nvidia-rtx-3090", &*r.records.find("accelerators/nvidia-rtx-3090")->accelerator}};
    request.contexts = {65536, 262144};
    request.weight_quant = find_weight_quant("Q4_K");
    auto points = kv_curve(request);
    ASSERT_EQ(points.size(), 2u);
    // 15,187,500,000 of weights + 156,893,184 of state + 65,536 x C against 24,000,000,000:
    // 64k (about 4.3 GB of cache) fits, 256k (about 17.2 GB) does not. No reserve is held back.
    EXPECT_EQ(points[0].fixed_state, Rational(156893184));
    EXPECT_EQ(points[0].kv_bytes, Rational(65536) * Rational(65536));
    EXPECT_EQ(points[0].fits[0], std::optional<bool>(true));
    EXPECT_EQ(points[1].fits[0], std::optional<bool>(false));
    Table t = curve_table(request, points);
    std::vector<std::string> columns = {"model",  "kv_cache_dtype",    "context_length", "kv_bytes",
                                        "kv_gib", "fixed_state_bytes", "weight_bytes",   "fits_nvidia-rtx-3090"};
    EXPECT_EQ(t.columns, columns);
    EXPECT_EQ(std::get<std::string>(t.rows[1].back()), "no");
    EXPECT_EQ(std::get<double>(t.rows[0][4]), 4.0);
}

TEST(Curve, ContextListTakesSuffixesAndRefusesTheRest) {
    EXPECT_EQ(parse_contexts("8k,128k,1M,4096"), (std::vector<std::int64_t>{8192, 131072, 1048576, 4096}));
    EXPECT_THROW(parse_contexts("8k,,16k"), std::invalid_argument);
    EXPECT_THROW(parse_contexts("0"), std::invalid_argument);
    EXPECT_THROW(parse_contexts("1.5"), std::invalid_argument);
    EXPECT_THROW(parse_contexts("lots"), std::invalid_argument);
    try {
        parse_contexts("8k,-2");
        FAIL() << "a negative context was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'-2'"), std::string::npos) << e.what();
    }
}

/// The model_kv view of a catalog built from the shipped records, keyed by model and dtype.
std::map<std::pair<std::string, std::string>, std::vector<Cell>> model_kv_view(const fs::path& db) {
    Table t = run_read_only(db,
                            "SELECT model, kv_cache_dtype, bytes_per_element, kv_bytes_per_token, "
                            "sliding_kv_bytes_per_token, sliding_window, fixed_state_bytes FROM model_kv");
    std::map<std::pair<std::string, std::string>, std::vector<Cell>> out;
    for (auto& row : t.rows) {
        out[{std::get<std::string>(row[0]), std::get<std::string>(row[1])}] = row;
    }
    return out;
}

Rational as_rational(const Cell& c) {
    if (const auto* i = std::get_if<std::int64_t>(&c)) return Rational(*i);
    ADD_FAILURE() << "expected a whole number of bytes";
    return Rational(-1);
}

TEST(ModelKvView, AgreesWithKvMathForEveryShippedModelAndDtype) {
    test::TempDir tmp;
    fs::path db = tmp / "kvcat.db";
    build_catalog(shipped().records, db);
    auto view = model_kv_view(db);
    std::size_t models = 0;
    for (const auto& r : shipped().records.records()) {
        if (!r.model) continue;
        ++models;
        for (const auto& d : cache_dtypes()) {
            SCOPED_TRACE(r.id + " at " + std::string(d.name));
            auto it = view.find({r.id, std::string(d.name)});
            ASSERT_NE(it, view.end());
            const auto& row = it->second;
            EXPECT_EQ(std::get<std::string>(row[2]), d.bytes_per_element().to_string());
            Rational growing = growing_kv_bytes_per_token(*r.model, d);
            if (growing.is_integer()) {
                EXPECT_EQ(as_rational(row[3]), growing);
            } else {
                EXPECT_DOUBLE_EQ(std::get<double>(row[3]), growing.to_double());
            }
            // The view's figures give back kv_math's bytes at a context past any window.
            std::int64_t context = 300000;
            Rational sliding = r.model->sliding ? as_rational(row[4]) : Rational(0);
            std::int64_t window = r.model->sliding ? std::get<std::int64_t>(row[5]) : 0;
            if (growing.is_integer()) {
                EXPECT_EQ(growing * Rational(context) + sliding * Rational(window),
                          kv_cache_bytes(*r.model, d, context));
            }
            EXPECT_EQ(as_rational(row[6]), fixed_state_bytes(*r.model));
        }
    }
    EXPECT_EQ(view.size(), models * cache_dtypes().size()) << "the view lists a dtype kvcat does not know";
}

using test::KvcatRunner;
using test::Outcome;

TEST(CmdCurve, PrintsTheDoneWhenFigures) {
    KvcatRunner k;
    Outcome r = k.run(
        {"curve", "--model", "models/llama-3.1-8b", "--kv-dtype", "bf16", "--contexts", "8k,128k", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["context_length"], 8192);
    EXPECT_EQ(j[0]["kv_bytes"], kGiB);
    EXPECT_EQ(j[0]["kv_gib"], 1.0);
    EXPECT_EQ(j[1]["kv_bytes"], 16 * kGiB);
    EXPECT_EQ(j[1]["kv_gib"], 16.0);
    // Without --accelerator every accelerator record gets a column; 16 GiB fits 24 GB.
    EXPECT_EQ(j[1]["fits_nvidia-rtx-3090"], "yes");
    EXPECT_EQ(j[1]["fits_nvidia-h100-sxm"], "yes");
}

TEST(CmdCurve, EveryTableFormatAndAnAcceleratorThatIsTooSmall) {
    KvcatRunner k;
    Outcome csv = k.run({"curve", "--model", "models/llama-3.1-70b", "--kv-dtype", "bf16,q8_0", "--accelerator",
                         "accelerators/nvidia-rtx-3090", "--contexts", "128k", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    // 80 layers x 8 x 128 x 2 x 2 = 327,680 B/token: 40 GiB at 128k, over 24 GB.
    EXPECT_EQ(csv.out,
              "model,kv_cache_dtype,context_length,kv_bytes,kv_gib,fixed_state_bytes,fits_nvidia-"
              "rtx-3090\r\n"
              "models/llama-3.1-70b,bf16,131072,42949672960,40,0,no\r\n"
              "models/llama-3.1-70b,q8_0,131072,22817013760,21.25,0,yes\r\n");
    for (const char* format : {"table", "tsv", "ndjson", "markdown"}) {
        Outcome r = k.run({"curve", "--model", "models/llama-3.1-70b", "--contexts", "1k", "--format", format});
        EXPECT_EQ(r.status, 0) << format << ": " << r.err;
        EXPECT_NE(r.out.find("335544320"), std::string::npos) << format << ":\n" << r.out;  // 327,680 x 1,024
    }
}

TEST(CmdCurve, ATerminalShowsEveryByteColumnInBinaryUnits) {
    KvcatRunner k;
    Outcome r = k.run_on_terminal({"curve", "--model", "llama-3.1-8b", "--kv-dtype", "bf16", "--contexts", "128k",
                                   "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q4_K"},
                                  {"COLUMNS=200"});
    ASSERT_EQ(r.status, 0) << r.err;
    // 16 GiB of KV at 128k, never the raw 17179869184.
    EXPECT_EQ(r.out.find("17179869184"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("16 GiB"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kv_bytes"), std::string::npos) << r.out;
}

TEST(CmdCurve, MistakesAreNamed) {
    KvcatRunner k;
    Outcome model = k.run({"curve", "--model", "models/llama-3.1-8", "--contexts", "8k"});
    EXPECT_EQ(model.status, 2);
    EXPECT_NE(model.err.find("did you mean 'models/llama-3.1-8b'"), std::string::npos) << model.err;
    Outcome dtype = k.run({"curve", "--model", "models/llama-3.1-8b", "--kv-dtype", "int3", "--contexts", "8k"});
    EXPECT_EQ(dtype.status, 2);
    EXPECT_NE(dtype.err.find("unknown KV cache dtype 'int3'"), std::string::npos) << dtype.err;
    Outcome context = k.run({"curve", "--model", "models/llama-3.1-8b", "--contexts", "8k,big"});
    EXPECT_EQ(context.status, 2);
    EXPECT_NE(context.err.find("context 'big'"), std::string::npos) << context.err;
    EXPECT_TRUE(context.out.empty());
}

/// DeepSeek-V3.2 imported from its config into a records tree of its own, as a user would:
/// the sparse-attention indexer keeps a 132-byte key per token per layer beside the latent.
class ImportedIndexerModel {
  public:
    ImportedIndexerModel() {
        fs::create_directories(records() / "models");
        Outcome r = k_.run({"import-config", test::fixture_path("configs/deepseek-v3.2.json").string(),
                            "--total-params-b", "10", "--active-params-b", "10", "--id", "models/t-deepseek-v3.2",
                            "--out", (records() / "models/t-deepseek-v3.2.yaml").string()});
        if (r.status != 0) throw std::runtime_error("import-config failed: " + r.err);
        lint_ = lint_paths({records()});
    }
    const KvcatRunner& kvcat() const { return k_; }
    fs::path records() const { return k_.dir() / "records"; }
    const LintResult& lint() const { return lint_; }
    const Model& model() const { return *lint_.records.find("models/t-deepseek-v3.2")->model; }

  private:
    KvcatRunner k_{false};
    LintResult lint_;
};

// Hand-worked: 61 layers x (576 latent elements x 1 byte at fp8 + 132 indexer bytes) = 61 x 708
// = 43,188 B/token, the figure `kvcat new` and `kvcat fit` give; x 131,072 tokens =
// 5,660,737,536 B. Without the indexer it would be 61 x 576 x 131,072 = 4,605,345,792 B.
TEST(CmdCurve, AnIndexerModelCountsItsIndexerKeyCacheAsNewAndFitDo) {
    ImportedIndexerModel ds;
    ASSERT_TRUE(ds.lint().diagnostics.empty()) << test::describe(ds.lint().diagnostics);
    EXPECT_EQ(growing_kv_bytes_per_token(ds.model(), dtype("fp8")), Rational(43188));
    // At bf16 the latent doubles and the indexer stays fp8: 61 x (576 x 2 + 132) = 78,324.
    EXPECT_EQ(growing_kv_bytes_per_token(ds.model(), dtype("bf16")), Rational(78324));
    Outcome r = ds.kvcat().run({"curve", "--model", "t-deepseek-v3.2", "--contexts", "128k", "--kv-dtype", "fp8",
                                "--records", ds.records().string(), "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["kv_bytes"], 5660737536LL);
}

TEST(ModelKvView, CountsAnIndexerKeyCacheInItsOwnDtype) {
    ImportedIndexerModel ds;
    test::TempDir tmp;
    fs::path db = tmp / "kvcat.db";
    build_catalog(ds.lint().records, db);
    Table t = run_read_only(db,
                            "SELECT kv_cache_dtype, kv_bytes_per_token FROM model_kv WHERE model = "
                            "'models/t-deepseek-v3.2' AND kv_cache_dtype IN ('fp8', 'bf16', 'q8_0') "
                            "ORDER BY kv_cache_dtype");
    ASSERT_EQ(t.rows.size(), 3u);
    // bf16: 61 x (576 x 2 + 132) = 78,324; fp8: 61 x (576 + 132) = 43,188;
    // q8_0: 61 x (576 x 17/16 + 132) = 61 x (612 + 132) = 45,384.
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][1]), 78324);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[1][1]), 43188);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[2][1]), 45384);
    EXPECT_EQ(Rational(45384), growing_kv_bytes_per_token(ds.model(), dtype("q8_0")));
}

TEST(ReportData, AnIndexerModelsCurveAndBytesPerTokenIncludeTheIndexer) {
    ImportedIndexerModel ds;
    test::TempDir tmp;
    fs::path db = tmp / "kvcat.db";
    build_catalog(ds.lint().records, db);
    ReportInput in;
    in.rows = run_read_only(db, "SELECT * FROM kv_rows");
    in.records = &ds.lint().records;
    in.link = [](const std::string& file) { return file; };
    nlohmann::json content = report_content(in);
    // With no rows the report draws bf16: 78,324 B/token (61 x (576 x 2 + 132)).
    bool curve_point = false, as_built = false;
    for (const auto& c : content["charts"]) {
        if (!c.contains("datasets")) continue;
        if (c["id"] == "kv-memory") {
            for (const auto& p : c["datasets"]["kv"]) {
                if (p["context_length"] == 131072) {
                    EXPECT_EQ(p["kv_bytes"], 78324LL * 131072);  // 10,265,952,256
                    curve_point = true;
                }
            }
        }
        for (const auto& d : c["datasets"].value("bytes", nlohmann::json::array())) {
            // The chart holds every cache dtype (it follows the planner's); bf16 is the one above.
            if (d.value("basis", "") == "as built" && d.value("kv_cache_dtype", "") == "bf16") {
                EXPECT_EQ(d["bytes_per_token"], 78324);
                as_built = true;
            }
        }
    }
    EXPECT_TRUE(curve_point) << content.dump();
    EXPECT_TRUE(as_built) << content.dump();
}

}  // namespace
}  // namespace kvcat
