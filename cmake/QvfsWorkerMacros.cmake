# qvfs_add_worker(<name> SOURCES <files>... [LIBS <libs>...] [JSON <file>]
#                 [INSTALL_DESTINATION <dir>] [TEST_ONLY])
#
# Adds the worker executable qvfs-worker-<name> linked to Qvfs::Worker, and puts its JSON
# description (default: qvfs-worker-<name>.json in the current source folder) beside
# it: in the build tree, so it can be used from there (QVFS_WORKER_PATH=<that folder>),
# and when installed (default destination: QVFS_WORKER_INSTALL_DIR, which Qvfs searches
# relative to its own library). TEST_ONLY: not installed.
#
# Part of the installed Qvfs package (find_package(Qvfs)), and used by Qvfs's own workers.
function(qvfs_add_worker name)
    cmake_parse_arguments(ARG "TEST_ONLY" "JSON;INSTALL_DESTINATION" "SOURCES;LIBS" ${ARGN})
    set(target qvfs-worker-${name})
    if(NOT ARG_JSON)
        set(ARG_JSON ${CMAKE_CURRENT_SOURCE_DIR}/${target}.json)
    endif()
    if(NOT ARG_INSTALL_DESTINATION)
        set(ARG_INSTALL_DESTINATION ${QVFS_WORKER_INSTALL_DIR})
    endif()
    add_executable(${target} ${ARG_SOURCES})
    target_link_libraries(${target} PRIVATE Qvfs::Worker ${ARG_LIBS})
    if(CMAKE_RUNTIME_OUTPUT_DIRECTORY)
        set(_dir ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
    else()
        set(_dir ${CMAKE_CURRENT_BINARY_DIR})
    endif()
    configure_file(${ARG_JSON} ${_dir}/${target}.json COPYONLY)
    if(NOT ARG_TEST_ONLY)
        # Find Qvfs's libraries relative to where the worker is installed (a relocated
        # prefix works), and the libraries of another prefix where they were linked from.
        set(_libdir lib)
        if(CMAKE_INSTALL_LIBDIR)
            set(_libdir ${CMAKE_INSTALL_LIBDIR})
        endif()
        file(RELATIVE_PATH _to_lib "${CMAKE_INSTALL_PREFIX}/${ARG_INSTALL_DESTINATION}" "${CMAKE_INSTALL_PREFIX}/${_libdir}")
        set_target_properties(${target} PROPERTIES
            INSTALL_RPATH "$ORIGIN/${_to_lib}"
            INSTALL_RPATH_USE_LINK_PATH TRUE)
        install(TARGETS ${target} DESTINATION ${ARG_INSTALL_DESTINATION})
        install(FILES ${ARG_JSON} DESTINATION ${ARG_INSTALL_DESTINATION} RENAME ${target}.json)
    endif()
endfunction()
