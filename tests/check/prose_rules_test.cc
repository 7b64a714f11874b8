// The prose checks: arithmetic in sentences, the basis statement, the id's context tag.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "check/findings.h"
#include "check/lint.h"
#include "check/record_claims.h"
#include "output/explain.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& rel) {
    return fs::path(KVCAT_FIXTURES_DIR) / rel;
}

std::vector<Diagnostic> prose_findings(const LintResult& r, std::string_view rule) {
    std::vector<Diagnostic> out;
    for (const auto& d : r.diagnostics) {
        if (d.rule == rule) out.push_back(d);
    }
    return out;
}

TEST(ProseRules, ProseArithmeticPasses) {
    LintResult r = lint_paths({fixture("prose-arithmetic/pass")});
    EXPECT_TRUE(r.diagnostics.empty()) << format_text(r.diagnostics.front());
}

TEST(ProseRules, ProseArithmeticTrips) {
    LintResult r = lint_paths({fixture("prose-arithmetic/fail")});
    // Two wrong ratios in the quality record's notes, one wrong size in the row's.
    ASSERT_EQ(r.diagnostics.size(), 3u);
    std::vector<const Diagnostic*> quality;
    const Diagnostic* row = nullptr;
    for (const auto& d : r.diagnostics) {
        if (d.pos.file.ends_with("kv-efficiency/quality-ratio.yaml")) quality.push_back(&d);
        if (d.pos.file.ends_with("kv-efficiency/row.yaml")) row = &d;
    }
    ASSERT_EQ(quality.size(), 2u);
    EXPECT_EQ(quality[0]->message, "6.4648 / 6.3123 = 1.024, not 1.034");
    EXPECT_EQ(quality[1]->message, "0.94 / 0.96 = 97.9%, not 96.9%");
    EXPECT_EQ(quality[1]->computed, "97.9%");
    ASSERT_NE(row, nullptr);
    const Diagnostic& d = *row;
    EXPECT_EQ(d.rule, "prose-arithmetic");
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_TRUE(d.pos.file.ends_with("kv-efficiency/row.yaml")) << d.pos.file;
    EXPECT_EQ(d.pos.line, 21);  // the second line of the notes block
    EXPECT_EQ(d.pos.column, 23);
    EXPECT_EQ(d.message, "131072 x 65536 = 8.00 GiB, not 9.00 GiB");
    EXPECT_EQ(d.computed, "8.00 GiB");
    EXPECT_EQ(d.stated, "9.00 GiB");
}

// A wrong result wrapped before its unit is reported with its figure on one line.
TEST(ProseRules, AWrappedWrongResultIsShownOnOneLine) {
    Diagnostic d = diag::prose_arithmetic(Position{"x.yaml", 3, 5}, "65536 x 65536", "4 GiB", "5\n  GiB");
    EXPECT_EQ(d.message, "65536 x 65536 = 4 GiB, not 5 GiB");
    EXPECT_EQ(d.stated, "5 GiB");
    EXPECT_EQ(d.computed, "4 GiB");
}

TEST(ProseRules, StatementMatchingTheBasisPasses) {
    EXPECT_TRUE(lint_paths({fixture("kv-statement-mismatch/pass")}).diagnostics.empty());
}

TEST(ProseRules, StatementWithOtherFactorsTrips) {
    LintResult r = lint_paths({fixture("kv-statement-mismatch/fail")});
    auto found = prose_findings(r, "kv-statement-mismatch");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].pos.line, 15);
    EXPECT_EQ(found[0].pos.column, 15);
    EXPECT_EQ(found[0].stated, "32 x 4 x 128 x 2 x 2");
    EXPECT_EQ(found[0].computed, "32 x 8 x 128 x 2 x 2");
    // The statement's own arithmetic holds (65,536), so no prose finding piles on.
    EXPECT_TRUE(prose_findings(r, "prose-arithmetic").empty());
}

TEST(ProseRules, StatementWithAnotherResultTrips) {
    fs::path dir = fs::temp_directory_path() / ("kvcat-stmt-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(fixture("kv-statement-mismatch/pass"), dir, fs::copy_options::recursive);
    fs::path row = dir / "kv-efficiency/row.yaml";
    std::ifstream in(row);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    // A statement with no product at all.
    auto at = s.find("statement: \"");
    auto end = s.find('"', at + 12);
    s.replace(at, end - at + 1, "statement: \"the usual GQA formula\"");
    std::ofstream(row, std::ios::trunc) << s;
    LintResult r = lint_paths({dir});
    auto found = prose_findings(r, "kv-statement-mismatch");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].message.find("states no product"), std::string::npos) << found[0].message;
    EXPECT_EQ(found[0].computed, "32 x 8 x 128 x 2 x 2");
    fs::remove_all(dir);
}

