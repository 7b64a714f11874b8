#include "output/render.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kvcat {
namespace {

Table sample_table() {
    Table t;
    t.columns = {"id", "context_length", "tps", "note"};
    t.rows.push_back({std::string("a"), std::int64_t{65536}, 28.8, std::string("has, comma and \"quotes\"")});
    t.rows.push_back({std::string("bb"), std::int64_t{1048576}, std::monostate{}, std::string("x|y")});
    return t;
}

TEST(Render, TableRightAlignsNumbersAndShowsNullAsDash) {
    std::string out = render_table(sample_table(), TableFormat::table);
    EXPECT_EQ(out,
              "id  context_length   tps  note\n"
              "--  --------------  ----  -----------------------\n"
              "a            65536  28.8  has, comma and \"quotes\"\n"
              "bb         1048576     -  x|y\n"
              "(2 rows)\n");
    EXPECT_NE(out.find("(2 rows)"), std::string::npos);
    EXPECT_EQ(out.find(" \n"), std::string::npos) << "trailing space in:\n" << out;
}

TEST(Render, CsvQuotesPerRfc4180) {
    std::string out = render_table(sample_table(), TableFormat::csv);
    EXPECT_EQ(out,
              "id,context_length,tps,note\r\n"
              "a,65536,28.8,\"has, comma and \"\"quotes\"\"\"\r\n"
              "bb,1048576,,x|y\r\n");
}

TEST(Render, JsonKeepsNumbersAndNulls) {
    auto parsed = nlohmann::json::parse(render_table(sample_table(), TableFormat::json));
    ASSERT_TRUE(parsed.is_array());
    ASSERT_EQ(parsed.size(), 2u);
    EXPECT_EQ(parsed[0]["context_length"], 65536);
    EXPECT_TRUE(parsed[0]["context_length"].is_number_integer());
    EXPECT_DOUBLE_EQ(parsed[0]["tps"].get<double>(), 28.8);
    EXPECT_TRUE(parsed[1]["tps"].is_null());
    EXPECT_EQ(parsed[0]["note"], "has, comma and \"quotes\"");
}

TEST(Render, MarkdownEscapesPipes) {
    std::string out = render_table(sample_table(), TableFormat::markdown);
    EXPECT_NE(out.find("| id | context_length | tps | note |"), std::string::npos) << out;
    EXPECT_NE(out.find("x\\|y"), std::string::npos) << out;
    EXPECT_NE(out.find("---: |"), std::string::npos) << out;
}

/// Fit to `columns`, values exact (as in a pipe that claims a width).
RenderOptions width(std::size_t columns) {
    RenderOptions o;
    o.max_width = columns;
    return o;
}

/// Display columns of the longest line (UTF-8 code points; the ellipsis is one).
std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0, n = 0;
    for (unsigned char c : text) {
        if (c == '\n') {
            widest = std::max(widest, n);
            n = 0;
        } else if ((c & 0xC0) != 0x80) {
            ++n;
        }
    }
    return std::max(widest, n);
}

Table wide() {
    Table t;
    t.columns = {"id", "kv_bytes_per_token", "engine", "note"};
    t.rows.push_back({std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"), std::int64_t{65536},
                      std::string("llama.cpp"), std::string("a long note that says a great deal about the row")});
    t.rows.push_back({std::string("kv-efficiency/short"), std::int64_t{10240}, std::monostate{}, std::string("brief")});
    return t;
}

TEST(Render, AColumnThatPlacesARowSaysItsValuesWhenLeftOut) {
    Table t;
    t.columns = {"id", "model", "context_length"};
    t.rows = {
        {std::string("vllm-qwen35-397b-a17b-4x-rtxpro6000-nvfp4@64k"), std::string("qwen3.5-397b-a17b"),
         std::int64_t{65536}},
        {std::string("vllm-qwen35-397b-a17b-4x-rtxpro6000-nvfp4@128k"), std::string("qwen3.5-397b-a17b"),
         std::int64_t{131072}},
        {std::string("sglang-qwen36-35b-a3b-2x-rtx5090@64k"), std::string("qwen3.6-35b-a3b"), std::int64_t{65536}}};
    RenderOptions o = width(32);
    o.drop_order = {"model"};
    std::string plain = render_table(t, TableFormat::table, o);
    EXPECT_EQ(plain.find("model:"), std::string::npos) << plain;  // left out, and not said
    o.summarize_when_dropped = {"model"};
    std::string said = render_table(t, TableFormat::table, o);
    EXPECT_NE(said.find("\nmodel: qwen3.5-397b-a17b in 2\n  rows, qwen3.6-35b-a3b in 1\n"), std::string::npos) << said;
    EXPECT_LE(widest_line(said), 32u) << said;
    // A window wide enough for the column: the column, no line.
    std::string wide = render_table(t, TableFormat::table, [] {
        RenderOptions w = width(200);
        w.summarize_when_dropped = {"model"};
        return w;
    }());
    EXPECT_EQ(wide.find("model:"), std::string::npos) << wide;
}

