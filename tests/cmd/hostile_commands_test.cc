// Hostile and careless states met through the commands: a short id beside a record with a
// lint error, a catalog that arrived with a checkout (its rows edited), a catalog edited or
// damaged after the build, one that cannot be replaced, and things at --db that are not
// files. Each test runs the built binary as a user would and checks the exit status and
// the message on stderr, and, where a catalog is rebuilt, the rows it then holds.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;

constexpr const char* kRow = "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k";

std::string show(const Outcome& o) {
    return "exit " + std::to_string(o.status) + "\nstdout:\n" + o.out + "\nstderr:\n" + o.err;
}

/// The kv_bytes_per_token of the seed's 27B row, as the catalog holds it.
std::int64_t row_bytes(const fs::path& db) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement q(d, "SELECT kv_bytes_per_token FROM kv_efficiency WHERE record_id = ?1");
    q.bind(1, std::string(kRow));
    if (!q.executeStep()) return -1;
    return q.getColumn(0).getInt64();
}

/// What a stranger's commit could hold: the row's figure changed inside the catalog.
void forge_row(const fs::path& db, std::int64_t bytes) {
    SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
    SQLite::Statement q(d, "UPDATE kv_efficiency SET kv_bytes_per_token = ?1 WHERE record_id = ?2");
    q.bind(1, bytes);
    q.bind(2, std::string(kRow));
    q.exec();
}

/// A fresh skeleton beside the seed records: it lints with errors until its prose is written.
void add_skeleton(const KvcatRunner& k) {
    Outcome made = k.run({"new", "kv-efficiency", "--model", "models/qwen3.5-9b", "--engine", "llama.cpp", "--kv-dtype",
                          "f16", "--context", "8k", "--out", "records/kv-efficiency/llamacpp-qwen35-9b-draft.yaml"});
    ASSERT_EQ(made.status, 0) << show(made);
    Outcome lint = k.run({"lint", "records"});
    ASSERT_EQ(lint.status, 1) << "the skeleton should carry lint errors\n" << show(lint);
}

// --- 1. The crash -------------------------------------------------------------------

TEST(HostileCommands, CurveWithAShortIdBesideALintErrorAnswers) {
    KvcatRunner k;
    add_skeleton(k);
    Outcome o = k.run({"curve", "--model", "llama-3.1-8b", "--kv-dtype", "bf16", "--contexts", "8k,128k"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.out, "131072")) << show(o);
}

TEST(HostileCommands, CurveWithAShortIdOfARecordWithALintErrorWarnsOfIt) {
    KvcatRunner k;
    fs::path model = k.dir() / "records/models/llama-3.1-8b.yaml";
    std::string text = kvcat::test::read_file(model);
    kvcat::test::write_file(model, text + "\nnot_a_key: 1\n");
    Outcome o = k.run({"curve", "--model", "llama-3.1-8b", "--contexts", "8k"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "schema-unknown-key")) << "the model's own finding is shown\n" << show(o);
}

// --- 2. A catalog that arrives with a checkout is not trusted -----------------------

TEST(HostileCatalog, RowsEditedInACommittedCatalogDoNotSurviveABuildInAFreshClone) {
    KvcatRunner author;
    ASSERT_EQ(author.run({"build"}).status, 0);
    const std::int64_t right = row_bytes(author.dir() / "kvcat.db");
    ASSERT_GT(right, 1);
    forge_row(author.dir() / "kvcat.db", 1);
    // The clone: the same files, modification times kept (the strongest case: every stamp
    // matches), at another path, built by someone else.
    KvcatRunner clone(false);
    ASSERT_EQ(kvcat::test::run_shell("cp -a " + kvcat::test::shell_quote((author.dir() / "records").string()) + " " +
                                     kvcat::test::shell_quote((clone.dir() / "records").string()) + " && cp -a " +
                                     kvcat::test::shell_quote((author.dir() / "kvcat.db").string()) + " " +
                                     kvcat::test::shell_quote((clone.dir() / "kvcat.db").string())),
              0);
    Outcome o = clone.run({"build"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "its rows are not reused")) << show(o);
    EXPECT_EQ(row_bytes(clone.dir() / "kvcat.db"), right);
}

TEST(HostileCatalog, RowsEditedAfterTheBuildDoNotSurviveTheNextBuild) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    const std::int64_t right = row_bytes(k.dir() / "kvcat.db");
    forge_row(k.dir() / "kvcat.db", 7);
    Outcome o = k.run({"build"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "changed since kvcat wrote it")) << show(o);
    EXPECT_EQ(row_bytes(k.dir() / "kvcat.db"), right);
}

