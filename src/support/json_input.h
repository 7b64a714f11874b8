// JSON that a stranger wrote (a model's config.json, a benchmark result): what nlohmann-json
// accepts silently or reports in its own words, said as kvcat says things. A key repeated in
// one object is refused naming both places (the parser would keep the last one without a
// word), and a parse failure or a number past a double's range is told with its line and
// column in plain words, never the library's exception text.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvcat {

/// A problem with JSON input, at a 1-based line and column of the text.
class JsonInputError : public std::runtime_error {
  public:
    JsonInputError(int line, int column, const std::string& message)
        : std::runtime_error(message), line_(line), column_(column) {}
    int line() const { return line_; }
    int column() const { return column_; }

  private:
    int line_;
    int column_;
};

struct DuplicateKey {
    std::string key;
    int first_line = 0, first_column = 0;
    int second_line = 0, second_column = 0;
};

/// The first key that one object of `text` holds twice (compared after decoding escapes), in
/// one linear pass; nullopt when there is none. Text that is not JSON is passed over as well
/// as it can be: the parser reports it.
std::optional<DuplicateKey> first_duplicate_key(std::string_view text);

/// "the key 'k' appears twice in one object, at 3:5 and at 7:5; ..." for a DuplicateKey.
std::string duplicate_key_message(const DuplicateKey& d);

/// `text` with Python's NaN, Infinity and -Infinity outside strings (json.dumps writes them; JSON
/// has no such numbers) turned into the JSON strings "NaN", "Infinity" and "-Infinity", so that a
/// field that must be a number says it is not one rather than reading as absent. `rewrote` says
/// whether any was.
std::string python_floats_as_strings(std::string_view text, bool& rewrote);

/// The line and column of byte `offset` of `text`.
std::pair<int, int> json_line_column(std::string_view text, std::size_t offset);

/// The most values (array items, object members and containers) and the deepest nesting
/// parse_json_input reads: a model's config.json holds a few hundred values and a benchmark
/// result some thousands, and the parser keeps every value as a tree node of tens of bytes, so
/// a file within the read limit but made of empty arrays would otherwise take gigabytes.
inline constexpr std::size_t kJsonMaxValues = 1'000'000;
inline constexpr std::size_t kJsonMaxDepth = 100;

/// Parses `text` with `parse` (a function calling nlohmann's parser on it, or on a rewriting
/// of it that keeps its length and positions), then refuses a duplicate key. Text past
/// kJsonMaxValues or kJsonMaxDepth is refused before it is parsed. Every failure is a
/// JsonInputError in kvcat's words.
nlohmann::json parse_json_input(std::string_view text,
                                const std::function<nlohmann::json(std::string_view)>& parse = {});

}  // namespace kvcat
