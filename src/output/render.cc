#include "output/render.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "output/wrap.h"
#include "support/hidden_text.h"

namespace kvcat {

namespace {

constexpr std::array<std::string_view, 7> kTableFormats = {"table",  "csv",      "tsv",     "json",
                                                           "ndjson", "markdown", "vertical"};

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
        std::replace_if(
            out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
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
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += "<br>";
        else
            out += c;
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

/// Byte offset of the display column `column` in `text` (text.size() past the end).
std::size_t offset_of_column(const std::string& text, std::size_t column) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            if (n == column) return i;
            ++n;
        }
    }
    return text.size();
}

/// `text` in `width` display columns with its middle replaced by an ellipsis: ids differ at
/// both ends (the engine first, the context last), so both ends are kept.
/// With `head`, that many columns of the start are kept and the rest of the width goes to the
/// end; without, the two halves are even.
std::string cut_middle(const std::string& text, std::size_t width, std::optional<std::size_t> head = std::nullopt) {
    std::size_t have = display_width(text);
    if (have <= width) return text;
    if (width < 3) return truncate_to(text, width);
    std::size_t keep = width - 1;
    std::size_t first = head && *head >= 1 && *head < keep ? *head : keep - keep / 2;
    std::size_t tail = keep - first;
    return text.substr(0, offset_of_column(text, first)) + kEllipsis + text.substr(offset_of_column(text, have - tail));
}

/// What a cell shows in the aligned table: "-" for NULL, the first line of a multi-line value.
std::string aligned_text(const Cell& cell) {
    if (std::holds_alternative<std::monostate>(cell)) return "-";
    std::string text = cell_text(cell);
    if (auto nl = text.find_first_of("\r\n"); nl != std::string::npos) text = text.substr(0, nl) + kEllipsis;
    return text;
}

bool is_byte_unit(std::string_view unit) {
    return unit == "bytes" || unit == "bytes/token";
}

/// Four significant digits, or the whole number from 1000 up (a rate of 1234 tokens/s
/// reads better than 1.234e+03).
std::string readable_real(double v) {
    if (!std::isfinite(v)) return fmt::format("{}", v);
    if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
    return fmt::format("{:.4g}", v);
}

std::optional<double> cell_number(const Cell& cell) {
    if (auto* i = std::get_if<std::int64_t>(&cell)) return static_cast<double>(*i);
    if (auto* d = std::get_if<double>(&cell)) return *d;
    return std::nullopt;
}

/// The column's unit, "" when the caller gave no way to ask.
std::string_view unit_of(const RenderOptions& options, std::string_view column) {
    return options.unit_of ? options.unit_of(column) : std::string_view{};
}

/// A cell as the readable formats show it, whole (no prefix dropped, nothing cut).
std::string readable_text(const Cell& cell, std::string_view unit, bool raw_beside_human) {
    if (std::holds_alternative<std::monostate>(cell)) return "-";
    auto number = cell_number(cell);
    if (number && is_byte_unit(unit)) {
        std::string human = human_bytes(*number);
        if (!raw_beside_human) return human;
        return fmt::format("{} ({})", cell_text(cell), human);
    }
    if (auto* d = std::get_if<double>(&cell)) return readable_real(*d);
    return cell_text(cell);
}

/// Bytes of the prefix that every text cell of column `c` shares, cut back to its last '/'
/// so that whole path segments go ("kv-efficiency/", "models/"); 0 when dropping it would
/// leave a cell empty or the column holds anything but text.
std::size_t shared_prefix(const Table& t, std::size_t c) {
    const std::string* first = nullptr;
    std::size_t common = 0;
    for (const auto& row : t.rows) {
        if (c >= row.size() || std::holds_alternative<std::monostate>(row[c])) continue;
        const auto* text = std::get_if<std::string>(&row[c]);
        if (!text) return 0;
        if (!first) {
            first = text;
            common = text->size();
            continue;
        }
        std::size_t n = 0;
        while (n < common && n < text->size() && (*text)[n] == (*first)[n]) ++n;
        common = n;
    }
    if (!first) return 0;
    std::size_t slash = std::string_view(*first).substr(0, common).rfind('/');
    if (slash == std::string_view::npos) return 0;
    std::size_t prefix = slash + 1;
    for (const auto& row : t.rows) {
        if (c >= row.size()) continue;
        if (const auto* text = std::get_if<std::string>(&row[c]); text && text->size() <= prefix) return 0;
    }
    return prefix;
}

