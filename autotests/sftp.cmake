# The sftp engine (src/workers/sftp): its packet parser and ssh message recognition
# in-process, and the whole engine against a real sshd on 127.0.0.1 started by
# autotests/testutil/sshdfixture.cpp (in qvfstestutil_base, which needs no Qvfs library).
# Included from autotests/CMakeLists.txt.
if(TARGET qvfs_sftp_engine)
    ecm_add_test(sftppackettest.cpp
        TEST_NAME sftppackettest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfs_sftp_engine Qt6::Test)
    ecm_add_test(sftpsessiontest.cpp
        TEST_NAME sftpsessiontest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfs_sftp_engine qvfstestutil_base)
    # The session finds the askpass relay beside the running program (bin/).
    add_dependencies(sftpsessiontest qvfs-sftp-askpass)
    # 100 MiB transfers, sshd restarts, a system user made (useradd locks /etc/passwd):
    # one sftp test at a time (the lock), beside the tests of other areas.
    set_tests_properties(qvfs-sftpsessiontest PROPERTIES TIMEOUT 600 RESOURCE_LOCK qvfs-sftpd)
    # Session::readAt() (random access) and its read-ahead.
    ecm_add_test(sftpreadattest.cpp
        TEST_NAME sftpreadattest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfs_sftp_engine qvfstestutil_base)
    add_dependencies(sftpreadattest qvfs-sftp-askpass)
    set_tests_properties(qvfs-sftpreadattest PROPERTIES TIMEOUT 300 RESOURCE_LOCK qvfs-sftpd)
endif()

# The sftp worker (src/workers/sftp/sftpworker*) through the public jobs API and the
# worker pool against the same real sshd; and the `qvfs` client with sftp:// URLs.
if(TARGET qvfs-worker-sftp)
    # The fixture in a process that is not the test's child (conformance/backends/sftpbackend.cpp).
    add_executable(qvfs-test-sshd testutil/sshdhelper.cpp)
    target_link_libraries(qvfs-test-sshd PRIVATE qvfstestutil_base)
    ecm_mark_nongui_executable(qvfs-test-sshd)

    ecm_add_test(sftpworkertest.cpp
        TEST_NAME sftpworkertest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    add_dependencies(sftpworkertest qvfs-worker-sftp qvfs-worker-file qvfs-sftp-askpass)
    set_tests_properties(qvfs-sftpworkertest PROPERTIES TIMEOUT 900 RESOURCE_LOCK qvfs-sftpd)

    # Random access: filejobtest's rows again, on sftp:// URLs of the same local files.
    add_test(NAME qvfs-filejobtest-sftp COMMAND filejobtest)
    add_dependencies(filejobtest qvfs-worker-sftp qvfs-test-sshd qvfs-sftp-askpass)
    set_tests_properties(qvfs-filejobtest-sftp PROPERTIES ENVIRONMENT "QVFS_OPEN_BACKEND=sftp" TIMEOUT 600 RESOURCE_LOCK qvfs-sftpd)
    add_test(NAME qvfs-filedevicetest-sftp COMMAND filedevicetest)
    add_dependencies(filedevicetest qvfs-worker-sftp qvfs-test-sshd qvfs-sftp-askpass)
    set_tests_properties(qvfs-filedevicetest-sftp PROPERTIES ENVIRONMENT "QVFS_OPEN_BACKEND=sftp" TIMEOUT 600 RESOURCE_LOCK qvfs-sftpd)

    if(TARGET qvfs)
        ecm_add_test(sftpclitest.cpp
            TEST_NAME sftpclitest
            NAME_PREFIX "qvfs-"
            LINK_LIBRARIES qvfstestutil)
        target_compile_definitions(sftpclitest PRIVATE QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
            QVFS_CLI_TEST_QM_DIR="${CMAKE_BINARY_DIR}")
        add_dependencies(sftpclitest qvfs qvfs-worker-sftp qvfs-worker-file qvfs-sftp-askpass)
        set_tests_properties(qvfs-sftpclitest PROPERTIES TIMEOUT 300 RESOURCE_LOCK qvfs-sftpd)
    endif()
endif()
