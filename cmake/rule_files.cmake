# The lint's rule files, one a line, in name order. Each declares its own rules (KVCAT_RULES in
# src/rules/rules.h); tools/new-rule adds the line of a new one, and the ctest rule_files_listed
# fails when a file of src/rules/ is missing here or a line names no file.
set(KVCAT_RULE_SOURCES
    src/rules/curve_rules.cc
    src/rules/engine_allocation.cc
    src/rules/engine_kv_dtype.cc
    src/rules/id_invisible_character.cc
    src/rules/kv_rules.cc
    src/rules/loader_rules.cc
    src/rules/physics_rules.cc
    src/rules/prose_rules.cc
    src/rules/quality_rules.cc
    src/rules/reference_rules.cc
    src/rules/source_url.cc
    src/rules/run_rules.cc
    src/rules/structure_rules.cc
    src/rules/vocabulary_rules.cc
)
