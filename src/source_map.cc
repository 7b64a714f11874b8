#include "source_map.h"

namespace kvcat {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

Mark locate_in_scalar(const SourceText& source, const YamlNode& scalar, std::size_t offset) {
    const std::string& text = source.text();
    const std::string& value = scalar.value;
    std::size_t si = scalar.mark.offset;
    if (si >= text.size() || offset > value.size()) return scalar.mark;

    enum class Style { plain, single_quoted, double_quoted, block } style = Style::plain;
    char first = text[si];
    if (first == '|' || first == '>') {
        style = Style::block;
        // Skip the header line (indicators and an optional comment), then the indentation.
        while (si < text.size() && text[si] != '\n') ++si;
        while (si < text.size() && is_space(text[si])) ++si;
    } else if (first == '"') {
        style = Style::double_quoted;
        ++si;
    } else if (first == '\'') {
        style = Style::single_quoted;
        ++si;
    }

    std::size_t vi = 0;
    while (vi < offset) {
        if (si >= text.size()) return scalar.mark;
        char vc = value[vi];
        if (is_space(vc)) {
            // A run of white space in the value matches a run in the file, line breaks and
            // indentation included.
            while (vi < offset && is_space(value[vi])) ++vi;
            if (vi == offset && !is_space(text[si])) break;
            while (si < text.size() && is_space(text[si])) ++si;
            continue;
        }
        if (style == Style::single_quoted && text[si] == '\'' && si + 1 < text.size() && text[si + 1] == '\'') {
            si += 2;
            ++vi;
            continue;
        }
        if (text[si] == vc) {
            ++si;
            ++vi;
            continue;
        }
        if (style == Style::double_quoted && text[si] == '\\' && si + 1 < text.size()) {
            si += 2;  // a two-character escape stands for one value character
            ++vi;
            continue;
        }
        if (is_space(text[si])) {
            // A folded line break the value dropped (e.g. before a more-indented line).
            while (si < text.size() && is_space(text[si])) ++si;
            continue;
        }
        return scalar.mark;
    }
    // Land on the character itself, not on white space before it.
    if (vi < value.size() && !is_space(value[vi])) {
        while (si < text.size() && is_space(text[si]) && text[si] != value[vi]) ++si;
    }
    return source.mark_at(si);
}

}  // namespace kvcat
