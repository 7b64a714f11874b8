#include "load/scalar_lift.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

namespace kvcat {

std::size_t LiftedText::original_offset(std::size_t offset) const {
    // The last cut at or before the offset: an offset at a cut is the first byte after a body.
    auto it = std::upper_bound(cuts.begin(), cuts.end(), offset, [](std::size_t o, const Cut& c) { return o < c.at; });
    return it == cuts.begin() ? offset : offset + std::prev(it)->removed;
}

namespace {

enum class HeaderKind { none, lift, other };

struct Header {
    HeaderKind kind = HeaderKind::none;
    std::size_t key_column = 0;  ///< spaces before the key: the mapping's indentation
    std::size_t indicator = 0;   ///< offset of '|' or '>'
    bool folded = false;         ///< '>'
    bool strip = false;          ///< '-': no final line break
};

bool key_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool key_char(char c) {
    return key_start(c) || c == '-' || c == '.';
}

/// "key: " at the start of the line [begin, end), after its indentation and perhaps a list
/// item's "- ".
struct KeyPrefix {
    std::size_t key_column = 0;  ///< where the key starts: its mapping's indentation
    std::size_t value = 0;       ///< the first byte after the colon and its spaces
};

std::optional<KeyPrefix> key_prefix(std::string_view t, std::size_t begin, std::size_t end) {
    std::size_t i = begin;
    while (i < end && t[i] == ' ') ++i;
    // "- key: ": the list item's mapping is indented to its key.
    if (i + 1 < end && t[i] == '-' && t[i + 1] == ' ') i += 2;
    const std::size_t key_column = i - begin;
    if (i >= end || !key_start(t[i])) return std::nullopt;
    while (i < end && key_char(t[i])) ++i;
    if (i + 1 >= end || t[i] != ':' || t[i + 1] != ' ') return std::nullopt;
    i += 2;
    while (i < end && t[i] == ' ') ++i;
    return KeyPrefix{key_column, i};
}

/// What the line [begin, end) of `t` is: a header this lifts, another line that ends in a
/// block indicator (a list item's "- |", "|+", "|2", a tag, a comment ending in "|"), or
/// neither.
Header classify(std::string_view t, std::size_t begin, std::size_t end) {
    Header h;
    std::size_t last = end;
    while (last > begin && t[last - 1] == ' ') --last;
    if (last == begin) return h;
    std::size_t k = last;
    while (k > begin && std::strchr("-+0123456789", t[k - 1]) != nullptr) --k;
    if (k == begin || (t[k - 1] != '|' && t[k - 1] != '>')) return h;
    const std::size_t ind = k - 1;
    if (ind > begin && t[ind - 1] != ' ' && t[ind - 1] != '\t') return h;  // "a->", "x|": words
    h.kind = HeaderKind::other;

    // The body's least indentation is past the key's (yaml-cpp: the innermost indent + 1).
    const std::optional<KeyPrefix> key = key_prefix(t, begin, ind);
    if (!key || key->value != ind) return h;
    h.key_column = key->key_column;
    const std::string_view chomp = t.substr(ind + 1, last - ind - 1);
    if (!chomp.empty() && chomp != "-") return h;
    h.kind = HeaderKind::lift;
    h.indicator = ind;
    h.folded = t[ind] == '>';
    h.strip = !chomp.empty();
    return h;
}

std::size_t line_end(std::string_view t, std::size_t from) {
    const void* nl = std::memchr(t.data() + from, '\n', t.size() - from);
    return nl == nullptr ? t.size() : static_cast<std::size_t>(static_cast<const char*>(nl) - t.data());
}

/// One line of a body: its content after the indentation, or an empty line.
struct BodyLine {
    std::size_t begin = 0;
    std::size_t end = 0;
    bool empty = true;
};

enum class BodyResult { lifted, not_a_body, refuse };

/// Reads the body that starts at `from` for header `h`: sets `body_end` (the start of the
/// first line after it) and `value`. not_a_body when no line is indented past the key (the
/// scalar is empty; yaml-cpp reads it), refuse when the body holds a form this does not read.
BodyResult read_body(std::string_view t, std::size_t from, const Header& h, std::size_t& body_end, std::string& value,
                     std::vector<BodyLine>& lines) {
    lines.clear();
    std::size_t indent = 0;  // 0: not yet known
    std::size_t widest_leading_empty = 0;
    std::size_t p = from;
    while (p < t.size()) {
        const std::size_t e = line_end(t, p);
        std::size_t spaces = 0;
        while (p + spaces < e && t[p + spaces] == ' ') ++spaces;
        if (p + spaces == e) {                             // spaces only
            if (e == t.size()) return BodyResult::refuse;  // a last line without a line break
            if (indent == 0) {
                widest_leading_empty = std::max(widest_leading_empty, spaces);
            } else if (spaces > indent) {
                return BodyResult::refuse;  // spaces past the indentation are content in yaml-cpp
            }
            lines.push_back(BodyLine{});
            p = e + 1;
            continue;
        }
        if (t[p + spaces] == '\t') return BodyResult::refuse;
        if (indent == 0) {
            if (spaces <= h.key_column) return BodyResult::not_a_body;
            // yaml-cpp takes the widest of the leading empty lines and the first line.
            if (widest_leading_empty > spaces) return BodyResult::refuse;
            indent = spaces;
        } else if (spaces < indent) {
            break;
        } else if (spaces > indent && h.folded) {
            return BodyResult::refuse;  // a more-indented line keeps its breaks in a folded scalar
        }
        if (e == t.size()) return BodyResult::refuse;
        lines.push_back(BodyLine{p + indent, e, false});
        p = e + 1;
    }
    if (indent == 0) return BodyResult::not_a_body;
    body_end = p;

    // Trailing empty lines are chomped away by both "clip" and "strip".
    while (!lines.empty() && lines.back().empty) lines.pop_back();
    value.clear();
    if (!h.folded) {
        for (const BodyLine& l : lines) {
            if (!l.empty) value.append(t.data() + l.begin, l.end - l.begin);
            value += '\n';
        }
    } else {
        // Folded: a line break between two lines of text becomes a space; n empty lines
        // between them (or before the first) become n line breaks.
        bool after_text = false;
        std::size_t empties = 0;
        for (const BodyLine& l : lines) {
            if (l.empty) {
                ++empties;
                continue;
            }
            if (after_text && empties == 0) value += ' ';
            value.append(empties, '\n');
            empties = 0;
            value.append(t.data() + l.begin, l.end - l.begin);
            after_text = true;
        }
        value += '\n';
    }
    if (h.strip) value.pop_back();
    return BodyResult::lifted;
}

/// A one-line value to lift: its text [begin, end), without quotes or trailing spaces.
struct LineValue {
    std::size_t begin = 0;
    std::size_t end = 0;
    char quote = 0;  ///< '"' or '\'' for a quoted value, 0 for a plain one
};

constexpr std::size_t kShortestLift = 2;  // "x" stands in for the value: one byte saves nothing

bool printable_ascii(std::string_view t, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
        if (t[k] < 0x20 || t[k] > 0x7E) return false;
    }
    return true;
}

/// yaml-cpp reports these plain scalars as nulls (IsNullString), not as their text.
bool yaml_null(std::string_view v) {
    return v == "~" || v == "null" || v == "Null" || v == "NULL";
}

std::optional<LineValue> line_value(std::string_view t, std::size_t begin, std::size_t end) {
    const std::optional<KeyPrefix> key = key_prefix(t, begin, end);
    if (!key) return std::nullopt;
    const std::size_t key_column = key->key_column;
    const std::size_t i = key->value;
    std::size_t last = end;
    while (last > i && t[last - 1] == ' ') --last;
    if (i == last) return std::nullopt;

    if (t[i] == '"' || t[i] == '\'') {
        // Quoted on one line and closed at its end, with no escape: the text between the quotes.
        const char q = t[i];
        if (last - i < kShortestLift + 2 || t[last - 1] != q) return std::nullopt;
        const std::string_view inside = t.substr(i + 1, last - i - 2);
        if (inside.find(q) != std::string_view::npos || (q == '"' && inside.find('\\') != std::string_view::npos)) {
            return std::nullopt;
        }
        if (!printable_ascii(t, i + 1, last - 1)) return std::nullopt;
        return LineValue{i + 1, last - 1, q};
    }

    if (last - i < kShortestLift || yaml_null(t.substr(i, last - i))) return std::nullopt;
    if (std::strchr("-&*!|>'\"%@`", t[i]) != nullptr) return std::nullopt;
    if (!printable_ascii(t, i, last)) return std::nullopt;
    for (std::size_t k = i; k < last; ++k) {
        if (std::strchr(":#,[]{}?", t[k]) != nullptr) return std::nullopt;
    }
    // A plain value could run on: the next line must hold text, indented no further than the key.
    if (end >= t.size()) return std::nullopt;
    const std::size_t next = end + 1;
    const std::size_t next_end = line_end(t, next);
    std::size_t spaces = 0;
    while (next + spaces < next_end && t[next + spaces] == ' ') ++spaces;
    if (next + spaces == next_end || t[next + spaces] == '\t' || spaces > key_column) return std::nullopt;
    return LineValue{i, last, 0};
}

}  // namespace

