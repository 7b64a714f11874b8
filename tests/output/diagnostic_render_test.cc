#include "output/diagnostic_render.h"
#include "check/findings.h"
#include "check/rule_registry.h"
#include "load/load_findings.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace kvcat {
namespace {

using nlohmann::json;

/// Three findings that cover the cases every format must handle: a positioned error with
/// stated and computed figures, a warning with characters that need escaping, and a
/// finding about a whole file (line 0).
std::vector<Diagnostic> sample() {
    Diagnostic product = diag::basis_product(Position{"records/kv-efficiency/x.yaml", 12, 21}, "16 x 4 x 256 x 2 x 2",
                                             "65,536", "16,384");
    Diagnostic tag = diag::id_context_tag(Position{"records/kv-efficiency/x.yaml", 2, 5}, "-64k", "65,536", "131,072");
    tag.message = "100% sure: line one,\r\nline two";
    Diagnostic empty = diag::file_empty("records/models/empty.yaml");
    return {product, tag, empty};
}

std::size_t index_of(std::string_view rule) {
    auto rules = all_rules();
    for (std::size_t i = 0; i < rules.size(); ++i) {
        if (rules[i].id == rule) return i;
    }
    return static_cast<std::size_t>(-1);
}

TEST(DiagnosticRender, FormatNamesRoundTrip) {
    for (auto name : diagnostic_format_names()) {
        auto f = parse_diagnostic_format(name);
        ASSERT_TRUE(f) << name;
        EXPECT_EQ(diagnostic_format_names()[static_cast<std::size_t>(*f)], name);
    }
    EXPECT_FALSE(parse_diagnostic_format("xml"));
    EXPECT_EQ(parse_diagnostic_format("sarif"), DiagnosticFormat::sarif);
}

TEST(DiagnosticRender, SummaryCountsBySeverity) {
    LintSummary s = summarize(sample(), 7);
    EXPECT_EQ(s.files_checked, 7u);
    EXPECT_EQ(s.errors, 2u);
    EXPECT_EQ(s.warnings, 1u);
    EXPECT_EQ(s.notes, 0u);
}

TEST(DiagnosticRender, PlainTextIsFormatTextOneALine) {
    auto findings = sample();
    std::string expected;
    for (const auto& d : findings) expected += format_text(d) + "\n";
    EXPECT_EQ(render_text(findings, false), expected);
    EXPECT_EQ(render_text(findings, false).find('\x1b'), std::string::npos);
}

TEST(DiagnosticRender, ColouredTextKeepsTheWordsAndAddsAnsiCodes) {
    auto findings = sample();
    std::string coloured = render_text(std::span(findings).first(1), true);
    EXPECT_EQ(coloured,
              "\x1b[1mrecords/kv-efficiency/x.yaml:12:21:\x1b[0m \x1b[1;31merror:\x1b[0m "
              "[\x1b[1mkv-basis-product\x1b[0m] 16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384\n");
    // Without the escape sequences it is exactly the plain text.
    std::string stripped;
    for (std::size_t i = 0; i < coloured.size(); ++i) {
        if (coloured[i] == '\x1b') {
            i = coloured.find('m', i);
            continue;
        }
        stripped += coloured[i];
    }
    EXPECT_EQ(stripped, render_text(std::span(findings).first(1), false));
}

TEST(DiagnosticRender, GithubEscapesDataAndProperties) {
    EXPECT_EQ(github_escape_data("100% a,b: c\r\nd"), "100%25 a,b: c%0D%0Ad");
    EXPECT_EQ(github_escape_property("100% a,b: c\r\nd"), "100%25 a%2Cb%3A c%0D%0Ad");
    // % first, so an escape is never escaped twice.
    EXPECT_EQ(github_escape_property("%3A"), "%253A");
}

TEST(DiagnosticRender, GithubWorkflowCommandsExactText) {
    auto findings = sample();
    EXPECT_EQ(format_github(findings[0]),
              "::error file=records/kv-efficiency/x.yaml,line=12,col=21,title=kv-basis-product::"
              "16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384");
    EXPECT_EQ(format_github(findings[1]),
              "::warning file=records/kv-efficiency/x.yaml,line=2,col=5,title=id-context-tag::"
              "100%25 sure: line one,%0D%0Aline two");
    // A finding about the whole file has no line or column.
    EXPECT_EQ(format_github(findings[2]),
              "::error file=records/models/empty.yaml,title=file-empty::"
              "the file holds no YAML document; expected one mapping with an id");
    Diagnostic note = findings[0];
    note.severity = Severity::note;
    note.pos.file = "a,b:c.yaml";
    EXPECT_TRUE(format_github(note).starts_with("::notice file=a%2Cb%3Ac.yaml,line=12,col=21,title=kv-basis-product::"))
        << format_github(note);
    EXPECT_EQ(render_github(findings), format_github(findings[0]) + "\n" + format_github(findings[1]) + "\n" +
                                           format_github(findings[2]) + "\n");
}

TEST(DiagnosticRender, JsonParsesBackWithEveryField) {
    auto findings = sample();
    json j = json::parse(render_json(findings, summarize(findings, 3)));
    ASSERT_TRUE(j["findings"].is_array());
    ASSERT_EQ(j["findings"].size(), 3u);
    const json& f = j["findings"][0];
    EXPECT_EQ(f["file"], "records/kv-efficiency/x.yaml");
    EXPECT_EQ(f["line"], 12);
    EXPECT_EQ(f["column"], 21);
    EXPECT_EQ(f["severity"], "error");
    EXPECT_EQ(f["rule"], "kv-basis-product");
    EXPECT_EQ(f["message"], findings[0].message);
    EXPECT_EQ(f["stated"], "16,384");
    EXPECT_EQ(f["computed"], "65,536");
    EXPECT_EQ(j["findings"][1]["message"], "100% sure: line one,\r\nline two");
    EXPECT_EQ(j["findings"][1]["severity"], "warning");
    // No stated or computed figure: no key, rather than an empty string.
    EXPECT_FALSE(j["findings"][2].contains("stated"));
    EXPECT_FALSE(j["findings"][2].contains("computed"));
    EXPECT_EQ(j["findings"][2]["line"], 0);
    EXPECT_EQ(j["findings"][2]["column"], 0);
    EXPECT_EQ(j["summary"], json::parse(R"({"files_checked": 3, "errors": 2, "warnings": 1, "notes": 0})"));
}

TEST(DiagnosticRender, JsonWithNoFindingsIsStillTheSameShape) {
    json j = json::parse(render_json({}, summarize({}, 14)));
    EXPECT_TRUE(j["findings"].is_array());
    EXPECT_TRUE(j["findings"].empty());
    EXPECT_EQ(j["summary"]["files_checked"], 14);
}

TEST(DiagnosticRender, SarifUris) {
    EXPECT_EQ(sarif_uri("records/models/a.yaml", ""), "records/models/a.yaml");
    EXPECT_EQ(sarif_uri("./records/models/a.yaml", "/work"), "records/models/a.yaml");
    EXPECT_EQ(sarif_uri("/work/repo/records/a b.yaml", "/work/repo"), "records/a%20b.yaml");
    EXPECT_EQ(sarif_uri("/elsewhere/a.yaml", "/work/repo"), "file:///elsewhere/a.yaml");
    EXPECT_EQ(sarif_uri("../other/a.yaml", "/work/repo"), "file:///work/other/a.yaml");
    EXPECT_EQ(sarif_uri("records/100%#?.yaml", ""), "records/100%25%23%3F.yaml");
}

TEST(DiagnosticRender, SarifIsStructurallyValid) {
    auto findings = sample();
    json log = json::parse(render_sarif(findings, SarifOptions{"9.9.9", "/work"}));
    EXPECT_EQ(log["version"], "2.1.0");
    ASSERT_TRUE(log["$schema"].is_string());
    EXPECT_NE(log["$schema"].get<std::string>().find("sarif"), std::string::npos);
    ASSERT_EQ(log["runs"].size(), 1u);
    const json& run = log["runs"][0];
    const json& driver = run["tool"]["driver"];
    EXPECT_EQ(driver["name"], "kvcat");
    EXPECT_EQ(driver["version"], "9.9.9");

    // Every rule, in all_rules() order, with its summary and level.
    auto rules = all_rules();
    ASSERT_EQ(driver["rules"].size(), rules.size());
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const json& r = driver["rules"][i];
        EXPECT_EQ(r["id"], std::string(rules[i].id));
        EXPECT_EQ(r["shortDescription"]["text"], plain_summary(rules[i]));
        EXPECT_EQ(r["shortDescription"]["markdown"], std::string(rules[i].summary));
        EXPECT_EQ(r["shortDescription"]["text"].get<std::string>().find('`'), std::string::npos);
        EXPECT_EQ(r["defaultConfiguration"]["level"], std::string(to_string(rules[i].severity)));
    }

