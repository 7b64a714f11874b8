// What `kvcat query` says on stderr beside its answer, so that an empty or short answer is
// never left unexplained: the rows a comparison left out for having no value, what a dtype
// family stood for, and for an answer with no row, why: the id that was probably meant, the
// value a column really holds (engine=llama.cpp for engine=llamacpp), a record that exists
// but has no row, or filters that each match rows but not together.
#pragma once

#include <string>

#include "catalog/filter.h"

namespace kvcat::cmd {

/// Writes the notes above on stderr (spdlog info) for the answer `spec` gave from `db`;
/// `no_rows` when it gave none.
void explain_what_was_left_out(const std::string& db, const QuerySpec& spec, bool no_rows);

}  // namespace kvcat::cmd
