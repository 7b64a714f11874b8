// Scalars read before yaml-cpp sees the text.
//
// yaml-cpp's scanner matches a record's bytes one character at a time against its regular
// expressions, and a record's prose (methodology, notes) and its long one-line values are
// most of its bytes. Those need no scanner in their plainest forms: a block scalar's body
// is known by its indentation alone, and a one-line plain value by its line. lift_scalars
// reads them itself, with yaml-cpp 0.7's rules (scanscalar.cpp), and hands yaml-cpp a text
// without them: a block scalar keeps its header "key: |" and loses its body; a one-line
// value keeps its first byte's place, written "x" (inside its quotes when it is quoted). yaml-cpp still sees every key
// and every value, at the place it has in the file, and the loader puts the lifted values back.
//
// Lifted, and nothing else:
//  - a block scalar whose header line is "key: |", "key: |-", "key: >" or "key: >-" (a
//    plain key, perhaps after a list item's "- ", nothing after the indicator), whose body
//    is space-indented past the key and
//    ends in a line break, with no line indented past the others in a ">" scalar;
//  - a plain value of 2 or more printable ASCII characters after "key: " or "- key: ",
//    none of them one of : # , [ ] { } ? and not starting with one of - & * ! | > ' " % @ `,
//    whose next line holds text indented no further than the key (so the value cannot run
//    on), and which is not one of the nulls yaml-cpp knows (~, null, Null, NULL);
//  - a quoted value of 2 or more printable ASCII characters after "key: " or "- key: ",
//    closed at the end of its line, with no escape in it (no backslash in double quotes, no
//    doubled quote in single ones): the text between the quotes.
// Any other header ending in a block indicator anywhere in the file (a bare list item "- |",
// "|+", "|2", a tag or anchor, a comment ending in "|"), or a tab or a whitespace-only line past the
// indentation in a body: the file is not lifted at all, and yaml-cpp reads it whole.
//
// The loader checks the lifted parse against yaml-cpp: each lifted block must come back as
// an empty block scalar at its indicator, each one-line value as the scalar "x", plain or
// quoted as it was, at its place, and a file whose lifted parse reports anything at all is parsed again whole,
// so every finding comes from the parse of the whole text.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvcat {

struct LiftedScalar {
    /// What is left in yaml-cpp's text: a block scalar's header (an empty value), a plain
    /// "x", or "x" between the value's quotes.
    enum class Kind { block, plain, quoted };
    std::size_t offset = 0;  ///< where yaml-cpp places the scalar: the '|' or '>', the opening quote, the first byte
    Kind kind = Kind::block;
    std::string value;  ///< the value, as yaml-cpp gives it for the whole text
};

struct LiftedText {
    std::string text;                   ///< what yaml-cpp reads
    std::vector<LiftedScalar> scalars;  ///< in text order

    /// Where bytes were cut out: `at` is an offset in `text`, `removed` the bytes cut out
    /// there and before it, in total.
    struct Cut {
        std::size_t at = 0;
        std::size_t removed = 0;
    };
    std::vector<Cut> cuts;

    /// The original text's offset of an offset in `text`.
    std::size_t original_offset(std::size_t offset) const;
};

/// The text with its plainest scalars lifted out, or nullopt when there is none or the file
/// holds a form this does not read (then yaml-cpp reads the whole text). The text has no
/// carriage returns, NUL bytes or byte-order mark: the loader refuses those first.
std::optional<LiftedText> lift_scalars(std::string_view text);

}  // namespace kvcat
