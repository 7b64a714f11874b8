// Every lint rule has a fixture that passes and one that trips it.
//
// tests/fixtures/<rule-id>/pass/ and tests/fixtures/<rule-id>/fail/ are each a small
// records root (models/, accelerators/, kv-efficiency/). The pass fixture lints with no
// finding of any rule. The fail fixture lints to exactly the findings its expected.txt
// lists, in order, one a line as kvcat prints them:
//
//   kv-efficiency/x.yaml:17:22: error: [kv-dtype-bytes] bytes_per_element is 1, but ... | stated: 1 | computed: 34/32
//   = 1.0625
//
// the path under the fail/ root, line and column (none for a finding about a whole file),
// severity, rule id and message, then the stated and computed figures the finding carries.
// "{fixture}" in a message stands for tests/fixtures/<rule-id> resolved; a message ending in
// "..." is matched up to there. Blank lines and lines starting with # are ignored. The tests
// here by hand are what a fixture cannot say: inputs written at test time (a file over
// 1 MiB, a dangling link, a NUL byte) and what the lint keeps besides its findings. The
// inputs that cannot be committed are listed in kGeneratedAtTestTime, each with its findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "check/lint.h"
#include "check/rule_registry.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::Diagnostic;
using kvcat::LintResult;
using kvcat::RuleInfo;
using kvcat::Severity;
using kvcat::test::copy_tree;
using kvcat::test::describe;
using kvcat::test::find_rule;
using kvcat::test::find_rule_in;
using kvcat::test::fixture_path;
using kvcat::test::rules_in;
using kvcat::test::TempDir;
using kvcat::test::write_file;

// --- Which rules have no committed failing fixture --------------------------------

/// Writes a generated fixture's records root into `dir`: the failing one or the passing one.
void write_too_large_fixture(const fs::path& dir, bool failing);

/// A rule whose failing input is written at test time, the tests that check it in detail,
/// and the writer the fixture tests below use.
struct Generated {
    std::string_view rule;
    std::string_view trips_test;
    std::string_view passes_test;
    void (*write)(const fs::path& dir, bool failing);
    std::string_view expected;  ///< the fail fixture's findings, as an expected.txt would list them
};

/// Kept short on purpose: everything else has a committed fixture.
constexpr Generated kGeneratedAtTestTime[] = {
    // A record over 1 MiB is not something to commit.
    {"file-too-large", "FileTooLargeTrips", "FileTooLargePasses", write_too_large_fixture,
     "accelerators/nvidia-rtx-3090.yaml: error: [file-too-large] the file is 1048577 bytes; a record may be at most "
     "1048576 bytes"},
};

const Generated* generated_for(std::string_view rule) {
    for (const auto& g : kGeneratedAtTestTime) {
        if (g.rule == rule) return &g;
    }
    return nullptr;
}

bool test_exists(std::string_view suite, std::string_view name) {
    const auto* unit = ::testing::UnitTest::GetInstance();
    for (int i = 0; i < unit->total_test_suite_count(); ++i) {
        const auto* s = unit->GetTestSuite(i);
        if (s->name() != suite) continue;
        for (int j = 0; j < s->total_test_count(); ++j) {
            if (s->GetTestInfo(j)->name() == name) return true;
        }
    }
    return false;
}

// --- Helpers ----------------------------------------------------------------------

/// The finding lines of tests/fixtures/<id>/fail/expected.txt (blank and # lines dropped);
/// empty when there is no such file.
std::vector<std::string> expected_findings(const std::string& id) {
    fs::path file = fixture_path(id + "/fail/expected.txt");
    std::vector<std::string> lines;
    if (!fs::is_regular_file(file)) return lines;
    std::istringstream in(kvcat::test::read_file(file));
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line.front() == '#') continue;
        lines.push_back(line);
    }
    return lines;
}

