# qvfs mount (src/mount) end to end: file://, sftp:// against the test sshd and webdav://
# against the test nginx, mounted on a real /dev/fuse by the built qvfs (as root; the
# test skips with a message where that cannot be). Included from autotests/CMakeLists.txt.
if(TARGET qvfs_mount AND TARGET qvfs-worker-sftp AND TARGET qvfs-worker-http)
    ecm_add_test(mounttest.cpp
        TEST_NAME mounttest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    target_compile_definitions(mounttest PRIVATE QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin")
    add_dependencies(mounttest qvfs qvfs-worker-file qvfs-worker-sftp qvfs-worker-http qvfs-sftp-askpass)
    # Mounts, an sshd and an nginx; large files on them.
    set_tests_properties(qvfs-mounttest PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE)
endif()
