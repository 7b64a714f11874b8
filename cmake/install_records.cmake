# Installs the shipped records (records/**/*.yaml) into KVCAT_RECORDS_DESTINATION, keeping their
# folders. In a git checkout, only the files git tracks (`git ls-files`): a record written but
# not yet added stays out of a package. Outside one (a source tarball), every record file.
#
# Run by `cmake --install` (packaging.cmake's install(CODE)), or alone for a test:
#   cmake -D KVCAT_SOURCE_DIR=DIR -D KVCAT_RECORDS_DESTINATION=DEST -P cmake/install_records.cmake
if(NOT KVCAT_SOURCE_DIR OR NOT KVCAT_RECORDS_DESTINATION)
    message(FATAL_ERROR "install_records.cmake needs KVCAT_SOURCE_DIR and KVCAT_RECORDS_DESTINATION")
endif()

set(records)
find_program(KVCAT_GIT git)
if(KVCAT_GIT)
    execute_process(COMMAND "${KVCAT_GIT}" -C "${KVCAT_SOURCE_DIR}" rev-parse --is-inside-work-tree
                    OUTPUT_VARIABLE inside OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE not_git)
endif()
if(KVCAT_GIT AND NOT not_git AND inside STREQUAL "true")
    execute_process(COMMAND "${KVCAT_GIT}" -C "${KVCAT_SOURCE_DIR}" ls-files -- "records/*.yaml"
                    OUTPUT_VARIABLE listed RESULT_VARIABLE failed)
    if(failed)
        message(FATAL_ERROR "git ls-files failed in ${KVCAT_SOURCE_DIR}")
    endif()
    string(REPLACE "\n" ";" listed "${listed}")
    foreach(file IN LISTS listed)
        # A tracked file deleted from the work tree is not installed either.
        if(file AND EXISTS "${KVCAT_SOURCE_DIR}/${file}")
            list(APPEND records "${file}")
        endif()
    endforeach()
    set(how "tracked by git")
else()
    file(GLOB_RECURSE records RELATIVE "${KVCAT_SOURCE_DIR}" "${KVCAT_SOURCE_DIR}/records/*.yaml")
    set(how "found (no git checkout)")
endif()
list(LENGTH records count)
if(count EQUAL 0)
    message(FATAL_ERROR "no record file under ${KVCAT_SOURCE_DIR}/records to install")
endif()
foreach(file IN LISTS records)
    string(REGEX REPLACE "^records/?" "" inside_records "${file}")
    get_filename_component(folder "${inside_records}" DIRECTORY)
    file(INSTALL DESTINATION "${KVCAT_RECORDS_DESTINATION}/${folder}" TYPE FILE FILES "${KVCAT_SOURCE_DIR}/${file}")
endforeach()
message(STATUS "Installed ${count} record files ${how}")
