// kvcat query, sql and columns as a user runs them. Every output format is read back by an
// independent parser (Python's csv and json modules, tests/parse_output.py), so a quoting
// or typing mistake in the renderer cannot hide behind a test that shares its assumptions.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

using nlohmann::json;

/// One row of every awkward kind: separators, quotes, line ends, a pipe, a tab, non-ASCII,
/// NULL, an empty string, integers beyond 2^53 and a real.
constexpr const char* kTrickySql =
    "SELECT 'plain' AS text, 'a,b' AS comma, 'say \"hi\", twice' AS quote, "
    "'one' || char(10) || 'two' AS newline, 'cr' || char(13) || char(10) || 'lf' AS crlf, "
    "'x|y' AS pipe, 'tab' || char(9) || 'bed' AS tab, 'caf\xC3\xA9 \xE2\x80\xA6' AS unicode, "
    "NULL AS absent, '' AS empty, 42 AS integer, -7 AS negative, 9007199254740993 AS big, 2.5 AS real "
    "UNION ALL SELECT ' lead', ',', '\"', '', '', '|', '', '', NULL, 'x', 0, 1, 2, 0.1";

class CmdQuery : public ::testing::Test {
  protected:
    /// Runs kvcat with `args`, checks it succeeded, and returns what Python parsed from stdout.
    json parsed(const std::string& format, std::vector<std::string> args) {
        args.push_back("--format");
        args.push_back(format);
        Outcome r = k_.run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        fs::path file = k_.dir() / ("output." + format);
        write_file(file, r.out);
        fs::path result = k_.dir() / ("parsed." + format + ".json");
        fs::path errors = k_.dir() / ("parsed." + format + ".err");
        std::string cmd = shell_quote(KVCAT_PYTHON3) + " " +
                          shell_quote((fs::path(KVCAT_SOURCE_DIR) / "tests/parse_output.py").string()) + " " + format +
                          " " + shell_quote(file.string()) + " >" + shell_quote(result.string()) + " 2>" +
                          shell_quote(errors.string());
        int status = run_shell(cmd);
        EXPECT_EQ(status, 0) << read_file(errors) << "\n--- kvcat printed:\n" << r.out;
        if (status != 0) return json::object({{"columns", json::array()}, {"rows", json::array()}});
        return json::parse(read_file(result));
    }

    json tricky(const std::string& format) { return parsed(format, {"sql", kTrickySql}); }

    KvcatRunner k_;
};

const std::vector<std::string> kTrickyColumns = {"text",    "comma",  "quote", "newline", "crlf",     "pipe", "tab",
                                                 "unicode", "absent", "empty", "integer", "negative", "big",  "real"};

TEST_F(CmdQuery, CsvRoundTripsThroughPythonsCsvModule) {
    json j = tricky("csv");
    EXPECT_EQ(j["columns"], json(kTrickyColumns));
    ASSERT_EQ(j["rows"].size(), 2u);
    // CSV has no NULL: it is an empty field, as is the empty string.
    EXPECT_EQ(j["rows"][0], json::parse(R"(["plain", "a,b", "say \"hi\", twice", "one\ntwo", "cr\r\nlf", "x|y",
        "tab\tbed", "café …", "", "", "42", "-7", "9007199254740993", "2.5"])"));
    EXPECT_EQ(j["rows"][1], json::parse(R"([" lead", ",", "\"", "", "", "|", "", "", "", "x", "0", "1", "2", "0.1"])"));
}

TEST_F(CmdQuery, TsvRoundTripsWithTabsAndLineEndsAsSpaces) {
    json j = tricky("tsv");
    EXPECT_EQ(j["columns"], json(kTrickyColumns));
    ASSERT_EQ(j["rows"].size(), 2u);
    // TSV has no quoting, so a tab or line end inside a value is a space; the rest is exact.
    EXPECT_EQ(j["rows"][0], json::parse(R"(["plain", "a,b", "say \"hi\", twice", "one two", "cr  lf", "x|y",
        "tab bed", "café …", "", "", "42", "-7", "9007199254740993", "2.5"])"));
}

