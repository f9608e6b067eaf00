/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef QVFS_WORKERLAUNCH_P_H
#define QVFS_WORKERLAUNCH_P_H

/*
 * How a worker process is started and, unused, ended: its socket, its spawn, its kill. Plain C on purpose: the
 * library (Qvfs::Core, through spawnWorker() and makeWorkerSocketPair()) and the `qvfs`
 * launcher (src/cli/launcher.c, which must not load Qt) start workers the same way from
 * this one copy. Internal, not installed.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The environment variable through which the launcher hands the worker it started to
 * the client it executes: "FD:PID:EXECUTABLE" (FD: the application's end of the socket,
 * PID: the worker, a child of the client since exec keeps the pid).
 */
#define QVFS_PRESPAWNED_ENV "QVFS_PRESPAWNED_WORKER"

/*
 * Makes a connected AF_UNIX stream socketpair for a worker, both ends close-on-exec and
 * numbered 3 or above: a program started with a closed standard descriptor must never
 * find its worker socket on fd 0, 1 or 2, where ordinary output would become frames.
 * Returns 0, or -1 with errno set.
 */
static inline int qvfs_worker_socketpair(int fds[2])
{
    int raw[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, raw) != 0)
        return -1;
    for (int i = 0; i < 2; ++i) {
        if (raw[i] > 2) {
            fds[i] = raw[i];
            continue;
        }
        fds[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 3);
        const int err = errno;
        close(raw[i]);
        if (fds[i] < 0) {
            if (i == 1)
                close(fds[0]);
            else
                close(raw[1]);
            errno = err;
            return -1;
        }
    }
    return 0;
}

/*
 * Spawns argv[0] (looked up in PATH when it has no slash) with argv and envp: stdin and
 * stdout on /dev/null (a worker logging into an unread pipe would hang), stderr shared
 * (the worker's log goes where the application's goes), \a childFd kept open across exec
 * (a dup2 onto itself clears close-on-exec in the child only, every other descriptor of
 * ours stays behind), in a session of its own (a terminal's Ctrl-C reaches the
 * application, which cleans up). posix_spawn: vfork-fast, where QProcess cost ~10 ms of
 * blocking, as much as a whole one-shot stat may take. Returns 0 with *pid set, or an
 * errno value.
 */
static inline int qvfs_spawn_worker(char *const argv[], char *const envp[], int childFd, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, childFd, childFd);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    const int rc = posix_spawnp(pid, argv[0], &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Ends the worker \a pid (a child of ours) at once with SIGKILL and reaps it. */
static inline void qvfs_kill_worker(pid_t pid)
{
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) { }
}

#ifdef __cplusplus
}
#endif

#endif
