// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEJOB_H
#define QVFS_FILEJOB_H

#include "job.h"

#include <QByteArray>
#include <QIODevice>
#include <QUrl>

namespace Qvfs
{

class FileJobPrivate;

/*!
 * Random access to one file: positional reads and writes on a file its worker holds open,
 * made by Qvfs::open(). For code that wants a QIODevice, FileDevice wraps one.
 *
 * The job first opens the file and emits opened() with its size, MIME type and what it
 * can do. Then each request — readAt(), writeAt(), append(), truncate(), refreshSize() —
 * returns an id at once and is answered later by a signal carrying that id: several
 * requests may be in flight, and the application tells the answers apart by id (or by
 * offset). Requests made before opened() wait in the job and go out once it is open. The
 * worker handles them one at a time in the order they were made, so a read made after a
 * write sees it.
 *
 * A read may be answered in several pieces (dataRead(), at most 256 KiB each, in order).
 * It is complete when its pieces add up to the length asked for, or with an empty piece:
 * an empty piece ends a read that reached the end of the file first, and is the only
 * answer to a read of length 0 or one that starts at or past the end.
 *
 * pos(), read(), write() and seek() are a convenience for sequential use: a position kept
 * in the job, never sent anywhere, so seek() costs no round trip. read() asks for data at
 * pos() and moves pos() on by the length asked for at once, so that sequential reads can
 * be in flight together.
 *
 * Writes change the file in place, by nature: no temporary file and no rename as with
 * put() and copy(). Another reader may see a write half done; a kill, a crash or a lost
 * connection leaves the file as far as it was written. Use put() to replace a file whole.
 *
 * The first request that fails ends the job with its error (result()), after the worker
 * closed the file; the answers of later requests never come. close() ends the job once
 * every request made before it was answered: result() then reports NoError, or the error
 * of closing (a network filesystem may report a failed write only then). kill() closes
 * the file in the worker too. An open file holds a worker process of its own until then.
 * \since 0.1
 */
class QVFSCORE_EXPORT FileJob : public Job
{
    Q_OBJECT
public:
    /*! What the open file can do (from the worker; a remote worker may ask the server). */
    enum Capability {
        CanSeek = 0x1, //!< reads at any offset (otherwise only in order from the start)
        CanWrite = 0x2, //!< writeAt() works
        CanTruncate = 0x4, //!< truncate() works
        CanAppend = 0x8, //!< append() works
    };
    Q_DECLARE_FLAGS(Capabilities, Capability)
    Q_FLAG(Capabilities)

    /*! Where seek() counts from. */
    enum class SeekFrom {
        Start, //!< the start of the file
        Current, //!< pos()
        End, //!< the end of the file as last known (size())
    };
    Q_ENUM(SeekFrom)

    /*! The most one read asks for; readAt() and read() clamp longer lengths to it. */
    static constexpr qint64 MaxReadLength = 16 * 1024 * 1024;

    /*! The URL opened. */
    QUrl url() const;
    /*! The mode it was opened with. */
    QIODevice::OpenMode openMode() const;
    /*! Whether opened() came and the file is neither closed nor failed. */
    bool isOpen() const;
    /*!
     * The file's size as last known: from opened(), then from what writes, truncates,
     * reads that met the end and refreshSize() found. -1 when unknown.
     */
    qint64 size() const;
    /*! The MIME type reported by opened() (empty before, or when unknown). */
    QString mimeType() const;
    /*! What the file can do; 0 before opened(). */
    Capabilities capabilities() const;

