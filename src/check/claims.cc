// Recognising and recomputing arithmetic stated in prose.
//
// The text is first cut into tokens (check/claim_tokens.h). A small parser then tries each
// number token as the start of a claim. Every attempt looks at a bounded number of tokens
// beyond the factor chain it parses (filler runs, parenthetical groups, sides and chains are
// all capped), and a failed attempt resumes after the chain it consumed, so the whole scan is
// linear in the input size. A claim it finds is then evaluated exactly under each reading of
// its units, and judged.
#include "check/claims.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "check/claim_tokens.h"
#include "support/suggest.h"

namespace kvcat {
namespace {

using namespace claim_tokens;

// Limits that keep recognition conservative and the scan linear.
constexpr std::size_t kMaxFillerWords = 5;   // words between a number and the next operator
constexpr std::size_t kMaxFillerParens = 2;  // parenthetical groups in the same gap
constexpr std::size_t kMaxParenTokens = 12;  // tokens inside one filler group
constexpr std::size_t kMaxFactors = 64;      // factors in one expression
constexpr std::size_t kMaxSides = 8;         // sides in one claim
constexpr std::size_t kMaxRatioWords = 5;    // words between "4.0x" and "(a/b)"

// ---------------------------------------------------------------------------------
// Parsing

// Verb phrases that link an expression to its stated result. Approximations ("is
// about", "roughly", "~") are deliberately absent: they do not claim equality.
constexpr std::string_view kVerbs[][3] = {
    {"is", "equal", "to"}, {"are", "equal", "to"}, {"adds", "up", "to"},  {"add", "up", "to"},  {"works", "out", "to"},
    {"is", "exactly", ""}, {"would", "be", ""},    {"will", "be", ""},    {"should", "be", ""}, {"must", "be", ""},
    {"would", "give", ""}, {"comes", "to", ""},    {"come", "to", ""},    {"came", "to", ""},   {"equal", "to", ""},
    {"is", "", ""},        {"are", "", ""},        {"was", "", ""},       {"were", "", ""},     {"gives", "", ""},
    {"give", "", ""},      {"giving", "", ""},     {"makes", "", ""},     {"make", "", ""},     {"equals", "", ""},
    {"equal", "", ""},     {"totals", "", ""},     {"totalling", "", ""}, {"totaling", "", ""}, {"yields", "", ""},
    {"yield", "", ""},     {"yielding", "", ""},
};

/// The first letters of the verb phrases: a word starting with another cannot open one.
constexpr auto kVerbInitials = [] {
    std::array<bool, 256> initial{};
    for (const auto& verb : kVerbs) initial[static_cast<unsigned char>(verb[0][0])] = true;
    return initial;
}();

/// One step of an expression in postfix order: a leaf (an operand) or an operator.
struct Step {
    char op = 0;           ///< 0 for a leaf; '*', '/', '+', '-' or '^'
    std::size_t leaf = 0;  ///< index into Expr::leaves
};

/// An operand as written: its number token and the unit that follows it.
struct Leaf {
    std::size_t tok = 0;
    std::string_view unit;  ///< canonical byte unit ("KiB", "B/token"), "bit", or ""
    bool tokens = false;    ///< "tokens" follows: a count of tokens
};

/// An expression with precedence: sums of products of powers of operands and groups.
struct Expr {
    std::vector<Step> rpn;
    std::vector<Leaf> leaves;
    std::vector<char> ops;     ///< binary operators in written order (leaves.size() - 1 of them)
    std::string shown;         ///< "320 KiB x 32768", "(16 x 4 + 5 x 8) x 2"
    std::string shown_units;   ///< the same with byte units kept too: "1 byte x 3"
    std::size_t after = 0;     ///< token index where a link may follow (after filler)
    std::size_t last = 0;      ///< last token of the expression proper (a number or ')')
    std::size_t last_end = 0;  ///< byte end of the last operand with its unit
    bool sum = false;          ///< has a '+' or '-' outside any group
    bool approx = false;       ///< an operand is written as an approximation ("~1.1k")
    bool incomplete = false;   ///< an operator whose operand is not a readable number
    bool too_long = false;
};

struct SideParse {
    bool expression = false;
    Expr expr;            ///< for an expression
    std::size_t tok = 0;  ///< the number token of a stated side
    std::string unit;
    int decimals = 0;
    bool approx = false;
    std::size_t begin = 0;  ///< byte span
    std::size_t end = 0;
    std::size_t next = 0;  ///< token index after the side (after trailing filler for chains)
    char carried = 0;      ///< '*' or '/': a line opening with an operator carries the chain on
};

/// An exact value and how many byte units it carries (1 for bytes, 0 for a count).
struct Quantity {
    Rational v;
    int dim = 0;
};

/// Two operands with different byte powers added: "2 bytes + 3".
struct UnlikeUnits : std::runtime_error {
    UnlikeUnits() : std::runtime_error("unlike units") {}
};

// A reading settles each ambiguity of a claim: bit 0, "k" and "M" after a number as 1024
// and 2^20 rather than 1000 and 10^6; bit 1, KB/MB/GB/TB on operands as powers of 1024;
// bit 2, the same in stated results; bit 3, a stated "1.05B" as billions rather than
// bytes; bit 4, a chain of bare numbers already in the result's unit ("2 x 4.99 = 9.98 GiB").
constexpr unsigned kReadings = 32;
constexpr unsigned kBinaryCounts = 1;  // "32k" context is 32,768 tokens
constexpr unsigned kBinaryOperandUnits = 2;
constexpr unsigned kBinaryResultUnits = 4;
constexpr unsigned kBillions = 8;
constexpr unsigned kInResultUnit = 16;

/// |log(computed / stated)| beyond which a figure is taken to measure something else.
const double kThousandfold = std::log(999.0);

bool is_decimal_byte_unit(std::string_view unit) {
    std::string_view base = unit.substr(0, unit.find('/'));
    return base == "KB" || base == "MB" || base == "GB" || base == "TB";
}

/// Bytes per unit under a reading: "KB" is 1000 or 1024.
Rational unit_scale(std::string_view unit, bool binary) {
    if (unit == "bit") return Rational(1, 8);
    if (unit == "%") return Rational(1, 100);
    UnitInfo info = unit_info(unit);
    if (binary && is_decimal_byte_unit(unit)) {
        std::int64_t scale = 1;
        for (std::int64_t k = info.scale; k > 1; k /= 1000) scale *= 1024;
        return Rational(scale);
    }
    return Rational(info.scale);
}

bool is_byte_unit(std::string_view unit) {
    return !unit.empty() && unit != "x" && unit != "%";
}

Rational suffix_scale(char suffix, bool binary) {
    if (suffix == 'k') return Rational(binary ? 1024 : 1000);
    if (suffix == 'M') return Rational(binary ? 1024 * 1024 : 1000 * 1000);  // "1M" of context may be 2^20
    return Rational(1);
}

/// The digits scaled to `digits` decimals, truncated toward zero.
std::optional<std::int64_t> truncate_scaled(const Rational& r, int digits) {
    __extension__ __int128 scaled = r.num();  // room for 10^digits times any 64-bit numerator
    for (int k = 0; k < digits; ++k) scaled *= 10;
    scaled /= r.den();
    if (scaled > INT64_MAX || scaled < INT64_MIN) return std::nullopt;
    return static_cast<std::int64_t>(scaled);
}

class Parser {
  public:
    Parser(std::string_view text, Tokens tokens)
        : s_(text), t_(std::move(tokens.tokens)), n_(std::move(tokens.numbers)) {}

