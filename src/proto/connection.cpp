// SPDX-License-Identifier: LGPL-2.1-or-later
#include "connection_p.h"
#include "workerlaunch_p.h"

#include <QDeadlineTimer>

#include <cerrno>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

namespace Qvfs::Internal
{

Connection::Connection(int fd)
{
    adopt(fd);
}

Connection::~Connection()
{
    close();
}

void Connection::adopt(int fd)
{
    close();
    m_fd = fd;
    if (m_fd >= 0)
        setNonBlocking(m_fd);
}

void Connection::close()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    m_out.clear();
}

bool Connection::flush()
{
    return m_fd >= 0 && m_out.flushTo(m_fd);
}

Connection::ReadStatus Connection::readFrames(int maxReads, const FrameHandler &handler)
{
    Wire::Header h;
    QByteArray payload;
    for (int round = 0;; ++round) {
        // Whole frames first: what is buffered may already be enough.
        for (;;) {
            if (m_fd < 0)
                return ReadStatus::Open;
            const FrameReader::NextResult nr = m_in.next(&h, &payload);
            if (nr == FrameReader::NeedMore)
                break;
            if (nr == FrameReader::Bad)
                return ReadStatus::Malformed;
            if (!handler(h, std::move(payload)) || m_fd < 0)
                return ReadStatus::Open;
        }
        if (round >= maxReads)
            return ReadStatus::Open;
        switch (m_in.readFrom(m_fd)) {
        case FrameReader::ReadSome:
            continue;
        case FrameReader::WouldBlock:
            return ReadStatus::Open;
        case FrameReader::Eof:
            return ReadStatus::Closed;
        case FrameReader::Failed:
            return ReadStatus::Failed;
        }
    }
}

bool Connection::spinUntilReadable(qint64 us) const
{
    if (m_fd < 0 || us <= 0)
        return false;
    const QDeadlineTimer deadline { std::chrono::microseconds(us) };
    for (;;) {
        pollfd p { m_fd, POLLIN, 0 };
        if (::poll(&p, 1, 0) != 0)
            return true;
        if (deadline.hasExpired())
            return false;
        sched_yield();
    }
}

Connection::WaitResult Connection::wait(int timeoutMs)
{
    if (m_fd < 0)
        return WaitResult::Closed;
    pollfd p { m_fd, short(POLLIN | (pending() ? POLLOUT : 0)), 0 };
    const int r = ::poll(&p, 1, timeoutMs);
    if (r < 0)
        return errno == EINTR ? WaitResult::TimedOut : WaitResult::Closed;
    if (r == 0)
        return WaitResult::TimedOut;
    if ((p.revents & POLLOUT) && !flush())
        return WaitResult::Closed;
    if (p.revents & (POLLIN | POLLHUP | POLLERR))
        return WaitResult::Readable;
    return WaitResult::TimedOut;
}

qint64 spinMicroseconds()
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue("QVFS_SPIN_US", &ok);
    return ok && v >= 0 ? qMin(v, 10000) : 100;
}

bool makeWorkerSocketPair(int fds[2])
{
    return qvfs_worker_socketpair(fds) == 0;
}

} // namespace Qvfs::Internal
