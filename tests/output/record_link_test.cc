// The report's links to record files (src/output/record_link.h): a file name is percent-encoded, so it
// is always a path, and a link is kept only when it is http(s) or a relative path, decided on
// the text the browser's URL parser reads.
#include "output/record_link.h"

#include <string>

#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::is_safe_link;
using kvcat::test::contains;
using kvcat::test::read_file;

TEST(RecordLink, PercentEncodesEverythingButAPathsPlainCharacters) {
    EXPECT_EQ(kvcat::percent_encode_path("kv-efficiency/llamacpp-qwen3.5_27b~x.yaml"),
              "kv-efficiency/llamacpp-qwen3.5_27b~x.yaml");
    EXPECT_EQ(kvcat::percent_encode_path("java\tscript:alert(1).yaml"), "java%09script%3Aalert%281%29.yaml");
    EXPECT_EQ(kvcat::percent_encode_path("a b#c?d%e\\f"), "a%20b%23c%3Fd%25e%5Cf");
    EXPECT_EQ(kvcat::percent_encode_path("\xC3\xA9"), "%C3%A9");
}

TEST(RecordLink, BrowserNormalisationDropsTabsLineBreaksAndEdgeControls) {
    EXPECT_EQ(kvcat::browser_normalised(" \x01java\tscr\nipt\r:x \x1F"), "javascript:x");
}

TEST(RecordLink, KeepsHttpHttpsAndRelativePathsOnly) {
    for (const char* href : {"https://github.com/o/r/blob/main/records/a.yaml", "HTTP://example.org/a", "a.yaml",
                             "../models/x.yaml", "javascript%3Aalert(1).yaml"}) {
        EXPECT_TRUE(is_safe_link(href)) << href;
    }
    for (const char* href :
         {"javascript:alert(1)", "JavaScript:alert(1)", "java\tscript:alert(1)", " javascript:x", "\x01javascript:x",
          "data:text/html,x", "vbscript:x", "file:///etc/passwd", "//attacker.example/x", "\\\\attacker.example",
          "/etc/passwd", "javascript\t:x", "", "  "}) {
        EXPECT_FALSE(is_safe_link(href)) << href;
    }
}

// A record whose file name is a script address, linted clean and built: its row's link on a
// page written into its own folder is the file, percent-encoded, never the scheme.
TEST(RecordLink, AReportInTheRecordsFolderLinksAScriptNamedRecordAsAFile) {
    kvcat::test::KvcatRunner k;
    const fs::path kv = k.dir() / "records/kv-efficiency";
    const std::string seed = "llamacpp-qwen35-27b-rtx3090-64k";
    fs::path seed_file = kv / seed;
    seed_file += ".yaml";
    std::string text = read_file(seed_file);
    fs::remove(seed_file);
    const std::string name = "javascript:alert(document.domain)";
    auto at = text.find("id: kv-efficiency/" + seed);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 18 + seed.size(), "id: 'kv-efficiency/" + name + "'");
    kvcat::test::write_file(kv / (name + ".yaml"), text);
    auto lint = k.run({"lint"});
    ASSERT_EQ(lint.status, 0) << lint.out << lint.err;
    auto r = k.run({"report", "--out", "records/kv-efficiency/index.html"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string page = read_file(kv / "index.html");
    EXPECT_TRUE(contains(page, "\"javascript%3Aalert%28document.domain%29.yaml\"")) << "no encoded link";
    EXPECT_FALSE(contains(page, "\"javascript:alert(document.domain).yaml\""));
}

TEST(RecordLink, ALinkBaseThatIsNotHttpIsRefused) {
    kvcat::test::KvcatRunner k;
    auto r = k.run({"report", "--out", "-", "--link-base", "javascript:alert(1)//"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--link-base \"javascript:alert(1)//\": a link base is an http: or https: address"))
        << r.err;
    EXPECT_EQ(r.out, "");
}

}  // namespace