TEST_F(CmdQuery, JsonKeepsTypesThroughPythonsJsonModule) {
    json j = tricky("json");
    EXPECT_EQ(j["columns"], json(kTrickyColumns));
    ASSERT_EQ(j["rows"].size(), 2u);
    const json& row = j["rows"][0];
    EXPECT_EQ(row[3], "one\ntwo");
    EXPECT_EQ(row[4], "cr\r\nlf");
    EXPECT_EQ(row[6], "tab\tbed");
    EXPECT_EQ(row[7], "caf\xC3\xA9 \xE2\x80\xA6");
    EXPECT_TRUE(row[8].is_null()) << row[8];
    EXPECT_EQ(row[9], "");
    EXPECT_TRUE(row[10].is_number_integer());
    EXPECT_EQ(row[10], 42);
    EXPECT_EQ(row[11], -7);
    EXPECT_EQ(row[12].get<std::int64_t>(), 9007199254740993);
    EXPECT_TRUE(row[13].is_number_float());
    EXPECT_EQ(row[13].get<double>(), 2.5);
    EXPECT_EQ(j["rows"][1][13].get<double>(), 0.1);
}

TEST_F(CmdQuery, NdjsonIsOneObjectALineWithTheSameValues) {
    json lines = tricky("ndjson");
    json array = tricky("json");
    EXPECT_EQ(lines, array);
}

TEST_F(CmdQuery, MarkdownHasTheHeaderAndEveryRow) {
    json j = tricky("markdown");
    EXPECT_EQ(j["columns"], json(kTrickyColumns));
    ASSERT_EQ(j["rows"].size(), 2u);
    EXPECT_EQ(j["rows"][0][0], "plain");
    EXPECT_EQ(j["rows"][0][3], "one\ntwo");  // <br>
    EXPECT_EQ(j["rows"][0][5], "x|y");       // \|
    EXPECT_EQ(j["rows"][0][10], "42");
}

TEST_F(CmdQuery, EveryQueryFormatAgreesWithJson) {
    json reference = parsed("json", {"query"});
    ASSERT_GE(reference["rows"].size(), 2u) << reference;
    ASSERT_FALSE(reference["columns"].empty());
    for (const char* format : {"csv", "tsv", "markdown"}) {
        SCOPED_TRACE(format);
        json j = parsed(format, {"query"});
        EXPECT_EQ(j["columns"], reference["columns"]);
        ASSERT_EQ(j["rows"].size(), reference["rows"].size());
        for (std::size_t r = 0; r < j["rows"].size(); ++r) {
            for (std::size_t c = 0; c < j["columns"].size(); ++c) {
                const json& typed = reference["rows"][r][c];
                std::string text = j["rows"][r][c].get<std::string>();
                SCOPED_TRACE(reference["columns"][c].get<std::string>());
                if (typed.is_null()) {
                    EXPECT_EQ(text, "");
                } else if (typed.is_number_integer()) {
                    EXPECT_EQ(text, std::to_string(typed.get<std::int64_t>()));
                } else if (typed.is_number()) {
                    // The shortest text that reads back as the same double.
                    EXPECT_EQ(std::stod(text), typed.get<double>()) << text;
                } else {
                    EXPECT_EQ(text, typed.get<std::string>());
                }
            }
        }
    }
    EXPECT_EQ(parsed("ndjson", {"query"}), reference);
}

TEST_F(CmdQuery, ColumnsListsEveryFilterableColumn) {
    json j = parsed("json", {"columns"});
    EXPECT_EQ(j["columns"], json::parse(R"(["name", "type", "unit", "derived", "description"])"));
    // The catalog's columns, then the predicted ones query --predicted adds, marked so.
    std::vector<ColumnInfo> columns(kv_row_columns().begin(), kv_row_columns().end());
    columns.insert(columns.end(), predicted_columns().begin(), predicted_columns().end());
    ASSERT_EQ(j["rows"].size(), columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const json& row = j["rows"][i];
        EXPECT_EQ(row[0], std::string(columns[i].name));
        EXPECT_EQ(row[1], std::string(columns[i].type));
        if (columns[i].unit.empty()) {
            EXPECT_TRUE(row[2].is_null()) << row;
        } else {
            EXPECT_EQ(row[2], std::string(columns[i].unit));
        }
        bool predicted = i >= kv_row_columns().size();
        EXPECT_EQ(row[3], predicted ? "predicted" : columns[i].derived ? "yes" : "no");
        EXPECT_EQ(row[4], std::string(columns[i].description));
    }
    json csv = parsed("csv", {"columns"});
    EXPECT_EQ(csv["rows"].size(), columns.size());
    Outcome table = k_.run({"columns"});
    EXPECT_EQ(table.status, 0);
    EXPECT_TRUE(table.out.starts_with("name ")) << table.out;
    EXPECT_NE(table.out.find("kv_bytes_per_token"), std::string::npos);
    // No catalog is needed, and none is written.
    EXPECT_FALSE(fs::exists(k_.dir() / "kvcat.db"));
}

