// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_JOB_P_H
#define QVFS_JOB_P_H

#include "job.h"
#include "workerpool_p.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QPointer>

#include <array>
#include <deque>

namespace Qvfs
{

/*!
 * The state every job has, and the default plumbing from one worker request to the
 * job's signals. A job that runs several requests (a generic copy) overrides the hooks.
 */
class JobPrivate : public Internal::RequestClient
{
public:
    explicit JobPrivate();
    ~JobPrivate() override;

    Job *q_ptr = nullptr;
    Q_DECLARE_PUBLIC(Job)

    int error = 0;
    QStringList errorArgs;
    bool finished = false;
    bool started = false;
    bool autoDelete = true;
    bool isSuspended = false;
    QEventLoop *execLoop = nullptr; // set while exec() runs
    AskDelegate *askDelegate = nullptr;
    int askTimeoutMs = 5 * 60 * 1000;
    MetaData meta;
    std::array<qint64, 3> total { { -1, -1, -1 } };
    std::array<qint64, 3> processed { { 0, 0, 0 } };
    unsigned long lastPercent = 0;
    QElapsedTimer clock;
    std::deque<std::pair<qint64, qint64>> speedSamples; // (ms, bytes)
    qint64 currentSpeed = 0;
    quint64 questionSerial = 0;
    QList<Question *> openQuestions;
    QHash<QByteArray, MetaData> applyToAll; // answers given "for all" per question kind

    // The running request, for single-request jobs.
    Internal::Request request;
    bool requestActive = false;

    /*! Starts the job's work (called from the event loop after construction). */
    virtual void start();
    /*! Submits \a r to the pool. */
    void submit(Internal::Request &r);
    /*! Ends the job: sets the error, emits result, auto-deletes. */
    void emitResult(int code = 0, const QStringList &args = {});
    /*! Stops whatever runs (requests, sub-work); used by kill. */
    virtual void abort();
    virtual void suspendWork(bool suspend);

    // RequestClient
    void requestEntries(Internal::EntryBatch *batch) override;
    void requestMessage(Wire::Msg type, const QByteArray &payload) override;
    void requestFinished(const MetaData &results) override;
    void requestFailed(int code, const QStringList &args) override;
    QObject *context() override { return q_ptr; }

    /*! Per-message hooks for subclasses. */
    virtual void onEntries(Internal::EntryBatch *) { }
    virtual void onData(const QByteArray &) { }
    virtual void onDataRequest() { }
    virtual void onFinished(const MetaData &results);
    virtual void onFailed(int code, const QStringList &args);
    void onProgress(const MetaData &m);
    void onQuestion(const MetaData &m) { askQuestion(m, {}); }
    /*!
     * Asks the delegate (or the caches) \a m; the answer goes to \a local when set,
     * otherwise to the worker of the running request. An empty answer means refused.
     */
    void askQuestion(const MetaData &m, std::function<void(const MetaData &)> local);

    void setTotal(Job::Unit unit, qint64 amount);
    void setProcessed(Job::Unit unit, qint64 amount);
    void answerQuestion(Question *question, const MetaData &answer);
    /*! Sends \a answer to the local callback or to the worker that asked (question \a qid). */
    void deliverAnswer(qint64 qid, const MetaData &answer, const std::function<void(const MetaData &)> &local);
    /*! Forgets the open questions without deleting them: their holder deletes them. */
    void detachQuestions();
};

} // namespace Qvfs

#endif
