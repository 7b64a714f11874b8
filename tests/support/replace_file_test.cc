// Replacing a file whole (src/support/replace_file.h): every writer of kvcat creates a new file under
// a random name and renames it over its target, never opening an entry that exists; a target
// that is a link is refused and an existing file's mode is kept. The CLI cases plant, as a
// hostile checkout could, a link at the name older versions wrote through.
#include "support/replace_file.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::ReplaceError;
using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return static_cast<unsigned>(st.st_mode & 0777);
}

/// Every entry of `dir`, to see nothing was left beside the target.
std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(ReplaceFile, WritesANewFileAndLeavesNothingBeside) {
    TempDir dir;
    kvcat::replace_file(dir.path() / "page.html", "new text");
    EXPECT_EQ(read_file(dir.path() / "page.html"), "new text");
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"page.html"});
}

TEST(ReplaceFile, KeepsTheModeOfTheFileItReplaces) {
    TempDir dir;
    fs::path target = dir.path() / "kvcat.db";
    write_file(target, "old");
    ASSERT_EQ(::chmod(target.c_str(), 0440), 0);
    kvcat::replace_file(target, "new");
    EXPECT_EQ(read_file(target), "new");
    EXPECT_EQ(mode_of(target), 0440u);
}

TEST(ReplaceFile, RefusesATargetThatIsALinkAndWritesNothingThroughIt) {
    TempDir dir;
    write_file(dir.path() / "outside.txt", "precious");
    fs::create_symlink(dir.path() / "outside.txt", dir.path() / "page.html");
    try {
        kvcat::replace_file(dir.path() / "page.html", "page");
        FAIL() << "a link target was replaced";
    } catch (const ReplaceError& e) {
        EXPECT_TRUE(contains(e.what(), "page.html is a symbolic link")) << e.what();
    }
    EXPECT_EQ(read_file(dir.path() / "outside.txt"), "precious");
    EXPECT_TRUE(fs::is_symlink(dir.path() / "page.html"));
    EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"outside.txt", "page.html"}));
}

TEST(ReplaceFile, RefusesAFolderTarget) {
    TempDir dir;
    fs::create_directory(dir.path() / "page.html");
    EXPECT_THROW(kvcat::replace_file(dir.path() / "page.html", "page"), ReplaceError);
    EXPECT_TRUE(fs::is_directory(dir.path() / "page.html"));
}

TEST(ReplaceFile, AnUncommittedFileIsRemovedAndTheTargetKept) {
    TempDir dir;
    write_file(dir.path() / "r.yaml", "old");
    {
        kvcat::ReplacementFile f(dir.path() / "r.yaml", ".kvcat-tmp-");
        f.write("half");
        EXPECT_TRUE(fs::exists(f.path()));
        EXPECT_EQ(f.path().parent_path(), dir.path());
    }
    EXPECT_EQ(read_file(dir.path() / "r.yaml"), "old");
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"r.yaml"});
}

TEST(ReplaceFile, TemporaryNamesAreRandom) {
    std::string a = kvcat::random_suffix();
    std::string b = kvcat::random_suffix();
    EXPECT_EQ(a.size(), 16u);
    EXPECT_NE(a, b);
}

TEST(ReplaceFile, OnlyNamesOfExactlyKvcatsFormAreItsTemporaries) {
    const std::string prefix = "kvcat.db.tmp-";
    EXPECT_EQ(kvcat::own_temporary_pid("kvcat.db.tmp-4242-0123456789abcdef", prefix), 4242);
    EXPECT_EQ(kvcat::own_temporary_pid("kvcat.db.tmp-999999999-1", prefix), 999999999);  // an older build's
    for (const char* name :
         {"kvcat.db.tmp-notes", "kvcat.db.tmp-", "kvcat.db.tmp-12", "kvcat.db.tmp-12-", "kvcat.db.tmp-12-notes",
          "kvcat.db.tmp-0-1", "kvcat.db.tmp-12-0123456789ABCDEF", "kvcat.db.tmp-12-1.bak", "kvcat.db.tmp--1-1",
          "kvcat.db.tmp-12345678901-1", "other.db.tmp-12-1", "kvcat.db.tmp-12-0123456789abcdef0"}) {
        EXPECT_EQ(kvcat::own_temporary_pid(name, prefix), 0) << name;
    }
}

