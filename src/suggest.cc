#include "suggest.h"

#include <cctype>

#include <algorithm>
#include <vector>

namespace kvcat {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment distance in three rolling rows: memory grows with one word,
    // not with the product of both.
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
    for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                current[j] = std::min(current[j], before[j - 2] + 1);
            }
        }
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[m];
}

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
    if (word.size() > 256) {
        return "";
    }
    std::string_view best;
    std::size_t best_distance = static_cast<std::size_t>(-1);
    std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
    for (auto c : candidates) {
        // A candidate whose length differs by more than the allowed edits cannot be the one.
        std::size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        if (gap > allowed) continue;
        std::size_t dist = edit_distance(word, c);
        if (dist < best_distance) {
            best_distance = dist;
            best = c;
        }
    }
    // A third of the word's length, at least one edit: "moddel" -> "model", not "id" -> "vendor".
    if (best.empty() || best_distance > allowed) {
        return "";
    }
    return std::string(best);
}

std::vector<std::string_view> starting_with(std::string_view word, std::span<const std::string_view> candidates) {
    std::vector<std::string_view> out;
    if (word.empty()) return out;
    for (auto c : candidates) {
        if (c.size() > word.size() && c.starts_with(word)) out.push_back(c);
    }
    return out;
}

std::string one_of(std::span<const std::string_view> words, std::size_t shown, std::string_view quote) {
    std::string out;
    std::size_t named = std::min(words.size(), std::max<std::size_t>(shown, 1));
    for (std::size_t i = 0; i < named; ++i) {
        if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
        out += quote;
        out += words[i];
        out += quote;
    }
    if (named < words.size()) {
        std::size_t rest = words.size() - named;
        out += rest == 1 ? " or 1 more" : " or " + std::to_string(rest) + " more";
    }
    return out;
}

}  // namespace kvcat
