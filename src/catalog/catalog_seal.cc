#include "catalog/catalog_seal.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/content_hash.h"

namespace kvcat {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSealHead = "kvcat-catalog-seal 1";
constexpr std::size_t kMaxSealBytes = 64 * 1024;

/// Makes `dir` (and its parents) when missing; the last part private to this account.
bool make_private_folder(const fs::path& dir, std::string* why) {
    std::error_code ec;
    fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        *why = fmt::format("cannot make {}: {}", dir.string(), std::strerror(errno));
        return false;
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
        *why = fmt::format("{} is not a folder of this account's that only it may write", dir.string());
        return false;
    }
    return true;
}

/// Where the seal of `db_path` lives: one file per catalog path.
std::optional<fs::path> seal_path(const fs::path& db_path, std::string* absolute, std::string* why) {
    auto folder = seal_folder(why);
    if (!folder) return std::nullopt;
    std::error_code ec;
    fs::path parent = db_path.parent_path().empty() ? fs::path(".") : db_path.parent_path();
    fs::path where = fs::weakly_canonical(parent, ec);
    if (ec) where = fs::absolute(parent, ec);
    *absolute = (where / db_path.filename()).lexically_normal().generic_string();
    return *folder / (content_hash_hex(content_hash(*absolute)) + ".seal");
}

std::string stat_line(const struct stat& st) {
    auto ns = [](const timespec& t) { return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec; };
    return fmt::format("{} {} {} {} {} {:o}", static_cast<unsigned long long>(st.st_dev),
                       static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size), ns(st.st_mtim),
                       ns(st.st_ctim), static_cast<unsigned>(st.st_mode));
}

std::string seal_text(const std::string& absolute, const struct stat& st, const std::string& resolved_root) {
    return fmt::format("{}\n{}\n{}\n{}\n", kSealHead, absolute, stat_line(st), resolved_root);
}

/// 32 random hex digits, for a temporary name no one can guess.
std::string random_hex() {
    std::random_device device;
    std::string id;
    for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", static_cast<std::uint32_t>(device()));
    return id;
}

}  // namespace

std::optional<fs::path> seal_folder(std::string* why) {
    std::string ignored;
    if (!why) why = &ignored;
    fs::path dir;
    if (const char* v = std::getenv("KVCAT_STATE_DIR"); v && *v) {
        dir = v;
    } else if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x == '/') {
        dir = fs::path(x) / "kvcat";
    } else if (const char* h = std::getenv("HOME"); h && *h == '/') {
        dir = fs::path(h) / ".local" / "state" / "kvcat";
    } else {
        *why = "neither KVCAT_STATE_DIR, XDG_STATE_HOME nor HOME is set";
        return std::nullopt;
    }
    if (!make_private_folder(dir, why)) return std::nullopt;
    return dir;
}

std::optional<std::string> seal_catalog(const fs::path& db_path, const std::string& resolved_root) {
    std::string why;
    std::string absolute;
    auto path = seal_path(db_path, &absolute, &why);
    if (!path) return why;
    struct stat st {};
    if (::lstat(db_path.c_str(), &st) != 0)
        return fmt::format("cannot stat {}: {}", db_path.string(), std::strerror(errno));
    std::string text = seal_text(absolute, st, resolved_root);
    fs::path tmp = *path;
    tmp += fmt::format(".tmp-{}", random_hex());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno));
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ok = ::close(fd) == 0 && ok;
    if (!ok || ::rename(tmp.c_str(), path->c_str()) != 0) {
        std::string failed = fmt::format("cannot write {}: {}", path->string(), std::strerror(errno));
        ::unlink(tmp.c_str());
        return failed;
    }
    return std::nullopt;
}

std::optional<std::string> catalog_unsealed(const fs::path& db_path, const std::string& resolved_root) {
    std::string why;
    std::string absolute;
    auto path = seal_path(db_path, &absolute, &why);
    if (!path) return fmt::format("no seal can be kept for it ({}; set KVCAT_STATE_DIR to a private folder)", why);
    int fd = ::open(path->c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return "no kvcat build on this account wrote it";
    std::string text;
    struct stat seal_st {};
    if (::fstat(fd, &seal_st) == 0 && S_ISREG(seal_st.st_mode) &&
        seal_st.st_size <= static_cast<off_t>(kMaxSealBytes)) {
        std::array<char, 4096> buffer{};
        ssize_t n = 0;
        while (text.size() < kMaxSealBytes && (n = ::read(fd, buffer.data(), buffer.size())) > 0) {
            text.append(buffer.data(), static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    struct stat st {};
    if (::lstat(db_path.c_str(), &st) != 0) return fmt::format("cannot stat it: {}", std::strerror(errno));
    if (text == seal_text(absolute, st, resolved_root)) return std::nullopt;
    if (text.empty()) return "no kvcat build on this account wrote it";
    if (text.find(fmt::format("\n{}\n", resolved_root)) == std::string::npos) {
        return "kvcat wrote it here for other records";
    }
    return "it changed since kvcat wrote it";
}

}  // namespace kvcat
