#include "load/yaml_loader.h"

#include "load/load_findings.h"
#include "load/scalar_lift.h"
#include "support/bounded_read.h"
#include "support/content_hash.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
#include <optional>
#include <streambuf>
#include <system_error>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace kvcat {

const YamlNode* YamlNode::find(std::string_view key) const {
    for (const auto& [k, v] : entries) {
        if (k.value == key) {
            return &v;
        }
    }
    return nullptr;
}

std::string YamlNode::describe() const {
    switch (kind) {
        case Kind::null:
            return "null";
        case Kind::sequence:
            return "a list";
        case Kind::mapping:
            return "a mapping";
        case Kind::scalar:
            break;
    }
    // One line, and short: a finding is one line of output whatever the value holds.
    std::string shown = value.substr(0, value.find('\n'));
    if (shown.size() > 60) shown = shown.substr(0, 57);
    if (shown.size() < value.size()) shown += "...";
    return quoted ? fmt::format("the string \"{}\"", shown) : fmt::format("'{}'", shown);
}

SourceText::SourceText(std::string file, std::string text) : file_(std::move(file)), text_(std::move(text)) {
    auto lines = static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n'));
    line_starts_.reserve(lines + 1);
    line_starts_.push_back(0);
    for (std::size_t i = text_.find('\n'); i != std::string::npos; i = text_.find('\n', i + 1)) {
        line_starts_.push_back(i + 1);
    }
    for (std::size_t l = 0; l < line_starts_.size(); ++l) {
        std::size_t start = line_starts_[l];
        std::size_t end = l + 1 < line_starts_.size() ? line_starts_[l + 1] : text_.size();
        if (end - start <= kCheckpointEvery) continue;
        int column = 1;
        for (std::size_t i = start; i < end; ++i) {
            if (i > start && (i - start) % kCheckpointEvery == 0) checkpoints_.emplace_back(i, column);
            if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
        }
    }
}

Mark SourceText::mark_at(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
    std::size_t start = line_starts_[line_index];
    int column = 1;
    // The last checkpoint at or before the offset, when it lies on this line.
    auto cp = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), offset,
                               [](std::size_t o, const std::pair<std::size_t, int>& c) { return o < c.first; });
    if (cp != checkpoints_.begin() && std::prev(cp)->first > start) {
        start = std::prev(cp)->first;
        column = std::prev(cp)->second;
    }
    for (std::size_t i = start; i < offset; ++i) {
        // Count characters, not bytes: skip UTF-8 continuation bytes.
        if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) {
            ++column;
        }
    }
    return Mark{offset, static_cast<int>(line_index) + 1, column};
}

Position SourceText::position(std::size_t offset) const {
    return position(mark_at(offset));
}

namespace {

/// The first character of a scalar's value that has no business in a record: a C0 control
/// other than tab and line feed, DEL, a C1 control, or a bidirectional override or isolate.
/// Raw bytes like these are rare; escapes ("\e", "\0", "\u202E") put them in just as well,
/// and a value that reaches a terminal or a catalog must not carry them. Returns the code point.
std::optional<std::uint32_t> first_control_character(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return c;
        if (c == 0xC2 && i + 1 < s.size()) {
            auto next = static_cast<unsigned char>(s[i + 1]);
            if (next >= 0x80 && next <= 0x9F) return next;  // U+0080..U+009F
        }
        if (c == 0xE2 && i + 2 < s.size()) {
            auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
            std::uint32_t cp = 0x2000u | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
            if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return cp;
        }
    }
    return std::nullopt;
}

/// An input stream over text that is already in memory: yaml-cpp reads a std::istream,
/// and an istringstream would copy the whole file first.
class TextBuffer : public std::streambuf {
  public:
    explicit TextBuffer(const std::string& text) {
        char* begin = const_cast<char*>(text.data());  // get area only: never written through
        setg(begin, begin, begin + text.size());
    }
};

/// Thrown inside the event handler to stop parsing at a limit.
struct AbortParse {
    Diagnostic diagnostic;
};

/// Thrown when yaml-cpp does not read a lifted scalar's place as lift_scalars did: the
/// lifted parse is dropped and the whole text parsed instead.
struct LiftMismatch {};

