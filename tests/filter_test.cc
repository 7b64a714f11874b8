#include "filter.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "catalog.h"
#include "catalog_writer.h"
#include "lint.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

TEST(Filter, SuffixesArePowersOfTwo) {
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("64k")), 65536);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("1M")), 1048576);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("128K")), 131072);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("65536")), 65536);
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_number("28.8")), 28.8);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("1.5k")), 1536);
    EXPECT_FALSE(parse_number("64kb"));
    EXPECT_FALSE(parse_number("k"));
    EXPECT_FALSE(parse_number("99999999999999999999"));
}

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
    for (const Case& c : {Case{"context_length>64k", "context_length > ?"}, Case{"context_length>=64k", "context_length >= ?"},
                          Case{"context_length<64k", "context_length < ?"}, Case{"context_length<=64k", "context_length <= ?"},
                          Case{"context_length=64k", "context_length = ?"},
                          Case{"context_length!=64k", "context_length IS NOT ?"},
                          Case{"model~models/qwen*", "lower(model) GLOB lower(?)"},
                          Case{"engine=vllm", "engine = ? COLLATE NOCASE"},
                          Case{"engine!=vllm", "engine IS NOT ? COLLATE NOCASE"}}) {
        QuerySpec spec;
        spec.columns = {"id"};
        spec.filters.push_back(parse_filter(c.filter));
        BoundSql bound = build_query_sql(spec);
        EXPECT_EQ(bound.sql, std::string("SELECT id FROM kv_rows WHERE ") + c.where + " ORDER BY id") << c.filter;
        ASSERT_EQ(bound.parameters.size(), 1u) << c.filter;
    }
}

TEST(Filter, FiltersAreAndedWithTheirValuesBoundInOrder) {
    QuerySpec spec;
    spec.columns = {"id", "context_length"};
    spec.filters = {parse_filter("attention_variant=hybrid"), parse_filter("context_length>64k")};
    spec.sort_column = "context_length";
    spec.descending = true;
    BoundSql bound = build_query_sql(spec);
    EXPECT_EQ(bound.sql,
              "SELECT id, context_length FROM kv_rows WHERE attention_variant = ? COLLATE NOCASE AND context_length > ? "
              "ORDER BY context_length DESC, id");
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
    ASSERT_EQ(bound.parameters.size(), 1u);
    EXPECT_EQ(std::get<std::string>(bound.parameters[0]), "x' OR 1=1 --");
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
    EXPECT_EQ(bound.sql, "SELECT id, kv_bytes_per_token FROM kv_rows ORDER BY kv_bytes_per_token DESC, id");
    spec.sort_column = "id; DROP TABLE models";
    EXPECT_THROW(build_query_sql(spec), FilterError);
    spec.sort_column.clear();
    spec.columns = {"nope"};
    EXPECT_THROW(build_query_sql(spec), FilterError);
}

}  // namespace
}  // namespace kvcat
