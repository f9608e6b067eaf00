# A real Samba server on 127.0.0.1 for the smb worker's tests
# (autotests/testutil/smbdfixture.cpp). Included from autotests/CMakeLists.txt after the
# conformance suite.

# The fixture itself, checked with Samba's command-line client; it needs no worker.
find_program(QVFS_SMBCLIENT_PROGRAM smbclient)
if(QVFS_SMBCLIENT_PROGRAM)
    ecm_add_test(smbdfixturetest.cpp
        TEST_NAME smbdfixturetest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil_base)
    set_tests_properties(qvfs-smbdfixturetest PROPERTIES TIMEOUT 120)
endif()

# The smb worker (src/workers/smb, built when libsmbclient is found) against it.
if(TARGET qvfs-worker-smb)
    # The fixture in a process that is not the test's child (conformance/backends/smbbackend.cpp).
    add_executable(qvfs-test-smbd testutil/smbdhelper.cpp)
    target_link_libraries(qvfs-test-smbd PRIVATE qvfstestutil_base)
    ecm_mark_nongui_executable(qvfs-test-smbd)

    # The smb worker's own rows: shares, passwords, guest, 10,000 entries, 256 MiB both
    # ways, a kill mid-transfer, a copy inside the share by the server.
    ecm_add_test(smbworkertest.cpp
        TEST_NAME smbworkertest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    add_dependencies(smbworkertest qvfs-worker-smb qvfs-worker-file)
    # One smbd test at a time (conformance-smb takes the same lock), beside the others.
    set_tests_properties(qvfs-smbworkertest PROPERTIES TIMEOUT 600 RESOURCE_LOCK qvfs-smbd)

    # conformance/CMakeLists.txt leaves the smb backend out without the worker.
    add_dependencies(conformancetest qvfs-worker-smb qvfs-test-smbd)
endif()
