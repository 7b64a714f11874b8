#include "load/data_dirs.h"

#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace kvcat {

namespace {

bool is_folder(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

/// PREFIX/share/kvcat/records for the binary at PREFIX/bin/kvcat.
std::optional<fs::path> beside_binary() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return std::nullopt;
    return exe.parent_path().parent_path() / "share" / "kvcat" / "records";
}

}  // namespace

std::optional<fs::path> installed_records() {
    if (const char* from_env = env("KVCAT_RECORDS")) return fs::path(from_env);
    if (auto p = beside_binary(); p && is_folder(*p)) return p;
    return std::nullopt;
}

std::string default_records_dir() {
    if (is_folder("records")) return "records";
    if (auto p = installed_records()) return p->string();
    return "records";
}

std::string default_db_path(const std::string& records) {
    if (const char* from_env = env("KVCAT_DB")) return from_env;
    if (records == "records") return "kvcat.db";
    fs::path cache;
    if (const char* xdg = env("XDG_CACHE_HOME")) {
        cache = fs::path(xdg) / "kvcat";
    } else if (const char* home = env("HOME")) {
        cache = fs::path(home) / ".cache" / "kvcat";
    } else {
        return "kvcat.db";
    }
    std::error_code ec;
    fs::create_directories(cache, ec);
    return (cache / "kvcat.db").string();
}

std::string no_records_advice(const std::string& records) {
    std::error_code ec;
    std::string here = fs::current_path(ec).string();
    auto beside = beside_binary();
    return fmt::format(
        "there is no {} folder in {}{}; run kvcat in a checkout (the folder that holds records/), give "
        "--records DIR, or set KVCAT_RECORDS to a records folder",
        records, here.empty() ? "this folder" : here,
        beside ? fmt::format(" and no records installed at {}", beside->string()) : "");
}

}  // namespace kvcat
