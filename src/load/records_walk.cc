#include "load/records_walk.h"

#include <algorithm>
#include <cerrno>
#include <memory>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/load_findings.h"
#include "load/records.h"
#include "load/records_root.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

/// What a directory entry named like a record is, when it is not a regular file.
std::string what_it_is(const fs::directory_entry& entry) {
    std::error_code ec;
    auto st = entry.status(ec);  // follows a link
    if (entry.is_symlink(ec) && !fs::exists(st)) return "a link to nothing: what it names does not exist";
    switch (st.type()) {
        case fs::file_type::fifo:
            return "a FIFO (named pipe), not a record file";
        case fs::file_type::socket:
            return "a socket, not a record file";
        case fs::file_type::block:
        case fs::file_type::character:
            return "a device, not a record file";
        default:
            return "not a regular file";
    }
}
EntryType entry_type(int dir_fd, const dirent& entry) {
    EntryType t;
    auto from_mode = [&t](mode_t mode) {
        t.directory = S_ISDIR(mode);
        t.regular = S_ISREG(mode);
    };
    unsigned char type = entry.d_type;
    if (type == DT_UNKNOWN) {  // a file system that does not say: ask it
        struct stat own {};
        if (::fstatat(dir_fd, entry.d_name, &own, AT_SYMLINK_NOFOLLOW) != 0) {
            t.follow_error = errno;
            return t;
        }
        if (!S_ISLNK(own.st_mode)) {
            from_mode(own.st_mode);
            return t;
        }
        type = DT_LNK;
    }
    if (type == DT_LNK) {
        t.link = true;
        struct stat target {};
        if (::fstatat(dir_fd, entry.d_name, &target, 0) != 0) {
            t.follow_error = errno;
        } else {
            from_mode(target.st_mode);
        }
        return t;
    }
    t.directory = type == DT_DIR;
    t.regular = type == DT_REG;
    return t;  // or a FIFO, a socket, a device: neither
}
std::string errno_message(int error) {
    return std::error_code(error, std::generic_category()).message();
}
/// `dir` is the folder's path as opened; `dir_shown` is the same as shown (lexically normal,
/// '/'-separated), and a child's shown name is built from it with one append instead of
/// normalising every path again. `resolved` is the records root, resolved: a link to a
/// folder outside it is a finding, and never entered. The folder is read with readdir, whose
/// entry types spare a stat per file (a hundred thousand of them in a large catalog).
void walk_into(const std::string& dir, const std::string& dir_shown, std::string_view resolved, RecordTree& found,
               int depth) {
    if (depth > kMaxFolderDepth) {
        found.problems.push_back(diag::file_unreadable(dir_shown, "folders nested more than 64 deep"));
        return;
    }
    const std::string dir_prefix = dir.ends_with('/') ? dir : dir + '/';
    int error = read_folder(dir, [&](int, const FolderEntry& entry) {
        std::string child_shown;
        if (dir_shown != ".") {
            child_shown.reserve(dir_shown.size() + 1 + entry.name.size());
            child_shown = dir_shown;
            if (!child_shown.ends_with('/')) child_shown += '/';
        }
        child_shown.append(entry.name);
        const EntryType& type = entry.type;
        if (type.directory) {
            std::string child = dir_prefix;
            child.append(entry.name);
            if (entry.yaml_name) {
                found.problems.push_back(
                    diag::file_unreadable(child_shown, "a directory named like a record; a record is a file"));
            } else if (type.link) {
                // Links to folders are not followed (no loops); one leading out of the root is
                // a finding, since the records under it would otherwise go unchecked in silence.
                if (auto where = folder_outside(fs::path(child), resolved)) {
                    found.problems.push_back(diag::folder_outside_root(child_shown, *where, std::string(resolved)));
                } else {
                    found.linked_folders.push_back(std::move(child_shown));
                }
            } else {
                walk_into(child, child_shown, resolved, found, depth + 1);
            }
            return;
        }
        if (!entry.yaml_name) {
            found.skipped.push_back(std::move(child_shown));
            return;
        }
        if (!type.regular) {
            bool dangling = type.link && type.follow_error == ENOENT;
            std::string why;
            if (type.follow_error != 0 && !dangling) {
                why = errno_message(type.follow_error);
            } else {
                std::error_code ec;
                why = what_it_is(fs::directory_entry(fs::path(dir_prefix + std::string(entry.name)), ec));
            }
            found.problems.push_back(diag::file_unreadable(child_shown, why));
            return;
        }
        if (type.link) found.links.push_back(child_shown);
        found.yaml.push_back(std::move(child_shown));
    });
    // An unreadable folder is a finding: its records would otherwise go unchecked in silence.
    if (error != 0) found.problems.push_back(diag::file_unreadable(dir_shown, errno_message(error)));
}

}  // namespace

int read_folder(const std::string& dir, const std::function<void(int dir_fd, const FolderEntry&)>& each) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* folder = fd < 0 ? nullptr : ::fdopendir(fd);
    if (!folder) {
        int error = errno;
        if (fd >= 0) ::close(fd);
        return error;
    }
    std::unique_ptr<DIR, int (*)(DIR*)> closer(folder, ::closedir);
    for (;;) {
        errno = 0;
        const dirent* entry = ::readdir(folder);
        if (!entry) return errno;
        std::string_view name(entry->d_name);
        if (name == "." || name == "..") continue;
        FolderEntry e;
        e.name = name;
        e.type = entry_type(::dirfd(folder), *entry);
        e.yaml_name = name.size() > 5 && name.ends_with(".yaml");
        each(::dirfd(folder), e);
    }
}

std::string shown_path(const fs::path& p) {
    return p.lexically_normal().generic_string();
}

void walk_folder(const fs::path& dir, std::string_view resolved, RecordTree& found) {
    walk_into(dir.native(), shown_path(dir), resolved, found, 0);
    std::sort(found.yaml.begin(), found.yaml.end());
    std::sort(found.links.begin(), found.links.end());
}

fs::path records_root_for(const fs::path& path) {
    auto is_kind_folder = [](const fs::path& p) {
        auto name = p.filename().string();
        auto kinds = record_kinds();
        return std::any_of(kinds.begin(), kinds.end(), [&](RecordKind k) { return kind_folder(k) == name; });
    };
    fs::path normal = path.lexically_normal();
    if (normal.filename().empty()) normal = normal.parent_path();  // "records/" -> "records"
    for (fs::path p = normal; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (is_kind_folder(p)) {
            fs::path parent = p.parent_path();
            return parent.empty() ? fs::path(".") : parent;
        }
        if (p.parent_path() == p) break;
    }
    std::error_code ec;
    if (fs::is_directory(normal, ec)) return normal;
    fs::path parent = normal.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

RecordTree walk_records(const fs::path& root) {
    RecordTree found;
    found.shown = shown_path(root);
    walk_folder(root, resolved_root(root), found);
    return found;
}

std::vector<std::string> record_files(const fs::path& root) {
    return walk_records(root).yaml;
}

std::string path_under_root(const std::string& file, std::string_view root_shown) {
    // The common case without building paths: the file is spelled under the root's spelling.
    std::string_view r = root_shown;
    while (r.size() > 1 && r.back() == '/') r.remove_suffix(1);
    if (r == ".") {
        if (!file.starts_with("../") && !file.starts_with('/') && file != "..") return file;
    } else if (file.size() > r.size() + 1 && file.starts_with(r) && file[r.size()] == '/' && r != "/") {
        return file.substr(r.size() + 1);
    }
    return fs::path(file).lexically_relative(fs::path(root_shown)).generic_string();
}

}  // namespace kvcat
