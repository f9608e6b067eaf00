// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's I/O loop: requests out (buffered, flushed without blocking on a slow
// server), replies in and to their handlers, the read-ahead, cancel checks and
// deadlines, and the shared helpers of the engine's files (errors, status codes).
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "error.h"
#include "sftp_debug.h"

#include <QCoreApplication>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs::Sftp
{

namespace
{

constexpr int PollSliceMs = 50;
constexpr int CancelCheckMs = 20;
constexpr int ConnectGraceMs = 10000; // on top of ssh's ConnectTimeout, for key exchange and authentication

} // namespace

Result makeError(int error, const QByteArray &path, const QString &detail, Failure failure)
{
    Result r;
    r.error = error;
    r.path = path;
    r.detail = detail;
    r.failure = failure;
    return r;
}

int errorForStatus(quint32 status, Op op)
{
    using namespace Packet;
    switch (status) {
    case NoSuchFile:
    case NoSuchPath:
        return ErrDoesNotExist;
    case PermissionDenied:
        return ErrAccessDenied;
    case FileAlreadyExists:
        return ErrAlreadyExists;
    case WriteProtect:
        return ErrReadOnlyFilesystem;
    case NoSpaceOnFilesystem:
    case QuotaExceeded:
        return ErrDiskFull;
    case DirNotEmpty:
        return ErrDirectoryNotEmpty;
    case NotADirectory:
        return ErrIsNotDirectory;
    case FileIsADirectory:
        return ErrIsDirectory;
    case LinkLoop:
        return ErrSymlinkLoop;
    case OpUnsupported:
        return ErrUnsupportedAction;
    // No BAD_MESSAGE here: OpenSSH's server sends it for EINVAL (readlink of a file).
    case NoConnection:
    case ConnectionLost:
        return ErrConnectionFailed;
    default:
        break;
    }
    return int(op);
}

// ================================================================ SessionPrivate: the loop

SessionPrivate::SessionPrivate(Session *session)
    : q(session)
{
    lastActivity.start();
}

quint32 SessionPrivate::begin(Packet::Writer &w, Packet::Type type)
{
    // Any other request ends the read-ahead: its replies would reach a handler that does
    // not know them, and a write would make the data it asked for stale.
    if (!inReadAt && !ahead.isEmpty())
        dropReadAhead();
    const quint32 id = nextId++;
    if (nextId == 0)
        nextId = 1;
    w.begin(type, id);
    return id;
}

quint32 SessionPrivate::beginExtended(Packet::Writer &w, QByteArrayView name)
{
    const quint32 id = begin(w, Packet::Extended);
    w.string(name);
    return id;
}

void SessionPrivate::finish(Packet::Writer &w)
{
    w.end();
    if (outstanding == 0 && queuedOutput() == 0)
        lastActivity.start(); // the silence clock starts with the first request
    ++outstanding;
    ++statistics.requests;
    statistics.peakInFlight = qMax(statistics.peakInFlight, outstanding);
    flushOutput();
}

bool SessionPrivate::flushOutput()
{
    if (outPos == out.size())
        return true;
    if (process.stdinFd() < 0)
        return false;
    // A write to a pipe whose reader is gone raises SIGPIPE, which must not kill (or,
    // under a test framework's handler, abort) the process: block it around the write
    // and swallow the one this write raised, leaving the process's own handling alone.
    sigset_t pipeSet, oldMask, pending;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    sigpending(&pending);
    const bool wasPending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &oldMask);
    bool ok = true;
    while (outPos < out.size()) {
        const ssize_t w = ::write(process.stdinFd(), out.constData() + outPos, size_t(out.size() - outPos));
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            break;
        if (w <= 0) {
            if (errno == EPIPE && !wasPending) {
                const timespec zero { 0, 0 };
                while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) { }
            }
            ok = false;
            break;
        }
        outPos += w;
    }
    pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
    if (outPos == out.size()) {
        out.resize(0); // keeps the capacity (clear() would free it)
        outPos = 0;
    } else if (outPos >= 256 * 1024) {
        out.remove(0, outPos);
        outPos = 0;
    }
    return ok;
}

void SessionPrivate::discard(quint32 id)
{
    discarded.insert(id);
}

void SessionPrivate::dropReadAhead()
{
    for (auto it = ahead.cbegin(); it != ahead.cend(); ++it) {
        if (!it->answered)
            discard(it.key());
    }
    ahead.clear();
    aheadHandle.clear();
    aheadEnd = 0;
}

Result SessionPrivate::protocolError(const QString &what)
{
    qCWarning(QVFS_SFTP) << "protocol error:" << what;
    return makeError(ErrProtocolError, {}, what, Failure::ProtocolError);
}

