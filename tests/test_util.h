// Helpers shared by the test files: a temporary directory that cleans up after itself,
// writing exact bytes to a file, the fixture tree, and picking findings out of a lint.
// Header-only; nothing here depends on GoogleTest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "check/rule_registry.h"
#include "support/diagnostic.h"

// KVCAT_TEST_SANITIZED: the suite is built with AddressSanitizer, by g++ (which says so with
// __SANITIZE_ADDRESS__) or by clang++ (which says so through __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define KVCAT_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KVCAT_TEST_SANITIZED 1
#endif
#endif

namespace kvcat::test {

/// The kvcat binary the tests run: the one built beside this suite, or the one
/// KVCAT_TEST_BINARY names (.ci/run names the sanitized build's, so that every test that runs
/// kvcat runs it under AddressSanitizer and UndefinedBehaviorSanitizer).
inline std::string kvcat_binary() {
    const char* other = std::getenv("KVCAT_TEST_BINARY");
    return other != nullptr && *other != '\0' ? std::string(other) : std::string(KVCAT_BUILT_BINARY);
}

/// True when the kvcat the tests run may be sanitized: this suite is, or KVCAT_TEST_BINARY names
/// another build's binary.
inline bool kvcat_sanitized() {
#if defined(KVCAT_TEST_SANITIZED)
    return true;
#else
    const char* other = std::getenv("KVCAT_TEST_BINARY");
    return other != nullptr && *other != '\0';
#endif
}

/// The seconds a hang guard allows: `plain`, or `sanitized` when kvcat runs sanitized, which
/// makes every allocation several times slower while CI runs it on shared cores beside other
/// builds. Either way a guard only catches hangs and blow-ups.
inline int hang_guard_seconds(int plain, int sanitized) {
    return kvcat_sanitized() ? sanitized : plain;
}

namespace fs = std::filesystem;

/// A fresh directory under the system temp folder, removed with everything in it on destruction.
class TempDir {
  public:
    TempDir() {
        std::random_device rd;
        std::mt19937_64 gen(rd());
        const fs::path base = fs::temp_directory_path();
        for (int attempt = 0; attempt < 100; ++attempt) {
            fs::path candidate = base / ("kvcat-test-" + std::to_string(gen()));
            std::error_code ec;
            if (fs::create_directory(candidate, ec)) {
                path_ = candidate;
                return;
            }
        }
        throw std::runtime_error("cannot create a temporary directory under " + base.string());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);  // best effort: a test must not fail in cleanup
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const fs::path& path() const { return path_; }
    fs::path operator/(const fs::path& relative) const { return path_ / relative; }

  private:
    fs::path path_;
};

/// Whether `needle` occurs in `haystack`.
/// Bytes in a GiB, the unit the engines print their memory in.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline bool contains(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

/// The text with every run of spaces and line breaks made one space: prose in a folded
/// block reads the same wherever its lines wrap.
inline std::string flat(std::string_view text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\n') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

/// Writes `bytes` exactly (binary, no newline translation), creating parent folders.
inline void write_file(const fs::path& path, std::string_view bytes) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + path.string());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("write failed: " + path.string());
}

/// The whole file, as bytes.
inline std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// A scratch folder that commands share while none of them changes it: `fill` sets up a fresh one,
/// and get() hands back the same folder as long as every entry in it (but those named in `own`,
/// wherever they are, such as the catalog kvcat builds there) has the size and modification time
/// it had when filled; after a command added, removed or wrote anything, get() fills a fresh one.
/// Each command so starts on what `fill` made, and a catalog built by one serves the next.
class ReusedFolder {
  public:
    ReusedFolder(std::function<void(const fs::path&)> fill, std::set<std::string> own)
        : fill_(std::move(fill)), own_(std::move(own)) {}

    const TempDir& get() {
        if (!folder_ || state() != pristine_) {
            folder_.emplace();
            fill_(folder_->path());
            pristine_ = state();
            ++made_;
        }
        return *folder_;
    }

    /// How many fresh folders get() has filled.
    int made() const { return made_; }

  private:
    using State = std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>>;
    State state() const {
        State s;
        for (const auto& e : fs::recursive_directory_iterator(folder_->path())) {
            if (own_.count(e.path().filename().string())) continue;
            std::uintmax_t size = e.is_regular_file() ? e.file_size() : 0;
            s[fs::relative(e.path(), folder_->path()).string()] = {size, e.last_write_time()};
        }
        return s;
    }

    std::function<void(const fs::path&)> fill_;
    std::set<std::string> own_;
    std::optional<TempDir> folder_;
    State pristine_;
    int made_ = 0;
};

/// Copies a folder tree (a fixture) into `to`, creating it.
inline void copy_tree(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

#ifdef KVCAT_FIXTURES_DIR
/// tests/fixtures, absolute.
inline fs::path fixtures_dir() {
    return fs::path(KVCAT_FIXTURES_DIR);
}
/// A path under tests/fixtures: fixture_path("kv-basis-product/fail").
inline fs::path fixture_path(std::string_view relative) {
    return fixtures_dir() / fs::path(relative);
}
#endif

/// Every finding of one rule, in order.
inline std::vector<const Diagnostic*> find_rule(const std::vector<Diagnostic>& diagnostics, std::string_view rule) {
    std::vector<const Diagnostic*> out;
    for (const auto& d : diagnostics) {
        if (d.rule == rule) out.push_back(&d);
    }
    return out;
}

/// Findings of one rule whose file ends with `file_suffix` (a path relative to a records root).
inline std::vector<const Diagnostic*> find_rule_in(const std::vector<Diagnostic>& diagnostics, std::string_view rule,
                                                   std::string_view file_suffix) {
    std::vector<const Diagnostic*> out;
    for (const auto& d : diagnostics) {
        if (d.rule == rule && std::string_view(d.pos.file).ends_with(file_suffix)) out.push_back(&d);
    }
    return out;
}

/// Rules that check the arithmetic and wording of prose (statement, notes, methodology, id tags).
/// Tests of the structural rules do not make claims about them.
inline bool is_prose_rule(std::string_view rule) {
    return rule.starts_with("prose-") || rule == "kv-statement-mismatch" || rule == "id-context-tag";
}

/// The distinct rule ids among the findings, without the prose rules unless asked.
inline std::set<std::string> rules_in(const std::vector<Diagnostic>& diagnostics, bool with_prose = false) {
    std::set<std::string> out;
    for (const auto& d : diagnostics) {
        if (with_prose || !is_prose_rule(d.rule)) out.insert(d.rule);
    }
    return out;
}

/// The findings as the CLI prints them, one a line: for assertion messages.
inline std::string describe(const std::vector<Diagnostic>& diagnostics) {
    if (diagnostics.empty()) return "(no findings)\n";
    std::string out;
    for (const auto& d : diagnostics) {
        out += format_text(d);
        out += '\n';
    }
    return out;
}

/// The rule's declared severity from all_rules(), or nullptr for an unknown id.
inline const RuleInfo* rule_info(std::string_view rule) {
    auto rules = all_rules();
    auto it = std::find_if(rules.begin(), rules.end(), [&](const RuleInfo& r) { return r.id == rule; });
    return it == rules.end() ? nullptr : &*it;
}

}  // namespace kvcat::test