class TreeBuilder : public YAML::EventHandler {
  public:
    /// `lift`: the scalars taken out of the text yaml-cpp reads, or nullptr.
    TreeBuilder(const SourceText& source, const LoadLimits& limits, std::vector<Diagnostic>& out, LiftedText* lift)
        : source_(source), limits_(limits), out_(out), lift_(lift) {}

    std::optional<YamlNode> take_root() { return std::move(root_); }

    /// Every lifted scalar came back from yaml-cpp where it was taken out.
    bool lifted_all() const { return lift_ == nullptr || next_lifted_ == lift_->scalars.size(); }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        check_anchor(mark, anchor);
        YamlNode node;
        node.kind = YamlNode::Kind::null;
        node.mark = to_mark(mark);
        attach(std::move(node));
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        report_anchor(mark);
        YamlNode node;
        node.mark = to_mark(mark);
        attach(std::move(node));
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        check_anchor(mark, anchor);
        check_tag(mark, tag);
        YamlNode node;
        node.kind = YamlNode::Kind::scalar;
        node.mark = to_mark(mark);
        node.value = value;
        if (lift_ != nullptr && next_lifted_ < lift_->scalars.size() &&
            node.mark.offset == lift_->scalars[next_lifted_].offset) {
            // yaml-cpp must have read what lift_scalars left in its place: a block scalar's
            // header alone (an empty "!" scalar), a plain "x" or a quoted one. Anything else,
            // and the text is not what lift_scalars took it for.
            LiftedScalar& lifted = lift_->scalars[next_lifted_++];
            const bool as_left = lifted.kind == LiftedScalar::Kind::block   ? tag == "!" && value.empty()
                                 : lifted.kind == LiftedScalar::Kind::plain ? tag == "?" && value == "x"
                                                                            : tag == "!" && value == "x";
            if (!as_left) throw LiftMismatch{};
            node.value = std::move(lifted.value);
        }
        // yaml-cpp tags a plain scalar "?" and a quoted or block scalar "!".
        // A refused tag (!!int, !!binary) is reported once; the value itself is read as written.
        node.quoted = tag == "!";
        check_closed_quote(node.mark);
        if (auto cp = first_control_character(node.value)) {
            bool is_key =
                !stack_.empty() && stack_.back().node.kind == YamlNode::Kind::mapping && !stack_.back().pending_key;
            out_.push_back(diag::encoding(
                source_.position(node.mark),
                fmt::format("the control character U+{:04X} in a {}; a record holds printable text (tabs and "
                            "line breaks excepted)",
                            *cp, is_key ? "key" : "value")));
        }
        attach(std::move(node));
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        check_tag(mark, tag);
        open(mark, anchor, YamlNode::Kind::sequence);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        check_tag(mark, tag);
        open(mark, anchor, YamlNode::Kind::mapping);
    }
    void OnMapEnd() override { close(); }

    void OnAnchor(const YAML::Mark& mark, const std::string&) override { report_anchor(mark); }

  private:
    struct Frame {
        YamlNode node;
        std::optional<YamlNode> pending_key;
        /// A big mapping's keys, each to its entry, so that a duplicate is found in constant
        /// time rather than by a walk of every key before it (built once it is worth it).
        std::unordered_map<std::string_view, std::size_t> index;
    };
    static constexpr std::size_t kIndexFrom = 16;

    /// The children of the open node at one depth, gathered here until it closes. Each depth
    /// keeps its lists' capacity from one node to the next.
    struct Scratch {
        std::vector<std::pair<YamlNode, YamlNode>> entries;
        std::vector<YamlNode> items;
    };

    Mark to_mark(const YAML::Mark& mark) const {
        if (mark.is_null() || mark.pos < 0) {
            return source_.mark_at(0);
        }
        auto pos = static_cast<std::size_t>(mark.pos);
        return source_.mark_at(lift_ != nullptr ? lift_->original_offset(pos) : pos);
    }

    /// yaml-cpp 0.7 reads an unterminated quoted scalar to the end of the file without
    /// complaint; a record with one would lose every key after it, so it is a syntax error.
    void check_closed_quote(const Mark& mark) {
        const std::string& t = source_.text();
        if (mark.offset >= t.size()) return;
        char quote = t[mark.offset];
        if (quote != '"' && quote != '\'') return;
        for (std::size_t i = mark.offset + 1; i < t.size(); ++i) {
            if (quote == '"' && t[i] == '\\') {
                ++i;
            } else if (t[i] == quote) {
                if (quote == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
                    ++i;  // '' is an escaped quote inside single quotes
                    continue;
                }
                return;
            }
        }
        throw AbortParse{diag::yaml_syntax(source_.position(mark), "a quoted string opened here is never closed")};
    }

    /// A tag (!!binary, !!int, !custom) gives a value a meaning other YAML readers honour
    /// and this one would not; records are refused them, as they are anchors.
    void check_tag(const YAML::Mark& mark, const std::string& tag) {
        if (tag.empty() || tag == "?" || tag == "!") return;
        out_.push_back(
            diag::yaml_syntax(source_.position(to_mark(mark)),
                              fmt::format("the YAML tag '{}' is not allowed in records; write the plain value", tag)));
    }

    void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
        if (anchor != YAML::NullAnchor) {
            report_anchor(mark);
        }
    }

    void report_anchor(const YAML::Mark& mark) {
        Mark m = to_mark(mark);
        if (m.offset == last_anchor_report_) return;
        last_anchor_report_ = m.offset;
        // A megabyte of "*a, *a, ..." is one mistake, not a quarter of a million findings.
        ++anchors_seen_;
        if (anchors_seen_ <= kAnchorReports) {
            out_.push_back(diag::alias(source_.position(m)));
        } else if (anchors_seen_ == kAnchorReports + 1) {
            Diagnostic more = diag::alias(source_.position(m));
            more.message =
                fmt::format("more anchors and aliases from here on; only the first {} are reported", kAnchorReports);
            out_.push_back(std::move(more));
        }
    }

    void open(const YAML::Mark& mark, YAML::anchor_t anchor, YamlNode::Kind kind) {
        check_anchor(mark, anchor);
        if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
            throw AbortParse{diag::too_deep(source_.position(to_mark(mark)), limits_.max_depth)};
        }
        Frame frame;
        frame.node.kind = kind;
        frame.node.mark = to_mark(mark);
        stack_.push_back(std::move(frame));
        if (scratch_.size() < stack_.size()) scratch_.resize(stack_.size());
    }

    void close() {
        YamlNode node = std::move(stack_.back().node);
        Scratch& children = scratch_[stack_.size() - 1];
        stack_.pop_back();
        // Moved into lists of their exact size: a record's tree is read once and kept, and the
        // doublings of a list grown in place were an eighth of the bytes a lint allocates.
        node.entries.reserve(children.entries.size());
        std::move(children.entries.begin(), children.entries.end(), std::back_inserter(node.entries));
        node.items.reserve(children.items.size());
        std::move(children.items.begin(), children.items.end(), std::back_inserter(node.items));
        children.entries.clear();
        children.items.clear();
        attach(std::move(node));
    }

    void attach(YamlNode node) {
        if (stack_.empty()) {
            root_ = std::move(node);
            return;
        }
        Frame& parent = stack_.back();
        Scratch& children = scratch_[stack_.size() - 1];
        if (parent.node.kind == YamlNode::Kind::sequence) {
            children.items.push_back(std::move(node));
            return;
        }
        if (!parent.pending_key) {
            if (node.kind != YamlNode::Kind::scalar) {
                out_.push_back(diag::yaml_syntax(source_.position(node.mark), "a mapping key must be a plain string"));
            }
            parent.pending_key = std::move(node);
            return;
        }
        YamlNode key = std::move(*parent.pending_key);
        parent.pending_key.reset();
        if (key.kind != YamlNode::Kind::scalar) return;  // reported as yaml-syntax when it arrived
        if (node.kind == YamlNode::Kind::null && node.mark.offset > key.mark.offset && node.mark.line > key.mark.line) {
            // yaml-cpp marks an empty value at the start of the next line; point at the key.
            node.mark = key.mark;
        }
        auto& entries = children.entries;
        const YamlNode* existing = nullptr;
        if (entries.size() < kIndexFrom) {
            for (const auto& [k, _] : entries) {
                if (k.kind == YamlNode::Kind::scalar && k.value == key.value) {
                    existing = &k;
                    break;
                }
            }
        } else {
            if (parent.index.empty()) {
                // Reserved up front: the views point into the keys, which stay where they
                // are only while the vector does not grow past its capacity (see below).
                for (std::size_t i = 0; i < entries.size(); ++i) parent.index.emplace(entries[i].first.value, i);
            }
            if (auto it = parent.index.find(key.value); it != parent.index.end()) existing = &entries[it->second].first;
        }
        if (existing) {
            out_.push_back(diag::duplicate_key(source_.position(key.mark), key.value, existing->mark.line));
            return;  // the first value stands, as in yaml-cpp, but never silently
        }
        const bool grows = entries.size() == entries.capacity();
        entries.emplace_back(std::move(key), std::move(node));
        if (!parent.index.empty() || entries.size() == kIndexFrom) {
            if (grows) {
                // The keys moved with the vector: the views are rebuilt (amortised, as the growth).
                parent.index.clear();
                for (std::size_t i = 0; i < entries.size(); ++i) parent.index.emplace(entries[i].first.value, i);
            } else {
                parent.index.emplace(entries.back().first.value, entries.size() - 1);
            }
        }
    }

    const SourceText& source_;
    const LoadLimits& limits_;
    std::vector<Diagnostic>& out_;
    LiftedText* lift_;
    std::size_t next_lifted_ = 0;
    std::vector<Frame> stack_;
    std::vector<Scratch> scratch_;  ///< by depth, beside stack_
    std::optional<YamlNode> root_;
    std::size_t last_anchor_report_ = static_cast<std::size_t>(-1);
    static constexpr int kAnchorReports = 20;
    int anchors_seen_ = 0;
};

