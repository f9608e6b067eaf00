// SPDX-License-Identifier: LGPL-2.1-or-later
// webdav:// on apache2 with mod_dav_fs and mod_auth_digest (the second WebDAV dialect);
// the backend is webdavbackend.h's, see webdavbackend.cpp.
#include "webdavbackend.h"

using QvfsConformanceWebDav::WebDavApacheBackend;
QVFS_CONFORMANCE_BACKEND(WebDavApacheBackend, "webdavapache");
