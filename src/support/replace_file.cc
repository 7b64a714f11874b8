#include "support/replace_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

namespace kvcat {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) {
    return std::error_code(err, std::generic_category()).message();
}

fs::path folder_of(const fs::path& target) {
    return target.parent_path().empty() ? fs::path(".") : target.parent_path();
}

bool all_of(std::string_view s, std::string_view allowed) {
    return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

}  // namespace

std::string random_suffix() {
    unsigned char bytes[8];
    std::size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw ReplaceError(fmt::format("no random bytes for a temporary name: {}", errno_text(errno)));
        }
        got += static_cast<std::size_t>(n);
    }
    std::string out;
    for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
    return out;
}

long own_temporary_pid(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix)) return 0;
    std::string_view rest = name.substr(prefix.size());
    auto dash = rest.find('-');
    if (dash == std::string_view::npos) return 0;
    std::string_view pid = rest.substr(0, dash);
    std::string_view suffix = rest.substr(dash + 1);
    if (pid.size() > 10 || !all_of(pid, "0123456789") || pid[0] == '0') return 0;
    bool random_form = suffix.size() == 16 && all_of(suffix, "0123456789abcdef");
    bool older_form = suffix.size() <= 20 && all_of(suffix, "0123456789");
    if (!random_form && !older_form) return 0;
    return std::stol(std::string(pid));
}

ReplacementFile::ReplacementFile(fs::path target, std::string_view marker) : target_(std::move(target)) {
    struct stat st {};
    if (::lstat(target_.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            throw ReplaceError(
                fmt::format("{} is a symbolic link; kvcat writes a new file and does not replace a link nor write "
                            "through one: remove the link or name the file it points to",
                            target_.string()));
        }
        if (!S_ISREG(st.st_mode)) {
            throw ReplaceError(
                fmt::format("{} exists and is not a regular file; kvcat replaces only files", target_.string()));
        }
        keep_mode_ = true;
        mode_ = static_cast<unsigned>(st.st_mode & 0777);
    } else if (errno != ENOENT) {
        throw ReplaceError(fmt::format("cannot look at {}: {}", target_.string(), errno_text(errno)));
    }
    fs::path folder = folder_of(target_);
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
        throw ReplaceError(fmt::format("{}: the folder {} does not exist", target_.string(), folder.string()));
    }
    // A fresh random name each try: O_EXCL refuses a name that exists, link or not.
    int err = 0;
    for (int attempt = 0; attempt < 8; ++attempt) {
        // Beside the target as the caller spelled it: "kvcat.db" gives "kvcat.db.tmp-...", not "./...".
        path_ = target_.parent_path() / (target_.filename().string() + std::string(marker) + random_suffix());
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd_ >= 0) return;
        err = errno;
        if (err != EEXIST) break;
    }
    throw ReplaceError(fmt::format("cannot write {}: no new file can be made in {}: {}", target_.string(),
                                   folder.string(), errno_text(err)));
}

ReplacementFile::~ReplacementFile() {
    if (fd_ >= 0) ::close(fd_);
    // Only the name this object created is removed, and only before it was renamed away.
    if (!committed_) ::unlink(path_.c_str());
}

void ReplacementFile::write(std::string_view text) {
    while (!text.empty()) {
        ssize_t n = ::write(fd_, text.data(), text.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw ReplaceError(fmt::format("cannot write {}: {}", target_.string(), errno_text(errno)));
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

void ReplacementFile::append_file(int from) {
    copy_from(from);
    // The copy's pages start on their way to the disk now, while the caller goes on, so that
    // commit()'s sync has little left to wait for: at a hundred megabytes that sync was a
    // sixth of an incremental build. Best effort: without it the sync writes them all.
#ifdef SYNC_FILE_RANGE_WRITE
    (void)::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
}

void ReplacementFile::copy_from(int from) {
    // In the kernel first: no trip of every byte through this process. A file system or
    // kernel that cannot (EXDEV, ENOSYS, EINVAL, EOPNOTSUPP) gets the plain copy below.
    loff_t in_offset = 0;
    for (;;) {
        ssize_t n = ::copy_file_range(from, &in_offset, fd_, nullptr, std::size_t{1} << 30, 0);
        if (n > 0) continue;
        if (n == 0) return;
        if (errno == EINTR) continue;
        if (in_offset == 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) break;
        throw ReplaceError(fmt::format("cannot copy into {}: {}", path_.string(), errno_text(errno)));
    }
    std::string buffer(std::size_t{1} << 20, '\0');
    for (;;) {
        ssize_t n = ::pread(from, buffer.data(), buffer.size(), in_offset);
        if (n == 0) return;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw ReplaceError(
                fmt::format("cannot read what is copied into {}: {}", path_.string(), errno_text(errno)));
        }
        in_offset += n;
        write(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    }
}

void ReplacementFile::commit() {
    if (keep_mode_ && ::fchmod(fd_, mode_) != 0) {
        throw ReplaceError(
            fmt::format("cannot give {} the mode of {}: {}", path_.string(), target_.string(), errno_text(errno)));
    }
    if (::fsync(fd_) != 0) {
        throw ReplaceError(fmt::format("cannot write {}: {}", target_.string(), errno_text(errno)));
    }
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
        throw ReplaceError(fmt::format("cannot write {}: {}", target_.string(), errno_text(errno)));
    }
    if (::rename(path_.c_str(), target_.c_str()) != 0) {
        throw ReplaceError(fmt::format("cannot write {}: {}", target_.string(), errno_text(errno)));
    }
    committed_ = true;
    // Some filesystems cannot sync a folder; the rename is atomic all the same.
    int dir = ::open(folder_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
}

void replace_file(const fs::path& target, std::string_view text) {
    ReplacementFile file(target, ".kvcat-tmp-");
    file.write(text);
    file.commit();
}

}  // namespace kvcat