TEST(Render, TableFitsTheWidthByCuttingTheWidestTextColumnsInTheMiddle) {
    const std::string natural = render_table(wide(), TableFormat::table);
    ASSERT_GT(widest_line(natural), 60u);
    std::string fitted = render_table(wide(), TableFormat::table, width(60));
    EXPECT_LE(widest_line(fitted), 60u) << fitted;
    // The two widest text columns are cut to a common width (13: one more would make 61),
    // keeping both ends of each value (six columns each side of the ellipsis); the narrow
    // text column and the number are whole.
    EXPECT_EQ(fitted,
              "id             kv_bytes_per_token  engine     note\n"
              "-------------  ------------------  ---------  -------------\n"
              "kv-eff\u202690-64k               65536  llama.cpp  a long\u2026he row\n"
              "kv-eff\u2026/short               10240  -          brief\n"
              "(2 rows)\n");
    EXPECT_EQ(widest_line(fitted), 59u);
}

TEST(Render, TableIsNotCutWhenItFitsOrNoWidthIsGiven) {
    const std::string natural = render_table(wide(), TableFormat::table);
    EXPECT_EQ(natural.find("\u2026"), std::string::npos);
    EXPECT_EQ(render_table(wide(), TableFormat::table, width(widest_line(natural))), natural);
    EXPECT_EQ(render_table(wide(), TableFormat::table, width(500)), natural);
}

TEST(Render, ColumnsThatCannotFitAreDroppedFromTheRightWithANote) {
    std::string fitted = render_table(wide(), TableFormat::table, width(34));
    EXPECT_LE(widest_line(fitted.substr(0, fitted.find("(2 rows)"))), 34u) << fitted;
    // id (cut to 14) and the number fit in 34; engine and note go, and the note says how to see them.
    EXPECT_NE(fitted.find("kv-effi\u202690-64k  "), std::string::npos) << fitted;
    EXPECT_NE(fitted.find("65536"), std::string::npos) << fitted;
    EXPECT_NE(fitted.find("kv_bytes_per_token"), std::string::npos) << fitted;
    EXPECT_EQ(fitted.find("llama.cpp"), std::string::npos) << fitted;
    EXPECT_NE(fitted.find("(2 rows)\n+2 columns: --columns or --format vertical\n"), std::string::npos) << fitted;
    // Even the number goes when only the first column has room; it is cut to the width.
    std::string narrow = render_table(wide(), TableFormat::table, width(6));
    EXPECT_EQ(narrow.find("65536"), std::string::npos) << narrow;
    EXPECT_NE(narrow.find("+3 columns"), std::string::npos) << narrow;
    // A command without --columns names what it has.
    RenderOptions curve = width(34);
    curve.more_columns_hint = "--format vertical";
    EXPECT_NE(render_table(wide(), TableFormat::table, curve).find("(2 rows)\n+2 columns: --format vertical\n"),
              std::string::npos);
    EXPECT_NE(narrow.find("kv-\u2026"), std::string::npos) << narrow;
}

TEST(Render, WidthOnlyAffectsTheTableFormat) {
    for (auto format :
         {TableFormat::csv, TableFormat::tsv, TableFormat::json, TableFormat::ndjson, TableFormat::markdown}) {
        EXPECT_EQ(render_table(wide(), format, width(20)), render_table(wide(), format));
    }
}

TEST(Render, MultiLineCellShowsItsFirstLineAndStaysAligned) {
    Table t;
    t.columns = {"a", "b"};
    t.rows.push_back({std::string("one\ntwo"), std::string("x")});
    t.rows.push_back({std::string("three"), std::string("y")});
    EXPECT_EQ(render_table(t, TableFormat::table),
              "a      b\n"
              "-----  -\n"
              "one\u2026   x\n"
              "three  y\n"
              "(2 rows)\n");
}

