// The largest whole number a monotone test holds for, by halving: what fits as a context or a
// pool grows until a figure passes the card, and is found in a few dozen tries, not millions.
#pragma once

#include <cstdint>

namespace kvcat {

/// The largest n in [low, high] for which `holds(n)`, when `holds` is true up to some n and false
/// past it; low - 1 when it holds for none.
template <typename Holds>
std::int64_t largest_holding(std::int64_t low, std::int64_t high, Holds&& holds) {
    std::int64_t best = low - 1;
    while (low <= high) {
        std::int64_t mid = low + (high - low) / 2;
        if (holds(mid)) {
            best = mid;
            low = mid + 1;
        } else {
            high = mid - 1;
        }
    }
    return best;
}

}  // namespace kvcat
