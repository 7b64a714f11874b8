// Nominal bytes per weight of the formats the exact table cannot size, for predictions only.
//
// The memory and bandwidth checks never use these: a record naming MXFP4 or Q4_K_M gets no
// weight figure there (vocab/weight_quant.h). A speed prediction only needs the bytes a token
// reads to within the error its interval already carries, so it takes each format's block
// layout (the bits of one block of weights with its scales) as the whole file's, and says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "support/rational.h"

namespace kvcat {

struct NominalWeights {
    Rational bytes_per_weight;
    std::string how;  ///< "MXFP4 taken as 4.25 bits a weight (its block layout)"
};

/// Exact formats at their exact size, a mix at its base block type, and the block formats of
/// the table in nominal_weights.cc; nullopt for a name none of them knows.
std::optional<NominalWeights> nominal_weights(std::string_view weight_quant);

}  // namespace kvcat