/// Stops at the start of a further document: it is reported, never walked.
struct SecondDocument {
    YAML::Mark mark;
};

class NullHandler : public YAML::EventHandler {
  public:
    void OnDocumentStart(const YAML::Mark& mark) override { throw SecondDocument{mark}; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

/// The tree of the text with its plainest scalars lifted out, or nullopt when that parse
/// is not the whole text's to the letter: a lifted header yaml-cpp did not read as one, a
/// finding of any kind, a failure, a second document. The whole text is parsed then, so
/// every finding comes from the parse of the whole text.
std::optional<YamlNode> parse_lifted(const SourceText& source, LiftedText& lift, const LoadLimits& limits) {
    std::vector<Diagnostic> findings;
    TextBuffer buffer(lift.text);
    std::istream stream(&buffer);
    TreeBuilder builder(source, limits, findings, &lift);
    try {
        YAML::Parser parser(stream);
        if (!parser.HandleNextDocument(builder)) return std::nullopt;
        NullHandler rest;
        parser.HandleNextDocument(rest);
    } catch (...) {  // LiftMismatch, AbortParse, SecondDocument, yaml-cpp's own: all mean "parse it whole"
        return std::nullopt;
    }
    if (!findings.empty() || !builder.lifted_all()) return std::nullopt;
    std::optional<YamlNode> root = builder.take_root();
    if (!root || root->is_null()) return std::nullopt;
    return root;
}

/// The first tab in the indentation of a line at or before the line holding `limit`: YAML
/// indents with spaces only, and yaml-cpp's message for a tab does not say so.
std::optional<std::size_t> tab_in_indentation_before(const std::string& t, std::size_t limit) {
    std::size_t line_end = t.find('\n', std::min(limit, t.size()));
    if (line_end == std::string::npos) line_end = t.size();
    for (std::size_t start = 0; start < line_end;) {
        std::size_t i = start;
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) {
            if (t[i] == '\t') {
                bool content_follows = false;
                for (std::size_t j = i; j < t.size() && t[j] != '\n'; ++j) {
                    if (t[j] != ' ' && t[j] != '\t') {
                        content_follows = true;
                        break;
                    }
                }
                if (content_follows) return i;
                break;
            }
            ++i;
        }
        std::size_t nl = t.find('\n', start);
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return std::nullopt;
}

/// The offset of a quote that opens a value ("key: \"...") and is not closed on its line,
/// when the next line starts a new key: the likely cause of a parse error further on.
std::optional<std::size_t> unclosed_quote_before(const std::string& t, std::size_t limit) {
    std::size_t line_start = 0;
    while (line_start < t.size() && line_start <= limit) {
        std::size_t line_end = t.find('\n', line_start);
        if (line_end == std::string::npos) line_end = t.size();
        std::string_view line(t.data() + line_start, line_end - line_start);
        std::size_t colon = line.find(": ");
        if (colon != std::string_view::npos && line.find('#') > colon) {
            std::size_t v = line.find_first_not_of(' ', colon + 2);
            if (v != std::string_view::npos && (line[v] == '"' || line[v] == '\'')) {
                char q = line[v];
                bool closed = false;
                for (std::size_t i = v + 1; i < line.size(); ++i) {
                    if (q == '"' && line[i] == '\\') {
                        ++i;
                    } else if (line[i] == q) {
                        if (q == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
                            ++i;
                            continue;
                        }
                        closed = true;
                        break;
                    }
                }
                if (!closed) return line_start + v;
            }
        }
        line_start = line_end + 1;
    }
    return std::nullopt;
}

/// Offset of the first byte that breaks UTF-8, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        // Records are mostly ASCII: eight bytes at a time while no high bit is set.
        while (i + 8 <= s.size()) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + i, 8);
            if (word & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= s.size()) break;
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > s.size()) {
            return i;
        }
        for (std::size_t k = 1; k < len; ++k) {
            auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (cc & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
            return i;
        }
        i += len;
    }
    return std::string_view::npos;
}

}  // namespace

