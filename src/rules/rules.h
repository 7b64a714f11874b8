// The lint rules. A record rule judges one record against the models and accelerators
// it may name (`refs`) and appends findings; the id rule sees every id at once. No rule
// does I/O, so the lint can run them on many records at a time.
#pragma once

#include <vector>

#include "diagnostic.h"
#include "lint.h"

namespace kvcat::rules {

// structure_rules.cc
void id_matches_path(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
/// One id as the lint saw it, for the uniqueness check.
struct IdEntry {
    std::string id;
    Position pos;  ///< where the id is written; pos.file is the record's file
};
void ids_are_unique(const std::vector<IdEntry>& ids, std::vector<Diagnostic>& out);
void model_layers_agree(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

// reference_rules.cc
void references_resolve(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

// kv_rules.cc
void dtype_bytes_agree(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void basis_product_agrees(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void basis_agrees_with_model(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void variant_agrees_with_model(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void context_within_native(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

// physics_rules.cc
void tps_within_roofline(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void fits_in_memory(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

/// The accelerator record a row names, when it resolves to one.
const Accelerator* accelerator_of(const RecordSet& set, const KvRow& row);

// prose_rules.cc
void prose_arithmetic_holds(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void statement_matches_basis(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void id_context_tag_agrees(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

// vocabulary_rules.cc
void engine_is_known(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);
void weight_format_is_known(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

// quality_rules.cc
void quality_recovery_holds(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

/// The model record a kv-efficiency row names, when it resolves to a model.
const Model* model_of(const RecordSet& set, const KvRow& row);

}  // namespace kvcat::rules
