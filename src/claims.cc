// Recognising and recomputing arithmetic stated in prose.
//
// The text is first cut into tokens by a hand-written, single-pass byte scanner (no
// std::regex: it is slow and its backtracking can exhaust the stack on long inputs).
// A small parser then tries each number token as the start of a claim. Every attempt
// looks at a bounded number of tokens beyond the factor chain it parses (filler runs,
// parenthetical groups, sides and chains are all capped), and a failed attempt resumes
// after the chain it consumed, so the whole scan is linear in the input size.
//
// The scanner works on bytes and never decodes UTF-8: the only multi-byte sequences
// it recognises are U+00D7 (multiplication sign), U+2192 (rightwards arrow) and a few
// space characters; any other byte >= 0x80 is treated as part of a word, so invalid
// UTF-8 is harmless.
#include "claims.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvcat {
namespace {

// Limits that keep recognition conservative and the scan linear.
constexpr std::size_t kMaxFillerWords = 5;   // words between a number and the next operator
constexpr std::size_t kMaxFillerParens = 2;  // parenthetical groups in the same gap
constexpr std::size_t kMaxParenTokens = 12;  // tokens inside one filler group
constexpr std::size_t kMaxFactors = 64;      // factors in one expression
constexpr std::size_t kMaxSides = 8;         // sides in one claim
constexpr std::size_t kMaxRatioWords = 5;    // words between "4.0x" and "(a/b)"
constexpr int kMaxDecimals = 18;             // round_scaled stays inside 128 bits

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

enum class Special { none, space, times, arrow };

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
    if (i >= s.size())
        return {};
    if (is_ascii_space(c))
        return {Special::space, 1};
    unsigned char c1 = byte_at(s, i + 1);
    if (c == 0xC3 && c1 == 0x97)
        return {Special::times, 2};  // U+00D7
    if (c == 0xC2 && c1 == 0xA0)
        return {Special::space, 2};  // no-break space
    if (c == 0xE2 && i + 2 < s.size()) {
        unsigned char c2 = byte_at(s, i + 2);
        if (c1 == 0x86 && c2 == 0x92)
            return {Special::arrow, 3};  // U+2192
        // U+2000..U+200A (en quad .. hair space, incl. thin space), U+202F narrow nbsp
        if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8A) || c2 == 0xAF))
            return {Special::space, 3};
    }
    return {};
}

/// A byte that belongs to a word: ASCII letters and digits, '_', and any non-ASCII
/// byte that does not start one of the recognised special sequences.
bool is_word_byte(std::string_view s, std::size_t i) {
    if (i >= s.size())
        return false;
    unsigned char c = byte_at(s, i);
    if (is_alnum(c) || c == '_')
        return true;
    return c >= 0x80 && special_at(s, i).kind == Special::none;
}

/// Whether the byte at i continues a word: a word byte, or an inner connector
/// ("full-attention", "K+V", "Qwen3.5", "it's", "B/token") followed by a word byte.
/// A '/' only connects to a following letter, so "heads/2" splits at the slash.
bool continues_word(std::string_view s, std::size_t i) {
    if (i >= s.size())
        return false;
    if (is_word_byte(s, i))
        return true;
    unsigned char c = byte_at(s, i);
    if (c == '-' || c == '+' || c == '.' || c == '\'')
        return is_word_byte(s, i + 1);
    if (c == '/')
        return is_alpha(byte_at(s, i + 1));
    return false;
}