/// Gives the caller its look before each row (see RenderOptions::each_row), and stops a
/// rendering that has grown past RenderOptions::max_bytes.
void next_row(const RenderOptions& options, std::size_t written = 0) {
    if (options.each_row) options.each_row();
    if (options.max_bytes > 0 && written > options.max_bytes) {
        throw RenderTooLarge(fmt::format("the answer is larger than the output limit of {} bytes", options.max_bytes));
    }
}

/// The table as text cells ready to align: headers, cells, and which columns are numbers.
struct Shaped {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> cells;
    std::vector<bool> numeric;
};

Shaped shape(const Table& t, const RenderOptions& options) {
    Shaped s;
    s.header = t.columns;
    if (options.readable) {
        for (auto& h : s.header) h = escape_for_terminal(h);
    }
    s.numeric.assign(t.columns.size(), false);
    std::vector<std::size_t> prefix(t.columns.size(), 0);
    if (options.readable && t.rows.size() > 1) {
        for (std::size_t c = 0; c < t.columns.size(); ++c) prefix[c] = shared_prefix(t, c);
    }
    for (const auto& row : t.rows) {
        next_row(options);
        std::vector<std::string> line;
        for (std::size_t c = 0; c < row.size() && c < t.columns.size(); ++c) {
            if (is_number(row[c])) s.numeric[c] = true;
            if (!options.readable) {
                line.push_back(aligned_text(row[c]));
                continue;
            }
            std::string text = readable_text(row[c], unit_of(options, t.columns[c]), false);
            if (auto nl = text.find_first_of("\r\n"); nl != std::string::npos) text = text.substr(0, nl) + kEllipsis;
            if (prefix[c] && std::holds_alternative<std::string>(row[c])) text = text.substr(prefix[c]);
            line.push_back(escape_for_terminal(text));  // shown on a terminal, never obeyed
        }
        s.cells.push_back(std::move(line));
    }
    return s;
}

/// Widths for the columns kept, after fitting them in `max_width`. Text columns shrink to a
/// common cap, the widest first, but not below their floor: the header's width (a header is
/// never cut) and at least kMinTextWidth, so that a cut value keeps both its ends. Numbers
/// are never cut (a cut number reads as another number). When even the floors do not fit,
/// the rightmost columns go, as they come last in the caller's order of importance; the
/// first column always stays, cut to the width if it must be.
std::vector<std::size_t> fit_widths(std::vector<std::size_t> widths, const std::vector<std::size_t>& header_widths,
                                    const std::vector<bool>& numeric, std::size_t max_width,
                                    const std::vector<std::size_t>& distinct_widths) {
    constexpr std::size_t kMinTextWidth = 12;
    std::vector<std::size_t> floors(widths.size());
    for (std::size_t c = 0; c < widths.size(); ++c) {
        floors[c] = numeric[c] ? widths[c]
                               : std::min(widths[c], std::max({header_widths[c], kMinTextWidth, distinct_widths[c]}));
    }
    auto width_at = [&](std::size_t c, std::size_t cap) { return std::max(floors[c], std::min(widths[c], cap)); };
    auto total_with_cap = [&](std::size_t kept, std::size_t cap) {
        std::size_t sum = kept ? 2 * (kept - 1) : 0;
        for (std::size_t c = 0; c < kept; ++c) sum += width_at(c, cap);
        return sum;
    };
    for (std::size_t kept = widths.size(); kept > 1; --kept) {
        std::size_t cap = 0;
        for (std::size_t c = 0; c < kept; ++c) cap = std::max(cap, widths[c]);
        while (cap > 0 && total_with_cap(kept, cap) > max_width) --cap;
        if (total_with_cap(kept, cap) <= max_width) {
            std::vector<std::size_t> out(kept);
            for (std::size_t c = 0; c < kept; ++c) out[c] = width_at(c, cap);
            return out;
        }
    }
    if (widths.empty()) return widths;
    return {numeric[0] ? widths[0] : std::min(widths[0], std::max<std::size_t>(max_width, 1))};
}

