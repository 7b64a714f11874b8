#include "check/claim_tokens.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/suggest.h"

namespace kvcat::claim_tokens {

constexpr int kMaxDecimals = 18;  // round_scaled stays inside 128 bits

// ---------------------------------------------------------------------------------
// Bytes

bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}
bool is_alpha(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_alnum(unsigned char c) {
    return is_digit(c) || is_alpha(c);
}
bool is_ascii_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

enum class Special { none, space, times, divide, arrow, approx, punct };

struct SpecialAt {
    Special kind = Special::none;
    std::size_t len = 0;
};

unsigned char byte_at(std::string_view s, std::size_t i) {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
}

/// Spaces, U+00D7 and U+2192 at byte i.
SpecialAt special_at(std::string_view s, std::size_t i) {
    unsigned char c = byte_at(s, i);
    if (i >= s.size()) return {};
    if (is_ascii_space(c)) return {Special::space, 1};
    unsigned char c1 = byte_at(s, i + 1);
    if (c == 0xC3 && c1 == 0x97) return {Special::times, 2};   // U+00D7
    if (c == 0xC3 && c1 == 0xB7) return {Special::divide, 2};  // U+00F7
    if (c == 0xC2 && c1 == 0xA0) return {Special::space, 2};   // no-break space
    if (c == 0xE2 && i + 2 < s.size()) {
        unsigned char c2 = byte_at(s, i + 2);
        if (c1 == 0x86 && c2 == 0x92) return {Special::arrow, 3};                  // U+2192
        if (c1 == 0x89 && c2 == 0x88) return {Special::approx, 3};                 // U+2248
        if (c1 == 0x80 && (c2 == 0x94 || c2 == 0x93)) return {Special::punct, 3};  // em and en dash
        // U+2000..U+200A (en quad .. hair space, incl. thin space), U+202F narrow nbsp
        if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8A) || c2 == 0xAF)) return {Special::space, 3};
    }
    if (c == 0xE3 && c1 == 0x80 && i + 2 < s.size()) {
        unsigned char c2 = byte_at(s, i + 2);
        if (c2 == 0x80) return {Special::space, 3};                // U+3000 ideographic space
        if (c2 >= 0x81 && c2 <= 0x91) return {Special::punct, 3};  // U+3001..U+3011: CJK full stop, comma, brackets
    }
    if (c == 0xEF && c1 == 0xBC && i + 2 < s.size()) {
        unsigned char c2 = byte_at(s, i + 2);
        // Fullwidth ! ( ) , : ; ? (U+FF01..U+FF1F, the punctuation among them)
        if (c2 == 0x81 || c2 == 0x88 || c2 == 0x89 || c2 == 0x8C || c2 == 0x9A || c2 == 0x9B || c2 == 0x9F)
            return {Special::punct, 3};
    }
    return {};
}

/// A byte that belongs to a word: ASCII letters and digits, '_', and any non-ASCII
/// byte that does not start one of the recognised special sequences.
bool is_word_byte(std::string_view s, std::size_t i) {
    if (i >= s.size()) return false;
    unsigned char c = byte_at(s, i);
    if (is_alnum(c) || c == '_') return true;
    return c >= 0x80 && special_at(s, i).kind == Special::none;
}

/// Whether the byte at i continues a word: a word byte, or an inner connector
/// ("full-attention", "K+V", "Qwen3.5", "it's", "B/token") followed by a word byte.
/// A '/' only connects to a following letter, so "heads/2" splits at the slash.
bool continues_word(std::string_view s, std::size_t i) {
    if (i >= s.size()) return false;
    if (is_word_byte(s, i)) return true;
    unsigned char c = byte_at(s, i);
    if (c == '-' || c == '+' || c == '.' || c == '\'') return is_word_byte(s, i + 1);
    if (c == '/') return is_alpha(byte_at(s, i + 1));
    return false;
}

std::size_t scan_word_end(std::string_view s, std::size_t i) {
    for (;;) {
        // Letters, digits and '_' continue a word whatever follows: most bytes of prose.
        while (i < s.size() && (is_alnum(byte_at(s, i)) || s[i] == '_')) ++i;
        if (i >= s.size() || !continues_word(s, i)) return i;
        ++i;
    }
}

