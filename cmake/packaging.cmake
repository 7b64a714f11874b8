# Where `cmake --install` puts kvcat, and how CPack turns that into a .deb.
#
# Only the program and what a user reads are installed: the binary, the shipped records, the
# JSON Schemas and catalog.sql (editors and other tools validate records against them), the
# man page, the bash completion and the licenses of the libraries built in. The tests are
# never installed.

include(GNUInstallDirs)

install(TARGETS kvcat RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES
        "${PROJECT_SOURCE_DIR}/schema/model.schema.json"
        "${PROJECT_SOURCE_DIR}/schema/accelerator.schema.json"
        "${PROJECT_SOURCE_DIR}/schema/kv-efficiency.schema.json"
        "${PROJECT_SOURCE_DIR}/schema/catalog.sql"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kvcat/schema)
install(FILES "${PROJECT_SOURCE_DIR}/docs/kvcat.1" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The shipped records, so that kvcat answers after an install: run outside a checkout it reads
# PREFIX/share/kvcat/records, found beside its own binary (src/load/data_dirs.h). Only the records
# themselves, and in a git checkout only the ones git tracks: a record still being written, not
# yet added, is nobody's to ship. The list is taken when the install runs, not at configure.
install(CODE "set(KVCAT_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(KVCAT_RECORDS_DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/kvcat/records\")
include(\"${PROJECT_SOURCE_DIR}/cmake/install_records.cmake\")")
# kvcat carries Vega, Vega-Lite and vega-embed inside it for `kvcat report`; their licenses
# go with it.
foreach(lib vega vega-lite vega-embed)
    install(FILES "${PROJECT_SOURCE_DIR}/third_party/${lib}/LICENSE"
            DESTINATION ${CMAKE_INSTALL_DOCDIR}/third_party/${lib})
endforeach()
# Debian's copyright file: kvcat's own terms and those of the code compiled into the binary.
install(FILES "${PROJECT_SOURCE_DIR}/cmake/copyright" DESTINATION ${CMAKE_INSTALL_DOCDIR})
# bash-completion loads completions/NAME on demand, by the command's name.
install(FILES "${PROJECT_SOURCE_DIR}/tools/completion/kvcat.bash"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME kvcat)

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "kvcat")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "kvcat")
# Override with -DCPACK_PACKAGE_CONTACT="Name <mail>" when publishing a package.
if(NOT DEFINED CPACK_PACKAGE_CONTACT)
    set(CPACK_PACKAGE_CONTACT "kvcat maintainers <kvcat@localhost>")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "checked catalog of LLM KV-cache costs")
# The Debian generator puts the summary on the Description line and this under it.
set(CPACK_PACKAGE_DESCRIPTION
    "kvcat lints reviewed YAML records of KV-cache bytes per token and speed at\n\
context (schema, references and exact byte arithmetic), writes them into a\n\
SQLite catalog and queries it.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kvcat_VERSION_ARCH.deb
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

# The runtime libraries: computed from the binary when dpkg-shlibdeps is there (it is on
# any Debian system with dpkg-dev), else the Debian 12 package names. SQLiteCpp is not
# among them: Debian 12 ships it only as a static library (libsqlitecpp-dev).
find_program(KVCAT_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(KVCAT_DPKG_SHLIBDEPS)
if(KVCAT_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS
        "libyaml-cpp0.7, libsqlite3-0, libcurl4, libspdlog1.10, libfmt9, libstdc++6, libgcc-s1, libc6")
endif()

include(CPack)
