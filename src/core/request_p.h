// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_REQUEST_P_H
#define QVFS_REQUEST_P_H

// The job side of one worker command. A job fills a typed request (requests.h), starts
// it, and hears back through RequestClient; it never sees a wire frame. Internal.

#include "metadata.h"
#include "requests_p.h"

#include <QStringList>
#include <QUrl>

class QObject;

namespace Qvfs::Internal
{

class EntryBatch;
class WorkerProcess;
class Scheduler;

/*! Everything a worker says about one request, decoded. */
class RequestClient
{
public:
    virtual ~RequestClient();
    /*! A listing batch or a stat entry. */
    virtual void requestEntries(EntryBatch *batch);
    /*! A chunk of a get. */
    virtual void requestData(const QByteArray &data);
    /*! A put wants its next chunk (answer with Request::sendData() / endData()). */
    virtual void requestDataWanted();
    virtual void requestProgress(const Progress &progress);
    /*! Metadata sent while the request runs (MIME type, final URL, ...). */
    virtual void requestMetaData(const MetaData &meta);
    /*! A question (questions.h, in its wire block); answer with Request::answer(). */
    virtual void requestQuestion(const MetaData &question);
    /*! The request now works on \a url (a server redirected it). */
    virtual void requestRedirection(const QUrl &url);
    /*! A copy's per-file event (CopyRequest::reportItems). */
    virtual void requestItem(CopyItemEvent event, const QUrl &source, const QUrl &destination);
    /*! An entry of a tree was left out (unreadable), with the reason. */
    virtual void requestLeftOut(const QUrl &url, int error);
    /*!
     * A watch's report (WatchRequest): the end of its listing, a fresh listing starting,
     * the commit of a change batch (whose entries came through requestEntries() since
     * the last report), the folder gone or moved.
     */
    virtual void requestChanges(const WatchChanges &changes);
    /*! An open request's file is open (OpenRequest); positional operations may follow. */
    virtual void requestOpened(const OpenedFile &file);
    /*! A piece of the answer to fileRead() \a op, at \a offset; \a last: its last piece. */
    virtual void requestFileData(quint32 op, qint64 offset, const QByteArray &data, bool last);
    /*! A write, truncate or size operation is done. */
    virtual void requestFileDone(const FileDone &done);
    /*! Any message at all: the worker is alive (heartbeats included). */
    virtual void requestAlive();
    /*! The request succeeded, with the worker's results. */
    virtual void requestFinished(const MetaData &results) = 0;
    /*! The request failed (worker error, worker death, timeout, ...). */
    virtual void requestFailed(int code, const QStringList &args) = 0;
    /*! The object whose lifetime bounds deferred calls to this client (the job). */
    virtual QObject *context() = 0;
};

/*!
 * A command waiting for or running on a worker. Owned by its job; destroying it
 * withdraws it (kill semantics, no more callbacks).
 */
class Request
{
public:
    explicit Request(RequestClient *client);
    ~Request();
    Request(const Request &) = delete;
    Request &operator=(const Request &) = delete;

    /*! Sets the command (while not active). */
    template<typename R>
    void set(const R &request)
    {
        m_command = toWire(request);
    }
    void setCommand(WireCommand command) { m_command = std::move(command); }
    const WireCommand &command() const { return m_command; }
    WireCommand &command() { return m_command; }
    /*! The first URL of the command (what an error about it names). */
    QUrl url() const { return m_command.urls.value(0); }
    /*!
     * The URL whose worker runs the command: a copyFromFile's destination (its source is
     * the local file), else the first.
     */
    QUrl workerUrl() const
    {
        return m_command.command == Wire::Command::CopyFromFile ? m_command.urls.value(1) : url();
    }

    /*! Queues the command; the client hears back, never synchronously from here. */
    void start();
    /*! Withdraws it, queued or running: the worker is told to stop; no more callbacks. */
    void cancel();
    /*! Queued or running. */
    bool isActive() const { return m_active; }
    /*! Running on a worker (no longer queued). */
    bool isRunning() const { return m_active && m_worker; }
    /*!
     * Stops the worker sending (and the application reading) until resumed. Remembered
     * while queued: a request suspended before it runs starts suspended.
     */
    void setSuspended(bool suspended);
    bool isSuspended() const { return m_suspended; }
    /*! Put: the next chunk (split into frames as needed). */
    void sendData(QByteArrayView data);
    /*! Put: the end of the data. */
    void endData();
    /*! Answers the worker's question \a questionId with \a answer (empty: refused). */
    void answer(qint64 questionId, const MetaData &answer);

    // ---- an open file (OpenRequest), once requestOpened() came ----
    /*! Reads \a length bytes (at most Wire::MaxFileRead) at \a offset; answered by requestFileData(). */
    void fileRead(quint32 op, qint64 offset, qint64 length);
    /*! Writes \a data (at most Wire::FileChunk bytes) at \a offset (-1: at the end); answered by requestFileDone(). */
    void fileWrite(quint32 op, qint64 offset, QByteArrayView data);
    /*! Cuts or extends the file to \a length; answered by requestFileDone(). */
    void fileTruncate(quint32 op, qint64 length);
    /*! Asks for the current size; answered by requestFileDone(). */
    void fileSize(quint32 op);
    /*! Closes the file: the request ends with requestFinished() (or requestFailed()). */
    void fileClose();
    /*!
     * Blocks up to \a msecs (-1: no limit but the worker's silence deadline) until the
     * worker says something, and hands it to the client before returning (for blocking
     * adapters such as FileDevice, without an event loop). False when nothing came in
     * time or no worker runs the request (yet).
     */
    bool waitForWorker(int msecs);

    RequestClient *client() const { return m_client; }

private:
    friend class Scheduler;
    friend class WorkerProcess;
    void sendControl(Wire::Msg type, QByteArrayView payload);

    RequestClient *m_client;
    WireCommand m_command;
    bool m_active = false;
    bool m_suspended = false;

    // set by the scheduler and the worker running it
    QString m_key; // scheduler key: (scheme, user, host, port)
    QString m_workerId;
    QByteArray m_payload; // the encoded command, made once when started
    WorkerProcess *m_worker = nullptr;
    quint32 m_id = 0;
    bool m_queued = false;
};

} // namespace Qvfs::Internal

#endif
