# Every public job against real temporary trees through the real file:// worker (and the
# test:// worker for the generic copy path). Included from autotests/CMakeLists.txt.
ecm_add_tests(filejobstest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES Qvfs::Core Qt6::Test)
add_dependencies(filejobstest qvfs-worker-file qvfs-worker-test)