/// A finding as expected.txt writes it: format_text() with the path under the fixture's
/// root, then the figures it carries.
std::string expected_line(const Diagnostic& d, const fs::path& root) {
    Diagnostic shown = d;
    shown.pos.file = kvcat::path_under_root(d.pos.file, root.lexically_normal().generic_string());
    std::string line = format_text(shown);
    if (d.stated) line += " | stated: " + *d.stated;
    if (d.computed) line += " | computed: " + *d.computed;
    return line;
}

/// Whether a finding line is the expected one: "{fixture}" stands for the rule's fixture
/// folder resolved, and a trailing "..." matches the rest of the line.
bool line_matches(const std::string& found, std::string expected, const std::string& id) {
    const std::string folder = fs::weakly_canonical(fixture_path(id)).generic_string();
    for (auto at = expected.find("{fixture}"); at != std::string::npos; at = expected.find("{fixture}", at)) {
        expected.replace(at, 9, folder);
        at += folder.size();
    }
    if (expected.ends_with("...")) {
        expected.resize(expected.size() - 3);
        return found.starts_with(expected);
    }
    return found == expected;
}

LintResult lint_fixture(std::string_view fixture) {
    return kvcat::lint_paths({fixture_path(fixture)});
}

/// The single finding of `rule` in `file` (relative to the fixture's records root),
/// checked for its line and column; nullptr (and a failure) when there is not exactly one.
const Diagnostic* expect_finding(const LintResult& result, std::string_view fixture, std::string_view rule,
                                 std::string_view file, int line, int column) {
    std::string suffix = "/" + std::string(fixture) + "/" + std::string(file);
    auto found = find_rule_in(result.diagnostics, rule, suffix);
    if (found.size() != 1) {
        ADD_FAILURE() << "expected exactly one [" << rule << "] in " << suffix << ", found " << found.size() << ":\n"
                      << describe(result.diagnostics);
        return nullptr;
    }
    const Diagnostic* d = found.front();
    EXPECT_EQ(d->pos.line, line) << format_text(*d);
    EXPECT_EQ(d->pos.column, column) << format_text(*d);
    return d;
}

/// The fixture's findings, leaving out the prose rules, are exactly these rules.
void expect_only_rules(const LintResult& result, std::set<std::string> rules) {
    EXPECT_EQ(rules_in(result.diagnostics), rules) << describe(result.diagnostics);
}

/// The findings, then the notes of what was not judged: what `kvcat lint` prints, in its order.
std::vector<Diagnostic> findings_and_notes(const LintResult& result) {
    std::vector<Diagnostic> all = result.diagnostics;
    all.insert(all.end(), result.notes.begin(), result.notes.end());
    return all;
}

void expect_clean(std::string_view fixture) {
    LintResult result = lint_fixture(fixture);
    EXPECT_FALSE(result.files.empty()) << fixture << " checked no record file";
    EXPECT_TRUE(result.diagnostics.empty()) << fixture << ":\n" << describe(result.diagnostics);
    EXPECT_TRUE(result.notes.empty()) << fixture << ":\n" << describe(result.notes);
}

// A minimal, valid accelerator record; the same as the committed accelerator fixtures.
constexpr std::string_view kAccelerator =
    "id: accelerators/nvidia-rtx-3090\n"
    "vendor: NVIDIA\n"
    "name: GeForce RTX 3090\n"
    "memory_gb: 24\n"
    "memory_type: GDDR6X\n"
    "memory_bus_bits: 384\n"
    "memory_bandwidth_gb_s: 936\n"
    "sources:\n"
    "  - name: NVIDIA GeForce RTX 3090 specifications table\n"
    "    detail: 24 GB GDDR6X, 384-bit interface, 936 GB/s\n"
    "notes: Figures as the vendor's specifications table states them.\n";

constexpr std::string_view kAcceleratorFile = "accelerators/nvidia-rtx-3090.yaml";