    std::vector<Claim> run() {
        std::vector<Claim> claims;
        std::size_t i = 0;
        while (i < t_.size()) {
            std::size_t resume = i + 1;
            if (auto claim = try_claim(i, resume)) claims.push_back(std::move(*claim));
            i = resume > i ? resume : i + 1;
        }
        return claims;
    }

  private:
    /// The number details of token i (which must be a Kind::num token).
    const Number& num(std::size_t i) const { return n_[t_[i].number]; }
    Kind kind(std::size_t i) const { return i < t_.size() ? t_[i].kind : Kind::brk; }
    bool is_op(std::size_t i) const { return kind(i) == Kind::mul || kind(i) == Kind::div; }
    std::string_view text(std::size_t i) const { return s_.substr(t_[i].begin, t_[i].end - t_[i].begin); }
    bool is_factor(std::size_t i) const {
        return kind(i) == Kind::num && num(i).usable && !num(i).ratio && num(i).unit != "%";
    }

    /// Length in tokens of the verb phrase starting at token i, 0 if none.
    std::size_t verb_at(std::size_t i) const {
        if (kind(i) != Kind::word) return 0;
        // Most words start with a letter no verb starts with: ruled out at one byte.
        unsigned char first = byte_at(s_, t_[i].begin);
        if (first >= 'A' && first <= 'Z') first = static_cast<unsigned char>(first - 'A' + 'a');
        if (!kVerbInitials[first]) return 0;
        const std::size_t first_size = t_[i].end - t_[i].begin;
        for (const auto& verb : kVerbs) {
            if (verb[0].size() != first_size) continue;
            std::size_t len = 0;
            bool match = true;
            for (std::string_view w : verb) {
                if (w.empty()) break;
                if (kind(i + len) != Kind::word || !equal_ignoring_case(text(i + len), w)) {
                    match = false;
                    break;
                }
                ++len;
            }
            if (match) return len;
        }
        return 0;
    }

    /// Token index of the ')' closing a short filler group opened at i, if any.
    std::optional<std::size_t> paren_group_end(std::size_t i) const {
        for (std::size_t k = i + 1; k < t_.size() && k <= i + kMaxParenTokens + 1; ++k) {
            Kind kk = kind(k);
            if (kk == Kind::rparen) return k;
            if (kk == Kind::lparen || kk == Kind::eq || kk == Kind::brk) return std::nullopt;
        }
        return std::nullopt;
    }

    /// Skips a short run of words and parenthetical groups; stops at a verb, and in a
    /// result at the end of its line.
    std::size_t skip_filler(std::size_t i, bool result = false) const {
        std::size_t words = 0;
        std::size_t parens = 0;
        while (i < t_.size()) {
            if (result && t_[i].line_start) break;
            if (kind(i) == Kind::word) {
                if (words == kMaxFillerWords || verb_at(i) > 0) break;
                ++words;
                ++i;
            } else if (kind(i) == Kind::lparen) {
                if (parens == kMaxFillerParens) break;
                auto close = paren_group_end(i);
                if (!close) break;
                ++parens;
                i = *close + 1;
            } else {
                break;
            }
        }
        return i;
    }

    bool is_operand_start(std::size_t i) const { return is_factor(i) || kind(i) == Kind::lparen; }

    /// Past a U+2248 before an operand: "x ≈8 entries".
    std::size_t skip_approx(std::size_t i) const { return kind(i) == Kind::approx && is_factor(i + 1) ? i + 1 : i; }

    /// The token after `i` on the same line, or `i` itself when the next one opens a line.
    bool same_line(std::size_t i) const { return i < t_.size() && !t_[i].line_start; }
    /// Token i starts the line right after the one token i-1 ends (no blank line between).
    bool on_the_next_line(std::size_t i) const {
        if (i == 0 || i >= t_.size() || !t_[i].line_start) return false;
        std::string_view gap = s_.substr(t_[i - 1].end, t_[i].begin - t_[i - 1].end);
        return std::count(gap.begin(), gap.end(), '\n') == 1;
    }

    /// A unit written after an operand: "KiB", "bytes", "KB/token", "bits".
    std::string_view operand_unit(std::size_t i) const {
        if (kind(i) != Kind::word || !same_line(i)) return {};
        std::string_view w = text(i);
        if (w == "bit" || w == "bits") return "bit";
        if (auto unit = canonical_unit(w)) return *unit;
        return {};
    }

    /// Whether an operator follows the number operand at token i, past its unit and the
    /// filler after it (as atom() reads them): only then can it start an expression, and a
    /// lone number ("33.5 t/s at 4k") is not parsed as one.
    bool operator_follows(std::size_t i) const {
        std::size_t q = i + 1;
        if (num(i).unit.empty() && !operand_unit(q).empty()) ++q;
        Kind next = kind(skip_filler(q));
        return next == Kind::mul || next == Kind::div || next == Kind::plus || next == Kind::pow;
    }