TEST(HostileCatalog, ASealedCatalogIsStillBuiltIncrementally) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    Outcome same = k.run({"build"});
    ASSERT_EQ(same.status, 0) << show(same);
    EXPECT_TRUE(contains(same.err, "up to date")) << show(same);
    fs::path row = k.dir() / "records/kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k.yaml";
    kvcat::test::write_file(row, kvcat::test::read_file(row) + "\n");
    Outcome one = k.run({"build"});
    ASSERT_EQ(one.status, 0) << show(one);
    EXPECT_TRUE(contains(one.err, "(1 read, 1 unchanged)")) << show(one);
}

/// Overwrites the first page of the rows' table with garbage, as a bad disk might.
void damage(const fs::path& db) {
    std::int64_t page = 0;
    std::int64_t page_size = 0;
    {
        SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
        page = d.execAndGet("SELECT rootpage FROM sqlite_schema WHERE name = 'kv_efficiency'").getInt64();
        page_size = d.execAndGet("PRAGMA page_size").getInt64();
    }
    ASSERT_GT(page, 1);
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>((page - 1) * page_size));
    std::string junk(static_cast<std::size_t>(page_size), '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

TEST(HostileCatalog, DamagedPagesAreRebuiltWithAMessage) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    damage(k.dir() / "kvcat.db");
    Outcome o = k.run({"build"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "is damaged")) << show(o);
    EXPECT_FALSE(contains(o.err, "up to date")) << show(o);
    Outcome rows = k.run({"query", "--format", "csv", "--columns", "id"});
    ASSERT_EQ(rows.status, 0) << show(rows);
    EXPECT_TRUE(contains(rows.out, kRow)) << show(rows);
}

TEST(HostileCatalog, AQueryOnADamagedCatalogRebuildsItAndAnswers) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    damage(k.dir() / "kvcat.db");
    Outcome o = k.run({"query", "--format", "csv", "--columns", "id,kv_bytes_per_token"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "damaged")) << show(o);
    EXPECT_FALSE(contains(o.err, "malformed") && !contains(o.err, "building it again")) << show(o);
    EXPECT_TRUE(contains(o.out, kRow)) << show(o);
}

/// A hot rollback journal for `db`, as a checkout could hold one, whose pages give the seed
/// row `forged` bytes per token: a copy of `db` with the forged row committed, then changed
/// again by a writer that dies inside its transaction; its journal, holding the forged pages,
/// is moved to `db`-journal. Opened for writing, or read-only while the file may be written,
/// SQLite plays such a journal back into the database.
void plant_hot_journal(const fs::path& db, std::int64_t forged) {
    fs::path victim = db.parent_path() / "victim.db";
    fs::copy_file(db, victim, fs::copy_options::overwrite_existing);
    forge_row(victim, forged);
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        try {
            SQLite::Database d(victim.string(), SQLite::OPEN_READWRITE);
            d.exec("PRAGMA journal_mode = DELETE");
            d.exec("PRAGMA cache_size = 1");
            d.exec("BEGIN");
            d.exec("UPDATE kv_efficiency SET kv_bytes_per_token = kv_bytes_per_token + 1");
            // More pages than the cache holds: SQLite spills, so the journal (the forged
            // pages) is synced with its header, as a writer killed mid-transaction leaves it.
            d.exec("CREATE TABLE pad (x BLOB)");
            d.exec(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
                "INSERT INTO pad SELECT randomblob(4000) FROM n");
            ::_exit(0);  // with the connection open: no rollback, no commit, the journal stays hot
        } catch (...) {
            ::_exit(1);
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    fs::rename(victim.string() + "-journal", db.string() + "-journal");
    fs::remove(victim);
}

TEST(HostileCatalog, AJournalBesideTheCatalogIsNeverReadNorMakesItRefused) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    fs::path db = k.dir() / "kvcat.db";
    const std::int64_t real = row_bytes(db);
    ASSERT_GT(real, 1);
    plant_hot_journal(db, 1);
    std::string before = kvcat::test::read_file(db);
    // The planted journal is hot. Beside a copy of the catalog, a plain read-only open is
    // refused (what kvcat met before it opened catalogs as immutable files), and a read-write
    // open plays the journal back: the copy then holds the forged figure.
    fs::path probe = k.dir() / "probe";
    fs::create_directory(probe);
    fs::copy_file(db, probe / "kvcat.db");
    fs::copy_file(db.string() + "-journal", probe / "kvcat.db-journal");
    EXPECT_ANY_THROW(row_bytes(probe / "kvcat.db"));
    {
        SQLite::Database w((probe / "kvcat.db").string(), SQLite::OPEN_READWRITE);
        SQLite::Statement q(w, "SELECT kv_bytes_per_token FROM kv_efficiency WHERE record_id = ?1");
        q.bind(1, std::string(kRow));
        ASSERT_TRUE(q.executeStep());
        EXPECT_EQ(q.getColumn(0).getInt64(), 1) << "the planted journal is not one SQLite plays back";
    }

    Outcome query = k.run({"query", "--format", "csv", "--columns", "id,kv_bytes_per_token"});
    ASSERT_EQ(query.status, 0) << show(query);
    EXPECT_TRUE(contains(query.out, std::string(kRow) + "," + std::to_string(real))) << show(query);
    Outcome sql =
        k.run({"sql", "--format", "csv",
               std::string("SELECT kv_bytes_per_token AS b FROM kv_efficiency WHERE record_id = '") + kRow + "'"});
    ASSERT_EQ(sql.status, 0) << show(sql);
    EXPECT_TRUE(contains(sql.out, std::to_string(real))) << show(sql);
    EXPECT_FALSE(contains(sql.out, "\n1\n")) << show(sql);
    Outcome build = k.run({"build"});
    ASSERT_EQ(build.status, 0) << show(build);
    EXPECT_TRUE(contains(build.err, "up to date")) << show(build);
    EXPECT_EQ(kvcat::test::read_file(db), before) << "the catalog changed";
    EXPECT_TRUE(fs::exists(db.string() + "-journal"));  // never kvcat's to remove
}

