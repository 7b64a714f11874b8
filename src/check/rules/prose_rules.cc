#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/record_claims.h"
#include "check/rules/rules.h"
#include "model/kv_math.h"

namespace kvcat::rules {

namespace {

/// "65,536" from "65,536 B/token"; "1.00 GiB" stays whole: the figure as the side states it.
std::string stated_figure(const ClaimSide& side) {
    std::string text = side.text;
    if (side.is_expression()) return text;
    bool bytes_like = side.unit.empty() || side.unit == "B" || side.unit == "B/token";
    if (!bytes_like) return text;
    auto digit_at = [&](std::size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
    std::size_t end = 0;
    for (;;) {
        if (digit_at(end) || (end > 0 && (text[end] == ',' || text[end] == '.') && digit_at(end + 1))) {
            ++end;
            continue;
        }
        // Separators between groups of digits: LaTeX's "{,}", a space, a no-break, thin or
        // narrow no-break space ("262{,}144", "54 000").
        std::size_t sep = 0;
        for (std::string_view s : {"{,}", " ", "\xC2\xA0", "\xE2\x80\x89", "\xE2\x80\xAF"}) {
            if (text.compare(end, s.size(), s) == 0) {
                sep = s.size();
                break;
            }
        }
        if (end == 0 || sep == 0 || !digit_at(end + sep)) break;
        end += sep;
    }
    return end == 0 ? text : text.substr(0, end);
}

std::string join_factors(const std::vector<Rational>& factors) {
    std::string out;
    for (const auto& f : factors) {
        if (!out.empty()) out += " x ";
        out += f.to_string();
    }
    return out;
}

/// The basis factors as the statement should state them, folded: 34/32 is one factor.
std::optional<std::vector<Rational>> structured_factors(const KvBasis& b) {
    if (!b.layers || !b.kv_factor || !b.bytes_per_element) return std::nullopt;
    std::vector<Rational> out{Rational(*b.layers)};
    if (b.latent_dim) {
        out.emplace_back(*b.latent_dim);
    } else if (b.kv_heads && b.head_dim) {
        out.emplace_back(*b.kv_heads);
        out.emplace_back(*b.head_dim);
    } else {
        return std::nullopt;
    }
    out.emplace_back(*b.kv_factor);
    out.push_back(*b.bytes_per_element);
    return out;
}

/// A claim right only when KB/MB/GB/TB are read as powers of 1024: a note, not an error,
/// since that usage is common; it names the binary units to write.
Diagnostic binary_units_note(const Position& pos, const Claim& c) {
    Diagnostic d = diag::prose_arithmetic(pos, c.expression, c.computed_display, c.sides.back().text);
    d.severity = Severity::note;
    d.message = fmt::format("{} = {} with decimal units; {}", c.expression, c.computed_display, c.why);
    return d;
}

}  // namespace

void prose_arithmetic(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    // Only a claim that is reported is placed in the file; most hold.
    ClaimLocator locator(r);
    for (const auto& found : found_claims(r)) {
        const Claim& c = found.claim;
        switch (c.verdict) {
            case Claim::Verdict::wrong:
                if (c.wrong_side < c.sides.size()) {
                    out.push_back(diag::prose_arithmetic(locator.position(found), c.expression, c.computed_display,
                                                         stated_figure(c.sides[c.wrong_side])));
                }
                break;
            case Claim::Verdict::binary_only:
                out.push_back(binary_units_note(locator.position(found), c));
                break;
            case Claim::Verdict::holds:
            case Claim::Verdict::unjudged:
                break;
        }
    }
}

void kv_statement_mismatch(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->basis.statement.empty()) return;
    Position where = r.where("kv_bytes_basis.statement");
    const std::string& st = r.kv->basis.statement;
    auto states = [&](std::int64_t v) {
        return st.find(group_thousands(v)) != std::string::npos || st.find(std::to_string(v)) != std::string::npos;
    };
    if (r.kv->basis.window && !states(*r.kv->basis.window)) {
        // A model whose every layer is bounded: the statement says where the growth stops.
        out.push_back(diag::statement_mismatch(
            where,
            fmt::format("the statement does not give the window, {} tokens, after which no layer grows",
                        group_thousands(*r.kv->basis.window)),
            "", group_thousands(*r.kv->basis.window)));
    }
    if (!r.kv->basis.groups.empty() || r.kv->basis.indexer_bytes || r.kv->basis.v_head_dim) {
        // A sum over differing layers, K and V of different widths, or a KV term plus an indexer
        // term, is not a chain the recogniser reads; the statement must at least give the indexer's bytes and the
        // result.
        if (r.kv->basis.indexer_bytes && !states(*r.kv->basis.indexer_bytes)) {
            out.push_back(diag::statement_mismatch(
                where,
                fmt::format("the statement does not give the indexer's {} bytes per token per layer",
                            *r.kv->basis.indexer_bytes),
                "", std::to_string(*r.kv->basis.indexer_bytes)));
        }
        if (!r.kv->kv_bytes_per_token || !r.kv->kv_bytes_per_token->is_integer()) return;
        std::int64_t v = r.kv->kv_bytes_per_token->num();
        if (!states(v)) {
            out.push_back(diag::statement_mismatch(
                where, fmt::format("the statement does not give kv_bytes_per_token, {}", group_thousands(v)), "",
                group_thousands(v)));
        }
        return;
    }
    auto expected = structured_factors(r.kv->basis);
    if (!expected) return;  // the schema reports a missing factor
    auto located = statement_claim(r);
    const ClaimSide* expression = nullptr;
    if (located) {
        for (const auto& side : located->claim.sides) {
            if (side.is_expression()) {
                expression = &side;
                break;
            }
        }
    }
    if (!expression) {
        out.push_back(diag::statement_mismatch(
            where,
            fmt::format("the statement states no product with a result; write the factors and the result, "
                        "e.g. \"{} = N B/token\"",
                        join_factors(*expected)),
            "", join_factors(*expected)));
        return;
    }
    where = located->pos;
    std::vector<Rational> stated;
    try {
        stated = folded_factors(*expression);
    } catch (const OverflowError&) {
        out.push_back(diag::statement_mismatch(
            where,
            fmt::format("the statement's factors do not fit in 64 bits; the basis factors are {}",
                        join_factors(*expected)),
            "", join_factors(*expected)));
        return;
    }
    std::vector<Rational> a = stated, b = *expected;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) {
        out.push_back(diag::statement_mismatch(where,
                                               fmt::format("the statement multiplies {}, but the basis factors are {}",
                                                           join_factors(stated), join_factors(*expected)),
                                               join_factors(stated), join_factors(*expected)));
        return;
    }
    const ClaimSide& result = located->claim.sides.back();
    if (!result.is_expression() && r.kv->kv_bytes_per_token && result.value != *r.kv->kv_bytes_per_token) {
        out.push_back(
            diag::statement_mismatch(where,
                                     fmt::format("the statement gives {}, but kv_bytes_per_token is {}",
                                                 stated_figure(result), r.kv->kv_bytes_per_token->to_display()),
                                     stated_figure(result), r.kv->kv_bytes_per_token->to_display()));
    }
}

void id_context_tag(const Record& r, const RecordSet& /*set*/, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->points.empty() || r.id.empty()) return;
    auto tag = context_tag_of_id(r.id);
    if (!tag) return;
    // A curve's id names its longest context; a single point's names that point.
    std::int64_t longest = 0;
    for (const auto& point : r.kv->points) longest = std::max(longest, point.context_length);
    if (tag->second == longest) return;
    out.push_back(
        diag::id_context_tag(r.where("id"), tag->first, group_thousands(tag->second), group_thousands(longest)));
}

KVCAT_RULES(prose_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"prose-arithmetic", Severity::error,
                 "arithmetic stated in a record's prose does not hold; the right figure is printed", RuleStage::record,
                 prose_arithmetic},
        RuleInfo{"kv-statement-mismatch", Severity::error,
                 "`kv_bytes_basis.statement` does not state the basis factors and `kv_bytes_per_token`",
                 RuleStage::record, kv_statement_mismatch},
        RuleInfo{"id-context-tag", Severity::warning,
                 "an id's context tag (`-64k`, `-256k`, `-1m`) disagrees with `context_length`", RuleStage::record,
                 id_context_tag},
    };
    return kRules;
}

}  // namespace kvcat::rules
