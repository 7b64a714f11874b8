// Query filters: "column OP value" to SQL with bound parameters.
//
// OP is one of = != > >= < <= and ~ (a glob). Numbers take k and M suffixes in
// powers of two, as context lengths are counted: 64k is 65536, 1M is 1048576, and
// may carry the column's unit (24GB, 50%, 2GiB). With = != and ~ a comma list is
// any of its values (kv_cache_dtype=fp8,bf16); `null` tests for no value, also
// written as SQL does (`COLUMN is null`, `COLUMN is not null`). A record
// id may be given without its folder (accelerator=nvidia-rtx-4090). A value is
// always bound as a parameter, never spliced into the SQL, and a column must be
// one of the columns of the table queried (kv_rows, or allocations).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "support/table.h"

namespace kvcat {

/// A filter or column name the user got wrong; the message says what is valid.
class FilterError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

struct Filter {
    std::string column;
    std::string op;                          ///< "=", "!=", ">", ">=", "<", "<=", "~"
    Cell value;                              ///< the first of `values`; NULL for a null test (`=null`, `!=null`)
    std::vector<Cell> values;                ///< any of these (a comma list); empty for a null test
    std::string text;                        ///< as the user wrote it, for messages
    std::vector<std::string> families;       ///< dtype families the values were expanded from (fp8)
    QueryTable table = QueryTable::kv_rows;  ///< whose column it names
};

/// Parses "context_length>64k" for a column of `table`. Throws FilterError.
Filter parse_filter(std::string_view text, QueryTable table = QueryTable::kv_rows);

struct QuerySpec {
    QueryTable table = QueryTable::kv_rows;
    std::vector<Filter> filters;       ///< each parsed for `table`
    std::vector<std::string> columns;  ///< empty: the default columns
    /// Sort keys, comma-separated, each descending when it starts with '-'
    /// ("context_length,-measured_tps_at_ctx"); empty: by id. Ids sort by record, then by
    /// their context as a number (@1k before @4k before @16k), then concurrency.
    std::string sort_column;
    bool descending = false;            ///< the keys without a sign sort descending
    std::optional<std::int64_t> limit;  ///< at most this many rows
};

struct BoundSql {
    std::string sql;
    std::vector<Cell> parameters;
};

/// SELECT ... FROM kv_rows (or allocations) WHERE ... with every value bound. Throws FilterError.
BoundSql build_query_sql(const QuerySpec& spec);

/// The values of `column` among the rows the filters keep, each with how many rows hold it
/// (`rows`), the commonest first. Throws FilterError.
BoundSql build_distinct_sql(const QuerySpec& spec, std::string_view column);

/// For each ordering (< <= > >=), which leaves out the rows with no value in its column
/// without saying so, a count of those rows among the ones the other filters keep. An
/// equality or a glob names the values wanted, and != keeps the rows with no value.
struct NullCount {
    const Filter* filter;
    BoundSql sql;  ///< SELECT count(*) ...
};
std::vector<NullCount> build_null_count_sql(const QuerySpec& spec);

/// For each filter naming a dtype family: SELECT member, count(*) over the rows the whole
/// query keeps, so the query can say how many rows each member gave.
struct FamilyCount {
    const Filter* filter;
    BoundSql sql;
};
std::vector<FamilyCount> build_family_count_sql(const QuerySpec& spec);

/// The folder a record-id column's values start with ("accelerators/" for accelerator),
/// "" for other columns.
std::string_view id_column_folder(std::string_view column, QueryTable table = QueryTable::kv_rows);

}  // namespace kvcat
