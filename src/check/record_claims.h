// Every arithmetic claim a record makes in prose, with where it sits in the file.
//
// Finding the claims is the lint's work on every record; placing one at a line and
// column is needed only when it is reported, and most claims hold. found_claims()
// therefore returns each claim with the scalar it came from and nothing more, and a
// ClaimLocator places the ones that are shown. record_claims() does both at once, for
// callers that show every claim (explain, ignores, tests).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check/claims.h"
#include "load/records.h"
#include "load/source_map.h"
#include "support/diagnostic.h"

namespace kvcat {

/// A claim and the string value it was found in, not yet placed in the file.
struct FoundClaim {
    const YamlNode* scalar = nullptr;
    Claim claim;
};

struct LocatedClaim {
    std::string field;  ///< dotted path of the string it was found in: "notes", "sources[1].detail"
    Position pos;       ///< the file position of the claim's first number
    Claim claim;
    std::vector<Mark> side_marks;  ///< where each of claim.sides starts in the file
};

/// Scans every string value of the record (keys and lint_ignore excluded), in file order.
std::vector<FoundClaim> found_claims(const Record& record);

/// The same claims, each with its field and its position and those of its sides.
std::vector<LocatedClaim> record_claims(const Record& record);

/// Places found claims of one record in its file. Asked in file order (as found_claims
/// returns them), it walks each scalar once however many of its claims are placed.
class ClaimLocator {
  public:
    explicit ClaimLocator(const Record& record) : record_(record) {}
    /// The file position of the claim's first number.
    Position position(const FoundClaim& found);

  private:
    const Record& record_;
    const YamlNode* scalar_ = nullptr;
    std::optional<ScalarLocator> where_;
};

/// The statement's product and result, parsed: the first claim of kv_bytes_basis.statement.
std::optional<LocatedClaim> statement_claim(const Record& record);

/// The factors of a claim side with each "a / b" folded into one fraction: 34/32 stays one factor.
std::vector<Rational> folded_factors(const ClaimSide& side);

}  // namespace kvcat
