// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_UPLOADDEVICE_P_H
#define QVFS_UPLOADDEVICE_P_H

#include <QByteArray>
#include <QIODevice>

#include <functional>

namespace Qvfs::Http
{

/*!
 * The body of a request that writes, as Qt Network reads it: a sequential device that
 * refuses reset().
 *
 * Refusing reset() is what keeps Qt from sending a write twice. Qt 6.4 resends the
 * current request on a fresh connection when a kept-alive connection closes before
 * any byte of the answer arrived (QHttpNetworkConnectionChannel::handleUnexpectedEOF,
 * for every method: MOVE and DELETE were seen twice in the server's log), and it may do
 * so only after rewinding the body; with this device it fails the reply with
 * QNetworkReply::ContentReSendError instead. Bodiless writes (MOVE, COPY, DELETE,
 * MKCOL) get an empty one for the same reason.
 *
 * A streamed body (PUT) pulls its bytes when Qt asks for them (in the thread of the
 * event loop, so the pull function may block on the worker's socket), through a
 * chunk kept between reads: nothing is buffered beyond one chunk. The size is announced
 * up front (Content-Length); a source that ends early or gives more is recorded
 * (isShort(), isLong()) and the caller fails the request.
 */
class UploadDevice : public QIODevice
{
    Q_OBJECT
public:
    /*! A pull that took this long waited for its source (waitedForSource()). */
    static constexpr qint64 SourceWaitMs = 100;

    /*! Returns the next chunk in \a chunk; false at the end of the data (or on kill). */
    using Pull = std::function<bool(QByteArray *chunk)>;

    /*! A body of the fixed bytes \a body (empty for MOVE, COPY, DELETE, MKCOL). */
    explicit UploadDevice(const QByteArray &body = QByteArray(), QObject *parent = nullptr);
    /*! A streamed body of exactly \a size bytes pulled from \a pull. */
    UploadDevice(qint64 size, Pull pull, QObject *parent = nullptr);
    ~UploadDevice() override;

    bool isSequential() const override { return true; }
    /*! Always false: the bytes already read were sent and are gone. */
    bool reset() override;
    qint64 size() const override { return m_size; }
    qint64 bytesAvailable() const override;
    bool atEnd() const override;

    /*! Bytes handed to Qt so far. */
    qint64 delivered() const { return m_delivered; }
    /*! Whether the source ended before size() bytes. */
    bool isShort() const { return m_short; }
    /*! Whether the source had more than size() bytes (see checkEnd()). */
    bool isLong() const { return m_long; }
    /*! Whether Qt asked to rewind (a resend refused). */
    bool resetRefused() const { return m_resetRefused; }
    /*!
     * After the request: pulls once more to make sure the source is at its end (it must
     * say so), marking isLong() if it is not. Returns !isLong() && !isShort().
     */
    bool checkEnd();

Q_SIGNALS:
    /*!
     * A pull waited for its source (the application feeding the upload) at least
     * SourceWaitMs: that time was the application's, not the server's silence.
     */
    void waitedForSource();

protected:
    qint64 readData(char *data, qint64 maxlen) override;
    qint64 writeData(const char *data, qint64 len) override;

private:
    Pull m_pull;
    QByteArray m_chunk;
    qsizetype m_pos = 0;
    qint64 m_size = 0;
    qint64 m_delivered = 0;
    bool m_sourceEnded = false;
    bool m_short = false;
    bool m_long = false;
    bool m_resetRefused = false;
};

} // namespace Qvfs::Http

#endif