    /// An operand: a number with its unit, or a parenthesised expression; then filler.
    bool atom(std::size_t& p, Expr& e, int depth, bool result) const {
        if (is_factor(p)) {
            const Number& n = num(p);
            Leaf leaf;
            leaf.tok = p;
            e.approx = e.approx || n.approx || (p > 0 && kind(p - 1) == Kind::approx);
            std::size_t q = p + 1;
            if (!n.unit.empty()) {
                leaf.unit = n.unit;
            } else if (auto unit = operand_unit(q); !unit.empty()) {
                leaf.unit = unit;
                ++q;
            }
            if (kind(q) == Kind::word && same_line(q) &&
                (text(q) == "tokens" || text(q) == "token" || text(q) == "tok"))
                leaf.tokens = true;
            std::string shown = shown_number(s_.substr(t_[p].begin, n.num_end - t_[p].begin));
            if (n.suffix) shown += n.suffix;
            std::string with_unit = shown;  // "1 byte", "8 bits": the unit as written
            if (n.glued_b) {
                shown += "B";
                with_unit += "B";
            } else if (!leaf.unit.empty()) {
                if (leaf.unit != "B" && leaf.unit != "B/token") shown += " " + std::string(leaf.unit);
                with_unit += " " + std::string(n.unit.empty() ? text(q - 1) : leaf.unit);
            }
            e.shown += shown;
            e.shown_units += with_unit;
            e.rpn.push_back(Step{0, e.leaves.size()});
            e.leaves.push_back(leaf);
            e.last = p;
            e.last_end = t_[q - 1].end;
            p = skip_filler(q, result);
            return true;
        }
        if (kind(p) != Kind::lparen || depth >= 3) return false;
        Expr inner;
        std::size_t q = p + 1;
        if (!expr(q, inner, depth + 1, result) || kind(q) != Kind::rparen) return false;
        std::size_t base = e.leaves.size();
        for (Step step : inner.rpn) {
            if (step.op == 0) step.leaf += base;
            e.rpn.push_back(step);
        }
        e.leaves.insert(e.leaves.end(), inner.leaves.begin(), inner.leaves.end());
        e.ops.insert(e.ops.end(), inner.ops.begin(), inner.ops.end());
        bool keep_parens = inner.sum || (!e.ops.empty() && e.ops.back() == '/') || kind(q + 1) == Kind::pow;
        e.shown += keep_parens ? "(" + inner.shown + ")" : inner.shown;
        e.shown_units += keep_parens ? "(" + inner.shown_units + ")" : inner.shown_units;
        e.approx = e.approx || inner.approx;
        e.last = q;
        e.last_end = t_[q].end;
        p = skip_filler(q + 1, result);
        return true;
    }

    /// An operand raised to a power: "1024 ** 3" (a spaced "**").
    bool power(std::size_t& p, Expr& e, int depth, bool result) const {
        if (!atom(p, e, depth, result)) return false;
        if (kind(p) == Kind::pow && is_factor(p + 1) && num(p + 1).value && num(p + 1).value->is_integer() &&
            num(p + 1).value->num() <= 64 && num(p + 1).unit.empty() && !num(p + 1).suffix) {
            e.ops.push_back('^');
            std::size_t q = p + 1;
            std::string exponent = "^" + plain_digits(s_.substr(t_[q].begin, num(q).num_end - t_[q].begin));
            e.shown += exponent;
            e.shown_units += exponent;
            e.rpn.push_back(Step{0, e.leaves.size()});
            e.leaves.push_back(Leaf{q, {}, false});
            e.rpn.push_back(Step{'^', 0});
            e.last = q;
            e.last_end = t_[q].end;
            p = skip_filler(q + 1, result);
        }
        return true;
    }

    /// Powers joined by x, *, /, \times, U+00D7, U+00F7. In a result an operator that opens
    /// a line starts something else ("= 2,048 bytes\nx 80 layers").
    bool term(std::size_t& p, Expr& e, int depth, bool result) const {
        if (!power(p, e, depth, result)) return false;
        while (is_op(p) && !(result && t_[p].line_start)) {
            if (e.leaves.size() >= kMaxFactors) {
                e.too_long = true;
                return true;
            }
            char op = kind(p) == Kind::mul ? '*' : '/';
            std::size_t q = skip_approx(p + 1);
            if (!is_operand_start(q)) {
                Kind operand = kind(q);
                e.incomplete = operand == Kind::word || operand == Kind::lparen || operand == Kind::num;
                return true;
            }
            e.ops.push_back(op);
            e.shown += op == '*' ? " x " : " / ";
            e.shown_units += op == '*' ? " x " : " / ";
            if (!power(q, e, depth, result)) {
                e.incomplete = true;
                return true;
            }
            e.rpn.push_back(Step{op, 0});
            p = q;
        }
        return true;
    }

    /// Terms joined by a free-standing '+' (or '-' inside parentheses).
    bool expr(std::size_t& p, Expr& e, int depth, bool result) const {
        if (!term(p, e, depth, result)) return false;
        while (!e.incomplete && !e.too_long && (kind(p) == Kind::plus || (kind(p) == Kind::minus && depth > 0)) &&
               !(result && t_[p].line_start)) {
            char op = kind(p) == Kind::plus ? '+' : '-';
            std::size_t q = skip_approx(p + 1);
            if (!is_operand_start(q)) {
                e.incomplete = kind(q) == Kind::word || kind(q) == Kind::num || kind(q) == Kind::lparen;
                return true;
            }
            e.ops.push_back(op);
            e.shown += op == '+' ? " + " : " - ";
            e.shown_units += op == '+' ? " + " : " - ";
            e.sum = true;
            if (!term(q, e, depth, result)) {
                e.incomplete = true;
                return true;
            }
            e.rpn.push_back(Step{op, 0});
            p = q;
        }
        e.after = p;
        return true;
    }

    /// The expression starting at token i (a number or '('), or nullopt.
    std::optional<Expr> parse_expr(std::size_t i, bool result) const {
        Expr e;
        std::size_t p = i;
        if (!expr(p, e, 0, result)) return std::nullopt;
        e.after = p;
        return e;
    }

    /// A stated number at token i, with its unit (glued, "x", or the following word(s)).
    SideParse stated_side(std::size_t i) const {
        SideParse side;
        side.tok = i;
        side.decimals = num(i).decimals;
        side.unit = num(i).unit;
        side.approx = num(i).approx || (i > 0 && kind(i - 1) == Kind::approx);
        side.begin = t_[i].begin;
        side.end = t_[i].end;
        side.next = i + 1;
        // The unit is the next word, on the same line or, when a wrapped line ends at the
        // number ("... = 4" then "GiB, and ..."), the first word of the next line.
        if (side.unit.empty() && !num(i).suffix && kind(i + 1) == Kind::word &&
            (same_line(i + 1) || on_the_next_line(i + 1))) {
            if (auto unit = canonical_unit(text(i + 1))) {
                side.unit = *unit;
                side.end = t_[i + 1].end;
                side.next = i + 2;
                if (side.unit.find('/') == std::string::npos && kind(i + 2) == Kind::word &&
                    kind(i + 3) == Kind::word && equal_ignoring_case(text(i + 2), "per") &&
                    (text(i + 3) == "token" || text(i + 3) == "tok")) {
                    side.unit += "/token";
                    side.end = t_[i + 3].end;
                    side.next = i + 4;
                }
            }
        }
        return side;
    }

    SideParse expression_side(Expr e) const {
        SideParse side;
        side.expression = true;
        side.begin = t_[e.leaves.front().tok].begin;
        side.end = e.last_end;
        side.next = e.after;
        side.approx = e.approx;
        side.expr = std::move(e);
        return side;
    }

