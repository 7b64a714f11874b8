// The catalog survives everything: a build killed at any moment, readers querying while
// builds replace the file, and a disk that fills up mid-build.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::test::TempDir;

/// Starts kvcat with `args`; stdout and stderr go to the given files. Returns the pid.
pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err,
            rlim_t file_size_limit = RLIM_INFINITY) {
    std::fflush(nullptr);  // or the child's freopen writes out what the parent had buffered
    pid_t pid = ::fork();
    if (pid == 0) {
        if (file_size_limit != RLIM_INFINITY) {
            struct rlimit limit {
                file_size_limit, file_size_limit
            };
            ::setrlimit(RLIMIT_FSIZE, &limit);
            ::signal(SIGXFSZ, SIG_IGN);  // a full disk answers writes with an error, not a signal
        }
        if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
        std::vector<char*> argv;
        std::string binary = ::kvcat::test::kvcat_binary();
        argv.push_back(binary.data());
        std::vector<std::string> copy = args;
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    return pid;
}

int wait_for(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Everything the catalog holds that the records decide, as one string.
std::string content(const fs::path& db_path) {
    SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
    SQLite::Statement check(db, "PRAGMA integrity_check");
    check.executeStep();
    EXPECT_EQ(check.getColumn(0).getString(), "ok");
    std::string out;
    // tools/gen-catalog writes derived rows, whose speeds the catalog keeps in derived_tps_at_ctx.
    for (const char* sql : {"SELECT id, context_length, kv_bytes_per_token, derived_tps_at_ctx FROM kv_efficiency",
                            "SELECT id, native_context FROM models", "SELECT record_id, position, name FROM sources"}) {
        SQLite::Statement q(db, std::string(sql) + " ORDER BY 1, 2");
        while (q.executeStep()) {
            for (int c = 0; c < q.getColumnCount(); ++c) out += q.getColumn(c).getString() + "|";
            out += "\n";
        }
    }
    return out;
}

class CatalogSurvival : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        generate(name.starts_with("Killed") ? 1000 : name.starts_with("Readers") ? 600 : 200);
        ASSERT_EQ(build(), 0);
    }

    void generate(int rows) {
        std::error_code ec;
        fs::remove_all(records_, ec);
        std::string gen = std::string(KVCAT_SOURCE_DIR) + "/tools/gen-catalog " + std::to_string(rows) + " " +
                          records_.string() + " >/dev/null";
        ASSERT_EQ(std::system(gen.c_str()), 0);
    }

    /// Microseconds one full build of the current records takes: the better of two, so one
    /// stall on a shared machine does not size the test.
    std::int64_t time_full_build() {
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        for (int i = 0; i < 2; ++i) {
            auto start = std::chrono::steady_clock::now();
            EXPECT_EQ(build(), 0);
            auto took = std::chrono::steady_clock::now() - start;
            best = std::min<std::int64_t>(best, std::chrono::duration_cast<std::chrono::microseconds>(took).count());
        }
        return best;
    }

    int build() {
        return wait_for(spawn({"-q", "build", "--full", "--db", db_.string(), records_.string()}, out_, err_));
    }

    /// Runs kvcat with these arguments to the end: its exit status, stdout and stderr.
    std::tuple<int, std::string, std::string> run(const std::vector<std::string>& args) {
        int status = wait_for(spawn(args, out_, err_));
        return std::make_tuple(status, kvcat::test::read_file(out_), kvcat::test::read_file(err_));
    }

    /// Two versions of the records, so each build changes what the catalog holds.
    void flip() {
        fs::path row = records_ / "kv-efficiency/gen-000/row-000003.yaml";
        std::string text = kvcat::test::read_file(row);
        std::string a = "measured_tps_at_ctx: null", b = "measured_tps_at_ctx: 1.5";
        auto at = text.find(a);
        if (at != std::string::npos) {
            text.replace(at, a.size(), b);
        } else {
            at = text.find(b);
            ASSERT_NE(at, std::string::npos);
            text.replace(at, b.size(), a);
        }
        kvcat::test::write_file(row, text);
    }

    std::vector<fs::path> temporaries() const {
        std::vector<fs::path> out;
        for (const auto& e : fs::directory_iterator(dir_.path())) {
            if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path());
        }
        return out;
    }

    TempDir dir_;
    fs::path records_ = dir_ / "records";
    fs::path db_ = dir_ / "kvcat.db";
    fs::path out_ = dir_ / "out.txt";
    fs::path err_ = dir_ / "err.txt";
};

