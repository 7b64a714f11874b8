// Did-you-mean: the closest known word to a mistyped one.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvcat {

/// Edit distance (insertions, deletions, substitutions, adjacent swaps).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Whether two words are the same letters, ignoring ASCII case ("vLLM" and "vllm").
bool equal_ignoring_case(std::string_view a, std::string_view b);

/// The letters and digits of `text`, lower case: "llama.cpp" and "LlamaCpp" are both
/// "llamacpp", "NVIDIA GeForce RTX 3090" is "nvidiageforcertx3090".
std::string letters_and_digits(std::string_view text);

/// The candidate nearest to `word` when it is close enough to be a typo, else "".
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

/// The candidates that start with `word` and are longer than it, in their order: a word cut
/// short ("nvidia-rtx" of "nvidia-rtx-4090") is one of these before it is a typo.
std::vector<std::string_view> starting_with(std::string_view word, std::span<const std::string_view> candidates);

/// The ids nearest to `word` read as tokens ("llama-3-70b" is llama, 3, 70b; "rtx4090" is rtx,
/// 4090; "3.5" is also 35), for a record id mistyped or remembered in part:
/// - an id lacking a number of the word that other ids hold, while holding another number of
///   the same shape that the word lacks (3090 for a word with 4090, when 4090 records exist),
///   is never offered, unless the two are the same characters swapped (72b and 27b, a typo);
/// - the ids holding every token of the word, when there are any ("h100" gives both H100
///   cards, "llama-3-70b" llama-3.1-70b and llama-3.3-70b);
/// - else the nearest by edit distance (closest_match) among the ids left;
/// - else, for a word of three tokens or more, the ids holding all its tokens but one.
/// Empty when none is close.
std::vector<std::string_view> closest_ids(std::string_view word, std::span<const std::string_view> candidates);

/// The words of a did-you-mean, quoted by `quote`: "'a'", "'a' or 'b'", "'a', 'b', 'c' or 4 more".
/// At most `shown` are named.
std::string one_of(std::span<const std::string_view> words, std::size_t shown = 4, std::string_view quote = "'");

}  // namespace kvcat