TEST(HostileCatalog, AQueryAnswersFromAnIntactCatalogWhenTheRebuildCannotWrite) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    fs::path row = k.dir() / "records/kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k.yaml";
    kvcat::test::write_file(row, kvcat::test::read_file(row) + "\n");  // stale now
    // A read-only catalog is one kvcat does not replace: the rebuild cannot write.
    fs::permissions(k.dir() / "kvcat.db", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    Outcome o = k.run({"query", "--format", "csv", "--columns", "id"});
    ASSERT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.err, "cannot rebuild kvcat.db")) << show(o);
    EXPECT_TRUE(contains(o.err, "answering from it as it was last built")) << show(o);
    EXPECT_TRUE(contains(o.out, kRow)) << show(o);
    Outcome strict = k.run({"query", "--strict", "--format", "csv", "--columns", "id"});
    EXPECT_EQ(strict.status, 1) << show(strict);
}

TEST(HostileCatalog, AReadOnlyCatalogIsNotReplacedAndKeepsItsMode) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    fs::permissions(k.dir() / "kvcat.db", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    Outcome o = k.run({"build", "--full"});
    EXPECT_EQ(o.status, 2) << show(o);
    EXPECT_TRUE(contains(o.err, "kvcat.db is read-only (mode 444)")) << show(o);
    struct stat st {};
    ASSERT_EQ(::stat((k.dir() / "kvcat.db").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0444u);
}

TEST(HostileCatalog, ALinkAtDbIsNotReplacedAndStaysALink) {
    KvcatRunner k;
    ASSERT_EQ(k.run({"build", "--db", "real.db"}).status, 0);
    fs::create_symlink("real.db", k.dir() / "kvcat.db");
    Outcome o = k.run({"build", "--full"});
    EXPECT_EQ(o.status, 2) << show(o);
    EXPECT_TRUE(contains(o.err, "kvcat.db is a symbolic link to real.db")) << show(o);
    EXPECT_TRUE(fs::is_symlink(k.dir() / "kvcat.db"));
}

TEST(HostileCatalog, AFifoAtDbIsRefusedAtOnce) {
    KvcatRunner k;
    ASSERT_EQ(::mkfifo((k.dir() / "kvcat.db").c_str(), 0644), 0);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"query", "--columns", "id"}, {"sql", "SELECT 1"}, {"build"}, {"report", "--out", "site/index.html"}}) {
        Outcome o = k.run(args);
        EXPECT_EQ(o.status, 2) << args[0] << "\n" << show(o);
        EXPECT_TRUE(contains(o.err, "kvcat.db is a FIFO")) << args[0] << "\n" << show(o);
    }
}

