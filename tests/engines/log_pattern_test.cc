// A log reader's pattern is compiled once, on first use, whichever thread asks first.
#include <regex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engines/log_pattern.h"

namespace kvcat {
namespace {

TEST(LogPattern, CompilesOnceAndMatchesAsTheRegexWould) {
    static const LogPattern pattern(R"(GPU KV cache size: ([0-9,]+) tokens)");
    std::smatch m;
    std::string line = "INFO: GPU KV cache size: 1,234 tokens";
    ASSERT_TRUE(std::regex_search(line, m, pattern.get()));
    EXPECT_EQ(m[1], "1,234");
    EXPECT_EQ(&pattern.get(), &pattern.get());
    EXPECT_FALSE(std::regex_search(std::string("GPU KV cache size: tokens"), pattern.get()));
}

TEST(LogPattern, ThreadsAskingFirstTogetherShareOneCompiledPattern) {
    static const LogPattern pattern(R"(\bn_ctx += (\d+))");
    std::vector<const std::regex*> seen(8, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = &pattern.get(); });
    for (auto& t : threads) t.join();
    for (const auto* r : seen) EXPECT_EQ(r, seen.front());
    EXPECT_TRUE(std::regex_search(std::string("llama_context: n_ctx    = 4096"), *seen.front()));
}

}  // namespace
}  // namespace kvcat
