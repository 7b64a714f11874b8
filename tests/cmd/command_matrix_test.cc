// Every subcommand against every state a user meets: clean records, a record with a lint
// error, a fresh `kvcat new` skeleton, short and unknown ids (in the commands themselves), no
// records folder, no catalog, a stale, a damaged and a foreign catalog, and a folder kvcat
// cannot write. Each run must end with exit status 0, 1 or 2, say something on stderr when
// it is not 0, and never end by a signal, a timeout, an uncaught exception or a sanitizer's
// report. One test per state, so ctest spreads them over the cores; every cell starts from a
// fresh copy of its state.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::test::contains;
using kvcat::test::read_file;
using kvcat::test::run_shell;
using kvcat::test::shell_quote;
using kvcat::test::TempDir;
using kvcat::test::write_file;

/// What every state also holds beside its records: inputs for the two importers.
constexpr const char* kConfig =
    R"({"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
 "hidden_size": 4096, "head_dim": 128, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"})";

const std::vector<std::vector<std::string>>& commands() {
    static const std::vector<std::vector<std::string>> list = {
        {"lint"},
        {"lint", "records/kv-efficiency"},
        {"build"},
        {"build", "--full"},
        {"query", "--columns", "id,model"},
        {"query", "model=qwen3.5-27b"},
        {"query", "model=no-such-model"},
        {"sql", "SELECT model, count(*) FROM kv_rows GROUP BY model"},
        {"columns"},
        {"explain", "llama-3.1-8b"},
        {"explain", "no-such-record"},
        {"fit", "--model", "llama-3.1-8b", "--accelerator", "rtx-4090", "--kv-dtype", "bf16"},
        {"fit", "--model", "no-such-model", "--accelerator", "nvidia-rtx-4090", "--kv-dtype", "bf16"},
        {"curve", "--model", "llama-3.1-8b", "--contexts", "8k,128k"},
        {"plan", "--model", "llama-3.1-8b", "--accelerator", "rtx-4090"},
        {"plan", "--model", "no-such-model", "--accelerator", "nvidia-rtx-4090"},
        {"predict", "--model", "llama-3.1-8b", "--accelerator", "rtx-4090", "--engine", "llama.cpp", "--weight-quant",
         "Q4_K", "--kv-dtype", "f16", "--context", "8k"},
        {"curve", "--model", "no-such-model", "--contexts", "8k"},
        {"new", "kv-efficiency", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--kv-dtype", "f16", "--context",
         "8k"},
        {"new", "kv-efficiency", "--model", "no-such-model", "--engine", "llama.cpp", "--kv-dtype", "f16", "--context",
         "8k"},
        {"report", "--out", "site/index.html"},
        {"import-config", "config.json"},
        {"import-config", "no-such-config.json"},
        {"import-bench", "bench.json", "--model", "llama-3.1-8b"},
        {"complete", "ids", "models"},
        {"complete", "values", "model"},
        {"no-such-command"},
    };
    return list;
}