TEST(ProseRules, IdContextTagAgreeingPasses) {
    EXPECT_TRUE(lint_paths({fixture("id-context-tag/pass")}).diagnostics.empty());
}

TEST(ProseRules, IdContextTagTrips) {
    LintResult r = lint_paths({fixture("id-context-tag/fail")});
    ASSERT_EQ(r.diagnostics.size(), 1u);
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.rule, "id-context-tag");
    EXPECT_EQ(d.severity, Severity::warning);
    EXPECT_EQ(d.pos.line, 1);
    EXPECT_EQ(d.pos.column, 5);
    EXPECT_EQ(d.stated, "32,768");
    EXPECT_EQ(d.computed, "65,536");
    EXPECT_FALSE(has_errors(r.diagnostics));
}

TEST(ProseRules, SeedZeroExplainsItsContextTag) {
    LintResult r = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    EXPECT_TRUE(r.diagnostics.empty());
    // The shipped records silence other findings too (curve checks they acknowledge); this
    // record's context tag is the one id-context-tag finding among them.
    std::vector<const Diagnostic*> tags;
    for (const auto& d : r.ignored) {
        if (d.rule == "id-context-tag") tags.push_back(&d);
    }
    ASSERT_EQ(tags.size(), 1u);
    EXPECT_NE(tags[0]->message.find("ignored: the id keeps the native 256k tag"), std::string::npos);
}

TEST(ProseRules, SeedFourAsStatedHasThreeWrongSums) {
    LintResult r = lint_paths({fixture("seed-004-as-stated")});
    auto prose = prose_findings(r, "prose-arithmetic");
    ASSERT_EQ(prose.size(), 3u);
    std::set<int> lines;
    std::vector<std::string> computed;
    for (const auto& d : prose) {
        lines.insert(d.pos.line);
        computed.push_back(*d.computed);
    }
    EXPECT_EQ(lines.size(), 3u);  // each at its own line
    EXPECT_EQ(computed, (std::vector<std::string>{"65,536", "262,144", "1,572,864"}));
    EXPECT_EQ(prose[1].message, "64 x 4 x 256 x 2 x 2 = 262,144, not 65,536");
    EXPECT_EQ(prose[2].message, "64 x 24 x 256 x 2 x 2 = 1,572,864, not 393,216");
}

TEST(ProseRules, ShippedRecordsStateCheckedArithmetic) {
    // The shipped prose is full of sums; the recogniser must see them, or the lint proves nothing.
    LintResult r = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    std::size_t claims = 0;
    for (const auto& rec : r.records.records()) {
        for (const auto& c : record_claims(rec)) {
            EXPECT_TRUE(c.claim.holds) << c.pos.file << ":" << c.pos.line << " " << c.claim.text;
            ++claims;
        }
    }
    EXPECT_GE(claims, 14u);  // the claims the shipped prose makes today
}

