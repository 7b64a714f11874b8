#include "catalog/filter.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "support/rational.h"
#include "support/suggest.h"
#include "support/typed_number.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

std::string valid_columns(QueryTable table) {
    std::string out;
    for (const auto& c : query_columns(table)) {
        if (!out.empty()) out += ", ";
        out += c.name;
    }
    return out;
}

const ColumnInfo& require_column(std::string_view name, QueryTable table) {
    if (const ColumnInfo* c = find_column(name, table)) return *c;
    if (table == QueryTable::kv_rows && find_predicted_column(name)) {
        throw FilterError(fmt::format(
            "'{}' is predicted after the catalog answers (query --predicted): it can be shown, not filtered or "
            "sorted on; filter on the catalog's columns, or sort the rows of --format csv elsewhere",
            name));
    }
    std::vector<std::string_view> names;
    for (const auto& c : query_columns(table)) names.push_back(c.name);
    std::string hint = closest_match(name, names);
    throw FilterError(fmt::format("unknown column '{}'{}; valid columns{}: {}", name,
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                  table == QueryTable::allocations ? " of --allocations"
                                  : table == QueryTable::quality   ? " of --quality"
                                                                   : "",
                                  valid_columns(table)));
}

bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

bool ends_with_nocase(std::string_view s, std::string_view suffix) {
    if (suffix.empty() || s.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        char a = s[s.size() - suffix.size() + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
        if (a != b) return false;
    }
    return true;
}

/// A number as a column in `unit` reads it: the unit itself may follow ("24GB", "250ms"),
/// a ratio may be a percentage ("50%"), a byte count may carry a binary or decimal unit
/// ("2GiB", "512MiB", "1.5GB").
std::optional<Cell> parse_number_in_unit(std::string_view text, std::string_view unit) {
    text = trim_blanks(text);
    if (unit == "ratio" && text.ends_with('%'))
        return parse_scaled_number(text.substr(0, text.size() - 1), Rational(1, 100));
    if (unit == "bytes" || unit == "bytes/token") {
        std::string_view body = text;
        if (unit == "bytes/token" && ends_with_nocase(body, "/token")) body.remove_suffix(6);
        struct Suffix {
            std::string_view name;
            std::int64_t factor;
        };
        static constexpr std::array<Suffix, 8> kSuffixes = {Suffix{"KiB", 1LL << 10},   Suffix{"MiB", 1LL << 20},
                                                            Suffix{"GiB", 1LL << 30},   Suffix{"TiB", 1LL << 40},
                                                            Suffix{"kB", 1000LL},       Suffix{"MB", 1000000LL},
                                                            Suffix{"GB", 1000000000LL}, Suffix{"TB", 1000000000000LL}};
        for (const auto& s : kSuffixes) {
            if (body.ends_with(s.name)) {
                return parse_scaled_number(body.substr(0, body.size() - s.name.size()), Rational(s.factor));
            }
        }
        if (body.ends_with('B')) return parse_number(trim_blanks(body.substr(0, body.size() - 1)));
        return parse_number(body);
    }
    if (!unit.empty() && ends_with_nocase(text, unit)) return parse_number(text.substr(0, text.size() - unit.size()));
    if (unit == "billions" && (text.ends_with('B') || text.ends_with('b')))
        return parse_number(text.substr(0, text.size() - 1));
    return parse_number(text);
}

/// A value a column in `unit` accepts, for error messages.
std::string example_for_unit(std::string_view unit) {
    if (unit == "tokens") return "65536, 64k or 1M";
    if (unit == "bytes") return "2147483648, 2GiB or 512MiB";
    if (unit == "bytes/token") return "10240 or 10KiB";
    if (unit == "ratio") return "0.5 or 50%";
    if (unit == "GB") return "24 or 24GB";
    if (unit == "GB/s") return "1000 or 1000GB/s";
    if (unit == "tokens/s") return "30 or 1.5k";
    if (unit == "ms") return "250 or 250ms";
    if (unit == "billions") return "27 or 27B";
    return "8 or 1.5";
}

}  // namespace

std::string_view id_column_folder(std::string_view column, QueryTable table) {
    if (table == QueryTable::allocations) {
        if (column == "id") return "allocations/";
        return column == "model" ? "models/" : "";
    }
    if (column == "id" || column == "record_id") return "kv-efficiency/";
    if (column == "model" || column == "measured_on_model") return "models/";
    if (column == "accelerator") return "accelerators/";
    return "";
}

