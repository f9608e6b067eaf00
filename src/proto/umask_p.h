// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_UMASK_P_H
#define QVFS_UMASK_P_H

// The process's file mode creation mask, for both sides of the socket: the file worker's
// writers and the copy job (what it gives foreignCopyMode(), copyrules.h). Internal.

#include "qvfsproto_export.h"

#include <sys/types.h>

namespace Qvfs
{

/*!
 * The umask without changing it: /proc/self/status has it since Linux 4.7; umask() itself
 * (the fallback) would briefly set it for every thread.
 */
QVFSPROTO_EXPORT mode_t processUmask();

} // namespace Qvfs

#endif
