#include "support/bounded_read.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace kvcat {

std::string file_kind_name(unsigned mode) {
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::optional<std::string> read_bounded(const std::filesystem::path& path, std::size_t limit, std::string& why) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        why = std::strerror(errno);
        return std::nullopt;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        why = std::strerror(errno);
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        why = fmt::format("{}, not a regular file", file_kind_name(st.st_mode));
        return std::nullopt;
    }
    auto too_large = [&] {
        return limit % (1u << 20) == 0 ? fmt::format("larger than {} MiB, the limit", limit >> 20)
                                       : fmt::format("larger than {} bytes, the limit", limit);
    };
    if (static_cast<std::uint64_t>(st.st_size) > limit) {
        why = too_large();
        return std::nullopt;
    }
    std::string text;
    std::size_t want = static_cast<std::size_t>(st.st_size) + 1;  // one more: a file that grew says so
    for (;;) {
        std::size_t had = text.size();
        std::size_t chunk = std::min<std::size_t>(want, limit + 1 - had);
        if (chunk == 0) break;
        text.resize(had + chunk);
        ssize_t got = ::read(fd, text.data() + had, chunk);
        if (got < 0) {
            text.resize(had);
            if (errno == EINTR) continue;
            why = std::strerror(errno);
            return std::nullopt;
        }
        text.resize(had + static_cast<std::size_t>(got));
        if (got == 0) break;
        want = 65536;
    }
    if (text.size() > limit) {
        why = too_large();
        return std::nullopt;
    }
    return text;
}

}  // namespace kvcat
