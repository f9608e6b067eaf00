# entry_benchmark: the record's cost on the wire and in the application, against two
# naive baselines measured in the same run (see entry_benchmark.cpp). Included from
# tests/CMakeLists.txt. It links the wire object library (the codec internals), never
# Qvfs::Core, and counts allocations itself (interposed malloc family).
add_executable(entry_benchmark entry_benchmark.cpp alloccount.cpp)
target_link_libraries(entry_benchmark PRIVATE QvfsProto)

# Quick mode in ctest: 10,000 entries. --strict fails on the bars that do not depend on
# the machine's speed (bytes and allocations); times are printed, never judged.
# (Not in sanitizer builds, which do not add tests/.)
add_test(NAME entry_benchmark COMMAND entry_benchmark --quick --strict)
set_tests_properties(entry_benchmark PROPERTIES TIMEOUT 120)
