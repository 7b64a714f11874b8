#include "cmd/write_file.h"

#include <fstream>
#include <system_error>

#include <spdlog/spdlog.h>

namespace kvcat::cmd {

namespace fs = std::filesystem;

bool write_whole_file(const fs::path& path, const std::string& text, bool force) {
    std::error_code ec;
    if (fs::exists(path, ec) && !force) {
        spdlog::error("{} exists; give --force to replace it", path.string());
        return false;
    }
    if (path.has_parent_path() && !fs::is_directory(path.parent_path(), ec)) {
        spdlog::error("{}: the folder {} does not exist", path.string(), path.parent_path().string());
        return false;
    }
    fs::path tmp = path;
    tmp += ".kvcat-tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.flush();
        if (!f) {
            spdlog::error("cannot write {}", tmp.string());
            fs::remove(tmp, ec);
            return false;
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        spdlog::error("cannot write {}: {}", path.string(), ec.message());
        fs::remove(tmp, ec);
        return false;
    }
    return true;
}

}  // namespace kvcat::cmd
