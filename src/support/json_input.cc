#include "support/json_input.h"

#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "support/hidden_text.h"
#include "support/rational.h"

namespace kvcat {

namespace {

/// Appends the UTF-8 form of `cp` to `out`.
void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::optional<std::uint32_t> hex4(std::string_view s, std::size_t at) {
    if (at + 4 > s.size()) return std::nullopt;
    std::uint32_t v = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= static_cast<std::uint32_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            v |= static_cast<std::uint32_t>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            v |= static_cast<std::uint32_t>(c - 'A' + 10);
        } else {
            return std::nullopt;
        }
    }
    return v;
}

struct Frame {
    bool object = false;
    bool expect_key = false;
    std::unordered_map<std::string, std::pair<int, int>> keys;
};

/// Refuses, at the place it is passed, a text of more values or deeper nesting than the
/// limits: one pass over the brackets and commas outside strings. A container's values are its
/// commas plus one, unless it is empty.
void check_json_size(std::string_view text) {
    std::size_t values = 1;  // the text's own value
    std::size_t depth = 0;
    bool in_string = false;
    bool opened = false;  // the last token was [ or {: the next says whether it holds a value
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (opened && c != ']' && c != '}') ++values;
        opened = false;
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            opened = true;
            if (++depth > kJsonMaxDepth) {
                auto [line, column] = json_line_column(text, i);
                throw JsonInputError(line, column,
                                     fmt::format("arrays and objects nested more than {} deep; a config or "
                                                 "benchmark file kvcat reads nests a few levels",
                                                 kJsonMaxDepth));
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        } else if (c == ',') {
            ++values;
        }
        if (values > kJsonMaxValues) {
            auto [line, column] = json_line_column(text, i);
            throw JsonInputError(line, column,
                                 fmt::format("more than {} values (array items and object members); a config or "
                                             "benchmark file kvcat reads holds some thousands",
                                             group_thousands(static_cast<std::int64_t>(kJsonMaxValues))));
        }
    }
}

}  // namespace

std::string python_floats_as_strings(std::string_view text, bool& rewrote) {
    std::string out;
    out.reserve(text.size() + 16);
    bool in_string = false;
    rewrote = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) {
                out += text[++i];
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') in_string = true;
        bool matched = false;
        for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
            if (text.substr(i, word.size()) == word) {
                out += '"';
                out += word;
                out += '"';
                i += word.size() - 1;
                matched = rewrote = true;
                break;
            }
        }
        if (!matched) out += c;
    }
    return out;
}

std::pair<int, int> json_line_column(std::string_view text, std::size_t offset) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

std::optional<DuplicateKey> first_duplicate_key(std::string_view text) {
    std::vector<Frame> stack;
    int line = 1, column = 1;
    std::size_t i = 0;
    auto advance = [&] {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        ++i;
    };
    while (i < text.size()) {
        char c = text[i];
        if (c == '{' || c == '[') {
            stack.push_back(Frame{c == '{', c == '{', {}});
            advance();
        } else if (c == '}' || c == ']') {
            if (!stack.empty()) stack.pop_back();
            advance();
        } else if (c == ',') {
            if (!stack.empty() && stack.back().object) stack.back().expect_key = true;
            advance();
        } else if (c == ':') {
            if (!stack.empty()) stack.back().expect_key = false;
            advance();
        } else if (c == '"') {
            int at_line = line, at_column = column;
            advance();
            std::string value;
            while (i < text.size() && text[i] != '"') {
                if (text[i] == '\\' && i + 1 < text.size()) {
                    char e = text[i + 1];
                    advance();
                    advance();
                    switch (e) {
                        case 'n':
                            value += '\n';
                            break;
                        case 't':
                            value += '\t';
                            break;
                        case 'r':
                            value += '\r';
                            break;
                        case 'b':
                            value += '\b';
                            break;
                        case 'f':
                            value += '\f';
                            break;
                        case 'u': {
                            auto cp = hex4(text, i);
                            if (!cp) break;
                            for (int k = 0; k < 4; ++k) advance();
                            if (*cp >= 0xD800 && *cp <= 0xDBFF && i + 1 < text.size() && text[i] == '\\' &&
                                text[i + 1] == 'u') {
                                if (auto low = hex4(text, i + 2); low && *low >= 0xDC00 && *low <= 0xDFFF) {
                                    for (int k = 0; k < 6; ++k) advance();
                                    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
                                }
                            }
                            append_utf8(value, *cp);
                            break;
                        }
                        default:
                            value += e;  // \" \\ \/
                    }
                } else {
                    value += text[i];
                    advance();
                }
            }
            if (i < text.size()) advance();  // the closing quote
            if (!stack.empty() && stack.back().object && stack.back().expect_key) {
                auto [it, fresh] = stack.back().keys.emplace(std::move(value), std::make_pair(at_line, at_column));
                if (!fresh) return DuplicateKey{it->first, it->second.first, it->second.second, at_line, at_column};
                stack.back().expect_key = false;
            }
        } else {
            advance();
        }
    }
    return std::nullopt;
}

std::string duplicate_key_message(const DuplicateKey& d) {
    return fmt::format(
        "the key \"{}\" appears twice in one object, at {}:{} and at {}:{}; a reader would keep one and drop the "
        "other without a word: remove one",
        escape_for_terminal(d.key), d.first_line, d.first_column, d.second_line, d.second_column);
}

nlohmann::json parse_json_input(std::string_view text, const std::function<nlohmann::json(std::string_view)>& parse) {
    check_json_size(text);
    nlohmann::json j;
    try {
        j = parse ? parse(text) : nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
        auto [line, column] = json_line_column(text, at);
        if (at >= text.size()) {
            throw JsonInputError(line, column,
                                 "not valid JSON: the text ends before it is complete (an object or an array is "
                                 "not closed, or a value is missing)");
        }
        std::string_view here = text.substr(at, 24);
        here = here.substr(0, here.find('\n'));
        throw JsonInputError(line, column,
                             fmt::format("not valid JSON at \"{}\": expected a value, a key in double quotes, a "
                                         "',' or a closing bracket there",
                                         escape_for_terminal(here)));
    } catch (const nlohmann::json::out_of_range& e) {
        // nlohmann says "number overflow parsing '1e400'": find that number in the text.
        std::string what = e.what();
        auto open = what.find('\'');
        auto close = what.rfind('\'');
        std::string number = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
        std::size_t at = number.empty() ? std::string_view::npos : text.find(number);
        auto [line, column] = json_line_column(text, at == std::string_view::npos ? 0 : at);
        throw JsonInputError(
            line, column,
            number.empty() ? std::string("a number is beyond the range of a double")
                           : fmt::format("the number {} is beyond the range of a double", escape_for_terminal(number)));
    } catch (const nlohmann::json::exception&) {
        throw JsonInputError(1, 1, "not readable JSON");
    }
    if (auto d = first_duplicate_key(text))
        throw JsonInputError(d->second_line, d->second_column, duplicate_key_message(*d));
    return j;
}

}  // namespace kvcat
