// What every engine's record check (engines/<engine>/<engine>_record_check.cc) reads an
// allocation record with, and how it sets a printed figure beside kvcat's.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "engines/allocation_check.h"
#include "load/records.h"
#include "support/rational.h"
#include "vocab/dtype.h"

namespace kvcat::allocation_fields {

/// The scalar at `key`, or nullptr when it is absent or null.
const YamlNode* at(const Record& r, const std::string& key);
std::optional<std::int64_t> integer(const Record& r, const std::string& key);
/// The scalar's text, "" when absent.
std::string text(const Record& r, const std::string& key);
/// Printed and computed decimals are the same number ("8192.00" and "8192.0" alike).
bool same_decimal(const std::string& printed, const std::string& computed);
/// "0.74": a figure at the two decimals engines print.
std::string two(double x);
/// "1 layer", "32 layers".
std::string plural(std::int64_t n, std::string_view word);
/// An exact byte count with its thousands grouped, or the fraction when it is not whole.
std::string bytes_words(const Rational& r);

/// The part's values as the record gives them: the printed figures (`figures`) apart from the
/// settings read beside them.
void read_part(const Record& r, const std::string& key, std::initializer_list<std::string_view> figures,
               AllocationPartCheck& part);

/// A decimal figure the record says the engine printed at `key`, judged against `computed`
/// at the digits the engine prints. Nothing when the record holds no such figure.
void decimal_figure(const Record& r, const std::string& key, std::string computed, std::string unit, std::string why,
                    AllocationPartCheck& part);

/// The cache dtype a torch engine (vLLM, SGLang) keeps for `kv` ("auto" is the model's dtype).
std::optional<CacheDtype> torch_cache_dtype(const std::string& kv, const std::string& model_dtype);

}  // namespace kvcat::allocation_fields