/// Display columns of a line: UTF-8 code points.
std::size_t display_width(std::string_view line) {
    std::size_t n = 0;
    for (unsigned char c : line) {
        if ((c & 0xC0) != 0x80) ++n;
    }
    return n;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();  // the pty's line ends
        out.push_back(line);
        start = end + 1;
    }
    return out;
}

TEST_F(CmdQuery, TableFitsTheTerminalAndIsWholeInAPipe) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    const std::vector<std::string> args = {"-q", "query", "--columns", "id,model,kv_bytes_per_token,engine"};
    Outcome tty = k_.run_on_terminal(args, {"COLUMNS=60"});
    ASSERT_EQ(tty.status, 0) << tty.out << tty.err;
    auto lines = lines_of(tty.out);
    ASSERT_EQ(lines.size(), 5u) << tty.out;  // header, rule, two rows, count
    for (const auto& line : lines) EXPECT_LE(display_width(line), 60u) << line;
    EXPECT_NE(tty.out.find("\xE2\x80\xA6"), std::string::npos) << tty.out;  // the ellipsis
    // On a terminal the byte counts read in binary units, and the shared folder of ids goes.
    EXPECT_NE(tty.out.find("64 KiB"), std::string::npos) << tty.out;
    EXPECT_NE(tty.out.find("10 KiB"), std::string::npos) << tty.out;
    EXPECT_EQ(tty.out.find("kv-efficiency/"), std::string::npos) << tty.out;

    // A wide terminal: nothing is cut (the folder every id shares is still left out).
    Outcome wide = k_.run_on_terminal(args, {"COLUMNS=300"});
    EXPECT_EQ(wide.out.find("\xE2\x80\xA6"), std::string::npos) << wide.out;
    EXPECT_NE(wide.out.find("\nllamacpp-qwen35-27b-rtx3090-64k "), std::string::npos) << wide.out;

    // Not a terminal: never cut, whatever COLUMNS says.
    Outcome pipe = k_.run(args, {"COLUMNS=60"});
    ASSERT_EQ(pipe.status, 0) << pipe.err;
    EXPECT_EQ(pipe.out.find("\xE2\x80\xA6"), std::string::npos) << pipe.out;
    EXPECT_NE(pipe.out.find("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"), std::string::npos) << pipe.out;
    EXPECT_GT(display_width(lines_of(pipe.out)[0]), 60u);
}

TEST_F(CmdQuery, TheHeadlineQueryReadsWellAt100Columns) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    // One row: too wide to read across, so it reads down, every value whole.
    Outcome one = k_.run_on_terminal({"query", "attention_variant=hybrid", "context_length>64k"}, {"COLUMNS=100"});
    ASSERT_EQ(one.status, 0) << one.err;
    for (const auto& line : lines_of(one.out)) EXPECT_LE(display_width(line), 100u) << line;
    EXPECT_TRUE(one.out.starts_with("-[ row 1 ]")) << one.out;
    EXPECT_NE(one.out.find("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k\r\n"), std::string::npos) << one.out;
    EXPECT_NE(one.out.find("| 10737418240 (10 GiB)"), std::string::npos) << one.out;

    // Every row: ids without their shared folder and still told apart, columns that do not
    // fit named in a note.
    Outcome all = k_.run_on_terminal({"query"}, {"COLUMNS=100"});
    ASSERT_EQ(all.status, 0) << all.err;
    auto lines = lines_of(all.out);
    for (const auto& line : lines) EXPECT_LE(display_width(line), 100u) << line;
    ASSERT_GE(lines.size(), 5u) << all.out;
    EXPECT_TRUE(lines[2].starts_with("llamacpp-")) << all.out;
    EXPECT_TRUE(lines[3].starts_with("vllm-")) << all.out;
    EXPECT_NE(lines[2].find("64k "), std::string::npos) << all.out;  // the end of the id, kept
    // The bytes and the speed stay; what went is named, in the order it went.
    EXPECT_NE(lines[0].find("kv_bytes_per_token"), std::string::npos) << all.out;
    EXPECT_NE(lines[0].find("measured_tps_at_ctx"), std::string::npos) << all.out;
    EXPECT_NE(all.out.find(" columns left out to fit the window, in this order: "), std::string::npos) << all.out;
    std::size_t order = all.out.find("in this order");
    EXPECT_LT(all.out.find("engine,", order), all.out.find("card,", order)) << all.out;
    EXPECT_LT(all.out.find("card,", order), all.out.find("model,", order)) << all.out;
    EXPECT_NE(all.out.find("(--columns or --format vertical)"), std::string::npos) << all.out;

    // sql has no --columns; its note says what it has.
    Outcome star = k_.run_on_terminal({"sql", "SELECT * FROM kv_rows"}, {"COLUMNS=100"});
    ASSERT_EQ(star.status, 0) << star.err;
    for (const auto& line : lines_of(star.out)) {
        if (!line.starts_with("+")) {
            EXPECT_LE(display_width(line), 100u) << line;
        }
    }
    EXPECT_NE(star.out.find(" columns: --format vertical, or fewer columns in the SELECT"), std::string::npos)
        << star.out;

    // The same query in a pipe is exact, whatever the width.
    Outcome pipe = k_.run({"query"}, {"COLUMNS=100"});
    EXPECT_NE(pipe.out.find("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k"), std::string::npos) << pipe.out;
    EXPECT_NE(pipe.out.find("10737418240"), std::string::npos) << pipe.out;
    EXPECT_EQ(pipe.out.find("columns: --columns"), std::string::npos) << pipe.out;
}

