// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "keys_p.h"
#include "protocol.h"
#include "protocolregistry_p.h"
#include "qvfs_debug.h"
#include "request_p.h"
#include "scheduler_p.h"
#include "urlidentity.h"
#include "workerprocess_p.h"

#include <QCoreApplication>
#include <QPointer>

namespace Qvfs::Internal
{

namespace
{
constexpr qsizetype MaxUrlBytes = 64 * 1024;

Scheduler *s_scheduler = nullptr;

// What a worker must declare to be sent a command.
Protocol::Capability capabilityFor(Wire::Command c)
{
    switch (c) {
    case Wire::Command::ListDir:
    case Wire::Command::ListRecursive:
        return Protocol::List;
    case Wire::Command::Stat:
        return Protocol::Stat;
    case Wire::Command::Mkdir:
        return Protocol::Mkdir;
    case Wire::Command::Delete:
        return Protocol::Delete;
    case Wire::Command::Rename:
        return Protocol::Rename;
    case Wire::Command::Copy:
        return Protocol::Copy;
    case Wire::Command::Get:
        return Protocol::Read;
    case Wire::Command::Put:
        return Protocol::Write;
    case Wire::Command::Symlink:
        return Protocol::Symlink;
    case Wire::Command::Chmod:
        return Protocol::Chmod;
    case Wire::Command::DirectorySize:
        return Protocol::Size;
    case Wire::Command::FreeSpace:
        return Protocol::FreeSpace;
    case Wire::Command::Trash:
        return Protocol::Trash;
    case Wire::Command::SetModificationTime:
        return Protocol::SetTime;
    case Wire::Command::CopyToFile:
        return Protocol::CopyToFile;
    case Wire::Command::CopyFromFile:
        return Protocol::CopyFromFile;
    case Wire::Command::Watch:
        return Protocol::Watch;
    case Wire::Command::Open:
        return Protocol::Open;
    case Wire::Command::Special:
        break;
    }
    return Protocol::Capability(0);
}
} // namespace

Scheduler *Scheduler::instance()
{
    if (!s_scheduler) {
        // A child of the application object: ended (and its workers with it) when the
        // application object is destroyed.
        s_scheduler = new Scheduler(QCoreApplication::instance());
    }
    return s_scheduler;
}

bool Scheduler::exists()
{
    return s_scheduler != nullptr;
}

Scheduler::Scheduler(QObject *parent)
    : QObject(parent)
{ }

Scheduler::~Scheduler()
{
    for (Request *r : std::as_const(m_queue))
        r->m_queued = false;
    QList<WorkerProcess *> workers = m_workers;
    workers.append(m_watchers.values());
    m_workers.clear();
    m_watchers.clear();
    for (WorkerProcess *w : workers) {
        w->disconnect(this);
        w->detachRequest();
        delete w;
    }
    discardPrespawnedWorker();
    if (s_scheduler == this)
        s_scheduler = nullptr;
}

void Scheduler::submit(Request *r)
{
    const WireCommand &c = r->command();
    const QUrl url = r->workerUrl();
    // A malformed URL is said to be one before anything else is looked up.
    for (const QUrl &u : c.urls) {
        if (!u.isValid() || u.scheme().isEmpty()) {
            failLater(r, ErrMalformedUrl, { u.toString() });
            return;
        }
        if (u.toEncoded().size() > MaxUrlBytes) {
            failLater(r, ErrUrlTooLong, { u.toString().left(200) });
            return;
        }
    }
    r->m_payload = encodeCommand(c);
    if (r->m_payload.size() > qsizetype(Wire::MaxPayload)) {
        // A frame the worker would refuse (say, tens of thousands of sources at once).
        failLater(r, ErrUnsupportedAction, { url.toString() });
        return;
    }
    const ProtocolInfo info = ProtocolRegistry::instance().find(url.scheme());
    if (!info.isValid()) {
        failLater(r, ErrUnsupportedProtocol, { url.scheme() });
        return;
    }
    Protocol::Capability needed = capabilityFor(c.command);
    if (c.command == Wire::Command::Watch && c.options.number(Keys::PollMs, 0) > 0)
        needed = Protocol::List; // any worker that lists can poll
    if (needed && !Protocol::find(url.scheme()).hasCapability(needed)) {
        failLater(r, ErrUnsupportedAction, { url.toString() });
        return;
    }
    r->m_key = Url::schedulerKey(url);
    r->m_workerId = info.workerId;
    if (c.command == Wire::Command::Watch) {
        runWatch(r, info);
        return;
    }
    r->m_queued = true;
    m_queue.append(r);
    schedule();
}

void Scheduler::runWatch(Request *r, const ProtocolInfo &info)
{
    WorkerProcess *w = m_watchers.value(r->m_key);
    if (w && w->state() == WorkerProcess::Dead)
        w = nullptr;
    if (!w) {
        w = new WorkerProcess(info, this);
        w->setMultiplexed(true);
        QString error;
        if (!w->start(&error)) {
            delete w;
            failLater(r, ErrCannotCreateWorker, { info.name, error });
            return;
        }
        qCDebug(QVFS_CORE) << "started watcher" << info.executable << w->pid() << r->m_key;
        // Its idle timeout (no watch left) ends it like a pool worker's.
        connect(w, &WorkerProcess::died, this, &Scheduler::onWatcherGone);
        m_watchers.insert(r->m_key, w);
    }
    w->run(r);
}

void Scheduler::onWatcherGone(WorkerProcess *w)
{
    for (auto it = m_watchers.begin(); it != m_watchers.end(); ++it) {
        if (it.value() == w) {
            m_watchers.erase(it);
            break;
        }
    }
    w->disconnect(this);
    w->deleteLater();
}

void Scheduler::failLater(Request *r, int code, const QStringList &args)
{
    RequestClient *c = r->client();
    r->m_active = false;
    QMetaObject::invokeMethod(
        c->context(), [c, code, args] { c->requestFailed(code, args); }, Qt::QueuedConnection);
}

void Scheduler::cancel(Request *r)
{
    if (r->m_queued) {
        m_queue.removeOne(r);
        r->m_queued = false;
    }
    if (r->m_worker)
        r->m_worker->killRequest(r);
}

void Scheduler::prestart(const QUrl &url)
{
    const ProtocolInfo info = url.isValid() ? ProtocolRegistry::instance().find(url.scheme()) : ProtocolInfo();
    if (!info.isValid()) {
        discardPrespawnedWorker(); // no job of this process will want it
        return;
    }
    for (WorkerProcess *w : std::as_const(m_workers)) {
        if (w->info().workerId == info.workerId)
            return;
    }
    QString error;
    spawn(info, &error);
}

void Scheduler::shutdownIdle()
{
    const QList<WorkerProcess *> watchers = m_watchers.values();
    for (WorkerProcess *w : watchers) {
        if (w->state() == WorkerProcess::Idle || w->state() == WorkerProcess::Dead) {
            onWatcherGone(w);
            w->shutdown(1000);
        }
    }
    const QList<WorkerProcess *> workers = m_workers;
    for (WorkerProcess *w : workers) {
        if (w->state() == WorkerProcess::Idle || w->state() == WorkerProcess::Dead)
            retire(w);
        else
            m_endWhenIdle.insert(w); // busy, or waiting for a kill's acknowledgement
    }
}

void Scheduler::retire(WorkerProcess *w)
{
    m_workers.removeOne(w);
    m_endWhenIdle.remove(w);
    w->disconnect(this);
    w->shutdown(1000);
    w->deleteLater();
}

WorkerProcess *Scheduler::spawn(const ProtocolInfo &info, QString *error)
{
    auto *w = new WorkerProcess(info, this);
    if (!w->start(error)) {
        delete w;
        return nullptr;
    }
    ++m_starts;
    qCDebug(QVFS_CORE) << "started worker" << info.executable << w->pid();
    connect(w, &WorkerProcess::becameIdle, this, &Scheduler::onIdle);
    connect(w, &WorkerProcess::died, this, &Scheduler::onDied);
    m_workers.append(w);
    return w;
}

void Scheduler::schedule()
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
        const ProtocolInfo info = ProtocolRegistry::instance().find(r->workerUrl().scheme());
        // Open files hold their worker for as long as they are open, which may be hours:
        // they are counted apart, with the same limits, so that they never take the
        // worker another job waits for (nor the other way round). See docs/random-access.md.
        const bool open = r->command().command == Wire::Command::Open;
        int instances = 0, perHost = 0;
        WorkerProcess *idle = nullptr;
        for (WorkerProcess *w : std::as_const(m_workers)) {
            if (w->info().workerId != r->m_workerId || w->state() == WorkerProcess::Dead)
                continue;
            if (w->state() == WorkerProcess::Idle) {
                if (!open)
                    ++instances;
                // Prefer the worker that served this host last: it may hold a connection.
                if (!idle || w->lastKey() == r->m_key)
                    idle = w;
                continue;
            }
            if (w->holdsFile() != open)
                continue;
            ++instances;
            if (w->lastKey() == r->m_key)
                ++perHost;
        }
        const int maxPerHost = info.maxInstancesPerHost ? info.maxInstancesPerHost : info.maxInstances;
        if (perHost >= maxPerHost
            || (open ? instances >= info.maxInstances : (!idle && instances >= info.maxInstances))) {
            ++i;
            continue;
        }
        if (!idle) {
            QString error;
            idle = spawn(info, &error);
            if (!idle) {
                m_queue.removeAt(i);
                r->m_queued = false;
                failLater(r, ErrCannotCreateWorker, { info.name, error });
                continue;
            }
        }
        m_queue.removeAt(i);
        r->m_queued = false;
        idle->run(r);
    }
    m_scheduling = false;
}

void Scheduler::onIdle(WorkerProcess *w)
{
    if (m_endWhenIdle.contains(w)) {
        retire(w);
        return;
    }
    // Open files have a pool of their own: a closed file's worker stays only while the
    // workers not holding a file (it now among them) are within the limit.
    int live = 0;
    for (WorkerProcess *o : std::as_const(m_workers)) {
        if (o->info().workerId == w->info().workerId && o->state() != WorkerProcess::Dead && !o->holdsFile())
            ++live;
    }
    if (live > w->info().maxInstances) {
        retire(w);
        QMetaObject::invokeMethod(this, &Scheduler::schedule, Qt::QueuedConnection);
        return;
    }
    // Let the finishing job's result handlers run first; they often queue the next job.
    QMetaObject::invokeMethod(this, &Scheduler::schedule, Qt::QueuedConnection);
}

void Scheduler::onDied(WorkerProcess *w)
{
    m_endWhenIdle.remove(w);
    m_workers.removeOne(w);
    w->disconnect(this);
    w->deleteLater();
    QMetaObject::invokeMethod(this, &Scheduler::schedule, Qt::QueuedConnection);
}

} // namespace Qvfs::Internal