namespace {

/// The words of `text` split at spaces and tabs.
std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        std::size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

/// "COLUMN is null" and "COLUMN is not null" as SQL writes them (any case): the null tests
/// `COLUMN=null` and `COLUMN!=null`. nullopt for anything else.
std::optional<Filter> parse_is_null(std::string_view text, QueryTable table) {
    auto w = words_of(text);
    bool is_null = w.size() == 3 && equal_ignoring_case(w[1], "is") && equal_ignoring_case(w[2], "null");
    bool not_null = w.size() == 4 && equal_ignoring_case(w[1], "is") && equal_ignoring_case(w[2], "not") &&
                    equal_ignoring_case(w[3], "null");
    // "engine=a is null" is an equality whose value has spaces.
    if ((!is_null && !not_null) || !is_identifier(w[0])) return std::nullopt;
    Filter f;
    f.table = table;
    f.column = std::string(require_column(w[0], table).name);
    f.op = is_null ? "=" : "!=";
    f.value = std::monostate{};
    f.text = std::string(text);
    return f;
}

}  // namespace

namespace {

/// The members of the dtype family `value` names in a dtype column (dtype_spelling.h).
std::span<const std::string_view> family_members(std::string_view column, std::string_view value) {
    if (column != "kv_cache_dtype" && column != "v_cache_dtype") return {};
    std::string lower(value);  // text filters ignore case: kv_cache_dtype=FP8 is the family too
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return dtype_family(lower);
}

}  // namespace