/// The columns a query shows unless told otherwise: concurrency stands before the speeds,
/// so a speed measured with eight requests in flight cannot pass for a one-request speed.
TEST_F(CmdQuery, DefaultColumnsShowTheConcurrency) {
    Outcome r = k_.run({"query", "--format", "csv", "id=llamacpp-qwen35-27b-rtx3090-64k"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(
        r.out.starts_with("id,model,card,gpus,engine,weight_quant,kv_cache_dtype,attention_variant,context_length,"
                          "kv_bytes_per_token,kv_bytes_at_context,concurrency,speculative,measured_tps_at_ctx,"))
        << r.out;
    EXPECT_NE(r.out.find(",4294967296,1,,28.8,"), std::string::npos)
        << r.out;  // bytes at context, 1 request, its speed
}

TEST(CmdQueryShipped, TheHeadlineQueryReadsWellAt100Columns) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    const std::vector<std::string> headline = {"query", "attention_variant=hybrid", "context_length>64k"};
    Outcome tty = k.run_on_terminal(headline, {"COLUMNS=100"});
    ASSERT_EQ(tty.status, 0) << tty.err;
    auto lines = lines_of(tty.out);
    ASSERT_GE(lines.size(), 5u) << tty.out;
    for (const auto& line : lines) EXPECT_LE(display_width(line), 100u) << line;
    // As many rows as the exact answer has, each id still told apart from the others.
    std::vector<std::string> csv =
        lines_of(k.run({"query", "--format", "csv", "--columns", "id", headline[1], headline[2]}).out);
    std::size_t rows = csv.size() - 1;
    ASSERT_GE(rows, 2u);
    EXPECT_NE(tty.out.find(fmt::format("({} rows)", rows)), std::string::npos) << tty.out;
    std::vector<std::string> ids;
    for (std::size_t i = 2; i < 2 + rows; ++i) ids.push_back(lines[i].substr(0, lines[i].find("  ")));
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << tty.out;
    // The filter fixes attention_variant: that column says one thing, in a line, and the room
    // goes to the context and the bytes per token (the multi-card rows name their card, so the
    // accelerator column stays).
    const std::string& header = lines[0];
    EXPECT_NE(header.find("context_length"), std::string::npos) << tty.out;
    EXPECT_NE(header.find("kv_bytes_per_token"), std::string::npos) << tty.out;
    EXPECT_EQ(header.find("attention_variant"), std::string::npos) << tty.out;
    EXPECT_NE(tty.out.find("\nattention_variant: hybrid in every row\r\n"), std::string::npos) << tty.out;
    // A wide window keeps every column, alike or not.
    Outcome wide = k.run_on_terminal(headline, {"COLUMNS=400"});
    EXPECT_NE(lines_of(wide.out)[0].find("attention_variant"), std::string::npos) << wide.out;
    EXPECT_EQ(wide.out.find("in every row"), std::string::npos) << wide.out;
}

TEST_F(CmdQuery, VerticalFormatShowsEveryColumnOfEachRow) {
    Outcome r = k_.run({"-q", "query", "--format", "vertical", "--columns", "id,kv_bytes_per_token"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "-[ row 1 ]-----------\n"
              "id                 | kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k\n"
              "kv_bytes_per_token | 65536\n"
              "-[ row 2 ]-----------\n"
              "id                 | kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k\n"
              "kv_bytes_per_token | 10240\n"
              "(2 rows)\n");
}

/// The ids a query prints as CSV, one a line after the header.
std::vector<std::string> ids_of(const Outcome& r) {
    std::vector<std::string> ids;
    auto lines = lines_of(r.out);
    for (std::size_t i = 1; i < lines.size(); ++i) ids.push_back(lines[i].substr(0, lines[i].find(',')));
    return ids;
}

TEST_F(CmdQuery, FiltersTakeListsNullsUnitsAndShortIds) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    const std::string llama = "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k";
    const std::string vllm = "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k";
    auto query = [&](std::vector<std::string> filters) {
        std::vector<std::string> args = {"query", "--format", "csv", "--columns", "id"};
        args.insert(args.end(), filters.begin(), filters.end());
        return k_.run(args);
    };
    using Ids = std::vector<std::string>;
    EXPECT_EQ(ids_of(query({"kv_cache_dtype=fp8,bf16"})), (Ids{llama, vllm}));
    EXPECT_EQ(ids_of(query({"kv_cache_dtype=FP8"})), (Ids{vllm}));
    EXPECT_EQ(ids_of(query({"kv_cache_dtype!=fp8,bf16"})), (Ids{}));
    EXPECT_EQ(ids_of(query({"measured_tps_at_ctx!=null"})), (Ids{llama}));
    EXPECT_EQ(ids_of(query({"measured_tps_at_ctx=null"})), (Ids{vllm}));
    EXPECT_EQ(ids_of(query({"accelerator=nvidia-rtx-3090"})), (Ids{llama}));
    EXPECT_EQ(ids_of(query({"model=qwen3.5-35b-a3b"})), (Ids{vllm}));
    EXPECT_EQ(ids_of(query({"id=llamacpp-qwen35-27b-rtx3090-64k"})), (Ids{llama}));
    // The vLLM row has no roofline; a comparison leaves it out and says so.
    Outcome under = query({"roofline_fraction<70%"});
    EXPECT_EQ(ids_of(under), (Ids{llama}));
    EXPECT_NE(under.err.find("1 row with no roofline_fraction left out by 'roofline_fraction<70%' "
                             "(see them with roofline_fraction=null)"),
              std::string::npos)
        << under.err;
    Outcome none = query({"roofline_fraction<50%"});
    EXPECT_EQ(ids_of(none), (Ids{}));
    EXPECT_NE(none.err.find("1 row with no roofline_fraction"), std::string::npos) << none.err;
    // != keeps rows without a value, so nothing is said.
    Outcome differs = query({"roofline_fraction!=0.5"});
    EXPECT_EQ(ids_of(differs), (Ids{llama, vllm}));
    EXPECT_EQ(differs.err.find("left out"), std::string::npos) << differs.err;
    // A mistyped id matches nothing and gets the nearest one in the catalog.
    Outcome typo = query({"accelerator=nvidia-rtx-309"});
    EXPECT_EQ(typo.status, 0);
    EXPECT_EQ(ids_of(typo), (Ids{}));
    EXPECT_NE(typo.err.find("no record has the id 'accelerators/nvidia-rtx-309' (did you mean "
                            "accelerator=nvidia-rtx-3090?)"),
              std::string::npos)
        << typo.err;
    // SQL's way of writing a null test is the same test.
    EXPECT_EQ(ids_of(query({"measured_tps_at_ctx is null"})), (Ids{vllm}));
    EXPECT_EQ(ids_of(query({"measured_tps_at_ctx IS NOT NULL"})), (Ids{llama}));
    // An equality names the rows it wants: the ones with no accelerator are not news.
    Outcome equal = query({"accelerator=nvidia-rtx-3090"});
    EXPECT_EQ(equal.err.find("left out"), std::string::npos) << equal.err;
    EXPECT_EQ(query({"accelerator~*3090"}).err.find("left out"), std::string::npos);
    // A number in the wrong unit is told the column's.
    Outcome unit = query({"memory_gb=24GiBs"});
    EXPECT_EQ(unit.status, 2);
    EXPECT_NE(unit.err.find("memory_gb is a number in GB; write a value such as 24 or 24GB"), std::string::npos)
        << unit.err;
    EXPECT_EQ(ids_of(query({"memory_gb>=24GB"})), (Ids{llama}));
}

TEST(QueryQuality, QualityResultsHaveARouteWithKAndVDtypes) {
    // On the shipped records: a K-only quantisation (K q4_0, V f16) is never listed as q4_0 alone.
    KvcatRunner k(false);
    fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records", fs::copy_options::recursive);
    const std::string k_only = "ik-llamacpp-qwen3-30b-a3b-iq2_xxs-kq4_0-vf16-hadamard-quality";
    Outcome r = k.run({"query", "--quality", "record_id=" + k_only, "--columns",
                       "record_id,kv_cache_dtype,v_cache_dtype,baseline_kv_cache_dtype,unit", "--format", "csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto lines = lines_of(r.out);
    ASSERT_GE(lines.size(), 3u) << r.out;  // the header and the record's results
    EXPECT_EQ(lines[0], "record_id,kv_cache_dtype,v_cache_dtype,baseline_kv_cache_dtype,unit");
    for (std::size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i], "kv-efficiency/" + k_only + ",q4_0,f16,f16,ppl");
    }
    // V's dtype is written when it equals K's, so a filter on it finds the plain records too.
    Outcome both = k.run({"query", "--quality", "kv_cache_dtype=q8_0", "v_cache_dtype=q8_0", "--format", "csv",
                          "--columns", "record_id"});
    ASSERT_EQ(both.status, 0) << both.err;
    EXPECT_GE(lines_of(both.out).size(), 4u) << both.out;
    EXPECT_EQ(both.out.find("kq8_0-vf16"), std::string::npos) << both.out;
    // Its columns are listed, and a column of the rows' table is not one of them.
    Outcome columns = k.run({"columns", "--quality", "--format", "csv"});
    EXPECT_NE(columns.out.find("\nv_cache_dtype,text,"), std::string::npos) << columns.out;
    EXPECT_EQ(columns.out.find("kv_bytes_per_token"), std::string::npos) << columns.out;
    Outcome wrong = k.run({"query", "--quality", "kv_bytes_per_token>1"});
    EXPECT_EQ(wrong.status, 2);
    EXPECT_NE(wrong.err.find("unknown column 'kv_bytes_per_token'"), std::string::npos) << wrong.err;
    EXPECT_NE(wrong.err.find("of --quality"), std::string::npos) << wrong.err;
    EXPECT_EQ(k.run({"query", "--quality", "--allocations"}).status, 2);
}

TEST_F(CmdQuery, AnEmptyAnswerSaysWhy) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    auto why = [&](std::vector<std::string> filters) {
        std::vector<std::string> args = {"query", "--format", "csv", "--columns", "id"};
        args.insert(args.end(), filters.begin(), filters.end());
        Outcome r = k_.run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(ids_of(r), std::vector<std::string>{}) << r.out;
        return r.err;
    };
    // A value spelt another way than the catalog's: the catalog's spelling, and all it holds.
    EXPECT_EQ(why({"engine=llamacpp"}),
              "kvcat: info: no kv-efficiency row has engine=llamacpp (did you mean engine=llama.cpp?); engine "
              "holds llama.cpp, vLLM\n");
    EXPECT_EQ(why({"kv_cache_dtype=q8"}),
              "kvcat: info: no kv-efficiency row has kv_cache_dtype=q8; kv_cache_dtype holds bf16, fp8_e4m3\n");
    // A model that is in the catalog but that no row ran: said, with what answers instead.
    EXPECT_EQ(why({"model=llama-3.1-8b"}),
              "kvcat: info: models/llama-3.1-8b is in the catalog, but no kv-efficiency row names it as its model; "
              "`kvcat fit --model llama-3.1-8b` and `kvcat curve --model llama-3.1-8b` work from its figures\n");
    EXPECT_EQ(why({"accelerator=nvidia-h200"}),
              "kvcat: info: accelerators/nvidia-h200 is in the catalog, but no kv-efficiency row names it as its "
              "accelerator; `kvcat fit --accelerator nvidia-h200` works from its figures\n");
    // Filters that each keep rows, but not together.
    EXPECT_EQ(why({"engine=vllm", "accelerator=nvidia-rtx-3090"}),
              "kvcat: info: each filter keeps rows on its own, but no row passes them all (rows kept alone: "
              "'engine=vllm' 1, 'accelerator=nvidia-rtx-3090' 1)\n");
    // A number no row holds.
    EXPECT_EQ(why({"context_length=12345"}),
              "kvcat: info: 'context_length=12345' matches no row on its own; `kvcat query --distinct "
              "context_length` lists the values in use\n");
    // An answer with rows says none of this.
    EXPECT_EQ(k_.run({"query", "engine=llama.cpp"}).err, "");
}

