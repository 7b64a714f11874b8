// The one walk of a records root: what the lint reads and what a query's staleness check sums
// are the same files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "load/records_root.h"
#include "load/records_walk.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::test::TempDir;

/// A root with every kind of entry a walk must judge: record files, a link to one, a folder
/// named like a record, a link to a folder inside the root, a file that is not a record.
fs::path mixed_root(const TempDir& dir) {
    fs::path root = dir / "records";
    fs::create_directories(root / "models");
    fs::create_directories(root / "kv-efficiency" / "deep" / "er");
    fs::create_directories(root / "models" / "odd.yaml");
    kvcat::test::write_file(root / "models" / "a.yaml", "id: models/a\n");
    kvcat::test::write_file(root / "kv-efficiency" / "deep" / "er" / "b.yaml", "id: x\n");
    kvcat::test::write_file(root / "models" / "odd.yaml" / "inner.yaml", "id: inner\n");
    kvcat::test::write_file(root / "models" / "README.md", "notes\n");
    fs::create_symlink("a.yaml", root / "models" / "c.yaml");
    fs::create_directory_symlink("../kv-efficiency", root / "models" / "rows");
    return root;
}

TEST(RecordsWalk, TheLintsWalkAndTheStalenessFingerprintCountTheSameFiles) {
    TempDir dir;
    fs::path root = mixed_root(dir);
    kvcat::RecordTree tree = kvcat::walk_records(root);
    std::string r = kvcat::shown_path(root);
    EXPECT_EQ(tree.yaml, (std::vector<std::string>{r + "/kv-efficiency/deep/er/b.yaml", r + "/models/a.yaml",
                                                   r + "/models/c.yaml"}));
    EXPECT_EQ(tree.links, std::vector<std::string>{r + "/models/c.yaml"});
    EXPECT_EQ(tree.linked_folders, std::vector<std::string>{r + "/models/rows"});
    EXPECT_EQ(tree.skipped, std::vector<std::string>{r + "/models/README.md"});
    ASSERT_EQ(tree.problems.size(), 1u);
    EXPECT_EQ(tree.problems[0].rule, "file-unreadable");
    EXPECT_EQ(tree.problems[0].pos.file, r + "/models/odd.yaml");

    // The fingerprint is the sum over exactly the walk's files, each by its path under the
    // root, size and time: the folder named like a record and the linked folder add nothing.
    kvcat::RecordSetFingerprint expected;
    for (const std::string& file : tree.yaml) {
        struct stat st {};
        ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
        kvcat::add_to_fingerprint(expected, kvcat::path_under_root(file, r), st.st_size,
                                  static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
    }
    EXPECT_EQ(kvcat::fingerprint_on_disk(root), expected);
    EXPECT_EQ(kvcat::fingerprint_on_disk(root).files, 3u);
}

TEST(RecordsWalk, ReadFolderSaysWhyAFolderCannotBeRead) {
    TempDir dir;
    int calls = 0;
    int error = kvcat::read_folder((dir / "missing").string(), [&](int, const kvcat::FolderEntry&) { ++calls; });
    EXPECT_EQ(error, ENOENT);
    EXPECT_EQ(calls, 0);
    kvcat::RecordTree tree = kvcat::walk_records(dir / "missing");
    ASSERT_EQ(tree.problems.size(), 1u);
    EXPECT_NE(tree.problems[0].message.find("No such file or directory"), std::string::npos)
        << tree.problems[0].message;
}

}  // namespace