TEST_F(CatalogSurvival, KilledBuildsNeverDamageTheCatalog) {
    // A build of about 0.6 s, whatever this binary's speed (a Release build does 1,000 rows
    // in a fraction of a second, a sanitizer build in one to three, with the machine's load):
    // time 1,000 rows, scale the catalog to the target, and time it again, so the kills land all
    // through a build that is long enough to be caught in its middle. The kills fall uniformly
    // over the build, so a longer one reaches no phase a shorter one misses; it only makes the
    // test slower (at 1.8 s the test took CI 70 s, at 1 s 37 to 61 s). At 200 rows, the floor, a
    // sanitized build still spends a third of its time writing rows.
    constexpr std::int64_t target_us = 600'000;
    std::int64_t sample = time_full_build();
    int rows =
        static_cast<int>(std::clamp<std::int64_t>(1000 * target_us / std::max<std::int64_t>(sample, 1), 200, 20000));
    if (rows != 1000) {
        generate(rows);
        ASSERT_EQ(build(), 0);
    }
    std::int64_t full_us = time_full_build();
    std::cout << "kill test: " << rows << " rows, a full build takes " << full_us / 1000 << " ms" << std::endl;
    RecordProperty("rows", rows);
    RecordProperty("full_build_ms", static_cast<int>(full_us / 1000));
    auto full = std::chrono::microseconds(full_us);
    std::mt19937 rng(20261129);
    std::uniform_int_distribution<std::int64_t> when(0, full.count() * 11 / 10);
    int survived = 0, interrupted = 0;
    constexpr int kKills = 30;
    for (int i = 0; i < kKills; ++i) {
        std::string before = content(db_);
        flip();
        pid_t pid = spawn({"-q", "build", "--full", "--db", db_.string(), records_.string()}, out_, err_);
        std::this_thread::sleep_for(std::chrono::microseconds(when(rng)));
        ::kill(pid, SIGKILL);
        int status = wait_for(pid);
        interrupted += status == 128 + SIGKILL ? 1 : 0;
        // The previous catalog, or the whole new one when the build finished first; never a mix.
        std::string after = content(db_);
        if (after != before) {
            ASSERT_EQ(build(), 0);  // the records now build to exactly this
            EXPECT_EQ(content(db_), after) << "iteration " << i;
        }
        ++survived;
    }
    EXPECT_EQ(survived, kKills);
    EXPECT_GT(interrupted, kKills / 5) << "the kills should mostly land mid-build";
    ASSERT_EQ(build(), 0);
    EXPECT_TRUE(temporaries().empty()) << "a killed build's temporary file outlived the next build";
}

