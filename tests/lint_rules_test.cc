// Every lint rule has a fixture that passes and one that trips it.
//
// tests/fixtures/<rule-id>/pass/ and tests/fixtures/<rule-id>/fail/ are each a small
// records root (models/, accelerators/, kv-efficiency/). A pass fixture lints with no
// finding of any rule; a fail fixture produces its rule, and the test for it asserts
// the rule id, the severity, the file, the 1-based line and column of the offending
// value (counted by hand from the fixture text) and, where the rule carries them, the
// figures. The few failing inputs that cannot be committed (a file over 1 MiB) are
// written at test time and listed in kGeneratedAtTestTime.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostic.h"
#include "lint.h"
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
};

/// Kept short on purpose: everything else has a committed fixture.
constexpr Generated kGeneratedAtTestTime[] = {
    // A record over 1 MiB is not something to commit.
    {"file-too-large", "FileTooLargeTrips", "FileTooLargePasses", write_too_large_fixture},
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

LintResult lint_fixture(std::string_view fixture) { return kvcat::lint_paths({fixture_path(fixture)}); }

/// The single finding of `rule` in `file` (relative to the fixture's records root),
/// checked for its line and column; nullptr (and a failure) when there is not exactly one.
const Diagnostic* expect_finding(const LintResult& result, std::string_view fixture, std::string_view rule,
                                 std::string_view file, int line, int column) {
    std::string suffix = "/" + std::string(fixture) + "/" + std::string(file);
    auto found = find_rule_in(result.diagnostics, rule, suffix);
    if (found.size() != 1) {
        ADD_FAILURE() << "expected exactly one [" << rule << "] in " << suffix << ", found " << found.size()
                      << ":\n"
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

void expect_clean(std::string_view fixture) {
    LintResult result = lint_fixture(fixture);
    EXPECT_FALSE(result.files.empty()) << fixture << " checked no record file";
    EXPECT_TRUE(result.diagnostics.empty()) << fixture << ":\n" << describe(result.diagnostics);
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

TEST(LintRules, FileUnreadableTrips) {
    // fail/models/qwen3.5-27b.yaml/ is a directory (holding a README.txt so git keeps it).
    LintResult result;
    ASSERT_NO_THROW(result = lint_fixture("file-unreadable/fail"));
    const Diagnostic* d =
        expect_finding(result, "file-unreadable/fail", "file-unreadable", "models/qwen3.5-27b.yaml", 0, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "cannot read the file: a directory named like a record; a record is a file");
    expect_only_rules(result, {"file-unreadable"});
}

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

TEST(LintRules, FileUnreadablePasses) { expect_clean("file-unreadable/pass"); }

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

TEST(LintRules, FileEmptyPasses) { expect_clean("file-empty/pass"); }

// --- yaml-encoding ----------------------------------------------------------------

TEST(LintRules, YamlEncodingTrips) {
    // Line 11 is "notes: Figures as NVIDIA\x92s ...": a Windows-1252 apostrophe, byte 25 of the line.
    LintResult result = lint_fixture("yaml-encoding/fail");
    const Diagnostic* d = expect_finding(result, "yaml-encoding/fail", "yaml-encoding", kAcceleratorFile, 11, 25);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "byte 0x92 is not valid UTF-8; a record is UTF-8 text");
    expect_only_rules(result, {"yaml-encoding"});
}

TEST(LintRules, YamlEncodingTripsOnANulByte) {
    TempDir dir;
    // "name: GeForce" is 13 characters, so the NUL is line 3, column 14.
    std::string text = replaced(std::string(kAccelerator), "name: GeForce RTX 3090", std::string("name: GeForce\0RTX 3090", 22));
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

TEST(LintRules, YamlSyntaxTrips) {
    // Line 11: "notes: Figures as NVIDIA states them: 24 GB at 936 GB/s." The second ": " is
    // column 37 ("notes: " is 7 characters, "Figures as NVIDIA states them" 29).
    LintResult result = lint_fixture("yaml-syntax/fail");
    const Diagnostic* d = expect_finding(result, "yaml-syntax/fail", "yaml-syntax", kAcceleratorFile, 11, 37);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_TRUE(d->message.starts_with("YAML does not parse: ")) << d->message;
    EXPECT_NE(d->message.find("illegal map value"), std::string::npos) << d->message;
    expect_only_rules(result, {"yaml-syntax"});
}

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

TEST(LintRules, YamlSyntaxPasses) { expect_clean("yaml-syntax/pass"); }

// --- yaml-duplicate-key -----------------------------------------------------------

TEST(LintRules, YamlDuplicateKeyTrips) {
    // memory_gb at line 4, again at line 8.
    LintResult result = lint_fixture("yaml-duplicate-key/fail");
    const Diagnostic* d =
        expect_finding(result, "yaml-duplicate-key/fail", "yaml-duplicate-key", kAcceleratorFile, 8, 1);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "key 'memory_gb' appears twice (first at line 4); a key may appear once");
    expect_only_rules(result, {"yaml-duplicate-key"});
}

TEST(LintRules, YamlDuplicateKeyPasses) { expect_clean("yaml-duplicate-key/pass"); }

// --- yaml-alias -------------------------------------------------------------------

TEST(LintRules, YamlAliasTrips) {
    // Line 2 "model: &measured models/qwen3.5-27b" (the anchor at column 8) and line 11
    // "measured_on_model: *measured" (the alias at column 20).
    constexpr std::string_view kFixture = "yaml-alias/fail";
    constexpr std::string_view kFile = "kv-efficiency/llamacpp-qwen35-27b-64k.yaml";
    LintResult result = lint_fixture(kFixture);
    auto found = find_rule_in(result.diagnostics, "yaml-alias", "/" + std::string(kFixture) + "/" + std::string(kFile));
    ASSERT_EQ(found.size(), 2u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->pos.line, 2);
    EXPECT_EQ(found[0]->pos.column, 8);
    EXPECT_EQ(found[1]->pos.line, 11);
    EXPECT_EQ(found[1]->pos.column, 20);
    for (const Diagnostic* d : found) {
        EXPECT_EQ(d->severity, Severity::error);
        EXPECT_EQ(d->message, "anchors and aliases are not allowed in records; write the value out");
    }
    expect_only_rules(result, {"yaml-alias"});
}

TEST(LintRules, YamlAliasPasses) { expect_clean("yaml-alias/pass"); }

// --- yaml-too-deep ----------------------------------------------------------------

TEST(LintRules, YamlTooDeepTrips) {
    // Line 11: "notes: " then 32 '['. With the record's own mapping, the 32nd '[' (column
    // 8 + 31 = 39) is the 33rd level, one past the limit.
    LintResult result = lint_fixture("yaml-too-deep/fail");
    const Diagnostic* d = expect_finding(result, "yaml-too-deep/fail", "yaml-too-deep", kAcceleratorFile, 11, 39);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "nesting deeper than 32 levels; no record needs that");
    expect_only_rules(result, {"yaml-too-deep"});
}

TEST(LintRules, YamlTooDeepPasses) { expect_clean("yaml-too-deep/pass"); }

// --- yaml-multiple-documents ------------------------------------------------------

TEST(LintRules, YamlMultipleDocumentsTrips) {
    // Line 1 "---" opens the record (allowed); its 11 lines follow; line 13 "---" opens a second one.
    LintResult result = lint_fixture("yaml-multiple-documents/fail");
    const Diagnostic* d = expect_finding(result, "yaml-multiple-documents/fail", "yaml-multiple-documents",
                                         kAcceleratorFile, 13, 1);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "a second YAML document; a record file holds exactly one");
    expect_only_rules(result, {"yaml-multiple-documents"});
}

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

TEST(LintRules, YamlMultipleDocumentsPasses) { expect_clean("yaml-multiple-documents/pass"); }

// --- record-kind ------------------------------------------------------------------

TEST(LintRules, RecordKindTrips) {
    LintResult result = lint_fixture("record-kind/fail");
    const Diagnostic* d = expect_finding(result, "record-kind/fail", "record-kind", "gpus/nvidia-rtx-3090.yaml", 0, 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "records must live under models/, accelerators/ or kv-efficiency/, not 'gpus'");
    expect_only_rules(result, {"record-kind"});
}

TEST(LintRules, RecordKindPasses) { expect_clean("record-kind/pass"); }

// --- schema-not-mapping -----------------------------------------------------------

TEST(LintRules, SchemaNotMappingTrips) {
    // The record written as a one-item list: the list starts at line 1, column 1.
    LintResult result = lint_fixture("schema-not-mapping/fail");
    const Diagnostic* d =
        expect_finding(result, "schema-not-mapping/fail", "schema-not-mapping", kAcceleratorFile, 1, 1);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_NE(d->message.find("record (found a list) must be a mapping of keys to values"), std::string::npos)
        << d->message;
    expect_only_rules(result, {"schema-not-mapping"});
}

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

TEST(LintRules, SchemaNotMappingPasses) { expect_clean("schema-not-mapping/pass"); }

// --- schema-missing-key -----------------------------------------------------------

TEST(LintRules, SchemaMissingKeyTrips) {
    constexpr std::string_view kFixture = "schema-missing-key/fail";
    LintResult result = lint_fixture(kFixture);
    auto in_kv = find_rule_in(result.diagnostics, "schema-missing-key",
                              "/schema-missing-key/fail/kv-efficiency/llamacpp-qwen35-27b-64k.yaml");
    ASSERT_EQ(in_kv.size(), 1u) << describe(result.diagnostics);
    // A missing key is reported at the mapping that lacks it: the record, line 1, column 1.
    EXPECT_EQ(in_kv[0]->pos.line, 1);
    EXPECT_EQ(in_kv[0]->pos.column, 1);
    EXPECT_EQ(in_kv[0]->severity, Severity::error);
    EXPECT_EQ(in_kv[0]->message,
              "required key 'measured_tps_at_ctx' is missing (expected a number or null); if the source did not "
              "report it, write 'measured_tps_at_ctx: null'");

    // A GQA model without head_dim: the model rule reports it at attention_variant (line 9, column 20).
    const Diagnostic* d =
        expect_finding(result, kFixture, "schema-missing-key", "models/example-gqa-8b.yaml", 9, 20);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message,
              "required key 'head_dim' is missing (expected the elements per head, for a model that caches K and V)");
    expect_only_rules(result, {"schema-missing-key"});
}

