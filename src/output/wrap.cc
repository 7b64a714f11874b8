#include "output/wrap.h"

#include <vector>

namespace kvcat {

namespace {

/// Columns on a terminal: UTF-8 characters, each one column (the catalog's text is).
std::size_t columns(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

std::string wrap_line(const std::string& line, std::size_t width, std::size_t hang) {
    if (columns(line) <= width) return line;
    std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) return line;
    std::vector<std::string> words;
    std::size_t i = indent;
    while (i < line.size()) {
        std::size_t end = line.find(' ', i);
        if (end == std::string::npos) end = line.size();
        if (end > i) words.push_back(line.substr(i, end - i));
        i = end + 1;
    }
    std::string out, current(indent, ' ');
    std::size_t lead = indent;  // the indentation of the line being filled
    bool empty = true;
    for (const auto& w : words) {
        if (!empty && columns(current) + 1 + columns(w) > width) {
            out += current + "\n";
            lead = indent + hang < width / 2 ? indent + hang : indent;
            current = std::string(lead, ' ');
            empty = true;
        }
        if (!empty) current += ' ';
        current += w;
        empty = false;
    }
    return out + current;
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

}  // namespace kvcat