    /// A side after a link: an expression or a stated number. After a verb a ratio
    /// ("is 4x faster") or "N times" compares something else, so it is not a side.
    std::optional<SideParse> parse_side(std::size_t i, bool after_verb) const {
        if (kind(i) == Kind::lparen && is_factor(i + 1)) {
            auto e = parse_expr(i, true);
            if (e && !e->incomplete && !e->too_long && e->leaves.size() >= 2) return expression_side(std::move(*e));
            return std::nullopt;
        }
        if (kind(i) != Kind::num || !num(i).usable) return std::nullopt;
        if (num(i).unit == "%") return stated_side(i);  // a percentage is only ever a result
        if (after_verb && (num(i).ratio || (kind(i + 1) == Kind::word && equal_ignoring_case(text(i + 1), "times")))) {
            return std::nullopt;
        }
        if (num(i).ratio) {
            SideParse side = stated_side(i);
            if (is_op(side.next) && !t_[side.next].line_start) {
                Kind operand = kind(side.next + 1);
                if (operand == Kind::word || operand == Kind::lparen || operand == Kind::num) {
                    return std::nullopt;
                }
            }
            return side;
        }
        auto e = parse_expr(i, true);
        if (!e || e->too_long || e->incomplete) return std::nullopt;
        if (e->leaves.size() >= 2) return expression_side(std::move(*e));
        return stated_side(i);
    }

    struct Link {
        std::size_t next = 0;  ///< token index of the side after the link
        bool verb = false;
    };

    /// Emphasis or code marks around a result: "= **1.05B**", "= `4096`".
    std::size_t skip_marks(std::size_t i) const {
        while (kind(i) == Kind::punct && (text(i) == "**" || text(i) == "`" || text(i) == "*" || text(i) == "__")) ++i;
        return i;
    }

    /// The link ('=', "->", U+2192, ':' or a verb after an expression) at token i.
    std::optional<Link> link_at(std::size_t i, bool after_expression) const {
        if (kind(i) == Kind::eq) return Link{skip_marks(i + 1), false};
        if (after_expression) {
            if (kind(i) == Kind::colon && kind(skip_marks(i + 1)) == Kind::num) return Link{skip_marks(i + 1), false};
            if (std::size_t len = verb_at(i)) return Link{skip_marks(i + len), true};
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
        if (kind(p) != Kind::lparen || !is_factor(p + 1)) return std::nullopt;
        auto e = parse_expr(p + 1, false);
        if (!e || e->too_long || e->incomplete || e->leaves.size() < 2 || e->sum) return std::nullopt;
        std::size_t close = e->last + 1;
        if (kind(close) == Kind::word && canonical_unit(text(close))) ++close;
        if (kind(close) != Kind::rparen) return std::nullopt;
        SideParse expr = expression_side(std::move(*e));
        expr.next = close + 1;
        return std::vector<SideParse>{stated_side(i), expr};  // a ratio has its unit "x"
    }

    /// "8.3 GB (≈8 entries × ~1.1k tokens × 128 KB)": a figure, then the chain it came from.
    std::optional<std::vector<SideParse>> result_before_chain(std::size_t i) const {
        SideParse first = stated_side(i);
        if (!is_byte_unit(first.unit) || kind(first.next) != Kind::lparen) return std::nullopt;
        std::size_t p = first.next + 1;
        while (kind(p) == Kind::approx) ++p;
        if (!is_factor(p)) return std::nullopt;
        auto e = parse_expr(p, false);
        if (!e || e->too_long || e->incomplete || e->leaves.size() < 2 || kind(e->after) != Kind::rparen)
            return std::nullopt;
        SideParse expr = expression_side(std::move(*e));
        expr.next = expr.expr.after + 1;
        return std::vector<SideParse>{std::move(first), std::move(expr)};
    }

    /// A line that opens with an operator right after a stated result and goes on to a result
    /// of its own: "= 2,048 bytes" then "x 80 layers = 163,840 bytes" multiplies 2,048 by 80.
    std::optional<SideParse> carried_line(std::size_t i) const {
        if (!is_op(i) || !on_the_next_line(i)) return std::nullopt;
        std::size_t q = skip_approx(i + 1);
        if (!is_operand_start(q)) return std::nullopt;
        auto e = parse_expr(q, true);
        if (!e || e->incomplete || e->too_long || e->sum || !link_at(e->after, true)) return std::nullopt;
        SideParse side = expression_side(std::move(*e));
        side.begin = t_[i].begin;
        side.carried = kind(i) == Kind::mul ? '*' : '/';
        return side;
    }

    /// Whether the token at k is the right operand of an operator ("n x 2", "a + (b)").
    bool operand_of_larger(std::size_t k) const {
        if (k < 2) return false;
        Kind op = kind(k - 1);
        if (!(is_op(k - 1) || op == Kind::plus || op == Kind::pow || op == Kind::minus)) return false;
        Kind left = kind(k - 2);
        if (op == Kind::minus) return left == Kind::num || left == Kind::rparen;
        // "x[i] * 2", "[TILE_KV] * 2": a bracket closes an operand too
        bool bracket = left == Kind::punct && (text(k - 2) == "]" || text(k - 2) == "}");
        return left == Kind::num || left == Kind::word || left == Kind::rparen || bracket;
    }

    /// "at 32k", "for 8 users", "per 4 GPUs", "across 2 cards": a figure so followed is
    /// about a quantity the chain before it does not compute.
    bool qualified_elsewhere(std::size_t i) const {
        if (kind(i) != Kind::word || !same_line(i) || kind(i + 1) != Kind::num) return false;
        for (std::string_view w : {"at", "for", "per", "across", "over", "with", "x"}) {
            if (equal_ignoring_case(text(i), w)) return true;
        }
        return false;
    }

    /// A '(' that is a function's argument list ("ceil(262144/1568)") or that annotates a
    /// named operand of a larger expression ("* num_bytes (2 for fp16) / 1024").
    bool annotates_operand(std::size_t lparen) const {
        if (lparen == 0) return false;
        if (kind(lparen - 1) == Kind::word && t_[lparen - 1].end == t_[lparen].begin) return true;
        std::size_t k = lparen;
        std::size_t words = 0;
        while (k > 0 && kind(k - 1) == Kind::word && words < kMaxFillerWords) {
            --k;
            ++words;
        }
        return words > 0 && k > 0 && is_op(k - 1);
    }

    std::optional<Claim> try_claim(std::size_t i, std::size_t& resume) const {
        if (kind(i) != Kind::num || !num(i).usable || num(i).unit == "%") return std::nullopt;
        if (operand_of_larger(i)) return std::nullopt;
        bool in_paren = i > 0 && kind(i - 1) == Kind::lparen;
        if (in_paren && (operand_of_larger(i - 1) || annotates_operand(i - 1))) return std::nullopt;

        std::vector<SideParse> sides;
        Claim::Kind claim_kind = Claim::Kind::equation;
        bool before_chain = false;
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
            std::optional<Expr> e;
            if (in_paren) {
                // "(64 x 24 heads x 256 x 2 x 2) would be ...", "(16x4x256 + 5x8x128) x 2 = ..."
                e = parse_expr(i - 1, false);
                if (e && (e->incomplete || e->too_long || e->leaves.size() < 2 || !link_at(e->after, true))) e.reset();
            }
            if (!e && operator_follows(i)) e = parse_expr(i, false);
            if (e) {
                resume = e->leaves.back().tok + 1;
                if (e->too_long || e->incomplete) return std::nullopt;
            }
            if (e && e->leaves.size() >= 2) {
                std::size_t after = e->after;
                sides.push_back(expression_side(std::move(*e)));
                link = link_at(after, true);
            } else if (auto before = result_before_chain(i)) {
                sides = std::move(*before);
                before_chain = true;
            } else {
                SideParse first = stated_side(i);
                link = link_at(first.next, false);
                sides.push_back(std::move(first));
            }
        }
        while (link && sides.size() < kMaxSides) {
            auto side = parse_side(link->next, link->verb);
            if (!side) break;
            // "= 256 KB/token -> 8.0 GB at 32k": a later figure for a larger quantity
            // ends the claim; the factor that leads to it is not written.
            if (sides.size() >= 2 && !side->expression && qualified_elsewhere(side->next)) break;
            link = link_at(side->next, side->expression);
            const bool stated = !side->expression;
            const std::size_t after = side->next;
            sides.push_back(std::move(*side));
            if (!link && stated && sides.size() + 2 <= kMaxSides) {
                if (auto carried = carried_line(after)) {
                    link = link_at(carried->next, true);
                    sides.push_back(std::move(*carried));
                }
            }
        }
        // A carried line whose result could not be read adds nothing, and one only counts
        // after the expression it carries on.
        if (sides.back().carried) sides.pop_back();
        for (std::size_t k = 0; k < sides.size(); ++k) {
            if (sides[k].carried) sides.resize(k);
            if (k >= sides.size() || sides[k].expression) break;
        }

        if (sides.size() < 2) return std::nullopt;
        // Slashes that only divide can also list or label: "run 2/3: 9997 prompt tok" is
        // the second of three runs, and "16k / 32k / 64k = 1.09 / 2.23 / 4.68" pairs two
        // lists item by item. Neither is a quotient, so neither is judged.
        auto only_divides = [](const SideParse& side) {
            return side.expression && !side.expr.ops.empty() &&
                   std::all_of(side.expr.ops.begin(), side.expr.ops.end(), [](char op) { return op == '/'; });
        };
        if (only_divides(sides[0]) && kind(sides[0].expr.after) == Kind::colon) return std::nullopt;
        if (only_divides(sides[0]) && sides[0].expr.leaves.size() >= 3 && only_divides(sides[1]) &&
            sides[1].expr.leaves.size() == sides[0].expr.leaves.size())
            return std::nullopt;
        bool any_expression = false;
        for (const auto& side : sides) any_expression = any_expression || (side.expression && !side.carried);
        if (!any_expression) return std::nullopt;
        // For expression sides `next` may include trailing filler; resume after the
        // last number instead so that nothing the claim did not use is skipped.
        const SideParse& last = sides.back();
        resume = last.expression ? last.expr.leaves.back().tok + 1 : last.next;
        if (claim_kind == Claim::Kind::ratio || before_chain) resume = last.next;
        return build(sides, claim_kind, before_chain);
    }
    // -----------------------------------------------------------------------------
    // Evaluation

