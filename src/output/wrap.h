// Text fitted to a terminal's width by breaking lines at spaces, never inside a word.
#pragma once

#include <cstddef>
#include <string>

namespace kvcat {

/// Each line of `text` wider than `width` columns broken at its spaces; the lines it is
/// broken into keep the line's own indentation plus `hang` spaces. A word wider than the
/// room stays whole on a line of its own. Widths count UTF-8 characters; colour escapes
/// (ESC [ ... m) take no column.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t hang = 4);

/// `text` as it should go to stdout: wrapped to the terminal's width when stdout is one, and
/// untouched in a pipe or a file, where every line stays whole for the program reading it.
std::string fit_to_stdout(const std::string& text);

}  // namespace kvcat
