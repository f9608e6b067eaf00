// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "qvfs_debug.h"
#include "spin_p.h"
#include "url.h"
#include "workerpool_p.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace Qvfs::Internal
{

using Wire::Msg;

int envMs(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok && v >= 0 ? v : fallback;
}

RequestClient::~RequestClient() = default;

// ---------------------------------------------------------------- protocol lookup

static QStringList workerDirs()
{
    QStringList dirs;
    const QString env = qEnvironmentVariable("QVFS_WORKER_PATH");
    if (!env.isEmpty())
        dirs += env.split(QLatin1Char(':'), Qt::SkipEmptyParts);
    // Use the build tree's workers only when this library is the build tree's.
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&workerDirs), &info) && info.dli_fname) {
        const QByteArray self(info.dli_fname);
        const QByteArray buildDir(QVFS_BUILD_DIR);
        if (self.startsWith(QByteArray(buildDir + '/')))
            dirs.append(QStringLiteral(QVFS_BUILD_WORKER_DIR));
    }
    dirs.append(QStringLiteral(QVFS_INSTALL_WORKER_DIR));
    return dirs;
}

static ProtocolInfo readInfo(const QString &jsonPath, const QString &scheme)
{
    ProtocolInfo info;
    QFile f(jsonPath);
    if (!f.open(QIODevice::ReadOnly))
        return info;
    QString exec, error;
    if (!parseWorkerInfo(f.read(64 * 1024), scheme, &info, &exec, &error)) {
        qCDebug(QVFS_CORE) << "worker description" << jsonPath << "not used:" << error;
        return ProtocolInfo();
    }
    const QString exe = QFileInfo(jsonPath).absolutePath() + QLatin1Char('/') + exec;
    if (!QFileInfo(exe).isExecutable())
        return ProtocolInfo();
    info.executable = exe;
    return info;
}

ProtocolInfo protocolInfo(const QString &scheme)
{
    static QHash<QString, ProtocolInfo> cache;
    const auto it = cache.constFind(scheme);
    if (it != cache.constEnd())
        return it.value();
    ProtocolInfo found;
    const QStringList dirs = workerDirs();
    // Fast path: the worker named after the scheme; then every description.
    for (const QString &dir : dirs) {
        found = readInfo(dir + QStringLiteral("/qvfs-worker-") + scheme + QStringLiteral(".json"), scheme);
        if (found.isValid())
            break;
    }
    for (int i = 0; !found.isValid() && i < dirs.size(); ++i) {
        const QStringList files = QDir(dirs.at(i)).entryList({ QStringLiteral("qvfs-worker-*.json") }, QDir::Files);
        for (const QString &file : files) {
            found = readInfo(dirs.at(i) + QLatin1Char('/') + file, scheme);
            if (found.isValid())
                break;
        }
    }
    qCDebug(QVFS_CORE) << "protocol" << scheme << "served by" << found.executable;
    cache.insert(scheme, found);
    return found;
}

// ---------------------------------------------------------------- WorkerProcess

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

qint64 WorkerProcess::pid() const
{
    return m_pid;
}

