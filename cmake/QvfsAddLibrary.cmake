# qvfs_add_library(<name> SOURCES <files>... HEADER_NAMES <CamelCase>... [INCLUDE_DIRS <dirs>...])
#
# Adds the shared library Qvfs<name> of Qvfs's own build, as the installed package has
# it: the alias Qvfs::<name> (the package's Qvfs::<name>), the export header
# qvfs<name>_export.h (lower case), the library version and soname, and its run path
# beside its siblings ($ORIGIN); installed with the CamelCase headers HEADER_NAMES
# (<Qvfs/ListJob>) and their lower-case headers ("qvfs/listjob.h") under include/Qvfs.
# In the build tree its users include the current source and binary folders and
# INCLUDE_DIRS. Libraries to link and a logging category are the caller's.
#
# Not installed: workers outside this repository use qvfs_add_worker() instead.
function(qvfs_add_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;HEADER_NAMES;INCLUDE_DIRS" ${ARGN})
    set(target Qvfs${name})
    string(TOLOWER ${target} lower)
    add_library(${target} SHARED ${ARG_SOURCES})
    add_library(Qvfs::${name} ALIAS ${target})
    ecm_generate_export_header(${target}
        BASE_NAME ${target}
        EXPORT_FILE_NAME ${lower}_export.h
        VERSION ${PROJECT_VERSION}
        USE_VERSION_HEADER qvfs_version.h
        DEPRECATION_VERSIONS)
    set(build_dirs ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR} ${ARG_INCLUDE_DIRS})
    target_include_directories(${target}
        PUBLIC "$<BUILD_INTERFACE:${build_dirs}>"
        INTERFACE "$<INSTALL_INTERFACE:${KDE_INSTALL_INCLUDEDIR}/Qvfs>")
    set_target_properties(${target} PROPERTIES
        INSTALL_RPATH "$ORIGIN"
        VERSION ${QVFS_VERSION}
        SOVERSION ${QVFS_SOVERSION}
        EXPORT_NAME ${name}
        OUTPUT_NAME ${target})

    ecm_generate_headers(camelcase_headers
        HEADER_NAMES ${ARG_HEADER_NAMES}
        PREFIX Qvfs
        REQUIRED_HEADERS headers)
    install(TARGETS ${target} EXPORT QvfsTargets ${KDE_INSTALL_TARGETS_DEFAULT_ARGS})
    # <Qvfs/ListJob> includes "qvfs/listjob.h": both under include/Qvfs.
    install(FILES ${camelcase_headers} DESTINATION ${KDE_INSTALL_INCLUDEDIR}/Qvfs/Qvfs COMPONENT Devel)
    install(FILES ${headers} ${CMAKE_CURRENT_BINARY_DIR}/${lower}_export.h
        DESTINATION ${KDE_INSTALL_INCLUDEDIR}/Qvfs/qvfs COMPONENT Devel)
endfunction()
