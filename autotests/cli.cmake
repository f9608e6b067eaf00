# The `qvfs` command-line client, driven as a program (QProcess, /bin/sh, script(1)).
if(TARGET qvfs)
    ecm_add_test(clitest.cpp
        TEST_NAME clitest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    target_compile_definitions(clitest PRIVATE
        QVFS_CLI_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
        QVFS_CLI_TEST_QM_DIR="${CMAKE_BINARY_DIR}")
    # The test runs the programs; make sure they are built with it.
    add_dependencies(clitest qvfs)
    foreach(_worker qvfs-worker-file qvfs-worker-test)
        if(TARGET ${_worker})
            add_dependencies(clitest ${_worker})
        endif()
    endforeach()
    # The launcher's handover of the worker it starts (src/cli/launcher.c).
    ecm_add_test(launchertest.cpp
        TEST_NAME launchertest
        NAME_PREFIX "qvfs-"
        LINK_LIBRARIES qvfstestutil)
    add_dependencies(launchertest qvfs)
endif()