TEST_F(CatalogSurvival, ReadersSeeTheOldCatalogOrTheNewOneNeverAnError) {
    // Two readers: `kvcat sql` over the whole table, and `kvcat query` as a user runs it,
    // each naming the records the catalog is built from (a reader that finds them changed
    // builds too, or answers from the catalog as it is while a record is half written).
    // Whole numbers only: a floating-point sum depends on the order rows were written in.
    const std::string sql =
        "SELECT count(*) || ':' || total(CAST(round(derived_tps_at_ctx * 10) AS INTEGER)) FROM kv_efficiency";
    auto answer = [&](bool with_query) {
        fs::path out = dir_ / "read-out.txt", err = dir_ / "read-err.txt";
        std::vector<std::string> args =
            with_query ? std::vector<std::string>{"-q",
                                                  "query",
                                                  "--db",
                                                  db_.string(),
                                                  "--records",
                                                  records_.string(),
                                                  "--format",
                                                  "csv",
                                                  "--columns",
                                                  "id,derived_tps_at_ctx",
                                                  "derived_tps_at_ctx>0"}
                       : std::vector<std::string>{
                             "-q", "sql", "--db", db_.string(), "--records", records_.string(), "--format", "csv", sql};
        int status = wait_for(spawn(args, out, err));
        return std::make_pair(status, kvcat::test::read_file(out) + kvcat::test::read_file(err));
    };
    std::string a_sql = answer(false).second, a_query = answer(true).second;
    flip();
    ASSERT_EQ(build(), 0);
    std::string b_sql = answer(false).second, b_query = answer(true).second;
    ASSERT_NE(a_sql, b_sql);
    ASSERT_NE(a_query, b_query);
    ASSERT_NE(a_query.find("derived_tps_at_ctx"), std::string::npos) << a_query;

    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (int i = 0; i < 12 && !stop; ++i) {
            flip();
            EXPECT_EQ(build(), 0);
        }
        stop = true;
    });
    int reads = 0;
    std::set<std::string> seen;
    while (!stop) {
        bool with_query = reads % 2 == 1;
        auto [status, text] = answer(with_query);
        EXPECT_EQ(status, 0) << text;
        const std::string& a = with_query ? a_query : a_sql;
        const std::string& b = with_query ? b_query : b_sql;
        EXPECT_TRUE(text == a || text == b) << "a reader saw: " << text;
        seen.insert(text);
        ++reads;
    }
    writer.join();
    EXPECT_GT(reads, 10);
    EXPECT_GE(seen.size(), 2u) << "readers should have seen both versions";
}

TEST_F(CatalogSurvival, FullDiskFailsClearlyAndKeepsTheCatalog) {
    std::string before = kvcat::test::read_file(db_);
    flip();
    // A file-size limit far below the catalog's size: writes fail as on a full disk.
    int status =
        wait_for(spawn({"-q", "build", "--full", "--db", db_.string(), records_.string()}, out_, err_, 256 * 1024));
    EXPECT_EQ(status, 2);
    std::string err = kvcat::test::read_file(err_);
    EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
    EXPECT_NE(err.find("the previous catalog is unchanged"), std::string::npos) << err;
    EXPECT_EQ(kvcat::test::read_file(db_), before);
    EXPECT_TRUE(temporaries().empty());
}

TEST_F(CatalogSurvival, QueryWithAWrongRecordsFolderNeverReplacesTheCatalog) {
    const std::string count_sql = "SELECT count(*) FROM kv_efficiency";
    auto [status, rows, err] =
        run({"sql", "--db", db_.string(), "--records", records_.string(), "--format", "csv", count_sql});
    ASSERT_EQ(status, 0) << err;
    ASSERT_NE(rows, "count(*)\n0\n");
    const std::string before = kvcat::test::read_file(db_);
    const std::string root = fs::canonical(records_).generic_string();

    // An empty folder, a missing one, and another root with records: each is refused, and
    // the catalog is left as it was.
    fs::create_directories(dir_ / "empty");
    fs::create_directories(dir_ / "other" / "models");
    fs::copy(records_ / "models", dir_ / "other" / "models", fs::copy_options::recursive);
    for (const fs::path& wrong : {dir_ / "empty", dir_ / "missing", dir_ / "other"}) {
        for (const std::string& command : {std::string("query"), std::string("sql")}) {
            std::vector<std::string> args = {command, "--db", db_.string(), "--records", wrong.string()};
            if (command == "sql") args.push_back(count_sql);
            auto [s, out, e] = run(args);
            EXPECT_EQ(s, 2) << command << " --records " << wrong << ": " << e;
            EXPECT_EQ(out, "") << command << " --records " << wrong;
            EXPECT_NE(e.find("was built from the records in " + root), std::string::npos) << e;
            EXPECT_NE(e.find("it is never rebuilt from other records"), std::string::npos) << e;
            EXPECT_EQ(kvcat::test::read_file(db_), before)
                << command << " --records " << wrong << " changed the catalog";
        }
    }
    // The right folder still answers from the whole catalog.
    auto [s2, rows2, e2] =
        run({"sql", "--db", db_.string(), "--records", records_.string(), "--format", "csv", count_sql});
    EXPECT_EQ(s2, 0) << e2;
    EXPECT_EQ(rows2, rows);

    // The right folder, emptied: the catalog is kept, and answers while saying why.
    fs::rename(records_, dir_ / "records-away");
    fs::create_directories(records_);
    auto [s3, rows3, e3] =
        run({"sql", "--db", db_.string(), "--records", records_.string(), "--format", "csv", count_sql});
    EXPECT_EQ(s3, 0) << e3;
    EXPECT_EQ(rows3, rows);
    EXPECT_NE(e3.find("holds no record file"), std::string::npos) << e3;
    EXPECT_EQ(kvcat::test::read_file(db_), before);
    auto [s4, rows4, e4] = run({"build", "--db", db_.string(), records_.string()});
    EXPECT_EQ(s4, 2) << e4;
    EXPECT_NE(e4.find("holds no record file"), std::string::npos) << e4;
    EXPECT_EQ(kvcat::test::read_file(db_), before);
}

