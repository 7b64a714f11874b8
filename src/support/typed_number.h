// A number as a person types it on the command line: "65536", "64k", "1M", "28.8".
//
// k, M and G are powers of two (64k is 65,536 tokens), since contexts and byte counts are
// written so; the value is exact until it is handed out, an integer cell when it is whole.
#pragma once

#include <optional>
#include <string_view>

#include "support/rational.h"
#include "support/table.h"

namespace kvcat {

/// `text` without the spaces and tabs around it, as a typed value may carry them.
std::string_view trim_blanks(std::string_view text);

/// Parses "65536", "64k", "1M", "28.8" to a number; nullopt when it is not one.
std::optional<Cell> parse_number(std::string_view text);

/// `text` as parse_number reads it, times `factor` ("0.5" in a unit of 1/100); nullopt when
/// it is not a number or the product overflows.
std::optional<Cell> parse_scaled_number(std::string_view text, Rational factor);

}  // namespace kvcat