    /// Operands written "13B" read as billions of parameters when another operand is in
    /// bytes ("13B x 2 bytes"): then B cannot also mean bytes.
    static bool billions_in(const Expr& e, const std::vector<Number>& numbers, const std::vector<Token>& tokens) {
        bool glued_b = false;
        bool other_bytes = false;
        for (const Leaf& leaf : e.leaves) {
            const Number& n = numbers[tokens[leaf.tok].number];
            if (n.glued_b)
                glued_b = true;
            else if (is_byte_unit(leaf.unit))
                other_bytes = true;
        }
        return glued_b && other_bytes;
    }

    Quantity leaf_value(const Leaf& leaf, unsigned reading, bool billions) const {
        const Number& n = num(leaf.tok);
        if (!n.value) throw OverflowError("number does not fit in 64 bits");
        Quantity q{*n.value * suffix_scale(n.suffix, reading & kBinaryCounts), 0};
        if (n.glued_b && billions) {
            q.v = q.v * Rational(1000000000);
        } else if (is_byte_unit(leaf.unit)) {
            q.v = q.v * unit_scale(leaf.unit, reading & kBinaryOperandUnits);
            q.dim = 1;
        }
        return q;
    }

    Quantity evaluate(const Expr& e, unsigned reading) const {
        bool billions = billions_in(e, n_, t_);
        // A claim is evaluated once per reading: one array serves them all.
        std::vector<Quantity>& stack = stack_;
        stack.clear();
        for (const Step& step : e.rpn) {
            if (step.op == 0) {
                stack.push_back(leaf_value(e.leaves[step.leaf], reading, billions));
                continue;
            }
            Quantity b = stack.back();
            stack.pop_back();
            Quantity& a = stack.back();
            switch (step.op) {
                case '*':
                    a.v = a.v * b.v;
                    a.dim += b.dim;
                    break;
                case '/':
                    a.v = a.v / b.v;
                    a.dim -= b.dim;
                    break;
                case '+':
                case '-':
                    if (a.dim != b.dim) throw UnlikeUnits();
                    a.v = step.op == '+' ? a.v + b.v : a.v - b.v;
                    break;
                case '^': {
                    Rational base = a.v;
                    std::int64_t exp = b.v.num();
                    a.v = Rational(1);
                    for (std::int64_t k = 0; k < exp; ++k) a.v = a.v * base;
                    a.dim *= static_cast<int>(exp);
                    break;
                }
                default:
                    break;
            }
        }
        return stack.back();
    }

    bool stated_billions(const SideParse& side, unsigned reading) const {
        return num(side.tok).glued_b && (reading & kBillions);
    }

    /// Bytes (or count) per unit of a stated side under a reading.
    Rational stated_scale(const SideParse& side, unsigned reading) const {
        const Number& n = num(side.tok);
        if (stated_billions(side, reading)) return Rational(1000000000);
        // A chain already in its result's unit ("2 x 3 = 6 GB"); never a percentage, which
        // would let 0.94 / 0.96 = 0.98% stand for 97.9%.
        if ((reading & kInResultUnit) && !unit_info(side.unit).exact && side.unit != "%")
            return suffix_scale(n.suffix, reading & kBinaryCounts);
        return suffix_scale(n.suffix, reading & kBinaryCounts) * unit_scale(side.unit, reading & kBinaryResultUnits);
    }

    bool exact_side(const SideParse& side, unsigned reading) const {
        return unit_info(side.unit).exact && side.decimals == 0 && !num(side.tok).suffix &&
               !stated_billions(side, reading);
    }

