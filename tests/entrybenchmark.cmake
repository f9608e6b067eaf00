# entrybenchmark: the record's cost on the wire and in the application, against two
# naive baselines measured in the same run (see entrybenchmark.cpp). Included from
# tests/CMakeLists.txt. It links the wire object library (the codec internals), never
# Qvfs::Core, and counts allocations itself (interposed malloc family).
add_executable(entrybenchmark entrybenchmark.cpp alloccount.cpp)
target_link_libraries(entrybenchmark PRIVATE QvfsProto)

# Quick mode in ctest: 10,000 entries. --strict fails on the bars that do not depend on
# the machine's speed (bytes and allocations); times are printed, never judged.
# Not in sanitizer builds (see tests/CMakeLists.txt).
if(NOT ECM_ENABLE_SANITIZERS)
    add_test(NAME entrybenchmark COMMAND entrybenchmark --quick --strict)
    set_tests_properties(entrybenchmark PROPERTIES TIMEOUT 120)
endif()