// ---------------------------------------------------------------------------------
// Units

constexpr std::string_view kCanonicalUnits[] = {
    "B",         "B/token", "KiB",      "KiB/token", "MiB",      "MiB/token", "GiB",      "GiB/token", "TiB",
    "TiB/token", "KB",      "KB/token", "MB",        "MB/token", "GB",        "GB/token", "TB",        "TB/token",
};

/// Canonical unit for a unit word: "B", "B/token", "KiB", "GiB/token", ...; nullopt
/// when the word is not a unit. The view refers to static storage.
std::optional<std::string_view> canonical_unit(std::string_view word) {
    std::string_view base = word;
    std::string_view suffix;
    if (auto slash = word.find('/'); slash != std::string_view::npos) {
        base = word.substr(0, slash);
        suffix = word.substr(slash + 1);
        // "B/token", and "KiB/token/request": per token, of one request
        if (suffix != "token" && suffix != "tok" && !suffix.starts_with("token/")) return std::nullopt;
    }
    // Units spelled out ("64 kibibytes", "2 gigabytes"), singular or plural.
    static constexpr std::pair<std::string_view, std::string_view> kSpelled[] = {
        {"kilobyte", "KB"},  {"megabyte", "MB"},  {"gigabyte", "GB"},  {"terabyte", "TB"},
        {"kibibyte", "KiB"}, {"mebibyte", "MiB"}, {"gibibyte", "GiB"}, {"tebibyte", "TiB"},
    };
    // A view of static text until the suffix is added (an std::string assigned from a
    // literal here trips GCC 12's -Wrestrict, a false positive).
    std::string_view unit;
    if (base == "B" || equal_ignoring_case(base, "byte") || equal_ignoring_case(base, "bytes")) {
        unit = "B";
    } else if (base == "KiB" || base == "MiB" || base == "GiB" || base == "TiB" || base == "KB" || base == "MB" ||
               base == "GB" || base == "TB") {
        unit = base;
    } else if (base == "kB") {
        unit = "KB";
    } else if (base == "kiB") {
        unit = "KiB";  // a common spelling of KiB; "ki" is only ever binary
    } else {
        for (auto [spelled, canonical] : kSpelled) {
            std::string_view singular = base.ends_with('s') ? base.substr(0, base.size() - 1) : base;
            if (equal_ignoring_case(singular, spelled)) unit = canonical;
        }
        if (unit.empty()) return std::nullopt;
    }
    std::string out(unit);
    if (!suffix.empty()) out += "/token";
    for (std::string_view canon : kCanonicalUnits) {
        if (canon == out) return canon;
    }
    return std::nullopt;
}

UnitInfo unit_info(std::string_view unit) {
    std::string_view base = unit.substr(0, unit.find('/'));
    constexpr std::int64_t kKi = 1024;
    constexpr std::int64_t kK = 1000;
    if (base == "KiB") return {kKi, false};
    if (base == "MiB") return {kKi * kKi, false};
    if (base == "GiB") return {kKi * kKi * kKi, false};
    if (base == "TiB") return {kKi * kKi * kKi * kKi, false};
    if (base == "KB") return {kK, false};
    if (base == "MB") return {kK * kK, false};
    if (base == "GB") return {kK * kK * kK, false};
    if (base == "TB") return {kK * kK * kK * kK, false};
    if (base == "x") return {1, false};  // ratios are compared at their stated digits
    if (base == "%") return {1, false};  // so are percentages (scaled by unit_scale)
    return {1, true};                    // "", "B", "B/token"
}

struct GluedUnit {
    std::string_view unit;
    std::size_t end = 0;
};

