#include "output/record_link.h"

#include <fmt/format.h>

namespace kvcat {

namespace {

bool is_ascii_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_ascii_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_c0_or_space(char c) {
    return static_cast<unsigned char>(c) <= 0x20;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace

std::string percent_encode_path(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (char c : path) {
        if (is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out += c;
        } else {
            out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        }
    }
    return out;
}

std::string browser_normalised(std::string_view href) {
    while (!href.empty() && is_c0_or_space(href.front())) href.remove_prefix(1);
    while (!href.empty() && is_c0_or_space(href.back())) href.remove_suffix(1);
    std::string out;
    for (char c : href) {
        if (c != '\t' && c != '\n' && c != '\r') out += c;
    }
    return out;
}

bool is_safe_link(std::string_view href) {
    for (char c : href) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F || c == '\\') return false;
    }
    std::string url = browser_normalised(href);
    if (url.empty()) return false;
    // A scheme is a letter, then letters, digits, + - or ., then a colon (WHATWG "scheme state").
    std::size_t end = 0;
    if (is_ascii_alpha(url[0])) {
        end = 1;
        while (end < url.size() && (is_ascii_alpha(url[end]) || is_ascii_digit(url[end]) || url[end] == '+' ||
                                    url[end] == '-' || url[end] == '.'))
            ++end;
    }
    if (end > 0 && end < url.size() && url[end] == ':') {
        std::string scheme = lower(std::string_view(url).substr(0, end));
        return scheme == "http" || scheme == "https";
    }
    return url[0] != '/';
}

}  // namespace kvcat
