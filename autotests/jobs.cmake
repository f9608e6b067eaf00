# Every public job against real temporary trees through the real file:// worker (and the
# test:// worker for the generic copy path), one test per job area like KIO's autotests.
# Fixtures come from testutil/. Included from autotests/CMakeLists.txt.
ecm_add_tests(
    listjobtest.cpp
    statjobtest.cpp
    simplejobtest.cpp
    directorysizejobtest.cpp
    freespacejobtest.cpp
    deletejobtest.cpp
    copyjobtest.cpp
    transferjobtest.cpp
    namestest.cpp
    accessdeniedtest.cpp
    genericcopytest.cpp
    jobbasicstest.cpp
    genericleftouttest.cpp
    filejobtest.cpp
    filedevicetest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
foreach(_test listjobtest statjobtest simplejobtest directorysizejobtest freespacejobtest deletejobtest copyjobtest
        transferjobtest namestest accessdeniedtest genericcopytest jobbasicstest genericleftouttest filejobtest
        filedevicetest)
    add_dependencies(${_test} qvfs-worker-file)
endforeach()
# genericcopytest runs copyjobtest's and namestest's functions again in a child process
# whose file:// worker is described without "copy"; the test:// worker is its source.
add_dependencies(genericcopytest qvfs-worker-test copyjobtest namestest)
target_compile_definitions(genericcopytest PRIVATE
    QVFS_COPYJOBTEST="$<TARGET_FILE:copyjobtest>"
    QVFS_NAMESTEST="$<TARGET_FILE:namestest>")
# The generic path's rows for unreadable entries once more through the file worker's own copy.
ecm_add_test(genericleftouttest.cpp
    TEST_NAME leftouttest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
target_compile_definitions(leftouttest PRIVATE QVFS_LEFTOUT_IN_WORKER)
add_dependencies(leftouttest qvfs-worker-file)
# filejobtest opens a test:// URL, whose worker does not declare "open"; freespacejobtest
# asks one for free space, which it does not declare either.
add_dependencies(filejobtest qvfs-worker-test)
add_dependencies(freespacejobtest qvfs-worker-test)

# Live folders: DirLister and the watch worker behind it (file:// with inotify, test://
# polling or following the application's own jobs).
ecm_add_test(dirlistertest.cpp
    TEST_NAME dirlistertest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
add_dependencies(dirlistertest qvfs-worker-file qvfs-worker-test)
set_tests_properties(qvfs-dirlistertest PROPERTIES TIMEOUT 600)
# DirModel (Qvfs::Models) under QAbstractItemModelTester, bare and behind a proxy.
ecm_add_test(dirmodeltest.cpp
    TEST_NAME dirmodeltest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES Qvfs::Models qvfstestutil)
add_dependencies(dirmodeltest qvfs-worker-file)
set_tests_properties(qvfs-dirmodeltest PROPERTIES TIMEOUT 600)
