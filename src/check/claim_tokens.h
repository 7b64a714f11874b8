// The scanner of arithmetic in prose (check/claims.cc is its parser): text in, tokens out.
//
// A hand-written, single-pass byte scanner (no std::regex: it is slow and its backtracking
// can exhaust the stack on long inputs). It works on bytes and never decodes UTF-8: the only
// multi-byte sequences it recognises are U+00D7 and U+00F7 (multiplication and division
// signs), U+2192 (rightwards arrow), U+2248 (almost equal), superscript two and three, dashes,
// a few space characters and CJK punctuation; any other byte >= 0x80 is treated as part of a
// word, so invalid UTF-8 is harmless.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/rational.h"

namespace kvcat::claim_tokens {

// plus/minus are a free-standing '+' / '-'; pow is a spaced "**"; approx is U+2248;
// colon may mark a result after an expression.
enum class Kind { num, word, mul, div, plus, minus, pow, eq, approx, colon, lparen, rparen, punct, brk };

// Tokens are kept small (a 1 MB input may hold half a million of them); the details
// of number tokens live in a separate array.
struct Token {
    Kind kind = Kind::punct;
    std::size_t begin = 0;  ///< byte span of the whole token
    std::size_t end = 0;
    std::size_t number = 0;   ///< index into Tokens::numbers for Kind::num
    bool line_start = false;  ///< first token on its line
};

struct Number {
    std::size_t num_end = 0;        ///< end of the digits (before a glued unit or "x")
    bool usable = false;            ///< clean left/right context: may be a factor or a result
    bool ratio = false;             ///< written with a glued "x" / U+00D7: "4.0x"
    std::string_view unit;          ///< canonical glued unit ("x" for a ratio), "" if none
    bool glued_b = false;           ///< the unit is a bare "B" against the digits ("13B")
    char suffix = 0;                ///< 'k' or 'M' written against the digits ("77k", "671M")
    bool approx = false;            ///< written after "~" or U+2248
    std::optional<Rational> value;  ///< nullopt when the literal does not fit 64 bits
    int decimals = 0;
};

struct Tokens {
    std::vector<Token> tokens;
    std::vector<Number> numbers;
};

/// The tokens of `text`, in one pass.
Tokens tokenize(std::string_view text);

struct UnitInfo {
    std::int64_t scale = 1;  ///< bytes per unit (1 for bytes, plain numbers and ratios)
    bool exact = true;       ///< an integer stated in this unit must match exactly
};

/// Canonical unit for a unit word: "B", "B/token", "KiB", "GiB/token", ...; nullopt
/// when the word is not a unit. The view refers to static storage.
std::optional<std::string_view> canonical_unit(std::string_view word);

/// Bytes per unit, and whether an integer stated in it must match exactly.
UnitInfo unit_info(std::string_view unit);

bool is_digit(unsigned char c);

/// The byte at i as unsigned, for the comparisons with 0x80 and above.
unsigned char byte_at(std::string_view s, std::size_t i);

/// The digits of a number as written, without thousands separators.
std::string plain_digits(std::string_view s);

/// A number as the recomputed expression shows it: without thousands separators, with a
/// superscript power kept ("1024²" stays "1024²", not "1024").
std::string shown_number(std::string_view s);

/// factor * base^exponent, or nullopt when it leaves 64 bits.
std::optional<Rational> raise(const Rational& base, int exponent, const Rational& factor);

}  // namespace kvcat::claim_tokens
