// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "qvfs_debug.h"
#include "request_p.h"
#include "workerprocess_p.h"

#include <QElapsedTimer>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace Qvfs::Internal
{

using Wire::Msg;

WorkerProcess::WorkerProcess(const ProtocolInfo &info, QObject *parent)
    : QObject(parent)
    , m_info(info)
{
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(envMs("QVFS_WORKER_TIMEOUT_MS", 30000));
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        qCWarning(QVFS_CORE) << "worker" << pid() << "silent past its deadline";
        fail(ErrTimedOut, { subject() });
    });
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(envMs("QVFS_WORKER_KILL_MS", 2000));
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        qCDebug(QVFS_CORE) << "worker" << pid() << "did not acknowledge a kill; killing it";
        fail(ErrCancelled, {});
    });
    m_idleTimer.setSingleShot(true);
    m_idleTimer.setInterval(envMs("QVFS_WORKER_IDLE_MS", 60000));
    connect(&m_idleTimer, &QTimer::timeout, this, [this] {
        qCDebug(QVFS_CORE) << "worker" << pid() << "idle timeout";
        shutdown(1000);
        Q_EMIT died(this);
    });
}

WorkerProcess::~WorkerProcess()
{
    shutdown(1000);
}

bool WorkerProcess::start(QString *error)
{
    int fd = -1;
    qint64 pid = 0;
    if (!m_multiplex && takePrespawnedWorker(m_info.executable, &fd, &pid)) {
        qCDebug(QVFS_CORE) << "adopted the worker the launcher started" << pid;
        if (attach(fd, pid))
            return true;
        // It left before it could be greeted: start one as usual.
        m_state = Starting;
    }
    int fds[2];
    if (!makeWorkerSocketPair(fds)) {
        *error = QString::fromLocal8Bit(strerror(errno));
        return false;
    }
    pid = spawnWorker(m_info.executable, fds[1], error);
    ::close(fds[1]);
    if (pid < 0) {
        ::close(fds[0]);
        m_state = Dead;
        return false;
    }
    if (attach(fds[0], pid))
        return true;
    *error = QString::fromLocal8Bit(strerror(EPIPE));
    return false;
}

bool WorkerProcess::attach(int fd, qint64 pid)
{
    m_pid = pid;
    m_conn.adopt(fd);
    m_readNotifier = new QSocketNotifier(m_conn.fd(), QSocketNotifier::Read, this);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &WorkerProcess::onReadable);
    m_writeNotifier = new QSocketNotifier(m_conn.fd(), QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &WorkerProcess::flush);
    m_conn.send(Msg::Hello, 0, encodeHello(MetaData()));
    flush(); // a worker gone already fails here: fail() ends it and makes this Dead
    if (m_state == Dead)
        return false;
    m_state = Idle;
    return true;
}

void WorkerProcess::flush()
{
    if (!m_conn.isOpen())
        return;
    if (!m_conn.flush()) {
        fail(ErrWorkerDied, { subject() });
        return;
    }
    m_writeNotifier->setEnabled(m_conn.pending() > 0);
}

void WorkerProcess::run(Request *r)
{
    if (m_multiplex) {
        Q_ASSERT(m_state == Idle || m_state == Busy);
        m_idleTimer.stop();
        const quint32 id = m_nextId++;
        r->m_worker = this;
        r->m_id = id;
        m_live.insert(id, r);
        m_lastKey = r->m_key;
        m_state = Busy;
        m_conn.send(Msg::Command, id, r->m_payload);
        flush();
        return;
    }
    Q_ASSERT(m_state == Idle);
    m_idleTimer.stop();
    m_request = r;
    m_requestId = m_nextId++;
    r->m_worker = this;
    r->m_id = m_requestId;
    m_lastKey = r->m_key;
    m_state = Busy;
    m_holdsFile = r->command().command == Wire::Command::Open;
    m_fileOpen = false;
    m_fileOpsPending = 0;
    m_conn.send(Msg::Command, m_requestId, r->m_payload);
    if (r->m_suspended)
        m_conn.send(Msg::Suspend, m_requestId, {}); // the worker holds it until Resume
    flush();
    setReading(!r->m_suspended);
    touchDeadline();
    // A small request is often answered within microseconds: stay awake for a moment so
    // the event loop finds the answer ready instead of the CPU being woken for it.
    // Nothing is read here: the event loop handles the answer as usual.
    static const qint64 spinUs = spinMicroseconds();
    m_conn.spinUntilReadable(spinUs);
}

