// Items joined as a sentence says them: "a", "a and b", "a, b and c".
#pragma once

#include <string>
#include <vector>

namespace kvcat {

/// The items in order, commas between them and "and" before the last; "" for none.
std::string spoken_list(const std::vector<std::string>& items);

}  // namespace kvcat
