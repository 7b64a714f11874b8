// What import-config and new share: writing a generated record to the file named by --out.
#pragma once

#include <filesystem>
#include <string>

namespace kvcat::cmd {

/// Writes `text` to `path` through a new file beside it (replace_file.h), so a reader never
/// sees half a record and no existing entry is written through. Refuses an existing file
/// unless `force`, a link or a folder even then, and a missing folder; says why on stderr.
bool write_whole_file(const std::filesystem::path& path, const std::string& text, bool force);

/// Whether a record kvcat generated (new, import-bench, import-config) is free of control and
/// bidirectional characters, however spelled (a raw byte or a YAML escape): the lint would
/// refuse such a record, and its text could drive a terminal. When it is not, says on stderr
/// which key's value holds what, naming `source` (the file or options it came from).
bool generated_record_is_printable(const std::string& text, const std::string& source);

}  // namespace kvcat::cmd