    ASSERT_EQ(run["results"].size(), findings.size());
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const json& res = run["results"][i];
        SCOPED_TRACE(findings[i].rule);
        EXPECT_EQ(res["ruleId"], findings[i].rule);
        // ruleIndex points at the rule with that id.
        ASSERT_TRUE(res["ruleIndex"].is_number_unsigned());
        std::size_t index = res["ruleIndex"].get<std::size_t>();
        EXPECT_EQ(index, index_of(findings[i].rule));
        EXPECT_EQ(driver["rules"][index]["id"], res["ruleId"]);
        EXPECT_EQ(res["level"], std::string(to_string(findings[i].severity)));
        EXPECT_EQ(res["message"]["text"], findings[i].message);
        ASSERT_EQ(res["locations"].size(), 1u);
        const json& physical = res["locations"][0]["physicalLocation"];
        EXPECT_EQ(physical["artifactLocation"]["uri"], findings[i].pos.file);
    }
    const json& first = run["results"][0];
    EXPECT_EQ(first["locations"][0]["physicalLocation"]["region"],
              json::parse(R"({"startLine": 12, "startColumn": 21})"));
    EXPECT_EQ(first["properties"], json::parse(R"({"stated": "16,384", "computed": "65,536"})"));
    // The whole-file finding has no region, and no properties when there are no figures.
    EXPECT_FALSE(run["results"][2]["locations"][0]["physicalLocation"].contains("region"));
    EXPECT_FALSE(run["results"][2].contains("properties"));
}

TEST(DiagnosticRender, SarifLevelsForEverySeverity) {
    Diagnostic d = diag::file_empty("a.yaml");
    for (auto [severity, level] : {std::pair{Severity::error, "error"}, std::pair{Severity::warning, "warning"},
                                   std::pair{Severity::note, "note"}}) {
        d.severity = severity;
        json log = json::parse(render_sarif(std::span(&d, 1), {}));
        EXPECT_EQ(log["runs"][0]["results"][0]["level"], level);
        EXPECT_FALSE(log["runs"][0]["tool"]["driver"].contains("version"));
    }
}

}  // namespace
}  // namespace kvcat
