// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CONNECTION_P_H
#define QVFS_CONNECTION_P_H

#include "frame_p.h"
#include "qvfsproto_export.h"
#include "wire_p.h"

#include <functional>

namespace Qvfs::Internal
{

/*!
 * One end of the socket between an application and a worker: frames out through a
 * queue written without blocking, frames in through a bounded reader, and the short
 * spin-wait either side does after a request or a reply. Internal.
 *
 * Both sides use it with their own driver: the application watches fd() with
 * QSocketNotifiers and calls readFrames()/flush() when they fire (WorkerProcess); a
 * worker, which may be inside a blocking hook, calls wait(), which polls (WorkerBase).
 */
class QVFSPROTO_EXPORT Connection
{
public:
    Connection() = default;
    /*! Adopts \a fd (a connected stream socket) and makes it non-blocking. */
    explicit Connection(int fd);
    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    /*! Adopts \a fd, closing any previous one. */
    void adopt(int fd);
    int fd() const noexcept { return m_fd; }
    bool isOpen() const noexcept { return m_fd >= 0; }
    /*! Closes the socket (the peer sees end of file) and drops what is queued either way. */
    void close();

    // ---- output ----
    /*! Queues one frame; flush() or wait() writes it. */
    void send(Wire::Msg type, quint32 requestId, QByteArrayView payload) { m_out.append(type, requestId, payload); }
    /*! Queues a frame header whose \a length payload bytes follow with sendRaw(). */
    void sendHeader(Wire::Msg type, quint32 requestId, quint32 length) { m_out.appendHeader(type, requestId, length); }
    void sendRaw(QByteArrayView bytes) { m_out.appendRaw(bytes); }
    /*! Writes as much as the socket takes now. False when the peer is gone. */
    bool flush();
    /*! Bytes queued but not written yet. */
    qsizetype pending() const noexcept { return m_out.pending(); }

    // ---- input ----
    enum class ReadStatus {
        Open, //!< nothing more to read for now, or the handler asked to stop
        Closed, //!< the peer closed the connection (every whole frame before was delivered)
        Failed, //!< a read error
        Malformed, //!< a frame length out of bounds: the stream cannot be trusted any more
    };
    /*!
     * Called for each whole frame, in order. Returns false to stop taking frames for now
     * (backpressure, or the connection was closed meanwhile); they stay buffered.
     */
    using FrameHandler = std::function<bool(const Wire::Header &, QByteArray &&)>;
    /*!
     * Delivers the frames already buffered, then reads (at most \a maxReads read calls,
     * 0 = only what is buffered) and delivers what arrives.
     */
    ReadStatus readFrames(int maxReads, const FrameHandler &handler);
    /*! Whether received bytes wait in the buffer (reading was stopped by the handler). */
    bool hasBuffered() const noexcept { return m_in.hasBuffered(); }

    // ---- waiting ----
    /*!
     * Stays awake up to \a us microseconds until the peer's next bytes arrive, yielding
     * the CPU between looks (the peer may share it). Waking a sleeping CPU costs tens of
     * microseconds on virtual machines, more than a whole small request; see
     * spinMicroseconds(). Returns true when there is something to read.
     */
    bool spinUntilReadable(qint64 us) const;
    enum class WaitResult { Readable, TimedOut, Closed };
    /*!
     * Waits up to \a timeoutMs (-1: no limit) for bytes to read, writing queued output
     * as the socket takes it meanwhile. Closed: the socket failed or the peer is gone.
     */
    WaitResult wait(int timeoutMs);

private:
    int m_fd = -1;
    FrameReader m_in;
    FrameWriter m_out;
};

/*!
 * How long either side stays awake for the other's next message after a request or a
 * reply (microseconds; QVFS_SPIN_US, 0 turns it off, at most 10 ms; default 100).
 */
QVFSPROTO_EXPORT qint64 spinMicroseconds();

/*! qvfs_worker_socketpair() (workerlaunch_p.h) for C++: true, or false with errno set. */
QVFSPROTO_EXPORT bool makeWorkerSocketPair(int fds[2]);

} // namespace Qvfs::Internal

#endif
