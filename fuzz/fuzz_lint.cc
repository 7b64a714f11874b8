// libFuzzer target: bytes -> a record file -> every lint rule -> kvcat explain.
//
// The fuzzed text is one record beside a fixed catalog: the model and accelerator of
// tests/hostile/_shared/ and, when the text is a model or an accelerator, a kv row that
// names it by its own id, so its figures feed the kv, physics and prose rules. The lint must
// never throw (a rule that throws takes every other file's findings with it), and every
// finding names a rule all_rules() lists, at a place inside its file. Explaining the fuzzed
// record must not throw either: it is shown for records with errors too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "check/lint.h"
#include "check/rule_registry.h"
#include "fuzz_check.h"
#include "load/records.h"
#include "load/yaml_loader.h"
#include "output/explain.h"
#include "support/diagnostic.h"

#ifndef KVCAT_SOURCE_DIR
#error "KVCAT_SOURCE_DIR must name the source tree (for tests/hostile/_shared)"
#endif

namespace {

using kvcat::fuzz::check;

std::string read(const std::string& relative) {
    std::ifstream in(std::string(KVCAT_SOURCE_DIR) + "/" + relative, std::ios::binary);
    if (!in) kvcat::fuzz::fail("cannot read " + relative);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

kvcat::Record load(const std::string& label, const std::string& text, const std::string& relative,
                   std::vector<kvcat::Diagnostic>& out) {
    return kvcat::make_record(kvcat::load_yaml(label, text), relative, out);
}

bool known_rule(std::string_view id) {
    auto rules = kvcat::all_rules();
    return std::any_of(rules.begin(), rules.end(), [&](const kvcat::RuleInfo& r) { return r.id == id; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string model = read("tests/hostile/_shared/models/qwen3.5-27b.yaml");
    static const std::string accelerator = read("tests/hostile/_shared/accelerators/nvidia-rtx-3090.yaml");
    static const std::string kv_template = read("tests/hostile/_template-kv.yaml");

    std::string text(reinterpret_cast<const char*>(data), size);
    const bool is_model = text.find("id: models/") != std::string::npos;
    const bool is_accelerator = !is_model && text.find("id: accelerators/") != std::string::npos;
    const std::string relative = is_model         ? "models/fuzz.yaml"
                                 : is_accelerator ? "accelerators/fuzz.yaml"
                                                  : "kv-efficiency/fuzz.yaml";
    const int last_line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;

    std::vector<kvcat::Diagnostic> findings;
    std::vector<kvcat::Record> records;
    records.push_back(load("fuzz.yaml", text, relative, findings));
    const std::string fuzzed_id = records.back().id;
    records.push_back(load("models/qwen3.5-27b.yaml", model, "models/qwen3.5-27b.yaml", findings));
    records.push_back(
        load("accelerators/nvidia-rtx-3090.yaml", accelerator, "accelerators/nvidia-rtx-3090.yaml", findings));
    if ((is_model || is_accelerator) && !fuzzed_id.empty()) {
        // A kv row that names the fuzzed record by the id it declares (as a JSON string, which
        // is a valid YAML double-quoted scalar whatever the id holds).
        std::string row = kv_template;
        row.replace(row.find("id: kv-efficiency/TEMPLATE"), 26, "id: kv-efficiency/row");
        const std::string quoted =
            nlohmann::json(fuzzed_id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (is_model) {
            row.replace(row.find("model: models/qwen3.5-27b"), 25, "model: " + quoted);
        } else {
            row.replace(row.find("accelerator: accelerators/nvidia-rtx-3090"), 41, "accelerator: " + quoted);
        }
        records.push_back(load("kv-efficiency/row.yaml", row, "kv-efficiency/row.yaml", findings));
    }
    kvcat::LintResult result = kvcat::lint_records(std::move(records), std::move(findings));

    for (const auto& d : result.diagnostics) {
        check(known_rule(d.rule), "a finding of unknown rule '" + d.rule + "'");
        check(!d.message.empty(), "[" + d.rule + "] with an empty message");
        check(d.pos.line >= 0 && d.pos.column >= 0, "[" + d.rule + "] at a negative position");
        if (d.pos.file == "fuzz.yaml") {
            check(d.pos.line <= last_line, "[" + d.rule + "] at line " + std::to_string(d.pos.line) + " of a file of " +
                                               std::to_string(last_line) + " lines");
        }
    }
    const kvcat::Record& fuzzed = result.records.records().front();
    nlohmann::json explanation = kvcat::explain_record(result, fuzzed);
    (void)kvcat::render_explanation_text(explanation);
    return 0;
}