TEST(Render, JsonIsWrittenAsNlohmannWouldDumpTheWholeArray) {
    // The array is written a row at a time (so that rendering can stop between rows); its
    // text is what dump(2) of the whole array gives, empty or not.
    for (const Table& t : {sample_table(), wide(), Table{{"a"}, {}}}) {
        nlohmann::ordered_json array = nlohmann::ordered_json::array();
        for (const auto& row : t.rows) {
            nlohmann::ordered_json object = nlohmann::ordered_json::object();
            for (std::size_t c = 0; c < row.size(); ++c) {
                std::visit(
                    [&](const auto& v) {
                        using V = std::decay_t<decltype(v)>;
                        if constexpr (std::is_same_v<V, std::monostate>) {
                            object[t.columns[c]] = nullptr;
                        } else {
                            object[t.columns[c]] = v;
                        }
                    },
                    row[c]);
            }
            array.push_back(std::move(object));
        }
        EXPECT_EQ(render_table(t, TableFormat::json), array.dump(2) + "\n");
    }
}

TEST(Render, EveryFormatLooksAtEachRowAndStopsWhenTheHookThrows) {
    // A command's time limit stops the rendering between rows, in every format and pass.
    Table t;
    t.columns = {"id", "n"};
    for (int i = 0; i < 1000; ++i) t.rows.push_back({std::string("row-") + std::to_string(i), std::int64_t{i}});
    struct Stop {};
    for (std::size_t f = 0; f < table_format_names().size(); ++f) {
        auto format = static_cast<TableFormat>(f);
        for (std::optional<std::size_t> w : {std::optional<std::size_t>{}, std::optional<std::size_t>{8}}) {
            int seen = 0;
            RenderOptions options;
            options.max_width = w;
            options.each_row = [&seen] {
                if (++seen == 500) throw Stop{};
            };
            EXPECT_THROW(render_table(t, format, options), Stop) << table_format_names()[f];
            EXPECT_EQ(seen, 500) << table_format_names()[f];
            // A hook that never throws changes nothing in what is written.
            options.each_row = [] {};
            RenderOptions plain;
            plain.max_width = w;
            EXPECT_EQ(render_table(t, format, options), render_table(t, format, plain)) << table_format_names()[f];
        }
    }
}

RenderOptions readable(std::optional<std::size_t> width = std::nullopt) {
    RenderOptions o;
    o.max_width = width;
    o.readable = true;
    o.unit_of = [](std::string_view column) -> std::string_view {
        if (column == "kv_bytes_at_context") return "bytes";
        if (column == "kv_bytes_per_token") return "bytes/token";
        return "";
    };
    return o;
}

Table catalog_like() {
    Table t;
    t.columns = {"id", "model", "kv_bytes_per_token", "kv_bytes_at_context", "roofline_fraction", "tps"};
    t.rows.push_back({std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"), std::string("models/qwen3.5-27b"),
                      std::int64_t{65536}, std::int64_t{2281701376}, 0.6106040379396825, 12345.67});
    t.rows.push_back({std::string("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k"),
                      std::string("models/qwen3.5-35b-a3b"), std::int64_t{10240}, std::int64_t{10737418240},
                      std::monostate{}, 28.8});
    return t;
}

TEST(Render, ReadableTableDropsTheSharedFolderRoundsRealsAndShowsBytesInBinaryUnits) {
    EXPECT_EQ(render_table(catalog_like(), TableFormat::table, readable()),
              "id                                 model            kv_bytes_per_token  kv_bytes_at_context  "
              "roofline_fraction    tps\n"
              "---------------------------------  ---------------  ------------------  -------------------  "
              "-----------------  -----\n"
              "llamacpp-qwen35-27b-rtx3090-64k    qwen3.5-27b                  64 KiB            2.125 GiB             "
              "0.6106  12346\n"
              "vllm-qwen35-35b-hybrid-fp8kv-256k  qwen3.5-35b-a3b              10 KiB               10 GiB             "
              "     -   28.8\n"
              "(2 rows)\n");
}

