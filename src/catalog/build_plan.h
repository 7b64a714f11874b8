// Deciding how little a build can do.
//
// plan_build() makes rebuilds incremental, as ninja does: the catalog remembers each
// record file's size, modification time and content hash. With nothing changed the
// build only looks at file metadata; otherwise only changed rows, and the rows that
// name a changed model or accelerator, are read and checked again. The new catalog
// starts as a copy of the previous one's bytes (in the kernel), from which the rows of
// changed and removed files are deleted, so an unchanged row costs nothing. The result
// equals a full build's. Only a catalog that carries this kvcat's seal (catalog_seal.h)
// is built on; any other is built again from every record.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/lint.h"
#include "load/yaml_loader.h"

namespace kvcat {

/// Stats a file; nullopt when it cannot be.
std::optional<FileStamp> stamp_of(const std::filesystem::path& file);

/// Stats every file, on up to `threads` threads (0: as many as there are cores, at most 8);
/// slot i is files[i]'s stamp, nullopt when it cannot be stat'ed. A hundred thousand stats
/// are most of what an incremental build costs, and they are independent of each other.
std::vector<std::optional<FileStamp>> stamp_files(const std::vector<std::string>& files, unsigned threads = 0);

/// The row files an incremental build takes from the previous catalog, with what it knew of
/// each, in path order: a sorted array, since a hundred thousand of them are looked up once
/// each and a tree of them costs more to build than the lookups save.
class UnchangedFiles {
  public:
    /// Appends one; files come in increasing path order (bytewise, as the catalog sorts them).
    void add(std::string file, UnchangedFile prior);
    /// What the catalog knew of `file`, or null when it is read and checked again.
    const UnchangedFile* find(std::string_view file) const;
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    auto begin() const { return entries_.begin(); }
    auto end() const { return entries_.end(); }

  private:
    std::vector<std::pair<std::string, UnchangedFile>> entries_;
};

struct BuildPlan {
    bool incremental = false;  ///< false: read and check everything
    bool up_to_date = false;   ///< nothing changed at all: nothing to do
    std::string reason;        ///< why it is a full build, or what changed
    /// Row files to take from the previous catalog, with what it knew of them.
    UnchangedFiles unchanged;
    /// Row files of the previous catalog whose rows go (changed, removed, or naming a changed
    /// model or accelerator): path and record id.
    std::vector<std::pair<std::string, std::string>> dropped;
    /// Unchanged row files whose metadata moved while their bytes did not: today's stamps.
    std::vector<std::pair<std::string, FileStamp>> restamped;
    std::size_t changed_files = 0;
    /// The walk of the records folder the plan compared: the build's lint takes it
    /// (LintOptions::walked) rather than walking the folder again.
    RecordTree tree;
    /// Said to the user before a full build: why the previous catalog's rows are not reused.
    std::string notice;
    bool damaged = false;  ///< the previous catalog's pages are not whole
};

/// Compares the records under `records_root` with what the catalog at `db_path` was built
/// from. Reads file metadata, and the bytes of files whose metadata changed. A catalog
/// without this kvcat's seal (catalog_seal.h) is built again in full.
///
/// `starting`, when given, is called once, as soon as the plan knows the build will start
/// from the previous catalog's bytes and before it compares every file with the catalog's
/// list, so that the caller can copy the catalog meanwhile. The plan may still end as a full
/// build (the previous catalog turns out unreadable); the caller then drops that copy.
BuildPlan plan_build(const std::filesystem::path& db_path, const std::filesystem::path& records_root,
                     const std::function<void()>& starting = {});

}  // namespace kvcat
