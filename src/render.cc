#include "render.h"

#include <array>
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kvcat {

namespace {

constexpr std::array<std::string_view, 6> kFormats = {"table", "csv", "tsv", "json", "ndjson", "markdown"};

bool is_number(const Cell& c) {
    return std::holds_alternative<std::int64_t>(c) || std::holds_alternative<double>(c);
}

std::size_t display_width(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) {
        if ((c & 0xC0) != 0x80) ++n;
    }
    return n;
}

std::string csv_field(const std::string& s, char separator) {
    if (separator == '\t') {
        // TSV has no quoting: tabs and line ends inside a value become spaces.
        std::string out = s;
        std::replace_if(out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
        return out;
    }
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

nlohmann::ordered_json cell_json(const Cell& c) {
    if (std::holds_alternative<std::monostate>(c)) return nullptr;
    if (auto* i = std::get_if<std::int64_t>(&c)) return *i;
    if (auto* d = std::get_if<double>(&c)) return *d;
    return std::get<std::string>(c);
}

std::string markdown_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += "<br>";
        else out += c;
    }
    return out;
}

std::string render_aligned(const Table& t) {
    std::vector<std::size_t> widths(t.columns.size());
    std::vector<bool> numeric(t.columns.size(), false);
    for (std::size_t c = 0; c < t.columns.size(); ++c) widths[c] = display_width(t.columns[c]);
    // First pass: measure.
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            std::string text = std::holds_alternative<std::monostate>(row[c]) ? "-" : cell_text(row[c]);
            auto nl = text.find('\n');
            widths[c] = std::max(widths[c], display_width(nl == std::string::npos ? text : text.substr(0, nl)));
            if (is_number(row[c])) numeric[c] = true;
        }
    }
    auto pad = [](const std::string& text, std::size_t width, bool right) {
        std::size_t w = display_width(text);
        std::string fill(width > w ? width - w : 0, ' ');
        return right ? fill + text : text + fill;
    };
    // Second pass: print.
    std::string out;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
        if (c) out += "  ";
        out += pad(t.columns[c], widths[c], numeric[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
        if (c) out += "  ";
        out += std::string(widths[c], '-');
    }
    out += '\n';
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c) out += "  ";
            std::string text = std::holds_alternative<std::monostate>(row[c]) ? "-" : cell_text(row[c]);
            if (auto nl = text.find('\n'); nl != std::string::npos) text = text.substr(0, nl) + "...";
            out += pad(text, widths[c], numeric[c]);
        }
        // No trailing spaces at the end of a line.
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += '\n';
    }
    out += fmt::format("({} row{})\n", t.rows.size(), t.rows.size() == 1 ? "" : "s");
    return out;
}

}  // namespace

std::optional<TableFormat> parse_table_format(std::string_view name) {
    for (std::size_t i = 0; i < kFormats.size(); ++i) {
        if (kFormats[i] == name) return static_cast<TableFormat>(i);
    }
    return std::nullopt;
}

std::span<const std::string_view> table_format_names() { return kFormats; }

std::string cell_text(const Cell& cell) {
    if (std::holds_alternative<std::monostate>(cell)) return "";
    if (auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
    return std::get<std::string>(cell);
}

std::string render_table(const Table& t, TableFormat format) {
    switch (format) {
        case TableFormat::table:
            return render_aligned(t);
        case TableFormat::csv:
        case TableFormat::tsv: {
            char sep = format == TableFormat::csv ? ',' : '\t';
            const char* eol = format == TableFormat::csv ? "\r\n" : "\n";  // RFC 4180 uses CRLF
            std::string out;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                if (c) out += sep;
                out += csv_field(t.columns[c], sep);
            }
            out += eol;
            for (const auto& row : t.rows) {
                for (std::size_t c = 0; c < row.size(); ++c) {
                    if (c) out += sep;
                    out += csv_field(cell_text(row[c]), sep);
                }
                out += eol;
            }
            return out;
        }
        case TableFormat::json:
        case TableFormat::ndjson: {
            // ordered_json keeps the columns in the order the query asked for them.
            nlohmann::ordered_json array = nlohmann::ordered_json::array();
            std::string lines;
            for (const auto& row : t.rows) {
                nlohmann::ordered_json object = nlohmann::ordered_json::object();
                for (std::size_t c = 0; c < row.size(); ++c) object[t.columns[c]] = cell_json(row[c]);
                if (format == TableFormat::ndjson) {
                    lines += object.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
                } else {
                    array.push_back(std::move(object));
                }
            }
            return format == TableFormat::ndjson
                       ? lines
                       : array.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
        }
        case TableFormat::markdown: {
            std::string out = "|";
            for (const auto& c : t.columns) out += " " + markdown_escape(c) + " |";
            out += "\n|";
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                bool numeric = std::any_of(t.rows.begin(), t.rows.end(),
                                           [&](const auto& row) { return c < row.size() && is_number(row[c]); });
                out += numeric ? " ---: |" : " --- |";
            }
            out += "\n";
            for (const auto& row : t.rows) {
                out += "|";
                for (const auto& cell : row) out += " " + markdown_escape(cell_text(cell)) + " |";
                out += "\n";
            }
            return out;
        }
    }
    return "";
}

}  // namespace kvcat
