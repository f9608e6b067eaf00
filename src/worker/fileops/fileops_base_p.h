// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEOPS_BASE_P_H
#define QVFS_FILEOPS_BASE_P_H

// The part of the local filesystem engine that lives in the worker library, for any
// worker that writes local files (copyToFile) through LocalFileWriter (localfilewriter.h)
// and for the file worker's engine (src/workers/file/fileops.h): results, errno mapping,
// the atomic writer, and the private helpers beside this header. Internal: exported for
// the workers of this repository, not installed.

#include "qvfsworker_export.h"
#include "requests.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QtGlobal>

#include <memory>

namespace Qvfs::FileOps
{

/*!
 * The outcome of an operation.
 * \since 0.1
 */
struct OpResult
{
    int error = 0; //!< a Qvfs::Error code, 0 on success
    QByteArray path; //!< the raw path concerned by the error (source or destination)
    QByteArray detail; //!< the strerror() text of the errno behind the error, if any
    bool ok() const { return error == 0; }
};

/*!
 * What kind of operation failed, for errorFromErrno(): EIO and the like become
 * ErrCannotRead, ErrCannotWrite or ErrCannotDelete.
 * \since 0.1
 */
enum class Operation { Read, Write, Delete };

/*!
 * Maps \a err (an errno value) met during \a op to a Qvfs::Error code.
 *
 * ENOENT → ErrDoesNotExist, EACCES/EPERM → ErrAccessDenied, ENOSPC/EDQUOT →
 * ErrDiskFull, EFBIG (file size limit, RLIMIT_FSIZE) → ErrFileTooLarge, EEXIST →
 * ErrAlreadyExists, EISDIR → ErrIsDirectory, ENOTDIR → ErrIsNotDirectory,
 * ENOTEMPTY → ErrDirectoryNotEmpty, ENAMETOOLONG → ErrNameTooLong, ELOOP →
 * ErrSymlinkLoop, EROFS → ErrReadOnlyFilesystem, EXDEV → ErrUnsupportedAction,
 * ECANCELED → ErrCancelled; EIO, EBUSY, ETXTBSY → ErrCannotRead / ErrCannotWrite /
 * ErrCannotDelete by \a op; anything else → ErrInternal. 0 gives 0.
 * \since 0.1
 */
QVFSWORKER_EXPORT int errorFromErrno(int err, Operation op);

/*!
 * Writes one file so that it is never seen half-written (the worker's put): the data goes
 * to a temporary file in the destination folder, as in copy(), and commit() links or
 * renames it into place. Destroying the writer before commit() (an error, a kill)
 * discards the temporary; an existing destination stays untouched until commit().
 *
 * Replacing a regular file keeps its owner and group (best effort, with copy()'s rule for
 * sticky folders), and, unless permissions are given, its permission bits and its POSIX
 * access ACL (what its group bits stand for).
 *
 * A destination that is a symlink is replaced by the file, like `cp -f` and `mv` do, also
 * as root: it is never written through to its target (a link planted in a shared folder
 * must not redirect the write), and the new file is not given the link's owner.
 * \since 0.1
 */
class QVFSWORKER_EXPORT AtomicWriter
{
public:
    AtomicWriter();
    ~AtomicWriter();
    AtomicWriter(const AtomicWriter &) = delete;
    AtomicWriter &operator=(const AtomicWriter &) = delete;

    /*!
     * Starts writing \a path. Without \a overwrite an existing \a path gives
     * ErrAlreadyExists (checked now, and again atomically at commit()); a folder gives
     * ErrIsDirectory. \a permissions < 0: a new file (or one replacing a symlink) gets
     * 0666 minus the umask and a replaced file keeps its permission bits and access ACL;
     * otherwise exactly \a permissions (07777).
     * \a allowTmpFile false forces the named .part temporary (for tests).
     */
    [[nodiscard]] OpResult open(const QByteArray &path, bool overwrite, int permissions = -1, bool allowTmpFile = true,
        const FileIdentity &expectedParent = {});
    /*! Appends \a data. A full disk gives ErrDiskFull naming the path. */
    [[nodiscard]] OpResult write(QByteArrayView data);
    /*! The descriptor being written (-1 before open() and after commit()). */
    int fd() const;
    /*! The modification time the file gets at commit(). */
    void setModificationTime(qint64 seconds, qint64 nanoseconds = 0);
    /*! Puts the file in place. On error nothing is left behind. */
    [[nodiscard]] OpResult commit();
    /*! Drops the temporary file (the destructor does it too). */
    void discard();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Qvfs::FileOps

#endif
