// Whether a catalog on disk is the very file a kvcat build on this account wrote, for these
// records, unchanged since.
//
// A catalog can arrive with a checkout, its rows edited by anyone, and an incremental build
// takes unchanged rows from the previous catalog rather than checking them again. So after a
// build renames a catalog into place it leaves a seal for it outside the catalog, in this
// account's state folder ($KVCAT_STATE_DIR, else $XDG_STATE_HOME/kvcat, else
// ~/.local/state/kvcat): the catalog's device, inode, size, modification and change times,
// and the records root it was built from. Rows are
// reused only from a catalog whose seal matches. A fresh clone, a copy, another account's
// catalog, or a file written, moved or damaged after the build has no matching seal, and is
// rebuilt from every record. The change time is one no unprivileged process can set back,
// so a file altered after the build cannot show the sealed times again.
//
// The check is a stat and one small read, whatever the catalog's size: a digest of the
// catalog's bytes (a keyed hash) would hold the same guarantee at the cost of reading the
// whole catalog on every build.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kvcat {

/// The folder seals are kept in, created private (0700) when missing; nullopt with `why`
/// set when there is none this account owns.
std::optional<std::filesystem::path> seal_folder(std::string* why);

/// Leaves the seal of `db_path` as it is on disk now. Best effort: when no seal can be
/// kept, the next build reads every record; returns why, or nullopt once sealed.
std::optional<std::string> seal_catalog(const std::filesystem::path& db_path, const std::string& resolved_root);

/// Nullopt when `db_path` carries the seal of a build for `resolved_root`; otherwise why
/// it is not trusted, in words for a log line.
std::optional<std::string> catalog_unsealed(const std::filesystem::path& db_path, const std::string& resolved_root);

}  // namespace kvcat
