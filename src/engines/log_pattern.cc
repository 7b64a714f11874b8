#include "engines/log_pattern.h"

namespace kvcat {

const std::regex& LogPattern::get() const {
    std::call_once(compiled_, [this] { regex_.emplace(pattern_); });
    return *regex_;
}

}  // namespace kvcat