// ---- the commands ---------------------------------------------------------------------------

class ReplaceFileCli : public ::testing::Test {
  protected:
    KvcatRunner k_;
    fs::path dir_ = k_.dir();

    /// A file outside the folder written to, and a link to it planted at `name`.
    void plant_link(const fs::path& name) {
        write_file(dir_ / "outside.txt", "precious");
        fs::create_directories(name.parent_path());
        fs::create_symlink(dir_ / "outside.txt", name);
    }
    void expect_outside_untouched() { EXPECT_EQ(read_file(dir_ / "outside.txt"), "precious"); }
};

// The shipped workflow's command, with the name older versions wrote through committed as a
// link: the page is written new and the link's target is untouched.
TEST_F(ReplaceFileCli, ReportNeverWritesThroughALinkPlantedBesideItsPage) {
    plant_link(dir_ / "site/index.html.kvcat-tmp");
    Outcome r = k_.run({"report", "--out", "site/index.html"});
    ASSERT_EQ(r.status, 0) << r.err;
    expect_outside_untouched();
    EXPECT_FALSE(fs::is_symlink(dir_ / "site/index.html"));
    EXPECT_TRUE(contains(read_file(dir_ / "site/index.html"), "<html"));
    EXPECT_TRUE(fs::is_symlink(dir_ / "site/index.html.kvcat-tmp"));  // not ours: left alone
}

TEST_F(ReplaceFileCli, ReportRefusesAPageThatIsALink) {
    plant_link(dir_ / "site/index.html");
    Outcome r = k_.run({"report", "--out", "site/index.html"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "site/index.html is a symbolic link")) << r.err;
    expect_outside_untouched();
    EXPECT_TRUE(fs::is_symlink(dir_ / "site/index.html"));
}