void WorkerProcess::sendControl(quint32 id, Wire::Msg type, QByteArrayView payload)
{
    if (m_multiplex ? !m_live.contains(id) : (m_state != Busy || id != m_requestId))
        return;
    m_conn.send(type, id, payload);
    flush();
}

void WorkerProcess::sendFileOperation(Wire::Msg type, QByteArrayView payload, QByteArrayView trailer)
{
    if (m_state != Busy || !m_fileOpen)
        return;
    if (trailer.isEmpty()) {
        m_conn.send(type, m_requestId, payload);
    } else {
        m_conn.sendHeader(type, m_requestId, quint32(payload.size() + trailer.size()));
        m_conn.sendRaw(payload);
        m_conn.sendRaw(trailer);
    }
    const bool wasIdle = m_fileOpsPending == 0;
    ++m_fileOpsPending;
    flush();
    if (wasIdle) {
        touchDeadline();
        // As run() does: a small read is answered within microseconds; stay awake so
        // that the event loop finds the answer ready instead of the CPU being woken for it.
        static const qint64 spinUs = spinMicroseconds();
        m_conn.spinUntilReadable(spinUs);
    }
}

bool WorkerProcess::waitForFrames(int msecs)
{
    if (!m_conn.isOpen() || m_state == Dead)
        return false;
    flush();
    QElapsedTimer clock;
    clock.start();
    static const qint64 spinUs = spinMicroseconds();
    if (m_conn.spinUntilReadable(spinUs)) {
        onReadable();
        return true;
    }
    for (;;) {
        if (!m_conn.isOpen() || m_state == Dead)
            return false;
        int timeout = msecs < 0 ? -1 : int(qMax<qint64>(0, msecs - clock.elapsed()));
        const bool deadline = m_deadline.isActive();
        if (deadline) {
            const int left = qMax(0, m_deadline.remainingTime());
            timeout = timeout < 0 ? left : qMin(timeout, left);
        }
        pollfd p { m_conn.fd(), short(POLLIN | (m_conn.pending() ? POLLOUT : 0)), 0 };
        const int r = ::poll(&p, 1, timeout);
        if (r < 0 && errno == EINTR)
            continue;
        if (r > 0 && (p.revents & POLLOUT))
            flush();
        if (r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            onReadable();
            return true;
        }
        if (deadline && m_deadline.isActive() && m_deadline.remainingTime() == 0) {
            qCWarning(QVFS_CORE) << "worker" << pid() << "silent past its deadline";
            fail(ErrTimedOut, { subject() });
            return true; // the client heard of it
        }
        if (msecs >= 0 && clock.elapsed() >= msecs)
            return false;
    }
}

void WorkerProcess::killRequest(Request *r)
{
    if (m_multiplex) {
        const quint32 id = r->m_id;
        if (!m_live.remove(id))
            return;
        r->m_worker = nullptr;
        m_ending.insert(id);
        m_conn.send(Msg::Kill, id, {});
        flush();
        if (!m_killTimer.isActive())
            m_killTimer.start();
        return;
    }
    if (m_state != Busy || r != m_request)
        return;
    if (m_request)
        m_request->m_worker = nullptr;
    m_request = nullptr;
    m_state = Killing;
    m_fileOpen = false;
    m_conn.send(Msg::Kill, m_requestId, {});
    flush();
    setReading(true); // drain and discard what it still sends
    m_deadline.stop();
    m_killTimer.start();
}

void WorkerProcess::setReading(bool on)
{
    m_reading = on;
    if (m_readNotifier)
        m_readNotifier->setEnabled(on);
    if (m_state == Busy) {
        if (on)
            touchDeadline();
        else
            m_deadline.stop(); // a suspended job is not a silent worker
    }
    if (on && m_conn.isOpen() && m_conn.hasBuffered())
        QMetaObject::invokeMethod(this, &WorkerProcess::onReadable, Qt::QueuedConnection);
}

