#include "support/hidden_text.h"

#include <fmt/format.h>

namespace kvcat {

namespace {

/// The name of a hidden code point other than a control, or empty for a visible one.
std::string_view hidden_name(std::uint32_t cp) {
    switch (cp) {
        case 0x061C:
            return "ARABIC LETTER MARK";
        case 0x200B:
            return "ZERO WIDTH SPACE";
        case 0x200C:
            return "ZERO WIDTH NON-JOINER";
        case 0x200D:
            return "ZERO WIDTH JOINER";
        case 0x200E:
            return "LEFT-TO-RIGHT MARK";
        case 0x200F:
            return "RIGHT-TO-LEFT MARK";
        case 0x202A:
            return "LEFT-TO-RIGHT EMBEDDING";
        case 0x202B:
            return "RIGHT-TO-LEFT EMBEDDING";
        case 0x202C:
            return "POP DIRECTIONAL FORMATTING";
        case 0x202D:
            return "LEFT-TO-RIGHT OVERRIDE";
        case 0x202E:
            return "RIGHT-TO-LEFT OVERRIDE";
        case 0x2060:
            return "WORD JOINER";
        case 0x2066:
            return "LEFT-TO-RIGHT ISOLATE";
        case 0x2067:
            return "RIGHT-TO-LEFT ISOLATE";
        case 0x2068:
            return "FIRST STRONG ISOLATE";
        case 0x2069:
            return "POP DIRECTIONAL ISOLATE";
        case 0xFEFF:
            return "ZERO WIDTH NO-BREAK SPACE";
        default:
            return {};
    }
}

bool is_control(std::uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

/// One UTF-8 character at the start of `s`: its code point and length, or length 0 when
/// the bytes there are not a well-formed character (overlong, surrogate, truncated).
std::pair<std::uint32_t, std::size_t> decode(std::string_view s) {
    auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    unsigned char lead = b(0);
    if (lead < 0x80) return {lead, 1};
    std::size_t len = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
    if (len == 0 || lead > 0xF4 || s.size() < len) return {lead, 0};
    std::uint32_t cp = lead & (0x7Fu >> len);
    for (std::size_t i = 1; i < len; ++i) {
        if ((b(i) & 0xC0) != 0x80) return {lead, 0};
        cp = (cp << 6) | (b(i) & 0x3Fu);
    }
    static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kSmallest[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {lead, 0};
    return {cp, len};
}

}  // namespace

std::optional<HiddenCharacter> first_hidden_character(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        auto [cp, len] = decode(text.substr(i));
        if (len == 0) return HiddenCharacter{cp, i, "a byte that is not UTF-8"};
        if (is_control(cp)) return HiddenCharacter{cp, i, "a control character"};
        if (std::string_view name = hidden_name(cp); !name.empty()) return HiddenCharacter{cp, i, name};
        i += len;
    }
    return std::nullopt;
}

std::string describe(const HiddenCharacter& c) {
    if (c.what.starts_with("a ")) return fmt::format("U+{:04X} ({})", c.code_point, c.what);
    return fmt::format("U+{:04X} {}", c.code_point, c.what);
}

std::string escape_for_terminal(std::string_view text, bool all_hidden) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        auto [cp, len] = decode(text.substr(i));
        if (len == 0) {
            if (all_hidden) {
                out += fmt::format("\\x{:02X}", cp);
            } else {
                out += text[i];
            }
            ++i;
            continue;
        }
        if (is_control(cp) && cp != '\t') {
            switch (cp) {
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case 0x1B:
                    out += "\\e";
                    break;
                default:
                    out += cp < 0x80 ? fmt::format("\\x{:02X}", cp) : fmt::format("\\u{{{:04X}}}", cp);
            }
        } else if (all_hidden && !hidden_name(cp).empty()) {
            out += fmt::format("\\u{{{:04X}}}", cp);
        } else {
            out.append(text.substr(i, len));
        }
        i += len;
    }
    return out;
}

}  // namespace kvcat
