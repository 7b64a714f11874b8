// The records root: where it really is, what lies inside it, and what it holds.
//
// A catalog remembers the root it was built from as a resolved path, and a fingerprint of
// its record files (how many, and an order-free hash of each one's path under the root,
// size and modification time). A query compares both with the folder it is given: another
// root is never rebuilt over, and a record added, removed, replaced or touched is noticed
// whatever the times say, while a file that is not a record (a README, an editor's
// backup) changes nothing.
//
// A record file is read only when it resolves, links followed at every level, to a place
// inside its root: a link to /etc/hostname in a pull request is a finding, never read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kvcat {

/// `root` as an absolute path with every link resolved ('/'-separated); a part that does
/// not exist yet is kept as written.
std::string resolved_root(const std::filesystem::path& root);

/// Where `file` resolves to when that is outside `resolved` (a resolved_root), or nullopt
/// when it is inside; then `inside`, when given, gets the resolved path, so that what is
/// read is what was checked even if a link changes meanwhile. A file that cannot be
/// resolved (a dangling link) is not outside, and `inside` is left as it was.
std::optional<std::string> outside_root(const std::filesystem::path& file, std::string_view resolved,
                                        std::string* inside = nullptr);

/// Where a folder (or a link to one) resolves when that is outside the resolved root; the
/// root itself (a link back up to it) is inside.
std::optional<std::string> folder_outside(const std::filesystem::path& folder, std::string_view resolved);

/// The record files of a root, summed up: two roots with the same files at the same sizes
/// and times have the same fingerprint.
struct RecordSetFingerprint {
    std::uint64_t files = 0;
    std::uint64_t sum = 0;
    /// "FILES:HASH", as build_meta stores it.
    std::string text() const;
    friend bool operator==(const RecordSetFingerprint&, const RecordSetFingerprint&) = default;
};

/// One file's share of a fingerprint: its path under the root ("models/x.yaml"), size and
/// modification time in nanoseconds.
void add_to_fingerprint(RecordSetFingerprint& fingerprint, std::string_view relative, std::int64_t size,
                        std::int64_t mtime_ns);

/// The fingerprint of the .yaml files under `root` as the lint finds them, read by the lint's
/// own read_folder (load/records_walk.h): regular files, links to files included, links to
/// folders not walked. Each folder is read once, each record stated relative to it, and
/// folders are shared out over the cores: a query pays this on every run.
RecordSetFingerprint fingerprint_on_disk(const std::filesystem::path& root);

}  // namespace kvcat
