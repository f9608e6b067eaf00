# The http(s)/WebDAV worker's engine: the PROPFIND parser on its own, and the client
# against real nginx and apache2 servers started on 127.0.0.1 by the test
# (testutil/httpserverfixture, in qvfstestutil_base), some through a misbehaving relay
# (testutil/loopbackproxy, in qvfstestutil_http).
ecm_add_test(propfindparsertest.cpp
    TEST_NAME propfindparsertest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_http_engine qvfstestutil_base)

ecm_add_test(httpclienttest.cpp
    TEST_NAME httpclienttest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_http_engine qvfstestutil_http)
# 100 MB transfers both ways on three servers, a slow reader, 10,000-entry listings
set_tests_properties(qvfs-httpclienttest PROPERTIES TIMEOUT 600)

# The worker (qvfs-worker-http) through the public jobs API, against the same servers.
ecm_add_test(httpworkertest.cpp
    TEST_NAME httpworkertest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil qvfstestutil_http)
target_compile_definitions(httpworkertest PRIVATE QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin")
add_dependencies(httpworkertest qvfs-worker-http qvfs-worker-file)
if(TARGET qvfs)
    add_dependencies(httpworkertest qvfs)
endif()
# 100 MB both ways on two servers, a 10 MB/s reader, 10,000-entry folders, kills
set_tests_properties(qvfs-httpworkertest PROPERTIES TIMEOUT 900)

# The `qvfs` client with webdav://, webdavs:// and https:// URLs against nginx.
if(TARGET qvfs)
    ecm_add_test(httpclitest.cpp
        TEST_NAME httpclitest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    target_compile_definitions(httpclitest PRIVATE QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin")
    add_dependencies(httpclitest qvfs qvfs-worker-http qvfs-worker-file)
endif()

# The web server of the conformance suite's webdav backend, run outside the test's
# children (the suite checks that a row leaves no child process).
add_executable(qvfs-test-httpd testutil/httpdhelper.cpp)
target_link_libraries(qvfs-test-httpd PRIVATE qvfstestutil_base)
ecm_mark_nongui_executable(qvfs-test-httpd)

# Random access (Qvfs::open) on http:// and webdav:// against nginx: Range GETs, the
# same random-read check as filejobtest (testutil/filejobcheck).
ecm_add_test(httpfilejobtest.cpp
    TEST_NAME httpfilejobtest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
add_dependencies(httpfilejobtest qvfs-worker-http)
set_tests_properties(qvfs-httpfilejobtest PROPERTIES TIMEOUT 600)

# The worker against a small misbehaving server (testutil/hostilehttp.py): spliced
# resumes, lengths beyond the framing or the file's size, broken chunked bodies, an
# authentication loop — each copy fails and leaves no destination.
ecm_add_test(httphostiletest.cpp
    TEST_NAME httphostiletest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil qvfstestutil_http)
target_compile_definitions(httphostiletest PRIVATE QVFS_TEST_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
    QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin")
add_dependencies(httphostiletest qvfs-worker-http qvfs-worker-file)
if(TARGET qvfs)
    add_dependencies(httphostiletest qvfs)
endif()