TEST_F(ReplaceFileCli, ReportKeepsThePagesMode) {
    write_file(dir_ / "page.html", "old");
    ASSERT_EQ(::chmod((dir_ / "page.html").c_str(), 0604), 0);
    Outcome r = k_.run({"report", "--out", "page.html"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(mode_of(dir_ / "page.html"), 0604u);
}

TEST_F(ReplaceFileCli, ImportConfigNewAndImportBenchRefuseALinkEvenWithForce) {
    const fs::path out = dir_ / "records/models/planted.yaml";
    plant_link(out);
    const fs::path config = kvcat::test::fixture_path("configs/llama-3.1-8b.json");
    Outcome imported = k_.run({"import-config", config.string(), "--name", "Llama-3.1-8B", "--total-params-b", "8",
                               "--active-params-b", "8", "--out", "records/models/planted.yaml", "--force"});
    EXPECT_EQ(imported.status, 2) << imported.err;
    EXPECT_TRUE(contains(imported.err, "planted.yaml is a symbolic link")) << imported.err;

    const std::string row = "records/kv-efficiency/llamacpp-llama-3.1-8b-q8_0-64k.yaml";
    plant_link(dir_ / (row + ".kvcat-tmp"));  // the name older versions wrote through
    fs::remove(dir_ / "outside.txt");
    write_file(dir_ / "outside.txt", "precious");
    Outcome skeleton = k_.run({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp",
                               "--kv-dtype", "q8_0", "--context", "64k", "--out", row});
    EXPECT_EQ(skeleton.status, 0) << skeleton.err;
    EXPECT_FALSE(fs::is_symlink(dir_ / row));
    expect_outside_untouched();
    fs::remove(dir_ / row);
    fs::create_symlink(dir_ / "outside.txt", dir_ / row);
    Outcome again = k_.run({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp",
                            "--kv-dtype", "q8_0", "--context", "64k", "--out", row, "--force"});
    EXPECT_EQ(again.status, 2) << again.err;
    EXPECT_TRUE(contains(again.err, "is a symbolic link")) << again.err;

    const std::string bench = "records/kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k.yaml";
    fs::create_symlink(dir_ / "outside.txt", dir_ / bench);
    Outcome measured = k_.run({"import-bench", kvcat::test::fixture_path("import-bench/depths.jsonl").string(),
                               "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--provenance", "measured",
                               "--out", bench, "--force"});
    EXPECT_EQ(measured.status, 2) << measured.err;
    EXPECT_TRUE(contains(measured.err, "is a symbolic link")) << measured.err;
    expect_outside_untouched();
}

TEST_F(ReplaceFileCli, BuildRemovesOnlyItsOwnLeftoversNeverANotesFileOrAFolder) {
    write_file(dir_ / "kvcat.db.tmp-notes", "my notes");
    write_file(dir_ / "kvcat.db.tmp-12-notes", "more notes");
    fs::create_directory(dir_ / "kvcat.db.tmp-999999999-2");  // our form, but a folder
    write_file(dir_ / "kvcat.db.tmp-999999999-0123456789abcdef", "a killed build's half catalog");
    Outcome r = k_.run({"build"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(dir_ / "kvcat.db.tmp-notes"), "my notes");
    EXPECT_EQ(read_file(dir_ / "kvcat.db.tmp-12-notes"), "more notes");
    EXPECT_TRUE(fs::is_directory(dir_ / "kvcat.db.tmp-999999999-2"));
    EXPECT_FALSE(fs::exists(dir_ / "kvcat.db.tmp-999999999-0123456789abcdef"));
}

TEST_F(ReplaceFileCli, BuildKeepsACatalogsModeAndRefusesAReadOnlyOrLinkedOne) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    ASSERT_EQ(::chmod((dir_ / "kvcat.db").c_str(), 0640), 0);
    write_file(dir_ / "records/models/llama-3.1-8b.yaml",
               read_file(dir_ / "records/models/llama-3.1-8b.yaml") + "# touched\n");
    Outcome rebuilt = k_.run({"build"});
    ASSERT_EQ(rebuilt.status, 0) << rebuilt.err;
    EXPECT_EQ(mode_of(dir_ / "kvcat.db"), 0640u);

    // A catalog its owner made read-only is left alone, with what to do.
    ASSERT_EQ(::chmod((dir_ / "kvcat.db").c_str(), 0444), 0);
    std::string sealed = read_file(dir_ / "kvcat.db");
    write_file(dir_ / "records/models/llama-3.1-8b.yaml",
               read_file(dir_ / "records/models/llama-3.1-8b.yaml") + "# touched again\n");
    Outcome refused = k_.run({"build"});
    EXPECT_EQ(refused.status, 2) << refused.err;
    EXPECT_TRUE(contains(refused.err, "kvcat.db is read-only (mode 444)")) << refused.err;
    EXPECT_TRUE(contains(refused.err, "chmod u+w")) << refused.err;
    EXPECT_EQ(mode_of(dir_ / "kvcat.db"), 0444u);
    EXPECT_EQ(read_file(dir_ / "kvcat.db"), sealed);
    ASSERT_EQ(::chmod((dir_ / "kvcat.db").c_str(), 0644), 0);

    fs::rename(dir_ / "kvcat.db", dir_ / "real.db");
    fs::create_symlink("real.db", dir_ / "kvcat.db");
    std::string before = read_file(dir_ / "real.db");
    Outcome linked = k_.run({"build", "--full"});
    EXPECT_EQ(linked.status, 2) << linked.err;
    EXPECT_TRUE(contains(linked.err, "kvcat.db is a symbolic link")) << linked.err;
    EXPECT_TRUE(fs::is_symlink(dir_ / "kvcat.db"));
    EXPECT_EQ(read_file(dir_ / "real.db"), before);
}

}  // namespace
