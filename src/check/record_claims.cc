#include "check/record_claims.h"

#include <fmt/format.h>

namespace kvcat {

namespace {

/// A step of the path from the record's root to a value: a key, or an index in a list.
/// The steps live on the stack of the walk, so a path costs nothing until it is written.
struct PathStep {
    const PathStep* up = nullptr;
    bool item = false;  ///< a list item, at `index`; else the value of `key`
    std::string_view key;
    std::size_t index = 0;
};

/// "notes", "sources[1].detail": the dotted path of the value `step` leads to.
std::string dotted(const PathStep* step) {
    if (!step) return {};
    std::string head = dotted(step->up);
    if (step->item) return fmt::format("{}[{}]", head, step->index);
    return head.empty() ? std::string(step->key) : fmt::format("{}.{}", head, step->key);
}

/// Whether dotted(step) is "", without writing it.
bool empty_path(const PathStep* step) {
    for (; step; step = step->up) {
        if (step->item || !step->key.empty()) return false;
    }
    return true;
}

/// Calls visit(scalar, path) for every string value under `node`, in file order.
template <class Visit>
void each_scalar(const YamlNode& node, const PathStep* path, Visit& visit) {
    switch (node.kind) {
        case YamlNode::Kind::mapping:
            for (const auto& [key, value] : node.entries) {
                // lint_ignore names claims to silence; its text is not the record's prose
                if (key.value == "lint_ignore" && empty_path(path)) continue;
                PathStep step{path, false, key.value, 0};
                each_scalar(value, &step, visit);
            }
            return;
        case YamlNode::Kind::sequence:
            for (std::size_t i = 0; i < node.items.size(); ++i) {
                PathStep step{path, true, {}, i};
                each_scalar(node.items[i], &step, visit);
            }
            return;
        case YamlNode::Kind::scalar:
            visit(node, path);
            return;
        case YamlNode::Kind::null:
            return;
    }
}

/// `where` is the scalar's locator, shared by its claims: they come in file order, so
/// finding every position costs one walk of the scalar.
LocatedClaim locate(const Record& record, ScalarLocator& where, std::string path, Claim claim) {
    LocatedClaim out;
    out.field = std::move(path);
    out.pos = record.source->position(where.locate(claim.offset));
    out.side_marks.reserve(claim.sides.size());
    for (const auto& side : claim.sides) out.side_marks.push_back(where.locate(side.offset));
    out.claim = std::move(claim);
    return out;
}

}  // namespace

std::vector<FoundClaim> found_claims(const Record& record) {
    std::vector<FoundClaim> out;
    if (!record.root || !record.source) return out;
    auto visit = [&](const YamlNode& scalar, const PathStep*) {
        for (auto& claim : find_claims(scalar.value)) out.push_back(FoundClaim{&scalar, std::move(claim)});
    };
    each_scalar(*record.root, nullptr, visit);
    return out;
}

std::vector<LocatedClaim> record_claims(const Record& record) {
    std::vector<LocatedClaim> out;
    if (!record.root || !record.source) return out;
    auto visit = [&](const YamlNode& scalar, const PathStep* path) {
        auto claims = find_claims(scalar.value);
        if (claims.empty()) return;
        std::string field = dotted(path);
        ScalarLocator where(*record.source, scalar);
        for (auto& claim : claims) out.push_back(locate(record, where, field, std::move(claim)));
    };
    each_scalar(*record.root, nullptr, visit);
    return out;
}

Position ClaimLocator::position(const FoundClaim& found) {
    if (!record_.source || !found.scalar) return Position{record_.file, 0, 0};
    if (found.scalar != scalar_) {
        where_.emplace(*record_.source, *found.scalar);
        scalar_ = found.scalar;
    }
    return record_.source->position(where_->locate(found.claim.offset));
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
