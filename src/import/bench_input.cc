#include "import/bench_input.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "support/hidden_text.h"
#include "support/json_input.h"

namespace kvcat::bench {

namespace {

/// Arrays and objects nested deeper than this are refused before parsing: a benchmark result
/// nests three levels (an array of results, a result, its samples), and the JSON parser
/// recurses once per level, so a file of a million '[' would exhaust the stack.
constexpr int kMaxJsonDepth = 64;

/// Calls `on_bracket(offset, c, depth)` for each bracket of JSON text outside its strings,
/// `depth` being the nesting before an opening bracket or after a closing one.
template <typename OnBracket>
void each_bracket(std::string_view text, OnBracket on_bracket) {
    int depth = 0;
    bool in_string = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            on_bracket(i, c, depth);
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
            on_bracket(i, c, depth);
        }
    }
}

}  // namespace

std::pair<int, int> line_column(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return {line, static_cast<int>(offset - line_start) + 1};
}

[[noreturn]] void fail(const std::string& file, int line, int column, const std::string& what) {
    throw BenchError(fmt::format("{}:{}:{}: {}", file, line, column, what));
}

[[noreturn]] void fail_at(const std::string& file, const std::string& text, std::size_t offset,
                          const std::string& what) {
    auto [line, column] = line_column(text, offset);
    fail(file, line, column, what);
}

/// Fails at the first bracket past kMaxJsonDepth levels.
void check_depth(const std::string& file, const std::string& text) {
    each_bracket(text, [&](std::size_t i, char c, int depth) {
        if ((c == '[' || c == '{') && depth + 1 > kMaxJsonDepth) {
            fail_at(file, text, i,
                    fmt::format("nested deeper than {} levels; a benchmark result nests three", kMaxJsonDepth));
        }
    });
}

/// Where each object of a top-level JSON array starts (offsets of its '{').
std::vector<std::size_t> array_object_offsets(const std::string& text) {
    std::vector<std::size_t> out;
    each_bracket(text, [&](std::size_t i, char c, int depth) {
        if (c == '{' && depth == 1) out.push_back(i);
    });
    return out;
}

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return "";
    auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

std::string where(const std::string& file, const Entry& e) {
    return fmt::format("{}:{}:{}", file, e.line, e.column);
}

/// A field as printed in a message: strings without quotes.
std::string shown(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

/// A whole number field, or nullopt when absent; an error when present and not a whole number.
std::optional<std::int64_t> whole(const std::string& file, const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number_unsigned() &&
        it->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(file, e.line, e.column,
             fmt::format("entry {}: '{}' is {}, past the largest whole number kvcat keeps (2^63 - 1)", e.index, key,
                         it->get<std::uint64_t>()));
    }
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_number_float()) {
        double d = it->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
    }
    fail(file, e.line, e.column,
         fmt::format("entry {}: '{}' must be a whole number, found {}", e.index, key, shown(*it)));
}

/// A number field, or nullopt when absent; an error when present and not a finite number.
std::optional<double> number(const std::string& file, const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    if (it->is_number() && std::isfinite(it->get<double>())) return it->get<double>();
    fail(file, e.line, e.column, fmt::format("entry {}: '{}' must be a number, found {}", e.index, key, shown(*it)));
}

std::optional<std::string> text_field(const Entry& e, const char* key) {
    auto it = e.value.find(key);
    if (it == e.value.end() || it->is_null()) return std::nullopt;
    return shown(*it);
}

/// A speed must be a positive number to be a measurement.
double positive(const std::string& file, const Entry& e, const char* key, double v) {
    if (!(v > 0)) {
        fail(file, e.line, e.column, fmt::format("entry {}: '{}' is {}, not a speed above zero", e.index, key, v));
    }
    return v;
}

/// 1000 / a per-token latency in ms, to 0.01 token/s, or an error when that rounds to zero.
double speed_of_latency(const std::string& where, const std::string& name, double ms) {
    double tps = std::round(100000.0 / ms) / 100.0;
    if (!std::isfinite(tps)) {
        throw BenchError(fmt::format("{}: {} is {} ms a token, too short to be a decode speed", where, name, ms));
    }
    if (!(tps > 0)) {
        throw BenchError(
            fmt::format("{}: {} is {} ms a token, a decode speed of 0.00 tokens/s at two decimals: no "
                        "speed kvcat can record",
                        where, name, ms));
    }
    return tps;
}

/// A mean count of requests in flight as a whole number of at least one.
std::int64_t whole_concurrency(double mean) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(std::min(mean, 1e15))));
}

namespace {

void sort_points(BenchRun& run) {
    std::stable_sort(run.points.begin(), run.points.end(), [](const MeasurementPoint& a, const MeasurementPoint& b) {
        return std::tie(a.context_length, a.concurrency) < std::tie(b.context_length, b.concurrency);
    });
}

}  // namespace

BenchRun sorted(BenchRun run) {
    sort_points(run);
    return run;
}

std::vector<JsonLine> json_lines(std::vector<Entry>& entries) {
    std::vector<JsonLine> lines;
    for (auto& e : entries) lines.push_back(JsonLine{std::move(e.value), e.line});
    return lines;
}

BenchInput::BenchInput(const std::string& file_name, const std::string& file_text, const BenchOptions& given)
    : file(file_name), text(file_text), options(given), body(trim(file_text)) {
    if (body.empty()) fail(file, 1, 1, "is empty: expected llama-bench JSON or JSONL, a vLLM result or a CSV");
    start = text.find(body.front());
    if (body.front() == '[' || body.front() == '{') check_depth(file, text);
    if (body.front() == '{') read_document();
}

std::vector<Entry>& BenchInput::lines() {
    if (!lines_read_) read_lines();
    return lines_;
}

void BenchInput::read_document() {
    try {
        document = parse_json_input(text);
    } catch (const JsonInputError& e) {
        // Read line by line then, where a bad line is named; a repeated key is the same
        // mistake either way, and named here.
        if (std::string_view(e.what()).find("appears twice") != std::string_view::npos) {
            fail(file, e.line(), e.column(), e.what());
        }
    }
}

void BenchInput::read_lines() {
    lines_read_ = true;
    std::istringstream in(text);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (trim(line).empty()) continue;
        if (auto d = first_duplicate_key(line)) {
            fail(file, line_no, d->second_column,
                 fmt::format("the key \"{}\" appears twice in this line's object, at columns {} and {}; a reader "
                             "would keep one and drop the other without a word: remove one",
                             escape_for_terminal(d->key), d->first_column, d->second_column));
        }
        try {
            lines_.push_back(Entry{parse_json_input(line), line_no, 1, lines_.size() + 1});
        } catch (const JsonInputError& e) {
            // Python's json writes an unbounded request rate as the bare word Infinity.
            if (auto python = parse_python_json_line(line); python && is_sglang_serving_line(*python)) {
                lines_.push_back(Entry{std::move(*python), line_no, 1, lines_.size() + 1});
                continue;
            }
            fail(file, line_no, e.column(),
                 fmt::format("not a JSON object on this line (JSONL holds one result a line): {}", e.what()));
        }
    }
}

}  // namespace kvcat::bench
