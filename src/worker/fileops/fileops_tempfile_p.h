// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h: the temporary file that copy() and AtomicWriter
// write before putting it in place.
#ifndef QVFS_FILEOPS_TEMPFILE_P_H
#define QVFS_FILEOPS_TEMPFILE_P_H

#include "fileops_util_p.h"

#include <QByteArray>
#include <QByteArrayView>

#include <sys/types.h>
#include <unistd.h>

namespace Qvfs::FileOps
{

// A temporary file being written: O_TMPFILE (no name) or a named .part file, removed
// unless committed.
struct QVFSWORKER_EXPORT TempFile
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

// A hidden temporary name next to \a name, at most NAME_MAX bytes:
// ".<name>.qvfs-<owner>-<random>.part". The owner part names the process that made it
// (see ownerOfTempName()) so that another process can tell a temporary left by a killed
// one; the random part makes it unique. The one place that makes such names.
QVFSWORKER_EXPORT QByteArray tempName(const QByteArray &name);

// Whose temporary the entry \a name is, by tempName()'s rule.
enum class TempOwner {
    None, //!< not a name tempName() makes (a user's file, whatever it looks like)
    Alive, //!< ours or a living process's, or one we cannot check (another machine, boot or pid namespace)
    Gone, //!< made on this machine, this boot and in this pid namespace by a process that no longer exists
};
QVFSWORKER_EXPORT TempOwner ownerOfTempName(QByteArrayView name);

// Removes from the folder \a dirFd the temporaries left by processes that no longer
// exist (TempOwner::Gone; regular files and links owned by this user only). Called
// before writing a named temporary into a folder; each folder is looked at once per
// process (a bounded memory of device and inode numbers).
QVFSWORKER_EXPORT void removeStaleTemporaries(int dirFd);
// For tests: forget which folders removeStaleTemporaries() looked at.
QVFSWORKER_EXPORT void forgetCleanedFolders();
// Links the O_TMPFILE file \a fd into the folder \a dirFd as \a name (never over an entry:
// EEXIST), by the fastest way the kernel allows. Returns linkat's result (errno set).
QVFSWORKER_EXPORT int linkTmpFile(int fd, int dirFd, const char *name);
// Opens a temporary file for \a dstName in \a dstDirFd: O_TMPFILE, or a hidden, uniquely
// named .part file made with O_EXCL where O_TMPFILE is unsupported (or not \a allowTmpFile).
QVFSWORKER_EXPORT OpResult openTempFile(
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, bool allowTmpFile, TempFile *tmp);
// Gives the finished temporary file its final name: without \a replace never over an
// existing entry; with it atomically over the destination.
QVFSWORKER_EXPORT OpResult commitTempFile(
    TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace);

} // namespace Qvfs::FileOps

#endif
