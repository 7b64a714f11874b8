#include "support/rational.h"

#include <compare>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

namespace kvcat {

// GCC and Clang carry a 128-bit integer as an extension; __extension__ says it is meant.
__extension__ using Int128 = __int128;

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) {
        throw OverflowError("product does not fit in 64 bits");
    }
    return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) {
        throw OverflowError("sum does not fit in 64 bits");
    }
    return out;
}

namespace {

std::int64_t checked_neg(std::int64_t a) {
    return checked_mul(a, -1);
}

std::int64_t gcd_abs(std::int64_t a, std::int64_t b) {
    // std::gcd on INT64_MIN is undefined; reject it up front.
    if (a == INT64_MIN || b == INT64_MIN) {
        throw OverflowError("value does not fit in 64 bits");
    }
    return std::gcd(a, b);
}

}  // namespace

Rational::Rational(std::int64_t num, std::int64_t den) {
    if (den == 0) {
        throw std::domain_error("division by zero");
    }
    if (den < 0) {
        num = checked_neg(num);
        den = checked_neg(den);
    }
    std::int64_t g = gcd_abs(num, den);
    if (g > 1) {
        num /= g;
        den /= g;
    }
    num_ = num;
    den_ = den;
}

Rational operator*(const Rational& a, const Rational& b) {
    // Cross-reduce first so that 34/32 * 32 never leaves 64 bits needlessly.
    std::int64_t g1 = gcd_abs(a.num_, b.den_);
    std::int64_t g2 = gcd_abs(b.num_, a.den_);
    if (g1 == 0) g1 = 1;
    if (g2 == 0) g2 = 1;
    return Rational(checked_mul(a.num_ / g1, b.num_ / g2), checked_mul(a.den_ / g2, b.den_ / g1));
}

Rational operator/(const Rational& a, const Rational& b) {
    if (b.num_ == 0) {
        throw std::domain_error("division by zero");
    }
    return a * Rational(b.den_, b.num_);
}

Rational operator+(const Rational& a, const Rational& b) {
    std::int64_t g = gcd_abs(a.den_, b.den_);
    std::int64_t left = checked_mul(a.num_, b.den_ / g);
    std::int64_t right = checked_mul(b.num_, a.den_ / g);
    return Rational(checked_add(left, right), checked_mul(a.den_ / g, b.den_));
}

Rational operator-(const Rational& a, const Rational& b) {
    return a + Rational(checked_neg(b.num_), b.den_);
}

std::strong_ordering operator<=>(const Rational& a, const Rational& b) {
    // Compare a.num/a.den with b.num/b.den without overflow, in 128 bits.
    Int128 left = static_cast<Int128>(a.num_) * b.den_;
    Int128 right = static_cast<Int128>(b.num_) * a.den_;
    if (left < right) return std::strong_ordering::less;
    if (left > right) return std::strong_ordering::greater;
    return std::strong_ordering::equal;
}

std::int64_t Rational::floor() const {
    std::int64_t q = num_ / den_;
    if (num_ % den_ != 0 && num_ < 0) {
        --q;
    }
    return q;
}

std::int64_t Rational::ceil() const {
    return is_integer() ? num_ : floor() + 1;
}

std::int64_t Rational::round_scaled(int digits) const {
    Int128 scale = 1;
    for (int i = 0; i < digits; ++i) {
        scale *= 10;
    }
    Int128 n = static_cast<Int128>(num_) * scale;
    Int128 d = den_;
    bool negative = n < 0;
    if (negative) n = -n;
    Int128 q = (2 * n + d) / (2 * d);  // half away from zero
    if (negative) q = -q;
    if (q > INT64_MAX || q < INT64_MIN) {
        throw OverflowError("rounded value does not fit in 64 bits");
    }
    return static_cast<std::int64_t>(q);
}

