// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SCHEDULER_P_H
#define QVFS_SCHEDULER_P_H

// The application's worker pool: queues requests per (scheme, user, host, port) and
// hands them to worker processes within the limits their descriptions declare. Internal.

#include "workerinfo_p.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QStringList>

namespace Qvfs::Internal
{

class Request;
class WorkerProcess;

class Scheduler : public QObject
{
    Q_OBJECT
public:
    /*! The application's scheduler, made on first use. */
    static Scheduler *instance();
    /*! Whether it exists (it ends with the application object). */
    static bool exists();
    ~Scheduler() override;

    /*! Queues \a r; its client hears back through RequestClient, never synchronously. */
    void submit(Request *r);
    /*! Withdraws \a r (queued or running): kill semantics, no more callbacks. */
    void cancel(Request *r);
    /*!
     * Starts a worker for \a url's protocol ahead of time (or adopts the one the `qvfs`
     * launcher started). An invalid \a url only ends a launcher's worker nobody will use.
     */
    void prestart(const QUrl &url);
    /*! Ends every idle worker now; busy ones when they finish. */
    void shutdownIdle();

    /*! Pool workers (watchers not counted). */
    int workerCount() const { return int(m_workers.size()); }
    int workerStarts() const { return m_starts; }
    /*! Watcher processes running (one per host with watches). */
    int watcherCount() const { return int(m_watchers.size()); }

private:
    explicit Scheduler(QObject *parent);
    void schedule();
    void onIdle(WorkerProcess *w);
    void onDied(WorkerProcess *w);
    WorkerProcess *spawn(const ProtocolInfo &info, QString *error);
    void retire(WorkerProcess *w);
    /*! Tells \a r's client, from the event loop, that it failed (never after its job died). */
    void failLater(Request *r, int code, const QStringList &args);
    /*! Runs the watch \a r on the watcher of its host, started when needed. */
    void runWatch(Request *r, const ProtocolInfo &info);
    void onWatcherGone(WorkerProcess *w);

    QList<Request *> m_queue;
    QList<WorkerProcess *> m_workers;
    QSet<WorkerProcess *> m_endWhenIdle; // asked to end while busy
    // Watches are served apart from the pool: one watcher process per scheduler key runs
    // every watch of that host at once (WorkerProcess::setMultiplexed), so watched
    // folders never take the workers, nor count against the limits, of ordinary jobs.
    QHash<QString, WorkerProcess *> m_watchers;
    int m_starts = 0;
    bool m_scheduling = false;
};

} // namespace Qvfs::Internal

#endif
