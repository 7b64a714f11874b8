#include "engines/log_reading.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace kvcat {

namespace {

/// A number as the engine printed it ("1,048,576" with vLLM's thousands separators), read whole
/// or not at all: what is wrong with it, or "" and the value in `value`.
std::string read_whole(const std::string& text, std::int64_t& value) {
    std::string digits;
    for (char c : text) {
        if (c != ',') digits += c;
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) return fmt::format("{} is beyond 2^63 - 1", text);
    if (ec != std::errc{} || end != digits.data() + digits.size())
        return fmt::format("'{}' is not a whole number", text);
    return "";
}

/// A printed size or ratio ("512.00", or "512,00" where the engine ran under a locale with a
/// decimal comma): digits, then at most one decimal separator followed by digits. The figure as a
/// record keeps it (with a point), or "" when the text is not one.
std::string printed_decimal(const std::string& text) {
    std::string out = text;
    std::size_t sep = out.find_first_of(".,");
    if (sep != std::string::npos) out[sep] = '.';
    bool digits_before = sep != 0, digits_after = sep == std::string::npos || sep + 1 < out.size();
    bool only_digits = std::all_of(out.begin(), out.end(), [&](char c) { return (c >= '0' && c <= '9') || c == '.'; });
    if (out.empty() || !digits_before || !digits_after || !only_digits || std::count(out.begin(), out.end(), '.') > 1) {
        return "";
    }
    return out;
}

}  // namespace

std::string trim_line(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t start = s.find_first_not_of(" \t");
    return start == std::string::npos ? "" : s.substr(start);
}

std::string either_group(const std::smatch& m, int a, int b) {
    if (m[a].matched) return m[a].str();
    if (b >= 0 && m[b].matched) return m[b].str();
    return "";
}

std::string yaml_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

void yaml_optional(std::string& t, const char* key, const std::optional<std::int64_t>& v, const char* indent) {
    if (v) t += fmt::format("{}{}: {}\n", indent, key, *v);
}

void yaml_optional(std::string& t, const char* key, const std::string& v, const char* indent) {
    if (!v.empty()) t += fmt::format("{}{}: {}\n", indent, key, v);
}

void LogCursor::fail(const std::string& shown, const std::string& why) const {
    throw LogError(
        fmt::format("{}:{}: {}: '{}'", file, n, why, shown.size() > 200 ? shown.substr(0, 200) + "..." : shown));
}

void LogCursor::fail_twice(const std::string& key, int first) const {
    fail(line, fmt::format("a second {} figure, where line {} gave another: the log holds more than one start; give "
                           "the lines of one",
                           key, first));
}

std::int64_t LogCursor::whole(const std::string& printed, const char* what) const {
    std::int64_t value = 0;
    std::string wrong = read_whole(printed, value);
    if (!wrong.empty()) fail(line, fmt::format("the {} figure {}", what, wrong));
    return value;
}

std::int64_t LogCursor::count(const std::string& printed, const char* what) const {
    std::int64_t value = whole(printed, what);
    if (value < 1) fail(line, fmt::format("{} {}, where an engine prints at least 1", printed, what));
    return value;
}

std::string LogCursor::decimal(const std::string& printed, const char* what) const {
    std::string read = printed_decimal(printed);
    if (read.empty()) fail(line, fmt::format("the {} '{}' is not a number", what, printed));
    return read;
}

bool LogCursor::search(std::smatch& found, const LogPattern& re,
                       std::initializer_list<std::string_view> needles) const {
    bool any = std::any_of(needles.begin(), needles.end(),
                           [&](std::string_view needle) { return line.find(needle) != std::string::npos; });
    return any && std::regex_search(line, found, re.get());
}

std::optional<std::size_t> LogCursor::position(const LogPattern& re,
                                               std::initializer_list<std::string_view> needles) const {
    std::smatch m;
    if (!search(m, re, needles)) return std::nullopt;
    return static_cast<std::size_t>(m.position(0));
}

}  // namespace kvcat