Filter parse_filter(std::string_view text, QueryTable table) {
    if (auto null_test = parse_is_null(text, table)) return *null_test;
    std::size_t op_at = text.find_first_of("=!<>~");
    if (op_at == std::string_view::npos) {
        if (is_identifier(text) && find_column(text, table)) {
            // The shell took `context_length>64k` unquoted as `context_length` and a redirection.
            throw FilterError(fmt::format(
                "'{0}' is a column, not a filter: a '>' or '<' written without quotes is a redirection to the "
                "shell, which left '{0}' and wrote the output to a file named after the value (remove it); "
                "quote the filter: '{0}>64k'",
                text));
        }
        throw FilterError(
            fmt::format("'{}' is not a filter; write column OP value, with OP one of = != > >= < <= ~, or "
                        "column is null, column is not null",
                        text));
    }
    Filter f;
    f.table = table;
    std::string_view column = trim_blanks(text.substr(0, op_at));
    std::string_view rest = text.substr(op_at);
    static constexpr std::array<std::string_view, 7> kOps = {">=", "<=", "!=", "=", ">", "<", "~"};
    for (auto op : kOps) {
        if (rest.substr(0, op.size()) == op) {
            f.op = std::string(op);
            break;
        }
    }
    if (f.op.empty()) {
        throw FilterError(fmt::format("'{}': unknown operator; use one of = != > >= < <= ~", text));
    }
    std::string_view value = trim_blanks(rest.substr(f.op.size()));
    if (!value.empty() && std::string_view("=<>!~").find(value.front()) != std::string_view::npos) {
        throw FilterError(
            fmt::format("'{}': unknown operator '{}{}'; use one of = != > >= < <= ~", text, f.op, value.front()));
    }
    if (!is_identifier(column)) {
        throw FilterError(fmt::format("'{}': expected a column name before '{}'", text, f.op));
    }
    const ColumnInfo& info = require_column(column, table);
    f.column = std::string(info.name);
    f.text = std::string(text);
    if (value == "null" || value == "NULL" || value == "Null") {
        if (f.op != "=" && f.op != "!=") {
            throw FilterError(
                fmt::format("'{}': null is tested with = or != ({}=null, {}!=null)", text, info.name, info.name));
        }
        f.value = std::monostate{};
        return f;
    }
    bool list = f.op == "=" || f.op == "!=" || f.op == "~";
    std::vector<std::string_view> parts;
    if (list && info.type == "text" && value.find(',') != std::string_view::npos) {
        std::size_t start = 0;
        while (true) {
            std::size_t comma = value.find(',', start);
            std::string_view part =
                trim_blanks(value.substr(start, comma == std::string_view::npos ? comma : comma - start));
            if (part.empty()) throw FilterError(fmt::format("'{}': an empty value in the comma list", text));
            parts.push_back(part);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
    } else if (list && info.type != "text" && f.op != "~" && value.find(',') != std::string_view::npos) {
        std::size_t start = 0;
        while (true) {
            std::size_t comma = value.find(',', start);
            parts.push_back(trim_blanks(value.substr(start, comma == std::string_view::npos ? comma : comma - start)));
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
    } else {
        parts.push_back(value);
    }
    for (std::string_view part : parts) {
        if (f.op == "~") {
            f.values.emplace_back(std::string(part));
        } else if (info.type == "text") {
            if (f.op != "=" && f.op != "!=") {
                throw FilterError(
                    fmt::format("'{}': {} is text; compare it with =, != or ~ (a glob)", text, info.name));
            }
            std::string v(part);
            // A record id without its folder: accelerator=nvidia-rtx-4090.
            std::string_view folder = id_column_folder(info.name, table);
            if (!folder.empty() && v.find('/') == std::string::npos) v = std::string(folder) + v;
            // A dtype family (kv_cache_dtype=fp8) is each of its members.
            if (auto members = family_members(info.name, v); !members.empty()) {
                f.families.push_back(v);
                for (auto m : members) f.values.emplace_back(std::string(m));
                continue;
            }
            f.values.emplace_back(std::move(v));
        } else {
            auto number = parse_number_in_unit(part, info.unit);
            if (!number) {
                throw FilterError(fmt::format("'{}': {} is a number{}; write a value such as {}", text, info.name,
                                              info.unit.empty() ? "" : fmt::format(" in {}", info.unit),
                                              example_for_unit(info.unit)));
            }
            f.values.push_back(*number);
        }
    }
    f.value = f.values.front();
    return f;
}

namespace {

/// One filter as SQL, its values appended to `parameters`.
std::string filter_sql(const Filter& f, std::vector<Cell>& parameters) {
    const ColumnInfo& info = require_column(f.column, f.table);
    if (f.values.empty()) return fmt::format("{} IS {}NULL", info.name, f.op == "!=" ? "NOT " : "");
    // Text compares without regard to ASCII case, so engine=vllm finds vLLM and
    // weight_quant~*q4_k* finds Q4_K_M; numbers compare as numbers.
    bool text = info.type == "text";
    std::string one;
    if (f.op == "~") {
        one = text ? fmt::format("lower({}) GLOB lower(?)", info.name) : fmt::format("{} GLOB ?", info.name);
    } else {
        // The collation goes on the column: SQLite 3.40 answers "x = ? COLLATE NOCASE OR x = ?
        // COLLATE NOCASE" from the index in the column's own (binary) collation, and finds nothing.
        std::string column = std::string(info.name) + (text ? " COLLATE NOCASE" : "");
        // NULL differs from every value
        one = f.op == "!=" ? fmt::format("{} IS NOT ?", column) : fmt::format("{} {} ?", column, f.op);
    }
    std::string out;
    // A list is any of its values: for != that is none of them.
    const char* join = f.op == "!=" ? " AND " : " OR ";
    // A record's id finds its points too: id=NAME is the row NAME or the rows NAME@....
    bool points = f.table == QueryTable::kv_rows && info.name == "id" && (f.op == "=" || f.op == "!=");
    for (const auto& v : f.values) {
        if (!out.empty()) out += join;
        if (points) {
            std::string record = one;
            record.replace(0, 2, "record_id");
            out += fmt::format("({}{}{})", one, join, record);
            parameters.push_back(v);
        } else {
            out += one;
        }
        parameters.push_back(v);
    }
    return f.values.size() > 1 || points ? "(" + out + ")" : out;
}

/// The filters ANDed, leaving out `skip`.
std::string where_clause(const std::vector<Filter>& filters, const Filter* skip, std::vector<Cell>& parameters) {
    std::string where;
    for (const auto& f : filters) {
        if (&f == skip) continue;
        if (!where.empty()) where += " AND ";
        where += filter_sql(f, parameters);
    }
    return where;
}

}  // namespace

std::vector<NullCount> build_null_count_sql(const QuerySpec& spec) {
    std::vector<NullCount> out;
    for (const auto& f : spec.filters) {
        // Only an ordering leaves them out unasked: = and ~ name the values wanted, and !=
        // keeps the rows with no value.
        if (f.values.empty() || (f.op != "<" && f.op != "<=" && f.op != ">" && f.op != ">=")) continue;
        NullCount n{&f, {}};
        std::string where = where_clause(spec.filters, &f, n.sql.parameters);
        n.sql.sql = fmt::format("SELECT count(*) FROM {} WHERE {} IS NULL{}{}", table_name(spec.table),
                                require_column(f.column, spec.table).name, where.empty() ? "" : " AND ", where);
        out.push_back(std::move(n));
    }
    return out;
}

namespace {

/// The order of ids as a reader counts them: by record, then the point's context as a
/// number (@1k, @4k, @16k), then concurrency (-c2 after -c1), then the id itself.
std::string id_order(bool descending, QueryTable table) {
    const char* dir = descending ? " DESC" : "";
    switch (table) {
        case QueryTable::kv_rows:
            return fmt::format("record_id{0}, context_length{0}, concurrency{0}, id{0}", dir);
        case QueryTable::allocations:
            return fmt::format("id{0}", dir);
        case QueryTable::quality:
            return fmt::format("record_id{0}, position{0}", dir);
    }
    return fmt::format("id{0}", dir);
}

/// " ORDER BY ..." for the spec's sort keys, the id order last to break ties.
std::string order_by(const QuerySpec& spec) {
    std::vector<std::string> keys;
    std::size_t start = 0;
    const std::string& text = spec.sort_column;
    while (start < text.size()) {
        std::size_t comma = text.find(',', start);
        std::string_view key = trim_blanks(
            std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        start = comma == std::string::npos ? text.size() : comma + 1;
        if (key.empty()) throw FilterError(fmt::format("--sort '{}': an empty key in the list", text));
        bool descending = spec.descending;
        if (key.front() == '-' || key.front() == '+') {
            descending = key.front() == '-';
            key.remove_prefix(1);
        }
        const ColumnInfo& info = require_column(key, spec.table);
        keys.push_back(info.name == "id" ? id_order(descending, spec.table)
                                         : fmt::format("{}{}", info.name, descending ? " DESC" : ""));
    }
    bool by_id =
        !keys.empty() && (keys.back() == id_order(false, spec.table) || keys.back() == id_order(true, spec.table));
    if (!by_id) keys.push_back(id_order(keys.empty() && spec.descending, spec.table));
    std::string out = " ORDER BY ";
    for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
    return out;
}

}  // namespace

std::vector<FamilyCount> build_family_count_sql(const QuerySpec& spec) {
    std::vector<FamilyCount> out;
    for (const auto& f : spec.filters) {
        if (f.families.empty() || f.op != "=") continue;
        FamilyCount n{&f, {}};
        std::string where = where_clause(spec.filters, nullptr, n.sql.parameters);
        std::string_view column = require_column(f.column, spec.table).name;
        n.sql.sql = fmt::format("SELECT {0}, count(*) FROM {2} WHERE {1} GROUP BY {0} ORDER BY {0}", column, where,
                                table_name(spec.table));
        out.push_back(std::move(n));
    }
    return out;
}

BoundSql build_query_sql(const QuerySpec& spec) {
    BoundSql out;
    std::vector<std::string> columns = spec.columns;
    if (columns.empty()) {
        for (auto c : default_query_columns(spec.table)) columns.emplace_back(c);
    }
    std::string select;
    for (const auto& c : columns) {
        const ColumnInfo& info = require_column(c, spec.table);
        if (!select.empty()) select += ", ";
        select += info.name;  // a known identifier, never user text
    }
    out.sql = fmt::format("SELECT {} FROM {}", select, table_name(spec.table));
    std::string where = where_clause(spec.filters, nullptr, out.parameters);
    if (!where.empty()) out.sql += " WHERE " + where;
    out.sql += order_by(spec);
    if (spec.limit) {
        out.sql += " LIMIT ?";
        out.parameters.emplace_back(*spec.limit);
    }
    return out;
}

BoundSql build_distinct_sql(const QuerySpec& spec, std::string_view column) {
    const ColumnInfo& info = require_column(column, spec.table);
    BoundSql out;
    out.sql = fmt::format("SELECT {0}, count(*) AS rows FROM {1}", info.name, table_name(spec.table));
    std::string where = where_clause(spec.filters, nullptr, out.parameters);
    if (!where.empty()) out.sql += " WHERE " + where;
    out.sql += fmt::format(" GROUP BY {0} ORDER BY rows DESC, {0}", info.name);
    if (spec.limit) {
        out.sql += " LIMIT ?";
        out.parameters.emplace_back(*spec.limit);
    }
    return out;
}

}  // namespace kvcat
