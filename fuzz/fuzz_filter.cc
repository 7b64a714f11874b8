// libFuzzer target: bytes -> kvcat::parse_filter -> kvcat::build_query_sql, and parse_number.
//
// parse_filter throws FilterError, and only FilterError, for text that is not a filter;
// anything else escaping is a crash. A filter that parses must name a kv_rows column, and
// the SQL built from it must carry its values as bound parameters: the statement never
// contains a quote character, and there is one parameter per value of the filter (a comma
// list has several; a null test, column=null, has none).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "catalog/catalog.h"
#include "catalog/filter.h"
#include "fuzz_check.h"
#include "support/typed_number.h"

using kvcat::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)kvcat::parse_number(text);
    kvcat::Filter filter;
    try {
        filter = kvcat::parse_filter(text);
    } catch (const kvcat::FilterError& e) {
        check(std::string_view(e.what()).size() > 0, "a FilterError without a message");
        return 0;
    }
    check(kvcat::find_column(filter.column) != nullptr, "parse_filter accepted unknown column '" + filter.column + "'");
    check(filter.values.empty() == std::holds_alternative<std::monostate>(filter.value),
          "parse_filter returned no value for a filter that is not a null test");
    for (const auto& v : filter.values) {
        check(!std::holds_alternative<std::monostate>(v), "a null among a filter's values");
    }
    kvcat::QuerySpec spec;
    spec.filters.push_back(filter);
    kvcat::BoundSql sql = kvcat::build_query_sql(spec);
    // id= and id!= also match a record's points (record_id), so they bind each value twice.
    bool points = kvcat::find_column(filter.column)->name == "id" && (filter.op == "=" || filter.op == "!=");
    check(sql.parameters.size() == filter.values.size() * (points ? 2 : 1),
          "not the bound parameters the filter's values call for");
    check(sql.sql.find('\'') == std::string::npos && sql.sql.find('"') == std::string::npos,
          "a quote in the SQL built from a filter: " + sql.sql);
    return 0;
}
