// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERPROCESS_P_H
#define QVFS_WORKERPROCESS_P_H

// Worker processes, internal: WorkerProcess, one worker process and the application's end
// of its connection (workerprocess.cpp); and starting, adopting and reaping them, and the
// environment's timeouts (workerspawn_unix.cpp).

#include "connection_p.h"
#include "entrycodec_p.h"
#include "workerinfo_p.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

class QSocketNotifier;

namespace Qvfs::Internal
{

class Request;

/*!
 * Spawns a worker executable with qvfs_spawn_worker() (workerlaunch_p.h), with the words
 * of $QVFS_WORKER_PREFIX before it. Returns the pid, or -1 with \a error set.
 */
qint64 spawnWorker(const QString &executable, int childFd, QString *error);
/*!
 * The worker the `qvfs` launcher (src/cli/launcher.c) started for this process before it
 * loaded Qt, so that both start at once: taken from $QVFS_PRESPAWNED_WORKER (read once,
 * then removed from the environment; its descriptor is made close-on-exec before any
 * worker is spawned). True, with \a fd (the application's end of its socket, not yet
 * greeted) and \a pid, when it runs the same file as \a executable and is alive; it is
 * the caller's then. Otherwise a prespawned worker is discarded and false returned.
 */
bool takePrespawnedWorker(const QString &executable, int *fd, qint64 *pid);
/*! Ends a prespawned worker nobody took: closes its socket, kills and reaps it. */
void discardPrespawnedWorker();
/*! Waits up to \a waitMs for \a pid to exit (its socket is closed), then SIGKILLs it. */
void reapWorker(qint64 pid, int waitMs);

/*! Milliseconds from the environment variable \a name, or \a fallback. */
int envMs(const char *name, int fallback);

class WorkerProcess : public QObject
{
    Q_OBJECT
public:
    enum State { Starting, Idle, Busy, Killing, Dead };
    WorkerProcess(const ProtocolInfo &info, QObject *parent);
    ~WorkerProcess() override;

    bool start(QString *error);
    State state() const { return m_state; }
    const ProtocolInfo &info() const { return m_info; }
    /*! The scheduler key of the last request it ran (it may hold a connection there). */
    QString lastKey() const { return m_lastKey; }
    qint64 pid() const { return m_pid; }

    /*!
     * Makes this a watcher (before start()): it runs any number of requests at once
     * (watches), each until it ends or is killed, has no silence deadline (a watched
     * folder may stay quiet for hours) and routes each frame by its request id.
     */
    void setMultiplexed(bool on) { m_multiplex = on; }
    bool isMultiplexed() const { return m_multiplex; }
    /*! Requests running or being killed (a watcher's watches). */
    int requestCount() const { return int(m_live.size() + m_ending.size()) + (m_request ? 1 : 0); }

    /*! Sends \a r's command; the worker becomes Busy. */
    void run(Request *r);
    /*! Sends a control message about the request \a id (when it runs here). */
    void sendControl(quint32 id, Wire::Msg type, QByteArrayView payload = {});
    /*! Kills the request \a r running here: its client hears nothing more. */
    void killRequest(Request *r);
    /*!
     * Sends a positional operation on the open file of the running request (see
     * Wire::Msg::FileRead): \a payload, then \a trailer (a write's data goes out without
     * a copy). The silence deadline runs only while operations are unanswered: an open
     * file may rest for hours.
     */
    void sendFileOperation(Wire::Msg type, QByteArrayView payload, QByteArrayView trailer = {});
    /*!
     * Blocks up to \a msecs (-1: no limit) until frames arrive, and handles them (see
     * Request::waitForWorker()). Enforces the silence deadline itself, as its timer cannot
     * fire meanwhile. False when nothing came in time or the worker is gone.
     */
    bool waitForFrames(int msecs);
    /*! Whether it runs an open request: it holds a file open for a job, however long. */
    bool holdsFile() const { return m_holdsFile; }
    /*! Stops reading the socket (backpressure) or starts again. */
    void setReading(bool on);
    /*! Ends the process: closes the socket, waits briefly, then SIGKILLs. */
    void shutdown(int waitMs);
    /*! An idle worker: reads what is pending, so a worker that died is noticed now. */
    void checkAlive();
    /*! Forgets the running request (the scheduler is going away). */
    void detachRequest();

Q_SIGNALS:
    void becameIdle(Qvfs::Internal::WorkerProcess *w);
    void died(Qvfs::Internal::WorkerProcess *w);

private:
    /*!
     * Takes \a fd, the socket to the worker \a pid, and greets it. False when the worker
     * is gone already (then it is reaped, and this is Dead).
     */
    bool attach(int fd, qint64 pid);
    void onReadable();
    void flush();
    bool handleFrame(const Wire::Header &h, QByteArray &&payload);
    bool handleHello(const Wire::Header &h, const QByteArray &payload);
    bool handleMultiplexed(const Wire::Header &h, QByteArray &&payload);
    /*! Decodes an Entries payload; atoms start afresh when the request id changes. */
    QExplicitlySharedDataPointer<EntryBatch> decodeEntries(quint32 id, const QByteArray &payload);
    void dispatch(Wire::Msg type, QByteArray &&payload);
    void becomeIdleIfDone();
    void fail(int code, const QStringList &args);
    void finishRequest();
    void touchDeadline();
    /*! What an error about this worker names: the running request's URL, else the protocol. */
    QString subject() const;

    ProtocolInfo m_info;
    qint64 m_pid = 0;
    Connection m_conn;
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    EntryDecoder m_decoder;
    State m_state = Starting;
    bool m_helloOk = false;
    bool m_reading = true;
    Request *m_request = nullptr;
    quint32 m_requestId = 0;
    bool m_multiplex = false;
    QHash<quint32, Request *> m_live; // a watcher's running requests
    QSet<quint32> m_ending; // a watcher's killed requests, until acknowledged
    quint32 m_lastEntriesId = 0;
    quint32 m_nextId = 1;
    bool m_holdsFile = false; // runs an open request (until it ends)
    bool m_fileOpen = false; // ... whose file is open: silence is fine while nothing is asked
    int m_fileOpsPending = 0; // operations sent but not answered
    QString m_lastKey;
    QTimer m_deadline;
    QTimer m_killTimer;
    QTimer m_idleTimer;
};

} // namespace Qvfs::Internal

#endif
