# The http(s)/WebDAV worker's engine: the PROPFIND parser on its own, and the client
# against real nginx and apache2 servers started on 127.0.0.1 by the test
# (testutil/httpserverfixture), some through a misbehaving relay (testutil/loopbackproxy).
ecm_add_test(propfindparsertest.cpp
    TEST_NAME propfindparsertest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_http_engine Qt6::Test)

ecm_add_test(httpclienttest.cpp
    TEST_NAME httpclienttest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_http_engine qvfstestutil_http Qt6::Test)
# 100 MB transfers both ways on three servers, a slow reader, 10,000-entry listings
set_tests_properties(qvfs-httpclienttest PROPERTIES TIMEOUT 600)

# The web server of the conformance suite's webdav backend, run outside the test's
# children (the suite checks that a row leaves no child process).
add_executable(qvfs-test-httpd testutil/httpdhelper.cpp)
target_link_libraries(qvfs-test-httpd PRIVATE qvfstestutil_http)
ecm_mark_nongui_executable(qvfs-test-httpd)