    bool agrees(const Rational& computed, const SideParse& side, unsigned reading) const {
        if (side.expression) return evaluate(side.expr, reading).v == computed;
        const Number& tok = num(side.tok);
        if (!tok.value) throw OverflowError("number does not fit in 64 bits");
        if (exact_side(side, reading)) return computed == *tok.value;
        Rational in_unit = computed / stated_scale(side, reading);
        std::int64_t stated = tok.value->round_scaled(side.decimals);
        if (in_unit.round_scaled(side.decimals) == stated) return true;
        auto truncated = truncate_scaled(in_unit, side.decimals);  // "34.5" for 34.56 also holds
        return truncated && *truncated == stated;
    }

    /// Whether an expression side starts from the value reached so far and goes on.
    bool continues(const Rational& value, const SideParse& side, unsigned reading) const {
        const auto& rpn = side.expr.rpn;
        if (side.expr.sum || rpn.size() < 3 || rpn[0].op != 0 || rpn[1].op != 0 ||
            (rpn[2].op != '*' && rpn[2].op != '/'))
            return false;  // its first operand must stand alone: "v x n", not "(v + n) x m"
        Quantity first = leaf_value(side.expr.leaves.front(), reading, false);
        return first.v == value && evaluate(side.expr, reading).v != value;
    }

    static std::string plain_display(const Rational& v) {
        if (v.is_integer()) return group_thousands(v.num());
        try {
            return v.to_display();
        } catch (const std::exception&) {
            return v.to_string();
        }
    }

    static std::string fixed_display(std::int64_t scaled, int decimals) {
        bool negative = scaled < 0;
        std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(scaled) : static_cast<std::uint64_t>(scaled);
        std::uint64_t pow10 = 1;
        for (int k = 0; k < decimals; ++k) pow10 *= 10;
        std::uint64_t whole = mag / pow10;
        std::string out = negative ? "-" : "";
        out += whole <= static_cast<std::uint64_t>(INT64_MAX) ? group_thousands(static_cast<std::int64_t>(whole))
                                                              : std::to_string(whole);
        if (decimals > 0) {
            std::string frac = std::to_string(mag % pow10);
            frac.insert(0, static_cast<std::size_t>(decimals) - frac.size(), '0');
            out += "." + frac;
        }
        return out;
    }

    /// The computed value written the way `side` states its number.
    std::string display_like(const Rational& computed, const SideParse& side, unsigned reading) const {
        if (side.expression) return plain_display(computed);
        if (exact_side(side, reading)) return plain_display(computed);
        Rational in_unit = computed / stated_scale(side, reading);
        // Never a zero for a value that is not: "0.00012 GB", not "0.00 GB".
        int decimals = side.decimals;
        while (in_unit.round_scaled(decimals) == 0 && !computed.is_zero() && decimals < side.decimals + 9) ++decimals;
        std::string number = fixed_display(in_unit.round_scaled(decimals), decimals);
        const Number& n = num(side.tok);
        if (stated_billions(side, reading)) return number + "B";
        if (n.suffix) number += n.suffix;
        if (side.unit == "x") return number + "x";
        if (side.unit == "%") return number + "%";
        if (unit_info(side.unit).exact) return number;
        return number + " " + side.unit;
    }

    ClaimSide to_claim_side(const SideParse& p) const {
        ClaimSide side;
        side.offset = p.begin;
        side.length = p.end - p.begin;
        side.text = std::string(s_.substr(p.begin, p.end - p.begin));
        if (p.expression) {
            for (const Leaf& leaf : p.expr.leaves) side.factors.push_back(num(leaf.tok).value.value_or(Rational()));
            side.ops = p.expr.ops;
        } else {
            side.factors.push_back(num(p.tok).value.value_or(Rational()));
        }
        side.unit = p.unit;
        side.decimals = p.decimals;
        side.carried = p.carried;
        try {
            if (p.expression) {
                side.value = evaluate(p.expr, 0).v;
            } else if (num(p.tok).value) {
                side.value = *num(p.tok).value * stated_scale(p, 0);
            }
        } catch (const std::exception&) {
            side.value = Rational();  // does not fit: left at 0 (see claims.h)
        }
        return side;
    }

    /// One reading of a claim walked side by side from its recomputed expression.
    struct Walk {
        std::size_t wrong_side = 0;  ///< the first side that disagrees; sides.size() when none does
        Rational value;              ///< the value compared with that side (the last one reached if none)
        std::string expression;      ///< the chain that gave `value`: "2048 x 80" after a carried line
        std::string whole;           ///< the recomputed chain with every carried line: "8 x 128 x 2 x 80"
        bool carried = false;        ///< `value` comes after a carried line or a side that goes on
    };

    Walk walk(const std::vector<SideParse>& sides, std::size_t ref, unsigned reading) const {
        const Expr& e = sides[ref].expr;
        Walk w;
        w.value = evaluate(e, reading).v;
        w.expression = e.shown;
        w.whole = e.shown;
        for (std::size_t k = 0; k < sides.size(); ++k) {
            if (k == ref) continue;
            const SideParse& side = sides[k];
            if (k > ref && side.carried) {
                // "= 2,048 bytes" then "x 80 layers = ...": the chain goes on from the value
                Rational rest = evaluate(side.expr, reading).v;
                std::string op = side.carried == '*' ? " x " : " / ";
                bool group = side.carried == '/' && side.expr.leaves.size() > 1;
                std::string rest_shown = group ? "(" + side.expr.shown + ")" : side.expr.shown;
                std::string before = w.value.is_integer() ? std::to_string(w.value.num()) : plain_display(w.value);
                w.expression = before + op + rest_shown;
                w.whole = (e.sum && !w.carried ? "(" + w.whole + ")" : w.whole) + op + rest_shown;
                w.value = side.carried == '*' ? w.value * rest : w.value / rest;
                w.carried = true;
                continue;
            }
            if (k > ref && side.expression && continues(w.value, side, reading)) {
                // "= 10,296 B/tok x 1,430,656 tok = 13.7 GiB": the chain goes on from the
                // figure just reached.
                w.value = evaluate(side.expr, reading).v;
                w.expression = side.expr.shown;
                w.carried = true;
                continue;
            }
            if (!agrees(w.value, side, reading)) {
                w.wrong_side = k;
                return w;
            }
        }
        w.wrong_side = sides.size();
        return w;
    }

    /// Whether `computed` reads as zero in the unit of the stated side at its digits
    /// ("3 bytes" is 0.0 TB).
    bool rounds_to_zero(const Rational& computed, const SideParse& side, unsigned reading) const {
        if (side.expression || computed.is_zero() || exact_side(side, reading)) return false;
        try {
            return (computed / stated_scale(side, reading)).round_scaled(side.decimals) == 0;
        } catch (const std::exception&) {
            return false;
        }
    }

