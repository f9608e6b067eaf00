// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_WORKERENV_H
#define QVFS_TESTUTIL_WORKERENV_H

#include <QByteArray>

#include <initializer_list>

namespace QvfsTest
{

/*!
 * Sets an environment variable the worker pool reads when it starts a worker
 * (QVFS_WORKER_PREFIX, QVFS_WORKER_TIMEOUT_MS ...), for as long as it lives: idle workers
 * are ended before and after, so fresh ones start with it and without it. An empty
 * \a value leaves the variable unset.
 */
class WorkerEnv
{
public:
    WorkerEnv(const char *name, const QByteArray &value);
    ~WorkerEnv();
    WorkerEnv(const WorkerEnv &) = delete;
    WorkerEnv &operator=(const WorkerEnv &) = delete;

private:
    const char *m_name;
};

/*!
 * Ends the idle workers and waits until this process has no child process left (a killed
 * request may take a moment to be acknowledged). False after \a timeoutMs.
 */
bool settleWorkers(int timeoutMs = 4000);

/*!
 * The same where servers run as this process's children too: waits until no child runs
 * one of \a executables (path suffixes, "/qvfs-worker-sftp"). False after \a timeoutMs.
 */
bool settleWorkers(std::initializer_list<const char *> executables, int timeoutMs = 5000);

} // namespace QvfsTest

#endif