TEST(Render, ReadableOnlyShapesTheTableAndVerticalFormats) {
    for (auto format :
         {TableFormat::csv, TableFormat::tsv, TableFormat::json, TableFormat::ndjson, TableFormat::markdown}) {
        EXPECT_EQ(render_table(catalog_like(), format, readable(20)), render_table(catalog_like(), format));
    }
    // Without it (a pipe) the table keeps every value exact.
    std::string exact = render_table(catalog_like(), TableFormat::table);
    EXPECT_NE(exact.find("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k"), std::string::npos) << exact;
    EXPECT_NE(exact.find("0.6106040379396825"), std::string::npos) << exact;
    EXPECT_NE(exact.find("2281701376"), std::string::npos) << exact;
}

TEST(Render, NoSharedFolderIsDroppedWhenTheValuesDifferInIt) {
    Table t;
    t.columns = {"model"};
    t.rows.push_back({std::string("models/a")});
    t.rows.push_back({std::string("other/b")});
    t.rows.push_back({std::monostate{}});
    std::string out = render_table(t, TableFormat::table, readable());
    EXPECT_NE(out.find("models/a"), std::string::npos) << out;
    EXPECT_NE(out.find("other/b"), std::string::npos) << out;
}

TEST(Render, MiddleEllipsisKeepsWhatTellsRowsApart) {
    Table t;
    t.columns = {"id"};
    t.rows.push_back({std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k")});
    t.rows.push_back({std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-128k")});
    std::string out = render_table(t, TableFormat::table, readable(20));
    EXPECT_LE(widest_line(out), 20u) << out;
    // The shared start goes with the folder; the two ends that differ both show.
    EXPECT_NE(out.find("\nllamacpp-q\u2026x3090-64k\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nllamacpp-q\u20263090-128k\n"), std::string::npos) << out;
}

TEST(Render, VerticalShowsOneFieldALineAndBytesBesideTheirUnit) {
    Table t = catalog_like();
    t.rows.resize(1);
    EXPECT_EQ(render_table(t, TableFormat::vertical, readable()),
              "-[ row 1 ]------------\n"
              "id                  | kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k\n"
              "model               | models/qwen3.5-27b\n"
              "kv_bytes_per_token  | 65536 (64 KiB)\n"
              "kv_bytes_at_context | 2281701376 (2.125 GiB)\n"
              "roofline_fraction   | 0.6106\n"
              "tps                 | 12346\n"
              "(1 row)\n");
    // In a pipe the values are exact, and a value over lines continues under itself.
    Table m;
    m.columns = {"a", "long_name"};
    m.rows.push_back({std::string("one\ntwo"), 0.6106040379396825});
    EXPECT_EQ(render_table(m, TableFormat::vertical),
              "-[ row 1 ]--\n"
              "a         | one\n"
              "          | two\n"
              "long_name | 0.6106040379396825\n"
              "(1 row)\n");
}

TEST(Render, ASingleRowTooWideForTheWindowTurnsVertical) {
    Table t = catalog_like();
    t.rows.resize(1);
    std::string narrow = render_table(t, TableFormat::table, readable(60));
    EXPECT_TRUE(narrow.starts_with("-[ row 1 ]")) << narrow;
    EXPECT_EQ(narrow, render_table(t, TableFormat::vertical, readable(60)));
    // It stays a table when it fits, when there are more rows, and in a pipe.
    EXPECT_TRUE(render_table(t, TableFormat::table, readable(300)).starts_with("id ")) << narrow;
    EXPECT_TRUE(render_table(catalog_like(), TableFormat::table, readable(60)).starts_with("id ")) << narrow;
    EXPECT_TRUE(render_table(t, TableFormat::table).starts_with("id "));
}

TEST(Render, HumanBytes) {
    EXPECT_EQ(human_bytes(512), "512 B");
    EXPECT_EQ(human_bytes(10240), "10 KiB");
    EXPECT_EQ(human_bytes(2281701376), "2.125 GiB");
    EXPECT_EQ(human_bytes(1536.0 * 1024 * 1024), "1.5 GiB");
}

TEST(Render, FormatNames) {
    EXPECT_EQ(parse_table_format("csv"), TableFormat::csv);
    EXPECT_EQ(parse_table_format("vertical"), TableFormat::vertical);
    EXPECT_FALSE(parse_table_format("xml"));
}

}  // namespace
}  // namespace kvcat
