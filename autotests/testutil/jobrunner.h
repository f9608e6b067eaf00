// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_JOBRUNNER_H
#define QVFS_TESTUTIL_JOBRUNNER_H

#include <Qvfs/Entry>
#include <Qvfs/Job>
#include <Qvfs/ListJob>

#include <QMap>
#include <QStringList>

#include <memory>

namespace QvfsTest
{

/*!
 * How long a job may run in the tests before it is killed. Not a figure under test: it
 * only ends a hung job with a clear message long before ctest's own timeout.
 */
constexpr int JobTimeoutMs = 120000;

/*!
 * Runs \a job to its result (Job::exec()). If it is still running after \a timeoutMs it is
 * killed with a result (ErrCancelled) and a warning saying so is printed, so the test
 * fails on the error it checks instead of hanging.
 */
void runToResult(Qvfs::Job *job, int timeoutMs = JobTimeoutMs);

/*! Runs \a job to its result (runToResult()) and hands it over; it is not auto-deleted. */
template<typename J>
std::unique_ptr<J> run(J *job, int timeoutMs = JobTimeoutMs)
{
    job->setAutoDelete(false);
    runToResult(job, timeoutMs);
    return std::unique_ptr<J>(job);
}

/*! What a listing delivered. */
struct Listing
{
    int error = 0;
    QString errorString;
    QStringList errorArgs;
    /*! The entries by name (relative path in a recursive listing). */
    QMap<QByteArray, Qvfs::Entry> entries;
    /*! How many entries came (a name listed twice counts twice). */
    int count = 0;
};

/*! Runs the listing \a job to its result and deletes it. */
Listing collect(Qvfs::ListJob *job, int timeoutMs = JobTimeoutMs);

} // namespace QvfsTest

#endif
