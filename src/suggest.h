// Did-you-mean: the closest known word to a mistyped one.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace kvcat {

/// Edit distance (insertions, deletions, substitutions, adjacent swaps).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Whether two words are the same letters, ignoring ASCII case ("vLLM" and "vllm").
bool equal_ignoring_case(std::string_view a, std::string_view b);

/// The candidate nearest to `word` when it is close enough to be a typo, else "".
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace kvcat