TEST_F(CmdQuery, SqlTableShowsNullAsDash) {
    Outcome r = k_.run({"sql", "SELECT NULL AS absent, 1 AS one"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "absent  one\n------  ---\n-         1\n(1 row)\n");
}
}  // namespace
}  // namespace kvcat::test

namespace kvcat::test {
namespace {

// At 80 columns a sort by decode speed once left the speed column out: the rows came in the
// order asked for, with nothing on screen to say why. A sorted-by column is never left out.
TEST(CmdQueryShipped, AColumnTheQuerySortsByIsKeptAtEightyColumns) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    for (const char* sort : {"-measured_tps_at_ctx", "context_length,-measured_prefill_tps_at_ctx"}) {
        Outcome tty = k.run_on_terminal({"query", "engine=vllm", "--sort", sort, "--limit", "5"}, {"COLUMNS=80"});
        ASSERT_EQ(tty.status, 0) << tty.err;
        std::string header = lines_of(tty.out).at(0);
        std::string key = std::string(sort).substr(
            std::string(sort).rfind(',') == std::string::npos ? 1 : std::string(sort).rfind(',') + 2);
        // On screen: a column of the table, or the line saying its one value in every row.
        EXPECT_TRUE(header.find(key) != std::string::npos || contains(tty.out, "\n" + key + ": ")) << sort << "\n"
                                                                                                   << tty.out;
        auto left_out = tty.out.find("left out to fit the window");
        EXPECT_TRUE(left_out == std::string::npos || tty.out.find(key, left_out) == std::string::npos) << sort << "\n"
                                                                                                       << tty.out;
        for (const auto& line : lines_of(tty.out)) EXPECT_LE(display_width(line), 80u) << line;
    }
}

// Columns named with --columns are what was asked: on a terminal of 80 the ids are cut
// further (two may look alike) rather than a named column left out.
TEST(CmdQueryShipped, ColumnsNamedWithColumnsAreKeptAtEightyColumns) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    const std::vector<std::string> asked = {"id", "context_length", "measured_tps_at_ctx", "measured_ttft_ms_at_ctx"};
    Outcome tty = k.run_on_terminal({"query", "engine=vllm,sglang", "context_length>=64k", "--columns",
                                     "id,context_length,measured_tps_at_ctx,measured_ttft_ms_at_ctx"},
                                    {"COLUMNS=80"});
    ASSERT_EQ(tty.status, 0) << tty.err;
    std::string header = lines_of(tty.out).at(0);
    for (const auto& column : asked) EXPECT_NE(header.find(column), std::string::npos) << column << "\n" << tty.out;
    EXPECT_EQ(tty.out.find("+1 column"), std::string::npos) << tty.out;
    for (const auto& line : lines_of(tty.out)) EXPECT_LE(display_width(line), 80u) << line;
}

