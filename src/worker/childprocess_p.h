// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CHILDPROCESS_P_H
#define QVFS_CHILDPROCESS_P_H

#include "qvfsworker_export.h"

#include <QByteArray>
#include <QList>

#include <sys/types.h>

namespace Qvfs
{

/*!
 * A child process of a worker with non-blocking pipes to its stdin, stdout and stderr:
 * the sftp worker's ssh, the smb worker's change notifiers. Internal to the workers (not
 * installed). Linux: posix_spawn, nothing of the worker's inherited but the three pipes.
 */
class QVFSWORKER_EXPORT ChildProcess
{
public:
    ChildProcess() = default;
    ~ChildProcess();
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    /*!
     * Starts \a argv[0] (searched in PATH when it has no '/') with \a argv, in a new
     * session (no controlling terminal: ssh can only prompt through askpass, and a signal
     * to the worker's process group does not reach it), with default signal handling, the
     * current environment plus \a environment ("NAME=value", replacing variables of the
     * same name). Returns false with errno's text in \a error.
     */
    bool start(const QList<QByteArray> &argv, const QList<QByteArray> &environment, QByteArray *error);
    bool running() const { return m_pid > 0; }
    pid_t pid() const { return m_pid; }
    int stdinFd() const { return m_in; }
    int stdoutFd() const { return m_out; }
    int stderrFd() const { return m_err; }
    void closeStdin();
    void closeStdout();
    void closeStderr();
    /*! Reaps the process if it has ended (non-blocking); true if it is gone. */
    bool reap();
    /*! The wait status once reaped. */
    int exitStatus() const { return m_status; }
    /*!
     * Ends the process: waits up to \a graceMs for it to exit by itself (after stdin was
     * closed), then SIGTERM and up to 200 ms more, then SIGKILL; always reaps it.
     */
    void stop(int graceMs);

private:
    pid_t m_pid = -1;
    int m_in = -1;
    int m_out = -1;
    int m_err = -1;
    int m_status = 0;
};

} // namespace Qvfs

#endif
