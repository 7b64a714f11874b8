// libFuzzer target: bytes -> kvcat::parse_filter -> kvcat::build_query_sql, and parse_number.
//
// parse_filter throws FilterError, and only FilterError, for text that is not a filter;
// anything else escaping is a crash. A filter that parses must name a kv_rows column, and
// the SQL built from it must carry the value as a bound parameter: the statement never
// contains a quote character, and there is exactly one parameter per filter.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "catalog.h"
#include "filter.h"
#include "fuzz_check.h"

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
    check(!std::holds_alternative<std::monostate>(filter.value), "parse_filter returned no value");
    kvcat::QuerySpec spec;
    spec.filters.push_back(filter);
    kvcat::BoundSql sql = kvcat::build_query_sql(spec);
    check(sql.parameters.size() == 1, "not one bound parameter per filter");
    check(sql.sql.find('\'') == std::string::npos && sql.sql.find('"') == std::string::npos,
          "a quote in the SQL built from a filter: " + sql.sql);
    return 0;
}