// A record that writes `speculative_decoding: null` says the source ran without it; its rows
// once reached the catalog as unsaid and `speculative_decoding=off` found none of them. The
// records that write it are found here by reading the files, not listed by hand.
TEST(CmdQueryShipped, SpeculativeDecodingOffFindsEveryRecordThatWritesNull) {
    std::set<std::string> written_null;
    for (const auto& e : fs::directory_iterator(fs::path(KVCAT_SOURCE_DIR) / "records" / "kv-efficiency")) {
        std::string text = read_file(e.path());
        if (text.find("\nspeculative_decoding: null\n") != std::string::npos) {
            written_null.insert("kv-efficiency/" + e.path().stem().string());
        }
    }
    ASSERT_GE(written_null.size(), 7u);
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    Outcome off =
        k.run({"query", "--format", "csv", "--columns", "id,speculative_decoding", "speculative_decoding=off"});
    ASSERT_EQ(off.status, 0) << off.err;
    std::set<std::string> found;
    std::vector<std::string> lines = lines_of(off.out);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::string id = lines[i].substr(0, lines[i].find(','));
        EXPECT_EQ(lines[i].substr(lines[i].find(',') + 1), "off") << lines[i];
        // A curve's rows are the record's id with @context.
        found.insert(id.substr(0, id.find('@')));
    }
    EXPECT_EQ(found, written_null);
}