std::string replaced(std::string text, std::string_view from, std::string_view to) {
    auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("test text lacks: " + std::string(from));
    text.replace(at, from.size(), to);
    return text;
}

// --- file-unreadable --------------------------------------------------------------

TEST(LintRules, FileUnreadableTripsOnceOnADanglingLink) {
    TempDir dir;
    fs::create_directories(dir / "models");
    fs::create_symlink(dir / "nowhere" / "gone.yaml", dir / "models" / "gone.yaml");
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "file-unreadable");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_TRUE(found[0]->pos.file.ends_with("/models/gone.yaml"));
    EXPECT_EQ(found[0]->pos.line, 0);
    EXPECT_EQ(found[0]->severity, Severity::error);
}

// --- file-outside-root --------------------------------------------------------------

TEST(LintRules, FileOutsideRootTrips) {
    // fail/models/qwen3.5-27b.yaml links to ../../outside/qwen3.5-27b.yaml, a valid model
    // record outside the fail/ root: reported as the link, and nothing of it read.
    LintResult result = lint_fixture("file-outside-root/fail");
    const Diagnostic* d =
        expect_finding(result, "file-outside-root/fail", "file-outside-root", "models/qwen3.5-27b.yaml", 0, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    const std::string target =
        fs::canonical(fixture_path("file-outside-root/outside/qwen3.5-27b.yaml")).generic_string();
    EXPECT_EQ(d->message, "the file resolves to " + target + ", outside the records root " +
                              fs::canonical(fixture_path("file-outside-root/fail")).generic_string() +
                              "; it is not read (a record must be a file inside the root)");
    expect_only_rules(result, {"file-outside-root"});
    // Never read: the record the link leads to is not among the records.
    for (const auto& r : result.records.records()) EXPECT_TRUE(r.id.empty()) << r.id;
}

TEST(LintRules, FileOutsideRootTripsThroughALinkedFolderNamedOnTheCommandLine) {
    TempDir dir;
    fs::create_directories(dir / "records" / "models");
    write_file(dir / "elsewhere" / "secret.yaml", "top-secret-value\n");
    fs::create_directory_symlink(dir / "elsewhere", dir / "records" / "models" / "linked");
    fs::path named = dir / "records" / "models" / "linked" / "secret.yaml";
    LintResult result = kvcat::lint_paths({named});
    auto found = find_rule(result.diagnostics, "file-outside-root");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->pos.file, named.lexically_normal().generic_string());
    for (const auto& d : result.diagnostics) {
        EXPECT_EQ(format_text(d).find("top-secret-value"), std::string::npos) << format_text(d);
    }
    expect_only_rules(result, {"file-outside-root"});
}

TEST(LintRules, FileOutsideRootPasses) {
    // pass/models/qwen3.5-27b.yaml links to ../texts/qwen3.5-27b.txt, inside the root.
    LintResult result = lint_fixture("file-outside-root/pass");
    EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
    ASSERT_NE(result.records.find("models/qwen3.5-27b"), nullptr) << "a link inside the root is read";
}

// --- file-too-large (generated: a committed 1 MiB record is not reasonable) --------

/// The accelerator record padded with one comment line to exactly `size` bytes.
std::string padded_accelerator(std::size_t size) {
    std::string text(kAccelerator);
    text += "#";
    text += std::string(size - text.size() - 1, 'x');
    text += "\n";
    return text;
}

void write_too_large_fixture(const fs::path& dir, bool failing) {
    write_file(dir / kAcceleratorFile, padded_accelerator((1u << 20) + (failing ? 1 : 0)));
}

TEST(LintRules, FileTooLargeTrips) {
    TempDir dir;
    write_too_large_fixture(dir.path(), true);
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "file-too-large");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    const Diagnostic& d = *found[0];
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_TRUE(d.pos.file.ends_with("/" + std::string(kAcceleratorFile))) << d.pos.file;
    EXPECT_EQ(d.pos.line, 0);  // the whole file
    EXPECT_EQ(d.pos.column, 0);
    EXPECT_EQ(d.message, "the file is 1048577 bytes; a record may be at most 1048576 bytes");
    expect_only_rules(result, {"file-too-large"});
}

