#include "support/typed_number.h"

#include <cstdint>

namespace kvcat {

std::string_view trim_blanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

namespace {

/// "64k", "1.5", "1M" exactly (k, M, G in powers of two); nullopt when it is not a number.
std::optional<Rational> parse_exact(std::string_view text) {
    text = trim_blanks(text);
    if (text.empty()) return std::nullopt;
    std::int64_t multiplier = 1;
    char last = text.back();
    if (last == 'k' || last == 'K') {
        multiplier = 1024;
    } else if (last == 'M') {
        multiplier = 1024 * 1024;
    } else if (last == 'G') {
        multiplier = 1024LL * 1024 * 1024;
    }
    if (multiplier != 1) text.remove_suffix(1);
    if (text.find('/') != std::string_view::npos) return std::nullopt;
    auto exact = Rational::parse(text);
    if (!exact) return std::nullopt;
    try {
        return *exact * Rational(multiplier);
    } catch (const OverflowError&) {
        return std::nullopt;
    }
}

}  // namespace

std::optional<Cell> parse_scaled_number(std::string_view text, Rational factor) {
    auto exact = parse_exact(text);
    if (!exact) return std::nullopt;
    try {
        Rational v = *exact * factor;
        if (v.is_integer()) return Cell(v.num());
        return Cell(v.to_double());
    } catch (const OverflowError&) {
        return std::nullopt;
    }
}

std::optional<Cell> parse_number(std::string_view text) {
    return parse_scaled_number(text, Rational(1));
}

}  // namespace kvcat
