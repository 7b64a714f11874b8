// A log reader's regular expression, compiled the first time a log is read rather than when the
// program starts. std::regex's compiler is slow (it builds a matcher per bracket expression), and
// the readers' forty-odd patterns, as namespace-scope std::regex values, were compiled by every
// kvcat run before main(): a quarter of a sanitized `kvcat --version`. Most runs read no log.
#pragma once

#include <mutex>
#include <optional>
#include <regex>

namespace kvcat {

class LogPattern {
  public:
    /// `pattern` must outlive the value: a string literal, as every reader's is.
    constexpr explicit LogPattern(const char* pattern) : pattern_(pattern) {}
    LogPattern(const LogPattern&) = delete;
    LogPattern& operator=(const LogPattern&) = delete;
    ~LogPattern() = default;

    /// The compiled expression (ECMAScript, as std::regex's default), built once, on first use,
    /// by whichever thread asks first.
    const std::regex& get() const;

  private:
    const char* pattern_;
    mutable std::once_flag compiled_;
    mutable std::optional<std::regex> regex_;
};

}  // namespace kvcat
