#include "output/wrap.h"

#include <vector>

#include "output/terminal.h"

namespace kvcat {

namespace {

/// The length in bytes of the colour escape (ESC [ parameters m) at `i`, or 0 when none
/// starts there.
std::size_t escape_at(const std::string& s, std::size_t i) {
    if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return 0;
    std::size_t end = s.find('m', i + 2);
    return end == std::string::npos ? 0 : end - i + 1;
}

/// Columns on a terminal: UTF-8 characters, each one column (the catalog's text is), and
/// none for a colour escape, which the terminal draws as nothing.
std::size_t columns(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (std::size_t esc = escape_at(s, i)) {
            i += esc - 1;
            continue;
        }
        n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

/// Where to break `line` so that what is before fits `width` columns: the last space that
/// does, past the indentation; failing that, the first space after the word that is too
/// wide. npos when the line has no space to break at.
std::size_t break_at(const std::string& line, std::size_t indent, std::size_t width) {
    std::size_t col = 0, last = std::string::npos;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (std::size_t esc = escape_at(line, i)) {
            i += esc - 1;
            continue;
        }
        bool starts_char = (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
        if (line[i] == ' ' && i > indent && line[i - 1] != ' ') {
            if (col > width) break;
            last = i;
        }
        if (starts_char) ++col;
    }
    if (last != std::string::npos) return last;
    std::size_t first = line.find(' ', indent);
    return first;
}

/// A line wider than `width` broken at spaces. Only the spaces it breaks at are taken out: the
/// runs of spaces that align a table's columns, or that an engine prints, stay as they were.
std::string wrap_line(const std::string& line, std::size_t width, std::size_t hang) {
    std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || columns(line) <= width) return line;
    std::size_t lead = indent + hang < width / 2 ? indent + hang : indent;
    std::string out, rest = line;
    std::size_t rest_indent = indent;
    while (columns(rest) > width) {
        std::size_t at = break_at(rest, rest_indent, width);
        if (at == std::string::npos) break;
        std::size_t next = rest.find_first_not_of(' ', at);
        if (next == std::string::npos) break;  // only spaces after it: nothing to carry over
        out += rest.substr(0, at) + "\n";
        rest = std::string(lead, ' ') + rest.substr(next);
        rest_indent = lead;
    }
    return out + rest;
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width, std::size_t hang) {
    if (width == 0) return text;
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        out += wrap_line(line, width, hang);
        if (nl == std::string::npos) break;
        out += '\n';
        start = nl + 1;
    }
    return out;
}

std::string fit_to_stdout(const std::string& text) {
    auto width = stdout_terminal_width();
    return width ? wrap_text(text, *width) : text;
}

}  // namespace kvcat
