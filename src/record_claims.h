// Every arithmetic claim a record makes in prose, with where it sits in the file.
#pragma once

#include <string>
#include <vector>

#include "claims.h"
#include "diagnostic.h"
#include "records.h"

namespace kvcat {

struct LocatedClaim {
    std::string field;  ///< dotted path of the string it was found in: "notes", "sources[1].detail"
    Position pos;       ///< the file position of the claim's first number
    Claim claim;
    std::vector<Mark> side_marks;  ///< where each of claim.sides starts in the file
};

/// Scans every string value of the record (keys and lint_ignore excluded), in file order.
std::vector<LocatedClaim> record_claims(const Record& record);

/// The statement's product and result, parsed: the first claim of kv_bytes_basis.statement.
std::optional<LocatedClaim> statement_claim(const Record& record);

/// The factors of a claim side with each "a / b" folded into one fraction: 34/32 stays one factor.
std::vector<Rational> folded_factors(const ClaimSide& side);

}  // namespace kvcat
