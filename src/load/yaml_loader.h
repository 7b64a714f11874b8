// YAML text to a tree of positioned values.
//
// Records are untrusted input, so the loader is built on yaml-cpp's event parser
// rather than its Node API: every value keeps the byte offset, line and column it
// came from; a duplicate key (which yaml-cpp would accept, first value winning) is
// a finding that names both lines; anchors and aliases are refused, so a nested
// alias bomb costs nothing; nesting depth and file size are bounded; a plain
// scalar is kept apart from a quoted one, so "null" and null are not confused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/diagnostic.h"

namespace kvcat {

/// Where a value starts. line and column are 1-based; column counts characters.
struct Mark {
    std::size_t offset = 0;
    int line = 0;
    int column = 0;
    friend bool operator==(const Mark&, const Mark&) = default;
};

struct YamlNode {
    // A user-provided constructor: clang 14's libstdc++ checks on a vector of pairs of an
    // incomplete YamlNode reject the implicit one.
    YamlNode() {}

    enum class Kind { null, scalar, sequence, mapping };
    Kind kind = Kind::null;
    Mark mark;
    std::string value;                                   ///< scalar text
    bool quoted = false;                                 ///< a quoted or block scalar: always a string
    std::vector<YamlNode> items;                         ///< sequence items
    std::vector<std::pair<YamlNode, YamlNode>> entries;  ///< mapping: key, value

    bool is_null() const { return kind == Kind::null; }
    bool is_scalar() const { return kind == Kind::scalar; }
    bool is_mapping() const { return kind == Kind::mapping; }
    bool is_sequence() const { return kind == Kind::sequence; }
    /// The value for a mapping key, or nullptr.
    const YamlNode* find(std::string_view key) const;
    /// "a string", "a number", "a list", "a mapping", "null": for messages.
    std::string describe() const;
    /// Same kind, mark, value and children, all the way down.
    friend bool operator==(const YamlNode&, const YamlNode&) = default;
};

/// A record file's size and modification time.
struct FileStamp {
    std::int64_t size = 0;
    std::int64_t mtime_ns = 0;
    friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

/// The text of one file, with a line index to turn byte offsets into positions.
class SourceText {
  public:
    SourceText() = default;
    SourceText(std::string file, std::string text);
    const std::string& file() const { return file_; }
    const std::string& text() const { return text_; }
    /// Fingerprint of the file's bytes as read (before line ends were normalised).
    std::uint64_t content_hash() const { return content_hash_; }
    void set_content_hash(std::uint64_t hash) { content_hash_ = hash; }
    /// The file's size and modification time, taken from the open file before it was read
    /// (so a later edit never hides behind them); nullopt for text that came from no file.
    const std::optional<FileStamp>& stamp() const { return stamp_; }
    void set_stamp(FileStamp stamp) { stamp_ = stamp; }
    /// 1-based line and character column of a byte offset.
    Mark mark_at(std::size_t offset) const;
    Position position(std::size_t offset) const;
    Position position(const Mark& mark) const { return Position{file_, mark.line, mark.column}; }

  private:
    std::string file_;
    std::string text_;
    std::vector<std::size_t> line_starts_;
    /// On lines longer than kCheckpointEvery bytes, the column at every kCheckpointEvery-th
    /// byte, so that a position on a megabyte-long line counts a few kilobytes, not the line.
    std::vector<std::pair<std::size_t, int>> checkpoints_;
    static constexpr std::size_t kCheckpointEvery = 4096;
    std::uint64_t content_hash_ = 0;
    std::optional<FileStamp> stamp_;
};

struct LoadLimits {
    std::size_t max_bytes = 1 << 20;
    int max_depth = 32;
    /// Read the plainest scalars outside yaml-cpp (scalar_lift.h); the tree and the findings
    /// are the same either way, which tests and the loader's fuzz target check by loading
    /// with this off. Not a limit, but it travels with them to every load.
    bool lift_scalars = true;
};

struct LoadedYaml {
    std::shared_ptr<const SourceText> source;
    std::optional<YamlNode> root;  ///< empty when the file could not be parsed
    std::vector<Diagnostic> diagnostics;
};

/// Parses one record file's text. Never throws for bad input: every problem is a diagnostic.
LoadedYaml load_yaml(const std::string& file_label, std::string text, const LoadLimits& limits = {});

/// load_yaml for text read from a file with this size and modification time.
LoadedYaml load_yaml_stamped(const std::string& file_label, std::string text, const LoadLimits& limits,
                             std::optional<FileStamp> stamp);

/// Reads then parses; an unreadable file is a diagnostic too.
LoadedYaml load_yaml_file(const std::string& path, const std::string& file_label, const LoadLimits& limits = {});

}  // namespace kvcat