TEST(LintRules, FileTooLargePasses) {
    TempDir dir;
    write_too_large_fixture(dir.path(), false);  // exactly at the limit
    ASSERT_EQ(fs::file_size(dir / kAcceleratorFile), 1u << 20);
    LintResult result = kvcat::lint_paths({dir.path()});
    EXPECT_EQ(result.files.size(), 1u);
    EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
}

// --- file-empty -------------------------------------------------------------------

TEST(LintRules, FileEmptyTrips) {
    // A file holding only a comment.
    LintResult result = lint_fixture("file-empty/fail");
    const Diagnostic* d = expect_finding(result, "file-empty/fail", "file-empty", kAcceleratorFile, 0, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "the file holds no YAML document; expected one mapping with an id");
    expect_only_rules(result, {"file-empty"});

    // And a file of zero bytes.
    TempDir dir;
    write_file(dir / kAcceleratorFile, "");
    LintResult zero = kvcat::lint_paths({dir.path()});
    auto found = find_rule(zero.diagnostics, "file-empty");
    ASSERT_EQ(found.size(), 1u) << describe(zero.diagnostics);
    EXPECT_EQ(found[0]->pos.line, 0);
    expect_only_rules(zero, {"file-empty"});
}

// --- yaml-encoding ----------------------------------------------------------------

TEST(LintRules, YamlEncodingTripsOnANulByte) {
    TempDir dir;
    // "name: GeForce" is 13 characters, so the NUL is line 3, column 14.
    std::string text =
        replaced(std::string(kAccelerator), "name: GeForce RTX 3090", std::string("name: GeForce\0RTX 3090", 22));
    ASSERT_EQ(text.find('\0'), text.find("name: ") + 13);
    write_file(dir / kAcceleratorFile, text);
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "yaml-encoding");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->severity, Severity::error);
    EXPECT_EQ(found[0]->pos.line, 3);
    EXPECT_EQ(found[0]->pos.column, 14);
    EXPECT_EQ(found[0]->message, "a NUL byte; a record is UTF-8 text");
    expect_only_rules(result, {"yaml-encoding"});
}

TEST(LintRules, YamlEncodingPasses) {
    expect_clean("yaml-encoding/pass");  // holds a U+2019 apostrophe, as UTF-8

    // CRLF line ends are clean text too.
    TempDir dir;
    std::string text = kvcat::test::read_file(fixture_path("yaml-encoding/pass") / kAcceleratorFile);
    std::string crlf;
    for (char c : text) {
        if (c == '\n') crlf += '\r';
        crlf += c;
    }
    write_file(dir / kAcceleratorFile, crlf);
    LintResult result = kvcat::lint_paths({dir.path()});
    EXPECT_TRUE(result.diagnostics.empty()) << describe(result.diagnostics);
}

// --- yaml-syntax ------------------------------------------------------------------

TEST(LintRules, YamlSyntaxTripsOnAnUnclosedQuote) {
    TempDir dir;
    // The quote opens at line 11, column 8.
    write_file(dir / kAcceleratorFile,
               replaced(std::string(kAccelerator), "notes: Figures as the vendor's specifications table states them.",
                        "notes: \"Figures as the vendor's specifications table states them."));
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "yaml-syntax");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->pos.line, 11);
    EXPECT_EQ(found[0]->pos.column, 8);
}

// --- yaml-multiple-documents ------------------------------------------------------

TEST(LintRules, YamlMultipleDocumentsPointsAtADocumentAfterAnEndMarker) {
    TempDir dir;
    // 11 lines of record, "..." at line 12, the second document from line 13.
    write_file(dir / kAcceleratorFile, std::string(kAccelerator) + "...\n" + std::string(kAccelerator));
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "yaml-multiple-documents");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->pos.line, 13);
    EXPECT_EQ(found[0]->pos.column, 1);
}

