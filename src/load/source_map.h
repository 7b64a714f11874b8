// From a character inside a scalar's value back to its place in the file.
//
// A claim found at offset 120 of a `|` block's value sits on some later line of the
// file, indented; in a folded or plain multi-line scalar each line break became a
// space. A ScalarLocator walks the value and the file text side by side, treating
// any run of white space in one as matching any run in the other, so the position it
// returns is the file's own line and column of that character. It keeps its place:
// offsets asked in increasing order (every claim of a scalar, in the order they were
// found) cost one walk of the scalar in all, so a megabyte of claims is linear.
#pragma once

#include <cstddef>

#include "load/yaml_loader.h"

namespace kvcat {

class ScalarLocator {
  public:
    ScalarLocator(const SourceText& source, const YamlNode& scalar);

    /// The file position of byte `offset` of `scalar.value`. Falls back to the scalar's own
    /// mark when the text cannot be matched (an escape it does not model, say). An offset
    /// below the last one asked starts the walk again.
    Mark locate(std::size_t offset);

  private:
    enum class Style { plain, single_quoted, double_quoted, block };
    void restart();

    const SourceText& source_;
    const YamlNode& scalar_;
    Style style_ = Style::plain;
    std::size_t start_ = 0;   ///< where the value's text starts in the file
    std::size_t si_ = 0;      ///< the walk's place in the file text
    std::size_t vi_ = 0;      ///< and in the value
    bool unmatched_ = false;  ///< the walk could not go past vi_
};

/// The file position of byte `offset` of `scalar.value` (one ScalarLocator, one offset).
Mark locate_in_scalar(const SourceText& source, const YamlNode& scalar, std::size_t offset);

}  // namespace kvcat