void WorkerProcess::detachRequest()
{
    if (m_request)
        m_request->m_worker = nullptr;
    m_request = nullptr;
    for (Request *r : std::as_const(m_live))
        r->m_worker = nullptr;
    m_live.clear();
}

QExplicitlySharedDataPointer<EntryBatch> WorkerProcess::decodeEntries(quint32 id, const QByteArray &payload)
{
    // The worker's encoder does the same: the atoms of a run of Entries frames of one
    // request (watches of one watcher interleave).
    if (id != m_lastEntriesId) {
        m_decoder.resetAtoms();
        m_lastEntriesId = id;
    }
    QByteArray error;
    QExplicitlySharedDataPointer<EntryBatch> batch = m_decoder.decode(payload, &error);
    if (!batch)
        fail(ErrProtocolError, { QString::fromLatin1(error) });
    return batch;
}

void WorkerProcess::becomeIdleIfDone()
{
    if (m_state != Busy || !m_live.isEmpty() || !m_ending.isEmpty())
        return;
    m_killTimer.stop();
    m_state = Idle;
    m_idleTimer.start();
    Q_EMIT becameIdle(this);
}

bool WorkerProcess::handleMultiplexed(const Wire::Header &h, QByteArray &&payload)
{
    const Msg type = Msg(h.type);
    if (h.requestId == 0 && type == Msg::Error) {
        int code = 0;
        QStringList args;
        if (decodeError(payload, &code, &args))
            fail(code, args);
        return false;
    }
    // Every batch is decoded, a killed request's too: it may define key sets and atoms.
    QExplicitlySharedDataPointer<EntryBatch> batch;
    if (type == Msg::Entries) {
        batch = decodeEntries(h.requestId, payload);
        if (!batch)
            return false;
    }
    if (m_ending.contains(h.requestId)) {
        if (type == Msg::Finished || type == Msg::Error) {
            m_ending.remove(h.requestId);
            if (m_ending.isEmpty())
                m_killTimer.stop();
            becomeIdleIfDone();
        }
        return true;
    }
    Request *r = m_live.value(h.requestId);
    if (!r) {
        qCDebug(QVFS_CORE) << "discarding a frame of an old request" << h.requestId << h.type;
        return true;
    }
    RequestClient *client = r->client();
    const auto malformed = [this](const char *what) {
        fail(ErrProtocolError, { QString::fromLatin1(what) });
        return false;
    };
    const auto end = [this, r, &h] {
        m_live.remove(h.requestId);
        r->m_worker = nullptr;
        r->m_active = false;
    };
    client->requestAlive();
    switch (type) {
    case Msg::Entries:
        client->requestEntries(batch.data());
        break;
    case Msg::Changes: {
        WatchChanges c;
        if (!decodeChanges(payload, &c))
            return malformed("malformed watch report");
        client->requestChanges(c);
        break;
    }
    case Msg::Finished: {
        MetaData results;
        if (!results.decode(payload))
            return malformed("malformed result");
        end();
        client->requestFinished(results);
        becomeIdleIfDone();
        break;
    }
    case Msg::Error: {
        int code = 0;
        QStringList args;
        if (!decodeError(payload, &code, &args))
            return malformed("malformed error");
        end();
        client->requestFailed(code, args);
        becomeIdleIfDone();
        break;
    }
    case Msg::Heartbeat:
    case Msg::Progress:
    case Msg::MetaData:
        break;
    default:
        return malformed("unexpected message on a watcher");
    }
    return m_state != Dead;
}

QString WorkerProcess::subject() const
{
    return m_request ? m_request->url().toString() : m_info.name;
}

void WorkerProcess::checkAlive()
{
    if (!m_conn.isOpen() || m_state != Idle)
        return;
    pollfd p { m_conn.fd(), POLLIN, 0 };
    if (::poll(&p, 1, 0) > 0)
        onReadable();
}

void WorkerProcess::touchDeadline()
{
    // An open file with nothing asked of it may stay silent as long as the application likes.
    if (m_state == Busy && !m_multiplex && m_fileOpen && m_fileOpsPending == 0)
        m_deadline.stop();
    else if (m_state == Busy && m_reading && !m_multiplex)
        m_deadline.start();
}