LoadedYaml load_yaml(const std::string& file_label, std::string text, const LoadLimits& limits) {
    return load_yaml_stamped(file_label, std::move(text), limits, std::nullopt);
}

LoadedYaml load_yaml_stamped(const std::string& file_label, std::string text, const LoadLimits& limits,
                             std::optional<FileStamp> stamp) {
    LoadedYaml out;
    if (text.size() > limits.max_bytes) {
        out.source = std::make_shared<SourceText>(file_label, std::string());
        out.diagnostics.push_back(diag::file_too_large(file_label, text.size(), limits.max_bytes));
        return out;
    }
    const std::uint64_t hash = content_hash(text);
    // CRLF line ends become LF: lines and columns are unchanged, values lose the stray \r.
    if (text.find('\r') != std::string::npos) {
        std::string normalized;
        normalized.reserve(text.size());
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
                continue;
            }
            normalized += text[i];
        }
        text = std::move(normalized);
    }
    auto source = std::make_shared<SourceText>(file_label, std::move(text));
    source->set_content_hash(hash);
    if (stamp) source->set_stamp(*stamp);
    out.source = source;
    const std::string& t = source->text();

    if (t.rfind("\xEF\xBB\xBF", 0) == 0) {
        out.diagnostics.push_back(diag::encoding(
            source->position(std::size_t{0}), "the file starts with a byte-order mark; save it as UTF-8 without one"));
        return out;
    }
    if (auto nul = t.find('\0'); nul != std::string::npos) {
        out.diagnostics.push_back(diag::encoding(source->position(nul), "a NUL byte; a record is UTF-8 text"));
        return out;
    }
    if (auto bad = first_invalid_utf8(t); bad != std::string_view::npos) {
        out.diagnostics.push_back(diag::encoding(source->position(bad),
                                                 fmt::format("byte 0x{:02X} is not valid UTF-8; a record is UTF-8 text",
                                                             static_cast<unsigned char>(t[bad]))));
        return out;
    }
    if (auto cr = t.find('\r'); cr != std::string::npos) {
        out.diagnostics.push_back(diag::encoding(source->position(cr), "a carriage return that does not end a line"));
        return out;
    }

    if (limits.lift_scalars) {
        if (std::optional<LiftedText> lifted = lift_scalars(t)) {
            if (std::optional<YamlNode> root = parse_lifted(*source, *lifted, limits)) {
                out.root = std::move(root);
                return out;
            }
        }
    }

    TextBuffer buffer(t);
    std::istream stream(&buffer);
    TreeBuilder builder(*source, limits, out.diagnostics, nullptr);
    try {
        YAML::Parser parser(stream);
        if (!parser.HandleNextDocument(builder)) {
            out.diagnostics.push_back(diag::file_empty(file_label));
            return out;
        }
        out.root = builder.take_root();
        NullHandler rest;
        try {
            parser.HandleNextDocument(rest);
        } catch (const SecondDocument& second) {
            std::size_t at =
                second.mark.is_null() || second.mark.pos < 0 ? 0 : static_cast<std::size_t>(second.mark.pos);
            out.diagnostics.push_back(diag::multiple_documents(source->position(at)));
        } catch (const YAML::Exception&) {
            // Whatever follows the first document, there is more than one: say that, at the separator.
            std::size_t sep = t.find("\n---");
            out.diagnostics.push_back(
                diag::multiple_documents(source->position(sep == std::string::npos ? t.size() : sep + 1)));
        }
    } catch (const AbortParse& abort) {
        out.root.reset();
        out.diagnostics.push_back(abort.diagnostic);
    } catch (const YAML::ParserException& e) {
        out.root.reset();
        std::size_t error_at = e.mark.is_null() || e.mark.pos < 0 ? t.size() : static_cast<std::size_t>(e.mark.pos);
        if (auto tab = tab_in_indentation_before(t, error_at)) {
            Position at = source->position(*tab);
            out.diagnostics.push_back(diag::yaml_syntax(
                at, fmt::format("a tab in the indentation (column {}); YAML indents with spaces only", at.column)));
        } else if (auto open = unclosed_quote_before(t, error_at)) {
            // yaml-cpp ran on to a later quote and failed there; the cause is the quote left open.
            out.diagnostics.push_back(
                diag::yaml_syntax(source->position(*open), "a quoted string opened here is not closed on its line"));
        } else {
            Position pos = e.mark.is_null() || e.mark.pos < 0 ? Position{file_label, 0, 0} : source->position(error_at);
            out.diagnostics.push_back(diag::yaml_syntax(pos, e.msg));
        }
    } catch (const std::exception& e) {
        out.root.reset();
        out.diagnostics.push_back(diag::yaml_syntax(Position{file_label, 0, 0}, e.what()));
    }
    if (out.root && out.root->is_null() && !has_errors(out.diagnostics)) {
        out.root.reset();
        out.diagnostics.push_back(diag::file_empty(file_label));
    }
    return out;
}