TEST_F(CatalogSurvival, QueryWhileARecordIsHalfWrittenAnswersFromTheLastGoodCatalog) {
    const std::vector<std::string> query = {
        "query", "--db",      db_.string(),           "--records", records_.string(), "--format",
        "csv",   "--columns", "id,derived_tps_at_ctx"};
    auto [status, answer, err] = run(query);
    ASSERT_EQ(status, 0) << err;
    const std::string before = kvcat::test::read_file(db_);

    // Half of a record written, as an editor or a copy leaves it mid-way.
    fs::path row = records_ / "kv-efficiency/gen-000/row-000003.yaml";
    const std::string whole = kvcat::test::read_file(row);
    kvcat::test::write_file(row, whole.substr(0, whole.size() / 2));
    const std::string shown = row.lexically_normal().generic_string();
    auto [s1, a1, e1] = run(query);
    EXPECT_EQ(s1, 0) << e1;
    EXPECT_EQ(a1, answer) << "the answer is the last good catalog's";
    EXPECT_NE(e1.find("is behind the records: 1 file has errors"), std::string::npos) << e1;
    EXPECT_NE(e1.find(shown + ":"), std::string::npos) << "the file that kept it behind is named: " << e1;
    EXPECT_NE(e1.find("error: ["), std::string::npos) << "with its first finding: " << e1;
    EXPECT_EQ(kvcat::test::read_file(db_), before);

    // sql the same; --strict turns it into a failure; build still refuses to write.
    auto [s2, a2, e2] =
        run({"sql", "--db", db_.string(), "--records", records_.string(), "SELECT count(*) FROM kv_efficiency"});
    EXPECT_EQ(s2, 0) << e2;
    EXPECT_NE(e2.find("is behind the records"), std::string::npos) << e2;
    std::vector<std::string> strict = query;
    strict.push_back("--strict");
    auto [s3, a3, e3] = run(strict);
    EXPECT_EQ(s3, 1) << e3;
    EXPECT_EQ(a3, "");
    auto [s4, a4, e4] = run({"build", "--db", db_.string(), records_.string()});
    EXPECT_EQ(s4, 1) << e4;
    EXPECT_NE(e4.find("was not written"), std::string::npos) << e4;
    EXPECT_EQ(kvcat::test::read_file(db_), before);

    // Written in full: the catalog catches up, and says nothing more after that.
    kvcat::test::write_file(row, whole);
    auto [s5, a5, e5] = run(query);
    EXPECT_EQ(s5, 0) << e5;
    EXPECT_EQ(a5, answer);
    EXPECT_EQ(e5.find("behind"), std::string::npos) << e5;
    auto [s6, a6, e6] = run(query);
    EXPECT_EQ(s6, 0) << e6;
    EXPECT_EQ(e6, "") << "a fresh catalog is read without a word";
}

