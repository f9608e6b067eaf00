# The trash: trashing by the file worker, trash:/ by the trash worker, on the home trash
# and loop-mounted ext4 volumes, held against gio and trash-cli. Included from
# autotests/CMakeLists.txt.
ecm_add_test(trashtest.cpp
    TEST_NAME trashtest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
target_compile_definitions(trashtest PRIVATE
    QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
    QVFS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(trashtest qvfs qvfs-worker-file qvfs-worker-trash)
set_tests_properties(qvfs-trashtest PROPERTIES TIMEOUT 600)
# The pure parts (Path encoding, .trashinfo parsing, free names, directorysizes), in-process.
ecm_add_test(trashinfotest.cpp
    TEST_NAME trashinfotest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_trashlib qvfstestutil)