TEST(LintRules, SchemaMissingKeyPasses) { expect_clean("schema-missing-key/pass"); }

// --- schema-type ------------------------------------------------------------------

TEST(LintRules, SchemaTypeTrips) {
    // Line 9: "context_length: 64k", the value at column 17.
    LintResult result = lint_fixture("schema-type/fail");
    const Diagnostic* d = expect_finding(result, "schema-type/fail", "schema-type",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 9, 17);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "'context_length' must be a whole number, found '64k'; write 65536 (a record spells numbers out)");
    expect_only_rules(result, {"schema-type"});
}

TEST(LintRules, SchemaTypePasses) { expect_clean("schema-type/pass"); }

// --- schema-unknown-key -----------------------------------------------------------

TEST(LintRules, SchemaUnknownKeyTrips) {
    // Line 5: "engine_verison: null"; an unknown key is reported at the key, column 1.
    LintResult result = lint_fixture("schema-unknown-key/fail");
    const Diagnostic* d = expect_finding(result, "schema-unknown-key/fail", "schema-unknown-key",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 5, 1);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message,
              "unknown key 'engine_verison' in a kv-efficiency record; did you mean 'engine_version'?");
    expect_only_rules(result, {"schema-unknown-key"});
}

TEST(LintRules, SchemaUnknownKeyPasses) { expect_clean("schema-unknown-key/pass"); }

