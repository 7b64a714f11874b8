// libFuzzer target: bytes -> kvcat::parse_bench_text, as `kvcat import-bench` reads a file.
//
// A file that is not one benchmark run throws BenchError, and only BenchError, whose message
// starts with the file's name and a line and column; anything else escaping is a crash. A run
// that is read holds at least one point, its points are sorted by context and concurrency
// with no two alike, and every speed in them is a positive finite number.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_check.h"
#include "import/bench_import.h"

using kvcat::fuzz::check;

namespace {

void positive_or_absent(const std::optional<double>& v, const char* what) {
    check(!v || (std::isfinite(*v) && *v > 0), std::string(what) + " is not a positive finite number");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    kvcat::BenchOptions options;
    options.context = 8192;  // so that a vLLM-shaped input without its input length is read on
    kvcat::BenchRun run;
    try {
        run = kvcat::parse_bench_text("fuzz.json", text, options);
    } catch (const kvcat::BenchError& e) {
        check(std::string(e.what()).rfind("fuzz.json:", 0) == 0,
              std::string("a BenchError without its place: ") + e.what());
        return 0;
    }
    check(!run.points.empty(), "a run read with no point");
    for (std::size_t i = 0; i < run.points.size(); ++i) {
        const auto& p = run.points[i];
        check(p.context_length >= 0 && p.concurrency >= 1, "a point with a negative context or no request");
        positive_or_absent(p.tps, "a decode speed");
        positive_or_absent(p.prefill_tps, "a prefill speed");
        positive_or_absent(p.ttft_ms, "a time to first token");
        positive_or_absent(p.total_tps, "a total speed");
        if (i > 0) {
            const auto& q = run.points[i - 1];
            check(q.context_length < p.context_length ||
                      (q.context_length == p.context_length && q.concurrency < p.concurrency),
                  "points out of order or repeated");
        }
    }
    return 0;
}