/// The narrowest width at which cutting the middle of a text column's values still leaves
/// different values looking different (0 when they differ at any width, or for a number).
/// The different values of column `c`, sorted.
std::vector<std::string> distinct_values(const Shaped& s, std::size_t c) {
    std::vector<std::string> values;
    for (const auto& line : s.cells) values.push_back(line[c]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

/// Whether `values` stay different when each is cut to `width` keeping `head` columns of its start.
bool stay_distinct(const std::vector<std::string>& values, std::size_t width, std::optional<std::size_t> head) {
    std::vector<std::string> cut;
    cut.reserve(values.size());
    for (const auto& v : values) cut.push_back(cut_middle(v, width, head));
    std::sort(cut.begin(), cut.end());
    return std::adjacent_find(cut.begin(), cut.end()) == cut.end();
}

/// Above this many different values a column is cut at its middle only: trying every split
/// of every width would cost more than the table is worth.
constexpr std::size_t kMaxValuesForSplits = 200;

/// How many columns of its start a cut value keeps at `width` so that different values stay
/// different: the split nearest the middle that does ("sglang-q…awq-int4-fp8-e4m3@128k" where
/// ids share a long middle and differ near one end). nullopt when no split does, or for a
/// column with too many values to try.
std::optional<std::size_t> distinct_split(const std::vector<std::string>& values, std::size_t width) {
    if (width < 3 || values.size() < 2) return std::nullopt;
    std::size_t keep = width - 1;
    std::size_t middle = keep - keep / 2;
    if (stay_distinct(values, width, middle)) return middle;
    if (values.size() > kMaxValuesForSplits) return std::nullopt;
    // Each end keeps a few columns, so that a cut value still reads as the id it is.
    constexpr std::size_t kMinEnd = 6;
    std::size_t least = std::min(kMinEnd, keep / 2);
    for (std::size_t step = 1; step < keep; ++step) {
        if (middle + step + least <= keep && stay_distinct(values, width, middle + step)) return middle + step;
        if (step + least <= middle && stay_distinct(values, width, middle - step)) return middle - step;
    }
    return std::nullopt;
}

/// The narrowest width at which cutting a text column's values still leaves different values
/// looking different, at some split (0 when they differ at any width, or for a number).
std::size_t distinct_width(const Shaped& s, std::size_t c, std::size_t natural) {
    if (s.numeric[c]) return 0;
    std::vector<std::string> values = distinct_values(s, c);
    if (values.size() < 2) return 0;
    for (std::size_t w = 3; w < natural; ++w) {
        if (distinct_split(values, w)) return w;
    }
    return natural;
}

std::size_t natural_width(const std::vector<std::size_t>& widths) {
    std::size_t sum = widths.empty() ? 0 : 2 * (widths.size() - 1);
    for (auto w : widths) sum += w;
    return sum;
}

std::vector<std::size_t> measure(const Shaped& s) {
    std::vector<std::size_t> widths(s.header.size());
    for (std::size_t c = 0; c < s.header.size(); ++c) widths[c] = display_width(s.header[c]);
    for (const auto& line : s.cells) {
        for (std::size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], display_width(line[c]));
    }
    return widths;
}

std::string rows_footer(std::size_t rows) {
    return fmt::format("({} row{})\n", rows, rows == 1 ? "" : "s");
}

/// A value in a note, cut to keep the note on one line.
std::string note_value(const std::string& text) {
    constexpr std::size_t kMaxNoteValue = 40;
    return cut_middle(text, kMaxNoteValue);
}

/// When the table is wider than the window, the columns (never the first) whose cells are
/// all alike over the rows shown, empty or one value: each says one thing, which a line under
/// the table says as well ("accelerator: - in every row"), and the room goes to columns whose
/// values differ. Removes them from `s` and returns those lines.
std::vector<std::string> drop_constant_columns(Shaped& s, std::size_t max_width) {
    std::vector<std::string> notes;
    if (s.cells.size() < 2 || natural_width(measure(s)) <= max_width) return notes;
    std::vector<bool> keep(s.header.size(), true);
    for (std::size_t c = 1; c < s.header.size(); ++c) {
        bool alike = std::all_of(s.cells.begin(), s.cells.end(),
                                 [&](const auto& line) { return c < line.size() && line[c] == s.cells.front()[c]; });
        if (!alike) continue;
        keep[c] = false;
        notes.push_back(fmt::format("{}: {} in every row", s.header[c], note_value(s.cells.front()[c])));
    }
    if (notes.empty()) return notes;
    Shaped kept;
    for (std::size_t c = 0; c < s.header.size(); ++c) {
        if (!keep[c]) continue;
        kept.header.push_back(s.header[c]);
        kept.numeric.push_back(s.numeric[c]);
    }
    for (const auto& line : s.cells) {
        std::vector<std::string> out;
        for (std::size_t c = 0; c < line.size() && c < keep.size(); ++c) {
            if (keep[c]) out.push_back(line[c]);
        }
        kept.cells.push_back(std::move(out));
    }
    s = std::move(kept);
    return notes;
}

/// The widths of `s`'s columns fitted in `max_width`; fewer widths than columns when the
/// rightmost had to go (see fit_widths).
std::vector<std::size_t> fitted_widths(const Shaped& s, std::size_t max_width, bool asked_columns = false) {
    std::vector<std::size_t> widths = measure(s);
    std::vector<std::size_t> header_widths;
    for (const auto& h : s.header) header_widths.push_back(display_width(h));
    // A cut keeps what tells the cells apart: columns go before ids become look-alikes.
    std::vector<std::size_t> distinct(widths.size(), 0);
    if (natural_width(widths) > max_width) {
        for (std::size_t c = 0; c < widths.size(); ++c) distinct[c] = distinct_width(s, c, widths[c]);
    }
    std::vector<std::size_t> fitted = fit_widths(widths, header_widths, s.numeric, max_width, distinct);
    // Columns the reader named stay before an id keeps its every telling character.
    if (asked_columns && fitted.size() < widths.size()) {
        fitted = fit_widths(widths, header_widths, s.numeric, max_width, std::vector<std::size_t>(widths.size(), 0));
    }
    return fitted;
}

/// Removes column `c` from `s`.
void remove_column(Shaped& s, std::size_t c) {
    s.header.erase(s.header.begin() + static_cast<std::ptrdiff_t>(c));
    s.numeric.erase(s.numeric.begin() + static_cast<std::ptrdiff_t>(c));
    for (auto& line : s.cells) {
        if (c < line.size()) line.erase(line.begin() + static_cast<std::ptrdiff_t>(c));
    }
}

/// "model: a in 44 rows, b in 3, c in 1": the values column `c` of `s` holds, the most held
/// first, at most four and how many more.
std::string values_note(const Shaped& s, std::size_t c) {
    std::map<std::string, std::size_t> count;
    for (const auto& line : s.cells) {
        if (c < line.size()) ++count[line[c]];
    }
    std::vector<std::pair<std::string, std::size_t>> held(count.begin(), count.end());
    std::stable_sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr std::size_t kShown = 4;
    std::string out = s.header[c] + ":";
    for (std::size_t i = 0; i < held.size() && i < kShown; ++i) {
        out += fmt::format("{} {} in {}{}", i ? "," : "", note_value(held[i].first), held[i].second,
                           i == 0 ? (held[i].second == 1 ? " row" : " rows") : "");
    }
    if (held.size() > kShown) out += fmt::format(" and {} more", held.size() - kShown);
    return out;
}

std::string render_aligned(const Table& t, const RenderOptions& options) {
    Shaped s = shape(t, options);
    std::vector<std::string> alike_notes;
    if (options.max_width) alike_notes = drop_constant_columns(s, *options.max_width);
    std::map<std::string, std::string> value_notes;  // by column, written in summarize_when_dropped's order
    std::vector<std::string> dropped;                // by drop_order, then from the right
    std::vector<std::size_t> widths = measure(s);    // first pass: measure
    if (options.max_width) {
        widths = fitted_widths(s, *options.max_width, options.asked_columns);
        for (auto name : options.drop_order) {
            if (widths.size() == s.header.size()) break;
            auto at = std::find(s.header.begin() + 1, s.header.end(), name);
            if (at == s.header.end()) continue;
            dropped.push_back(*at);
            if (std::find(options.summarize_when_dropped.begin(), options.summarize_when_dropped.end(), name) !=
                options.summarize_when_dropped.end()) {
                value_notes[std::string(name)] = values_note(s, static_cast<std::size_t>(at - s.header.begin()));
            }
            remove_column(s, static_cast<std::size_t>(at - s.header.begin()));
            widths = fitted_widths(s, *options.max_width, options.asked_columns);
        }
        for (std::size_t c = widths.size(); c < s.header.size(); ++c) dropped.push_back(s.header[c]);
    }
    const std::size_t kept = widths.size();
    // Where each cut column is split, so that its values stay told apart.
    std::vector<std::optional<std::size_t>> heads(kept);
    for (std::size_t c = 0; c < kept; ++c) {
        bool cut = std::any_of(s.cells.begin(), s.cells.end(),
                               [&](const auto& line) { return c < line.size() && display_width(line[c]) > widths[c]; });
        if (cut && !s.numeric[c]) heads[c] = distinct_split(distinct_values(s, c), widths[c]);
    }
    auto pad = [](std::string text, std::size_t width, bool right) {
        std::size_t w = display_width(text);
        std::string fill(width > w ? width - w : 0, ' ');
        return right ? fill + text : text + fill;
    };
    auto end_line = [](std::string& out) {
        while (!out.empty() && out.back() == ' ') out.pop_back();  // no trailing spaces
        out += '\n';
    };
    // Second pass: print.
    std::string out;
    for (std::size_t c = 0; c < kept; ++c) {
        if (c) out += "  ";
        out += pad(truncate_to(s.header[c], widths[c]), widths[c], s.numeric[c]);
    }
    end_line(out);
    for (std::size_t c = 0; c < kept; ++c) {
        if (c) out += "  ";
        out += std::string(widths[c], '-');
    }
    out += '\n';
    for (const auto& line : s.cells) {
        next_row(options, out.size());
        for (std::size_t c = 0; c < line.size() && c < kept; ++c) {
            if (c) out += "  ";
            out += pad(cut_middle(line[c], widths[c], heads[c]), widths[c], s.numeric[c]);
        }
        end_line(out);
    }
    out += rows_footer(t.rows.size());
    for (auto name : options.summarize_when_dropped) {
        if (auto note = value_notes.find(std::string(name)); note != value_notes.end())
            alike_notes.push_back(note->second);
    }
    for (const auto& note : alike_notes) out += wrap_text(note, *options.max_width, 2) + "\n";
    if (!dropped.empty() && !options.drop_order.empty()) {
        std::string names;
        for (const auto& d : dropped) names += (names.empty() ? "" : ", ") + d;
        out += wrap_text(fmt::format("+{} column{} left out to fit the window, in this order: {} ({})", dropped.size(),
                                     dropped.size() == 1 ? "" : "s", names, options.more_columns_hint),
                         *options.max_width, 2) +
               "\n";
    } else if (!dropped.empty()) {
        out += fmt::format("+{} column{}: {}\n", dropped.size(), dropped.size() == 1 ? "" : "s",
                           options.more_columns_hint);
    }
    return out;
}

/// One block per row, one line per field, as psql's expanded mode: for rows too wide to
/// read across. Values are never cut; a value over several lines continues under itself.
std::string render_vertical(const Table& t, const RenderOptions& options) {
    std::size_t name_width = 0;
    for (const auto& c : t.columns) name_width = std::max(name_width, display_width(c));
    std::string out;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        next_row(options, out.size());
        std::string title = fmt::format("-[ row {} ]", r + 1);
        out += title + std::string(name_width + 3 > title.size() ? name_width + 3 - title.size() : 0, '-') + "\n";
        const auto& row = t.rows[r];
        for (std::size_t c = 0; c < row.size() && c < t.columns.size(); ++c) {
            std::string value = options.readable ? readable_text(row[c], unit_of(options, t.columns[c]), true)
                                                 : (std::holds_alternative<std::monostate>(row[c]) ? std::string("-")
                                                                                                   : cell_text(row[c]));
            std::string name = options.readable ? escape_for_terminal(t.columns[c]) : t.columns[c];
            name += std::string(name_width > display_width(name) ? name_width - display_width(name) : 0, ' ');
            std::size_t start = 0;
            bool first = true;
            while (true) {
                std::size_t nl = value.find('\n', start);
                std::string part = value.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
                if (!part.empty() && part.back() == '\r') part.pop_back();
                if (options.readable) part = escape_for_terminal(part);
                std::string line = (first ? name : std::string(name_width, ' ')) + " | " + part;
                while (!line.empty() && line.back() == ' ') line.pop_back();
                out += line + "\n";
                first = false;
                if (nl == std::string::npos) break;
                start = nl + 1;
            }
        }
    }
    out += rows_footer(t.rows.size());
    return out;
}

