#include "suggest.h"

#include <algorithm>
#include <vector>

namespace kvcat {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment distance; inputs here are short identifiers.
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[n][m];
}

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
    if (word.size() > 256) {
        return "";
    }
    std::string_view best;
    std::size_t best_distance = static_cast<std::size_t>(-1);
    for (auto c : candidates) {
        std::size_t dist = edit_distance(word, c);
        if (dist < best_distance) {
            best_distance = dist;
            best = c;
        }
    }
    // A third of the word's length, at least one edit: "moddel" -> "model", not "id" -> "vendor".
    std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
    if (best.empty() || best_distance > allowed) {
        return "";
    }
    return std::string(best);
}

}  // namespace kvcat
