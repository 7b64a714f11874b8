// Arithmetic as outside authors write it: every passage of tests/prose-corpus/passages.txt is
// placed in a record's notes and linted. A passage whose arithmetic holds, or that makes no
// claim, must get no finding at all (a KB-means-KiB passage at most a note); every wrong claim
// should be an error with the right figure. The test fails on any false alarm and prints the
// recall on the wrong passages, which the README quotes.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

enum class Verdict { right, binary, wrong, approx, none };

struct Passage {
    Verdict verdict = Verdict::none;
    std::string figure;   ///< for a wrong passage: the figure kvcat should print, if stated
    std::string address;  ///< where it was quoted from
    std::string text;
    int line = 0;  ///< of its header in passages.txt
};

Verdict parse_verdict(const std::string& word, int line) {
    if (word == "right") return Verdict::right;
    if (word == "binary") return Verdict::binary;
    if (word == "wrong") return Verdict::wrong;
    if (word == "approx") return Verdict::approx;
    if (word == "none") return Verdict::none;
    throw std::runtime_error("passages.txt:" + std::to_string(line) + ": unknown verdict '" + word + "'");
}

std::vector<Passage> read_corpus() {
    std::ifstream in(fs::path(KVCAT_SOURCE_DIR) / "tests" / "prose-corpus" / "passages.txt");
    if (!in) throw std::runtime_error("cannot read tests/prose-corpus/passages.txt");
    std::vector<Passage> out;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.rfind("== ", 0) == 0) {
            std::istringstream fields(line.substr(3));
            Passage p;
            std::string word;
            fields >> word;
            p.verdict = parse_verdict(word, n);
            std::string next;
            fields >> next;
            if (p.verdict == Verdict::wrong && next.find("://") == std::string::npos) {
                // A figure with a unit is quoted: "512 KiB".
                p.figure = next;
                if (next.starts_with('"')) {
                    p.figure = next.substr(1);
                    std::string part;
                    while (!p.figure.ends_with('"') && fields >> part) p.figure += " " + part;
                    if (!p.figure.ends_with('"'))
                        throw std::runtime_error("passages.txt:" + std::to_string(n) + ": unclosed quoted figure");
                    p.figure.pop_back();
                }
                fields >> next;
            }
            p.address = next;
            p.line = n;
            out.push_back(std::move(p));
        } else if (!out.empty()) {
            out.back().text += line + "\n";
        }
    }
    return out;
}

/// The passage as the notes of a row whose structured figures are all right.
std::string row_with_notes(const std::string& text) {
    std::string notes;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) notes += "  " + line + "\n";
    return "id: kv-efficiency/row\n"
           "model: models/m\n"
           "accelerator: null\n"
           "engine: llama.cpp\n"
           "kv_cache_dtype: bf16\n"
           "attention_variant: gqa\n"
           "context_length: 65536\n"
           "kv_bytes_per_token: 131072\n"
           "kv_bytes_basis:\n"
           "  layers: 32\n"
           "  kv_heads: 8\n"
           "  head_dim: 128\n"
           "  kv_factor: 2\n"
           "  bytes_per_element: 2\n"
           "  statement: \"32 x 8 x 128 x 2 x 2 = 131,072 B/token\"\n"
           "measured_tps_at_ctx: null\n"
           "measured_ttft_ms_at_ctx: null\n"
           "methodology: a passage of the prose corpus\n"
           "notes: |2\n" +
           notes +
           "sources:\n"
           "  - name: prose corpus\n";
}

struct Outcome {
    std::vector<Diagnostic> errors;  ///< prose-arithmetic errors
    int notes = 0;                   ///< prose-arithmetic notes (binary units)
    std::vector<Diagnostic> other;   ///< anything else: the record itself must be clean
};

Outcome lint_passage(const Passage& p) {
    test::TempDir dir;
    test::write_file(dir / "models" / "m.yaml",
                     test::read_file(test::fixture_path("prose-arithmetic/pass/models/m.yaml")));
    test::write_file(dir / "kv-efficiency" / "row.yaml", row_with_notes(p.text));
    LintResult r = lint_paths({dir.path()});
    Outcome out;
    for (const auto& d : r.diagnostics) {
        if (d.rule == "prose-arithmetic" && d.severity == Severity::error) {
            out.errors.push_back(d);
        } else if (d.rule == "prose-arithmetic" && d.severity == Severity::note) {
            ++out.notes;
        } else {
            out.other.push_back(d);
        }
    }
    return out;
}

TEST(ProseCorpus, NoFalseAlarmAndRecallOnWrongClaims) {
    std::vector<Passage> corpus = read_corpus();
    ASSERT_GE(corpus.size(), 60u);
    int wrong = 0;
    int caught = 0;
    int binary = 0;
    int noted = 0;
    int silent = 0;
    for (const Passage& p : corpus) {
        SCOPED_TRACE("passages.txt:" + std::to_string(p.line) + " " + p.address);
        EXPECT_FALSE(p.address.empty());
        Outcome o = lint_passage(p);
        EXPECT_TRUE(o.other.empty()) << test::describe(o.other);
        switch (p.verdict) {
            case Verdict::right:
            case Verdict::approx:
            case Verdict::none:
                EXPECT_TRUE(o.errors.empty()) << test::describe(o.errors);
                EXPECT_EQ(o.notes, 0);
                silent += o.errors.empty() && o.notes == 0 ? 1 : 0;
                break;
            case Verdict::binary:
                ++binary;
                EXPECT_TRUE(o.errors.empty()) << test::describe(o.errors);
                noted += o.notes > 0 ? 1 : 0;
                break;
            case Verdict::wrong: {
                ++wrong;
                bool right_figure = p.figure.empty();
                for (const auto& d : o.errors) right_figure = right_figure || d.computed == p.figure;
                caught += !o.errors.empty() && right_figure ? 1 : 0;
                if (o.errors.empty() || !right_figure)
                    std::cout << "prose corpus: passages.txt:" << p.line << " wrong, "
                              << (o.errors.empty() ? "not reported" : "reported with another figure") << "\n";
                break;
            }
        }
    }
    const int quiet_expected = static_cast<int>(corpus.size()) - wrong - binary;
    std::cout << "prose corpus: " << corpus.size() << " passages; " << silent << " of " << quiet_expected
              << " right, approximate or claim-free passages without a finding; " << noted << " of " << binary
              << " KB-as-KiB passages noted; " << caught << " of " << wrong
              << " wrong passages reported with the right figure\n";
    // Recall may only improve: lower this floor and the test says so. The wrong passages not
    // reported state their arithmetic in forms kvcat does not read: implied by prose ("a minute
    // ... would need 1.39 GB"), a figure before its chain with a sentence between, a chain in
    // bits per byte, or a result set out under a bullet.
    constexpr int kReportedAtLeast = 5;
    EXPECT_GE(caught, kReportedAtLeast) << "a wrong passage is no longer reported";
}

}  // namespace
}  // namespace kvcat
