// The one walk of a records folder, with readdir: what the lint reads and what a query's
// staleness check sums up both come from read_folder, so the two cannot disagree about which
// entries are record files (.yaml regular files, links to files included), which folders are
// entered (real ones; a link to a folder is not followed) and how deep (64 levels).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <dirent.h>

#include "support/diagnostic.h"

namespace kvcat {

/// What one folder entry is, from the type readdir gives where it gives one (no system call),
/// else from a stat. A link is followed, as std::filesystem's is_directory follows it.
struct EntryType {
    bool link = false;
    bool directory = false;
    bool regular = false;
    int follow_error = 0;  ///< errno of following (or reading) the entry; 0 when it could be
};

/// One entry of a folder as read_folder hands it over.
struct FolderEntry {
    std::string_view name;
    EntryType type;
    bool yaml_name = false;  ///< named like a record: "<something>.yaml"
};

/// Folders nested deeper than this under a walked one are not entered.
inline constexpr int kMaxFolderDepth = 64;

/// Reads the folder `dir` with readdir and calls `each(dir_fd, entry)` for every entry but . and
/// ..; returns 0, or the errno that stopped the reading (opening it, or readdir).
int read_folder(const std::string& dir, const std::function<void(int dir_fd, const FolderEntry&)>& each);

/// A path as findings show it: lexically normal, '/'-separated.
std::string shown_path(const std::filesystem::path& p);

/// What a walk of a records folder finds, as lint_paths walks it.
struct RecordTree {
    std::string shown;                        ///< the folder walked, as shown in findings
    std::vector<std::string> yaml;            ///< record files as shown, sorted
    std::vector<std::string> links;           ///< those of them that are symbolic links, sorted
    std::vector<std::string> skipped;         ///< other files
    std::vector<std::string> linked_folders;  ///< links to folders inside the root, not walked
    std::vector<Diagnostic> problems;         ///< unwalkable entries, and links out of the root
};

/// Walks the records folder `root` as lint_paths does.
RecordTree walk_records(const std::filesystem::path& root);

/// Where a record path's id starts: the folder that holds models/, accelerators/, kv-efficiency/.
std::filesystem::path records_root_for(const std::filesystem::path& path);

/// The record files (.yaml) under `root`, sorted, as lint_paths finds them: each as it is
/// shown in findings (lexically normal, '/'-separated).
std::vector<std::string> record_files(const std::filesystem::path& root);

/// `file` (as record_files gives it) relative to a records root given as shown (lexically
/// normal, '/'-separated), '/'-separated: "models/x.yaml". Callers name the root once per
/// walk, not once per file.
std::string path_under_root(const std::string& file, std::string_view root_shown);

/// Walks the folder `dir` under a records root (`resolved`, as resolved_root gives it) into
/// `found`, as walk_records walks the root: a named subfolder is walked this way.
void walk_folder(const std::filesystem::path& dir, std::string_view resolved, RecordTree& found);

}  // namespace kvcat
