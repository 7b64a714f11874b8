// From a character inside a scalar's value back to its place in the file.
//
// A claim found at offset 120 of a `|` block's value sits on some later line of the
// file, indented; in a folded or plain multi-line scalar each line break became a
// space. locate_in_scalar() walks the value and the file text side by side, treating
// any run of white space in one as matching any run in the other, so the position it
// returns is the file's own line and column of that character.
#pragma once

#include <cstddef>

#include "yaml_loader.h"

namespace kvcat {

/// The file position of byte `offset` of `scalar.value`. Falls back to the scalar's own
/// mark when the text cannot be matched (an escape it does not model, say).
Mark locate_in_scalar(const SourceText& source, const YamlNode& scalar, std::size_t offset);

}  // namespace kvcat
