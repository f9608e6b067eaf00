// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_COMPOSITEJOB_P_H
#define QVFS_COMPOSITEJOB_P_H

// A job made of sub-jobs (a copy: stats, listings, folder creation, transfers). Sub-jobs
// are added and removed in one place, which passes kill, suspend and the ask delegate on
// and turns a sub-job's error into the parent's unless the caller handles it. Internal.

#include "error.h"
#include "job_p.h"

#include <QList>
#include <QPointer>

#include <functional>

namespace Qvfs
{

class CompositeJobPrivate : public JobPrivate
{
public:
    ~CompositeJobPrivate() override { killSubjobs(); } // sub-jobs never outlive the parent

    /*!
     * Starts tracking \a job: it gets this job's ask delegate and suspension. When it
     * ends, \a onError (when set) may take its error and return true; an error nobody
     * takes fails this job with it. Otherwise \a onSuccess runs. Returns \a job.
     */
    template<typename J>
    J *addSubjob(J *job, std::function<void(J *)> onSuccess, std::function<bool(J *)> onError = {})
    {
        Q_Q(Job);
        subjobs.append(job);
        job->setAskDelegate(askDelegate);
        // What a sub-job leaves out, the job leaves out; its ErrPartial is no failure then.
        QObject::connect(job, &Job::leftOut, q, [this](Job *, const QUrl &url, int code) { recordLeftOut(url, code); });
        if (isSuspended)
            job->suspend();
        QObject::connect(
            job, &Job::result, q, [this, job, onSuccess = std::move(onSuccess), onError = std::move(onError)] {
                subjobs.removeAll(job);
                if (finished)
                    return;
                if (job->error() == ErrPartial) {
                    if (onSuccess)
                        onSuccess(job);
                    return;
                }
                if (job->error() && !(onError && onError(job))) {
                    fail(job->error(), job->errorArgs());
                    return;
                }
                if (!job->error() && onSuccess)
                    onSuccess(job);
            });
        return job;
    }

    /*! Ends the job with an error, killing what still runs. */
    void fail(int code, const QStringList &args)
    {
        abort();
        emitResult(code, args);
    }

    void abort() override
    {
        JobPrivate::abort();
        killSubjobs();
    }

    void suspendWork(bool suspend) override
    {
        JobPrivate::suspendWork(suspend);
        const QList<QPointer<Job>> jobs = subjobs;
        for (const QPointer<Job> &j : jobs) {
            if (j)
                suspend ? j->suspend() : j->resume();
        }
    }

    bool hasSubjobs() const { return !subjobs.isEmpty(); }

private:
    void killSubjobs()
    {
        const QList<QPointer<Job>> jobs = std::exchange(subjobs, {});
        for (const QPointer<Job> &j : jobs) {
            if (j)
                j->kill(Job::Quietly); // a killed put leaves its destination untouched
        }
    }

    QList<QPointer<Job>> subjobs;
};

} // namespace Qvfs

#endif
