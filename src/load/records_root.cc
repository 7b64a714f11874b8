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

#include "load/records_walk.h"
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

std::optional<std::string> folder_outside(const fs::path& folder, std::string_view resolved) {
    auto where = outside_root(folder, resolved);
    if (where && *where == resolved) return std::nullopt;
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

/// Reads one folder: its record files go into `into`, its subfolders to `found`; what is a
/// record file and what is a folder to enter is read_folder's, as the lint's walk reads them.
void scan_folder(const Folder& folder, RecordSetFingerprint& into, std::vector<Folder>& found) {
    read_folder(folder.path, [&](int dir_fd, const FolderEntry& entry) {
        if (entry.type.directory) {
            // Links to folders are not walked, as the lint does not walk them.
            if (!entry.type.link && !entry.yaml_name && folder.depth < kMaxFolderDepth) {
                std::string relative =
                    folder.relative.empty() ? std::string(entry.name) : folder.relative + "/" + std::string(entry.name);
                found.push_back(
                    Folder{folder.path + "/" + std::string(entry.name), std::move(relative), folder.depth + 1});
            }
            return;
        }
        if (!entry.yaml_name || !entry.type.regular) return;
        std::string name(entry.name);
        struct stat st {};
        if (::fstatat(dir_fd, name.c_str(), &st, 0) != 0 || !S_ISREG(st.st_mode)) return;
        std::string relative = folder.relative.empty() ? name : folder.relative + "/" + name;
        add_to_fingerprint(into, relative, static_cast<std::int64_t>(st.st_size),
                           static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
    });
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