LoadedYaml load_yaml_file(const std::string& path, const std::string& file_label, const LoadLimits& limits) {
    auto failed = [&](auto diagnostic) {
        LoadedYaml out;
        out.source = std::make_shared<SourceText>(file_label, std::string());
        out.diagnostics.push_back(std::move(diagnostic));
        return out;
    };
    // One open, one fstat, then reads: the size checks the limit before anything is read,
    // and the stamp the catalog keeps is the one of the file as it was read.
    // Never blocks: a FIFO is refused below rather than waited on.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return failed(diag::file_unreadable(file_label, std::generic_category().message(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) return failed(diag::file_unreadable(file_label, std::generic_category().message(errno)));
    const bool regular = S_ISREG(st.st_mode);
    const auto size = static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 0);
    if (!regular) {
        // /dev/zero would be read for ever, a FIFO waited on: a record is a regular file.
        return failed(diag::file_unreadable(
            file_label, fmt::format("it is {}, not a regular file; records are read only from regular files",
                                    file_kind_name(st.st_mode))));
    }
    if (size > limits.max_bytes) {
        return failed(diag::file_too_large(file_label, size, limits.max_bytes));
    }
    std::string text;
    try {
        // In blocks, not a character at a time. The size is only a hint (a file may have
        // grown since): reading stops one block past the limit, which load_yaml reports.
        std::size_t chunk = size > 0 ? size + 1 : 4096;
        for (;;) {
            std::size_t had = text.size();
            if (had > limits.max_bytes) break;  // it grew past the limit: load_yaml says so
            text.resize(had + chunk);
            ssize_t got = ::read(fd, text.data() + had, chunk);
            if (got < 0) {
                if (errno == EINTR) {
                    text.resize(had);
                    continue;
                }
                return failed(diag::file_unreadable(file_label, std::generic_category().message(errno)));
            }
            text.resize(had + static_cast<std::size_t>(got));
            if (got == 0) break;
            // A read short of its block has most likely met the end: the read that confirms it
            // asks for one page, not 64 KiB (which every record paid for, zeroed, before).
            chunk = static_cast<std::size_t>(got) < chunk ? 4096 : 65536;
        }
    } catch (const std::exception& e) {
        return failed(diag::file_unreadable(file_label, e.what()));
    }
    return load_yaml_stamped(
        file_label, std::move(text), limits,
        FileStamp{static_cast<std::int64_t>(st.st_size),
                  static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec});
}

}  // namespace kvcat
