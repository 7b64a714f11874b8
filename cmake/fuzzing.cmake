# libFuzzer targets (fuzz/): the record loader, the whole lint over one fuzzed record, the
# prose-claim recogniser, the query filter parser, the benchmark importer, the whole
# command line over a small records tree (cli), the engine-log importer (import_log) and the
# GGUF header reader with the model import of its metadata (gguf). Built only when configured with
# -DKVCAT_FUZZ=ON and clang++:
#
#   cmake -S . -B build/helper-fuzz -DCMAKE_CXX_COMPILER=clang++ -DKVCAT_FUZZ=ON -DKVCAT_BUILD_TESTS=OFF
#   cmake --build build/helper-fuzz --target kvcat_fuzzers
#   ctest --test-dir build/helper-fuzz -L fuzz        # a short run of every target, and a
#                                                     # replay of tests/hostile/ and fuzz/crashes/
#
# tools/fuzz does all of that and runs each target for longer. The library and the commands
# are compiled with coverage instrumentation and AddressSanitizer + UndefinedBehaviorSanitizer, so a
# memory error, undefined behaviour, an uncaught exception or a broken invariant checked
# by a target is a crash that libFuzzer keeps as a reproducer.
if(NOT KVCAT_FUZZ)
    return()
endif()

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
        "KVCAT_FUZZ=ON needs clang++ (libFuzzer ships with clang); this build uses ${CMAKE_CXX_COMPILER_ID} "
        "${CMAKE_CXX_COMPILER}. Configure a fresh build directory with -DCMAKE_CXX_COMPILER=clang++.")
endif()

set(KVCAT_FUZZ_SANITIZERS "address,undefined" CACHE STRING "Sanitizers for the fuzz build (-fsanitize=...)")
set(KVCAT_FUZZ_RUNS "20000" CACHE STRING "Executions of each target in its ctest run (ctest -L fuzz)")

# Instrument the library itself: coverage for libFuzzer, and the sanitizers. Whatever links
# the library (the fuzz targets, and kvcat and its tests if they are built here) links the
# sanitizer runtimes too.
# Line tables are what a sanitizer's stack trace needs (file and line); full debug information
# would double the compile and the link.
set(_kvcat_fuzz_common -fsanitize=${KVCAT_FUZZ_SANITIZERS} -fno-sanitize-recover=undefined -fno-omit-frame-pointer
    -gline-tables-only)
target_compile_options(kvcat_lib PRIVATE -fsanitize=fuzzer-no-link ${_kvcat_fuzz_common})
target_compile_options(kvcat_cli PRIVATE -fsanitize=fuzzer-no-link ${_kvcat_fuzz_common})
target_link_options(kvcat_lib INTERFACE -fsanitize=${KVCAT_FUZZ_SANITIZERS})
# The binary and the suite built here are sanitized in their own code too: tools/asan-test
# runs the suite from this build, so one sanitized build serves the suite and the fuzzers.
# They link as position-dependent executables: the coverage's table of instrumented blocks holds
# two addresses per block, and in a position-independent kvcat each is a relocation the loader
# writes at every start (287,000 of them, a tenth of a sanitized `kvcat --version`). The suite
# starts kvcat thousands of times.
foreach(_sanitized IN ITEMS kvcat kvcat_tests)
    if(TARGET ${_sanitized})
        target_compile_options(${_sanitized} PRIVATE ${_kvcat_fuzz_common})
        target_link_options(${_sanitized} PRIVATE -no-pie)
    endif()
endforeach()

set(_kvcat_fuzz_dir "${PROJECT_SOURCE_DIR}/fuzz")
set(_kvcat_fuzz_targets record_loader lint claims filter bench_import cli import_log gguf)
add_custom_target(kvcat_fuzzers)

enable_testing()
foreach(_name IN LISTS _kvcat_fuzz_targets)
    set(_target "fuzz_${_name}")
    add_executable(${_target} "${_kvcat_fuzz_dir}/fuzz_${_name}.cc")
    target_link_libraries(${_target} PRIVATE kvcat::lib)
    target_compile_definitions(${_target} PRIVATE KVCAT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_compile_options(${_target} PRIVATE -fsanitize=fuzzer ${_kvcat_fuzz_common})
    target_link_options(${_target} PRIVATE -fsanitize=fuzzer,${KVCAT_FUZZ_SANITIZERS})
    add_dependencies(kvcat_fuzzers ${_target})
    if(_name STREQUAL "cli")
        # The whole command line: the commands' library, whose kvcat_main is kvcat's main().
        target_link_libraries(${_target} PRIVATE kvcat_cli)
    endif()

    # A short run from the seed corpora (records/, tests/fixtures/, fuzz/seeds/<target>/), read
    # in place: libFuzzer reads corpus folders recursively, so nothing is copied into git. New
    # inputs go to a scratch folder in the build tree; a crash leaves its input in
    # fuzz-artifacts/<target>/ and fails the test.
    set(_work "${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/${_name}")
    set(_artifacts "${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/${_name}/")
    file(MAKE_DIRECTORY "${_work}" "${_artifacts}")
    set(_seeds)
    set(_candidates "${_kvcat_fuzz_dir}/seeds/${_name}")
    if(_name STREQUAL "bench_import")
        list(APPEND _candidates "${PROJECT_SOURCE_DIR}/tests/fixtures/import-bench")
    elseif(_name STREQUAL "import_log")
        list(APPEND _candidates "${PROJECT_SOURCE_DIR}/tests/fixtures/engine-logs")
    elseif(NOT _name MATCHES "^(filter|cli|gguf)$")
        list(APPEND _candidates "${PROJECT_SOURCE_DIR}/records" "${PROJECT_SOURCE_DIR}/tests/fixtures")
    endif()
    foreach(_dir IN LISTS _candidates)
        if(IS_DIRECTORY "${_dir}")
            list(APPEND _seeds "${_dir}")
        endif()
    endforeach()
    set(_dict "${_kvcat_fuzz_dir}/${_name}.dict")
    set(_dict_arg)
    if(EXISTS "${_dict}")
        set(_dict_arg "-dict=${_dict}")
    endif()
    add_test(NAME fuzz_${_name}_short
             COMMAND ${_target} -runs=${KVCAT_FUZZ_RUNS} -seed=1 -max_len=65536 -timeout=60 -rss_limit_mb=4096
                     -print_final_stats=1 ${_dict_arg} -artifact_prefix=${_artifacts} "${_work}" ${_seeds})
    set_tests_properties(fuzz_${_name}_short PROPERTIES LABELS fuzz TIMEOUT 900)

    # The hostile corpus and every input that ever crashed this target (fuzz/crashes/<target>/),
    # each run once: a known crash fails this test, not the short run, until it is fixed.
    set(_replay)
    foreach(_dir IN ITEMS "${PROJECT_SOURCE_DIR}/tests/hostile" "${_kvcat_fuzz_dir}/crashes/${_name}")
        if(IS_DIRECTORY "${_dir}" AND NOT (_name MATCHES "^(filter|bench_import|cli|import_log|gguf)$" AND _dir MATCHES "tests/hostile$"))
            list(APPEND _replay "${_dir}")
        endif()
    endforeach()
    if(_replay)
        add_test(NAME fuzz_${_name}_replay
                 COMMAND ${_target} -runs=0 -timeout=60 -rss_limit_mb=4096 -artifact_prefix=${_artifacts} ${_replay})
        set_tests_properties(fuzz_${_name}_replay PROPERTIES LABELS fuzz TIMEOUT 300)
    endif()
endforeach()
