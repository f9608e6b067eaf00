// SPDX-License-Identifier: LGPL-2.1-or-later
// webdav://: the real http worker against Debian's nginx with the dav and dav-ext modules
// ("webdav", the default server) and against apache2 with mod_dav_fs ("webdavapache", a
// second dialect), each on 127.0.0.1 (testutil/httpserverfixture), run by the helper
// qvfs-test-httpd (testutil/httpdhelper.cpp) outside this process's children, since
// every row checks that no child process is left. Each row works in a fresh folder of
// the served tree, seeded with raw system calls behind the server (and handed to the
// server's user: apache runs as www-data when the tests run as root). Names on WebDAV
// are UTF-8 (the worker's "names": "utf8"), so no RawNames.
//
// nginx's dav-ext module (3.0) leaves every name that starts with '.' out of its
// listings: a seeded folder holding such a name (or a tree with one below) cannot be
// listed completely, and the backend says so for that folder (itemCapabilities()).
// The same hides the temporaries of uploads (".NAME.qvfs-XXXX.part") from the suite's
// listing of the scratch area: endRow() looks for them on disk instead.
#include "webdavbackend.h"

using QvfsConformanceWebDav::WebDavBackend;
QVFS_CONFORMANCE_BACKEND(WebDavBackend, "webdav");
