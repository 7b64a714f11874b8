// What every engine's log reader (engines/<engine>/<engine>_log.cc) reads a start-up log with:
// the cursor that names the file and line of every failure and checks each figure it reads, and
// the interface a reader gives engine_log.cc's loop, which hands it every line.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "engines/engine_log.h"
#include "engines/log_pattern.h"

namespace kvcat {

/// The line without the blanks and carriage return around it.
std::string trim_line(std::string s);

/// The first of the two sub-matches that matched (a pattern with two spellings), or "".
std::string either_group(const std::smatch& m, int a, int b = -1);

/// "\"text\"", with quotes and backslashes escaped, for a record's YAML.
std::string yaml_quoted(const std::string& s);
/// "  key: value\n" when the value was given.
void yaml_optional(std::string& t, const char* key, const std::optional<std::int64_t>& v, const char* indent = "  ");
void yaml_optional(std::string& t, const char* key, const std::string& v, const char* indent = "  ");

/// Where the reader is in the log, and the checks each figure read there goes through; every
/// failure names the file and line.
struct LogCursor {
    const std::string& file;
    int n = 0;
    std::string line;  ///< the line being read, trimmed and without colour
    std::map<std::string, int> first_line;

    [[noreturn]] void fail(const std::string& shown, const std::string& why) const;
    std::int64_t whole(const std::string& printed, const char* what) const;
    /// A count an engine prints (cells, layers, tokens, ...) is at least one: no engine
    /// allocates for none, and a record holding 0 would not lint.
    std::int64_t count(const std::string& printed, const char* what) const;
    /// A printed size or ratio, with a decimal point or an engine's locale's decimal comma, as a
    /// record keeps it (with a point).
    std::string decimal(const std::string& printed, const char* what) const;
    /// A figure given twice with two values: two starts in one log (a restart, two runs pasted
    /// together). Which one the record should hold is not for kvcat to guess.
    template <typename Field, typename Value>
    void once(const std::string& key, Field& field, const Value& value) {
        auto [it, fresh] = first_line.emplace(key, n);
        if (!fresh && field != value) fail_twice(key, it->second);
        field = value;
    }
    /// Most lines of a log hold none of what is read: a regex is tried on a line only when the
    /// line holds a word it needs, which keeps a 16 MiB log to a second rather than to a quarter
    /// minute.
    bool search(std::smatch& found, const LogPattern& re, std::initializer_list<std::string_view> needles) const;

    /// Where in the line `re` first matches (tried as search() tries it), if it does.
    std::optional<std::size_t> position(const LogPattern& re, std::initializer_list<std::string_view> needles) const;

  private:
    [[noreturn]] void fail_twice(const std::string& key, int first) const;
};

/// One engine family's reading of a log. engine_log.cc's loop hands every line to each family's
/// reader in the order of engines/engine_list.h, first for its settings, then, where a line
/// carries an allocation figure, for the figure; the family whose lines were seen is the
/// engine the log is filed under.
class LogReader {
  public:
    LogReader() = default;
    LogReader(const LogReader&) = delete;
    LogReader& operator=(const LogReader&) = delete;
    virtual ~LogReader() = default;

    /// Reads the settings `cur.line` shows; true when the line is wholly this engine's and no
    /// other reading of it is to be made.
    virtual bool read_settings(LogCursor& cur, ParsedLog& out) = 0;
    /// Where in `line` an allocation figure of this engine starts, if it holds one (a line
    /// holding one must then read in full, or the import stops at it).
    virtual std::optional<std::size_t> figure_start(const LogCursor& cur) const = 0;
    /// Reads `figure` (the line from the earliest figure on); false when it is not this engine's.
    virtual bool read_figure(LogCursor& cur, const std::string& figure, ParsedLog& out) = 0;
    /// Checks once the whole log of this engine is read, and what is kept only then.
    virtual void finish(const std::string& file, LogText kind, ParsedLog& out) const = 0;

    /// A line only this engine prints was read.
    bool seen = false;
};

}  // namespace kvcat
