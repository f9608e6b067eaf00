# The http(s)/WebDAV worker's engine: the PROPFIND parser on its own, and the client
# against real nginx and apache2 servers started on 127.0.0.1 by the test
# (testutil/httpserverfixture), some through a misbehaving relay (testutil/loopbackproxy).
add_library(qvfs_testutil_http STATIC testutil/httpserverfixture.cpp testutil/loopbackproxy.cpp)
target_include_directories(qvfs_testutil_http PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/testutil)
target_link_libraries(qvfs_testutil_http PUBLIC Qt6::Core Qt6::Network)

ecm_add_test(propfindparsertest.cpp
    TEST_NAME propfindparsertest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_http_engine Qt6::Test)

