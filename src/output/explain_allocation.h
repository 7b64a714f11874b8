// `kvcat explain` for an allocation record: what the engine printed, the settings read from
// its log, and kvcat's recomputation part by part and term by term (check_allocation, the same
// the engine-allocation rule judges), with the textbook figure beside it and each place the
// engine leaves it, named by the engine model.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "load/record_set.h"

namespace kvcat {

/// The allocation section of an explanation, as JSON; `refs` holds the model record.
nlohmann::json explain_allocation(const RecordSet& refs, const Record& record);

/// The human-readable form of explain_allocation's data.
std::string render_allocation_text(const nlohmann::json& allocation);

}  // namespace kvcat
