#include "load/records_root.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/content_hash.h"

namespace kvcat {

namespace fs = std::filesystem;

std::string resolved_root(const fs::path& root) {
    std::error_code ec;
    fs::path absolute = fs::absolute(root, ec);
    if (ec) absolute = root;
    fs::path resolved = fs::weakly_canonical(absolute, ec);
    if (ec) resolved = absolute.lexically_normal();
    std::string out = resolved.generic_string();
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    return out;
}

std::optional<std::string> outside_root(const fs::path& file, std::string_view resolved, std::string* inside) {
    std::error_code ec;
    fs::path real = fs::canonical(file, ec);
    if (ec) return std::nullopt;  // nothing to read there; the walk reports it
    std::string where = real.generic_string();
    if (resolved == "/" ||
        (where.size() > resolved.size() && where.starts_with(resolved) && where[resolved.size()] == '/')) {
        if (inside) *inside = std::move(where);
        return std::nullopt;
    }
    return where;
}

std::string RecordSetFingerprint::text() const {
    return fmt::format("{}:{:016x}", files, sum);
}

void add_to_fingerprint(RecordSetFingerprint& fingerprint, std::string_view relative, std::int64_t size,
                        std::int64_t mtime_ns) {
    std::uint64_t h = content_hash(relative);
    h ^= static_cast<std::uint64_t>(size) * 0x9e3779b97f4a7c15ULL;
    h ^= static_cast<std::uint64_t>(mtime_ns) * 0xc2b2ae3d27d4eb4fULL;
    // A finaliser (splitmix64's), so that summing files cannot cancel simple patterns.
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    ++fingerprint.files;
    fingerprint.sum += h;
}

namespace {

struct Folder {
    std::string path;      ///< as given, for opening
    std::string relative;  ///< under the root, "" for the root itself
    int depth = 0;
};

/// Reads one folder: its record files go into `into`, its subfolders to `found`.
void scan_folder(const Folder& folder, RecordSetFingerprint& into, std::vector<Folder>& found) {
    int fd = ::open(folder.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    DIR* dir = ::fdopendir(fd);
    if (!dir) {
        ::close(fd);
        return;
    }
    while (dirent* entry = ::readdir(dir)) {
        const char* name = entry->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        std::string_view view(name);
        bool is_dir = entry->d_type == DT_DIR;
        if (entry->d_type == DT_UNKNOWN) {
            struct stat own {};
            is_dir = ::fstatat(::dirfd(dir), name, &own, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(own.st_mode);
        }
        std::string relative = folder.relative.empty() ? std::string(view) : folder.relative + "/" + name;
        if (is_dir) {
            // Links to folders are not walked, as the lint does not walk them.
            if (folder.depth < 64)
                found.push_back(Folder{folder.path + "/" + name, std::move(relative), folder.depth + 1});
            continue;
        }
        if (view.size() <= 5 || !view.ends_with(".yaml")) continue;
        struct stat st {};
        if (::fstatat(::dirfd(dir), name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
        add_to_fingerprint(into, relative, static_cast<std::int64_t>(st.st_size),
                           static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
    }
    ::closedir(dir);
}

}  // namespace

RecordSetFingerprint fingerprint_on_disk(const fs::path& root) {
    RecordSetFingerprint total;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Folder> queue{Folder{root.string(), "", 0}};
    int busy = 0;
    auto work = [&] {
        RecordSetFingerprint mine;
        std::vector<Folder> found;
        std::unique_lock lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return !queue.empty() || busy == 0; });
            if (queue.empty()) break;  // and nobody is reading a folder that could add more
            Folder folder = std::move(queue.back());
            queue.pop_back();
            ++busy;
            lock.unlock();
            found.clear();
            scan_folder(folder, mine, found);
            lock.lock();
            for (auto& f : found) queue.push_back(std::move(f));
            --busy;
            changed.notify_all();
        }
        total.files += mine.files;
        total.sum += mine.sum;
    };
    unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return total;
}

}  // namespace kvcat
