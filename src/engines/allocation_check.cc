#include "engines/allocation_check.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/allocation_fields.h"
#include "engines/engine_rules.h"

namespace kvcat {

AllocationCheck check_allocation(const Record& r, const Model& m) {
    AllocationCheck out;
    auto engine = parse_engine(allocation_fields::text(r, "engine"));
    if (!engine) return out;  // schema-enum
    out.engine = *engine;
    rules_of(*engine).check_record(r, m, out);
    return out;
}

const AllocationFigure* find_figure(const AllocationCheck& c, std::string_view key) {
    for (const auto& p : c.parts) {
        for (const auto& f : p.figures) {
            if (f.key == key) return &f;
        }
    }
    return nullptr;
}

void AllocationHeadline::add(const AllocationCheck& check, const AllocationPartCheck& part, std::string_view name) {
    auto held =
        std::find_if(part.printed.begin(), part.printed.end(), [&](const auto& kv) { return kv.first == name; });
    if (held == part.printed.end() || held->second.empty()) return;
    printed.push_back(held->second);
    const AllocationFigure* f = find_figure(check, part.key + "." + std::string(name));
    computed.push_back(f ? f->computed : "");
}

AllocationSummary summarise_allocation(const Record& r, const AllocationCheck& c) {
    AllocationSummary out;
    AllocationHeadline headline;
    rules_of(c.engine).summarise(r, c, out, headline);
    if (headline.printed.empty()) return out;
    out.printed = fmt::format("{} {}", fmt::join(headline.printed, " + "), headline.unit);
    if (std::none_of(headline.computed.begin(), headline.computed.end(),
                     [](const std::string& x) { return x.empty(); })) {
        out.computed = fmt::format("{} {}", fmt::join(headline.computed, " + "), headline.unit);
    }
    return out;
}

}  // namespace kvcat
