// Arithmetic stated in prose.
//
// Records argue in sentences: "16 x 4 x 256 x 2 (K+V) x 2 bytes = 65,536 B/token",
// "(64 x 24 query heads x 256 x 2 x 2) would be 1,572,864 B/token", "a 4.0x reduction
// (262144/65536)". find_claims() recognises such statements in free text, recomputes
// them exactly and says whether each one holds. It never reports a sentence it does
// not recognise: text that merely looks numeric ("33.5 t/s at 4k", "Qwen3.5-35B-A3B")
// yields no claim at all. It is a pure function of the text; mapping an offset to a
// file position is the caller's business.
//
// Recognised forms (the scan is a hand-written tokenizer, linear in the text size):
//  - an expression of numbers joined by a standalone "x", U+00D7, "*", "/", U+00F7, "\times",
//    "\cdot" or "\div", with sums ("+", also tight between digits as in "16*4+8", and "-"
//    inside parentheses), parenthesised groups and powers ("1024 ** 3", "1024²"); up to 5
//    words and 2 short parenthetical groups ("heads", "(K+V)", "byte (fp8)") may stand
//    between a number and the next operator;
//  - followed by "=", "->", U+2192, ':' or a verb phrase (is, are, would be, will be, gives,
//    comes to, makes, equals, totals, yields, ...) and a stated result; "=" may chain
//    further sides, each either an expression or a stated number, and a side that starts
//    from the value reached so far carries the chain on;
//  - a stated number first and an expression after "=": "65,536 = 64 x 1,024";
//  - a chain inside parentheses whose result follows the ')':
//    "(64 x 24 heads x 256 x 2 x 2) would be 1,572,864 B/token";
//  - a figure before its chain, "8.3 GB (8 entries x 1.1k tokens x 128 KB)": never wrong;
//  - a result followed by a line that opens with an operator, which carries the chain on
//    from that result: "= 2,048 bytes" then "x 80 layers = 163,840 bytes";
//  - inline math, "$64 \times 4096 = 262144$" and "$$...$$", read like the text around it;
//  - a ratio "<N>x [up to 5 words] (<expression>)": "a 4.0x reduction (262144/65536)".
// Units on operands are carried (KiB x count is KiB; "13B x 2 bytes" is 26 GB; bits are
// eighths of a byte), units may be spelled out ("64 kibibytes"), KB..TB hold in either the SI
// or the binary reading, "k" after a number is 1000 or 1024. A claim whose operands or result
// cannot be read with certainty, or that is written as an approximation, is found but left
// unjudged (Verdict::unjudged, with why).
// Not claims: a number glued to letters, '-', '%' or ':' ("fp8", "2026-04-22", "14%"),
// comma lists ("3,7,...,63"), numbers with a leading zero, an expression with no stated
// result, approximations ("~=", U+2248, "is about"), an expression that is an operand of
// something larger ("n x 2 x 3 = 6", "ceil(a/b) = c"), and "x" glued between digits ("2x2").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "support/rational.h"

