// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h: counting what a tree holds, for directorySize()
// and for the totals of copy().
#ifndef QVFS_FILEOPS_TREE_P_H
#define QVFS_FILEOPS_TREE_P_H

#include "fileops.h"

#include <QByteArray>
#include <QtGlobal>

namespace Qvfs::FileOps
{

// What a tree holds, as directorySize() reports it.
struct Counts
{
    qint64 bytes = 0;
    qint64 files = 0;
    qint64 dirs = 0;
};

// Adds what is inside the folder (dirFd, name) to \a counts, without following symlinks.
// With \a strict, errors stop the walk; otherwise unreadable parts are left out.
bool countInside(int dirFd, const char *name, const QByteArray &path, Counts &counts, Context &context, bool strict,
    bool report, OpResult *error);

} // namespace Qvfs::FileOps

#endif
