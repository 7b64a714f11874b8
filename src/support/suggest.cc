#include "support/suggest.h"

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

std::string letters_and_digits(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
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

namespace {

/// Lower-case tokens: runs of letters, and runs of digits with the letters that follow them
/// ("27b", "64k"); anything else separates. With `joined`, "3.5" also gives "35".
std::vector<std::string> tokens_of(std::string_view text, bool joined) {
    std::vector<std::string> out;
    std::string current;
    auto flush = [&] {
        if (!current.empty()) out.push_back(current);
        current.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        bool digit = std::isdigit(c) != 0, letter = std::isalpha(c) != 0;
        if (!digit && !letter) {
            if (joined && c == '.' && !current.empty() && std::isdigit(static_cast<unsigned char>(current.back())) &&
                i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
                std::size_t end = i + 1;
                while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
                out.push_back(current + std::string(text.substr(i + 1, end - i - 1)));
            }
            flush();
            continue;
        }
        // A digit after letters starts a token (rtx|4090, h|100); letters after digits stay
        // with them (27b, 64k), and a digit after those starts another (a3b|4).
        if (digit && !current.empty() && std::isalpha(static_cast<unsigned char>(current.back()))) flush();
        current += static_cast<char>(std::tolower(c));
    }
    flush();
    return out;
}

bool has_digit(std::string_view token) {
    return std::any_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Digits as 'd', letters as they are: 4090 and 3090 are both "dddd", 70b "ddb".
std::string shape_of(std::string_view token) {
    std::string s(token);
    for (auto& c : s) {
        if (c >= '0' && c <= '9') c = 'd';
    }
    return s;
}

bool contains(const std::vector<std::string>& tokens, std::string_view t) {
    return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
}

/// Whether the candidate names another thing of the word's kind: a number of the word it
/// lacks, beside a number of the same shape the word lacks that is not the same characters.
bool conflicts(const std::vector<std::string>& word, const std::vector<std::string>& candidate,
               const std::vector<std::string>& known) {
    for (const auto& w : word) {
        // Only a number some id holds: a 4080 no record names may still be offered the 4090.
        if (!has_digit(w) || contains(candidate, w) || !contains(known, w)) continue;
        for (const auto& c : candidate) {
            if (!has_digit(c) || contains(word, c) || shape_of(c) != shape_of(w)) continue;
            std::string a = w, b = c;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            if (a != b) return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::string_view> closest_ids(std::string_view word, std::span<const std::string_view> candidates) {
    std::vector<std::string_view> out;
    if (word.size() > 256) return out;
    std::vector<std::string> w = tokens_of(word, false);
    if (w.empty()) return out;
    std::vector<std::vector<std::string>> all;
    std::vector<std::string> known;  // the word's numbers that some candidate holds
    for (auto c : candidates) {
        all.push_back(tokens_of(c, true));
        for (const auto& t : w) {
            if (has_digit(t) && contains(all.back(), t) && !contains(known, t)) known.push_back(t);
        }
    }
    std::vector<std::string_view> allowed;
    std::vector<std::size_t> matched;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        auto c = candidates[i];
        const std::vector<std::string>& tokens = all[i];
        if (conflicts(w, tokens, known)) continue;
        std::size_t n = 0;
        for (const auto& t : w) n += contains(tokens, t) ? 1 : 0;
        allowed.push_back(c);
        matched.push_back(n);
    }
    for (std::size_t i = 0; i < allowed.size(); ++i) {
        if (matched[i] == w.size()) out.push_back(allowed[i]);
    }
    if (!out.empty()) return out;
    std::string near = closest_match(word, allowed);
    if (!near.empty()) {
        for (auto c : allowed) {
            if (c == near) return {c};
        }
    }
    if (w.size() >= 3) {
        for (std::size_t i = 0; i < allowed.size(); ++i) {
            if (matched[i] + 1 == w.size()) out.push_back(allowed[i]);
        }
    }
    return out;
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
