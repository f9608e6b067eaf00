# The s3 worker (src/workers/s3): its request signing against AWS's published vectors.
ecm_add_test(sigv4test.cpp
    TEST_NAME sigv4test
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_s3_engine Qt6::Test)

# A real S3 server on 127.0.0.1 (testutil/rgwfixture.cpp: Ceph's radosgw, one monitor, one
# memstore OSD), checked with curl's SigV4; it needs no worker.
ecm_add_test(rgwfixturetest.cpp
    TEST_NAME rgwfixturetest
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil_base)
set_tests_properties(qvfs-rgwfixturetest PROPERTIES TIMEOUT 180)

# The s3 worker through the jobs API against the fixture (started once for the program):
# buckets, a 10,000-key prefix, awkward keys, folders and markers, 100 MiB in one PUT and
# in parts, a kill mid-upload, a wrong secret, a skewed clock, copies by the server, virtual-host
# style.
if(TARGET qvfs-worker-s3)
    ecm_add_test(s3workertest.cpp
        TEST_NAME s3workertest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil qvfs_s3_engine)
    add_dependencies(s3workertest qvfs-worker-s3 qvfs-worker-file)
    # testutil/forwardproxy.py: the way to radosgw's virtual-host name
    target_compile_definitions(s3workertest PRIVATE QVFS_TEST_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
    # One radosgw test at a time (conformance-s3 takes the same lock), beside the others.
    set_tests_properties(qvfs-s3workertest PROPERTIES TIMEOUT 600 RESOURCE_LOCK qvfs-s3d)
endif()

# The fixture in a process that is not the test's child (conformance/backends/s3backend.cpp).
if(TARGET qvfs-worker-s3)
    add_executable(qvfs-test-rgw testutil/rgwhelper.cpp)
    target_link_libraries(qvfs-test-rgw PRIVATE qvfstestutil_base)
    ecm_mark_nongui_executable(qvfs-test-rgw)
    add_dependencies(conformancetest qvfs-worker-s3 qvfs-test-rgw)
endif()
