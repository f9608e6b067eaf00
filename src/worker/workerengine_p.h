// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERENGINE_P_H
#define QVFS_WORKERENGINE_P_H

// The engine behind WorkerBase (workerbase.cpp forwards to it, as KIO's WorkerBase does to
// its bridge): the process, the connection to the application, the running request.
// The other parts send through it: the entries (entrysink_p.h), the watches
// (watchserver_p.h, pollingwatch_p.h), an open file (openfileserver_p.h). Internal.

#include "connection_p.h"
#include "requests_p.h"
#include "workerbase.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QSet>
#include <QUrl>

#include <ctime>
#include <functional>
#include <memory>

namespace Qvfs
{

class EntryBatcher;
class EntrySink;
class OpenFileServer;
class WatchServer;

/*!
 * Runs a worker process for WorkerBase: greets the application, takes its frames
 * (commands; kill, suspend and resume; answers; a put's data; an open file's operations
 * go to the OpenFileServer), runs one command at a time through its hook and ends it
 * with Finished or Error, and between commands lets the WatchServer wait on the watches.
 *
 * Whatever a hook sends goes through send() and afterAppend(): while too much is unsent
 * the hook waits, reading the application's control messages meanwhile, so a hook that
 * only sends (a listing, a get) still notices a kill or a suspend. Heartbeats keep a
 * long, quiet hook from looking hung; progress is throttled to about ten messages a second.
 */
class WorkerEngine
{
public:
    /*!
     * \a entries, \a watches and \a files are the parts the commands need. They are made
     * after the engine (WorkerBasePrivate), so they are only kept here; nothing is used
     * before exec().
     */
    WorkerEngine(WorkerBase *q, const QByteArray &protocol, WorkerBase::Options options, EntrySink &entries,
        WatchServer &watches, OpenFileServer &files);
    ~WorkerEngine();
    WorkerEngine(const WorkerEngine &) = delete;
    WorkerEngine &operator=(const WorkerEngine &) = delete;

    /*! The monotonic clock of every timeout and throttle of the worker, in milliseconds. */
    static qint64 nowMs()
    {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (qint64(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000) / 1000;
    }

    /*! WorkerBase::exec(): the greeting, then the loop until the application goes away. */
    int exec(int argc, char **argv);

    // ---- sending, for the parts too ----
    /*! Queues a frame of the running request and writes it (see afterAppend()). */
    void send(Wire::Msg type, QByteArrayView payload) { sendTo(current, type, payload); }
    /*! The same for the request \a requestId (a watch, between commands). */
    void sendTo(quint32 requestId, Wire::Msg type, QByteArrayView payload)
    {
        conn.send(type, requestId, payload);
        afterAppend();
    }
    void sendBlock(Wire::Msg type, const MetaData &m);
    /*!
     * Writes what is queued. Backpressure: while more than a high-water mark stays
     * unsent, waits, reading control messages meanwhile.
     */
    void afterAppend();
    /*! Waits up to \a timeoutMs for I/O, reads and handles what came, writes what is pending. */
    void pump(int timeoutMs);
    /*! Waits up to \a timeoutMs for the socket or \a fd (-1: none); returns whether \a fd is readable. */
    bool waitBoth(int fd, int timeoutMs);
    /*! Blocks while the application keeps the request suspended (a kill ends it). */
    void waitWhileSuspended();
    void heartbeatIfDue();
    /*! The application is gone: the running request counts as killed, and every wait ends. */
    void gone() { appGone = killed = true; }
    /*! A watch's batch of changes or resync runs between commands as the request \a id. */
    void enterWatch(quint32 id)
    {
        current = id;
        killed = false;
    }
    void leaveWatch()
    {
        current = 0;
        killed = false;
    }
    /*! Whether a command waits to run (it goes before a watch's events). */
    bool hasCommand() const { return !m_commands.isEmpty(); }

    // ---- for the hooks (WorkerBase forwards to these) ----
    void data(QByteArrayView chunk);
    bool readData(QByteArray *chunk);
    void setTotals(qint64 bytes, qint64 files, qint64 dirs);
    void setProcessed(qint64 bytes, qint64 files, qint64 dirs);
    void setSkipped(qint64 count);
    void sendMetaData(const MetaData &meta) { sendBlock(Wire::Msg::MetaData, meta); }
    void redirection(const QUrl &url);
    void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination);
    void setResult(WorkerBase::ResultKey key, qint64 value);
    void leftOut(const QUrl &url, int error);
    /*! Sends \a question and waits for its answer (an empty one on kill). */
    MetaData ask(const MetaData &question);
    bool wasKilled();
    bool waitUntil(const std::function<bool()> &done, int timeoutMs);
    bool waitForDescriptor(int fd, int timeoutMs);

    // ---- the running request; the parts read it ----
    Internal::Connection conn;
    quint32 current = 0; // running request id, 0 = idle
    MetaData opts; // the running request's options
    bool killed = false;
    bool appGone = false;

private:
    struct Pending
    {
        Wire::Header header;
        QByteArray payload;
    };

    void handle(const Wire::Header &h, QByteArray &&payload);
    void readIncoming();
    void beginRequest(quint32 id);
    void followHost(const QUrl &url);
    WorkerResult dispatch(const Internal::WireCommand &c);
    void runCommand(const Pending &p);
    /*! The entry of what the command made, so that listers of its folder need no listing. */
    void sendResultEntry(const Internal::WireCommand &c);
    void sendProgress();
    /*! The batching sink of m_entries: listings, stats and the result entry go there. */
    EntryBatcher &batcher();

    WorkerBase *q;
    EntrySink &m_entries;
    WatchServer &m_watches;
    OpenFileServer &m_files;
    QByteArray m_protocol;
    WorkerBase::Options m_options;
    // The QCoreApplication of the EventLoop option (it keeps argc/argv for its life).
    int m_argc = 0;
    char **m_argv = nullptr;
    std::unique_ptr<QCoreApplication> m_app;

    QList<Pending> m_commands; // commands that arrived (one at a time is expected)
    QSet<quint32> m_suspendedPending; // Suspend for a command that has not started yet
    QList<QByteArray> m_putData;
    bool m_putEnd = false;
    bool m_helloOk = false;
    QList<MetaData> m_answers;

    MetaData m_results;
    bool m_reportItems = false;
    bool m_suspended = false;
    bool m_justReplied = false;
    bool m_hostSet = false;
    QUrl m_host;
    qint64 m_lastSendMs = 0;
    qint64 m_lastProgressMs = 0;
    qint64 m_lastPollMs = 0;
    Internal::Progress m_progress; // processed amounts last reported by the hook
    bool m_progressPending = false;
    quint64 m_nextQuestion = 1;
};

} // namespace Qvfs

#endif