TEST(HostileCatalog, ADeviceAtDbIsRefusedAtOnce) {
    KvcatRunner k;
    fs::create_symlink("/dev/zero", k.dir() / "zero.db");
    Outcome o = k.run({"query", "--db", "zero.db", "--columns", "id"});
    EXPECT_EQ(o.status, 2) << show(o);
    EXPECT_TRUE(contains(o.err, "zero.db is a character device")) << show(o);
}

// --- 3. Every read bounded -----------------------------------------------------------

const std::string kGuardSeconds = std::to_string(kvcat::test::hang_guard_seconds(30, 180));

/// Runs kvcat in `k`'s folder under a hang guard far above what the command needs.
Outcome guarded(const KvcatRunner& k, const std::string& args) {
    std::string cmd = "cd " + kvcat::test::shell_quote(k.dir().string()) + " && timeout -s KILL " + kGuardSeconds +
                      " " + kvcat::test::shell_quote(::kvcat::test::kvcat_binary()) + " " + args +
                      " >.out 2>.err </dev/null";
    Outcome o;
    o.status = kvcat::test::run_shell(cmd);
    o.out = kvcat::test::read_file(k.dir() / ".out");
    o.err = kvcat::test::read_file(k.dir() / ".err");
    return o;
}

TEST(HostileReads, LintOfADeviceIsAFindingNotAnEndlessRead) {
    KvcatRunner k;
    Outcome o = guarded(k, "lint /dev/zero");
    EXPECT_EQ(o.status, 1) << show(o);
    // Findings are results: stdout.
    EXPECT_TRUE(contains(o.out, "/dev/zero: error: [file-unreadable]")) << show(o);
    EXPECT_TRUE(contains(o.out, "it is a character device, not a regular file")) << show(o);
}

TEST(HostileReads, ImportersRefuseAFifoRatherThanWaitOnIt) {
    KvcatRunner k;
    ASSERT_EQ(::mkfifo((k.dir() / "config.json").c_str(), 0644), 0);
    Outcome config = guarded(k, "import-config config.json");
    EXPECT_EQ(config.status, 2) << show(config);
    EXPECT_TRUE(contains(config.err, "config.json: cannot read the file: a FIFO, not a regular file")) << show(config);
    Outcome bench = guarded(k, "import-bench config.json --model llama-3.1-8b");
    EXPECT_EQ(bench.status, 2) << show(bench);
    EXPECT_TRUE(contains(bench.err, "a FIFO, not a regular file")) << show(bench);
}

TEST(HostileReads, ImportLogRefusesAFifoADeviceAndALogPastItsLimit) {
    // A FIFO hung import-log, /dev/zero grew its memory to gigabytes, and a 100 MB line took
    // 108 s: the log is read as the other importers read their files.
    KvcatRunner k;
    ASSERT_EQ(::mkfifo((k.dir() / "server.log").c_str(), 0644), 0);
    Outcome fifo = guarded(k, "import-log server.log --model llama-3.1-8b");
    EXPECT_EQ(fifo.status, 2) << show(fifo);
    EXPECT_TRUE(contains(fifo.err, "server.log: cannot read the log: a FIFO, not a regular file")) << show(fifo);
    Outcome zero = guarded(k, "import-log /dev/zero --model llama-3.1-8b");
    EXPECT_EQ(zero.status, 2) << show(zero);
    EXPECT_TRUE(contains(zero.err, "/dev/zero: cannot read the log: a character device, not a regular file"))
        << show(zero);
    kvcat::test::write_file(k.dir() / "big.log", std::string((16u << 20) + 1, 'a'));
    Outcome big = guarded(k, "import-log big.log --model llama-3.1-8b");
    EXPECT_EQ(big.status, 2) << show(big);
    EXPECT_TRUE(contains(big.err, "big.log: cannot read the log: larger than 16 MiB")) << show(big);
}

TEST(HostileReads, ImportLogFindsTheCacheLineAfterSixteenMegabytesOfNoise) {
    // Just under the limit, lines of 8,000 bytes and the figure last: read whole, and within the
    // hang guard (a guard against an endless read, not a timing: the speed is in the note of the
    // change that made a line searched only for the words it holds).
    KvcatRunner k;
    std::string text;
    while (text.size() + 8001 + 200 < (16u << 20)) {
        text.append(8000, 'a');
        text += '\n';
    }
    text +=
        "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, V (f16):  "
        "256.00 MiB\n";
    kvcat::test::write_file(k.dir() / "noise.log", text);
    Outcome o = guarded(k, "import-log noise.log --model llama-3.1-8b --url https://example.org/1 --notes n");
    EXPECT_EQ(o.status, 0) << show(o);
    EXPECT_TRUE(contains(o.out, "  cells: 4096\n")) << show(o);
    EXPECT_TRUE(contains(o.out, "  log_line: 2097\n")) << show(o);
}