void WorkerProcess::onReadable()
{
    if (!m_conn.isOpen() || !m_reading)
        return;
    // Bounded work per wake-up: a few reads, then back to the event loop.
    const Connection::ReadStatus status = m_conn.readFrames(8, [this](const Wire::Header &h, QByteArray &&payload) {
        return handleFrame(h, std::move(payload)) && m_reading;
    });
    switch (status) {
    case Connection::ReadStatus::Open:
        return;
    case Connection::ReadStatus::Malformed:
        fail(ErrProtocolError, { QStringLiteral("frame length out of bounds") });
        return;
    case Connection::ReadStatus::Closed:
    case Connection::ReadStatus::Failed:
        if (m_state != Dead)
            fail(ErrWorkerDied, { subject() });
        return;
    }
}

bool WorkerProcess::handleHello(const Wire::Header &h, const QByteArray &payload)
{
    quint32 version = 0;
    MetaData info;
    if (Msg(h.type) == Msg::Error) {
        int code = 0;
        QStringList args;
        if (decodeError(payload, &code, &args)) {
            fail(code, args);
            return false;
        }
    }
    if (Msg(h.type) != Msg::Hello || !decodeHello(payload, &version, &info)) {
        fail(ErrProtocolError, { QStringLiteral("no hello from worker") });
        return false;
    }
    if (version != Wire::ProtocolVersion) {
        fail(ErrVersionMismatch, { QString::number(version), QString::number(Wire::ProtocolVersion) });
        return false;
    }
    m_helloOk = true;
    return true;
}

bool WorkerProcess::handleFrame(const Wire::Header &h, QByteArray &&payload)
{
    if (!m_helloOk)
        return handleHello(h, payload);
    if (m_multiplex)
        return handleMultiplexed(h, std::move(payload));
    if (h.requestId != m_requestId || (m_state != Busy && m_state != Killing)) {
        if (h.requestId == 0 && Msg(h.type) == Msg::Error) {
            int code = 0;
            QStringList args;
            if (decodeError(payload, &code, &args))
                fail(code, args);
            return false;
        }
        qCDebug(QVFS_CORE) << "discarding a frame of an old request" << h.requestId << h.type;
        return true;
    }
    touchDeadline();
    const Msg type = Msg(h.type);
    if (m_state == Killing) {
        // Discard the killed request's frames until it acknowledges; a batch is still
        // decoded, for the key sets it defines on this connection.
        if (type == Msg::Entries && !decodeEntries(h.requestId, payload))
            return false;
        if (type == Msg::Finished || type == Msg::Error) {
            m_killTimer.stop();
            finishRequest();
        }
        // A question needs no answer: the worker has the kill and stops asking.
        return true;
    }
    if (type == Msg::Entries) {
        const QExplicitlySharedDataPointer<EntryBatch> batch = decodeEntries(h.requestId, payload);
        if (!batch)
            return false;
        if (RequestClient *client = m_request ? m_request->client() : nullptr) {
            client->requestAlive();
            client->requestEntries(batch.data());
        }
        return m_state != Dead;
    }
    dispatch(type, std::move(payload));
    return m_state != Dead;
}

