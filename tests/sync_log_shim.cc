// A preload library for tests: logs every fsync, fdatasync and rename the process makes to
// the file named by $KVCAT_SYNC_LOG ("fsync PATH", "rename FROM TO", one a line), then does
// the real call. It lets a test check the order of the catalog's commit: the new file is
// synced before it is renamed over the old one.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void log_line(const std::string& line) {
    const char* log = std::getenv("KVCAT_SYNC_LOG");
    if (!log) return;
    int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    std::string text = line + "\n";
    ssize_t written = ::write(fd, text.data(), text.size());
    (void)written;
    ::close(fd);
}

std::string path_of(int fd) {
    char link[64];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    char target[PATH_MAX];
    ssize_t n = ::readlink(link, target, sizeof target - 1);
    return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : std::string("?");
}

template <typename Fn>
Fn real(const char* name) {
    return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int fsync(int fd) {
    static auto next = real<int (*)(int)>("fsync");
    log_line("fsync " + path_of(fd));
    return next(fd);
}

extern "C" int fdatasync(int fd) {
    static auto next = real<int (*)(int)>("fdatasync");
    log_line("fsync " + path_of(fd));
    return next(fd);
}

extern "C" int rename(const char* from, const char* to) {
    static auto next = real<int (*)(const char*, const char*)>("rename");
    log_line(std::string("rename ") + from + " " + to);
    return next(from, to);
}