std::optional<Rational> Rational::parse(std::string_view text) {
    if (text.empty()) {
        return std::nullopt;
    }
    if (auto slash = text.find('/'); slash != std::string_view::npos) {
        auto num = parse(text.substr(0, slash));
        auto den = parse(text.substr(slash + 1));
        if (!num || !den || den->is_zero() || text.substr(slash + 1).find('/') != std::string_view::npos) {
            return std::nullopt;
        }
        try {
            return *num / *den;
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    std::size_t i = 0;
    bool negative = false;
    if (text[0] == '-' || text[0] == '+') {
        negative = text[0] == '-';
        i = 1;
    }
    std::int64_t num = 0;
    std::int64_t den = 1;
    bool seen_digit = false;
    bool seen_point = false;
    std::size_t digits_since_comma = 0;
    bool seen_comma = false;
    // Zeros after the point count only when a digit follows them: "273.000000000000000000000"
    // is 273, not an overflow (which once made such a figure read as absent).
    int pending_zeros = 0;
    try {
        for (; i < text.size(); ++i) {
            char c = text[i];
            if (c == '0' && seen_point) {
                ++pending_zeros;
                seen_digit = true;
            } else if (c >= '0' && c <= '9') {
                for (; pending_zeros > 0; --pending_zeros) {
                    num = checked_mul(num, 10);
                    den = checked_mul(den, 10);
                }
                num = checked_add(checked_mul(num, 10), c - '0');
                if (seen_point) den = checked_mul(den, 10);
                seen_digit = true;
                ++digits_since_comma;
            } else if ((c == 'e' || c == 'E') && seen_digit && !seen_comma) {
                // An exponent, as YAML and JSON write a float: 273e0, 1e1, 2.5E-3.
                std::string_view rest = text.substr(i + 1);
                bool down = !rest.empty() && rest[0] == '-';
                if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) rest.remove_prefix(1);
                if (rest.empty() || rest.size() > 3) return std::nullopt;
                int exponent = 0;
                for (char d : rest) {
                    if (d < '0' || d > '9') return std::nullopt;
                    exponent = exponent * 10 + (d - '0');
                }
                for (int k = 0; k < exponent; ++k) {
                    if (down) {
                        den = checked_mul(den, 10);
                    } else {
                        num = checked_mul(num, 10);
                    }
                }
                return Rational(negative ? -num : num, den);
            } else if (c == ',' && !seen_point && seen_digit) {
                // Thousands separators must group exactly three digits.
                if (seen_comma && digits_since_comma != 3) return std::nullopt;
                if (!seen_comma && digits_since_comma > 3) return std::nullopt;
                seen_comma = true;
                digits_since_comma = 0;
            } else if (c == '.' && !seen_point) {
                if (seen_comma && digits_since_comma != 3) return std::nullopt;
                seen_point = true;
                seen_comma = false;
            } else if (c == '_' && seen_digit && !seen_point) {
                continue;
            } else {
                return std::nullopt;
            }
        }
        if (!seen_digit || (seen_comma && digits_since_comma != 3)) {
            return std::nullopt;
        }
        return Rational(negative ? -num : num, den);
    } catch (const OverflowError&) {
        return std::nullopt;
    }
}

std::string Rational::to_string() const {
    if (den_ == 1) {
        return std::to_string(num_);
    }
    return std::to_string(num_) + "/" + std::to_string(den_);
}

std::string group_thousands(std::int64_t value) {
    std::string digits = std::to_string(value);
    std::size_t start = (value < 0) ? 1 : 0;
    std::string out = digits.substr(0, start);
    std::size_t n = digits.size() - start;
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) {
            out += ',';
        }
        out += digits[start + i];
    }
    return out;
}

std::string Rational::to_display() const {
    if (den_ == 1) {
        return group_thousands(num_);
    }
    // A finite decimal exists when the denominator has only factors 2 and 5.
    std::int64_t d = den_;
    int twos = 0, fives = 0;
    while (d % 2 == 0) {
        d /= 2;
        ++twos;
    }
    while (d % 5 == 0) {
        d /= 5;
        ++fives;
    }
    int digits = std::max(twos, fives);
    if (d != 1 || digits > 12) {
        return to_string();
    }
    std::int64_t scaled = 0;
    try {
        scaled = round_scaled(digits);
    } catch (const OverflowError&) {
        return to_string();  // too fine to write as a decimal: the fraction is exact
    }
    std::int64_t scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    std::int64_t whole = std::llabs(scaled) / scale;
    std::int64_t frac = std::llabs(scaled) % scale;
    std::string frac_text = std::to_string(frac);
    frac_text.insert(0, static_cast<std::size_t>(digits) - frac_text.size(), '0');
    return std::string(scaled < 0 ? "-" : "") + group_thousands(whole) + "." + frac_text;
}

}  // namespace kvcat