void WorkerProcess::dispatch(Wire::Msg type, QByteArray &&payload)
{
    RequestClient *client = m_request ? m_request->client() : nullptr;
    const auto malformed = [this](const char *what) { fail(ErrProtocolError, { QString::fromLatin1(what) }); };
    if (client)
        client->requestAlive();
    switch (type) {
    case Msg::Finished: {
        MetaData results;
        if (!results.decode(payload))
            return malformed("malformed result");
        finishRequest();
        if (client)
            client->requestFinished(results);
        return;
    }
    case Msg::Error: {
        int code = 0;
        QStringList args;
        if (!decodeError(payload, &code, &args))
            return malformed("malformed error");
        finishRequest();
        if (client)
            client->requestFailed(code, args);
        return;
    }
    case Msg::Data:
        if (client)
            client->requestData(payload);
        return;
    case Msg::DataRequest:
        if (client)
            client->requestDataWanted();
        return;
    case Msg::Progress:
    case Msg::MetaData:
    case Msg::Question: {
        MetaData m;
        if (!m.decode(payload))
            return malformed("malformed block");
        if (!client)
            return;
        if (type == Msg::Progress)
            client->requestProgress(decodeProgress(m));
        else if (type == Msg::MetaData)
            client->requestMetaData(m);
        else
            client->requestQuestion(m);
        return;
    }
    case Msg::Redirection: {
        QUrl url;
        if (!decodeRedirection(payload, &url))
            return malformed("malformed redirection");
        if (client)
            client->requestRedirection(url);
        return;
    }
    case Msg::Item: {
        CopyItemEvent event;
        QUrl source, destination;
        if (!decodeItem(payload, &event, &source, &destination))
            return malformed("malformed item");
        if (client)
            client->requestItem(event, source, destination);
        return;
    }
    case Msg::LeftOut: {
        QUrl url;
        int error = 0;
        if (!decodeLeftOut(payload, &url, &error))
            return malformed("malformed left-out entry");
        if (client)
            client->requestLeftOut(url, error);
        return;
    }
    case Msg::FileOpened: {
        OpenedFile file;
        if (!m_holdsFile || m_fileOpen || !decodeOpened(payload, &file))
            return malformed("malformed or unexpected open file report");
        m_fileOpen = true;
        touchDeadline();
        if (client)
            client->requestOpened(file);
        return;
    }
    case Msg::FileData: {
        quint32 op = 0;
        qint64 offset = 0;
        bool last = false;
        if (!m_fileOpen || m_fileOpsPending <= 0 || !decodeFileData(&payload, &op, &offset, &last))
            return malformed("malformed or unexpected file data");
        if (last) {
            --m_fileOpsPending;
            touchDeadline();
        }
        if (client)
            client->requestFileData(op, offset, payload, last);
        return;
    }
    case Msg::FileDone: {
        FileDone done;
        if (!m_fileOpen || m_fileOpsPending <= 0 || !decodeFileDone(payload, &done))
            return malformed("malformed or unexpected file operation result");
        --m_fileOpsPending;
        touchDeadline();
        if (client)
            client->requestFileDone(done);
        return;
    }
    case Msg::Heartbeat:
        return;
    default:
        fail(ErrProtocolError, { QStringLiteral("unexpected message %1").arg(quint16(type)) });
        return;
    }
}

void WorkerProcess::finishRequest()
{
    m_deadline.stop();
    if (m_request) {
        m_request->m_worker = nullptr;
        m_request->m_active = false;
    }
    m_request = nullptr;
    m_state = Idle;
    m_holdsFile = m_fileOpen = false;
    m_fileOpsPending = 0;
    m_idleTimer.start();
    Q_EMIT becameIdle(this);
}

void WorkerProcess::fail(int code, const QStringList &args)
{
    if (m_state == Dead)
        return;
    RequestClient *client = m_request ? m_request->client() : nullptr;
    if (m_request) {
        m_request->m_worker = nullptr;
        m_request->m_active = false;
    }
    m_request = nullptr;
    // A watcher's watches hear it from the event loop, each while its context lives:
    // one of them reacting must not pull the others out from under this loop.
    for (Request *r : std::as_const(m_live)) {
        r->m_worker = nullptr;
        r->m_active = false;
        RequestClient *c = r->client();
        QMetaObject::invokeMethod(
            c->context(), [c, code, args] { c->requestFailed(code, args); }, Qt::QueuedConnection);
    }
    m_live.clear();
    m_ending.clear();
    shutdown(0);
    if (client)
        client->requestFailed(code, args);
    Q_EMIT died(this);
}

void WorkerProcess::shutdown(int waitMs)
{
    m_state = Dead;
    m_deadline.stop();
    m_killTimer.stop();
    m_idleTimer.stop();
    delete m_readNotifier;
    m_readNotifier = nullptr;
    delete m_writeNotifier;
    m_writeNotifier = nullptr;
    m_conn.close(); // the worker sees end of file and leaves
    reapWorker(m_pid, waitMs);
    m_pid = 0;
}

} // namespace Qvfs::Internal
