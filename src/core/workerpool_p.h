// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERPOOL_P_H
#define QVFS_WORKERPOOL_P_H

// Application side of the worker machinery: protocol lookup from the workers' JSON files,
// worker processes over inherited socketpairs, and the scheduler/pool. Internal.

#include "entrycodec_p.h"
#include "frame_p.h"
#include "metadata.h"
#include "workerinfo_p.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <memory>

class QSocketNotifier;

namespace Qvfs::Internal
{

/*! Finds the worker for \a scheme (cached). Empty info when none serves it. */
ProtocolInfo protocolInfo(const QString &scheme);

class WorkerProcess;

/*! The job side of one request: receives everything the worker says about it. */
class RequestClient
{
public:
    virtual ~RequestClient();
    /*! A listing batch or stat entry. */
    virtual void requestEntries(EntryBatch *batch) = 0;
    /*! Any other message for the request (Data, Progress, MetaData, Question, DataRequest, Heartbeat). */
    virtual void requestMessage(Wire::Msg type, const QByteArray &payload) = 0;
    /*! The request succeeded; \a results from the worker. */
    virtual void requestFinished(const MetaData &results) = 0;
    /*! The request failed (worker error, worker death, timeout, ...). */
    virtual void requestFailed(int code, const QStringList &args) = 0;
    /*! The object whose lifetime bounds deferred calls to this client (the job). */
    virtual QObject *context() = 0;
};

/*! A command waiting for or running on a worker. Owned by its job. */
class Request
{
public:
    Wire::Command command = Wire::Command::Stat;
    QList<QUrl> urls;
    MetaData options;
    RequestClient *client = nullptr;

    // set by the pool
    QString key;
    ProtocolInfo protocol;
    WorkerProcess *worker = nullptr;
    quint32 id = 0;
    bool queued = false;
    bool suspended = false; // set by the job: a worker taking it over starts it suspended
    QByteArray payload; // the encoded command, made once when submitted
};

/*! One worker process and its connection. */
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
    QString lastKey() const { return m_lastKey; }
    qint64 pid() const;

    /*! Sends \a r's command; the worker becomes Busy. */
    void run(Request *r);
    /*! Sends a control message for the running request. */
    void sendControl(Wire::Msg type, const QByteArray &payload = {});
    /*! Kills the running request: the client hears nothing more. */
    void killRequest();
    /*! Stops reading the socket (backpressure) or starts again. */
    void setReading(bool on);
    /*! Ends the process: closes the socket, waits briefly, then SIGKILLs. */
    void shutdown(int waitMs);
    /*! An idle worker: reads what is pending, so a worker that died is noticed now. */
    void checkAlive();
    /*! Forgets the running request (the pool is going away). */
    void detachRequest();

Q_SIGNALS:
    void becameIdle(Qvfs::Internal::WorkerProcess *w);
    void died(Qvfs::Internal::WorkerProcess *w);

private:
    void onReadable();
    void onWritable();
    void flushOut();
    void handleFrame(const Wire::Header &h, QByteArray &&payload);
    void fail(int code, const QStringList &args);
    void finishRequest();
    void touchDeadline();
    /*! What an error about this worker names: the running request's URL, else the protocol. */
    QString subject() const;
    /*! Waits up to \a waitMs for the process to exit after the socket closed, then SIGKILLs it. */
    void reap(int waitMs);

    ProtocolInfo m_info;
    qint64 m_pid = 0;
    int m_fd = -1;
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    FrameReader m_in;
    FrameWriter m_out;
    EntryDecoder m_decoder;
    State m_state = Starting;
    bool m_helloOk = false;
    bool m_reading = true;
    Request *m_request = nullptr;
    quint32 m_requestId = 0;
    quint32 m_nextId = 1;
    QString m_lastKey;
    QTimer m_deadline;
    QTimer m_killTimer;
    QTimer m_idleTimer;
};

/*! Queues requests per (scheme, user, host, port) and hands them to workers. */
class WorkerPool : public QObject
{
    Q_OBJECT
public:
    static WorkerPool *instance();
    /*! Whether the pool exists (it ends with the application object). */
    static bool exists();
    ~WorkerPool() override;

    /*! Queues \a r; the client hears back through its RequestClient. */
    void submit(Request *r);
    /*! Withdraws \a r (queued or running): kill semantics, no more callbacks. */
    void cancel(Request *r);
    /*! Starts a worker for \a url's protocol ahead of time. */
    void prestart(const QUrl &url);
    /*! Ends every idle worker now; busy ones when they finish. */
    void shutdownIdle();

    int workerCount() const { return int(m_workers.size()); }
    int workerStarts() const { return m_starts; }

private:
    explicit WorkerPool(QObject *parent);
    void schedule();
    void onIdle(WorkerProcess *w);
    void onDied(WorkerProcess *w);
    WorkerProcess *spawn(const ProtocolInfo &info, QString *error);
    void retire(WorkerProcess *w);
    /*! Tells \a r's client, from the event loop, that it failed (never after its job died). */
    void failLater(Request *r, int code, const QStringList &args);

    QList<Request *> m_queue;
    QList<WorkerProcess *> m_workers;
    QSet<WorkerProcess *> m_endWhenIdle; // asked to end while busy
    int m_starts = 0;
    bool m_scheduling = false;
};

/*! Milliseconds from the environment variable \a name, or \a fallback. */
int envMs(const char *name, int fallback);

} // namespace Qvfs::Internal

#endif
