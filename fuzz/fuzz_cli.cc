// libFuzzer target: bytes -> a command line and a small records tree -> kvcat's own main()
// (kvcat::cmd::kvcat_main, which src/main.cc calls).
//
// The input is lines. Up to the first line that is exactly "--", each line is one argument
// (at most 24, each cut at 200 bytes). After it, a line "## PATH" starts a file of the tree
// and the lines up to the next "## " are its text (at most 12 files). The tree is made
// afresh in a scratch folder for every input, on top of one valid model and accelerator
// (tests/hostile/_shared/), and kvcat runs there, in this process, through the same
// kvcat_main as the binary.
//
// What must hold: every run ends with exit status 0, 1 or 2; nothing throws out of main, no
// signal, no sanitizer report, no hang (libFuzzer's -timeout). Paths are kept inside the
// scratch folder: a path component may only be [A-Za-z0-9._-] and never "." or "..", and an
// argument that starts with '/' or holds ".." is replaced, so no run reads or writes outside.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <spdlog/spdlog.h>

#include "cmd/kvcat_main.h"
#include "fuzz_check.h"

#ifndef KVCAT_SOURCE_DIR
#error "KVCAT_SOURCE_DIR must name the source tree (for tests/hostile/_shared)"
#endif

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxArgs = 24;
constexpr std::size_t kMaxArgBytes = 200;
constexpr std::size_t kMaxFiles = 12;

struct Input {
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> files;  ///< relative path, text
};

/// A path of the tree made safe, or empty when it cannot be.
std::string safe_path(std::string_view given) {
    std::string out;
    std::size_t parts = 0;
    std::size_t start = 0;
    while (start <= given.size()) {
        std::size_t slash = given.find('/', start);
        std::string_view part =
            given.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (part.empty() || part == "." || part == ".." || part.size() > 64) return "";
        for (char c : part) {
            bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
            if (!ok) return "";
        }
        if (++parts > 5) return "";
        out += (out.empty() ? "" : "/") + std::string(part);
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

Input parse(std::string_view text) {
    Input in;
    std::size_t at = 0;
    bool in_files = false;
    std::string* file = nullptr;
    while (at < text.size()) {
        std::size_t eol = text.find('\n', at);
        std::string_view line = text.substr(at, eol == std::string_view::npos ? std::string_view::npos : eol - at);
        at = eol == std::string_view::npos ? text.size() : eol + 1;
        if (!in_files) {
            if (line == "--") {
                in_files = true;
            } else if (in.args.size() < kMaxArgs) {
                std::string arg(line.substr(0, kMaxArgBytes));
                if (arg.starts_with('/') || arg.find("..") != std::string::npos) arg = "x";
                in.args.push_back(arg);
            }
            continue;
        }
        if (line.starts_with("## ")) {
            file = nullptr;
            std::string path = safe_path(line.substr(3));
            if (!path.empty() && in.files.size() < kMaxFiles) {
                in.files.emplace_back(path, "");
                file = &in.files.back().second;
            }
            continue;
        }
        if (file) {
            *file += line;
            *file += '\n';
        }
    }
    return in;
}

const fs::path& scratch() {
    static const fs::path dir = [] {
        std::string pattern = (fs::temp_directory_path() / "kvcat-fuzz-cli-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) kvcat::fuzz::fail("cannot make a scratch folder");
        ::setenv("KVCAT_STATE_DIR", (fs::path(pattern) / "state").c_str(), 1);
        ::unsetenv("GITHUB_ACTIONS");
        ::setenv("NO_COLOR", "1", 1);
        return fs::path(pattern);
    }();
    return dir;
}

void write(const fs::path& path, const std::string& text) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (fs::is_directory(path, ec)) return;  // a file and a folder of the same name: the first wins
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// Back to where libFuzzer keeps its corpus, whatever happens in between.
class InFolder {
  public:
    explicit InFolder(const fs::path& dir) : back_(fs::current_path()) { fs::current_path(dir); }
    ~InFolder() {
        std::error_code ec;
        fs::current_path(back_, ec);
    }
    InFolder(const InFolder&) = delete;
    InFolder& operator=(const InFolder&) = delete;

  private:
    fs::path back_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path& base = scratch();
    Input in = parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (in.args.empty()) return 0;

    const fs::path tree = base / "tree";
    std::error_code ec;
    fs::permissions(tree, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(tree, ec);
    fs::create_directories(tree / "records", ec);
    const fs::path shared = fs::path(KVCAT_SOURCE_DIR) / "tests" / "hostile" / "_shared";
    fs::copy(shared, tree / "records", fs::copy_options::recursive, ec);
    for (const auto& [path, text] : in.files) write(tree / path, text);

    std::vector<std::string> args;
    args.emplace_back("kvcat");
    for (const auto& a : in.args) args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int code = 0;
    {
        InFolder here(tree);
        code = kvcat::cmd::kvcat_main(static_cast<int>(args.size()), argv.data());
    }
    spdlog::drop("kvcat");  // kvcat_main registers its logger afresh each run
    kvcat::fuzz::check(code == 0 || code == 1 || code == 2, "kvcat exited " + std::to_string(code));
    return 0;
}