bool WorkerProcess::start(QString *error)
{
    int fds[2];
    if (!makeSocketPair(fds)) {
        *error = QString::fromLocal8Bit(strerror(errno));
        return false;
    }
    // argv: [prefix...] worker --fd N. posix_spawn (vfork-fast; QProcess costs ~10 ms of
    // blocking here, as much as a whole one-shot stat may take).
    QList<QByteArray> args;
    const QString prefix = qEnvironmentVariable("QVFS_WORKER_PREFIX");
    if (!prefix.isEmpty()) {
        const QStringList words = QProcess::splitCommand(prefix);
        for (const QString &w : words)
            args.append(w.toLocal8Bit());
    }
    args.append(QFile::encodeName(m_info.executable));
    args.append(QByteArrayLiteral("--fd"));
    args.append(QByteArray::number(fds[1]));
    std::vector<char *> argv;
    argv.reserve(size_t(args.size()) + 1);
    for (QByteArray &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    // stdin and stdout to /dev/null (a worker logging into an unread pipe would hang);
    // stderr is inherited: the worker's log goes where the application's goes.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    // dup2 of a descriptor onto itself clears its close-on-exec flag in the child only:
    // the child's end survives exec, every other descriptor of ours does not.
    posix_spawn_file_actions_adddup2(&actions, fds[1], fds[1]);
    // Its own session: a terminal's Ctrl-C reaches the application, which cleans up.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        *error = QString::fromLocal8Bit(strerror(rc));
        ::close(fds[0]);
        m_state = Dead;
        return false;
    }
    m_pid = pid;
    m_fd = fds[0];
    setNonBlocking(m_fd);
    m_readNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &WorkerProcess::onReadable);
    m_writeNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &WorkerProcess::onWritable);
    MetaData hello;
    m_out.append(Msg::Hello, 0, encodeHello(hello));
    flushOut();
    m_state = Idle;
    return true;
}

void WorkerProcess::reap(int waitMs)
{
    if (m_pid <= 0)
        return;
    // The socket is closed: a healthy worker exits at once. Give it waitMs, then SIGKILL.
    for (int waited = 0;; ++waited) {
        const pid_t r = ::waitpid(pid_t(m_pid), nullptr, WNOHANG);
        if (r == pid_t(m_pid) || (r < 0 && errno != EINTR))
            break;
        if (waited >= waitMs) {
            ::kill(pid_t(m_pid), SIGKILL);
            while (::waitpid(pid_t(m_pid), nullptr, 0) < 0 && errno == EINTR) { }
            break;
        }
        const timespec ms { 0, 1000000 };
        ::nanosleep(&ms, nullptr);
    }
    m_pid = 0;
}

void WorkerProcess::flushOut()
{
    if (m_fd < 0)
        return;
    if (!m_out.flushTo(m_fd)) {
        fail(ErrWorkerDied, { subject() });
        return;
    }
    m_writeNotifier->setEnabled(m_out.pending() > 0);
}

void WorkerProcess::onWritable()
{
    flushOut();
}

void WorkerProcess::run(Request *r)
{
    Q_ASSERT(m_state == Idle);
    m_idleTimer.stop();
    m_request = r;
    m_requestId = m_nextId++;
    r->worker = this;
    r->id = m_requestId;
    m_lastKey = r->key;
    m_state = Busy;
    m_decoder.resetAtoms();
    m_out.append(Msg::Command, m_requestId, r->payload);
    flushOut();
    if (r->suspended) {
        m_out.append(Msg::Suspend, m_requestId, {});
        flushOut();
    }
    setReading(!r->suspended);
    touchDeadline();
    // A small request is often answered within microseconds: wait for the answer
    // awake for a moment, so the event loop finds it ready instead of putting the CPU
    // to sleep and being woken for it (tens of microseconds on a virtual machine).
    // Nothing is read here: the answer is handled by the event loop as usual.
    static const qint64 spinUs = spinMicroseconds();
    if (spinUs > 0 && m_fd >= 0) {
        timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            pollfd p { m_fd, POLLIN, 0 };
            if (::poll(&p, 1, 0) != 0)
                break;
            timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 >= spinUs)
                break;
            sched_yield(); // the worker may share this CPU: let it run
        }
    }
}

void WorkerProcess::sendControl(Wire::Msg type, const QByteArray &payload)
{
    if (m_state != Busy)
        return;
    m_out.append(type, m_requestId, payload);
    flushOut();
}

void WorkerProcess::killRequest()
{
    if (m_state != Busy)
        return;
    if (m_request)
        m_request->worker = nullptr;
    m_request = nullptr;
    m_state = Killing;
    m_out.append(Msg::Kill, m_requestId, {});
    flushOut();
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
    if (on && m_fd >= 0 && m_in.hasBuffered())
        QMetaObject::invokeMethod(this, &WorkerProcess::onReadable, Qt::QueuedConnection);
}