// --- schema-enum ------------------------------------------------------------------

TEST(LintRules, SchemaEnumTrips) {
    // Line 7: "kv_cache_dtype: bf-16", the value at column 17.
    LintResult result = lint_fixture("schema-enum/fail");
    const Diagnostic* d = expect_finding(result, "schema-enum/fail", "schema-enum",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 7, 17);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message,
              "'bf-16' is not a valid kv_cache_dtype; did you mean 'bf16'? (one of: f32, fp32, f16, fp16, bf16, fp8, "
              "fp8_e4m3, fp8_e5m2, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl)");
    expect_only_rules(result, {"schema-enum"});
}

TEST(LintRules, SchemaEnumPasses) { expect_clean("schema-enum/pass"); }

// --- schema-value -----------------------------------------------------------------

TEST(LintRules, SchemaValueTrips) {
    // Line 8: "num_layers: 0", the value at column 13.
    LintResult result = lint_fixture("schema-value/fail");
    const Diagnostic* d =
        expect_finding(result, "schema-value/fail", "schema-value", "models/qwen3.5-27b.yaml", 8, 13);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "'num_layers' must be greater than zero, found 0");
}

TEST(LintRules, ModelLayersStaysQuietWhenNumLayersIsInvalid) {
    LintResult result = lint_fixture("schema-value/fail");
    expect_only_rules(result, {"schema-value"});

    TempDir dir;
    std::string model = kvcat::test::read_file(fixture_path("schema-value/pass/models/qwen3.5-27b.yaml"));
    write_file(dir / "models/qwen3.5-27b.yaml", replaced(model, "num_layers: 64\n", ""));
    LintResult missing = kvcat::lint_paths({dir.path()});
    expect_only_rules(missing, {"schema-missing-key"});
}

