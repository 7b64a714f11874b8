// Reading a whole input file, bounded: only a regular file, and never more than a limit.
//
// A path from a command line or a checkout can name a FIFO (an open blocks until a writer
// comes, a read until it leaves), a device (/dev/zero never ends) or a file of any size.
// read_bounded() opens without blocking, refuses anything but a regular file, and reads at
// most the limit and one byte more, whatever the file's size said when it was opened.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace kvcat {

/// "a FIFO", "a character device", "a folder", ... for a message; "a regular file" when it is one.
std::string file_kind_name(unsigned mode);

/// The bytes of `path`, or nullopt with `why` saying what is wrong ("a FIFO, not a regular
/// file"; "larger than 16 MiB, the limit"; the system's error), without the path.
std::optional<std::string> read_bounded(const std::filesystem::path& path, std::size_t limit, std::string& why);

}  // namespace kvcat
