// SPDX-License-Identifier: LGPL-2.1-or-later
// libfuse's low-level API at the version the mount is written against (Debian 12: 3.14).
#ifndef QVFS_FUSEAPI_P_H
#define QVFS_FUSEAPI_P_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#endif
