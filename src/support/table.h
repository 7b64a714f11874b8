// A result table: column names and rows of cells, whatever produced them.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kvcat {

using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;

struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
};

}  // namespace kvcat
