# The sftp engine (src/workers/sftp): its packet parser and ssh message recognition
# in-process, and the whole engine against a real sshd on 127.0.0.1 started by
# autotests/testutil/sshdfixture.cpp. Included from autotests/CMakeLists.txt.
if(TARGET qvfs_sftp_engine)
    ecm_add_test(sftppackettest.cpp
        TEST_NAME sftppackettest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfs_sftp_engine Qt6::Test)
    ecm_add_test(sftpsessiontest.cpp testutil/sshdfixture.cpp
        TEST_NAME sftpsessiontest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfs_sftp_engine Qt6::Test)
    target_include_directories(sftpsessiontest PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    # The session finds the askpass relay beside the running program (bin/).
    add_dependencies(sftpsessiontest qvfs-sftp-askpass)
    # 100 MiB transfers, sshd restarts; it also creates a system user: one at a time.
    set_tests_properties(qvfs-sftpsessiontest PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE)
endif()