TEST(LintRules, SchemaValuePasses) { expect_clean("schema-value/pass"); }

// --- id-path-mismatch -------------------------------------------------------------

TEST(LintRules, IdPathMismatchTrips) {
    // Line 1: "id: accelerators/rtx-3090", the value at column 5.
    LintResult result = lint_fixture("id-path-mismatch/fail");
    const Diagnostic* d = expect_finding(result, "id-path-mismatch/fail", "id-path-mismatch", kAcceleratorFile, 1, 5);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message,
              "id 'accelerators/rtx-3090' does not match the file's path; expected 'accelerators/nvidia-rtx-3090'");
    EXPECT_EQ(d->stated, "accelerators/rtx-3090");
    EXPECT_EQ(d->computed, "accelerators/nvidia-rtx-3090");
    expect_only_rules(result, {"id-path-mismatch"});
}

TEST(LintRules, IdPathMismatchPasses) { expect_clean("id-path-mismatch/pass"); }

// --- id-duplicate -----------------------------------------------------------------

TEST(LintRules, IdDuplicateTrips) {
    // nvidia-rtx-4090.yaml was copied from the 3090 and kept its id (line 1, column 5).
    LintResult result = lint_fixture("id-duplicate/fail");
    const Diagnostic* d = expect_finding(result, "id-duplicate/fail", "id-duplicate",
                                         "accelerators/nvidia-rtx-4090.yaml", 1, 5);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_TRUE(d->message.starts_with("id 'accelerators/nvidia-rtx-3090' is also used by ")) << d->message;
    EXPECT_TRUE(d->message.ends_with("/id-duplicate/fail/accelerators/nvidia-rtx-3090.yaml")) << d->message;
    // The original is told too: which copy is meant is the author's call, not the file order's.
    auto original = find_rule_in(result.diagnostics, "id-duplicate", "/nvidia-rtx-3090.yaml");
    ASSERT_EQ(original.size(), 1u);
    EXPECT_TRUE(original[0]->message.ends_with("/id-duplicate/fail/accelerators/nvidia-rtx-4090.yaml"))
        << original[0]->message;
    // The copy's id also disagrees with its path.
    expect_only_rules(result, {"id-duplicate", "id-path-mismatch"});
}

TEST(LintRules, IdDuplicatePasses) { expect_clean("id-duplicate/pass"); }

// --- ref-unresolved ---------------------------------------------------------------

TEST(LintRules, RefUnresolvedTrips) {
    // Line 2: "model: models/qwen3.5-27B", the value at column 8.
    LintResult result = lint_fixture("ref-unresolved/fail");
    const Diagnostic* d = expect_finding(result, "ref-unresolved/fail", "ref-unresolved",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 2, 8);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "model 'models/qwen3.5-27B' names no model record; did you mean 'models/qwen3.5-27b'?");
    expect_only_rules(result, {"ref-unresolved"});
}

TEST(LintRules, RefUnresolvedPasses) { expect_clean("ref-unresolved/pass"); }

