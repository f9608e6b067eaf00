# The s3 worker (src/workers/s3): its request signing against AWS's published vectors.
ecm_add_test(sigv4test.cpp
    TEST_NAME sigv4test
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfs_s3_engine Qt6::Test)
