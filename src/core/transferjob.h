// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRANSFERJOB_H
#define QVFS_TRANSFERJOB_H

#include "job.h"

#include <QUrl>

namespace Qvfs
{

class TransferJobPrivate;

/*!
 * Streams the content of a URL to the application (get) or from it (put).
 *
 * get: mimeTypeFound() comes before the first data(); data() delivers chunks (at most
 * 256 KiB). Suspending the job stops the worker (backpressure).
 *
 * put: the job emits dataReq() each time the worker can take more; fill the array
 * (any size up to 1 MiB); leaving it empty ends the data. The destination appears
 * only once complete: on error or kill it is untouched.
 * \since 0.1
 */
class QVFSCORE_EXPORT TransferJob : public Job
{
    Q_OBJECT
public:
    /*! The URL read or written. */
    QUrl url() const;
    /*! The MIME type, once known (get). */
    QString mimeType() const;
    /*! Whether this is a put. */
    bool isPut() const;

    /*!
     * Put only: instead of filling dataReq()'s array at once, answer each dataReq()
     * later with sendAsyncData() (for data that arrives from elsewhere). Set before the
     * job starts.
     */
    void setAsyncDataEnabled(bool enabled);
    /*! Put, async mode: the answer to the last dataReq(); an empty array ends the data. */
    void sendAsyncData(const QByteArray &data);
    /*! Put: the modification time the new file gets (set before the job starts). */
    void setModificationTime(qint64 seconds, qint64 nanoseconds = 0);
    /*!
     * Put: the number of bytes that will be sent, when known (set before the job starts):
     * the job reports it as its total, so percent() works, and a worker that must
     * announce a size up front (some servers need it) can stream instead of buffering.
     * storedPut() sets it itself.
     * \since 0.1
     */
    void setTotalSize(qint64 bytes);

Q_SIGNALS:
    /*! A chunk of the content (get). */
    void data(Qvfs::TransferJob *job, const QByteArray &data);
    /*! The worker wants the next chunk (put); an empty \a data ends the content. */
    void dataReq(Qvfs::TransferJob *job, QByteArray &data);
    /*! The MIME type of the content, before any data() (get). */
    void mimeTypeFound(Qvfs::TransferJob *job, const QString &mimeType);

protected:
    explicit TransferJob(TransferJobPrivate &dd);

private:
    friend class TransferJobPrivate;
    Q_DECLARE_PRIVATE(TransferJob)
};

/*!
 * A TransferJob that collects the whole content (get) or sends a given array (put).
 * For small files.
 * \since 0.1
 */
class QVFSCORE_EXPORT StoredTransferJob : public TransferJob
{
    Q_OBJECT
public:
    /*! The content read (get), complete after result(). */
    QByteArray data() const;

private:
    friend class TransferJobPrivate;
    explicit StoredTransferJob(TransferJobPrivate &dd);
};

/*! Flags of put(). \since 0.1 */
enum PutFlag {
    PutDefault = 0,
    PutOverwrite = 0x1, //!< replace an existing destination (atomically, on success)
};
Q_DECLARE_FLAGS(PutFlags, PutFlag)

/*! Reads \a url from byte \a offset on. Errors: ErrDoesNotExist, ErrIsDirectory, ... \since 0.1 */
QVFSCORE_EXPORT TransferJob *get(const QUrl &url, qint64 offset = 0);
/*!
 * Writes \a url with data from dataReq(). \a permissions -1: default (0666 less umask).
 * Errors: ErrAlreadyExists (without PutOverwrite), ErrAccessDenied, ErrDiskFull, ...
 * \since 0.1
 */
QVFSCORE_EXPORT TransferJob *put(const QUrl &url, int permissions = -1, PutFlags flags = PutDefault);
/*! Reads all of \a url into memory. \since 0.1 */
QVFSCORE_EXPORT StoredTransferJob *storedGet(const QUrl &url);
/*! Writes \a data to \a url. \since 0.1 */
QVFSCORE_EXPORT StoredTransferJob *storedPut(
    const QByteArray &data, const QUrl &url, int permissions = -1, PutFlags flags = PutDefault);

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::PutFlags)

#endif