std::optional<LiftedText> lift_scalars(std::string_view t) {
    LiftedText out;
    std::vector<BodyLine> lines;
    std::size_t copied = 0;  // the original text before this is in out.text or cut
    std::size_t removed = 0;
    // Keeps the text up to `keep_to`, then cuts out [keep_to, resume).
    auto cut = [&](std::size_t keep_to, std::size_t resume) {
        if (out.text.empty()) out.text.reserve(t.size());
        out.text.append(t.data() + copied, keep_to - copied);
        removed += resume - keep_to;
        out.cuts.push_back(LiftedText::Cut{out.text.size(), removed});
        copied = resume;
    };
    std::size_t p = 0;
    while (p < t.size()) {
        const std::size_t e = line_end(t, p);
        const Header h = classify(t, p, e);
        if (h.kind == HeaderKind::other) return std::nullopt;
        if (h.kind == HeaderKind::none) {
            if (auto v = line_value(t, p, e)) {
                // "x" stands in for the value, at its first byte: inside the quotes when quoted.
                const bool plain = v->quote == 0;
                out.scalars.push_back(LiftedScalar{plain ? v->begin : v->begin - 1,
                                                   plain ? LiftedScalar::Kind::plain : LiftedScalar::Kind::quoted,
                                                   std::string(t.substr(v->begin, v->end - v->begin))});
                cut(v->begin + 1, plain ? e : v->end);
                out.text.back() = 'x';
            }
            p = e + 1;
            continue;
        }
        if (e == t.size()) break;
        const std::size_t body = e + 1;
        std::size_t body_end = body;
        std::string value;
        switch (read_body(t, body, h, body_end, value, lines)) {
            case BodyResult::refuse:
                return std::nullopt;
            case BodyResult::not_a_body:
                p = body;
                continue;
            case BodyResult::lifted:
                break;
        }
        out.scalars.push_back(LiftedScalar{h.indicator, LiftedScalar::Kind::block, std::move(value)});
        cut(body, body_end);
        p = body_end;
    }
    if (out.scalars.empty()) return std::nullopt;
    out.text.append(t.data() + copied, t.size() - copied);
    return out;
}

}  // namespace kvcat
