// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_JOB_P_H
#define QVFS_JOB_P_H

#include "job.h"
#include "request_p.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QHash>
#include <QPointer>

#include <array>
#include <deque>
#include <functional>

namespace Qvfs
{

/*!
 * The state every job has, and the default plumbing from one worker request to the
 * job's signals. A job that runs several requests or sub-jobs overrides the hooks.
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
    QHash<int, MetaData> applyToAll; // answers given "for all", per question kind

    /*! The job's worker command (single-request jobs). */
    Internal::Request request { this };

    /*! Starts the job's work (called from the event loop after construction). */
    virtual void start();
    qint64 leftOutCount = 0;
    QUrl firstLeftOut;
    /*! An entry of a tree left out: counted, announced; the job ends with ErrPartial. */
    virtual void recordLeftOut(const QUrl &url, int error);
    /*!
     * Ends the job: sets the error, emits result, auto-deletes. A success after entries
     * were left out is ErrPartial.
     */
    void emitResult(int code = 0, const QStringList &args = {});
    /*! Stops whatever runs (requests, sub-work); used by kill. */
    virtual void abort();
    virtual void suspendWork(bool suspend);

    // RequestClient: what the request's worker says.
    void requestProgress(const Internal::Progress &progress) override;
    void requestMetaData(const MetaData &m) override;
    void requestQuestion(const MetaData &m) override { askQuestion(m, {}); }
    void requestRedirection(const QUrl &url) override;
    void requestLeftOut(const QUrl &url, int error) override { recordLeftOut(url, error); }
    void requestFinished(const MetaData &results) override;
    void requestFailed(int code, const QStringList &args) override;
    QObject *context() override { return q_ptr; }

    /*! The request succeeded (default: the job succeeds). */
    virtual void onFinished(const MetaData &results);
    /*! The request failed (default: the job fails the same way). */
    virtual void onFailed(int code, const QStringList &args);

    /*!
     * Asks the delegate (or the caches) the question block \a m (questions.h, wire
     * form); the answer goes to \a local when set, otherwise to the worker of the
     * running request. An empty answer means refused.
     */
    void askQuestion(const MetaData &m, std::function<void(const MetaData &)> local);

    void setTotal(Job::Unit unit, qint64 amount);
    void setProcessed(Job::Unit unit, qint64 amount);
    /*! Applies a worker's progress report. */
    void applyProgress(const Internal::Progress &progress);
    void answerQuestion(Question *question, const MetaData &answer);
    /*! Forgets the open questions without deleting them: their holder deletes them. */
    void detachQuestions();
};

} // namespace Qvfs

#endif
