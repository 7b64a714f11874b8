#include "import/bench_csv.h"

#include <charconv>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "support/hidden_text.h"

namespace kvcat::bench {

namespace {

std::vector<std::string> split_csv_line(std::string_view line) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
        auto comma = line.find(',', start);
        cells.push_back(
            trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return cells;
}

BenchRun read_csv(const std::string& file, const std::string& text) {
    BenchRun run;
    run.format = "CSV";
    std::istringstream in(text);
    std::string line;
    int line_no = 0;
    std::vector<std::string> header;
    static const std::vector<std::string> kColumns = {"context_length", "tps",       "prefill_tps",
                                                      "ttft_ms",        "total_tps", "concurrency"};
    std::map<std::pair<std::int64_t, std::int64_t>, int> seen;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (trim(line).empty()) continue;
        auto cells = split_csv_line(line);
        if (header.empty()) {
            header = cells;
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (std::find(kColumns.begin(), kColumns.end(), header[i]) == kColumns.end()) {
                    fail(file, line_no, 1,
                         fmt::format("unknown column '{}' in the header; the columns are context_length, tps, "
                                     "prefill_tps, ttft_ms, total_tps and concurrency",
                                     escape_for_terminal(header[i])));
                }
                // Every column before this one is known, so this loop is over six names at most.
                for (std::size_t k = 0; k < i; ++k) {
                    if (header[k] == header[i]) {
                        fail(file, line_no, 1,
                             fmt::format("the column '{}' is named twice in the header, as columns {} and {}; a "
                                         "reader would keep one and drop the other: remove one",
                                         escape_for_terminal(header[i]), k + 1, i + 1));
                    }
                }
            }
            if (std::find(header.begin(), header.end(), "context_length") == header.end()) {
                fail(file, line_no, 1, "the header must name context_length");
            }
            continue;
        }
        if (cells.size() != header.size()) {
            fail(file, line_no, 1, fmt::format("{} cells where the header has {}", cells.size(), header.size()));
        }
        MeasurementPoint p;
        p.listed = true;
        int column = 1;
        for (std::size_t i = 0; i < cells.size(); column += static_cast<int>(cells[i].size()) + 1, ++i) {
            const std::string& cell = cells[i];
            const std::string& name = header[i];
            if (cell.empty()) {
                if (name == "context_length") fail(file, line_no, column, "context_length is empty");
                continue;
            }
            if (name == "context_length" || name == "concurrency") {
                std::int64_t v = 0;
                auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
                if (ec != std::errc() || ptr != cell.data() + cell.size() || v < 0 ||
                    (name == "concurrency" && v < 1)) {
                    fail(file, line_no, column,
                         fmt::format("{} must be a whole number{}, found '{}'", name,
                                     name == "concurrency" ? " of at least 1" : " of tokens", cell));
                }
                (name == "context_length" ? p.context_length : p.concurrency) = v;
                continue;
            }
            auto r = Rational::parse(cell);
            double v = 0;
            auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
            if (!r || ec != std::errc() || ptr != cell.data() + cell.size() || !std::isfinite(v) || !(v > 0)) {
                fail(file, line_no, column, fmt::format("{} must be a number above zero, found '{}'", name, cell));
            }
            if (name == "tps") p.tps = v;
            if (name == "prefill_tps") p.prefill_tps = v;
            if (name == "ttft_ms") p.ttft_ms = v;
            if (name == "total_tps") p.total_tps = v;
        }
        auto key = std::make_pair(p.context_length, p.concurrency);
        if (auto it = seen.find(key); it != seen.end()) {
            fail(file, line_no, 1,
                 fmt::format("repeats the point at line {} (context {}, concurrency {})", it->second, p.context_length,
                             p.concurrency));
        }
        seen[key] = line_no;
        run.points.push_back(p);
    }
    if (header.empty()) fail(file, 1, 1, "is empty: a CSV needs a header naming context_length");
    if (run.points.empty()) fail(file, line_no, 1, "has a header but no point");
    return run;
}

}  // namespace

bool csv_claims(BenchInput& /*in*/) {
    return true;
}

BenchRun read_csv_points(BenchInput& in) {
    return sorted(read_csv(in.file, in.text));
}

}  // namespace kvcat::bench
