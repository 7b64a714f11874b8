// run_command: a subcommand's exit code, or its exception logged once as an error, exit 2.
#include "cmd/run_command.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "kvcat_runner.h"

namespace kvcat::cmd {
namespace {

/// Sends the log to a string, in the pattern main() sets, for the length of a test.
class RunCommandTest : public ::testing::Test {
  protected:
    void SetUp() override {
        previous_ = spdlog::default_logger();
        auto logger = std::make_shared<spdlog::logger>("kvcat", std::make_shared<spdlog::sinks::ostream_sink_st>(log_));
        logger->set_pattern("kvcat: %l: %v");
        spdlog::set_default_logger(logger);
    }
    void TearDown() override { spdlog::set_default_logger(previous_); }

    std::ostringstream log_;
    std::shared_ptr<spdlog::logger> previous_;
};

TEST_F(RunCommandTest, ReturnsTheBodysExitCode) {
    EXPECT_EQ(run_command([] { return int{ExitCode::ok}; }), 0);
    EXPECT_EQ(run_command([] { return int{ExitCode::findings}; }), 1);
    EXPECT_EQ(run_command([] { return int{ExitCode::failure}; }), 2);
    EXPECT_EQ(log_.str(), "");
}

TEST_F(RunCommandTest, AnExceptionIsLoggedAsItsMessageAndExitsTwo) {
    int code = run_command([]() -> int { throw CatalogError("notes.db: not a kvcat catalog"); });
    EXPECT_EQ(code, ExitCode::failure);
    EXPECT_EQ(log_.str(), "kvcat: error: notes.db: not a kvcat catalog\n");
}

TEST_F(RunCommandTest, AnyStandardExceptionIsCaught) {
    EXPECT_EQ(run_command([]() -> int { throw std::out_of_range("index 3 of 2"); }), ExitCode::failure);
    EXPECT_EQ(log_.str(), "kvcat: error: index 3 of 2\n");
}

TEST_F(RunCommandTest, RunningOutOfMemoryIsSaidInWordsNotTheLibrarys) {
    EXPECT_EQ(run_command([]() -> int { throw std::bad_alloc(); }), ExitCode::failure);
    EXPECT_EQ(log_.str(),
              "kvcat: error: the command ran out of memory: an input is far larger than the command can hold\n");
}

TEST_F(RunCommandTest, SomethingThrownThatIsNoExceptionStillExitsTwo) {
    EXPECT_EQ(run_command([]() -> int { throw 42; }), ExitCode::failure);
    EXPECT_EQ(log_.str(), "kvcat: error: an unknown error stopped the command\n");
}

TEST(CommandErrors, AnUnreadableCatalogIsOneErrorLineAndExitTwoInEachCommandThatReadsIt) {
    test::KvcatRunner k;
    test::write_file(k.dir() / "notes.db", "my notes, not a database");
    std::string first;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"query", "--db", "notes.db"}, {"sql", "--db", "notes.db", "SELECT 1"}, {"report", "--db", "notes.db"}}) {
        SCOPED_TRACE(args[0]);
        test::Outcome o = k.run(args);
        EXPECT_EQ(o.status, ExitCode::failure);
        EXPECT_EQ(o.out, "");
        EXPECT_TRUE(o.err.starts_with("kvcat: error: notes.db: ")) << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
        if (first.empty()) first = o.err;
        EXPECT_EQ(o.err, first);
    }
    EXPECT_EQ(test::read_file(k.dir() / "notes.db"), "my notes, not a database");
}

}  // namespace
}  // namespace kvcat::cmd