void WorkerProcess::detachRequest()
{
    if (m_request)
        m_request->worker = nullptr;
    m_request = nullptr;
}

QString WorkerProcess::subject() const
{
    return m_request ? m_request->urls.value(0).toString() : m_info.name;
}

void WorkerProcess::checkAlive()
{
    if (m_fd < 0 || m_state != Idle)
        return;
    pollfd p { m_fd, POLLIN, 0 };
    if (::poll(&p, 1, 0) > 0)
        onReadable();
}

void WorkerProcess::touchDeadline()
{
    if (m_state == Busy && m_reading)
        m_deadline.start();
}

void WorkerProcess::onReadable()
{
    if (m_fd < 0)
        return;
    // Bounded work per wake-up: a few reads, then back to the event loop.
    for (int round = 0; round < 8 && m_fd >= 0 && m_reading; ++round) {
        const FrameReader::ReadResult rr = m_in.readFrom(m_fd);
        Wire::Header h;
        QByteArray payload;
        for (;;) {
            if (m_fd < 0 || !m_reading)
                break;
            const FrameReader::NextResult nr = m_in.next(&h, &payload);
            if (nr == FrameReader::NeedMore)
                break;
            if (nr == FrameReader::Bad) {
                fail(ErrProtocolError, { QStringLiteral("frame length out of bounds") });
                return;
            }
            handleFrame(h, std::move(payload));
        }
        if (rr == FrameReader::Eof || rr == FrameReader::Failed) {
            if (m_state != Dead)
                fail(ErrWorkerDied, { subject() });
            return;
        }
        if (rr == FrameReader::WouldBlock)
            break;
    }
}

void WorkerProcess::handleFrame(const Wire::Header &h, QByteArray &&payload)
{
    if (!m_helloOk) {
        quint32 version = 0;
        MetaData info;
        if (Msg(h.type) == Msg::Error) {
            int code = 0;
            QStringList args;
            if (decodeError(payload, &code, &args)) {
                fail(code, args);
                return;
            }
        }
        if (Msg(h.type) != Msg::Hello || !decodeHello(payload, &version, &info)) {
            fail(ErrProtocolError, { QStringLiteral("no hello from worker") });
            return;
        }
        if (version != Wire::ProtocolVersion) {
            fail(ErrVersionMismatch, { QString::number(version), QString::number(Wire::ProtocolVersion) });
            return;
        }
        m_helloOk = true;
        return;
    }
    if (h.requestId != m_requestId || (m_state != Busy && m_state != Killing)) {
        if (h.requestId == 0 && Msg(h.type) == Msg::Error) {
            int code = 0;
            QStringList args;
            if (decodeError(payload, &code, &args))
                fail(code, args);
            return;
        }
        qCDebug(QVFS_CORE) << "discarding a frame of an old request" << h.requestId << h.type;
        return;
    }
    touchDeadline();
    const Msg type = Msg(h.type);
    if (m_state == Killing) {
        // Discard the killed request's frames until it acknowledges; a batch is still
        // decoded, for the key sets it defines on this connection.
        if (type == Msg::Entries) {
            QByteArray error;
            if (!m_decoder.decode(payload, &error)) {
                fail(ErrProtocolError, { QString::fromLatin1(error) });
                return;
            }
        }
        if (type == Msg::Finished || type == Msg::Error) {
            m_killTimer.stop();
            finishRequest();
        }
        // A question needs no answer: the worker has the kill and stops asking.
        return;
    }
    RequestClient *client = m_request ? m_request->client : nullptr;
    switch (type) {
    case Msg::Entries: {
        QByteArray error;
        const QExplicitlySharedDataPointer<EntryBatch> batch = m_decoder.decode(payload, &error);
        if (!batch) {
            fail(ErrProtocolError, { QString::fromLatin1(error) });
            return;
        }
        if (client)
            client->requestEntries(batch.data());
        return;
    }
    case Msg::Finished: {
        MetaData results;
        if (!results.decode(payload)) {
            fail(ErrProtocolError, { QStringLiteral("malformed result") });
            return;
        }
        finishRequest();
        if (client)
            client->requestFinished(results);
        return;
    }
    case Msg::Error: {
        int code = 0;
        QStringList args;
        if (!decodeError(payload, &code, &args)) {
            fail(ErrProtocolError, { QStringLiteral("malformed error") });
            return;
        }
        finishRequest();
        if (client)
            client->requestFailed(code, args);
        return;
    }
    case Msg::Data:
    case Msg::DataRequest:
    case Msg::Progress:
    case Msg::MetaData:
    case Msg::Question:
    case Msg::Heartbeat:
        if (client)
            client->requestMessage(type, payload);
        return;
    default:
        fail(ErrProtocolError, { QStringLiteral("unexpected message %1").arg(h.type) });
        return;
    }
}

