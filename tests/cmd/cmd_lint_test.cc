// kvcat lint as a user runs it: formats, exit codes, --strict, --quiet, --rule, colour.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/rule_registry.h"
#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

using nlohmann::json;

constexpr const char* kRecord = "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml";

class CmdLint : public ::testing::Test {
  protected:
    /// Puts the seed's wrong figure back: two errors, at 12:21 and 19:15.
    void break_record() {
        fs::path file = k_.dir() / kRecord;
        std::string text = read_file(file);
        auto at = text.find("kv_bytes_per_token: 65536");
        ASSERT_NE(at, std::string::npos);
        text.replace(at, 25, "kv_bytes_per_token: 16384");
        write_file(file, text);
    }

    /// A record whose id carries the wrong context tag: one warning (id-context-tag).
    void add_warning_record() {
        std::string text = read_file(k_.dir() / kRecord);
        auto replace = [&](const std::string& from, const std::string& to) {
            auto at = text.find(from);
            ASSERT_NE(at, std::string::npos) << from;
            text.replace(at, from.size(), to);
        };
        replace("id: kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k", "id: kv-efficiency/tagged-128k");
        write_file(k_.dir() / "records/kv-efficiency/tagged-128k.yaml", text);
    }

    KvcatRunner k_;
};

TEST_F(CmdLint, GithubFormatOnABrokenRecordPrintsWorkflowCommands) {
    break_record();
    Outcome r = k_.run({"lint", "--format", "github"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out,
              "::error file=records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml,line=12,col=21,"
              "title=kv-basis-product::16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384\n"
              "::error file=records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml,line=19,col=15,"
              "title=kv-statement-mismatch::the statement gives 65,536, but kv_bytes_per_token is 16,384\n");
    // The summary stays on stderr.
    EXPECT_NE(r.err.find("2 errors"), std::string::npos) << r.err;
}

TEST_F(CmdLint, GithubIsTheDefaultUnderGithubActionsOnly) {
    break_record();
    Outcome actions = k_.run({"lint"}, {"GITHUB_ACTIONS=true"});
    EXPECT_EQ(actions.status, 1);
    EXPECT_TRUE(actions.out.starts_with("::error file=records/kv-efficiency/")) << actions.out;
    // An explicit --format wins over the environment.
    Outcome text = k_.run({"lint", "--format", "text"}, {"GITHUB_ACTIONS=true"});
    EXPECT_TRUE(text.out.starts_with("records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml:12:21: error: "))
        << text.out;
    // Only "true" means GitHub Actions.
    Outcome other = k_.run({"lint"}, {"GITHUB_ACTIONS=false"});
    EXPECT_TRUE(other.out.starts_with("records/")) << other.out;
}

TEST_F(CmdLint, GithubWholeFileFindingHasNoLine) {
    write_file(k_.dir() / "records/models/empty.yaml", "");
    Outcome r = k_.run({"lint", "--format", "github", "records/models/empty.yaml"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out,
              "::error file=records/models/empty.yaml,title=file-empty::"
              "the file holds no YAML document; expected one mapping with an id\n");
}

TEST_F(CmdLint, JsonFindingsAndSummary) {
    break_record();
    Outcome r = k_.run({"lint", "--format", "json"});
    EXPECT_EQ(r.status, 1) << r.err;
    json j = json::parse(r.out);
    ASSERT_EQ(j["findings"].size(), 2u) << r.out;
    const json& f = j["findings"][0];
    EXPECT_EQ(f["file"], kRecord);
    EXPECT_EQ(f["line"], 12);
    EXPECT_EQ(f["column"], 21);
    EXPECT_EQ(f["severity"], "error");
    EXPECT_EQ(f["rule"], "kv-basis-product");
    EXPECT_EQ(f["stated"], "16,384");
    EXPECT_EQ(f["computed"], "65,536");
    EXPECT_EQ(j["summary"]["errors"], 2);
    EXPECT_EQ(j["summary"]["warnings"], 0);
    EXPECT_GE(j["summary"]["files_checked"].get<int>(), 10);
}

TEST_F(CmdLint, JsonOnCleanRecordsIsAnEmptyList) {
    Outcome r = k_.run({"lint", "--format", "json"});
    EXPECT_EQ(r.status, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_TRUE(j["findings"].is_array());
    EXPECT_TRUE(j["findings"].empty());
    EXPECT_EQ(j["summary"]["errors"], 0);
}

TEST_F(CmdLint, SarifParsesBackAndPointsAtTheRightRule) {
    break_record();
    Outcome r = k_.run({"lint", "--format", "sarif"});
    EXPECT_EQ(r.status, 1) << r.err;
    json log = json::parse(r.out);
    EXPECT_EQ(log["version"], "2.1.0");
    EXPECT_TRUE(log.contains("$schema"));
    ASSERT_EQ(log["runs"].size(), 1u);
    const json& run = log["runs"][0];
    const json& driver = run["tool"]["driver"];
    EXPECT_EQ(driver["name"], "kvcat");
    EXPECT_EQ(driver["version"], KVCAT_VERSION);
    ASSERT_EQ(driver["rules"].size(), all_rules().size());
    ASSERT_EQ(run["results"].size(), 2u);
    const json& res = run["results"][0];
    EXPECT_EQ(res["ruleId"], "kv-basis-product");
    EXPECT_EQ(driver["rules"][res["ruleIndex"].get<std::size_t>()]["id"], "kv-basis-product");
    EXPECT_EQ(res["level"], "error");
    const json& loc = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["artifactLocation"]["uri"], kRecord);
    EXPECT_EQ(loc["region"]["startLine"], 12);
    EXPECT_EQ(loc["region"]["startColumn"], 21);
    EXPECT_EQ(res["properties"]["stated"], "16,384");
    EXPECT_EQ(res["properties"]["computed"], "65,536");
    const json& second = run["results"][1];
    EXPECT_EQ(driver["rules"][second["ruleIndex"].get<std::size_t>()]["id"], second["ruleId"]);
}

TEST_F(CmdLint, SarifUriIsRelativeForAnAbsolutePathUnderTheWorkingDirectory) {
    break_record();
    Outcome r = k_.run({"lint", "--format", "sarif", (k_.dir() / kRecord).string()});
    EXPECT_EQ(r.status, 1) << r.err;
    json log = json::parse(r.out);
    EXPECT_EQ(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], kRecord);
}

TEST_F(CmdLint, StrictMakesWarningsFail) {
    add_warning_record();
    Outcome lenient = k_.run({"lint"});
    EXPECT_EQ(lenient.status, 0) << lenient.out << lenient.err;
    EXPECT_NE(lenient.out.find("warning: [id-context-tag]"), std::string::npos) << lenient.out;
    Outcome strict = k_.run({"lint", "--strict"});
    EXPECT_EQ(strict.status, 1) << strict.out << strict.err;
    EXPECT_EQ(strict.out, lenient.out);
}

TEST_F(CmdLint, QuietPrintsOnlyErrorsBeforeOrAfterLint) {
    add_warning_record();
    break_record();
    Outcome loud = k_.run({"lint"});
    ASSERT_NE(loud.out.find("warning: [id-context-tag]"), std::string::npos) << loud.out;
    ASSERT_NE(loud.err.find("info"), std::string::npos) << loud.err;
    for (const auto& args : {std::vector<std::string>{"lint", "-q"}, std::vector<std::string>{"-q", "lint"},
                             std::vector<std::string>{"lint", "--quiet"}}) {
        Outcome quiet = k_.run(args);
        SCOPED_TRACE(args[0] + " " + args[1]);
        EXPECT_EQ(quiet.status, 1);
        EXPECT_EQ(quiet.out.find("warning"), std::string::npos) << quiet.out;
        EXPECT_NE(quiet.out.find("error: [kv-basis-product]"), std::string::npos) << quiet.out;
        // No summary: -q leaves only errors on stderr too.
        EXPECT_EQ(quiet.err, "");
    }
    // Quiet does not hide a warning from --strict's exit status.
    write_file(k_.dir() / kRecord, read_file(fs::path(KVCAT_SOURCE_DIR) / kRecord));
    Outcome strict_quiet = k_.run({"lint", "-q", "--strict"});
    EXPECT_EQ(strict_quiet.status, 1);
    EXPECT_EQ(strict_quiet.out, "");
}

TEST_F(CmdLint, VerboseAfterLintStillWorks) {
    Outcome r = k_.run({"lint", "-v"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST_F(CmdLint, RuleFilterAndItsDidYouMean) {
    break_record();
    Outcome only = k_.run({"lint", "--rule", "kv-statement-mismatch", "records"});
    EXPECT_EQ(only.status, 1) << only.err;
    EXPECT_EQ(only.out.find("kv-basis-product"), std::string::npos) << only.out;
    EXPECT_NE(only.out.find("[kv-statement-mismatch]"), std::string::npos) << only.out;
    Outcome other = k_.run({"lint", "--rule", "id-context-tag"});
    EXPECT_EQ(other.status, 0) << other.out;
    EXPECT_EQ(other.out, "");
    Outcome both = k_.run({"lint", "--rule", "kv-basis-product,kv-statement-mismatch"});
    EXPECT_NE(both.out.find("[kv-basis-product]"), std::string::npos) << both.out;
    EXPECT_NE(both.out.find("[kv-statement-mismatch]"), std::string::npos) << both.out;
    Outcome typo = k_.run({"lint", "--rule", "kv-basis-prodcut"});
    EXPECT_EQ(typo.status, 2);
    EXPECT_EQ(typo.out, "");
    EXPECT_NE(typo.err.find("did you mean 'kv-basis-product'?"), std::string::npos) << typo.err;
}

TEST_F(CmdLint, ColourOnlyWhenAskedOrOnATerminalWithoutNoColor) {
    break_record();
    EXPECT_EQ(k_.run({"lint"}).out.find('\x1b'), std::string::npos);
    EXPECT_NE(k_.run({"lint", "--color", "always"}).out.find("\x1b[1;31merror:"), std::string::npos);
    Outcome tty = k_.run_on_terminal({"lint"});
    EXPECT_EQ(tty.status, 1) << tty.err;
    EXPECT_NE(tty.out.find("\x1b[1;31merror:"), std::string::npos) << tty.out;
    // NO_COLOR, even empty, turns it off; so does --color never.
    EXPECT_EQ(k_.run_on_terminal({"lint"}, {"NO_COLOR="}).out.find('\x1b'), std::string::npos);
    EXPECT_EQ(k_.run_on_terminal({"lint"}, {"NO_COLOR=1"}).out.find('\x1b'), std::string::npos);
    EXPECT_EQ(k_.run_on_terminal({"lint", "--color", "never"}).out.find('\x1b'), std::string::npos);
    // The machine formats are never coloured.
    EXPECT_EQ(k_.run_on_terminal({"lint", "--format", "github"}).out.find('\x1b'), std::string::npos);
}

TEST_F(CmdLint, BadFormatIsAUsageError) {
    Outcome r = k_.run({"lint", "--format", "xml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace kvcat::test

namespace kvcat::test {
namespace {

// Every kind of record lints by its own path and by its folder, as a maintainer checks the
// one file a pull request touches: the records root is found from the kind's folder, whichever
// kind it is (allocations/ once failed every record with record-kind).
TEST(CmdLintEveryKind, OneFileAndItsFolderLintCleanForEveryKindShipped) {
    fs::path records = fs::path(KVCAT_SOURCE_DIR) / "records";
    KvcatRunner kvcat(false);
    for (const char* folder : {"models", "accelerators", "kv-efficiency", "allocations"}) {
        fs::path first;
        for (const auto& e : fs::directory_iterator(records / folder)) {
            if (e.path().extension() == ".yaml" && (first.empty() || e.path() < first)) first = e.path();
        }
        ASSERT_FALSE(first.empty()) << folder;
        for (const fs::path& target : {first, records / folder, fs::path((records / folder).string() + "/")}) {
            Outcome out = kvcat.run({"lint", target.string()});
            EXPECT_EQ(out.status, 0) << target << "\n" << out.out << out.err;
            EXPECT_FALSE(contains(out.out, "record-kind")) << target << "\n" << out.out;
            EXPECT_TRUE(contains(out.err, " 0 errors, 0 warnings")) << target << "\n" << out.err;
        }
    }
}

// An allocation record with `block_size: 0` once killed lint, build, query and explain with
// SIGFPE (a division by the block size): now the schema's finding is the answer, and every
// command that reads the record ends with an exit status of its own.
TEST(CmdLintEveryKind, AZeroBlockSizeIsAFindingNotADivisionByZero) {
    KvcatRunner kvcat(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", kvcat.dir() / "records");
    const std::string id = "allocations/vllm-0.10.1.1-gpt-oss-120b-tp4-a100-80g-0.8";
    fs::path file = kvcat.dir() / "records" / (id + ".yaml");
    std::string text = read_file(file);
    auto at = text.find("  max_num_batched_tokens: 2048\n");
    ASSERT_NE(at, std::string::npos) << text;
    text.insert(at, "  block_size: 0\n");
    write_file(file, text);
    Outcome lint = kvcat.run({"lint", "records"});
    EXPECT_EQ(lint.status, 1) << lint.err;
    EXPECT_TRUE(contains(lint.out, "[schema-value]") || contains(lint.out, "block_size")) << lint.out;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"build"}, {"explain", id}, {"query", "--allocations", "--format", "csv"}}) {
        Outcome out = kvcat.run(args);
        EXPECT_TRUE(out.status == 0 || out.status == 1 || out.status == 2) << args[0] << ": " << out.status << out.err;
    }
}

}  // namespace
}  // namespace kvcat::test
