// What import-config and new share: writing a generated record to the file named by --out.
#pragma once

#include <filesystem>
#include <string>

namespace kvcat::cmd {

/// Writes `text` to `path` through a temporary file beside it, so a reader never sees half a
/// record. Refuses an existing file unless `force`, and a missing folder; says why on stderr.
bool write_whole_file(const std::filesystem::path& path, const std::string& text, bool force);

}  // namespace kvcat::cmd