TEST(HostileReads, AMegabyteOfKeysIsCheckedForDuplicatesInOnePass) {
    // 90,000 keys in one mapping, the last one a repeat of the first: every key compared
    // with every key before it took minutes; the hang guard gives it 30 s (180 under ASan).
    KvcatRunner k;
    std::string text = "id: kv-efficiency/many-keys\nk0: 0\n";
    for (int i = 1; i < 90000; ++i) {
        text += 'k';  // appended piecewise: g++ 12 warns of a false overlap on "k" + to_string(i)
        text += std::to_string(i);
        text += ": 0\n";
    }
    text += "k0: 1\n";
    ASSERT_LT(text.size(), std::size_t{1} << 20);
    kvcat::test::write_file(k.dir() / "records/kv-efficiency/many-keys.yaml", text);
    Outcome o = guarded(k, "lint records/kv-efficiency/many-keys.yaml");
    EXPECT_EQ(o.status, 1) << o.err.substr(0, 2000);
    EXPECT_TRUE(contains(o.out,
                         "many-keys.yaml:90002:1: error: [yaml-duplicate-key] key 'k0' appears twice "
                         "(first at line 2)"))
        << o.out.substr(0, 2000);
}

TEST(HostileReads, FindingsOnAMegabyteLineSitAtTheirColumns) {
    // One line of claims, each wrong: the positions come from checkpoints on the line, and
    // must be the columns a count from the line's start gives.
    KvcatRunner k;
    std::string text = kvcat::test::read_file(k.dir() / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml");
    const std::string claim = "16 x 4 x 256 x 2 x 2 = 65,535 B. ";
    std::string line;
    while (line.size() < 900000) line += claim;
    auto at = text.find("notes:");
    ASSERT_NE(at, std::string::npos);
    auto end = text.find("\nsources:", at);
    ASSERT_NE(end, std::string::npos);
    text.replace(at, end - at, "notes: >-\n  " + line);
    kvcat::test::write_file(k.dir() / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml", text);
    int notes_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
    Outcome o = guarded(k, "lint --format json records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml");
    EXPECT_EQ(o.status, 1);
    const std::size_t claims = line.size() / claim.size();
    const std::size_t last_column = 3 + (claims - 1) * claim.size();  // two spaces of indent, then 1-based
    EXPECT_TRUE(contains(o.out, "\"column\": " + std::to_string(last_column))) << o.out.substr(o.out.size() - 2000);
    EXPECT_TRUE(contains(o.out, "\"column\": 3,")) << o.out.substr(0, 2000);
    EXPECT_TRUE(contains(o.out, "\"line\": " + std::to_string(notes_line) + ",")) << o.out.substr(0, 2000);
}

/// A GGUF file whose one metadata value is a string of `length` bytes, kept sparse on disk.
void sparse_gguf(const fs::path& path, std::uint64_t length) {
    std::string head;
    auto put32 = [&](std::uint32_t v) { head.append(reinterpret_cast<const char*>(&v), 4); };
    auto put64 = [&](std::uint64_t v) { head.append(reinterpret_cast<const char*>(&v), 8); };
    put32(0x46554747u);
    put32(3);
    put64(0);  // tensors
    put64(1);  // metadata entries
    put64(12);
    head += "general.name";
    put32(8);  // a string
    put64(length);
    std::ofstream(path, std::ios::binary).write(head.data(), static_cast<std::streamsize>(head.size()));
    fs::resize_file(path, head.size() + length + 4096);
}

TEST(HostileReads, AGgufStringIsSoughtPastNotAllocated) {
    // 64 GiB of string on a sparse file: allocating it fails (or takes the machine), seeking
    // past it costs nothing.
    KvcatRunner k;
    sparse_gguf(k.dir() / "big.gguf", std::uint64_t{64} << 30);
    Outcome o =
        guarded(k, "fit --model qwen3.5-27b --accelerator nvidia-rtx-3090 --kv-dtype bf16 --weight-file big.gguf");
    EXPECT_NE(o.status, 2) << show(o);
    EXPECT_FALSE(contains(o.err, "bad_alloc")) << show(o);
    EXPECT_TRUE(contains(o.out, "big.gguf")) << show(o);
}

}  // namespace