namespace kvcat {

/// One side of a claim: an expression ("64 x 4 x 256 x 2 x 2", "262144/65536") or a
/// single stated number ("65,536 B/token", "1.00 GiB", "4.0x").
struct ClaimSide {
    std::size_t offset = 0;         ///< byte offset of the side in the scanned text
    std::size_t length = 0;         ///< byte length of the side as written
    std::string text;               ///< the side exactly as written
    std::vector<Rational> factors;  ///< the numbers of an expression as written, in order (one for a number)
    /// The binary operators in written order (size factors-1): '*' or '/', and '+', '-' or
    /// '^' in sums and powers (then factors are not a plain product).
    std::vector<char> ops;
    /// Canonical unit of a stated number: "" (none), "B" (also "byte(s)"), "B/token" (also
    /// "bytes/token", "bytes per token"), "KiB" "MiB" "GiB" "TiB" (1024^n bytes), "KB"
    /// (also "kB") "MB" "GB" "TB" (1000^n bytes), any of those with "/token", or "x" for
    /// a ratio ("4.0x"), "%" for a percentage (a result only: "0.94 / 0.96 = 97.9%", whose
    /// value is 0.979). Always "" for an expression, whose operands' units are carried
    /// into its value.
    std::string unit;
    int decimals = 0;  ///< digits after the point of a single stated number
    /// Exact value: bytes for byte units (1.00 GiB -> 1073741824, KB..TB as powers of 1000),
    /// the plain number otherwise, the value of an expression (operands in bytes when they
    /// carry a byte unit). Rational() (0) when it does not fit in 64 bits or divides by zero.
    Rational value;
    /// '*' or '/' for a line that opens with an operator and carries the chain on from the
    /// value reached so far ("= 2,048 bytes" then "x 80 layers = 163,840 bytes"): the side is
    /// that value, this operator, then `factors`; `text` starts at the operator and `value`
    /// is that of `factors` alone. 0 for every other side.
    char carried = 0;
    bool is_expression() const { return factors.size() > 1 || carried != 0; }
};

struct Claim {
    /// ratio: the "<N>x <words> (<expression>)" form, sides {N, expression};
    /// equation: everything else, including "262144/65536 = 4.0x".
    enum class Kind { equation, ratio };
    Kind kind = Kind::equation;
    std::size_t offset = 0;  ///< byte offset where the claim starts (its first number)
    std::size_t length = 0;  ///< byte length up to the end of its last side
    /// The claim as written, from the first number of the first side to the end of the
    /// last side's number and unit: "64 x 24 heads x 256 x 2 x 2) would be 1,572,864
    /// B/token" (the '(' before the first number is outside), "4.0x reduction
    /// (262144/65536" for a ratio (the closing ')' is outside).
    std::string text;
    /// Sides in the order written. The first expression side is the one recomputed;
    /// every other side must agree with it (a stated decimal at its stated digits).
    std::vector<ClaimSide> sides;
    /// holds: recomputed and right; wrong: recomputed and wrong (an error);
    /// binary_only: right only when KB/MB/GB/TB mean powers of 1024 (a note suggesting
    /// KiB/MiB/GiB); unjudged: found, but not every operand and result could be read with
    /// certainty, or it is stated as an approximation (`why` says which).
    enum class Verdict { holds, wrong, binary_only, unjudged };
    Verdict verdict = Verdict::holds;
    /// false only for Verdict::wrong: a claim left unjudged is never reported as wrong.
    bool holds = true;
    /// Why the claim was left unjudged; for binary_only, the units to write instead.
    std::string why;
    /// Index into `sides` of the first side that disagrees (valid when !holds).
    std::size_t wrong_side = 0;
    /// The recomputed value rendered like the side it is compared with (the wrong side;
    /// for a claim that holds, the last side other than the recomputed one):
    ///  - expression, or integer with unit "", "B", "B/token": the exact value with
    ///    thousands separators and no unit, "262,144" (a non-integer as a finite decimal
    ///    "1.0625" or a reduced fraction "10/3");
    ///  - scaled unit (KiB...TB, with or without "/token"): rounded to the stated number
    ///    of decimals, then a space and the canonical unit, "4.00 GiB";
    ///  - ratio: rounded to the stated decimals, then "x", "4.0x";
    ///  - a decimal stated without a scaled unit: rounded to its decimals, "1.06".
    /// Overflow policy: if the arithmetic of any side does not fit in 64 bits (or a
    /// literal is too large), the claim is reported with holds = false and
    /// computed_display "overflow"; a division by zero likewise gives "division by zero".
    /// wrong_side is then the side that failed, or the first side other than the
    /// recomputed one when the recomputed side itself failed.
    std::string computed_display;
    /// The recomputed expression, numbers as written minus thousands separators, scaled units
    /// kept, joined by " x ", " / ", " + ": "64 x 4 x 256 x 2 x 2", "320 KiB x 32768",
    /// "(16 x 4 x 256 + 5 x 8 x 128) x 2".
    std::string expression;
};

/// Every arithmetic claim in `text`, in order of appearance. Never throws; any byte
/// string (including invalid UTF-8) is accepted.
std::vector<Claim> find_claims(std::string_view text);

}  // namespace kvcat
