// What the process knows about where its output goes: whether stdout is a terminal,
// how wide it is, and whether colour is wanted there.
//
// The decisions are pure functions of their inputs (decide_color, parse_columns_env) so
// tests can check them without a terminal; the probes (stdout_is_terminal,
// stdout_terminal_width) are thin wrappers over isatty and ioctl.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kvcat {

enum class ColorMode { automatic, always, never };

/// "auto" | "always" | "never" -> ColorMode; nullopt otherwise.
std::optional<ColorMode> parse_color_mode(std::string_view name);

/// Colour for `always`; none for `never`; for `automatic`, only on a terminal and only when
/// NO_COLOR is unset (any value, even empty, turns colour off: https://no-color.org).
/// An explicit --color always wins over NO_COLOR, as no-color.org asks of command-line flags.
bool decide_color(ColorMode mode, bool is_terminal, bool no_color_set);

/// $COLUMNS as a width: a positive decimal number, else nullopt.
std::optional<std::size_t> parse_columns_env(const char* value);

bool stdout_is_terminal();

/// The width to fit table output to, or nullopt for "do not fit": stdout is not a terminal,
/// or neither the terminal (TIOCGWINSZ) nor $COLUMNS gives a width.
std::optional<std::size_t> stdout_terminal_width();

/// The same for stderr, where the log goes: the width to break its lines at, or nullopt.
std::optional<std::size_t> stderr_terminal_width();

/// decide_color() for stdout with the process's own environment.
bool stdout_wants_color(ColorMode mode);

}  // namespace kvcat