TEST_F(CatalogSurvival, StrictFailsWhenTheRecordsFolderIsEmptiedOrGone) {
    const std::vector<std::string> sql = {"sql",
                                          "--db",
                                          db_.string(),
                                          "--records",
                                          records_.string(),
                                          "--format",
                                          "csv",
                                          "SELECT count(*) FROM kv_efficiency"};
    auto run_maybe_strict = [&](std::vector<std::string> args, bool strict) {
        if (strict) args.insert(args.begin() + 1, "--strict");
        return run(args);
    };
    auto [status, rows, err] = run_maybe_strict(sql, false);
    ASSERT_EQ(status, 0) << err;
    const std::string before = kvcat::test::read_file(db_);
    for (const std::string& command : {std::string("query"), std::string("sql")}) {
        std::vector<std::string> args =
            command == "sql" ? sql
                             : std::vector<std::string>{"query", "--db", db_.string(), "--records", records_.string()};
        // Emptied, then gone: either way the catalog is behind its records. Without --strict
        // it answers as last built; with it, the command fails without an answer.
        fs::rename(records_, dir_ / "records-away");
        fs::create_directories(records_);
        for (int gone = 0; gone < 2; ++gone) {
            if (gone) fs::remove(records_);
            const std::string what = command + (gone ? " with the folder gone" : " with the folder emptied");
            auto [s1, a1, e1] = run_maybe_strict(args, false);
            EXPECT_EQ(s1, 0) << what << ": " << e1;
            EXPECT_NE(a1, "") << what;
            auto [s2, a2, e2] = run_maybe_strict(args, true);
            EXPECT_EQ(s2, 1) << what << " --strict: " << e2;
            EXPECT_EQ(a2, "") << what << " --strict";
            EXPECT_NE(e2.find("--strict makes this a failure"), std::string::npos) << what << ": " << e2;
            EXPECT_TRUE(kvcat::test::read_file(db_) == before) << what << " changed the catalog";
        }
        fs::rename(dir_ / "records-away", records_);
    }
}

TEST_F(CatalogSurvival, TimeoutStopsARebuildAndLeavesTheCatalogAsItWas) {
    // The catalog was built from 200 rows; the folder now holds 3,000, so the next sql
    // rebuilds nearly all of them first. An untimed run of the same rebuild sets the scale:
    // the timed run must stop well before it would have finished.
    const std::string before = kvcat::test::read_file(db_);
    generate(3000);
    const std::string count_sql = "SELECT count(*) FROM kv_rows";
    auto sql = [&](const fs::path& db, std::optional<std::int64_t> timeout_ms) {
        std::vector<std::string> args = {"sql", "--db", db.string(), "--records", records_.string(), "--format", "tsv"};
        if (timeout_ms) {
            args.push_back("--timeout");
            args.push_back(std::to_string(*timeout_ms));
        }
        args.push_back(count_sql);
        auto start = std::chrono::steady_clock::now();
        int status = wait_for(spawn(args, out_, err_));
        auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        return std::make_tuple(status, took.count(), kvcat::test::read_file(err_));
    };
    auto [untimed_status, untimed_ms, untimed_err] = sql(dir_ / "untimed.db", std::nullopt);
    ASSERT_EQ(untimed_status, 0) << untimed_err;
    ASSERT_EQ(kvcat::test::read_file(out_), "count(*)\n3000\n");
    const std::int64_t timeout_ms = std::max<std::int64_t>(1, untimed_ms / 10);
    std::cout << "[ NOTE     ] a rebuild of 3,000 rows took " << untimed_ms << " ms; --timeout " << timeout_ms << "\n";

    // Over the previous catalog, and where there is none yet.
    const fs::path none = dir_ / "none.db";
    for (const fs::path& db : {db_, none}) {
        auto [status, took_ms, err] = sql(db, timeout_ms);
        EXPECT_EQ(status, 2) << db << ": " << err;
        EXPECT_EQ(kvcat::test::read_file(out_), "") << db;
        EXPECT_NE(err.find("ran past its time limit of " + std::to_string(timeout_ms) + " ms (--timeout)"),
                  std::string::npos)
            << db << ": " << err;
        EXPECT_LT(took_ms * 2, untimed_ms)
            << db << ": the timed command ran to " << took_ms << " ms; the whole rebuild takes " << untimed_ms << " ms";
        EXPECT_TRUE(temporaries().empty()) << db << ": a temporary file was left behind";
        std::cout << "[ NOTE     ] " << db.filename() << ": stopped after " << took_ms << " ms\n";
    }
    EXPECT_TRUE(kvcat::test::read_file(db_) == before) << "the previous catalog changed";
    EXPECT_FALSE(fs::exists(none)) << "a catalog was written past the time limit";
}