    /// `computed` in the smallest byte unit an operand of `e` is written in ("3 bytes",
    /// "640 KiB", "24 bits"), or nullopt when no operand has a byte unit.
    std::optional<std::string> in_operand_unit(const Rational& computed, const Expr& e, unsigned reading) const {
        const bool billions = billions_in(e, n_, t_);
        std::string_view unit;
        Rational scale;
        for (const Leaf& leaf : e.leaves) {
            if (!is_byte_unit(leaf.unit) || (billions && num(leaf.tok).glued_b)) continue;
            Rational leaf_scale = unit_scale(leaf.unit, reading & kBinaryOperandUnits);
            if (unit.empty() || leaf_scale < scale) {
                unit = leaf.unit;
                scale = leaf_scale;
            }
        }
        if (unit.empty()) return std::nullopt;
        Rational v = computed / scale;
        const bool one = v == Rational(1);
        std::string_view base = unit.substr(0, unit.find('/'));
        std::string name = unit == "bit" ? (one ? "bit" : "bits")
                           : base == "B" ? (one ? "byte" : "bytes")
                                         : std::string(base);
        if (unit.find('/') != std::string_view::npos) name += "/token";
        return plain_display(v) + " " + name;
    }

    /// Sets the claim's expression and computed figure from a walk: the figure as the side it
    /// is compared with states it, or in the operands' unit when it would read as zero there.
    void show(Claim& claim, const Walk& w, const std::vector<SideParse>& sides, std::size_t ref, std::size_t k,
              unsigned reading) const {
        claim.expression = w.wrong_side < sides.size() ? w.expression : w.whole;
        claim.computed_display = display_like(w.value, sides[k], reading);
        if (w.carried || !rounds_to_zero(w.value, sides[k], reading)) return;
        if (auto shown = in_operand_unit(w.value, sides[ref].expr, reading)) {
            claim.expression = sides[ref].expr.shown_units;
            claim.computed_display = *shown;
        }
    }

    /// For a chain of bare numbers read as bytes against a figure in KB..TB: the unit step
    /// (1000 or 1024) that would make it agree at the figure's last stated digit, or 0.
    /// "960 x 36 = 34.6 MB" is 0.03456 MB as bytes and 34.56 MB a step up: its operands were
    /// in KB, a unit the source implies and does not write.
    std::int64_t unit_step_off(const Rational& bytes, const SideParse& side) const {
        const Number& n = num(side.tok);
        if (!n.value) return 0;
        try {
            Rational digit(1);
            for (int d = 0; d < side.decimals; ++d) digit = digit / Rational(10);
            for (unsigned reading : {0u, kBinaryResultUnits}) {
                Rational in_unit = bytes / stated_scale(side, reading);
                for (std::int64_t step : {1000, 1024}) {
                    Rational v = in_unit * Rational(step);
                    if (v - *n.value <= digit && *n.value - v <= digit) return step;
                }
            }
        } catch (const std::exception&) {
        }
        return 0;
    }

    /// Why the units of a claim cannot be read with certainty, or "" when they can.
    std::string unit_doubt(const std::vector<SideParse>& sides, std::size_t ref) const {
        const Expr& e = sides[ref].expr;
        Quantity q;
        try {
            q = evaluate(e, 0);
        } catch (const UnlikeUnits&) {
            return "it adds numbers in different units";
        }
        bool counts_tokens = false;
        bool scaled_operand = false;
        bool bits = false;
        auto note_leaves = [&](const Expr& x) {
            for (const Leaf& leaf : x.leaves) {
                counts_tokens = counts_tokens || leaf.tokens;
                bits = bits || leaf.unit == "bit";
                if (is_byte_unit(leaf.unit) && unit_scale(leaf.unit, false) != Rational(1)) scaled_operand = true;
            }
        };
        note_leaves(e);
        int dim = q.dim;  // the byte power of the value reached, which a carried line changes
        for (std::size_t k = 0; k < sides.size(); ++k) {
            if (k == ref) continue;
            const SideParse& side = sides[k];
            if (side.carried) {
                int rest = 0;
                try {
                    rest = evaluate(side.expr, 0).dim;
                } catch (const UnlikeUnits&) {
                    return "it adds numbers in different units";
                }
                dim = side.carried == '*' ? dim + rest : dim - rest;
                note_leaves(side.expr);
                continue;
            }
            if (side.expression) {
                Quantity other = evaluate(side.expr, 0);
                if (other.dim != dim && other.dim != 0 && dim != 0) return "its sides are in different units";
                continue;
            }
            bool bytes = is_byte_unit(side.unit) && !num(side.tok).glued_b;
            if (dim < 0 || dim > 1) return "the operands' units do not multiply to bytes or a count";
            if (bytes && dim == 0 && counts_tokens)
                return "a count of tokens gives bytes only with a size per token, and none is "
                       "stated";
            if (!bytes && side.unit != "B" && dim == 1 && (scaled_operand || bits))
                return "the result has no unit while an operand is in " +
                       std::string(bits ? "bits" : "a scaled byte unit");
        }
        return {};
    }

