# Tests of the record, its codec and the framing (internals: they link the wire object
# library, never Qvfs::Core). Included from autotests/CMakeLists.txt.
ecm_add_tests(
    entrytest.cpp
    frametest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES QvfsProto Qt6::Test)
