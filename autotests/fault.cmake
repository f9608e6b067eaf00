# The fault matrix: real worker processes killed, stopped, starved of disk space, a
# read-only destination, sources changing under a copy, many concurrent jobs, and an
# application that dies mid-copy (faultapp). Included from autotests/CMakeLists.txt.
add_executable(faultapp faultapp.cpp)
target_link_libraries(faultapp PRIVATE Qvfs::Core)
target_include_directories(faultapp PRIVATE testutil) # procutil.h
ecm_mark_nongui_executable(faultapp)

ecm_add_tests(faulttest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
target_compile_definitions(faulttest PRIVATE QVFS_FAULTAPP="$<TARGET_FILE:faultapp>")
add_dependencies(faulttest qvfs-worker-file faultapp)
# Mounts, kills and 2,000-file trees: give it room on slow machines. Alone: a row bounds how
# long the pool takes to end a stopped worker (2.5 s), which another test's load stretches.
set_tests_properties(qvfs-faulttest PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE)
