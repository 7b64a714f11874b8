#include "output/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace kvcat {

std::optional<ColorMode> parse_color_mode(std::string_view name) {
    if (name == "auto") return ColorMode::automatic;
    if (name == "always") return ColorMode::always;
    if (name == "never") return ColorMode::never;
    return std::nullopt;
}

bool decide_color(ColorMode mode, bool is_terminal, bool no_color_set) {
    switch (mode) {
        case ColorMode::always:
            return true;
        case ColorMode::never:
            return false;
        case ColorMode::automatic:
            return is_terminal && !no_color_set;
    }
    return false;
}

std::optional<std::size_t> parse_columns_env(const char* value) {
    if (value == nullptr || *value == '\0') return std::nullopt;
    std::size_t width = 0;
    for (const char* p = value; *p; ++p) {
        if (*p < '0' || *p > '9') return std::nullopt;
        width = width * 10 + static_cast<std::size_t>(*p - '0');
        if (width > 100000) return std::nullopt;  // not a terminal anyone has
    }
    if (width == 0) return std::nullopt;
    return width;
}

bool stdout_is_terminal() {
    return ::isatty(STDOUT_FILENO) == 1;
}

namespace {

std::optional<std::size_t> terminal_width(int fd) {
    if (::isatty(fd) != 1) return std::nullopt;
    // The live size first: $COLUMNS is a shell variable that is often not exported and
    // goes stale when the window is resized. A pseudo-terminal nobody sized reports 0.
    struct winsize ws {};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return std::size_t{ws.ws_col};
    return parse_columns_env(std::getenv("COLUMNS"));
}

}  // namespace

std::optional<std::size_t> stdout_terminal_width() {
    return terminal_width(STDOUT_FILENO);
}

std::optional<std::size_t> stderr_terminal_width() {
    return terminal_width(STDERR_FILENO);
}

bool stdout_wants_color(ColorMode mode) {
    return decide_color(mode, stdout_is_terminal(), std::getenv("NO_COLOR") != nullptr);
}

}  // namespace kvcat
