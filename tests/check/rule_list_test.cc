// The rule registry and `kvcat lint --list-rules`.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "check/findings.h"
#include "check/rule_list.h"
#include "check/rule_registry.h"
#include "kvcat_runner.h"
#include "load/load_findings.h"
#include "support/diagnostic.h"

namespace {

using kvcat::all_rules;
using kvcat::RuleInfo;
using kvcat::RuleListFormat;
using kvcat::RuleStage;

TEST(RuleRegistry, IdsAreUniqueAndInStageThenIdOrder) {
    auto rules = all_rules();
    ASSERT_GT(rules.size(), 30u);
    std::set<std::string_view> ids;
    for (std::size_t i = 0; i < rules.size(); ++i) {
        EXPECT_TRUE(ids.insert(rules[i].id).second) << rules[i].id;
        if (i > 0) {
            EXPECT_LT(std::tie(rules[i - 1].stage, rules[i - 1].id), std::tie(rules[i].stage, rules[i].id))
                << rules[i - 1].id << " then " << rules[i].id;
        }
    }
}

TEST(RuleRegistry, RecordRulesAndOnlyThoseHaveACheck) {
    std::size_t record = 0;
    for (const RuleInfo& r : all_rules()) {
        EXPECT_EQ(r.stage == RuleStage::record, r.check != nullptr) << r.id;
        EXPECT_FALSE(r.summary.empty()) << r.id;
        if (r.stage == RuleStage::record) ++record;
    }
    EXPECT_GE(record, 16u);  // every record rule of src/check/rules/ is linked into this binary
}

TEST(RuleRegistry, FactoriesTakeTheSeverityFromTheRegistry) {
    kvcat::Position pos{"x.yaml", 1, 1};
    EXPECT_EQ(kvcat::diag::context_above_native(pos, "1", "2", "m").severity, kvcat::Severity::warning);
    EXPECT_EQ(kvcat::diag::alias(pos).severity, kvcat::Severity::error);
    ASSERT_NE(kvcat::find_rule_info("exceeds-memory"), nullptr);
    EXPECT_EQ(kvcat::find_rule_info("no-such-rule"), nullptr);
}

TEST(RuleRegistry, TheLoadersFindingsAreRegisteredAsTheErrorsTheLoaderMakes) {
    // The loader (src/load/) makes its findings without the registry, which is a later stage:
    // each is an error, so each of its rules must be registered as a loader rule and an error,
    // and arith-overflow, which the schema also reports, as an error.
    auto loader = kvcat::loader_rules();
    ASSERT_EQ(loader.size(), 17u);
    for (const kvcat::LoaderRule& rule : loader) {
        const RuleInfo* info = kvcat::find_rule_info(rule.id);
        ASSERT_NE(info, nullptr) << rule.id;
        EXPECT_EQ(info->stage, RuleStage::loader) << rule.id;
        EXPECT_EQ(info->severity, kvcat::Severity::error) << rule.id;
        EXPECT_EQ(info->summary, rule.summary) << rule.id;
    }
    std::size_t registered = std::count_if(all_rules().begin(), all_rules().end(),
                                           [](const RuleInfo& r) { return r.stage == RuleStage::loader; });
    EXPECT_EQ(registered, loader.size());
    ASSERT_NE(kvcat::find_rule_info("arith-overflow"), nullptr);
    EXPECT_EQ(kvcat::find_rule_info("arith-overflow")->severity, kvcat::Severity::error);
    kvcat::Position pos{"x.yaml", 3, 7};
    auto overflow = kvcat::diag::overflow(pos, "'n' = 99999999999999999999");
    EXPECT_EQ(overflow.rule, "arith-overflow");
    EXPECT_EQ(overflow.severity, kvcat::Severity::error);
    EXPECT_EQ(overflow.message, "'n' = 99999999999999999999 does not fit in 64 bits");
}

TEST(RuleList, FormatsRoundTrip) {
    for (auto name : kvcat::rule_list_format_names()) {
        auto f = kvcat::parse_rule_list_format(name);
        ASSERT_TRUE(f) << name;
        EXPECT_EQ(kvcat::rule_list_format_names()[static_cast<std::size_t>(*f)], name);
    }
    EXPECT_FALSE(kvcat::parse_rule_list_format("sarif"));
}

TEST(RuleList, JsonNamesEveryRuleWithItsStage) {
    auto j = nlohmann::json::parse(kvcat::render_rule_list(all_rules(), RuleListFormat::json));
    ASSERT_EQ(j["rules"].size(), all_rules().size());
    for (std::size_t i = 0; i < all_rules().size(); ++i) {
        const RuleInfo& r = all_rules()[i];
        EXPECT_EQ(j["rules"][i]["id"], std::string(r.id));
        EXPECT_EQ(j["rules"][i]["severity"], std::string(to_string(r.severity)));
        EXPECT_EQ(j["rules"][i]["stage"], std::string(to_string(r.stage)));
        EXPECT_EQ(j["rules"][i]["description"], std::string(r.summary));
    }
}

TEST(RuleList, MarkdownHasARowPerRuleAndIdsALinePerRule) {
    std::string md = kvcat::render_rule_list(all_rules(), RuleListFormat::markdown);
    EXPECT_NE(md.find("| `kv-basis-product` | error | record | "), std::string::npos) << md;
    EXPECT_EQ(static_cast<std::size_t>(std::count(md.begin(), md.end(), '\n')), all_rules().size() + 2);
    std::string ids = kvcat::render_rule_list(all_rules(), RuleListFormat::ids);
    EXPECT_EQ(ids.substr(0, ids.find('\n')), std::string(all_rules()[0].id));
    EXPECT_EQ(static_cast<std::size_t>(std::count(ids.begin(), ids.end(), '\n')), all_rules().size());
}

TEST(RuleList, TheBinaryListsTheRegistry) {
    kvcat::test::KvcatRunner k(false);
    auto r = k.run({"lint", "--list-rules", "--format", "ids"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, kvcat::render_rule_list(all_rules(), RuleListFormat::ids));
    auto text = k.run({"lint", "--list-rules"});
    EXPECT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find("exceeds-memory"), std::string::npos);
    auto bad = k.run({"lint", "--list-rules", "--format", "sarif"});
    EXPECT_EQ(bad.status, 2);
    auto findings = k.run({"lint", "--format", "markdown"});
    EXPECT_EQ(findings.status, 2);
}

}  // namespace
