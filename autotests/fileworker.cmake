# The file worker under attack and at its limits (issues 15 and 16), driven through the
# real worker and the public jobs API: one test per area. Races are made repeatable with
# strace holding one worker system call (workerhold.h); deep trees run the worker under
# prlimit. Included from autotests/CMakeLists.txt.
ecm_add_tests(
    filesecuritytest.cpp
    fileurlpathtest.cpp
    filewalktest.cpp
    filedeletetest.cpp
    fileentrytest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
foreach(test filesecuritytest fileurlpathtest filewalktest filedeletetest fileentrytest)
    add_dependencies(${test} qvfs-worker-file)
endforeach()
# The walk by folder descriptors itself, in-process (no worker).
ecm_add_test(folderwalktest.cpp
    TEST_NAME folderwalktest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_fileops qvfstestutil)
