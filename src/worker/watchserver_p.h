// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WATCHSERVER_P_H
#define QVFS_WATCHSERVER_P_H

// The watches a worker process serves between commands (WorkerBase::watch()): which are
// live, the waiting on their events, and the reports of their changes. Internal.

#include "requests_p.h"
#include "workerbase.h"

#include <QHash>
#include <QList>
#include <QSet>

#include <utility>

namespace Qvfs
{

class EntryBatcher;
class PollingWatch;
class WorkerEngine;

/*!
 * Serves the live watches of one process. A watch request stays open after its listing:
 * between commands the engine lets serve() wait on the socket together with the worker's
 * watch descriptor (inotify...), its timer and the next poll, and run what is due. The
 * worker reports a batch of changes, or a fresh listing after lost events, as the watch's
 * request (beginChanges() ... endChanges(), beginResync() ... endResync()); the entries go
 * through the batcher as a listing's do. A watch ends between hooks, never inside one:
 * a kill or watchGone() marks it, endWatches() calls unwatch() and acknowledges it.
 */
class WatchServer
{
public:
    WatchServer(WorkerBase *q, WorkerEngine &engine, EntryBatcher &entries, PollingWatch &polling);

    // ---- for the engine ----
    /*! Whether anything waits between commands: a live watch, or the watch timer. */
    bool hasWork() const { return !m_live.isEmpty() || m_timerDue >= 0; }
    /*!
     * Between commands: waits for the application, the watch descriptor, the timer or a
     * poll that is due, whichever comes first, and serves the watches' events (a command
     * that came goes first).
     */
    void serve();
    /*! Ends the watches marked to end: unwatch(), then the acknowledgement (Finished). */
    void endWatches();
    /*! A Watch command starts: watched natively unless its hook says otherwise. */
    void beginWatch() { m_startMode = WatchMode::Native; }
    /*! The watch \a id has listed its folder: it is live, and the application hears how it is watched. */
    void listed(quint32 id);
    /*! A kill for \a id: a live watch is marked to end. Returns whether \a id is one. */
    bool kill(quint32 id);
    /*! Marks the watch \a id to end at the next turn. */
    void endLater(quint32 id) { m_ending.insert(id); }
    /*! The application went away: every live watch ends (unwatch()), with nobody to tell. */
    void unwatchAll();

    // ---- for the hooks (WorkerBase forwards to these) ----
    WatchMode startMode() const { return m_startMode; }
    void setStartMode(WatchMode mode) { m_startMode = mode; }
    void setDescriptor(int fd) { m_fd = fd; }
    void setTimer(int ms);
    /*! Live, and not marked to end. */
    bool isWatching(quint32 id) const { return m_live.contains(id) && !m_ending.contains(id); }
    /*! Live (marked to end or not). */
    bool isLive(quint32 id) const { return m_live.contains(id); }
    bool beginChanges(quint32 id);
    void reportRemoved(QByteArrayView name);
    void reportRenamed(QByteArrayView from, QByteArrayView to);
    void endChanges();
    bool beginResync(quint32 id);
    void endResync();
    void gone(quint32 id);
    void moved(quint32 id, const QUrl &url);
    static QList<std::pair<QByteArray, QByteArray>> plainRenames(
        const QList<std::pair<QByteArray, QByteArray>> &renames, const QSet<QByteArray> &existing);

private:
    /*! Enters the live watch \a id for a batch (none open, no command running); false when it cannot. */
    bool enterLive(quint32 id);

    WorkerBase *q;
    WorkerEngine &m_engine;
    EntryBatcher &m_entries;
    PollingWatch &m_polling;

    QHash<quint32, WatchMode> m_live; // live watches and how each is watched
    QSet<quint32> m_ending; // live watches to end at the next turn: unwatch(), then Finished
    WatchMode m_startMode = WatchMode::Native; // of the watch being started
    int m_fd = -1;
    qint64 m_timerDue = -1; // WorkerEngine::nowMs() clock
    Internal::WatchChanges m_changes; // removals and renames of the open batch
    bool m_inChanges = false;
    bool m_inResync = false;
    qint64 m_entriesBefore = 0; // EntryBatcher::entriesSent() when the open batch began
};

} // namespace Qvfs

#endif
