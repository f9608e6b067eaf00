# What copies, moves and puts keep besides the data (ACLs, attributes, owners, links,
# pseudo files) and the per-file reports, through the real file:// worker. Included from
# autotests/CMakeLists.txt.
ecm_add_tests(filemetadatatest.cpp
    NAME_PREFIX "qvfs-"
    LINK_LIBRARIES qvfstestutil)
add_dependencies(filemetadatatest qvfs-worker-file)