// Issue 41: query shows the decode speed the rest of the catalog predicts beside the measured
// one, never in it. Over every shipped row: the measured columns are the same with --predicted
// as without; a measured row's prediction is its case in `kvcat predict --holdout point` (its
// own point left out); every prediction sits inside its interval with a basis and its records;
// and a predicted column can be shown but not filtered on.
TEST(CmdQueryShipped, PredictedColumnsStandBesideTheMeasuredOnesAndAreTheHeldOutCases) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    Outcome plain = k.run({"query", "--format", "json", "--columns", "id,measured_tps_at_ctx,context_length"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    Outcome with = k.run({"query", "--format", "json", "--predicted", "--columns",
                          "id,measured_tps_at_ctx,context_length,concurrency,predicted_tps_at_ctx,predicted_tps_low,"
                          "predicted_tps_high,predicted_basis,predicted_from"});
    ASSERT_EQ(with.status, 0) << with.err;
    json rows = json::parse(with.out);
    json before = json::parse(plain.out);
    ASSERT_EQ(rows.size(), before.size());
    // The held-out table's decode cases by record, context and concurrency (its figures to 4 digits).
    Outcome table = k.run({"predict", "--holdout", "point", "--format", "csv"});
    ASSERT_EQ(table.status, 0) << table.err;
    std::map<std::string, std::vector<double>> held;
    for (const auto& line : lines_of(table.out)) {
        std::vector<std::string> f;
        for (std::size_t at = 0, n = 0; n < 9 && at <= line.size(); ++n) {
            std::size_t comma = std::min(line.find(',', at), line.size());
            f.push_back(line.substr(at, comma - at));
            at = comma + 1;
        }
        if (f.size() == 9 && f[1] == "decode") held[f[2] + "|" + f[3] + "|" + f[4]].push_back(std::stod(f[7]));
    }
    ASSERT_GT(held.size(), 500u);
    const std::set<std::string> bases = {"curve-inside", "curve-outside",     "other-build",
                                         "same-card",    "engine-efficiency", "other-card"};
    std::size_t measured = 0, matched = 0, alike = 0, unmeasured = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const json& r = rows[i];
        EXPECT_EQ(r["id"], before[i]["id"]);
        EXPECT_EQ(r["measured_tps_at_ctx"], before[i]["measured_tps_at_ctx"]) << r["id"];
        // The predictor works in tokens of context: a row at context 0 has no prediction.
        bool measured_row = !r["measured_tps_at_ctx"].is_null() && r["context_length"].get<std::int64_t>() > 0;
        measured += measured_row ? 1 : 0;
        if (r["predicted_tps_at_ctx"].is_null()) {
            EXPECT_TRUE(r["predicted_basis"].is_null()) << r["id"];
            continue;
        }
        double v = r["predicted_tps_at_ctx"], low = r["predicted_tps_low"], high = r["predicted_tps_high"];
        EXPECT_TRUE(low <= v && v <= high) << r;
        std::string basis = r["predicted_basis"];
        EXPECT_TRUE(bases.count(basis)) << r;
        // Every basis but an engine's median share names the records it stood on.
        EXPECT_EQ(r["predicted_from"].is_null(), basis == "engine-efficiency") << r;
        if (!measured_row) {
            ++unmeasured;
            continue;
        }
        std::string id = r["id"];
        auto key = fmt::format("{}|{}|{}", id.substr(0, id.find('@')), r["context_length"].get<std::int64_t>(),
                               r["concurrency"].get<std::int64_t>());
        auto hit = held.find(key);
        ASSERT_NE(hit, held.end()) << key;
        if (hit->second.size() != 1) {
            ++alike;  // two points of one setup and context: not told apart by this key
            continue;
        }
        ++matched;
        EXPECT_NEAR(v, hit->second[0], 5e-4 * hit->second[0]) << key;
    }
    // Every row that measured its decode speed is predicted, and is its held-out case.
    EXPECT_GT(measured, 800u);
    EXPECT_EQ(matched + alike, measured);
    EXPECT_GT(unmeasured, 20u);  // rows with no measured decode are predicted too

    // --predicted alone shows its view; a predicted column named in --columns asks for it.
    Outcome view = k.run({"query", "--predicted", "--format", "csv", "--limit", "1"});
    ASSERT_EQ(view.status, 0) << view.err;
    EXPECT_TRUE(contains(view.out, "measured_tps_at_ctx,predicted_tps_at_ctx,predicted_tps_low")) << view.out;
    Outcome named = k.run({"query", "--format", "csv", "--limit", "1", "--columns", "predicted_basis,context_length"});
    ASSERT_EQ(named.status, 0) << named.err;
    EXPECT_TRUE(named.out.starts_with("predicted_basis,context_length\r\n")) << named.out;
    // Shown, never filtered or sorted on, and never with the other tables.
    for (const std::vector<std::string>& refused :
         {std::vector<std::string>{"query", "predicted_tps_at_ctx>10"},
          std::vector<std::string>{"query", "--predicted", "--sort", "predicted_tps_low"}}) {
        Outcome o = k.run(refused);
        EXPECT_EQ(o.status, 2) << o.out;
        EXPECT_TRUE(contains(o.err, "can be shown, not filtered or sorted on")) << o.err;
    }
    Outcome other = k.run({"query", "--allocations", "--columns", "id,predicted_basis"});
    EXPECT_EQ(other.status, 2) << other.out;
    EXPECT_TRUE(contains(other.err, "the predicted columns are the kv-efficiency rows'")) << other.err;
}

}  // namespace
}  // namespace kvcat::test
