// The catalog as a file on disk: what kvcat agrees to open at --db, to replace there, and
// how it tells a damaged catalog from a sound one.
//
// A checkout can hold anything at kvcat.db: a FIFO (reading it blocks forever), a device
// (/dev/zero reads forever), a folder, a link. kvcat opens only a regular file, links
// followed, and refuses the rest before SQLite touches it. It replaces only a regular file
// that is not a link and whose owner may write it: a build renames a new file over the old
// one, which would silently turn a link into a file and a read-only catalog into a writable
// one, so a link or a read-only catalog is refused with what to do instead.
//
// kvcat never changes a catalog in place: a build writes a new file, without a journal, and
// renames it over the old one. So a rollback journal or a WAL file beside a catalog
// (kvcat.db-journal, kvcat.db-wal) is never kvcat's, and every read opens the catalog as an
// immutable file, which SQLite reads without looking for either. One committed with a
// checkout could otherwise make SQLite refuse the catalog ("attempt to write a readonly
// database") or, opened for writing, replay a stranger's pages into it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <SQLiteCpp/Database.h>

#include "catalog/catalog.h"

namespace kvcat {

/// Throws CatalogError unless `path` is absent or, links followed, a regular file.
void require_readable_catalog_file(const std::filesystem::path& path);

/// Throws CatalogError unless `path` is absent or a regular file (not a link) whose owner
/// may write it.
void require_replaceable_catalog_file(const std::filesystem::path& path);

/// The catalog at `path` opened read-only as an immutable file (the comment above). Throws
/// what SQLiteCpp throws when it cannot be opened.
std::unique_ptr<SQLite::Database> open_catalog_readonly(const std::filesystem::path& path);

/// The SQLite URI that opens `path` so: "file:" and the path percent-encoded where a URI
/// would read it otherwise, then "?immutable=1".
std::string immutable_catalog_uri(const std::filesystem::path& path);

/// What SQLite's quick_check finds wrong with the catalog's pages, or nullopt when they
/// are whole. Reads the whole file once.
std::optional<std::string> catalog_damage(const std::filesystem::path& path);

}  // namespace kvcat