    /*!
     * Reads \a length bytes (clamped to MaxReadLength) at \a offset; answered by
     * dataRead(). Returns the request's id, or 0 when it cannot be made (the file was not
     * opened for reading, is closing or has ended, or \a offset or \a length is negative).
     * A file without CanSeek answers only reads that continue where the previous one
     * ended; another offset fails the job with ErrCannotSeek.
     */
    quint32 readAt(qint64 offset, qint64 length);
    /*!
     * Writes \a data at \a offset, in place (extending the file when it reaches past the
     * end); answered by written(). Returns the id, or 0 when the file was not opened for
     * writing, was opened with QIODevice::Append (use append()), is closing or has ended,
     * or \a offset is negative. Large data goes out in pieces, a few MiB in flight at a time.
     */
    quint32 writeAt(qint64 offset, const QByteArray &data);
    /*!
     * Writes \a data at the end of the file; written() tells where it went. Returns the
     * id, or 0 as for writeAt() (QIODevice::Append is fine here).
     */
    quint32 append(const QByteArray &data);
    /*!
     * Cuts the file to \a length bytes, or extends it with zeros; answered by truncated().
     * Returns the id, or 0 when the file was not opened for writing, cannot be truncated,
     * is closing or has ended.
     */
    quint32 truncate(qint64 length);
    /*! Asks for the current size (another program may have changed it); answered by sizeRefreshed(). */
    quint32 refreshSize();
    /*!
     * Closes the file once every request made so far was answered; the job then ends
     * (result()). Requests made afterwards return 0.
     */
    void close();

    /*! The position of read() and write(); starts at 0. */
    qint64 pos() const;
    /*!
     * Moves pos() (no round trip): to \a offset from \a from. False when the result would
     * be negative, or for SeekFrom::End while the size is unknown.
     */
    bool seek(qint64 offset, SeekFrom from = SeekFrom::Start);
    /*! readAt(pos(), length), then pos() moves on by the (clamped) length. */
    quint32 read(qint64 length);
    /*!
     * writeAt(pos(), data), then pos() moves on by its size. Opened with QIODevice::Append,
     * append(data) instead (pos() moves on all the same).
     */
    quint32 write(const QByteArray &data);

    /*! Requests made and not answered yet (waiting for opened() included). */
    int requestsInFlight() const;
    /*! Bytes of writes not acknowledged yet. */
    qint64 bytesToWrite() const;

Q_SIGNALS:
    /*! The file is open; requests made before go out now. */
    void opened(Qvfs::FileJob *job, qint64 size, const QString &mimeType, Qvfs::FileJob::Capabilities capabilities);
    /*!
     * A piece of the read \a id: \a data at \a offset. Empty: the read is over short of
     * its length, at the end of the file (or it asked for nothing).
     */
    void dataRead(Qvfs::FileJob *job, quint32 id, qint64 offset, const QByteArray &data);
    /*! The write or append \a id put \a bytes bytes at \a offset. */
    void written(Qvfs::FileJob *job, quint32 id, qint64 offset, qint64 bytes);
    /*! The truncate \a id set the size to \a length. */
    void truncated(Qvfs::FileJob *job, quint32 id, qint64 length);
    /*! The refreshSize() \a id found \a size. */
    void sizeRefreshed(Qvfs::FileJob *job, quint32 id, qint64 size);

protected:
    explicit FileJob(FileJobPrivate &dd);

private:
    friend class FileJobPrivate;
    Q_DECLARE_PRIVATE(FileJob)
};

/*!
 * Opens \a url for random access (see FileJob) with \a mode as QFile understands it:
 * ReadOnly, WriteOnly, ReadWrite; Append (writes go to the end; implies WriteOnly);
 * Truncate; NewOnly (fail when it exists; implies WriteOnly); ExistingOnly (never create).
 * Writing creates a missing file (0666 less the umask) unless ExistingOnly; WriteOnly alone
 * also truncates, unless combined with ReadOnly, Append or NewOnly.
 *
 * The worker of \a url's protocol must declare "open" (of the workers that come with
 * Qvfs: file, sftp, smb, http, https, webdav and webdavs; see docs/random-access.md);
 * otherwise the job fails with ErrUnsupportedAction, as it does for a mode that neither
 * reads nor writes. Other errors: ErrDoesNotExist, ErrAccessDenied, ErrIsDirectory,
 * ErrCannotRead (not a regular file), ErrAlreadyExists (NewOnly), ErrUnsupportedAction
 * (writing where the protocol cannot).
 *
 * An open file keeps a worker process busy until it is closed. Open files have a pool of
 * their own beside the one other jobs use, with the same limits (maxInstances and
 * maxInstancesPerHost of the worker's description): more files than that wait until one
 * is closed, and they never keep another job from a worker.
 * \since 0.1
 */
QVFSCORE_EXPORT FileJob *open(const QUrl &url, QIODevice::OpenMode mode);

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::FileJob::Capabilities)

#endif
