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
