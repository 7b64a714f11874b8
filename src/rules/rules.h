// The lint rules. Each takes the whole record set and appends findings; none does I/O.
#pragma once

#include <vector>

#include "diagnostic.h"
#include "lint.h"

namespace kvcat::rules {

// structure_rules.cc
void id_matches_path(const RecordSet& set, std::vector<Diagnostic>& out);
void ids_are_unique(const RecordSet& set, std::vector<Diagnostic>& out);
void model_layers_agree(const RecordSet& set, std::vector<Diagnostic>& out);

// reference_rules.cc
void references_resolve(const RecordSet& set, std::vector<Diagnostic>& out);

// kv_rules.cc
void dtype_bytes_agree(const RecordSet& set, std::vector<Diagnostic>& out);
void basis_product_agrees(const RecordSet& set, std::vector<Diagnostic>& out);
void basis_agrees_with_model(const RecordSet& set, std::vector<Diagnostic>& out);
void variant_agrees_with_model(const RecordSet& set, std::vector<Diagnostic>& out);
void context_within_native(const RecordSet& set, std::vector<Diagnostic>& out);

// physics_rules.cc
void tps_within_roofline(const RecordSet& set, std::vector<Diagnostic>& out);
void fits_in_memory(const RecordSet& set, std::vector<Diagnostic>& out);

/// The accelerator record a row names, when it resolves to one.
const Accelerator* accelerator_of(const RecordSet& set, const KvRow& row);

// prose_rules.cc
void prose_arithmetic_holds(const RecordSet& set, std::vector<Diagnostic>& out);
void statement_matches_basis(const RecordSet& set, std::vector<Diagnostic>& out);
void id_context_tag_agrees(const RecordSet& set, std::vector<Diagnostic>& out);

/// The model record a kv-efficiency row names, when it resolves to a model.
const Model* model_of(const RecordSet& set, const KvRow& row);

}  // namespace kvcat::rules
