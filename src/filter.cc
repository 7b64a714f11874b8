#include "filter.h"

#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "catalog.h"
#include "rational.h"
#include "suggest.h"

namespace kvcat {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string valid_columns() {
    std::string out;
    for (const auto& c : kv_row_columns()) {
        if (!out.empty()) out += ", ";
        out += c.name;
    }
    return out;
}

const ColumnInfo& require_column(std::string_view name) {
    if (const ColumnInfo* c = find_column(name)) return *c;
    std::vector<std::string_view> names;
    for (const auto& c : kv_row_columns()) names.push_back(c.name);
    std::string hint = closest_match(name, names);
    throw FilterError(fmt::format("unknown column '{}'{}; valid columns: {}", name,
                                  hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint), valid_columns()));
}

bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

}  // namespace

std::optional<Cell> parse_number(std::string_view text) {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    std::int64_t multiplier = 1;
    char last = text.back();
    if (last == 'k' || last == 'K') {
        multiplier = 1024;
    } else if (last == 'M') {
        multiplier = 1024 * 1024;
    } else if (last == 'G') {
        multiplier = 1024LL * 1024 * 1024;
    }
    if (multiplier != 1) text.remove_suffix(1);
    auto exact = Rational::parse(text);
    if (!exact || text.find('/') != std::string_view::npos) return std::nullopt;
    try {
        Rational scaled = *exact * Rational(multiplier);
        if (scaled.is_integer()) return Cell(scaled.num());
        return Cell(scaled.to_double());
    } catch (const OverflowError&) {
        return std::nullopt;
    }
}

Filter parse_filter(std::string_view text) {
    std::size_t op_at = text.find_first_of("=!<>~");
    if (op_at == std::string_view::npos) {
        throw FilterError(fmt::format("'{}' is not a filter; write column OP value, with OP one of = != > >= < <= ~",
                                      text));
    }
    Filter f;
    std::string_view column = trim(text.substr(0, op_at));
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
    std::string_view value = trim(rest.substr(f.op.size()));
    if (!value.empty() && std::string_view("=<>!~").find(value.front()) != std::string_view::npos) {
        throw FilterError(fmt::format("'{}': unknown operator '{}{}'; use one of = != > >= < <= ~", text, f.op,
                                      value.front()));
    }
    if (!is_identifier(column)) {
        throw FilterError(fmt::format("'{}': expected a column name before '{}'", text, f.op));
    }
    const ColumnInfo& info = require_column(column);
    f.column = std::string(info.name);
    if (f.op == "~") {
        f.value = std::string(value);
    } else if (info.type == "text") {
        if (f.op != "=" && f.op != "!=") {
            throw FilterError(fmt::format("'{}': {} is text; compare it with =, != or ~ (a glob)", text, info.name));
        }
        f.value = std::string(value);
    } else {
        auto number = parse_number(value);
        if (!number) {
            throw FilterError(fmt::format("'{}': {} is a number ({}); write a value such as 65536, 64k or 1M", text,
                                          info.name, info.unit.empty() ? "no unit" : info.unit));
        }
        f.value = *number;
    }
    return f;
}

BoundSql build_query_sql(const QuerySpec& spec) {
    BoundSql out;
    std::vector<std::string> columns = spec.columns;
    if (columns.empty()) {
        for (auto c : default_query_columns()) columns.emplace_back(c);
    }
    std::string select;
    for (const auto& c : columns) {
        const ColumnInfo& info = require_column(c);
        if (!select.empty()) select += ", ";
        select += info.name;  // a known identifier, never user text
    }
    out.sql = fmt::format("SELECT {} FROM kv_rows", select);
    std::string where;
    for (const auto& f : spec.filters) {
        const ColumnInfo& info = require_column(f.column);
        if (!where.empty()) where += " AND ";
        // Text compares without regard to ASCII case, so engine=vllm finds vLLM and
        // weight_quant~*q4_k* finds Q4_K_M; numbers compare as numbers.
        bool text = info.type == "text";
        if (f.op == "~") {
            where += text ? fmt::format("lower({}) GLOB lower(?)", info.name) : fmt::format("{} GLOB ?", info.name);
        } else if (f.op == "!=") {
            // NULL differs from every value
            where += fmt::format("{} IS NOT ?{}", info.name, text ? " COLLATE NOCASE" : "");
        } else {
            where += fmt::format("{} {} ?{}", info.name, f.op, text ? " COLLATE NOCASE" : "");
        }
        out.parameters.push_back(f.value);
    }
    if (!where.empty()) out.sql += " WHERE " + where;
    std::string sort = spec.sort_column.empty() ? "id" : std::string(require_column(spec.sort_column).name);
    out.sql += fmt::format(" ORDER BY {}{}", sort, spec.descending ? " DESC" : "");
    if (sort != "id") out.sql += ", id";
    return out;
}

}  // namespace kvcat
