// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERENGINE_P_H
#define QVFS_WORKERENGINE_P_H

// The engine behind WorkerBase (workerbase.cpp forwards to it, as KIO's WorkerBase does to
// its bridge): the process, the connection to the application, the running request, the
// entries, the watches and an open file. Internal.

#include "connection_p.h"
#include "entrycodec_p.h"
#include "requests_p.h"
#include "workerbase.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QSet>
#include <QUrl>

#include <ctime>
#include <functional>
#include <memory>
#include <utility>

namespace Qvfs
{

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
     * \a watches and \a files are the parts the commands need; they are only kept here
     * (WorkerBasePrivate makes them together), not used before exec().
     */
    WorkerEngine(WorkerBase *q, const QByteArray &protocol, WorkerBase::Options options, WatchServer &watches,
        OpenFileServer &files);
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

    // ---- entries ----
    void beginEntry();
    void addNumber(quint16 field, qint64 value);
    void addString(quint16 field, QByteArrayView value);
    void addAtom(quint16 field, QByteArrayView value);
    void endEntry();
    void whenFirstBatchSent(std::function<void(const QList<QByteArray> &)> hook);
    /*! Starts an Entries frame (a listing, a stat, a watch's batch of changes). */
    void startBatch();
    /*!
     * Sends the pending entries. \a last: the request's final message follows at once,
     * so both go out in one write (one wake-up of the application per stat, not two).
     */
    void flushBatch(bool last = false);
    /*! Entries sent on this connection so far: a watch's batch of changes counts its own. */
    qint64 entriesSent() const { return m_entriesSent; }

    /*! WorkerBase::watch()'s default: polls when \a request.pollMs is above 0. */
    WorkerResult pollingWatch(const WatchRequest &request);
    /*! WorkerBase::unwatch()'s default: the folder of watch \a id is polled no more. */
    void stopPolling(quint32 id) { m_polledFolders.remove(id); }
    /*! The folder of watch \a id now lives at \a url: polled there. */
    void pollMoved(quint32 id, const QUrl &url);
    /*! The earlier of \a due and the next poll's time (nowMs(); -1: none). */
    qint64 nextPollDue(qint64 due) const;
    /*! Polls the folders of live watches whose time has come by \a now. */
    void pollDue(qint64 now);

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

    // entries
    void beginEntryBytes();
    /*! Encodes the end of the entry and flushes the batch by size and time. */
    void finishEntry();
    void runFirstBatchHook();
    void noteName(quint16 field, QByteArrayView value)
    {
        if (field == Name && m_firstBatchHook)
            m_firstBatchNames.append(value.toByteArray());
    }

    // the polling watch
    struct PolledFolder
    {
        struct Digest
        {
            quint64 hash; // of the entry's fields
            quint32 generation; // of the listing that last gave the name
        };
        ListRequest list;
        int intervalMs = 0;
        qint64 dueMs = 0;
        quint32 generation = 1; // of the listing running or last run: a name it did not give is gone
        QHash<QByteArray, Digest> digests; // by name
    };
    enum class DigestMode {
        Off, //!< entries go out as the hook makes them
        SendAll, //!< entries are sent, and their digest kept
        SendChanged, //!< entries are digested; only new or changed ones are sent (as upserts)
    };
    void runPoll(quint32 id);
    void hashBytes(const void *p, qsizetype n);
    void digestField(quint16 field, qint64 number, QByteArrayView str);
    /*! Encodes the entry held back (SendChanged) into the batch. */
    void sendHeldEntry();

    WorkerBase *q;
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

    // entries
    Internal::EntryEncoder m_encoder;
    QByteArray m_batch;
    int m_count = 0;
    int m_lastCount = 0; // entries of the last frame sent: the count hint of the next
    qint64 m_startMs = 0;
    bool m_firstSent = false;
    qint64 m_wireBytes = 0; // Entries frames sent for the running request
    qint64 m_entriesSent = 0;
    quint32 m_lastEntriesId = 0; // request id of the last Entries frame: atoms restart with another
    std::function<void(const QList<QByteArray> &)> m_firstBatchHook;
    QList<QByteArray> m_firstBatchNames;

    // the polling watch
    QHash<quint32, PolledFolder> m_polledFolders; // by watch
    DigestMode m_digestMode = DigestMode::Off;
    PolledFolder *m_digestFolder = nullptr;
    quint64 m_hash = 0; // of the entry being built
    QByteArray m_name; // its Name
    QByteArray m_heldFields; // SendChanged: its fields, to encode if it turns out new or changed
};

} // namespace Qvfs

#endif
