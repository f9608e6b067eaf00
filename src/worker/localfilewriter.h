// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_LOCALFILEWRITER_H
#define QVFS_LOCALFILEWRITER_H

#include "qvfsworker_export.h"
#include "requests.h"
#include "workerbase.h"

#include <QByteArray>
#include <QByteArrayView>

#include <memory>

namespace Qvfs
{

/*!
 * Writes a local file with the guarantees of a local copy, for workers that write local
 * files themselves (copyToFile): the data goes to an O_TMPFILE file in the destination's
 * folder (or a uniquely named hidden temporary where the filesystem has none) and
 * commit() links it into place. Until then an existing destination is untouched; an
 * error, a kill or destroying the writer leaves nothing behind (with O_TMPFILE, even a
 * SIGKILLed worker). A destination that is a symlink is replaced, never written through.
 * Replacing a file keeps its owner and group (best effort).
 *
 * Errors name the destination as a file:// URL.
 * \since 0.1
 */
class QVFSWORKER_EXPORT LocalFileWriter
{
public:
    LocalFileWriter();
    ~LocalFileWriter();
    LocalFileWriter(const LocalFileWriter &) = delete;
    LocalFileWriter &operator=(const LocalFileWriter &) = delete;

    /*!
     * Starts writing the local \a path (raw bytes). Without \a overwrite an existing
     * entry gives ErrAlreadyExists (checked now and again, atomically, at commit()).
     * \a permissions < 0: 0666 less the umask for a new file, a replaced file's own bits.
     */
    WorkerResult open(
        const QByteArray &path, bool overwrite, int permissions = -1, const FileIdentity &expectedParent = {});
    /*! Appends \a data (ErrDiskFull, ErrFileTooLarge, ... naming the destination). */
    WorkerResult write(QByteArrayView data);
    /*! The file descriptor being written, for a worker that fills it itself (splice, a library). */
    int fd() const;
    /*! The modification time the file gets at commit(). */
    void setModificationTime(qint64 seconds, qint64 nanoseconds = 0);
    /*! Puts the file in place. */
    WorkerResult commit();
    /*! Drops what was written (the destructor does too). */
    void discard();

    /*!
     * Opens the local file \a path for reading a copy's source (copyFromFile): never
     * through a symlink at the last component, and when \a expected is valid it must be
     * that very file (ErrSourceChanged otherwise); a folder is ErrIsDirectory, anything
     * but a regular file ErrCannotRead. Returns the descriptor (close it), or -1 with \a
     * error set.
     */
    static int openSource(const QByteArray &path, const FileIdentity &expected, WorkerResult *error);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Qvfs

#endif