Result SessionPrivate::notSftp(QByteArrayView start)
{
    // The classic cause: the login shell runs a start-up file that prints something
    // before sftp-server starts.
    QString shown;
    for (char c : start.first(qMin<qsizetype>(start.size(), 64)))
        shown += (c >= 0x20 && c < 0x7f) ? QLatin1Char(c) : QLatin1Char('.');
    return protocolError(QCoreApplication::translate("Qvfs",
        "The server did not start SFTP; it sent \"%1\". A shell start-up file on the server "
        "that prints text (such as .bashrc) breaks SFTP.")
                             .arg(shown));
}

Result SessionPrivate::unexpectedReply()
{
    return breakWith(
        protocolError(QCoreApplication::translate("Qvfs", "The server answered a request that was never sent.")));
}

Result SessionPrivate::breakWith(Result result)
{
    if (!broken) {
        broken = true;
        brokenResult = result;
        connected = false;
        process.stop(100);
        qCDebug(QVFS_SFTP) << "session broken:" << result.error << result.detail;
    }
    return brokenResult;
}

Result SessionPrivate::pump(const ReplyHandler &handler, bool checkCancel)
{
    if (broken)
        return brokenResult;

    // 1. Replies already received come first.
    bool dispatched = false;
    const auto dispatch = [&]() -> Result {
        QByteArrayView packet;
        for (;;) {
            switch (in.next(&packet)) {
            case Packet::InputBuffer::Next::NeedMore:
                return {};
            case Packet::InputBuffer::Next::Malformed:
                if (connecting && !versionReceived)
                    return breakWith(notSftp(in.pending()));
                return breakWith(protocolError(
                    QCoreApplication::translate("Qvfs", "The server sent a packet of impossible length.")));
            case Packet::InputBuffer::Next::Packet:
                break;
            }
            dispatched = true;
            if (connecting && !versionReceived) {
                if (quint8(packet[0]) != Packet::Version || !Packet::parseVersion(packet, &version))
                    return breakWith(notSftp(QByteArrayView(packet.data() - 4, packet.size() + 4)));
                versionReceived = true;
                continue;
            }
            if (quint8(packet[0]) == Packet::Version)
                return breakWith(protocolError(
                    QCoreApplication::translate("Qvfs", "The server sent an unexpected VERSION packet.")));
            Packet::Reply reply;
            if (!Packet::parseReply(packet, &reply))
                return breakWith(
                    protocolError(QCoreApplication::translate("Qvfs", "The server sent a malformed packet (type %1).")
                                      .arg(int(quint8(packet[0])))));
            if (outstanding <= 0)
                return unexpectedReply();
            --outstanding;
            if (discarded.remove(reply.id))
                continue;
            const Result r = handler(reply);
            if (!r.ok())
                return r;
        }
    };
    Result r = dispatch();
    if (!r.ok() || dispatched)
        return r;

    // 2. Write, ask the cancel callback, wait.
    if (!flushOutput())
        return breakWith(connectionError(
            Failure::ConnectionLost, QCoreApplication::translate("Qvfs", "The connection to the server was lost.")));
    if (checkCancel && cancel && nextCancelCheck.hasExpired()) {
        nextCancelCheck.setRemainingTime(CancelCheckMs);
        if (cancel())
            return makeError(ErrCancelled, {}, {});
    }

    const bool waiting = connecting || outstanding > 0 || queuedOutput() > 0;
    const qint64 limit
        = connecting ? qint64(options.connectTimeoutSeconds) * 1000 + ConnectGraceMs : options.ioTimeoutMs;
    if (waiting && lastActivity.hasExpired(limit)) {
        return breakWith(makeError(ErrTimedOut, {},
            QCoreApplication::translate("Qvfs", "The server did not answer for %1 seconds.").arg(limit / 1000),
            Failure::TimedOut));
    }

    pollfd fds[4];
    int n = 0;
    const int outIndex = n;
    fds[n++] = { process.stdoutFd(), POLLIN, 0 };
    int inIndex = -1, errIndex = -1, askIndex = -1;
    if (queuedOutput() > 0) {
        inIndex = n;
        fds[n++] = { process.stdinFd(), POLLOUT, 0 };
    }
    if (process.stderrFd() >= 0) {
        errIndex = n;
        fds[n++] = { process.stderrFd(), POLLIN, 0 };
    }
    if (connecting && askpass.fd() >= 0) {
        askIndex = n;
        fds[n++] = { askpass.fd(), POLLIN, 0 };
    }
    const int rc = ::poll(fds, nfds_t(n), PollSliceMs);
    if (rc < 0 && errno != EINTR)
        return breakWith(makeError(ErrInternal, {}, QString::fromLocal8Bit(strerror(errno)), Failure::SshFailed));
    if (rc <= 0)
        return {};

    if (errIndex >= 0 && fds[errIndex].revents) {
        readStderr();
        if (connecting)
            lastActivity.start();
    }
    if (askIndex >= 0 && (fds[askIndex].revents & POLLIN)) {
        serveAskpass();
        if (cancelledByPrompt || hostKeyRefused)
            return {}; // connect() looks at these
    }
    if (inIndex >= 0 && fds[inIndex].revents) {
        if (!flushOutput())
            return breakWith(connectionError(Failure::ConnectionLost,
                QCoreApplication::translate("Qvfs", "The connection to the server was lost.")));
    }
    if (fds[outIndex].revents) {
        qsizetype room = 0;
        char *p = in.writeSpace(&room);
        ssize_t got;
        do {
            got = ::read(process.stdoutFd(), p, size_t(room));
        } while (got < 0 && errno == EINTR);
        if (got == 0 || (got < 0 && errno != EAGAIN)) {
            return breakWith(connectionError(connecting ? Failure::SshFailed : Failure::ConnectionLost,
                connecting ? QCoreApplication::translate("Qvfs", "ssh ended before the SFTP session started.")
                           : QCoreApplication::translate("Qvfs", "The connection to the server was lost.")));
        }
        if (got > 0) {
            in.commit(got);
            lastActivity.start();
        }
    }
    return dispatch();
}

