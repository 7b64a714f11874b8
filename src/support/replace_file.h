// Replacing a file whole: kvcat never writes through an entry that already exists. Each file
// it writes (a record from new or import-config, a benchmark record, the report page, the
// catalog) is first created new beside its target under a random name of kvcat's own form
// (O_CREAT|O_EXCL|O_NOFOLLOW, so no committed link or planted file is ever opened), filled,
// synced, given the mode of the file it replaces, and renamed over the target. A target that
// is a symbolic link, or anything but a regular file, is refused: replacing the link would
// silently cut it, and writing through it would write outside the folder asked for.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvcat {

/// A file kvcat could not write; the message names the file and the reason.
class ReplaceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A new, private file beside `target`, renamed over it by commit() and removed if never
/// committed. Its name is `<target's name><marker><16 hex digits>`.
class ReplacementFile {
  public:
    /// Throws ReplaceError when the target is a link or not a regular file, when its folder
    /// is missing, or when the new file cannot be created.
    ReplacementFile(std::filesystem::path target, std::string_view marker);
    ReplacementFile(const ReplacementFile&) = delete;
    ReplacementFile& operator=(const ReplacementFile&) = delete;
    ~ReplacementFile();

    const std::filesystem::path& path() const { return path_; }
    const std::filesystem::path& target() const { return target_; }

    /// Appends `text` to the new file.
    void write(std::string_view text);
    /// Appends the whole of the open file `from` (read from its start), copied inside the
    /// kernel (copy_file_range) where it can be, else read and written, and starts writing
    /// the copy out to the disk (without waiting for it). Throws ReplaceError.
    void append_file(int from);
    /// Syncs the new file, gives it the replaced file's permission bits (a new target gets
    /// the umask's), renames it over the target and syncs the folder.
    void commit();

  private:
    void copy_from(int from);

    std::filesystem::path target_;
    std::filesystem::path path_;
    int fd_ = -1;
    bool keep_mode_ = false;
    unsigned mode_ = 0;
    bool committed_ = false;
};

/// 16 lower-case hex digits from the kernel's random source.
std::string random_suffix();

/// The process id in `name` when it is exactly `<prefix><pid>-<suffix>`: a pid of 1 to 10
/// digits, a suffix of 16 lower-case hex digits (random_suffix) or of 1 to 20 decimal ones (the
/// form older builds wrote). Else 0: the name is not kvcat's, and no clean-up may remove it.
long own_temporary_pid(std::string_view name, std::string_view prefix);

/// Writes `text` whole to `target` through a ReplacementFile.
void replace_file(const std::filesystem::path& target, std::string_view text);

}  // namespace kvcat