// --- schema-not-mapping -----------------------------------------------------------

TEST(LintRules, SchemaMessagesSayAnAccelerator) {
    LintResult result = lint_fixture("schema-not-mapping/fail");
    auto found = find_rule(result.diagnostics, "schema-not-mapping");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->message, "an accelerator record (found a list) must be a mapping of keys to values");

    TempDir dir;
    write_file(dir / kAcceleratorFile, replaced(std::string(kAccelerator), "memory_bus_bits:", "memory_bus_bit:"));
    LintResult unknown = kvcat::lint_paths({dir.path()});
    auto key = find_rule(unknown.diagnostics, "schema-unknown-key");
    ASSERT_EQ(key.size(), 1u) << describe(unknown.diagnostics);
    EXPECT_EQ(key[0]->message,
              "unknown key 'memory_bus_bit' in an accelerator record; did you mean 'memory_bus_bits'?");
}

TEST(LintRules, SchemaNotMappingTripsOnANestedObject) {
    TempDir dir;
    copy_tree(fixture_path("kv-basis-product/pass"), dir.path());
    fs::path kv = dir / "kv-efficiency/llamacpp-qwen35-27b-64k.yaml";
    std::string text = kvcat::test::read_file(kv);
    auto start = text.find("kv_bytes_basis:\n");
    auto end = text.find("measured_tps_at_ctx:");
    ASSERT_NE(start, std::string::npos);
    text.replace(start, end - start, "kv_bytes_basis: 65536\n");  // line 12, value at column 17
    write_file(kv, text);
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "schema-not-mapping");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->pos.line, 12);
    EXPECT_EQ(found[0]->pos.column, 17);
}

// --- schema-value -----------------------------------------------------------------

TEST(LintRules, ModelLayersStaysQuietWhenNumLayersIsInvalid) {
    LintResult result = lint_fixture("schema-value/fail");
    expect_only_rules(result, {"schema-value"});

    TempDir dir;
    std::string model = kvcat::test::read_file(fixture_path("schema-value/pass/models/qwen3.5-27b.yaml"));
    write_file(dir / "models/qwen3.5-27b.yaml", replaced(model, "num_layers: 64\n", ""));
    LintResult missing = kvcat::lint_paths({dir.path()});
    expect_only_rules(missing, {"schema-missing-key"});
}

// --- model-layers -----------------------------------------------------------------

TEST(LintRules, ModelLayersMessageUsesOrdinals) {
    TempDir dir;
    std::string model = kvcat::test::read_file(fixture_path("model-layers/pass/models/qwen3.5-27b.yaml"));
    model = replaced(model, "  count: 16\n  interval: 4\n  first_index: 3\n",
                     "  count: 30\n  interval: 2\n  first_index: 1\n");
    write_file(dir / "models/qwen3.5-27b.yaml", model);
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "model-layers");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->message.find("2th"), std::string::npos) << found[0]->message;
    EXPECT_NE(found[0]->message.find("every 2nd"), std::string::npos) << found[0]->message;
}

// --- lint-ignore ------------------------------------------------------------------