// --- model-layers -----------------------------------------------------------------

TEST(LintRules, ModelLayersTrips) {
    // Both reported at the kv_layers mapping, whose first key is line 14, column 3.
    constexpr std::string_view kFixture = "model-layers/fail";
    LintResult result = lint_fixture(kFixture);
    // count 16, but one in 4 from index 3 over 60 layers is 15.
    const Diagnostic* interval = expect_finding(result, kFixture, "model-layers", "models/qwen3.5-27b.yaml", 14, 3);
    ASSERT_NE(interval, nullptr);
    EXPECT_EQ(interval->severity, Severity::error);
    EXPECT_EQ(interval->message, "kv_layers.count is 16, but every 4th of 60 layers from index 3 is 15");
    // 10 full-attention + 29 linear layers is not 40.
    const Diagnostic* sum = expect_finding(result, kFixture, "model-layers", "models/qwen3.5-35b-a3b.yaml", 14, 3);
    ASSERT_NE(sum, nullptr);
    EXPECT_EQ(sum->severity, Severity::error);
    EXPECT_EQ(sum->message, "10 KV-caching + 0 sliding + 29 linear layers = 39, but num_layers is 40");
    expect_only_rules(result, {"model-layers"});
}

TEST(LintRules, ModelLayersMessageUsesOrdinals) {
    TempDir dir;
    std::string model = kvcat::test::read_file(fixture_path("model-layers/pass/models/qwen3.5-27b.yaml"));
    model = replaced(model, "  count: 16\n  interval: 4\n  first_index: 3\n", "  count: 30\n  interval: 2\n  first_index: 1\n");
    write_file(dir / "models/qwen3.5-27b.yaml", model);
    LintResult result = kvcat::lint_paths({dir.path()});
    auto found = find_rule(result.diagnostics, "model-layers");
    ASSERT_EQ(found.size(), 1u) << describe(result.diagnostics);
    EXPECT_EQ(found[0]->message.find("2th"), std::string::npos) << found[0]->message;
    EXPECT_NE(found[0]->message.find("every 2nd"), std::string::npos) << found[0]->message;
}

TEST(LintRules, ModelLayersPasses) { expect_clean("model-layers/pass"); }

// --- kv-basis-product -------------------------------------------------------------

TEST(LintRules, KvBasisProductTrips) {
    // Line 11: "kv_bytes_per_token: 16384", the value at column 21.
    LintResult result = lint_fixture("kv-basis-product/fail");
    const Diagnostic* d = expect_finding(result, "kv-basis-product/fail", "kv-basis-product",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 11, 21);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384");
    EXPECT_EQ(d->computed, "65,536");
    EXPECT_EQ(d->stated, "16,384");
    expect_only_rules(result, {"kv-basis-product"});
}

TEST(LintRules, KvBasisProductPasses) { expect_clean("kv-basis-product/pass"); }

// --- kv-basis-model ---------------------------------------------------------------

TEST(LintRules, KvBasisModelTrips) {
    // All 64 layers counted for a hybrid whose 16 full-attention layers alone cache K and V.
    // Line 13: "  layers: 64", the value at column 11.
    LintResult result = lint_fixture("kv-basis-model/fail");
    const Diagnostic* d = expect_finding(result, "kv-basis-model/fail", "kv-basis-model",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 13, 11);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message,
              "kv_bytes_basis.layers is 64, but models/qwen3.5-27b gives 16 (the layers that grow a KV cache: 16 of "
              "64 layers: every 4th from index 3)");
    EXPECT_EQ(d->stated, "64");
    EXPECT_EQ(d->computed, "16");
    expect_only_rules(result, {"kv-basis-model"});
}

TEST(LintRules, KvBasisModelPasses) { expect_clean("kv-basis-model/pass"); }

// --- kv-dtype-bytes ---------------------------------------------------------------

