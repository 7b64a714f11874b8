#include "catalog/catalog_file.h"

#include <cctype>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include "support/bounded_read.h"

namespace kvcat {

namespace fs = std::filesystem;

void require_readable_catalog_file(const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return;  // nothing there yet: a build makes it
        throw CatalogError(fmt::format("{}: cannot look at the catalog: {}", path.string(), std::strerror(errno)));
    }
    if (!S_ISREG(st.st_mode)) {
        throw CatalogError(fmt::format("{} is {}, not a catalog file; kvcat reads a catalog only from a regular file",
                                       path.string(), file_kind_name(st.st_mode)));
    }
}

void require_replaceable_catalog_file(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return;
        throw CatalogError(fmt::format("{}: cannot look at the catalog: {}", path.string(), std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        fs::path target = fs::read_symlink(path, ec);
        throw CatalogError(fmt::format(
            "{} is a symbolic link{}; kvcat writes a catalog only as a regular file of its own and never through a "
            "link: give --db the file you mean, or remove the link",
            path.string(), ec ? "" : fmt::format(" to {}", target.string())));
    }
    if (!S_ISREG(st.st_mode)) {
        throw CatalogError(fmt::format("{} is {}, not a catalog file; refusing to replace it", path.string(),
                                       file_kind_name(st.st_mode)));
    }
    if ((st.st_mode & S_IWUSR) == 0) {
        throw CatalogError(fmt::format(
            "{} is read-only (mode {:o}); kvcat does not replace a catalog made read-only: make it writable "
            "(chmod u+w) or give --db another file",
            path.string(), st.st_mode & 07777));
    }
}

std::string immutable_catalog_uri(const fs::path& path) {
    std::string text = path.string();
    // "file://x" would name a host: two or more leading slashes are one on Linux.
    std::size_t slashes = text.find_first_not_of('/');
    if (slashes != std::string::npos && slashes > 1) text.erase(0, slashes - 1);
    std::string uri = "file:";
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') {
            uri += static_cast<char>(c);
        } else {
            uri += fmt::format("%{:02X}", c);  // '?', '#', '%' and anything else a URI reads
        }
    }
    return uri + "?immutable=1";
}

std::unique_ptr<SQLite::Database> open_catalog_readonly(const fs::path& path) {
    // NOMUTEX: a connection is only ever used by the thread that opened it, and a build's
    // plan makes a million calls into one; SQLite's own lock around each is then pure cost.
    return std::make_unique<SQLite::Database>(immutable_catalog_uri(path),
                                              SQLite::OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX);
}

std::optional<std::string> catalog_damage(const fs::path& path) {
    try {
        auto db = open_catalog_readonly(path);
        SQLite::Statement check(*db, "PRAGMA quick_check(1)");
        if (!check.executeStep()) return "quick_check gave no answer";
        std::string first = check.getColumn(0).getString();
        if (first == "ok") return std::nullopt;
        return first;
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
}

}  // namespace kvcat