/// Changing one digit of any stated result in the shipped prose makes the lint fail at that line.
TEST(ProseRules, EveryStatedResultIsGuarded) {
    fs::path dir = fs::temp_directory_path() / ("kvcat-digits-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", dir, fs::copy_options::recursive);
    LintResult clean = lint_paths({dir});
    ASSERT_TRUE(clean.diagnostics.empty());
    std::size_t mutations = 0;
    for (const auto& rec : clean.records.records()) {
        for (const auto& located : record_claims(rec)) {
            // A claim kvcat says it cannot read with certainty is not judged, so nothing guards it.
            if (located.claim.verdict == Claim::Verdict::unjudged) continue;
            for (std::size_t i = 0; i < located.claim.sides.size(); ++i) {
                const ClaimSide& side = located.claim.sides[i];
                if (side.is_expression()) continue;  // a stated result, not a factor list
                std::string text = rec.source->text();
                std::size_t at = located.side_marks[i].offset;
                while (at < text.size() && !std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
                ASSERT_LT(at, text.size());
                // Bump the last digit of the stated number, which keeps its shape and format.
                std::size_t last = at;
                while (last + 1 < text.size() &&
                       (std::isdigit(static_cast<unsigned char>(text[last + 1])) || text[last + 1] == ',' ||
                        (text[last + 1] == '.' && last + 2 < text.size() &&
                         std::isdigit(static_cast<unsigned char>(text[last + 2]))))) {
                    ++last;
                }
                while (!std::isdigit(static_cast<unsigned char>(text[last]))) --last;
                std::string mutated = text;
                mutated[last] = mutated[last] == '9' ? '8' : static_cast<char>(mutated[last] + 1);
                std::ofstream(rec.file, std::ios::binary | std::ios::trunc) << mutated;
                LintResult broken = lint_paths({dir});
                std::ofstream(rec.file, std::ios::binary | std::ios::trunc) << text;
                int line = located.side_marks[i].line;
                bool failed_there = false;
                for (const auto& d : broken.diagnostics) {
                    if (d.severity == Severity::error && d.pos.file == rec.file && d.pos.line == located.pos.line) {
                        failed_there = true;
                    }
                }
                EXPECT_TRUE(failed_there) << rec.file << ":" << line << " digit changed in '" << side.text << "'";
                ++mutations;
            }
        }
    }
    EXPECT_GE(mutations, 14u);
    fs::remove_all(dir);
}

// --- Notes for KB-as-KiB, and silencing one quoted claim --------------------------

/// The pass fixture with `notes` and an optional lint_ignore block in a fresh directory.
struct ProseRecord {
    test::TempDir dir;
    explicit ProseRecord(const std::string& notes, const std::string& ignores = "") {
        fs::copy(fixture("prose-arithmetic/pass"), dir.path(), fs::copy_options::recursive);
        fs::path row = dir / "kv-efficiency/row.yaml";
        std::string s = test::read_file(row);
        auto at = s.find("notes: |");
        auto end = s.find("sources:", at);
        s.replace(at, end - at, "notes: |\n  " + notes + "\n" + ignores);
        test::write_file(row, s);
    }
    LintResult lint() const { return lint_paths({dir.path()}); }
};

TEST(ProseRules, HoldingOnlyWithBinaryUnitsIsANote) {
    ProseRecord rec("32 layers x 16,384 = 512 KB/token, as the thread put it.");
    LintResult r = rec.lint();
    auto found = prose_findings(r, "prose-arithmetic");
    ASSERT_EQ(found.size(), 1u) << test::describe(r.diagnostics);
    EXPECT_EQ(found[0].severity, Severity::note);
    EXPECT_EQ(found[0].message,
              "32 x 16384 = 524 KB/token with decimal units; it holds only with powers of 1024: write KiB for KB");
    EXPECT_FALSE(has_errors(r.diagnostics));
}

// The message keeps the operands' units, shows a power as written, the stated figure whole,
// and the chain a carried line goes on from.
TEST(ProseRules, MessagesShowTheArithmeticAsItReads) {
    const std::pair<const char*, const char*> cases[] = {
        {"One byte: 1 byte x 3 = 1.0 TB.", "1 byte x 3 = 3 bytes, not 1.0 TB"},
        {"Then 4 bytes x 2 = 8 GB.", "4 bytes x 2 = 8 bytes, not 8 GB"},
        {"So 3 x 1024\xC2\xB2 = 4 MiB.", "3 x 1024\xC2\xB2 = 3 MiB, not 4 MiB"},
        {"Per token: 64 \\times 4096 = 262{,}140 bytes.", "64 x 4096 = 262,144, not 262{,}140"},
        {"Per token: $64 \\times 4096 = 262140$.", "64 x 4096 = 262,144, not 262140"},
        {"8 x 128 x 2 = 2,048 bytes\n  x 80 layers = 163,841 bytes", "2048 x 80 = 163,840, not 163,841"},
    };
    for (const auto& [notes, message] : cases) {
        SCOPED_TRACE(notes);
        ProseRecord rec(notes);
        LintResult r = rec.lint();
        auto found = prose_findings(r, "prose-arithmetic");
        ASSERT_EQ(found.size(), 1u) << test::describe(r.diagnostics);
        EXPECT_EQ(found[0].severity, Severity::error);
        EXPECT_EQ(found[0].message, message);
    }
}

// A bare chain a unit step (1000 or 1024) from its figure is not an error; explain says why.
TEST(ProseRules, ABareChainAUnitStepOffIsExplainedNotReported) {
    for (const char* notes : {"From the thread: 960 x 36 = 34.6 MB.", "From the thread: 1000 x 36 = 36.1 MB."}) {
        SCOPED_TRACE(notes);
        ProseRecord rec(notes);
        LintResult r = rec.lint();
        EXPECT_TRUE(prose_findings(r, "prose-arithmetic").empty()) << test::describe(r.diagnostics);
        const Record* row = find_record(r, "kv-efficiency/row");
        ASSERT_NE(row, nullptr);
        nlohmann::json e = explain_record(r, *row);
        const nlohmann::json* quoted = nullptr;
        for (const auto& c : e["claims"]) {
            if (c["field"] == "notes") quoted = &c;
        }
        ASSERT_NE(quoted, nullptr) << e["claims"].dump();
        EXPECT_EQ((*quoted)["verdict"], "unjudged");
        EXPECT_NE((*quoted)["why"].get<std::string>().find("implied"), std::string::npos);
    }
}

TEST(ProseRules, ExplainListsUnjudgedClaimsWithTheReason) {
    ProseRecord rec("From the thread: 8,000 tokens x 1 user -> 1 GB.");
    LintResult r = rec.lint();
    EXPECT_TRUE(prose_findings(r, "prose-arithmetic").empty()) << test::describe(r.diagnostics);
    const Record* row = find_record(r, "kv-efficiency/row");
    ASSERT_NE(row, nullptr);
    nlohmann::json e = explain_record(r, *row);
    const nlohmann::json* unjudged = nullptr;
    for (const auto& c : e["claims"]) {
        if (c["verdict"] == "unjudged") unjudged = &c;
    }
    ASSERT_NE(unjudged, nullptr) << e["claims"].dump();
    EXPECT_NE((*unjudged)["why"].get<std::string>().find("size per token"), std::string::npos);
    std::string text = render_explanation_text(e);
    EXPECT_NE(text.find("1 left unjudged"), std::string::npos) << text;
    EXPECT_NE(text.find("not judged"), std::string::npos) << text;
}

TEST(ProseRules, AQuotedWrongClaimIsSilencedByItsText) {
    const std::string quote = "The paper says 16 x 128 x 2B = 8192B for one layer.";
    ProseRecord plain(quote);
    ASSERT_EQ(prose_findings(plain.lint(), "prose-arithmetic").size(), 1u);

    ProseRecord quoted(quote,
                       "lint_ignore:\n  - rule: prose-arithmetic\n    claim: \"16 x 128 x 2B = 8192B\"\n"
                       "    reason: quoted verbatim from the paper, which is wrong here\n");
    LintResult r = quoted.lint();
    EXPECT_TRUE(r.diagnostics.empty()) << test::describe(r.diagnostics);
    ASSERT_EQ(r.ignored.size(), 1u);
    EXPECT_EQ(r.ignored[0].rule, "prose-arithmetic");
    EXPECT_NE(r.ignored[0].message.find("(ignored: quoted verbatim"), std::string::npos) << r.ignored[0].message;

    // explain marks the claim as silenced, with the reason.
    const Record* rec = find_record(r, "kv-efficiency/row");
    ASSERT_NE(rec, nullptr);
    nlohmann::json e = explain_record(r, *rec);
    bool marked = false;
    for (const auto& c : e["claims"]) marked = marked || c.contains("silenced");
    EXPECT_TRUE(marked) << e["claims"].dump();
    EXPECT_NE(render_explanation_text(e).find("silenced by lint_ignore"), std::string::npos);
}

TEST(ProseRules, AClaimIgnoreSilencesThatClaimOnly) {
    ProseRecord rec("First 16 x 128 x 2B = 8192B, then 2 x 3 = 7.",
                    "lint_ignore:\n  - rule: prose-arithmetic\n    claim: 16 x 128 x 2B = 8192B\n    reason: quoted\n");
    LintResult r = rec.lint();
    auto found = prose_findings(r, "prose-arithmetic");
    ASSERT_EQ(found.size(), 1u) << test::describe(r.diagnostics);
    EXPECT_EQ(found[0].message, "2 x 3 = 6, not 7");
}

TEST(ProseRules, AClaimIgnoreThatMatchesNothingOrAnotherRuleIsReported) {
    ProseRecord stale("Nothing wrong: 2 x 3 = 6.",
                      "lint_ignore:\n  - rule: prose-arithmetic\n    claim: 2 x 3 = 7\n    reason: quoted\n");
    auto stale_found = prose_findings(stale.lint(), "lint-ignore");
    ASSERT_EQ(stale_found.size(), 1u);
    EXPECT_NE(stale_found[0].message.find("silences nothing"), std::string::npos) << stale_found[0].message;

    ProseRecord other("2 x 3 = 6.", "lint_ignore:\n  - rule: id-context-tag\n    claim: 2 x 3 = 6\n    reason: x\n");
    auto other_found = prose_findings(other.lint(), "lint-ignore");
    ASSERT_EQ(other_found.size(), 1u);
    EXPECT_NE(other_found[0].message.find("only for prose-arithmetic"), std::string::npos) << other_found[0].message;

    ProseRecord whole("16 x 128 x 2B = 8192B.",
                      "lint_ignore:\n  - rule: prose-arithmetic\n    reason: no claim named\n");
    LintResult r = whole.lint();
    EXPECT_EQ(prose_findings(r, "prose-arithmetic").size(), 1u);  // the rule as a whole stays an error
    EXPECT_EQ(prose_findings(r, "lint-ignore").size(), 1u);
}

}  // namespace
}  // namespace kvcat
