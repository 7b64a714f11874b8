// Exact byte arithmetic.
//
// A Rational is an integer numerator over a positive integer denominator, always
// kept in lowest terms. Every operation checks for 64-bit overflow and throws
// OverflowError instead of wrapping, so a product that does not fit is reported
// as a finding rather than turned into a wrong figure. KV byte counts, the block
// sizes of quantised cache types (q8_0 is 34/32 bytes per element) and every
// figure the lint recomputes go through this type; floating point never does.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvcat {

/// Thrown when an exact operation would not fit in 64 bits.
class OverflowError : public std::overflow_error {
  public:
    using std::overflow_error::overflow_error;
};

class Rational {
  public:
    constexpr Rational() = default;
    Rational(std::int64_t value) : num_(value) {}  // NOLINT: an integer is a rational
    Rational(std::int64_t num, std::int64_t den);

    std::int64_t num() const { return num_; }
    std::int64_t den() const { return den_; }
    bool is_integer() const { return den_ == 1; }
    bool is_zero() const { return num_ == 0; }
    bool is_negative() const { return num_ < 0; }

    /// Parses "65536", "65,536", "34/32", "1.0625" or "-3" exactly; nullopt if not a number.
    static std::optional<Rational> parse(std::string_view text);

    friend Rational operator+(const Rational& a, const Rational& b);
    friend Rational operator-(const Rational& a, const Rational& b);
    friend Rational operator*(const Rational& a, const Rational& b);
    /// Throws std::domain_error on division by zero.
    friend Rational operator/(const Rational& a, const Rational& b);
    friend bool operator==(const Rational& a, const Rational& b) = default;
    friend std::strong_ordering operator<=>(const Rational& a, const Rational& b);

    Rational& operator*=(const Rational& o) { return *this = *this * o; }
    Rational& operator+=(const Rational& o) { return *this = *this + o; }

    /// The integer part, rounded toward negative infinity.
    std::int64_t floor() const;
    /// Rounded toward positive infinity: the whole bytes a fractional byte count takes.
    std::int64_t ceil() const;
    /// Nearest value with `digits` decimals, half away from zero, as a scaled integer:
    /// round_scaled(2) of 1.005 is 101 (i.e. 1.01).
    std::int64_t round_scaled(int digits) const;
    /// Approximation for display and for comparison with measured decimals only.
    double to_double() const { return static_cast<double>(num_) / static_cast<double>(den_); }

    /// "65536" for integers, "34/32"-style reduced "17/16" otherwise.
    std::string to_string() const;
    /// "65,536" for integers; "1.0625" when the decimal expansion is finite and short,
    /// otherwise "17/16"-style.
    std::string to_display() const;

  private:
    std::int64_t num_ = 0;
    std::int64_t den_ = 1;
};

/// Checked helpers on plain integers, throwing OverflowError.
std::int64_t checked_mul(std::int64_t a, std::int64_t b);
std::int64_t checked_add(std::int64_t a, std::int64_t b);

/// "1,048,576" for 1048576.
std::string group_thousands(std::int64_t value);

}  // namespace kvcat
