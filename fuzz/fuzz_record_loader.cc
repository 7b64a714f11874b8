// libFuzzer target: bytes -> kvcat::load_yaml -> kvcat::make_record -> record_claims.
//
// The loader and the record typing promise never to throw on bad input: every problem is a
// finding. Besides crashes, sanitizer reports and escaped exceptions, this target checks:
//  - every finding names a rule that all_rules() lists, in this file, at a line and column
//    inside the text (line 0 / column 0 only for a whole-file finding);
//  - a file that yields no document tree has at least one error finding (no silent pass);
//  - every claim found in the record's prose lies inside the scalar it came from and is
//    positioned inside the file;
//  - loading with scalars lifted out of yaml-cpp's text (scalar_lift.h) gives the tree,
//    marks and findings of loading the whole text.
// The kind is taken from the text's own id ("id: models/..."), so seeds of every kind are
// typed against their own schema; anything else is typed as a kv-efficiency record.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/record_claims.h"
#include "check/rule_registry.h"
#include "fuzz_check.h"
#include "load/records.h"
#include "load/yaml_loader.h"
#include "support/diagnostic.h"

namespace {

using kvcat::fuzz::check;

std::string relative_path_for(std::string_view text) {
    if (text.find("id: models/") != std::string_view::npos) return "models/fuzz.yaml";
    if (text.find("id: accelerators/") != std::string_view::npos) return "accelerators/fuzz.yaml";
    if (text.find("id: elsewhere/") != std::string_view::npos) return "elsewhere/fuzz.yaml";
    return "kv-efficiency/fuzz.yaml";
}

bool known_rule(std::string_view id) {
    auto rules = kvcat::all_rules();
    return std::any_of(rules.begin(), rules.end(), [&](const kvcat::RuleInfo& r) { return r.id == id; });
}

void check_position(const kvcat::Position& pos, const std::string& label, int last_line, const std::string& what) {
    check(pos.file == label, what + ": finding names file '" + pos.file + "'");
    check(pos.line >= 0 && pos.line <= last_line,
          what + ": line " + std::to_string(pos.line) + " outside 0.." + std::to_string(last_line));
    check(pos.column >= 0, what + ": negative column " + std::to_string(pos.column));
    check(pos.line != 0 || pos.column == 0, what + ": column without a line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string label = "fuzz.yaml";
    std::string text(reinterpret_cast<const char*>(data), size);
    const std::string relative = relative_path_for(text);
    // Lines of the text as the loader counts them (CRLF becomes LF, so this is an upper bound).
    const int last_line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;

    kvcat::LoadedYaml loaded = kvcat::load_yaml(label, text);
    check(loaded.source != nullptr, "load_yaml returned no source text");
    {
        kvcat::LoadLimits whole;
        whole.lift_scalars = false;
        const kvcat::LoadedYaml reference = kvcat::load_yaml(label, text, whole);
        check(loaded.root.has_value() == reference.root.has_value(), "a tree with scalars lifted, none without");
        check(!loaded.root || *loaded.root == *reference.root, "scalars lifted: a different tree");
        check(loaded.diagnostics.size() == reference.diagnostics.size(), "scalars lifted: other findings");
        for (std::size_t i = 0; i < loaded.diagnostics.size(); ++i) {
            check(kvcat::format_text(loaded.diagnostics[i]) == kvcat::format_text(reference.diagnostics[i]),
                  "scalars lifted: finding " + kvcat::format_text(loaded.diagnostics[i]));
        }
    }
    const bool has_root = loaded.root.has_value();
    const bool load_errors = kvcat::has_errors(loaded.diagnostics);
    check(has_root || load_errors, "no document tree and no error finding: a silent pass");
    for (const auto& d : loaded.diagnostics) {
        check(known_rule(d.rule), "load_yaml reported unknown rule '" + d.rule + "'");
        check_position(d.pos, label, last_line, "load_yaml [" + d.rule + "]");
        check(!d.message.empty(), "load_yaml [" + d.rule + "] with an empty message");
    }

    std::vector<kvcat::Diagnostic> findings;
    kvcat::Record record = kvcat::make_record(std::move(loaded), relative, findings);
    for (const auto& d : findings) {
        check(known_rule(d.rule), "make_record reported unknown rule '" + d.rule + "'");
        check_position(d.pos, label, last_line, "make_record [" + d.rule + "]");
    }
    if (!record.root || !record.source) return 0;

    for (const auto& located : kvcat::record_claims(record)) {
        const kvcat::Claim& c = located.claim;
        check(located.pos.line >= 1 && located.pos.line <= last_line,
              "claim in " + located.field + " positioned at line " + std::to_string(located.pos.line));
        check(c.sides.size() >= 2, "claim with fewer than two sides in " + located.field);
        check(c.holds || c.wrong_side < c.sides.size(), "wrong_side out of range in " + located.field);
        check(located.side_marks.size() == c.sides.size(), "side marks do not match sides in " + located.field);
        for (const auto& m : located.side_marks) {
            check(m.offset <= record.source->text().size(), "side mark past the end of the file");
        }
    }
    if (auto statement = kvcat::statement_claim(record)) {
        for (const auto& side : statement->claim.sides) {
            try {
                (void)kvcat::folded_factors(side);
            } catch (const kvcat::OverflowError&) {
                // Exact arithmetic says "does not fit in 64 bits" by throwing (rational.h); the
                // rule that folds the statement catches it and reports it. Anything else escapes.
            }
        }
    }
    return 0;
}
