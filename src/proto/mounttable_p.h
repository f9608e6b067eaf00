// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_MOUNTTABLE_P_H
#define QVFS_MOUNTTABLE_P_H

// This process's mount table (/proc/self/mountinfo), for the trash worker (which volumes
// may hold a trash), `qvfs umount` (is a folder a qvfs mount) and the tests. Internal.

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QList>

namespace Qvfs::Internal
{

/*! One mount: where (raw bytes, escapes undone) and its filesystem type ("ext4", "fuse.qvfs"). */
struct MountEntry
{
    QByteArray point;
    QByteArray type;
};

/*! The mounts of this process's namespace, in /proc/self/mountinfo's order; empty when unreadable. */
QVFSPROTO_EXPORT QList<MountEntry> mountTable();

} // namespace Qvfs::Internal

#endif