Result SessionPrivate::call(quint32 id, const ReplyHandler &onReply, bool checkCancel)
{
    bool done = false;
    Result result;
    const ReplyHandler handler = [&](const Packet::Reply &reply) -> Result {
        if (reply.id != id)
            return unexpectedReply();
        done = true;
        result = onReply(reply);
        return {};
    };
    while (!done) {
        const Result r = pump(handler, checkCancel);
        if (!r.ok()) {
            if (!done)
                discard(id);
            return r;
        }
    }
    return result;
}

void SessionPrivate::drain(int budgetMs)
{
    const QDeadlineTimer deadline(qMax(budgetMs, 0));
    const ReplyHandler unexpected = [this](const Packet::Reply &) -> Result { return unexpectedReply(); };
    while (!broken && outstanding > 0 && !deadline.hasExpired()) {
        if (!pump(unexpected, false).ok())
            break;
    }
}

// ================================================================ replies

Result SessionPrivate::statusResult(const Packet::Reply &reply, const QByteArray &path, Op op) const
{
    if (reply.type != Packet::Status)
        return makeError(ErrProtocolError, path,
            QCoreApplication::translate("Qvfs", "Unexpected reply type %1.").arg(reply.type), Failure::ProtocolError);
    if (reply.status == Packet::Ok)
        return {};
    QString detail = QString::fromUtf8(reply.message);
    if (detail.isEmpty())
        detail = QString::fromLatin1(Packet::statusName(reply.status));
    return makeError(errorForStatus(reply.status, op), path, detail);
}

bool SessionPrivate::checkConnected(Result *r) const
{
    if (connected)
        return true;
    *r = broken ? brokenResult
                : makeError(ErrConnectionFailed, {}, QCoreApplication::translate("Qvfs", "Not connected."),
                    Failure::ConnectionLost);
    return false;
}

Result SessionPrivate::statusCall(quint32 id, const QByteArray &path, Op op, quint32 *status)
{
    return call(id, [&](const Packet::Reply &reply) {
        if (status)
            *status = reply.type == Packet::Status ? reply.status : quint32(Packet::Failure);
        return statusResult(reply, path, op);
    });
}

Result SessionPrivate::nameCall(quint32 id, const QByteArray &path, QByteArray *name)
{
    return call(id, [&](const Packet::Reply &reply) {
        if (reply.type != Packet::Name)
            return statusResult(reply, path, Op::Read);
        if (reply.nameCount < 1)
            return makeError(ErrProtocolError, path,
                QCoreApplication::translate("Qvfs", "The server sent an empty name list."), Failure::ProtocolError);
        Packet::NameReader names(reply.names, reply.nameCount);
        QByteArrayView n, longName;
        Attributes a;
        names.next(&n, &longName, &a);
        *name = n.toByteArray();
        return Result();
    });
}

Result SessionPrivate::attrsCall(quint32 id, const QByteArray &path, Attributes *attrs)
{
    return call(id, [&](const Packet::Reply &reply) {
        if (reply.type != Packet::Attrs)
            return statusResult(reply, path, Op::Read);
        *attrs = reply.attrs;
        return Result();
    });
}

Result SessionPrivate::handleCall(quint32 id, const QByteArray &path, Op op, QByteArray *handle)
{
    return call(id, [&](const Packet::Reply &reply) {
        if (reply.type != Packet::Handle)
            return statusResult(reply, path, op);
        *handle = reply.handle.toByteArray();
        return Result();
    });
}

Result SessionPrivate::unsupported(const QByteArray &path, const char *extension) const
{
    return makeError(ErrUnsupportedAction, path,
        QCoreApplication::translate("Qvfs", "The server does not offer %1.").arg(QLatin1String(extension)));
}

} // namespace Qvfs::Sftp
