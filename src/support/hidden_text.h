// Characters a reader cannot see or that move what they see: control characters (C0, DEL,
// C1), zero-width characters (U+200B..U+200D, U+2060, U+FEFF) and bidirectional marks,
// embeddings, overrides and isolates (U+200E, U+200F, U+061C, U+202A..U+202E,
// U+2066..U+2069). A record's id or file name holding one can pass for another record's;
// one printed raw on a terminal can forge or hide a line of output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvcat {

struct HiddenCharacter {
    std::uint32_t code_point = 0;  ///< the byte itself when `text` is not UTF-8 there
    std::size_t offset = 0;        ///< in bytes from the start of the text
    std::string_view what;         ///< "ZERO WIDTH SPACE", "a control character", ...
};

/// The first hidden character of `text` (tabs and line breaks included), or nullopt. A byte
/// that does not start a well-formed UTF-8 character counts as one too.
std::optional<HiddenCharacter> first_hidden_character(std::string_view text);

/// "U+200B ZERO WIDTH SPACE", "U+001B (a control character)".
std::string describe(const HiddenCharacter& c);

/// `text` as it may go to a terminal: each control character (C0 but tab, DEL, C1), when
/// `all_hidden` also each other hidden character and each byte that is not UTF-8, written as
/// a visible escape (\n, \t, \e, \xHH, \u{200B}); everything else unchanged. Backslashes are
/// kept as they are: the escape is for the eye, not to be read back.
std::string escape_for_terminal(std::string_view text, bool all_hidden = true);

}  // namespace kvcat
