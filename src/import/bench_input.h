// A benchmark file as import-bench's readers see it (src/import/bench_*.cc, one file pair per
// format), and what they read its fields with: every failure names file:line:column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "import/bench_import.h"

namespace kvcat::bench {

using nlohmann::json;

/// 1-based line and column of a byte offset in `text`.
std::pair<int, int> line_column(const std::string& text, std::size_t offset);
[[noreturn]] void fail(const std::string& file, int line, int column, const std::string& what);
[[noreturn]] void fail_at(const std::string& file, const std::string& text, std::size_t offset,
                          const std::string& what);
/// Fails at the first bracket nested past the depth a benchmark result needs.
void check_depth(const std::string& file, const std::string& text);
/// Where each object of a top-level JSON array starts (offsets of its '{').
std::vector<std::size_t> array_object_offsets(const std::string& text);
/// The text without the blanks and line ends around it.
std::string trim(std::string_view s);

/// One benchmark entry with where it starts, for messages.
struct Entry {
    json value;
    int line = 0;
    int column = 0;
    std::size_t index = 0;  ///< 1-based
};

/// One JSONL line of a benchmark file, with its line number.
struct JsonLine {
    json value;
    int line = 0;
};

/// "file:line:column" of an entry.
std::string where(const std::string& file, const Entry& e);
/// A field as printed in a message: strings without quotes.
std::string shown(const json& v);
/// A whole number field, or nullopt when absent; an error when present and not a whole number.
std::optional<std::int64_t> whole(const std::string& file, const Entry& e, const char* key);
/// A number field, or nullopt when absent; an error when present and not a finite number.
std::optional<double> number(const std::string& file, const Entry& e, const char* key);
std::optional<std::string> text_field(const Entry& e, const char* key);
/// A speed must be a positive number to be a measurement.
double positive(const std::string& file, const Entry& e, const char* key, double v);

/// 1000 / a per-token latency in ms, to 0.01 token/s, or an error when that rounds to zero.
double speed_of_latency(const std::string& where, const std::string& name, double ms);
/// A mean count of requests in flight as a whole number of at least one.
std::int64_t whole_concurrency(double mean);

/// The run's points in order of context, then concurrency.
BenchRun sorted(BenchRun run);
/// JSONL entries as lines, moved out of `entries`.
std::vector<JsonLine> json_lines(std::vector<Entry>& entries);

/// A JSONL line parsed with Python's bare Infinity, -Infinity and NaN read as the strings
/// "Infinity", "-Infinity" and "NaN"; nullopt when it is not JSON even so.
std::optional<json> parse_python_json_line(std::string_view line);
/// True when the object is one line of SGLang bench_serving output (whose Python writer may
/// write Infinity, which lines() reads there).
bool is_sglang_serving_line(const json& j);

/// A benchmark file as the readers see it: its text, read once, and parsed as each reader asks.
class BenchInput {
  public:
    BenchInput(const std::string& file_name, const std::string& file_text, const BenchOptions& given);

    const std::string& file;
    const std::string& text;
    const BenchOptions& options;
    std::string body;              ///< the text without the white space around it
    std::size_t start = 0;         ///< where its first character is
    std::optional<json> document;  ///< the file as one JSON object, when it is one

    /// The file as JSONL, one object a line, read on the first call: a line that is not JSON
    /// fails there, naming its line.
    std::vector<Entry>& lines();

  private:
    void read_document();
    void read_lines();

    bool lines_read_ = false;
    std::vector<Entry> lines_;
};

}  // namespace kvcat::bench