/// The first page of the rows' table overwritten, as a bad disk might.
void damage(const fs::path& db) {
    std::int64_t page = 0;
    std::int64_t page_size = 0;
    {
        SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
        page = d.execAndGet("SELECT rootpage FROM sqlite_schema WHERE name = 'kv_efficiency'").getInt64();
        page_size = d.execAndGet("PRAGMA page_size").getInt64();
    }
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>((page - 1) * page_size));
    std::string junk(static_cast<std::size_t>(page_size), '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

struct CellRun {
    int status = -1;
    std::string out;
    std::string err;
};

/// Runs kvcat in `dir` (as uid 65534 when `unprivileged`), killed after a minute.
CellRun run_in(const fs::path& dir, const std::vector<std::string>& args, bool unprivileged = false) {
    std::string cmd = "cd " + shell_quote(dir.string()) + " && env -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS ";
    if (unprivileged) cmd += "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    cmd += "timeout -s KILL 60 ";
    cmd += shell_quote(::kvcat::test::kvcat_binary());
    for (const auto& a : args) {
        cmd += ' ';
        cmd += shell_quote(a);
    }
    const fs::path out = dir.parent_path() / (dir.filename().string() + ".out");
    const fs::path err = dir.parent_path() / (dir.filename().string() + ".err");
    cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
    CellRun r;
    r.status = run_shell(cmd);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

/// Makes `state` in `dir`: a records tree, a catalog or none, and the importers' inputs.
void make_state(const std::string& state, const fs::path& dir) {
    fs::create_directories(dir);
    write_file(dir / "config.json", kConfig);
    fs::copy_file(fs::path(KVCAT_FIXTURES_DIR) / "import-bench/vllm-8k.json", dir / "bench.json");
    if (state == "no-records") return;
    fs::copy(fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records", dir / "records", fs::copy_options::recursive);
    const fs::path row = dir / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml";
    auto build = [&] { ASSERT_EQ(run_in(dir, {"build"}).status, 0) << state; };
    if (state == "lint-error") {
        std::string text = read_file(row);
        auto at = text.find("kv_bytes_per_token: 65536");
        ASSERT_NE(at, std::string::npos);
        text.replace(at, 25, "kv_bytes_per_token: 65537");
        write_file(row, text);
    } else if (state == "skeleton") {
        CellRun made =
            run_in(dir, {"new", "kv-efficiency", "--model", "models/qwen3.5-9b", "--engine", "llama.cpp", "--kv-dtype",
                         "f16", "--context", "8k", "--out", "records/kv-efficiency/llamacpp-qwen35-9b-draft.yaml"});
        ASSERT_EQ(made.status, 0) << made.err;
    } else if (state == "stale" || state == "unwritable") {
        build();
        write_file(row, read_file(row) + "# edited\n");
    } else if (state == "damaged") {
        build();
        damage(dir / "kvcat.db");
    } else if (state == "foreign") {
        // Built from another records folder, then put here.
        TempDir other;
        fs::copy(dir / "records", other.path() / "elsewhere", fs::copy_options::recursive);
        ASSERT_EQ(run_in(other.path(), {"build", "--db", "kvcat.db", "elsewhere"}).status, 0);
        fs::copy_file(other.path() / "kvcat.db", dir / "kvcat.db");
    }
}

bool may_drop_root() {
    if (::geteuid() != 0) return true;
    return run_shell("setpriv --reuid=65534 --regid=65534 --clear-groups true") == 0;
}

/// Lets uid 65534 read `dir` and everything in it, and write nowhere in it.
void read_only_for_others(const fs::path& dir) {
    for (fs::path p = dir; p.has_parent_path() && p != p.root_path(); p = p.parent_path()) {
        std::error_code ec;
        fs::permissions(p, fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add, ec);
    }
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        fs::permissions(e.path(),
                        fs::perms::others_read | (e.is_directory() ? fs::perms::others_exec : fs::perms::none),
                        fs::perm_options::add);
    }
    fs::permissions(dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
}

class CommandMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(CommandMatrix, EveryCommandExitsZeroOneOrTwoWithAMessage) {
    const std::string state = GetParam();
    const bool unwritable = state == "unwritable";
    if (unwritable && !may_drop_root()) GTEST_SKIP() << "running as root and not allowed to drop to uid 65534";
    TempDir tmp;
    fs::path template_dir = tmp.path() / "state";
    make_state(state, template_dir);
    if (HasFatalFailure()) return;
    int cell = 0;
    for (const auto& args : commands()) {
        std::string shown;
        for (const auto& a : args) shown += " " + a;
        fs::path dir = tmp.path() / ("cell-" + std::to_string(cell++));
        // A copy keeps the files' times, so a stale catalog stays stale.
        ASSERT_EQ(run_shell("cp -a " + shell_quote(template_dir.string()) + " " + shell_quote(dir.string())), 0);
        if (unwritable) read_only_for_others(dir);
        CellRun r = run_in(dir, args, unwritable);
        std::string context = state + ":" + shown + "\nexit " + std::to_string(r.status) + "\nstdout:\n" +
                              r.out.substr(0, 2000) + "\nstderr:\n" + r.err.substr(0, 4000);
        EXPECT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << context;
        if (r.status != 0) {
            EXPECT_FALSE(r.err.empty()) << "a failure says why on stderr\n" << context;
        }
        for (const char* crash : {"terminate called", "Segmentation fault", "AddressSanitizer",
                                  "runtime error:", "std::bad_alloc", "basic_string", "what():"}) {
            EXPECT_FALSE(contains(r.err, crash)) << context;
        }
        if (unwritable) {
            std::error_code ec;
            fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add, ec);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(States, CommandMatrix,
                         ::testing::Values("clean", "lint-error", "skeleton", "no-records", "stale", "damaged",
                                           "foreign", "unwritable"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                             std::string name = param_info.param;
                             for (char& c : name) {
                                 if (c == '-') c = '_';
                             }
                             return name;
                         });

}  // namespace