void WorkerProcess::finishRequest()
{
    m_deadline.stop();
    if (m_request)
        m_request->worker = nullptr;
    m_request = nullptr;
    m_state = Idle;
    m_idleTimer.start();
    Q_EMIT becameIdle(this);
}

void WorkerProcess::fail(int code, const QStringList &args)
{
    if (m_state == Dead)
        return;
    RequestClient *client = m_request ? m_request->client : nullptr;
    if (m_request)
        m_request->worker = nullptr;
    m_request = nullptr;
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
    if (m_fd >= 0) {
        ::close(m_fd); // the worker sees EOF and leaves
        m_fd = -1;
    }
    reap(waitMs);
}

// ---------------------------------------------------------------- WorkerPool

static WorkerPool *s_pool = nullptr;

WorkerPool *WorkerPool::instance()
{
    if (!s_pool) {
        // A child of the application object: ended (and its workers with it) when the
        // application object is destroyed.
        s_pool = new WorkerPool(QCoreApplication::instance());
    }
    return s_pool;
}

bool WorkerPool::exists()
{
    return s_pool != nullptr;
}

WorkerPool::WorkerPool(QObject *parent)
    : QObject(parent)
{ }

WorkerPool::~WorkerPool()
{
    for (Request *r : std::as_const(m_queue))
        r->queued = false;
    const QList<WorkerProcess *> workers = m_workers;
    m_workers.clear();
    for (WorkerProcess *w : workers) {
        w->disconnect(this);
        w->detachRequest();
        delete w;
    }
    if (s_pool == this)
        s_pool = nullptr;
}

void WorkerPool::submit(Request *r)
{
    QList<QByteArray> urls;
    urls.reserve(r->urls.size());
    for (const QUrl &u : std::as_const(r->urls))
        urls.append(u.toEncoded());
    r->payload = encodeCommand(r->command, urls, r->options);
    if (r->payload.size() > qsizetype(Wire::MaxPayload)) {
        // A frame the worker would refuse (say, tens of thousands of sources at once).
        failLater(r, ErrUnsupportedAction, { r->urls.value(0).toString() });
        return;
    }
    r->protocol = protocolInfo(r->urls.value(0).scheme());
    r->key = Url::schedulerKey(r->urls.value(0));
    if (!r->protocol.isValid()) {
        failLater(r, ErrUnsupportedProtocol, { r->urls.value(0).scheme() });
        return;
    }
    r->queued = true;
    m_queue.append(r);
    schedule();
}

void WorkerPool::failLater(Request *r, int code, const QStringList &args)
{
    RequestClient *c = r->client;
    QMetaObject::invokeMethod(
        c->context(), [c, code, args] { c->requestFailed(code, args); }, Qt::QueuedConnection);
}

void WorkerPool::cancel(Request *r)
{
    if (r->queued) {
        m_queue.removeOne(r);
        r->queued = false;
    }
    if (r->worker)
        r->worker->killRequest();
}