TEST(LintRules, KvDtypeBytesTrips) {
    // Line 17: "  bytes_per_element: ...", the value at column 22, in both rows.
    constexpr std::string_view kFixture = "kv-dtype-bytes/fail";
    LintResult result = lint_fixture(kFixture);
    const Diagnostic* q8 = expect_finding(result, kFixture, "kv-dtype-bytes",
                                          "kv-efficiency/llamacpp-qwen35-27b-q8-64k.yaml", 17, 22);
    ASSERT_NE(q8, nullptr);
    EXPECT_EQ(q8->severity, Severity::error);
    EXPECT_EQ(q8->message,
              "bytes_per_element is 1, but q8_0 stores 34/32 = 1.0625 bytes per element (a block of 32 values and "
              "its scale takes 34 bytes)");
    EXPECT_EQ(q8->stated, "1");
    EXPECT_EQ(q8->computed, "34/32 = 1.0625");

    const Diagnostic* q4 = expect_finding(result, kFixture, "kv-dtype-bytes",
                                          "kv-efficiency/llamacpp-qwen35-27b-q4-64k.yaml", 17, 22);
    ASSERT_NE(q4, nullptr);
    EXPECT_EQ(q4->severity, Severity::error);
    EXPECT_EQ(q4->message,
              "bytes_per_element is 0.5, but q4_0 stores 18/32 = 0.5625 bytes per element (a block of 32 values and "
              "its scale takes 18 bytes)");
    EXPECT_EQ(q4->stated, "0.5");
    EXPECT_EQ(q4->computed, "18/32 = 0.5625");
    expect_only_rules(result, {"kv-dtype-bytes"});
}

TEST(LintRules, KvDtypeBytesPasses) { expect_clean("kv-dtype-bytes/pass"); }  // 34/32 and 18/32, exactly

// --- attention-variant-mismatch ---------------------------------------------------

TEST(LintRules, AttentionVariantMismatchTrips) {
    // Line 8: "attention_variant: gqa", the value at column 20.
    LintResult result = lint_fixture("attention-variant-mismatch/fail");
    const Diagnostic* d = expect_finding(result, "attention-variant-mismatch/fail", "attention-variant-mismatch",
                                         "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 8, 20);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->message, "attention_variant is gqa, but models/qwen3.5-27b is hybrid");
    EXPECT_EQ(d->stated, "gqa");
    EXPECT_EQ(d->computed, "hybrid");
    expect_only_rules(result, {"attention-variant-mismatch"});
}

TEST(LintRules, AttentionVariantMismatchPasses) { expect_clean("attention-variant-mismatch/pass"); }

// --- context-above-native ---------------------------------------------------------

TEST(LintRules, ContextAboveNativeTrips) {
    // Line 9: "context_length: 1048576", the value at column 17; a warning, not an error.
    LintResult result = lint_fixture("context-above-native/fail");
    const Diagnostic* d = expect_finding(result, "context-above-native/fail", "context-above-native",
                                         "kv-efficiency/llamacpp-qwen35-27b-1m.yaml", 9, 17);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::warning);
    EXPECT_EQ(d->message,
              "context_length 1,048,576 exceeds models/qwen3.5-27b's native context 262,144; declare how it was "
              "reached in context_extension");
    EXPECT_EQ(d->stated, "1,048,576");
    EXPECT_EQ(d->computed, "262,144");
    EXPECT_FALSE(kvcat::has_errors(result.diagnostics)) << describe(result.diagnostics);
    expect_only_rules(result, {"context-above-native"});
}

TEST(LintRules, ContextAboveNativePasses) { expect_clean("context-above-native/pass"); }  // declares context_extension

// --- arith-overflow ---------------------------------------------------------------

TEST(LintRules, ArithOverflowTrips) {
    constexpr std::string_view kFixture = "arith-overflow/fail";
    LintResult result = lint_fixture(kFixture);
    // head_dim 256000000000000000 (a typo): 16 x 4 x 2.56e17 does not fit. Reported at the
    // kv_bytes_basis mapping, whose first key is line 13, column 3.
    const Diagnostic* product = expect_finding(result, kFixture, "arith-overflow",
                                               "kv-efficiency/llamacpp-qwen35-27b-64k.yaml", 13, 3);
    ASSERT_NE(product, nullptr);
    EXPECT_EQ(product->severity, Severity::error);
    EXPECT_EQ(product->message, "the basis product 16 x 4 x 256000000000000000 x 2 x 2 does not fit in 64 bits");
    // Line 11: "kv_bytes_per_token: 18446744073709551616" (2^64), the value at column 21.
    const Diagnostic* literal = expect_finding(result, kFixture, "arith-overflow",
                                               "kv-efficiency/llamacpp-qwen35-27b-32k.yaml", 11, 21);
    ASSERT_NE(literal, nullptr);
    EXPECT_EQ(literal->severity, Severity::error);
    EXPECT_EQ(literal->message, "'kv_bytes_per_token' = 18446744073709551616 does not fit in 64 bits");
    // The typo'd head_dim also disagrees with the model.
    expect_only_rules(result, {"arith-overflow", "kv-basis-model"});
}

