#include "record_claims.h"

#include <fmt/format.h>

#include "source_map.h"

namespace kvcat {

namespace {

/// `where` is the scalar's locator, shared by its claims: they come in file order, so
/// finding every position costs one walk of the scalar.
LocatedClaim locate(const Record& record, ScalarLocator& where, const std::string& path, Claim claim) {
    LocatedClaim out;
    out.field = path;
    out.pos = record.source->position(where.locate(claim.offset));
    for (const auto& side : claim.sides) out.side_marks.push_back(where.locate(side.offset));
    out.claim = std::move(claim);
    return out;
}

void scan(const Record& record, const YamlNode& node, const std::string& path, std::vector<LocatedClaim>& out) {
    switch (node.kind) {
        case YamlNode::Kind::mapping:
            for (const auto& [key, value] : node.entries) {
                scan(record, value, path.empty() ? key.value : path + "." + key.value, out);
            }
            return;
        case YamlNode::Kind::sequence:
            for (std::size_t i = 0; i < node.items.size(); ++i) {
                scan(record, node.items[i], fmt::format("{}[{}]", path, i), out);
            }
            return;
        case YamlNode::Kind::scalar: {
            auto claims = find_claims(node.value);
            if (claims.empty()) return;
            ScalarLocator where(*record.source, node);
            for (auto& claim : claims) out.push_back(locate(record, where, path, std::move(claim)));
            return;
        }
        case YamlNode::Kind::null:
            return;
    }
}

}  // namespace

std::vector<LocatedClaim> record_claims(const Record& record) {
    std::vector<LocatedClaim> out;
    if (record.root && record.source) scan(record, *record.root, "", out);
    return out;
}

std::optional<LocatedClaim> statement_claim(const Record& record) {
    const YamlNode* node = record.node("kv_bytes_basis.statement");
    if (!node || !node->is_scalar() || !record.source) return std::nullopt;
    for (auto& claim : find_claims(node->value)) {
        ScalarLocator where(*record.source, *node);
        return locate(record, where, "kv_bytes_basis.statement", std::move(claim));
    }
    return std::nullopt;
}

std::vector<Rational> folded_factors(const ClaimSide& side) {
    std::vector<Rational> out;
    for (std::size_t i = 0; i < side.factors.size(); ++i) {
        bool divides = i > 0 && i - 1 < side.ops.size() && side.ops[i - 1] == '/';
        if (divides && !out.empty() && !side.factors[i].is_zero()) {
            out.back() = out.back() / side.factors[i];
        } else {
            out.push_back(side.factors[i]);
        }
    }
    return out;
}

}  // namespace kvcat