void WorkerPool::prestart(const QUrl &url)
{
    const ProtocolInfo info = protocolInfo(url.scheme());
    if (!info.isValid())
        return;
    for (WorkerProcess *w : std::as_const(m_workers)) {
        if (w->info().workerId == info.workerId)
            return;
    }
    QString error;
    spawn(info, &error);
}

void WorkerPool::shutdownIdle()
{
    const QList<WorkerProcess *> workers = m_workers;
    for (WorkerProcess *w : workers) {
        if (w->state() == WorkerProcess::Idle || w->state() == WorkerProcess::Dead)
            retire(w);
        else
            m_endWhenIdle.insert(w); // busy, or waiting for a kill's acknowledgement
    }
}

void WorkerPool::retire(WorkerProcess *w)
{
    m_workers.removeOne(w);
    m_endWhenIdle.remove(w);
    w->disconnect(this);
    w->shutdown(1000);
    w->deleteLater();
}

WorkerProcess *WorkerPool::spawn(const ProtocolInfo &info, QString *error)
{
    auto *w = new WorkerProcess(info, this);
    if (!w->start(error)) {
        delete w;
        return nullptr;
    }
    ++m_starts;
    qCDebug(QVFS_CORE) << "started worker" << info.executable << w->pid();
    connect(w, &WorkerProcess::becameIdle, this, &WorkerPool::onIdle);
    connect(w, &WorkerProcess::died, this, &WorkerPool::onDied);
    m_workers.append(w);
    return w;
}

void WorkerPool::schedule()
{
    if (m_scheduling)
        return;
    m_scheduling = true;
    // An idle worker may have died since: its end of file can still be unread (queued
    // job starts run before socket notifiers). Look before handing it a job.
    const QList<WorkerProcess *> workers = m_workers;
    for (WorkerProcess *w : workers) {
        if (w->state() == WorkerProcess::Idle)
            w->checkAlive(); // a dead one reports died(), which removes it
    }
    for (qsizetype i = 0; i < m_queue.size();) {
        Request *r = m_queue.at(i);
        int instances = 0, perHost = 0;
        WorkerProcess *idle = nullptr;
        for (WorkerProcess *w : std::as_const(m_workers)) {
            if (w->info().workerId != r->protocol.workerId || w->state() == WorkerProcess::Dead)
                continue;
            ++instances;
            if (w->state() == WorkerProcess::Idle) {
                if (!idle || w->lastKey() == r->key)
                    idle = w;
            } else if (w->lastKey() == r->key) {
                ++perHost;
            }
        }
        const int maxPerHost
            = r->protocol.maxInstancesPerHost ? r->protocol.maxInstancesPerHost : r->protocol.maxInstances;
        if (perHost >= maxPerHost) {
            ++i;
            continue;
        }
        if (!idle && instances >= r->protocol.maxInstances) {
            ++i;
            continue;
        }
        if (!idle) {
            QString error;
            idle = spawn(r->protocol, &error);
            if (!idle) {
                m_queue.removeAt(i);
                r->queued = false;
                failLater(r, ErrCannotCreateWorker, { r->protocol.name, error });
                continue;
            }
        }
        m_queue.removeAt(i);
        r->queued = false;
        idle->run(r);
    }
    m_scheduling = false;
}

void WorkerPool::onIdle(WorkerProcess *w)
{
    if (m_endWhenIdle.contains(w)) {
        retire(w);
        return;
    }
    // Let the finishing job's result handlers run first; they often queue the next job.
    QMetaObject::invokeMethod(this, &WorkerPool::schedule, Qt::QueuedConnection);
}

void WorkerPool::onDied(WorkerProcess *w)
{
    m_endWhenIdle.remove(w);
    m_workers.removeOne(w);
    w->disconnect(this);
    w->deleteLater();
    QMetaObject::invokeMethod(this, &WorkerPool::schedule, Qt::QueuedConnection);
}

} // namespace Qvfs::Internal