    Claim build(const std::vector<SideParse>& sides, Claim::Kind claim_kind, bool before_chain) const {
        Claim claim;
        claim.kind = claim_kind;
        claim.offset = sides.front().begin;
        claim.length = sides.back().end - claim.offset;
        claim.text = std::string(s_.substr(claim.offset, claim.length));
        for (const auto& side : sides) claim.sides.push_back(to_claim_side(side));

        std::size_t ref = 0;
        while (!sides[ref].expression || sides[ref].carried) ++ref;
        claim.expression = sides[ref].expr.shown;
        std::size_t first_other = ref == 0 ? 1 : 0;
        std::size_t last_other = ref == sides.size() - 1 ? sides.size() - 2 : sides.size() - 1;
        bool approximate = before_chain;
        for (const auto& side : sides) approximate = approximate || side.approx;

        // Overflow policy: a claim whose arithmetic leaves 64 bits is reported as not
        // holding, with computed_display "overflow" (a division by zero likewise, with
        // "division by zero"); nothing is wrapped and nothing is thrown.
        auto fail = [&](std::size_t side, const char* why) {
            claim.holds = false;
            claim.verdict = Claim::Verdict::wrong;
            claim.wrong_side = side;
            claim.computed_display = why;
        };
        auto unjudged = [&](std::string why) {
            claim.holds = true;
            claim.verdict = Claim::Verdict::unjudged;
            claim.why = std::move(why);
        };
        Rational computed;
        try {
            computed = evaluate(sides[ref].expr, 0).v;
        } catch (const UnlikeUnits&) {
            claim.computed_display = "?";
            unjudged("it adds numbers in different units");
            return claim;
        } catch (const std::domain_error&) {
            fail(first_other, "division by zero");
            return claim;
        } catch (const std::exception&) {
            fail(first_other, "overflow");
            return claim;
        }
        try {
            Walk w = walk(sides, ref, 0);
            show(claim, w, sides, ref, w.wrong_side < sides.size() ? w.wrong_side : last_other, 0);
        } catch (const std::exception&) {
            claim.computed_display = plain_display(computed);
        }
        std::string doubt = unit_doubt(sides, ref);
        if (!doubt.empty()) {
            unjudged(doubt);
            return claim;
        }

        // Try every reading of the claim's ambiguous units; the first that holds wins,
        // readings that take KB/MB/GB/TB as powers of 1024 last.
        struct Outcome {
            unsigned reading = 0;
            std::size_t wrong_side = 0;
            double distance = 0;
            Walk walk;
        };
        std::optional<Outcome> best_wrong;
        std::optional<unsigned> holding;
        bool bare_chain = true;  // no operand has a byte unit
        for (const Leaf& leaf : sides[ref].expr.leaves) bare_chain = bare_chain && !is_byte_unit(leaf.unit);
        std::optional<std::pair<std::size_t, const char*>> failure;
        for (unsigned pass = 0; pass < 2 && !holding; ++pass) {
            for (unsigned reading = 0; reading < kReadings && !holding; ++reading) {
                bool binary_units = reading & (kBinaryOperandUnits | kBinaryResultUnits);
                if (binary_units != (pass == 1)) continue;
                if ((reading & kInResultUnit) && !bare_chain) continue;
                try {
                    Walk w = walk(sides, ref, reading);
                    const std::size_t k = w.wrong_side;
                    if (k == sides.size()) {
                        holding = reading;
                        break;
                    }
                    Outcome o{reading, k, 0, w};
                    if (!sides[k].expression && num(sides[k].tok).value) {
                        double stated =
                            num(sides[k].tok).value->to_double() * stated_scale(sides[k], reading).to_double();
                        double v = w.value.to_double();
                        o.distance = (stated > 0 && v > 0) ? std::abs(std::log(v / stated)) : 1e300;
                    }
                    // The reading that gets furthest is the one reported; at the same side the
                    // plainest (k = 1000, KB = 1000 B, B = bytes), unless it is a thousand times
                    // off and another is nearer.
                    if (!best_wrong || o.wrong_side > best_wrong->wrong_side ||
                        (o.wrong_side == best_wrong->wrong_side && best_wrong->distance > kThousandfold &&
                         o.distance < best_wrong->distance))
                        best_wrong = o;
                } catch (const std::domain_error&) {
                    failure = {first_other, "division by zero"};
                } catch (const UnlikeUnits&) {
                } catch (const std::exception&) {
                    if (!failure) failure = {first_other, "overflow"};
                }
            }
        }
        if (holding && !(*holding & (kBinaryOperandUnits | kBinaryResultUnits))) {
            try {
                show(claim, walk(sides, ref, *holding), sides, ref, last_other, *holding);
            } catch (const std::exception&) {
            }
        }
        if (holding) {
            if (*holding & (kBinaryOperandUnits | kBinaryResultUnits)) {
                claim.verdict = Claim::Verdict::binary_only;
                claim.why = binary_advice(sides);
            }
            return claim;
        }
        if (!best_wrong) {
            if (failure) {
                if (approximate) {
                    unjudged("stated as an approximation");
                    return claim;
                }
                fail(failure->first, failure->second);
            }
            return claim;
        }
        if (approximate) {
            unjudged(before_chain ? "a figure given before the chain it came from reads as an approximation"
                                  : "stated as an approximation");
            return claim;
        }
        const SideParse& off = sides[best_wrong->wrong_side];
        const std::string off_text(s_.substr(off.begin, off.end - off.begin));
        const bool bare_against_scaled = !off.expression && !best_wrong->walk.carried &&
                                         evaluate(sides[ref].expr, 0).dim == 0 && !unit_info(off.unit).exact;
        // A chain of bare numbers against a figure in KB..TB that is off by a factor of a
        // thousand or more has lost a unit on the way ("8,000 tokens x 1 user -> 1 GB").
        if (bare_against_scaled && best_wrong->distance > kThousandfold) {
            unjudged("the chain gives " + plain_display(computed) + ", a thousand times off " + off_text +
                     " in bytes and in its unit: a unit or factor is implied, not written");
            return claim;
        }
        // Nor is one judged that a unit step from its figure would make right, as KB operands
        // under an MB result do ("960 x 36 = 34.6 MB" is 960 KB x 36): the step is implied.
        if (bare_against_scaled) {
            if (std::int64_t step = unit_step_off(computed, off)) {
                unjudged("the chain gives " + plain_display(computed) + ", which is " + off_text +
                         " at its stated digits only if its operands are " + group_thousands(step) +
                         " times larger units than bytes: a unit on the operands is implied, not written");
                return claim;
            }
        }
        claim.holds = false;
        claim.verdict = Claim::Verdict::wrong;
        claim.wrong_side = best_wrong->wrong_side;
        show(claim, best_wrong->walk, sides, ref, best_wrong->wrong_side, best_wrong->reading);
        return claim;
    }

    /// "write KiB for KB" / "write MiB for MB, GiB for GB": the units as they are meant.
    std::string binary_advice(const std::vector<SideParse>& sides) const {
        std::vector<std::string> seen;
        auto note = [&](std::string_view unit) {
            if (!is_decimal_byte_unit(unit)) return;
            std::string base(unit.substr(0, unit.find('/')));
            for (const auto& s : seen)
                if (s == base) return;
            seen.push_back(base);
        };
        for (const auto& side : sides) {
            if (side.expression)
                for (const Leaf& leaf : side.expr.leaves) note(leaf.unit);
            else
                note(side.unit);
        }
        std::string out;
        for (const auto& base : seen) {
            if (!out.empty()) out += ", ";
            out += base.substr(0, 1) + "iB for " + base;
        }
        return "it holds only with powers of 1024: write " + out;
    }

    std::string_view s_;
    std::vector<Token> t_;
    std::vector<Number> n_;
    mutable std::vector<Quantity> stack_;  ///< evaluate()'s operand stack
};

}  // namespace

std::vector<Claim> find_claims(std::string_view text) {
    // Every claim starts at a number, and many strings of a record (names, engines, the
    // words of a vocabulary) hold no digit at all: they need no tokens.
    auto digit = [](char c) { return is_digit(static_cast<unsigned char>(c)); };
    if (std::none_of(text.begin(), text.end(), digit)) return {};
    try {
        Parser parser(text, tokenize(text));
        return parser.run();
    } catch (const std::exception&) {
        // Not expected: every arithmetic exception is handled per claim. Allocation
        // failure is the only realistic way here; report nothing rather than throw.
        return {};
    }
}

}  // namespace kvcat
