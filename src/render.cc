#include "render.h"

#include <array>
#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kvcat {

namespace {

constexpr std::array<std::string_view, 6> kFormats = {"table", "csv", "tsv", "json", "ndjson", "markdown"};

// U+2026: one display column, where "..." would take three from the value.
constexpr const char* kEllipsis = "\u2026";

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

/// The first `width` display columns of `text`, ending in an ellipsis when cut.
std::string truncate_to(const std::string& text, std::size_t width) {
    if (display_width(text) <= width) return text;
    if (width == 0) return "";
    std::string out;
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if ((c & 0xC0) != 0x80) {
            if (n == width - 1) break;  // room for the ellipsis only
            ++n;
        }
        out += text[i];
    }
    return out + kEllipsis;
}

/// What a cell shows in the aligned table: "-" for NULL, the first line of a multi-line value.
std::string aligned_text(const Cell& cell) {
    if (std::holds_alternative<std::monostate>(cell)) return "-";
    std::string text = cell_text(cell);
    if (auto nl = text.find_first_of("\r\n"); nl != std::string::npos) text = text.substr(0, nl) + kEllipsis;
    return text;
}

/// Narrows the widest text columns until the row fits in `max_width`. Numbers are never cut
/// (a truncated number reads as a different number); text columns shrink to a common cap,
/// the widest first, but not below kMinTextWidth. When even that does not fit, the line is
/// left long: a terminal wraps it, which is still better than hiding every column.
void fit_widths(std::vector<std::size_t>& widths, const std::vector<bool>& numeric, std::size_t max_width) {
    constexpr std::size_t kMinTextWidth = 4;
    std::size_t gaps = widths.empty() ? 0 : 2 * (widths.size() - 1);
    auto total_with_cap = [&](std::size_t cap) {
        std::size_t sum = gaps;
        for (std::size_t c = 0; c < widths.size(); ++c) sum += numeric[c] ? widths[c] : std::min(widths[c], cap);
        return sum;
    };
    std::size_t widest = 0;
    for (std::size_t c = 0; c < widths.size(); ++c) {
        if (!numeric[c]) widest = std::max(widest, widths[c]);
    }
    if (total_with_cap(widest) <= max_width) return;
    std::size_t cap = widest;
    while (cap > kMinTextWidth && total_with_cap(cap) > max_width) --cap;
    for (std::size_t c = 0; c < widths.size(); ++c) {
        if (!numeric[c]) widths[c] = std::min(widths[c], cap);
    }
}

std::string render_aligned(const Table& t, std::optional<std::size_t> max_width) {
    std::vector<std::size_t> widths(t.columns.size());
    std::vector<bool> numeric(t.columns.size(), false);
    for (std::size_t c = 0; c < t.columns.size(); ++c) widths[c] = display_width(t.columns[c]);
    // First pass: measure.
    for (const auto& row : t.rows) {
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(aligned_text(row[c])));
            if (is_number(row[c])) numeric[c] = true;
        }
    }
    if (max_width) fit_widths(widths, numeric, *max_width);
    auto pad = [](const std::string& raw, std::size_t width, bool right) {
        std::string text = truncate_to(raw, width);
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
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
            if (c) out += "  ";
            out += pad(aligned_text(row[c]), widths[c], numeric[c]);
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

std::string render_table(const Table& t, TableFormat format, const RenderOptions& options) {
    switch (format) {
        case TableFormat::table:
            return render_aligned(t, options.max_width);
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
            for (const auto& c : t.columns) {
                out += ' ';
                out += markdown_escape(c);
                out += " |";
            }
            out += "\n|";
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                bool numeric = std::any_of(t.rows.begin(), t.rows.end(),
                                           [&](const auto& row) { return c < row.size() && is_number(row[c]); });
                out += numeric ? " ---: |" : " --- |";
            }
            out += "\n";
            for (const auto& row : t.rows) {
                out += "|";
                for (const auto& cell : row) {
                    out += ' ';
                    out += markdown_escape(cell_text(cell));
                    out += " |";
                }
                out += "\n";
            }
            return out;
        }
    }
    return "";
}

}  // namespace kvcat