TEST(LintRules, LintIgnoreTrips) {
    constexpr std::string_view kFixture = "lint-ignore/fail";
    constexpr std::string_view k64k = "kv-efficiency/llamacpp-qwen35-27b-64k.yaml";
    constexpr std::string_view k1m = "kv-efficiency/llamacpp-qwen35-27b-1m.yaml";
    LintResult result = lint_fixture(kFixture);
    // Each finding is at its lint_ignore item: "  - rule: ..." puts the item at column 5.
    auto in_64k = find_rule_in(result.diagnostics, "lint-ignore", "/lint-ignore/fail/" + std::string(k64k));
    ASSERT_EQ(in_64k.size(), 3u) << describe(result.diagnostics);
    EXPECT_EQ(in_64k[0]->pos.line, 32);
    EXPECT_EQ(in_64k[0]->pos.column, 5);
    EXPECT_EQ(in_64k[0]->message, "lint_ignore names 'kv-basis-product', an error; only warnings can be silenced");
    EXPECT_EQ(in_64k[1]->pos.line, 34);
    EXPECT_EQ(in_64k[1]->pos.column, 5);
    EXPECT_EQ(
        in_64k[1]->message,
        "lint_ignore names rule 'context-above-nativ', which does not exist; did you mean 'context-above-native'?");
    EXPECT_EQ(in_64k[2]->pos.line, 36);
    EXPECT_EQ(in_64k[2]->pos.column, 5);
    EXPECT_EQ(in_64k[2]->message,
              "lint_ignore for 'context-above-native' silences nothing: the rule no longer fires here");
    for (const Diagnostic* d : in_64k) EXPECT_EQ(d->severity, Severity::warning);

    // An entry without a reason silences nothing, and says so.
    const Diagnostic* no_reason = expect_finding(result, kFixture, "lint-ignore", k1m, 32, 5);
    ASSERT_NE(no_reason, nullptr);
    EXPECT_EQ(no_reason->severity, Severity::warning);
    EXPECT_EQ(no_reason->message, "lint_ignore for 'context-above-native' gives no reason");
    EXPECT_EQ(find_rule_in(result.diagnostics, "context-above-native", "/lint-ignore/fail/" + std::string(k1m)).size(),
              1u);
    EXPECT_TRUE(result.ignored.empty()) << describe(result.ignored);
    // The schema requires the reason too.
    expect_only_rules(result, {"lint-ignore", "schema-missing-key", "context-above-native"});
}

TEST(LintRules, LintIgnorePasses) {
    // context-above-native is silenced with a reason: no finding, one note in `ignored`.
    expect_clean("lint-ignore/pass");
    LintResult result = lint_fixture("lint-ignore/pass");
    ASSERT_EQ(result.ignored.size(), 1u) << describe(result.ignored);
    EXPECT_EQ(result.ignored[0].rule, "context-above-native");
    EXPECT_EQ(result.ignored[0].severity, Severity::note);
}

// --- Seed record 004, as the seed stated it ---------------------------------------

TEST(LintRules, Seed004AsStatedFailsOnKvBasisProduct) {
    // kv_bytes_per_token 16384 under factors 16 x 4 x 256 x 2 x 2. Line 12 (after the
    // schema comment): "kv_bytes_per_token: 16384", the value at column 21.
    LintResult result = lint_fixture("seed-004-as-stated");
    EXPECT_TRUE(kvcat::has_errors(result.diagnostics));
    const Diagnostic* d = expect_finding(result, "seed-004-as-stated", "kv-basis-product",
                                         "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml", 12, 21);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384");
    EXPECT_EQ(d->computed, "65,536");
    EXPECT_EQ(d->stated, "16,384");
    // The model and accelerator it names are the shipped ones and are clean. The seed, as
    // first written, gave no card count either (its prose says one RTX 3090).
    expect_only_rules(result, {"kv-basis-product", "measured-without-card-count"});
}

// --- One bad record never hides the others ----------------------------------------