TEST(LintRules, ArithOverflowPasses) { expect_clean("arith-overflow/pass"); }

// --- lint-ignore ------------------------------------------------------------------

TEST(LintRules, LintIgnoreTrips) {
    constexpr std::string_view kFixture = "lint-ignore/fail";
    constexpr std::string_view k64k = "kv-efficiency/llamacpp-qwen35-27b-64k.yaml";
    constexpr std::string_view k1m = "kv-efficiency/llamacpp-qwen35-27b-1m.yaml";
    LintResult result = lint_fixture(kFixture);
    // Each finding is at its lint_ignore item: "  - rule: ..." puts the item at column 5.
    auto in_64k = find_rule_in(result.diagnostics, "lint-ignore", "/lint-ignore/fail/" + std::string(k64k));
    ASSERT_EQ(in_64k.size(), 3u) << describe(result.diagnostics);
    EXPECT_EQ(in_64k[0]->pos.line, 31);
    EXPECT_EQ(in_64k[0]->pos.column, 5);
    EXPECT_EQ(in_64k[0]->message, "lint_ignore names 'kv-basis-product', an error; only warnings can be silenced");
    EXPECT_EQ(in_64k[1]->pos.line, 33);
    EXPECT_EQ(in_64k[1]->pos.column, 5);
    EXPECT_EQ(in_64k[1]->message, "lint_ignore names rule 'context-above-nativ', which does not exist; did you mean 'context-above-native'?");
    EXPECT_EQ(in_64k[2]->pos.line, 35);
    EXPECT_EQ(in_64k[2]->pos.column, 5);
    EXPECT_EQ(in_64k[2]->message,
              "lint_ignore for 'context-above-native' silences nothing: the rule no longer fires here");
    for (const Diagnostic* d : in_64k) EXPECT_EQ(d->severity, Severity::warning);

    // An entry without a reason silences nothing, and says so.
    const Diagnostic* no_reason = expect_finding(result, kFixture, "lint-ignore", k1m, 31, 5);
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
    // The model and accelerator it names are the shipped ones and are clean.
    expect_only_rules(result, {"kv-basis-product"});
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

// Every committed fixture, whoever wrote it, is linted: pass is clean, fail trips its rule.
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
}

TEST_P(RuleFixture, FailFixtureTripsItsRule) {
    const std::string& id = GetParam();
    TempDir scratch;
    fs::path dir = fixture_root(id, "fail", scratch);
    ASSERT_TRUE(fs::is_directory(dir)) << id << ": no fail fixture at " << dir;
    LintResult result;
    ASSERT_NO_THROW(result = kvcat::lint_paths({dir})) << id;
    auto found = find_rule(result.diagnostics, id);
    ASSERT_FALSE(found.empty()) << id << " does not fire on its fail fixture:\n" << describe(result.diagnostics);
    const RuleInfo* info = kvcat::test::rule_info(id);
    ASSERT_NE(info, nullptr);
    for (const Diagnostic* d : found) {
        EXPECT_EQ(d->severity, info->severity) << format_text(*d);
        EXPECT_FALSE(d->message.empty()) << format_text(*d);
        EXPECT_TRUE(d->pos.file.starts_with(dir.lexically_normal().generic_string())) << format_text(*d);
    }
}

INSTANTIATE_TEST_SUITE_P(LintRules, RuleFixture, ::testing::ValuesIn(rule_ids()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                             std::string name = param_info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

}  // namespace
