#include "catalog/filter.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "kvcat_runner.h"

namespace kvcat {
namespace {

/// How rows sort by id: by record, then a point's context as a number, then concurrency.
constexpr const char* kIdOrder = "record_id, context_length, concurrency, id";

namespace fs = std::filesystem;

TEST(Filter, ParsesEveryOperator) {
    EXPECT_EQ(parse_filter("context_length>64k").op, ">");
    EXPECT_EQ(parse_filter("context_length>=64k").op, ">=");
    EXPECT_EQ(parse_filter("context_length<64k").op, "<");
    EXPECT_EQ(parse_filter("context_length<=64k").op, "<=");
    EXPECT_EQ(parse_filter("attention_variant!=hybrid").op, "!=");
    EXPECT_EQ(parse_filter("attention_variant=hybrid").op, "=");
    Filter glob = parse_filter("model~models/qwen*");
    EXPECT_EQ(glob.op, "~");
    EXPECT_EQ(std::get<std::string>(glob.value), "models/qwen*");
    Filter spaced = parse_filter("context_length > 64k");
    EXPECT_EQ(spaced.column, "context_length");
    EXPECT_EQ(std::get<std::int64_t>(spaced.value), 65536);
}

TEST(Filter, EachOperatorBecomesItsOwnSql) {
    // The SQL a filter produces, operator by operator: '>' must never widen to '>='.
    struct Case {
        const char* filter;
        const char* where;
    };
    for (const Case& c :
         {Case{"context_length>64k", "context_length > ?"}, Case{"context_length>=64k", "context_length >= ?"},
          Case{"context_length<64k", "context_length < ?"}, Case{"context_length<=64k", "context_length <= ?"},
          Case{"context_length=64k", "context_length = ?"}, Case{"context_length!=64k", "context_length IS NOT ?"},
          Case{"model~models/qwen*", "lower(model) GLOB lower(?)"}, Case{"engine=vllm", "engine COLLATE NOCASE = ?"},
          Case{"engine!=vllm", "engine COLLATE NOCASE IS NOT ?"}}) {
        QuerySpec spec;
        spec.columns = {"id"};
        spec.filters.push_back(parse_filter(c.filter));
        BoundSql bound = build_query_sql(spec);
        EXPECT_EQ(bound.sql, std::string("SELECT id FROM kv_rows WHERE ") + c.where + " ORDER BY " + kIdOrder)
            << c.filter;
        ASSERT_EQ(bound.parameters.size(), 1u) << c.filter;
    }
}

// Against a real catalog: a comma list of lower-case names finds the rows of each, which a
// collation written after the value did not (SQLite answered such an OR from a binary index).
TEST(Filter, ACommaListIgnoresCaseInTheCatalog) {
    test::KvcatRunner runner;
    auto count = [&](const std::string& filter) {
        test::Outcome q = runner.run({"-q", "query", "--format", "csv", "--columns", "id", filter});
        EXPECT_EQ(q.status, 0) << q.err;
        return std::count(q.out.begin(), q.out.end(), '\n') - 1;
    };
    long vllm = count("engine=vllm");
    long llama = count("engine=LLAMA.CPP");
    EXPECT_GT(vllm, 0);
    EXPECT_GT(llama, 0);
    EXPECT_EQ(count("engine=vllm,llama.cpp"), vllm + llama);
    EXPECT_EQ(count("engine=VLLM,LLAMA.CPP"), vllm + llama);
}

TEST(Filter, FiltersAreAndedWithTheirValuesBoundInOrder) {
    QuerySpec spec;
    spec.columns = {"id", "context_length"};
    spec.filters = {parse_filter("attention_variant=hybrid"), parse_filter("context_length>64k")};
    spec.sort_column = "context_length";
    spec.descending = true;
    BoundSql bound = build_query_sql(spec);
    EXPECT_EQ(
        bound.sql,
        "SELECT id, context_length FROM kv_rows WHERE attention_variant COLLATE NOCASE = ? AND context_length > ? "
        "ORDER BY context_length DESC, record_id, context_length, concurrency, id");
    ASSERT_EQ(bound.parameters.size(), 2u);
    EXPECT_EQ(std::get<std::string>(bound.parameters[0]), "hybrid");
    EXPECT_EQ(std::get<std::int64_t>(bound.parameters[1]), 65536);
}

TEST(Filter, BadOperatorIsRefused) {
    EXPECT_THROW(parse_filter("context_length=>64k"), FilterError);
    EXPECT_THROW(parse_filter("context_length<>64k"), FilterError);
    EXPECT_THROW(parse_filter("context_length"), FilterError);
    EXPECT_THROW(parse_filter("attention_variant>hybrid"), FilterError);  // text is not ordered
    EXPECT_THROW(parse_filter("context_length>lots"), FilterError);
}

TEST(Filter, UnknownColumnListsTheValidOnes) {
    try {
        parse_filter("contxt_length>64k");
        FAIL() << "expected FilterError";
    } catch (const FilterError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("unknown column 'contxt_length'"), std::string::npos) << m;
        EXPECT_NE(m.find("did you mean 'context_length'"), std::string::npos) << m;
        EXPECT_NE(m.find("attention_variant"), std::string::npos) << m;
        EXPECT_NE(m.find("kv_bytes_per_token"), std::string::npos) << m;
    }
}

TEST(Filter, ValuesAreBoundNeverSpliced) {
    QuerySpec spec;
    spec.filters.push_back(parse_filter("id=x' OR 1=1 --"));
    BoundSql bound = build_query_sql(spec);
    EXPECT_EQ(bound.sql.find("OR 1=1"), std::string::npos) << bound.sql;
    // id=NAME is the row NAME or the points of the record NAME: the value is bound for each.
    ASSERT_EQ(bound.parameters.size(), 2u);
    EXPECT_EQ(bound.parameters[0], bound.parameters[1]);
    EXPECT_NE(bound.sql.find("(id COLLATE NOCASE = ? OR record_id COLLATE NOCASE = ?)"), std::string::npos)
        << bound.sql;
    // An id without a folder gets kv-efficiency/ in front; the rest is the user's text, bound.
    EXPECT_EQ(std::get<std::string>(bound.parameters[0]), "kv-efficiency/x' OR 1=1 --");
}

TEST(Filter, InjectionAttemptMatchesNothing) {
    fs::path dir = fs::temp_directory_path() / ("kvcat-filter-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::path db = dir / "kvcat.db";
    build_catalog(lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"}).records, db);
    QuerySpec spec;
    spec.filters.push_back(parse_filter("id=x' OR 1=1 --"));
    BoundSql bound = build_query_sql(spec);
    EXPECT_TRUE(run_read_only(db, bound.sql, bound.parameters).rows.empty());
    // The same machinery does match a real id.
    QuerySpec real;
    real.filters.push_back(parse_filter("id=kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"));
    BoundSql ok = build_query_sql(real);
    EXPECT_EQ(run_read_only(db, ok.sql, ok.parameters).rows.size(), 1u);
    fs::remove_all(dir);
}

TEST(Filter, ColumnsAndSortAreValidated) {
    QuerySpec spec;
    spec.columns = {"id", "kv_bytes_per_token"};
    spec.sort_column = "kv_bytes_per_token";
    spec.descending = true;
    BoundSql bound = build_query_sql(spec);
    EXPECT_EQ(bound.sql,
              "SELECT id, kv_bytes_per_token FROM kv_rows ORDER BY kv_bytes_per_token DESC, " + std::string(kIdOrder));
    // Several keys, each with its own direction; --desc turns the ones without a sign.
    spec.sort_column = "context_length,-measured_tps_at_ctx";
    spec.descending = false;
    EXPECT_EQ(build_query_sql(spec).sql,
              "SELECT id, kv_bytes_per_token FROM kv_rows ORDER BY context_length, "
              "measured_tps_at_ctx DESC, " +
                  std::string(kIdOrder));
    spec.sort_column = "-id";
    EXPECT_EQ(build_query_sql(spec).sql,
              "SELECT id, kv_bytes_per_token FROM kv_rows ORDER BY record_id DESC, context_length DESC, concurrency "
              "DESC, id DESC");
    spec.limit = 5;
    EXPECT_TRUE(build_query_sql(spec).sql.ends_with(" LIMIT ?"));
    EXPECT_EQ(std::get<std::int64_t>(build_query_sql(spec).parameters.back()), 5);
    spec.limit.reset();
    spec.sort_column = "id; DROP TABLE models";
    EXPECT_THROW(build_query_sql(spec), FilterError);
    spec.sort_column.clear();
    spec.columns = {"nope"};
    EXPECT_THROW(build_query_sql(spec), FilterError);
}

std::string where_of(std::initializer_list<const char*> filters) {
    QuerySpec spec;
    spec.columns = {"id"};
    for (const char* f : filters) spec.filters.push_back(parse_filter(f));
    std::string sql = build_query_sql(spec).sql;
    std::size_t at = sql.find(" WHERE ");
    std::size_t end = sql.find(" ORDER BY ");
    return at == std::string::npos ? "" : sql.substr(at + 7, end - at - 7);
}

TEST(Filter, ACommaListIsAnyOfItsValues) {
    Filter f = parse_filter("kv_cache_dtype=q8_0,bf16");
    ASSERT_EQ(f.values.size(), 2u);
    EXPECT_EQ(std::get<std::string>(f.values[1]), "bf16");
    EXPECT_EQ(where_of({"kv_cache_dtype=q8_0,bf16"}),
              "(kv_cache_dtype COLLATE NOCASE = ? OR kv_cache_dtype COLLATE NOCASE = ?)");
    // A dtype family is each of its members, and remembers that it was one.
    Filter fp8 = parse_filter("kv_cache_dtype=fp8");
    ASSERT_EQ(fp8.values.size(), 3u);
    EXPECT_EQ(std::get<std::string>(fp8.values[1]), "fp8_e4m3");
    EXPECT_EQ(fp8.families, std::vector<std::string>{"fp8"});
    EXPECT_TRUE(parse_filter("kv_cache_dtype=fp8_e4m3").families.empty());
    // != a list is none of them; a glob list is any glob; numbers list too.
    EXPECT_EQ(where_of({"engine!=vllm,sglang"}), "(engine COLLATE NOCASE IS NOT ? AND engine COLLATE NOCASE IS NOT ?)");
    EXPECT_EQ(where_of({"model~*qwen*,*llama*"}), "(lower(model) GLOB lower(?) OR lower(model) GLOB lower(?))");
    EXPECT_EQ(where_of({"context_length=64k,128k"}), "(context_length = ? OR context_length = ?)");
    EXPECT_EQ(std::get<std::int64_t>(parse_filter("context_length=64k,128k").values[1]), 131072);
    EXPECT_THROW(parse_filter("kv_cache_dtype=fp8,,bf16"), FilterError);
    EXPECT_THROW(parse_filter("context_length>64k,128k"), FilterError);
}

TEST(Filter, NullTestsForNoValue) {
    EXPECT_EQ(where_of({"measured_tps_at_ctx!=null"}), "measured_tps_at_ctx IS NOT NULL");
    EXPECT_EQ(where_of({"roofline_fraction=null"}), "roofline_fraction IS NULL");
    EXPECT_EQ(where_of({"accelerator=NULL"}), "accelerator IS NULL");
    QuerySpec spec;
    spec.filters.push_back(parse_filter("measured_tps_at_ctx!=null"));
    EXPECT_TRUE(build_query_sql(spec).parameters.empty());
    EXPECT_THROW(parse_filter("measured_tps_at_ctx>null"), FilterError);
}

TEST(Filter, NumbersMayCarryTheColumnsUnit) {
    auto number = [](const char* text) { return parse_filter(text).value; };
    EXPECT_EQ(std::get<std::int64_t>(number("memory_gb>=24GB")), 24);
    EXPECT_EQ(std::get<std::int64_t>(number("memory_gb>=24")), 24);
    EXPECT_DOUBLE_EQ(std::get<double>(number("roofline_fraction<50%")), 0.5);
    EXPECT_EQ(std::get<std::int64_t>(number("kv_bytes_at_context<2GiB")), 2147483648);
    EXPECT_EQ(std::get<std::int64_t>(number("kv_bytes_at_context<1.5GB")), 1500000000);
    EXPECT_EQ(std::get<std::int64_t>(number("kv_bytes_per_token<=10KiB")), 10240);
    EXPECT_EQ(std::get<std::int64_t>(number("measured_ttft_ms_at_ctx<250ms")), 250);
    EXPECT_THROW(parse_filter("context_length<50%"), FilterError);  // a percentage is for ratios
}

TEST(Filter, ANumberErrorSpeaksTheColumnsUnit) {
    auto message = [](const char* text) {
        try {
            parse_filter(text);
        } catch (const FilterError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string gb = message("memory_gb=24GiBs");
    EXPECT_NE(gb.find("memory_gb is a number in GB; write a value such as 24 or 24GB"), std::string::npos) << gb;
    EXPECT_EQ(gb.find("65536"), std::string::npos) << gb;
    std::string ratio = message("roofline_fraction<half");
    EXPECT_NE(ratio.find("0.5 or 50%"), std::string::npos) << ratio;
    std::string tokens = message("context_length>lots");
    EXPECT_NE(tokens.find("in tokens; write a value such as 65536, 64k or 1M"), std::string::npos) << tokens;
}

TEST(Filter, ARecordIdMayLeaveOutItsFolder) {
    EXPECT_EQ(std::get<std::string>(parse_filter("accelerator=nvidia-rtx-4090").value), "accelerators/nvidia-rtx-4090");
    EXPECT_EQ(std::get<std::string>(parse_filter("model=qwen3.5-27b").value), "models/qwen3.5-27b");
    EXPECT_EQ(std::get<std::string>(parse_filter("id!=short").value), "kv-efficiency/short");
    EXPECT_EQ(std::get<std::string>(parse_filter("accelerator=accelerators/x").value), "accelerators/x");
    EXPECT_EQ(std::get<std::string>(parse_filter("model~qwen*").value), "qwen*");  // a glob is as written
    EXPECT_EQ(std::get<std::string>(parse_filter("engine=vllm").value), "vllm");
}

TEST(Filter, NullCountsAskForTheRowsAComparisonLeavesOut) {
    QuerySpec spec;
    spec.filters = {parse_filter("roofline_fraction<50%"), parse_filter("engine=vllm"), parse_filter("accelerator!=x"),
                    parse_filter("measured_tps_at_ctx!=null")};
    auto counts = build_null_count_sql(spec);
    // Only the ordering: engine=vllm names what it wants, != and null tests keep rows with no value.
    ASSERT_EQ(counts.size(), 1u);
    EXPECT_EQ(counts[0].filter->column, "roofline_fraction");
    EXPECT_EQ(counts[0].sql.sql,
              "SELECT count(*) FROM kv_rows WHERE roofline_fraction IS NULL AND engine COLLATE NOCASE = ? AND "
              "accelerator COLLATE NOCASE IS NOT ? AND measured_tps_at_ctx IS NOT NULL");
    ASSERT_EQ(counts[0].sql.parameters.size(), 2u);
    spec.filters = {parse_filter("context_length>=64k"), parse_filter("roofline_tps>1"),
                    parse_filter("weight_bytes<=1"), parse_filter("memory_gb<2"), parse_filter("model~q*")};
    counts = build_null_count_sql(spec);
    ASSERT_EQ(counts.size(), 4u);
    EXPECT_EQ(counts[3].filter->column, "memory_gb");
}

TEST(Filter, IsNullAndIsNotNullAreTheNullTests) {
    Filter is = parse_filter("measured_tps_at_ctx is null");
    EXPECT_EQ(is.column, "measured_tps_at_ctx");
    EXPECT_EQ(is.op, "=");
    EXPECT_TRUE(is.values.empty());
    Filter is_not = parse_filter("  roofline_fraction IS   Not NULL ");
    EXPECT_EQ(is_not.column, "roofline_fraction");
    EXPECT_EQ(is_not.op, "!=");
    EXPECT_TRUE(is_not.values.empty());
    QuerySpec spec;
    spec.filters = {is, is_not};
    spec.columns = {"id"};
    EXPECT_EQ(build_query_sql(spec).sql,
              "SELECT id FROM kv_rows WHERE measured_tps_at_ctx IS NULL AND roofline_fraction IS NOT NULL ORDER BY " +
                  std::string(kIdOrder));
    // An unknown column is named as in any filter.
    try {
        parse_filter("measured_tps is null");
        ADD_FAILURE() << "no error";
    } catch (const FilterError& e) {
        EXPECT_NE(std::string(e.what()).find("unknown column 'measured_tps'"), std::string::npos) << e.what();
    }
    // A value with spaces is still a value, and what is neither says both ways to write a filter.
    EXPECT_EQ(std::get<std::string>(parse_filter("engine=x is null").value), "x is null");
    try {
        parse_filter("measured_tps_at_ctx is nothing");
        ADD_FAILURE() << "no error";
    } catch (const FilterError& e) {
        EXPECT_NE(std::string(e.what()).find("column is null, column is not null"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace kvcat
