// The catalog as a file: the immutable open every read of a catalog goes through.
#include "catalog/catalog_file.h"

#include <filesystem>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

TEST(CatalogFile, AnImmutableUriEncodesWhatAUriWouldReadOtherwise) {
    EXPECT_EQ(immutable_catalog_uri("kvcat.db"), "file:kvcat.db?immutable=1");
    EXPECT_EQ(immutable_catalog_uri("/a b/k?x#y%z.db"), "file:/a%20b/k%3Fx%23y%25z.db?immutable=1");
    // "file://host/..." names a host; two leading slashes are one on Linux.
    EXPECT_EQ(immutable_catalog_uri("//srv/x.db"), "file:/srv/x.db?immutable=1");
    EXPECT_EQ(immutable_catalog_uri("/srv/x.db"), "file:/srv/x.db?immutable=1");
}

TEST(CatalogFile, ACatalogWhoseNameAUriWouldReadOtherwiseOpens) {
    test::TempDir tmp;
    fs::path odd = tmp.path() / "a b?c#d%41.db";
    {
        SQLite::Database d(odd.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        d.exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (42)");
    }
    auto db = open_catalog_readonly(odd);
    EXPECT_EQ(db->execAndGet("SELECT v FROM t").getInt(), 42);
    EXPECT_FALSE(fs::exists(tmp.path() / "a b"));  // nothing was made at a name cut at '?'
    EXPECT_ANY_THROW(db->exec("INSERT INTO t VALUES (1)"));
}

}  // namespace
}  // namespace kvcat