TEST_F(CatalogSurvival, AFileRemovedIsBuiltForOnceNotOnEveryQuery) {
    const std::vector<std::string> query = {"query",           "--db",      db_.string(), "--records",
                                            records_.string(), "--columns", "id"};
    ASSERT_EQ(wait_for(spawn(query, out_, err_)), 0) << kvcat::test::read_file(err_);
    // A file that is not a record, removed: its folder's time moves, the records do not.
    kvcat::test::write_file(records_ / "kv-efficiency" / "scratch.txt", "notes\n");
    fs::remove(records_ / "kv-efficiency" / "scratch.txt");
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(wait_for(spawn(query, out_, err_)), 0);
        EXPECT_EQ(kvcat::test::read_file(err_), "") << "query " << i;
    }
    // A record removed: built once, then quiet.
    fs::remove(records_ / "kv-efficiency/gen-000/row-000003.yaml");
    ASSERT_EQ(wait_for(spawn(query, out_, err_)), 0);
    EXPECT_NE(kvcat::test::read_file(err_).find("building the catalog"), std::string::npos);
    ASSERT_EQ(wait_for(spawn(query, out_, err_)), 0);
    EXPECT_EQ(kvcat::test::read_file(err_), "") << "the second query after a removal built again";
}

TEST_F(CatalogSurvival, CommitSyncsTheNewCatalogBeforeRenamingIt) {
    if (kvcat::test::kvcat_sanitized()) {
        GTEST_SKIP() << "a preload library cannot come before the AddressSanitizer runtime";
    }
    // tests/sync_log_shim.cc logs every fsync and rename the build makes, in order.
    fs::path log = dir_ / "sync.log";
    flip();
    std::string command = "cd " + dir_.path().string() + " && env LD_PRELOAD=" + KVCAT_SYNC_LOG_SHIM +
                          " KVCAT_SYNC_LOG=" + log.string() + " " + ::kvcat::test::kvcat_binary() +
                          " -q build --db kvcat.db records >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    std::vector<std::string> lines;
    {
        std::istringstream in(kvcat::test::read_file(log));
        for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
    std::string listing;
    for (const auto& l : lines) listing += l + "\n";
    auto rename = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
        return l.starts_with("rename ") && l.ends_with(" kvcat.db") && l.find("kvcat.db.tmp-") != std::string::npos;
    });
    ASSERT_NE(rename, lines.end()) << "no rename of a temporary file over kvcat.db:\n" << listing;
    std::string tmp = rename->substr(7, rename->find(' ', 7) - 7);
    bool synced_before = std::any_of(
        lines.begin(), rename, [&](const std::string& l) { return l.starts_with("fsync ") && l.ends_with("/" + tmp); });
    EXPECT_TRUE(synced_before) << tmp << " was not synced before it was renamed:\n" << listing;
    bool folder_synced_after = std::any_of(rename + 1, lines.end(), [&](const std::string& l) {
        return l == "fsync " + dir_.path().string() || l == "fsync " + fs::canonical(dir_.path()).string();
    });
    EXPECT_TRUE(folder_synced_after) << "the folder was not synced after the rename:\n" << listing;
}

TEST_F(CatalogSurvival, UnwritableFolderFailsClearly) {
    fs::path db = "/proc/kvcat-cannot-write-here.db";
    int status = wait_for(spawn({"-q", "build", "--db", db.string(), records_.string()}, out_, err_));
    EXPECT_EQ(status, 2);
    EXPECT_NE(kvcat::test::read_file(err_).find("cannot write"), std::string::npos) << kvcat::test::read_file(err_);
}

}  // namespace