TEST(LintRules, OneBadRecordNeverHidesTheOthers) {
    // One good model, and three bad files that fail at three different stages: the YAML
    // parser, the schema, and a cross-record rule.
    constexpr std::string_view kFixture = "one-bad-never-hides-others";
    LintResult result = lint_fixture(kFixture);
    EXPECT_EQ(result.files.size(), 4u);
    const Diagnostic* syntax = expect_finding(result, kFixture, "yaml-syntax", kAcceleratorFile, 11, 37);
    const Diagnostic* type =
        expect_finding(result, kFixture, "schema-type", "kv-efficiency/llamacpp-qwen35-27b-32k.yaml", 9, 17);
    const Diagnostic* variant = expect_finding(result, kFixture, "attention-variant-mismatch",
                                               "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 8, 20);
    EXPECT_NE(syntax, nullptr);
    EXPECT_NE(type, nullptr);
    EXPECT_NE(variant, nullptr);
    std::vector<Diagnostic> structural;
    for (const auto& d : result.diagnostics) {
        if (!kvcat::test::is_prose_rule(d.rule)) structural.push_back(d);
    }
    EXPECT_EQ(structural.size(), 3u) << describe(result.diagnostics);
    for (const auto& d : result.diagnostics) {
        EXPECT_FALSE(d.pos.file.ends_with("/models/qwen3.5-27b.yaml")) << format_text(d);
    }
}

TEST(LintRules, OneBadEntryNeverHidesTheOthersEvenADirectory) {
    TempDir dir;
    copy_tree(fixture_path("one-bad-never-hides-others"), dir.path());
    fs::create_directories(dir / "models" / "qwen3.5-9b.yaml");
    LintResult result;
    ASSERT_NO_THROW(result = kvcat::lint_paths({dir.path()}));
    EXPECT_EQ(rules_in(result.diagnostics),
              (std::set<std::string>{"file-unreadable", "yaml-syntax", "schema-type", "attention-variant-mismatch"}))
        << describe(result.diagnostics);
}

// --- Every rule has its fixtures --------------------------------------------------

TEST(LintRules, EveryRuleHasAPassAndAFailFixture) {
    std::vector<std::string> missing;
    for (const RuleInfo& rule : kvcat::all_rules()) {
        std::string id(rule.id);
        if (const Generated* g = generated_for(id)) {
            for (std::string_view test : {g->trips_test, g->passes_test}) {
                if (!test_exists("LintRules", test)) {
                    missing.push_back(id + ": listed as generated at test time, but LintRules." + std::string(test) +
                                      " does not exist");
                }
            }
            continue;
        }
        for (const char* side : {"pass", "fail"}) {
            if (!fs::is_directory(fixture_path(id + "/" + side))) {
                missing.push_back(id + ": no tests/fixtures/" + id + "/" + side + "/");
            }
        }
        std::vector<std::string> expected = expected_findings(id);
        bool names_it = std::any_of(expected.begin(), expected.end(), [&](const std::string& line) {
            return line.find("[" + id + "]") != std::string::npos;
        });
        if (!names_it) {
            missing.push_back(id + ": tests/fixtures/" + id + "/fail/expected.txt lists no [" + id + "] finding");
        }
    }
    // A fixture with expected findings belongs to a rule of the registry (a renamed rule
    // leaves none behind).
    for (const auto& entry : fs::directory_iterator(fixture_path(""))) {
        std::string name = entry.path().filename().string();
        if (fs::exists(entry.path() / "fail" / "expected.txt") && !kvcat::test::rule_info(name)) {
            missing.push_back(name + ": tests/fixtures/" + name + "/fail/expected.txt, but no rule of that id");
        }
    }
    // The generated list names real rules only.
    for (const auto& g : kGeneratedAtTestTime) {
        if (!kvcat::test::rule_info(g.rule)) {
            missing.push_back(std::string(g.rule) + ": in kGeneratedAtTestTime but not a rule in all_rules()");
        }
    }
    std::string report;
    for (const auto& m : missing) report += "  " + m + "\n";
    EXPECT_TRUE(missing.empty()) << "rules without fixtures:\n" << report;
}

// Every committed fixture, whoever wrote it, is linted: pass is clean, fail trips its rule
// and gives exactly the findings of its expected.txt.
class RuleFixture : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> rule_ids() {
    std::vector<std::string> ids;
    for (const RuleInfo& rule : kvcat::all_rules()) ids.emplace_back(rule.id);
    return ids;
}

/// The fixture's records root: committed, or written now into `scratch` for a generated rule.
fs::path fixture_root(const std::string& id, const std::string& side, const TempDir& scratch) {
    if (const Generated* g = generated_for(id)) {
        EXPECT_TRUE(test_exists("LintRules", g->trips_test)) << id << ": no test LintRules." << g->trips_test;
        EXPECT_TRUE(test_exists("LintRules", g->passes_test)) << id << ": no test LintRules." << g->passes_test;
        g->write(scratch.path(), side == "fail");
        return scratch.path();
    }
    return fixture_path(id + "/" + side);
}

TEST_P(RuleFixture, PassFixtureIsClean) {
    const std::string& id = GetParam();
    TempDir scratch;
    fs::path dir = fixture_root(id, "pass", scratch);
    ASSERT_TRUE(fs::is_directory(dir)) << id << ": no pass fixture at " << dir;
    LintResult result;
    ASSERT_NO_THROW(result = kvcat::lint_paths({dir})) << id;
    EXPECT_FALSE(result.files.empty()) << id << ": the pass fixture holds no record";
    EXPECT_TRUE(result.diagnostics.empty()) << id << ":\n" << describe(result.diagnostics);
    EXPECT_TRUE(result.notes.empty()) << id << ":\n" << describe(result.notes);
}

TEST_P(RuleFixture, FailFixtureTripsItsRule) {
    const std::string& id = GetParam();
    TempDir scratch;
    fs::path dir = fixture_root(id, "fail", scratch);
    ASSERT_TRUE(fs::is_directory(dir)) << id << ": no fail fixture at " << dir;
    LintResult result;
    ASSERT_NO_THROW(result = kvcat::lint_paths({dir})) << id;
    std::vector<Diagnostic> all = findings_and_notes(result);
    auto found = find_rule(all, id);
    ASSERT_FALSE(found.empty()) << id << " does not fire on its fail fixture:\n" << describe(all);
    const RuleInfo* info = kvcat::test::rule_info(id);
    ASSERT_NE(info, nullptr);
    for (const Diagnostic* d : found) {
        EXPECT_EQ(d->severity, info->severity) << format_text(*d);
        EXPECT_FALSE(d->message.empty()) << format_text(*d);
        EXPECT_TRUE(d->pos.file.starts_with(dir.lexically_normal().generic_string())) << format_text(*d);
    }
}

TEST_P(RuleFixture, FailFixtureGivesItsExpectedFindings) {
    const std::string& id = GetParam();
    TempDir scratch;
    fs::path dir = fixture_root(id, "fail", scratch);
    ASSERT_TRUE(fs::is_directory(dir)) << id << ": no fail fixture at " << dir;
    const Generated* g = generated_for(id);
    std::vector<std::string> expected = g ? std::vector<std::string>{std::string(g->expected)} : expected_findings(id);
    ASSERT_FALSE(expected.empty()) << id << ": " << (dir / "expected.txt") << " lists no finding";
    LintResult result;
    ASSERT_NO_THROW(result = kvcat::lint_paths({dir})) << id;
    std::vector<std::string> found;
    for (const auto& d : findings_and_notes(result)) found.push_back(expected_line(d, dir));
    bool same = found.size() == expected.size();
    for (std::size_t i = 0; same && i < found.size(); ++i) same = line_matches(found[i], expected[i], id);
    std::string now;
    for (const auto& line : found) now += line + "\n";
    std::string wanted;
    for (const auto& line : expected) wanted += line + "\n";
    EXPECT_TRUE(same) << id << ": the fail fixture's findings differ from " << (dir / "expected.txt").generic_string()
                      << "\nexpected:\n"
                      << wanted << "found (check each before it goes into expected.txt):\n"
                      << now;
}

INSTANTIATE_TEST_SUITE_P(LintRules, RuleFixture, ::testing::ValuesIn(rule_ids()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                             std::string name = param_info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

}  // namespace
