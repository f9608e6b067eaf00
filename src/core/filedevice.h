// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEDEVICE_H
#define QVFS_FILEDEVICE_H

#include "filejob.h"
#include "qvfscore_export.h"

#include <QIODevice>
#include <QUrl>

#include <memory>

namespace Qvfs
{

class FileDevicePrivate;

/*!
 * A QIODevice over a FileJob: existing Qt code that reads or writes a QFile — a
 * QImageReader, a QDataStream, an archive reader, QMediaPlayer::setSourceDevice() — can
 * use any URL whose worker declares "open" (see Qvfs::open()) unchanged.
 *
 * It behaves like a QFile: open() blocks until the file is open, read() blocks until it
 * has the bytes asked for or meets the end of the file, seek() is free, size() and
 * atEnd() use the file's size, and bytesAvailable() is what remains up to the size. It
 * is random access (isSequential() false) when the worker can seek; a file that cannot
 * (FileJob::CanSeek not set: an http(s):// or webdav:// file on a server that does not
 * accept ranges) is a sequential device read from the start.
 *
 * Reading ahead: reads that continue where the previous one ended keep several requests
 * of 256 KiB in flight (4 by default, setReadAhead()), so the worker fills the next data
 * while the application handles the last. A read elsewhere asks for what it needs (at
 * least 16 KiB) and drops what was read ahead far from the new position (requests in
 * flight are not withdrawn: their data is dropped when it comes).
 *
 * Writing: write() hands the data to the job and returns at once (bytesToWrite() grows
 * until the worker confirms; bytesWritten() is emitted then); it blocks only when more
 * than 8 MiB are unconfirmed. Errors of writes show at waitForBytesWritten(), flush() and
 * close(). Writes are in place (see FileJob). Data read ahead is dropped by a write.
 *
 * The waits — open(), read(), waitForReadyRead(), waitForBytesWritten(), close() — wait
 * on the worker's socket without running the event loop (open() runs it only while no
 * worker is free); they end when the worker answers, fails, dies, or is silent past the
 * pool's deadline (30 s; QVFS_WORKER_TIMEOUT_MS). readyRead() is emitted when read-ahead
 * data arrives while the event loop runs, and from waitForReadyRead().
 *
 * error() and errorString() tell why the last operation failed; after a failure of the
 * job (a dead worker, a failed write) the device reads and writes nothing more.
 * \since 0.1
 */
class QVFSCORE_EXPORT FileDevice : public QIODevice
{
    Q_OBJECT
public:
    /*! A device for \a url; open() opens it. */
    explicit FileDevice(const QUrl &url, QObject *parent = nullptr);
    /*! Closes the file (close()) when open. */
    ~FileDevice() override;

    QUrl url() const;

    /*!
     * Opens the file (Qvfs::open(): the same modes as QFile) and waits until it is open.
     * QIODevice::Unbuffered is implied: the device keeps its own read-ahead. Opened with
     * Append, the position starts at the end. False with error() set on failure.
     */
    bool open(OpenMode mode) override;
    /*! Waits for unconfirmed writes, closes the file and waits for the worker to confirm. */
    void close() override;

    /*! True when the worker cannot seek (known once open). */
    bool isSequential() const override;
    /*! The size as last known (see FileJob::size()); 0 when unknown. */
    qint64 size() const override;
    /*! Moves the position; free (no round trip). Past the end is allowed, as with QFile. */
    bool seek(qint64 pos) override;
    /*! Whether the position is at or past the end (the size as last known). */
    bool atEnd() const override;
    /*! What remains up to the size (random access), or what was read ahead (sequential). */
    qint64 bytesAvailable() const override;
    /*! Bytes written but not confirmed by the worker yet. */
    qint64 bytesToWrite() const override;
    bool canReadLine() const override;
    /*! Waits until data at the position has arrived (or the end or an error). */
    bool waitForReadyRead(int msecs) override;
    /*! Waits until every write is confirmed; false on error or timeout. */
    bool waitForBytesWritten(int msecs) override;

    /*! Waits until every write is confirmed (waitForBytesWritten(-1)). */
    bool flush();
    /*! Cuts or extends the file to \a size bytes, and waits for it. */
    bool resize(qint64 size);

    /*!
     * Read-ahead of sequential reads: \a requests requests of \a chunk bytes each in
     * flight (defaults 4 and 256 KiB; 0 requests turns it off). \a chunk is rounded to
     * 4 KiB and kept within 4 KiB..FileJob::MaxReadLength.
     */
    void setReadAhead(int requests, qint64 chunk = 256 * 1024);

    /*! Why the last operation failed (a Qvfs::Error); NoError when it did not. */
    int error() const;
    /*! The MIME type the worker reported when opening. */
    QString mimeType() const;
    /*! What the open file can do. */
    FileJob::Capabilities capabilities() const;
    /*! The job underneath while open (for its signals); owned by the device. */
    FileJob *job() const;

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 readLineData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 maxSize) override;

private:
    friend class FileDevicePrivate;
    std::unique_ptr<FileDevicePrivate> d;
};

} // namespace Qvfs

#endif
