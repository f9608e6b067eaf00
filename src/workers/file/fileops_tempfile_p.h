// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h: the temporary file that copy() and AtomicWriter
// write before putting it in place.
#ifndef QVFS_FILEOPS_TEMPFILE_P_H
#define QVFS_FILEOPS_TEMPFILE_P_H

#include "fileops_util_p.h"

#include <QByteArray>

#include <sys/types.h>
#include <unistd.h>

namespace Qvfs::FileOps
{

// A temporary file being written: O_TMPFILE (no name) or a named .part file, removed
// unless committed.
struct TempFile
{
    Fd fd;
    int dirFd = -1;
    QByteArray name;
    ~TempFile()
    {
        if (!name.isEmpty())
            ::unlinkat(dirFd, name.constData(), 0);
    }
};

// A hidden temporary name next to \a name: ".<name>.qvfs-XXXXXX.part", at most NAME_MAX bytes.
QByteArray tempName(const QByteArray &name);
// Opens a temporary file for \a dstName in \a dstDirFd: O_TMPFILE, or a hidden, uniquely
// named .part file made with O_EXCL where O_TMPFILE is unsupported (or not \a allowTmpFile).
OpResult openTempFile(
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, bool allowTmpFile, TempFile *tmp);
// Gives the finished temporary file its final name: without \a replace never over an
// existing entry; with it atomically over the destination.
OpResult commitTempFile(
    TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace);

} // namespace Qvfs::FileOps

#endif