/// A single row wider than the window reads better down than across.
bool wants_vertical(const Table& t, const RenderOptions& options) {
    if (!options.max_width || t.rows.size() != 1) return false;
    Shaped s = shape(t, options);
    return natural_width(measure(s)) > *options.max_width;
}

}  // namespace

std::optional<TableFormat> parse_table_format(std::string_view name) {
    for (std::size_t i = 0; i < kTableFormats.size(); ++i) {
        if (kTableFormats[i] == name) return static_cast<TableFormat>(i);
    }
    return std::nullopt;
}

std::span<const std::string_view> table_format_names() {
    return kTableFormats;
}

std::string human_bytes(double bytes) {
    static constexpr std::array<std::string_view, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!std::isfinite(bytes)) return fmt::format("{}", bytes);
    std::size_t unit = 0;
    double v = bytes;
    while (std::fabs(v) >= 1024 && unit + 1 < kUnits.size()) {
        v /= 1024;
        ++unit;
    }
    return fmt::format("{:.4g} {}", v, kUnits[unit]);
}

std::string cell_text(const Cell& cell) {
    if (std::holds_alternative<std::monostate>(cell)) return "";
    if (auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
    return std::get<std::string>(cell);
}

std::string formula_guarded(std::string text) {
    if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos) {
        text.insert(text.begin(), '\'');
    }
    return text;
}

