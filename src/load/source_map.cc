#include "load/source_map.h"

namespace kvcat {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n';
}

}  // namespace

ScalarLocator::ScalarLocator(const SourceText& source, const YamlNode& scalar) : source_(source), scalar_(scalar) {
    const std::string& text = source.text();
    std::size_t si = scalar.mark.offset;
    if (si < text.size()) {
        char first = text[si];
        if (first == '|' || first == '>') {
            style_ = Style::block;
            // Skip the header line (indicators and an optional comment), then the indentation.
            while (si < text.size() && text[si] != '\n') ++si;
            while (si < text.size() && is_space(text[si])) ++si;
        } else if (first == '"') {
            style_ = Style::double_quoted;
            ++si;
        } else if (first == '\'') {
            style_ = Style::single_quoted;
            ++si;
        }
    }
    start_ = si;
    restart();
}

void ScalarLocator::restart() {
    si_ = start_;
    vi_ = 0;
    unmatched_ = false;
}

Mark ScalarLocator::locate(std::size_t offset) {
    const std::string& text = source_.text();
    const std::string& value = scalar_.value;
    if (scalar_.mark.offset >= text.size() || offset > value.size()) return scalar_.mark;
    if (offset < vi_) restart();
    if (unmatched_ && offset > vi_) return scalar_.mark;

    while (vi_ < offset) {
        if (si_ >= text.size()) {
            unmatched_ = true;
            return scalar_.mark;
        }
        char vc = value[vi_];
        if (is_space(vc)) {
            // A run of white space in the value matches a run in the file, line breaks and
            // indentation included.
            while (vi_ < offset && is_space(value[vi_])) ++vi_;
            if (vi_ == offset && !is_space(text[si_])) break;
            while (si_ < text.size() && is_space(text[si_])) ++si_;
            continue;
        }
        if (style_ == Style::single_quoted && text[si_] == '\'' && si_ + 1 < text.size() && text[si_ + 1] == '\'') {
            si_ += 2;
            ++vi_;
            continue;
        }
        if (text[si_] == vc) {
            ++si_;
            ++vi_;
            continue;
        }
        if (style_ == Style::double_quoted && text[si_] == '\\' && si_ + 1 < text.size()) {
            si_ += 2;  // a two-character escape stands for one value character
            ++vi_;
            continue;
        }
        if (is_space(text[si_])) {
            // A folded line break the value dropped (e.g. before a more-indented line).
            while (si_ < text.size() && is_space(text[si_])) ++si_;
            continue;
        }
        unmatched_ = true;
        return scalar_.mark;
    }
    // Land on the character itself, not on white space before it.
    std::size_t at = si_;
    if (vi_ < value.size() && !is_space(value[vi_])) {
        while (at < text.size() && is_space(text[at]) && text[at] != value[vi_]) ++at;
    }
    return source_.mark_at(at);
}

Mark locate_in_scalar(const SourceText& source, const YamlNode& scalar, std::size_t offset) {
    return ScalarLocator(source, scalar).locate(offset);
}

}  // namespace kvcat