std::size_t scan_word_end(std::string_view s, std::size_t i) {
    while (i < s.size() && continues_word(s, i)) ++i;
    return i;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        unsigned char x = static_cast<unsigned char>(a[i]);
        unsigned char y = static_cast<unsigned char>(b[i]);
        if (x >= 'A' && x <= 'Z')
            x = static_cast<unsigned char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = static_cast<unsigned char>(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------
// Units

struct UnitInfo {
    std::int64_t scale = 1;  ///< bytes per unit (1 for bytes, plain numbers and ratios)
    bool exact = true;       ///< an integer stated in this unit must match exactly
};

constexpr std::string_view kCanonicalUnits[] = {
    "B",   "B/token",   "KiB", "KiB/token", "MiB", "MiB/token",
    "GiB", "GiB/token", "TiB", "TiB/token", "KB",  "KB/token",
    "MB",  "MB/token",  "GB",  "GB/token",  "TB",  "TB/token",
};

/// Canonical unit for a unit word: "B", "B/token", "KiB", "GiB/token", ...; nullopt
/// when the word is not a unit. The view refers to static storage.
std::optional<std::string_view> canonical_unit(std::string_view word) {
    std::string_view base = word;
    std::string_view suffix;
    if (auto slash = word.find('/'); slash != std::string_view::npos) {
        base = word.substr(0, slash);
        suffix = word.substr(slash + 1);
        if (suffix != "token" && suffix != "tok")
            return std::nullopt;
    }
    std::string out;
    if (base == "B" || iequals(base, "byte") || iequals(base, "bytes")) {
        out = "B";
    } else if (base == "KiB" || base == "MiB" || base == "GiB" || base == "TiB" || base == "KB" ||
               base == "MB" || base == "GB" || base == "TB") {
        out = std::string(base);
    } else if (base == "kB") {
        out = "KB";
    } else {
        return std::nullopt;
    }
    if (!suffix.empty())
        out += "/token";
    for (std::string_view canon : kCanonicalUnits) {
        if (canon == out)
            return canon;
    }
    return std::nullopt;
}

UnitInfo unit_info(std::string_view unit) {
    std::string_view base = unit.substr(0, unit.find('/'));
    constexpr std::int64_t kKi = 1024;
    constexpr std::int64_t kK = 1000;
    if (base == "KiB")
        return {kKi, false};
    if (base == "MiB")
        return {kKi * kKi, false};
    if (base == "GiB")
        return {kKi * kKi * kKi, false};
    if (base == "TiB")
        return {kKi * kKi * kKi * kKi, false};
    if (base == "KB")
        return {kK, false};
    if (base == "MB")
        return {kK * kK, false};
    if (base == "GB")
        return {kK * kK * kK, false};
    if (base == "TB")
        return {kK * kK * kK * kK, false};
    if (base == "x")
        return {1, false};  // ratios are compared at their stated digits
    return {1, true};       // "", "B", "B/token"
}

struct GluedUnit {
    std::string_view unit;
    std::size_t end = 0;
};

/// A unit written against its number ("10,240B/token", "1.00GiB"), starting at i.
std::optional<GluedUnit> match_glued_unit(std::string_view s, std::size_t i) {
    static constexpr std::string_view kUnits[] = {"bytes", "byte", "KiB", "MiB", "GiB", "TiB",
                                                  "KB",    "kB",   "MB",  "GB",  "TB",  "B"};
    for (std::string_view u : kUnits) {
        if (s.substr(i, u.size()) != u)
            continue;
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
        if (continues_word(s, end))
            return std::nullopt;
        auto canon = canonical_unit(word);
        if (!canon)
            return std::nullopt;
        return GluedUnit{*canon, end};
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------
// Tokens

enum class Kind { num, word, mul, div, eq, lparen, rparen, punct, brk };

// Tokens are kept small (a 1 MB input may hold half a million of them); the details
// of number tokens live in a separate array.
struct Token {
    Kind kind = Kind::punct;
    std::size_t begin = 0;  ///< byte span of the whole token
    std::size_t end = 0;
    std::size_t number = 0;  ///< index into Tokens::numbers for Kind::num
};

struct Number {
    std::size_t num_end = 0;        ///< end of the digits (before a glued unit or "x")
    bool usable = false;            ///< clean left/right context: may be a factor or a result
    bool ratio = false;             ///< written with a glued "x" / U+00D7: "4.0x"
    std::string_view unit;          ///< canonical glued unit ("x" for a ratio), "" if none
    std::optional<Rational> value;  ///< nullopt when the literal does not fit 64 bits
    int decimals = 0;
};

struct Tokens {
    std::vector<Token> tokens;
    std::vector<Number> numbers;
};

/// The digits of a number as written, without thousands separators.
std::string plain_digits(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c != ',')
            out += c;
    }
    return out;
}

/// Whether a number starting at i has an acceptable left neighbour. Rejects numbers
/// glued to punctuation that makes them part of something else: "3,7", "v1.2", "-3",
/// "~4", "12:30", "#5", "$3".
bool clean_left(std::string_view s, std::size_t i) {
    if (i == 0)
        return true;
    unsigned char p = byte_at(s, i - 1);
    if (p < 0x80) {
        switch (p) {
            case '.':
            case ',':
            case '-':
            case '+':
            case '%':
            case '#':
            case '^':
            case '@':
            case ':':
            case '~':
            case '\\':
            case '&':
            case '$':
            case '_':
                return false;
            default:
                return !is_alnum(p);
        }
    }
    // Non-ASCII: only the recognised separators may precede a number.
    if (i >= 2 && special_at(s, i - 2).len == 2)
        return true;
    if (i >= 3 && special_at(s, i - 3).len == 3)
        return true;
    return false;
}

class Tokenizer {
  public:
    explicit Tokenizer(std::string_view s) : s_(s) {}

    Tokens run() {
        std::size_t i = 0;
        int newlines = 0;
        while (i < s_.size()) {
            SpecialAt sp = special_at(s_, i);
            if (sp.kind == Special::space) {
                if (byte_at(s_, i) == '\n' && ++newlines == 2)
                    push(Kind::brk, i, i + 1);
                i += sp.len;
                continue;
            }
            newlines = 0;
            if (sp.kind == Special::times) {
                push(Kind::mul, i, i + sp.len);
                i += sp.len;
                continue;
            }
            if (sp.kind == Special::arrow) {
                push(Kind::eq, i, i + sp.len);
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
    void push(Kind kind, std::size_t begin, std::size_t end) {
        Token t;
        t.kind = kind;
        t.begin = begin;
        t.end = end;
        out_.tokens.push_back(t);
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
                break;
            case '!':
            case '<':
            case '>':
            case '~':
                if (next == '=') {  // "!=", "<=", ">=", "~=" are not equations
                    push(Kind::punct, i, i + 2);
                    return i + 2;
                }
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
        bool is_mul = false;
        if (end - i == 1) {
            bool space_before = i == 0 || is_ascii_space(byte_at(s_, i - 1));
            bool space_after = end >= s_.size() || is_ascii_space(byte_at(s_, end));
            bool bullet = true;  // only blanks between the start of the line and the '*'
            for (std::size_t k = i; k > 0; --k) {
                unsigned char p = byte_at(s_, k - 1);
                if (p == '\n')
                    break;
                if (p != ' ' && p != '\t') {
                    bullet = false;
                    break;
                }
            }
            if (!bullet) {
                is_mul =
                    (space_before && space_after) ||
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
            while (byte_at(s_, j) == ',' && j + 3 < n && is_digit(byte_at(s_, j + 1)) &&
                   is_digit(byte_at(s_, j + 2)) && is_digit(byte_at(s_, j + 3)) &&
                   !is_digit(byte_at(s_, j + 4))) {
                j += 4;
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
        const std::size_t num_end = j;

        bool as_word = false;
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
                while (k < n && special_at(s_, k).kind == Special::space)
                    k += special_at(s_, k).len;
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
                } else {
                    as_word = true;  // "4k", "35B-A3B", "3090Ti"
                }
            } else if (is_word_byte(s_, num_end)) {
                as_word = true;  // "head_1", non-ASCII letters
            } else if (c == ',' && is_digit(byte_at(s_, num_end + 1))) {
                list = true;  // "3,7,...", "1234,567"
            } else if (c == '%') {
                as_word = true;
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
            if (byte_at(s_, w) == '%')
                ++w;
            if (w <= num_end)
                w = num_end + 1;  // always make progress
            push(Kind::word, i, w);
            return w;
        }

        Number num;
        num.num_end = num_end;
        num.ratio = ratio;
        num.unit = ratio ? std::string_view("x") : unit;
        num.decimals = decimals;
        const bool leading_zero = byte_at(s_, i) == '0' && (int_len > 1 || grouped);
        num.usable = clean_left(s_, i) && !list && !leading_zero;
        if (decimals <= kMaxDecimals)
            num.value = Rational::parse(plain_digits(s_.substr(i, num_end - i)));
        push(Kind::num, i, end);
        out_.tokens.back().number = out_.numbers.size();
        out_.numbers.push_back(std::move(num));
        return end;
    }

    std::string_view s_;
    Tokens out_;
};

// ---------------------------------------------------------------------------------
// Parsing

// Verb phrases that link an expression to its stated result. Approximations ("is
// about", "roughly", "~") are deliberately absent: they do not claim equality.
constexpr std::string_view kVerbs[][3] = {
    {"is", "equal", "to"},  {"are", "equal", "to"}, {"adds", "up", "to"},  {"add", "up", "to"},
    {"works", "out", "to"}, {"is", "exactly", ""},  {"would", "be", ""},   {"will", "be", ""},
    {"should", "be", ""},   {"must", "be", ""},     {"would", "give", ""}, {"comes", "to", ""},
    {"come", "to", ""},     {"came", "to", ""},     {"equal", "to", ""},   {"is", "", ""},
    {"are", "", ""},        {"was", "", ""},        {"were", "", ""},      {"gives", "", ""},
    {"give", "", ""},       {"giving", "", ""},     {"makes", "", ""},     {"make", "", ""},
    {"equals", "", ""},     {"equal", "", ""},      {"totals", "", ""},    {"totalling", "", ""},
    {"totaling", "", ""},   {"yields", "", ""},     {"yield", "", ""},     {"yielding", "", ""},
};

struct Chain {
    std::vector<std::size_t> factors;  ///< token indices
    std::vector<char> ops;
    std::size_t after = 0;    ///< token index where a link may follow (after filler / ')')
    bool incomplete = false;  ///< ends in an operator whose operand is not a number
    bool too_long = false;
};

struct SideParse {
    bool expression = false;
    std::vector<std::size_t> factors;  ///< token indices
    std::vector<char> ops;
    std::string unit;
    int decimals = 0;
    std::size_t begin = 0;  ///< byte span
    std::size_t end = 0;
    std::size_t next = 0;  ///< token index after the side (after trailing filler for chains)
};

class Parser {
  public:
    Parser(std::string_view text, Tokens tokens)
        : s_(text), t_(std::move(tokens.tokens)), n_(std::move(tokens.numbers)) {}

    std::vector<Claim> run() {
        std::vector<Claim> claims;
        std::size_t i = 0;
        while (i < t_.size()) {
            std::size_t resume = i + 1;
            if (auto claim = try_claim(i, resume))
                claims.push_back(std::move(*claim));
            i = resume > i ? resume : i + 1;
        }
        return claims;
    }

  private:
    /// The number details of token i (which must be a Kind::num token).
    const Number& num(std::size_t i) const { return n_[t_[i].number]; }
    Kind kind(std::size_t i) const { return i < t_.size() ? t_[i].kind : Kind::brk; }
    bool is_op(std::size_t i) const { return kind(i) == Kind::mul || kind(i) == Kind::div; }
    std::string_view text(std::size_t i) const {
        return s_.substr(t_[i].begin, t_[i].end - t_[i].begin);
    }
    bool is_factor(std::size_t i) const {
        return kind(i) == Kind::num && num(i).usable && !num(i).ratio;
    }

    /// Length in tokens of the verb phrase starting at token i, 0 if none.
    std::size_t verb_at(std::size_t i) const {
        for (const auto& verb : kVerbs) {
            std::size_t len = 0;
            bool match = true;
            for (std::string_view w : verb) {
                if (w.empty())
                    break;
                if (kind(i + len) != Kind::word || !iequals(text(i + len), w)) {
                    match = false;
                    break;
                }
                ++len;
            }
            if (match)
                return len;
        }
        return 0;
    }

    /// Token index of the ')' closing a short filler group opened at i, if any.
    std::optional<std::size_t> paren_group_end(std::size_t i) const {
        for (std::size_t k = i + 1; k < t_.size() && k <= i + kMaxParenTokens + 1; ++k) {
            Kind kk = kind(k);
            if (kk == Kind::rparen)
                return k;
            if (kk == Kind::lparen || kk == Kind::eq || kk == Kind::brk)
                return std::nullopt;
        }
        return std::nullopt;
    }

    /// Skips a short run of words and parenthetical groups; stops at a verb.
    std::size_t skip_filler(std::size_t i) const {
        std::size_t words = 0;
        std::size_t parens = 0;
        while (i < t_.size()) {
            if (kind(i) == Kind::word) {
                if (words == kMaxFillerWords || verb_at(i) > 0)
                    break;
                ++words;
                ++i;
            } else if (kind(i) == Kind::lparen) {
                if (parens == kMaxFillerParens)
                    break;
                auto close = paren_group_end(i);
                if (!close)
                    break;
                ++parens;
                i = *close + 1;
            } else {
                break;
            }
        }
        return i;
    }

    /// Numbers joined by operators from factor token `start`. With `in_paren`, one ')'
    /// closing the '(' before `start` may appear after a factor.
    Chain parse_chain(std::size_t start, bool in_paren) const {
        Chain c;
        c.factors.push_back(start);
        bool closed = false;
        std::size_t p = start + 1;
        for (;;) {
            std::size_t q = skip_filler(p);
            if (in_paren && !closed && kind(q) == Kind::rparen) {
                closed = true;
                q = skip_filler(q + 1);
            }
            c.after = q;
            if (!is_op(q))
                break;
            if (is_factor(q + 1)) {
                if (c.factors.size() == kMaxFactors) {
                    c.too_long = true;
                    break;
                }
                c.ops.push_back(kind(q) == Kind::mul ? '*' : '/');
                c.factors.push_back(q + 1);
                p = q + 2;
                continue;
            }
            Kind operand = kind(q + 1);
            c.incomplete = operand == Kind::word || operand == Kind::lparen || operand == Kind::num;
            break;
        }
        return c;
    }

    /// A stated number at token i, with its unit (glued, "x", or the following word(s)).
    SideParse stated_side(std::size_t i) const {
        SideParse side;
        side.factors.push_back(i);
        side.decimals = num(i).decimals;
        side.unit = num(i).unit;
        side.begin = t_[i].begin;
        side.end = t_[i].end;
        side.next = i + 1;
        if (side.unit.empty() && kind(i + 1) == Kind::word) {
            if (auto unit = canonical_unit(text(i + 1))) {
                side.unit = *unit;
                side.end = t_[i + 1].end;
                side.next = i + 2;
                if (side.unit.find('/') == std::string::npos && kind(i + 2) == Kind::word &&
                    kind(i + 3) == Kind::word && iequals(text(i + 2), "per") &&
                    (text(i + 3) == "token" || text(i + 3) == "tok")) {
                    side.unit += "/token";
                    side.end = t_[i + 3].end;
                    side.next = i + 4;
                }
            }
        }
        return side;
    }

    SideParse expression_side(const Chain& c) const {
        SideParse side;
        side.expression = true;
        side.factors = c.factors;
        side.ops = c.ops;
        side.begin = t_[c.factors.front()].begin;
        side.end = num(c.factors.back()).num_end;
        side.next = c.after;
        return side;
    }

    /// A side after a link: an expression or a stated number. After a verb a ratio
    /// ("is 4x faster") or "N times" compares something else, so it is not a side.
    std::optional<SideParse> parse_side(std::size_t i, bool after_verb) const {
        if (kind(i) != Kind::num || !num(i).usable)
            return std::nullopt;
        if (after_verb &&
            (num(i).ratio || (kind(i + 1) == Kind::word && iequals(text(i + 1), "times")))) {
            return std::nullopt;
        }
        if (num(i).ratio) {
            SideParse side = stated_side(i);
            if (is_op(side.next)) {
                Kind operand = kind(side.next + 1);
                if (operand == Kind::word || operand == Kind::lparen || operand == Kind::num) {
                    return std::nullopt;
                }
            }
            return side;
        }
        Chain c = parse_chain(i, false);
        if (c.too_long || c.incomplete)
            return std::nullopt;
        if (c.factors.size() >= 2)
            return expression_side(c);
        return stated_side(i);
    }

    struct Link {
        std::size_t next = 0;  ///< token index of the side after the link
        bool verb = false;
    };

    /// The link ('=', "->", U+2192, or a verb after an expression) at token i.
    std::optional<Link> link_at(std::size_t i, bool allow_verb) const {
        if (kind(i) == Kind::eq)
            return Link{i + 1, false};
        if (allow_verb) {
            if (std::size_t len = verb_at(i))
                return Link{i + len, true};
        }
        return std::nullopt;
    }

    /// "4.0x reduction (262144/65536)": a ratio, up to a few words, then a parenthesised
    /// expression and nothing else but an optional unit word.
    std::optional<std::vector<SideParse>> ratio_form(std::size_t i) const {
        std::size_t p = i + 1;
        std::size_t words = 0;
        while (kind(p) == Kind::word && words < kMaxRatioWords) {
            ++p;
            ++words;
        }
        if (kind(p) != Kind::lparen || !is_factor(p + 1))
            return std::nullopt;
        Chain c = parse_chain(p + 1, false);
        if (c.too_long || c.incomplete || c.factors.size() < 2)
            return std::nullopt;
        std::size_t close = c.factors.back() + 1;
        if (kind(close) == Kind::word && canonical_unit(text(close)))
            ++close;
        if (kind(close) != Kind::rparen)
            return std::nullopt;
        SideParse expr = expression_side(c);
        expr.next = close + 1;
        return std::vector<SideParse>{stated_side(i), expr};  // a ratio has its unit "x"
    }

    std::optional<Claim> try_claim(std::size_t i, std::size_t& resume) const {
        if (kind(i) != Kind::num || !num(i).usable)
            return std::nullopt;
        // An operand of a larger expression ("n x 2 x 3", "a / (2 x 3)") is not a start.
        auto binary_op_before = [&](std::size_t k) {
            if (k == 0 || !is_op(k - 1))
                return false;
            if (k == 1)
                return false;
            Kind left = kind(k - 2);
            return left == Kind::num || left == Kind::word || left == Kind::rparen;
        };
        if (binary_op_before(i))
            return std::nullopt;
        bool in_paren = false;
        if (i > 0 && kind(i - 1) == Kind::lparen) {
            if (binary_op_before(i - 1))
                return std::nullopt;
            in_paren = true;
        }

        std::vector<SideParse> sides;
        Claim::Kind claim_kind = Claim::Kind::equation;
        std::optional<Link> link;
        if (num(i).ratio) {
            if (auto ratio = ratio_form(i)) {
                sides = std::move(*ratio);
                claim_kind = Claim::Kind::ratio;
            } else {
                SideParse first = stated_side(i);
                link = link_at(first.next, false);
                sides.push_back(std::move(first));
            }
        } else {
            Chain c = parse_chain(i, in_paren);
            resume = c.factors.back() + 1;
            if (c.too_long || c.incomplete)
                return std::nullopt;
            if (c.factors.size() >= 2) {
                sides.push_back(expression_side(c));
                link = link_at(c.after, true);
            } else {
                SideParse first = stated_side(i);
                link = link_at(first.next, false);
                sides.push_back(std::move(first));
            }
        }
        while (link && sides.size() < kMaxSides) {
            auto side = parse_side(link->next, link->verb);
            if (!side)
                break;
            link = link_at(side->next, side->expression);
            sides.push_back(std::move(*side));
        }

        if (sides.size() < 2)
            return std::nullopt;
        bool any_expression = false;
        for (const auto& side : sides) any_expression = any_expression || side.expression;
        if (!any_expression)
            return std::nullopt;
        // For expression sides `next` may include trailing filler; resume after the
        // last number instead so that nothing the claim did not use is skipped.
        const SideParse& last = sides.back();
        resume = last.expression ? last.factors.back() + 1 : last.next;
        if (claim_kind == Claim::Kind::ratio)
            resume = last.next;
        return build(sides, claim_kind);
    }

    // -----------------------------------------------------------------------------
    // Evaluation

    Rational evaluate(const SideParse& side) const {
        const Number& first = num(side.factors.front());
        if (!first.value)
            throw OverflowError("number does not fit in 64 bits");
        Rational v = *first.value;
        for (std::size_t k = 1; k < side.factors.size(); ++k) {
            const Number& f = num(side.factors[k]);
            if (!f.value)
                throw OverflowError("number does not fit in 64 bits");
            v = side.ops[k - 1] == '*' ? v * *f.value : v / *f.value;
        }
        return v;
    }

    bool agrees(const Rational& computed, const SideParse& side) const {
        if (side.expression)
            return evaluate(side) == computed;
        const Number& tok = num(side.factors.front());
        if (!tok.value)
            throw OverflowError("number does not fit in 64 bits");
        UnitInfo info = unit_info(side.unit);
        if (info.exact && side.decimals == 0)
            return computed == *tok.value;
        Rational in_unit = computed / Rational(info.scale);
        return in_unit.round_scaled(side.decimals) == tok.value->round_scaled(side.decimals);
    }

    static std::string plain_display(const Rational& v) {
        if (v.is_integer())
            return group_thousands(v.num());
        try {
            return v.to_display();
        } catch (const std::exception&) {
            return v.to_string();
        }
    }

    static std::string fixed_display(std::int64_t scaled, int decimals) {
        bool negative = scaled < 0;
        std::uint64_t mag =
            negative ? 0 - static_cast<std::uint64_t>(scaled) : static_cast<std::uint64_t>(scaled);
        std::uint64_t pow10 = 1;
        for (int k = 0; k < decimals; ++k) pow10 *= 10;
        std::uint64_t whole = mag / pow10;
        std::string out = negative ? "-" : "";
        out += whole <= static_cast<std::uint64_t>(INT64_MAX)
                   ? group_thousands(static_cast<std::int64_t>(whole))
                   : std::to_string(whole);
        if (decimals > 0) {
            std::string frac = std::to_string(mag % pow10);
            frac.insert(0, static_cast<std::size_t>(decimals) - frac.size(), '0');
            out += "." + frac;
        }
        return out;
    }

    /// The computed value written the way `side` states its number.
    std::string display_like(const Rational& computed, const SideParse& side) const {
        if (side.expression)
            return plain_display(computed);
        UnitInfo info = unit_info(side.unit);
        if (info.exact && side.decimals == 0)
            return plain_display(computed);
        Rational in_unit = computed / Rational(info.scale);
        std::string number = fixed_display(in_unit.round_scaled(side.decimals), side.decimals);
        if (side.unit == "x")
            return number + "x";
        if (info.exact)
            return number;
        return number + " " + side.unit;
    }

    ClaimSide to_claim_side(const SideParse& p) const {
        ClaimSide side;
        side.offset = p.begin;
        side.length = p.end - p.begin;
        side.text = std::string(s_.substr(p.begin, p.end - p.begin));
        for (std::size_t f : p.factors) side.factors.push_back(num(f).value.value_or(Rational()));
        side.ops = p.ops;
        side.unit = p.unit;
        side.decimals = p.decimals;
        try {
            if (p.expression) {
                side.value = evaluate(p);
            } else if (num(p.factors.front()).value) {
                side.value = *num(p.factors.front()).value * Rational(unit_info(p.unit).scale);
            }
        } catch (const std::exception&) {
            side.value = Rational();  // does not fit: left at 0 (see claims.h)
        }
        return side;
    }

    std::string expression_text(const SideParse& p) const {
        std::string out;
        for (std::size_t k = 0; k < p.factors.size(); ++k) {
            if (k > 0)
                out += p.ops[k - 1] == '*' ? " x " : " / ";
            const Token& t = t_[p.factors[k]];
            out += plain_digits(s_.substr(t.begin, num(p.factors[k]).num_end - t.begin));
        }
        return out;
    }

    Claim build(const std::vector<SideParse>& sides, Claim::Kind claim_kind) const {
        Claim claim;
        claim.kind = claim_kind;
        claim.offset = sides.front().begin;
        claim.length = sides.back().end - claim.offset;
        claim.text = std::string(s_.substr(claim.offset, claim.length));
        for (const auto& side : sides) claim.sides.push_back(to_claim_side(side));

        std::size_t ref = 0;
        while (!sides[ref].expression) ++ref;
        claim.expression = expression_text(sides[ref]);
        std::size_t first_other = ref == 0 ? 1 : 0;
        std::size_t last_other = ref == sides.size() - 1 ? sides.size() - 2 : sides.size() - 1;

        // Overflow policy: a claim whose arithmetic leaves 64 bits is reported as not
        // holding, with computed_display "overflow" (a division by zero likewise, with
        // "division by zero"); nothing is wrapped and nothing is thrown.
        auto fail = [&](std::size_t side, const char* why) {
            claim.holds = false;
            claim.wrong_side = side;
            claim.computed_display = why;
        };
        Rational computed;
        try {
            computed = evaluate(sides[ref]);
        } catch (const std::domain_error&) {
            fail(first_other, "division by zero");
            return claim;
        } catch (const std::exception&) {
            fail(first_other, "overflow");
            return claim;
        }
        for (std::size_t k = 0; k < sides.size(); ++k) {
            if (k == ref)
                continue;
            try {
                if (!agrees(computed, sides[k])) {
                    claim.holds = false;
                    claim.wrong_side = k;
                    claim.computed_display = display_like(computed, sides[k]);
                    return claim;
                }
            } catch (const std::domain_error&) {
                fail(k, "division by zero");
                return claim;
            } catch (const std::exception&) {
                fail(k, "overflow");
                return claim;
            }
        }
        try {
            claim.computed_display = display_like(computed, sides[last_other]);
        } catch (const std::exception&) {
            claim.computed_display = plain_display(computed);
        }
        return claim;
    }

    std::string_view s_;
    std::vector<Token> t_;
    std::vector<Number> n_;
};

}  // namespace

std::vector<Claim> find_claims(std::string_view text) {
    try {
        Parser parser(text, Tokenizer(text).run());
        return parser.run();
    } catch (const std::exception&) {
        // Not expected: every arithmetic exception is handled per claim. Allocation
        // failure is the only realistic way here; report nothing rather than throw.
        return {};
    }
}

}  // namespace kvcat
