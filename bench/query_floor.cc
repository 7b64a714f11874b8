// The query's floor: what `kvcat query` cannot go under while it refuses to answer from a
// catalog older than its records. It runs the headline SELECT through SQLite, as the sqlite3
// shell does, and beside it walks the records root and stats every record file on every core
// (each folder read once, each file stat'ed relative to its folder), keeping nothing but a
// count. bench/run reports kvcat's query and the shell's SELECT as ratios of it.
//
// Usage: kvcat_query_floor RECORDS_DIR CATALOG SQL [THREADS]
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sqlite3.h>

namespace {

/// Folders still to read, shared by the walkers; a walker stops when none is queued and none
/// is being read (a folder being read may still queue more).
class FolderQueue {
  public:
    explicit FolderQueue(std::string root) { queued_.push_back(std::move(root)); }

    bool take(std::string& folder) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !queued_.empty() || reading_ == 0; });
        if (queued_.empty()) return false;
        folder = std::move(queued_.back());
        queued_.pop_back();
        ++reading_;
        return true;
    }

    void done(std::vector<std::string>& found) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto& f : found) queued_.push_back(std::move(f));
            --reading_;
        }
        changed_.notify_all();
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> queued_;
    int reading_ = 0;
};

bool is_record(const char* name) {
    std::string n(name);
    return n.size() > 5 && n.compare(n.size() - 5, 5, ".yaml") == 0;
}

/// Reads folders until none is left: each entry that is a folder is queued, each record file
/// stat'ed (its size and modification time are what a staleness check compares).
void walk(FolderQueue& queue, std::atomic<long>& files, std::atomic<long>& failed) {
    std::string folder;
    while (queue.take(folder)) {
        std::vector<std::string> found;
        int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
        long stated = 0, bad = 0;
        while (dir) {
            const dirent* e = ::readdir(dir);
            if (!e) break;
            if (e->d_name[0] == '.') continue;
            if (e->d_type == DT_DIR) {
                found.push_back(folder + "/" + e->d_name);
                continue;
            }
            if (!is_record(e->d_name)) continue;
            struct stat st {};
            if (::fstatat(fd, e->d_name, &st, 0) == 0) {
                ++stated;
            } else {
                ++bad;
            }
        }
        if (dir) ::closedir(dir);
        files += stated;
        failed += bad;
        queue.done(found);
    }
}

/// The SELECT's rows as comma-separated text, as the shell prints them in -csv mode; false on
/// any SQLite error.
bool select_rows(const char* catalog, const char* sql, std::string& out) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(catalog, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return false;
    sqlite3_stmt* stmt = nullptr;
    bool ok = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK;
    int rc = SQLITE_DONE;
    while (ok && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int columns = sqlite3_column_count(stmt);
        for (int i = 0; i < columns; ++i) {
            const unsigned char* text = sqlite3_column_text(stmt, i);
            if (text) out += reinterpret_cast<const char*>(text);
            out += i + 1 < columns ? ',' : '\n';
        }
    }
    ok = ok && rc == SQLITE_DONE;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: kvcat_query_floor RECORDS_DIR CATALOG SQL [THREADS]\n";
        return 2;
    }
    unsigned threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : std::thread::hardware_concurrency();
    threads = std::max(1u, threads);
    FolderQueue queue(argv[1]);
    std::atomic<long> files{0}, failed{0};
    std::vector<std::thread> walkers;
    for (unsigned t = 0; t < threads; ++t)
        walkers.emplace_back(walk, std::ref(queue), std::ref(files), std::ref(failed));
    std::string rows;
    bool selected = select_rows(argv[2], argv[3], rows);
    for (auto& w : walkers) w.join();
    if (!selected) {
        std::cerr << "kvcat_query_floor: the SELECT failed on " << argv[2] << "\n";
        return 1;
    }
    std::fwrite(rows.data(), 1, rows.size(), stdout);
    std::cerr << "kvcat_query_floor: " << files.load() << " record files stat'ed, " << failed.load() << " failed\n";
    return failed.load() == 0 && files.load() > 0 ? 0 : 1;
}
