# The lint's rule files, one a line, in name order. Each declares its own rules (KVCAT_RULES in
# src/check/rules/rules.h); tools/new-rule adds the line of a new one, and the ctest rule_files_listed
# fails when a file of src/check/rules/ is missing here or a line names no file.
set(KVCAT_RULE_SOURCES
    src/check/rules/allocation_log_lines.cc
    src/check/rules/curve_rules.cc
    src/check/rules/engine_allocation.cc
    src/check/rules/engine_kv_dtype.cc
    src/check/rules/engine_profile.cc
    src/check/rules/figure_missing.cc
    src/check/rules/id_card_count.cc
    src/check/rules/id_dtype_tag.cc
    src/check/rules/id_engine_tag.cc
    src/check/rules/id_invisible_character.cc
    src/check/rules/kv_rules.cc
    src/check/rules/loader_rules.cc
    src/check/rules/measured_without_card.cc
    src/check/rules/memory_reported.cc
    src/check/rules/physics_rules.cc
    src/check/rules/prose_rules.cc
    src/check/rules/quality_rules.cc
    src/check/rules/reference_rules.cc
    src/check/rules/run_rules.cc
    src/check/rules/source_url.cc
    src/check/rules/speed_rules.cc
    src/check/rules/structure_rules.cc
    src/check/rules/tensors_mapping.cc
    src/check/rules/vocabulary_rules.cc
)