/// A unit written against its number ("10,240B/token", "1.00GiB"), starting at i.
std::optional<GluedUnit> match_glued_unit(std::string_view s, std::size_t i) {
    static constexpr std::string_view kUnits[] = {"bytes", "byte", "KiB", "MiB", "GiB", "TiB", "KB",
                                                  "kiB",   "kB",   "MB",  "GB",  "TB",  "B"};
    for (std::string_view u : kUnits) {
        if (s.substr(i, u.size()) != u) continue;
        std::size_t end = i + u.size();
        std::string_view word = u;
        std::string with_suffix;
        for (std::string_view suffix : {std::string_view("/token"), std::string_view("/tok")}) {
            if (s.substr(end, suffix.size()) == suffix && !continues_word(s, end + suffix.size())) {
                with_suffix = std::string(u) + std::string(suffix);
                word = with_suffix;
                end += suffix.size();
                break;
            }
        }
        if (continues_word(s, end)) return std::nullopt;
        auto canon = canonical_unit(word);
        if (!canon) return std::nullopt;
        return GluedUnit{*canon, end};
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------
// Tokens

/// The digits of a number as written, without thousands separators.
std::string plain_digits(std::string_view s) {
    std::string out;
    for (char c : s) {
        // separators: "65,536", "262{,}144", "54 000" and its no-break or thin spaces
        if (c != ',' && c != '{' && c != '}' && c != ' ' && static_cast<unsigned char>(c) < 0x80) out += c;
    }
    return out;
}

/// A number as the recomputed expression shows it: without thousands separators, with a
/// superscript power kept ("1024²" stays "1024²", not "1024").
std::string shown_number(std::string_view s) {
    std::string out;
    for (std::size_t k = 0; k < s.size(); ++k) {
        unsigned char c = static_cast<unsigned char>(s[k]);
        if (c == 0xC2 && k + 1 < s.size() && (byte_at(s, k + 1) == 0xB2 || byte_at(s, k + 1) == 0xB3)) {
            out += s.substr(k, 2);
            ++k;
        } else if (c != ',' && c != '{' && c != '}' && c != ' ' && c < 0x80) {
            out += static_cast<char>(c);
        }
    }
    return out;
}

/// Whether a number starting at i has an acceptable left neighbour. Rejects numbers
/// glued to punctuation that makes them part of something else: "3,7", "v1.2", "-3",
/// "~4", "12:30", "#5", "$3".
bool clean_left(std::string_view s, std::size_t i) {
    if (i == 0) return true;
    unsigned char p = byte_at(s, i - 1);
    if (p < 0x80) {
        switch (p) {
            case '+':
                return i >= 2 && is_digit(byte_at(s, i - 2));  // "16*4+8": a sum written tight
            case '.':
            case ',':
            case '-':
            case '%':
            case '#':
            case '^':
            case '@':
            case ':':
            case '\\':
            case '&':
            case '$':
            case '_':
                return false;
            default:
                return !is_alnum(p);
        }
    }
    // Non-ASCII: only the recognised separators and punctuation may precede a number.
    if (i >= 2 && special_at(s, i - 2).len == 2) return true;
    if (i >= 3 && special_at(s, i - 3).len == 3) return true;
    return false;
}

/// factor * base^exponent, or nullopt when it leaves 64 bits.
std::optional<Rational> raise(const Rational& base, int exponent, const Rational& factor) {
    try {
        Rational v = factor;
        for (int k = 0; k < exponent; ++k) v = v * base;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

namespace {

class Tokenizer {
  public:
    explicit Tokenizer(std::string_view s) : s_(s) {
        // Prose runs at about one token per five bytes: one allocation up front rather
        // than a dozen as the arrays double.
        out_.tokens.reserve(s.size() / 4 + 1);
        out_.numbers.reserve(s.size() / 16 + 1);
    }

    Tokens run() {
        std::size_t i = 0;
        int newlines = 0;
        line_start_ = true;
        while (i < s_.size()) {
            SpecialAt sp = special_at(s_, i);
            if (sp.kind == Special::space) {
                if (byte_at(s_, i) == '\n') {
                    line_start_ = true;
                    if (++newlines == 2) push(Kind::brk, i, i + 1);
                }
                i += sp.len;
                continue;
            }
            newlines = 0;
            if (line_start_ && continuation_marker(i)) {
                // "# = 131072 bytes", "// x 80 layers": a comment marker that opens a line
                // continues the text above it.
                i += byte_at(s_, i) == '#' ? 1 : 2;
                continue;
            }
            Kind special = Kind::punct;
            switch (sp.kind) {
                case Special::times:
                    special = Kind::mul;
                    break;
                case Special::divide:
                    special = Kind::div;
                    break;
                case Special::arrow:
                    special = Kind::eq;
                    break;
                case Special::approx:
                    special = Kind::approx;
                    break;
                case Special::punct:
                    special = Kind::punct;
                    break;
                case Special::none:
                case Special::space:
                    sp.len = 0;
                    break;
            }
            if (sp.len > 0) {
                push(special, i, i + sp.len);
                i += sp.len;
                continue;
            }
            unsigned char c = byte_at(s_, i);
            if (is_digit(c)) {
                i = number(i);
            } else if (is_word_byte(s_, i)) {
                std::size_t end = scan_word_end(s_, i);
                push(s_.substr(i, end - i) == "x" ? Kind::mul : Kind::word, i, end);
                i = end;
            } else {
                i = punctuation(i);
            }
        }
        return std::move(out_);
    }

  private:
    /// Blank on both sides of the bytes [begin, end).
    bool spaced(std::size_t begin, std::size_t end) const {
        return begin > 0 && is_ascii_space(byte_at(s_, begin - 1)) && end < s_.size() &&
               is_ascii_space(byte_at(s_, end));
    }

    void push(Kind kind, std::size_t begin, std::size_t end) {
        Token t;
        t.kind = kind;
        t.begin = begin;
        t.end = end;
        t.line_start = line_start_;
        line_start_ = false;
        out_.tokens.push_back(t);
    }

    /// Where the math span opened by the delimiter of `len` bytes at i closes, if it is one.
    /// As Markdown reads TeX: an inline "$" is followed by a non-blank, and its closing "$",
    /// on the same line, follows a non-blank and is not followed by a digit, so "$3 and $5"
    /// and "$3-$5" are prices; "$$" (which a line end may follow) closes at the next "$$"
    /// before a blank line. Where the
    /// last search stopped is remembered, so no byte is searched twice.
    std::optional<std::size_t> math_close(std::size_t i, std::size_t len) {
        const std::size_t from = i + len + 1;
        if (i + len >= s_.size() || (len == 1 && is_ascii_space(byte_at(s_, i + len)))) return std::nullopt;
        Search& search = len == 1 ? inline_search_ : display_search_;
        if (!(search.valid && search.from <= from && from <= search.stop)) {
            search = Search{true, from, s_.size(), false};
            for (std::size_t k = from; k < s_.size(); ++k) {
                unsigned char c = byte_at(s_, k);
                if (c == '\n' && (len == 1 || byte_at(s_, k + 1) == '\n')) {
                    search.stop = k;
                    break;
                }
                if (c != '$') continue;
                bool closes = len == 2 ? byte_at(s_, k + 1) == '$'
                                       : !is_ascii_space(byte_at(s_, k - 1)) && byte_at(s_, k - 1) != '\\' &&
                                             !is_digit(byte_at(s_, k + 1)) && byte_at(s_, k + 1) != '$';
                if (closes) {
                    search.stop = k;
                    search.found = true;
                    break;
                }
            }
        }
        if (!search.found || search.stop < from) return std::nullopt;
        return search.stop;
    }

    /// "#" or "//" followed by a blank, or by a lone line end.
    bool continuation_marker(std::size_t i) const {
        std::size_t len = byte_at(s_, i) == '#' ? 1 : (s_.substr(i, 2) == "//" ? 2 : 0);
        if (len == 0) return false;
        unsigned char next = byte_at(s_, i + len);
        return i + len >= s_.size() || next == ' ' || next == '\t' || next == '\n';
    }

    /// Whether the bytes before i on its line, back to the last non-blank, end with '~'
    /// or U+2248: "~1.1k", "≈ 8".
    bool approx_before(std::size_t i) const {
        std::size_t k = i;
        while (k > 0 && (byte_at(s_, k - 1) == ' ' || byte_at(s_, k - 1) == '\t')) --k;
        if (k >= 1 && byte_at(s_, k - 1) == '~') return true;
        return k >= 3 && special_at(s_, k - 3).kind == Special::approx;
    }

    std::size_t punctuation(std::size_t i) {
        unsigned char c = byte_at(s_, i);
        unsigned char next = byte_at(s_, i + 1);
        switch (c) {
            case '(':
                push(Kind::lparen, i, i + 1);
                return i + 1;
            case ')':
                push(Kind::rparen, i, i + 1);
                return i + 1;
            case '=': {
                std::size_t len = (next == '=' || next == '>') ? 2 : 1;
                push(Kind::eq, i, i + len);
                return i + len;
            }
            case '-':
                if (next == '>') {
                    push(Kind::eq, i, i + 2);
                    return i + 2;
                }
                if (spaced(i, i + 1)) {
                    push(Kind::minus, i, i + 1);
                    return i + 1;
                }
                break;
            case '+':
                // "a + b", and "4+8" between digits; "K+V" is a word
                if (spaced(i, i + 1) || (i > 0 && is_digit(byte_at(s_, i - 1)) && is_digit(next))) {
                    push(Kind::plus, i, i + 1);
                    return i + 1;
                }
                break;
            case ':':
                push(Kind::colon, i, i + 1);
                return i + 1;
            case '$': {
                // Inline math "$64 \times 4096 = 262144$" and display math "$$...$$": the
                // delimiters are punctuation, and a number may follow the opening one.
                std::size_t len = next == '$' ? 2 : 1;
                if (i == math_close_) {
                    math_close_ = std::string_view::npos;
                } else if (auto close = math_close(i, len)) {
                    math_close_ = *close;
                    math_open_end_ = i + len;
                }
                push(Kind::punct, i, i + len);
                return i + len;
            }
            case '\\':
                // LaTeX operators: "\times", "\cdot", "\div".
                for (auto [name, op] :
                     {std::pair{std::string_view("times"), Kind::mul}, std::pair{std::string_view("cdot"), Kind::mul},
                      std::pair{std::string_view("div"), Kind::div}}) {
                    if (s_.substr(i + 1, name.size()) == name && !is_alpha(byte_at(s_, i + 1 + name.size()))) {
                        push(op, i, i + 1 + name.size());
                        return i + 1 + name.size();
                    }
                }
                break;
            case '!':
            case '<':
            case '>':
            case '~':
                if (next == '=') {  // "!=", "<=", ">=", "~=" are not equations
                    push(Kind::punct, i, i + 2);
                    return i + 2;
                }
                if (c == '~' && is_digit(next)) return i + 1;  // "~1.1k": the number remembers it is approximate
                break;
            case '/':
                if (next == '/') {
                    push(Kind::punct, i, i + 2);
                    return i + 2;
                }
                push(Kind::div, i, i + 1);
                return i + 1;
            case '*':
                return star(i);
            default:
                break;
        }
        push(Kind::punct, i, i + 1);
        return i + 1;
    }

    /// '*' multiplies when spaced on both sides ("2 * 3") or glued between a word and
    /// a digit ("2*3"); "**", Markdown emphasis ("*note*") and bullets are punctuation.
    std::size_t star(std::size_t i) {
        std::size_t end = i;
        while (byte_at(s_, end) == '*' && end < s_.size()) ++end;
        if (end - i == 2 && spaced(i, end) && !out_.tokens.empty() && out_.tokens.back().kind == Kind::num) {
            push(Kind::pow, i, end);  // "1024 ** 3"
            return end;
        }
        bool is_mul = false;
        if (end - i == 1) {
            bool space_before = i == 0 || is_ascii_space(byte_at(s_, i - 1));
            bool space_after = end >= s_.size() || is_ascii_space(byte_at(s_, end));
            bool bullet = true;  // only blanks between the start of the line and the '*'
            for (std::size_t k = i; k > 0; --k) {
                unsigned char p = byte_at(s_, k - 1);
                if (p == '\n') break;
                if (p != ' ' && p != '\t') {
                    bullet = false;
                    break;
                }
            }
            if (!bullet) {
                is_mul = (space_before && space_after) ||
                         (!space_before && is_alnum(byte_at(s_, i - 1)) && is_digit(byte_at(s_, end)));
            }
        }
        push(is_mul ? Kind::mul : Kind::punct, i, end);
        return end;
    }

    /// A number starting at digit i, or a word that merely starts with digits
    /// ("4k", "2026-04-22", "0-based", "14%", "0x1F").
    std::size_t number(std::size_t i) {
        const std::size_t n = s_.size();
        std::size_t j = i;
        while (j < n && is_digit(byte_at(s_, j))) ++j;
        const std::size_t int_len = j - i;
        bool grouped = false;
        if (int_len <= 3) {
            // Thousands separators: groups of exactly three digits after the first.
            for (;;) {
                // "65,536", and LaTeX's "262{,}144"
                std::size_t sep = byte_at(s_, j) == ',' ? 1 : (s_.substr(j, 3) == "{,}" ? 3 : 0);
                if (sep == 0 && byte_at(s_, j) == ' ')
                    sep = 1;  // "54 000": a space between groups of three
                else if (sep == 0 && special_at(s_, j).kind == Special::space && byte_at(s_, j) >= 0x80)
                    sep = special_at(s_, j).len;  // no-break and thin spaces
                std::size_t k = j + sep;
                if (sep == 0 || k + 2 >= n || !is_digit(byte_at(s_, k)) || !is_digit(byte_at(s_, k + 1)) ||
                    !is_digit(byte_at(s_, k + 2)) || is_digit(byte_at(s_, k + 3)))
                    break;
                j = k + 3;
                grouped = true;
            }
        }
        int decimals = 0;
        if (byte_at(s_, j) == '.' && is_digit(byte_at(s_, j + 1))) {
            ++j;
            while (j < n && is_digit(byte_at(s_, j))) {
                ++j;
                ++decimals;
            }
        }
        // Exponents written against the digits: "10^9", "1e6", "1024²".
        int exponent = 0;
        bool ten_power = false;  // "1e6": the mantissa times 10^exponent
        if (byte_at(s_, j) == '^' && !grouped && decimals == 0 && is_digit(byte_at(s_, j + 1))) {
            std::size_t k = j + 1;
            while (k < n && is_digit(byte_at(s_, k)) && k - j <= 3) ++k;
            if (!continues_word(s_, k) && byte_at(s_, k) != '^') {
                exponent = std::stoi(std::string(s_.substr(j + 1, k - j - 1)));
                j = k;
            }
        } else if ((byte_at(s_, j) == 'e' || byte_at(s_, j) == 'E') && !grouped && is_digit(byte_at(s_, j + 1))) {
            std::size_t k = j + 1;
            while (k < n && is_digit(byte_at(s_, k)) && k - j <= 3) ++k;
            if (!continues_word(s_, k)) {
                exponent = std::stoi(std::string(s_.substr(j + 1, k - j - 1)));
                ten_power = true;
                j = k;
            }
        } else if (byte_at(s_, j) == 0xC2 && (byte_at(s_, j + 1) == 0xB2 || byte_at(s_, j + 1) == 0xB3) && !grouped &&
                   decimals == 0 && !continues_word(s_, j + 2)) {
            exponent = byte_at(s_, j + 1) == 0xB2 ? 2 : 3;
            j += 2;
        }
        const std::size_t digits_end =
            exponent > 0 ? (ten_power ? s_.find_first_of("eE", i) : s_.find_first_of("^\xC2", i)) : j;
        const std::size_t num_end = j;

        bool as_word = false;
        char suffix = 0;
        bool list = false;
        bool ratio = false;
        std::string_view unit;
        std::size_t end = num_end;
        if (num_end < n) {
            unsigned char c = byte_at(s_, num_end);
            SpecialAt sp = special_at(s_, num_end);
            if (sp.kind == Special::times) {
                // "16×4" multiplies; "4.0× smaller" is a ratio.
                std::size_t k = num_end + sp.len;
                while (k < n && special_at(s_, k).kind == Special::space) k += special_at(s_, k).len;
                if (!is_digit(byte_at(s_, k))) {
                    ratio = true;
                    end = num_end + sp.len;
                }
            } else if (c == 'x') {
                if (!continues_word(s_, num_end + 1)) {
                    ratio = true;
                    end = num_end + 1;
                } else {
                    as_word = true;  // "2x2", "0x1F", "4x-ish"
                }
            } else if (is_alpha(c)) {
                if (auto glued = match_glued_unit(s_, num_end)) {
                    unit = glued->unit;
                    end = glued->end;
                } else if ((c == 'k' || c == 'K' || c == 'M') && exponent == 0 && !continues_word(s_, num_end + 1)) {
                    suffix = c == 'M' ? 'M' : 'k';  // "77k", "1.1k", "671M"
                    end = num_end + 1;
                } else {
                    as_word = true;  // "4k", "35B-A3B", "3090Ti"
                }
            } else if (is_word_byte(s_, num_end)) {
                as_word = true;  // "head_1", non-ASCII letters
            } else if (c == ',' && is_digit(byte_at(s_, num_end + 1))) {
                list = true;  // "3,7,...", "1234,567"
            } else if (c == '%') {
                // "97.9%": a percentage, read only as a stated result ("a / b = 97.9%");
                // "50%ile" and "12.5%-ish" stay words.
                if (exponent == 0 && !continues_word(s_, num_end + 1)) {
                    unit = "%";
                    end = num_end + 1;
                } else {
                    as_word = true;
                }
            } else if (c == '+' && is_digit(byte_at(s_, num_end + 1))) {
                // "4+8": a sum written tight, read by punctuation()
            } else if ((c == ':' || c == '^') && is_word_byte(s_, num_end + 1)) {
                // "12:30", "2^30": not plain numbers
                std::size_t w = scan_word_end(s_, num_end + 1);
                push(Kind::word, i, w);
                return w;
            } else if (continues_word(s_, num_end)) {
                as_word = true;  // "2026-04-22", "0-based", "1.2.3", "2's"
            }
        }
        if (as_word) {
            std::size_t w = scan_word_end(s_, i);
            if (byte_at(s_, w) == '%') ++w;
            if (w <= num_end) w = num_end + 1;  // always make progress
            push(Kind::word, i, w);
            return w;
        }

        Number num;
        num.num_end = num_end;
        num.ratio = ratio;
        num.unit = ratio ? std::string_view("x") : unit;
        num.glued_b = unit == "B" && byte_at(s_, num_end) == 'B' && end == num_end + 1;
        num.suffix = suffix;
        num.decimals = exponent > 0 ? 0 : decimals;
        num.approx = approx_before(i);
        const bool leading_zero = byte_at(s_, i) == '0' && (int_len > 1 || grouped);
        num.usable = (clean_left(s_, i) || i == math_open_end_) && !list && !leading_zero;
        if (decimals <= kMaxDecimals) num.value = Rational::parse(plain_digits(s_.substr(i, digits_end - i)));
        if (num.value && exponent > 0)
            num.value = raise(ten_power ? Rational(10) : *num.value, exponent, ten_power ? *num.value : Rational(1));
        push(Kind::num, i, end);
        out_.tokens.back().number = out_.numbers.size();
        out_.numbers.push_back(std::move(num));
        return end;
    }

    std::string_view s_;
    Tokens out_;
    bool line_start_ = true;
    /// The last search for a closing math delimiter: from `from`, it stopped at `stop`, a
    /// closing delimiter when `found`, else a line end (a blank line for "$$") or the end.
    struct Search {
        bool valid = false;
        std::size_t from = 0;
        std::size_t stop = 0;
        bool found = false;
    };
    Search inline_search_;
    Search display_search_;
    std::size_t math_open_end_ = std::string_view::npos;  ///< just past the last opening math delimiter
    std::size_t math_close_ = std::string_view::npos;     ///< where the open math span closes
};

}  // namespace

Tokens tokenize(std::string_view text) {
    return Tokenizer(text).run();
}

}  // namespace kvcat::claim_tokens