namespace {

std::string render_any(const Table& t, TableFormat format, const RenderOptions& options) {
    switch (format) {
        case TableFormat::table:
            return wants_vertical(t, options) ? render_vertical(t, options) : render_aligned(t, options);
        case TableFormat::vertical:
            return render_vertical(t, options);
        case TableFormat::csv:
        case TableFormat::tsv: {
            char sep = format == TableFormat::csv ? ',' : '\t';
            const char* eol = format == TableFormat::csv ? "\r\n" : "\n";  // RFC 4180 uses CRLF
            std::string out;
            auto text_of = [&](const std::string& text) {
                return csv_field(options.formula_guard ? formula_guarded(text) : text, sep);
            };
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                if (c) out += sep;
                out += text_of(t.columns[c]);
            }
            out += eol;
            for (const auto& row : t.rows) {
                next_row(options, out.size());
                for (std::size_t c = 0; c < row.size(); ++c) {
                    if (c) out += sep;
                    out += std::holds_alternative<std::string>(row[c]) ? text_of(std::get<std::string>(row[c]))
                                                                       : csv_field(cell_text(row[c]), sep);
                }
                out += eol;
            }
            return out;
        }
        case TableFormat::json:
        case TableFormat::ndjson: {
            // ordered_json keeps the columns in the order the query asked for them. The array is
            // written a row at a time, as nlohmann's dump(2) would write it: "[", each object
            // indented by two spaces, "," between them, "]" ("[]" when empty).
            std::string out = format == TableFormat::json ? (t.rows.empty() ? "[]" : "[\n") : "";
            for (std::size_t r = 0; r < t.rows.size(); ++r) {
                next_row(options, out.size());
                const auto& row = t.rows[r];
                nlohmann::ordered_json object = nlohmann::ordered_json::object();
                for (std::size_t c = 0; c < row.size(); ++c) object[t.columns[c]] = cell_json(row[c]);
                if (format == TableFormat::ndjson) {
                    out += object.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
                    continue;
                }
                std::string text = object.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
                out += "  ";
                for (char ch : text) {
                    out += ch;
                    if (ch == '\n') out += "  ";  // a string's line break is escaped: only the layout's breaks
                }
                out += r + 1 < t.rows.size() ? ",\n" : "\n]";
            }
            if (format == TableFormat::json) out += "\n";
            return out;
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
                next_row(options, out.size());
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

}  // namespace

std::string render_table(const Table& t, TableFormat format, const RenderOptions& options) {
    std::string out = render_any(t, format, options);
    if (options.max_bytes > 0 && out.size() > options.max_bytes) {  // the last row counts too
        throw RenderTooLarge(fmt::format("the answer is larger than the output limit of {} bytes", options.max_bytes));
    }
    return out;
}

}  // namespace kvcat
