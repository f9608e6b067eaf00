/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * qvfs: the launcher of the command-line client.
 *
 * A one-shot `qvfs stat FILE` spends most of its time loading Qt, and it did so twice in
 * a row: in the client, then in the worker the client started. This program is linked to
 * the C library only. When the job's first operand is a local file it starts the file
 * worker at once, then executes the client (qvfs-client, a private program) in this same
 * process, so that both load Qt at the same time. The client adopts that worker as the
 * first it needs (takePrespawnedWorker(), src/core/workerspawn_unix.cpp), or ends it.
 * Everything else is the client's: the pid, arguments, environment (plus the handover
 * variable, which the client removes) and exit status.
 *
 * No worker is started ahead when QVFS_WORKER_PATH or QVFS_WORKER_PREFIX is set (the
 * client may then choose, or start, its worker differently) or when a handover variable
 * is set already.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv, strncasecmp, readlink with -std=c11 */
#endif

#include "launchargs.h"
#include "urlsyntax_p.h"
#include "workerlaunch_p.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern char **environ;

/* The client's and the workers' folder relative to this program's, when installed;
 * "" in a build tree, where everything is in one folder. Both with a trailing slash. */
#ifndef QVFS_LAUNCHER_TO_PRIVATE
#define QVFS_LAUNCHER_TO_PRIVATE ""
#endif
/* The same folder where the configured prefix puts it: used when this program cannot
 * find itself (no /proc, as in some chroots). */
#ifndef QVFS_LAUNCHER_PRIVATE_DIR
#define QVFS_LAUNCHER_PRIVATE_DIR ""
#endif

/*
 * Sets \a out to the first of SELF + QVFS_LAUNCHER_TO_PRIVATE + NAME and SELF + NAME that
 * is executable, where SELF is this program's folder (with a slash), or to
 * QVFS_LAUNCHER_PRIVATE_DIR + NAME when \a self is NULL. Returns 0, or an errno value.
 */
static int findProgram(char *out, size_t size, const char *self, const char *name)
{
    const char *const places[] = { QVFS_LAUNCHER_TO_PRIVATE, "" };
    const size_t count = self ? 2 : 1;
    if (!self && QVFS_LAUNCHER_PRIVATE_DIR[0] != '/') {
        snprintf(out, size, "%s", name); /* never a name relative to the working folder */
        return ENOENT;
    }
    int err = ENOENT;
    for (size_t i = 0; i < count; ++i) {
        const int n = self ? snprintf(out, size, "%s%s%s", self, places[i], name)
                           : snprintf(out, size, "%s%s", QVFS_LAUNCHER_PRIVATE_DIR, name);
        if (n <= 0 || (size_t)n >= size) {
            err = ENAMETOOLONG;
            continue;
        }
        if (access(out, X_OK) == 0)
            return 0;
        if (i == 0 || errno != ENOENT)
            err = errno;
    }
    /* Name the place an installation would have it. */
    if (self)
        snprintf(out, size, "%s%s%s", self, QVFS_LAUNCHER_TO_PRIVATE, name);
    return err;
}

/* Starts the worker for the first operand when it is a local file, and hands it to the
 * client through QVFS_PRESPAWNED_ENV. Returns its pid, or 0. */
static pid_t prespawn(int argc, char **argv, const char *self)
{
    if (getenv("QVFS_WORKER_PATH") || getenv("QVFS_WORKER_PREFIX") || getenv(QVFS_PRESPAWNED_ENV))
        return 0;
    const char *operand = qvfs_prestart_operand(argc, argv);
    if (!operand || *operand == '\0')
        return 0;
    if (qvfs_looks_like_url(operand, strlen(operand)) && strncasecmp(operand, "file:", 5) != 0)
        return 0;
    char worker[PATH_MAX];
    if (findProgram(worker, sizeof worker, self, "qvfs-worker-file") != 0)
        return 0;
    int fds[2];
    if (qvfs_worker_socketpair(fds) != 0)
        return 0;
    char fdArg[16];
    snprintf(fdArg, sizeof fdArg, "%d", fds[1]);
    char *workerArgv[] = { worker, (char *)"--fd", fdArg, NULL };
    pid_t pid = 0;
    const int rc = qvfs_spawn_worker(workerArgv, environ, fds[1], &pid);
    close(fds[1]);
    char value[PATH_MAX + 64];
    const int n = snprintf(value, sizeof value, "%d:%d:%s", fds[0], (int)pid, worker);
    /* Our end survives the exec of the client (which makes it close-on-exec again). */
    if (rc != 0 || n <= 0 || (size_t)n >= sizeof value || fcntl(fds[0], F_SETFD, 0) != 0
        || setenv(QVFS_PRESPAWNED_ENV, value, 1) != 0) {
        close(fds[0]);
        if (rc == 0)
            qvfs_kill_worker(pid);
        return 0;
    }
    return pid;
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    char client[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self);
    char *slash = n > 0 && (size_t)n < sizeof self ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash)
        slash[1] = '\0';
    const char *dir = slash ? self : NULL;
    const int err = findProgram(client, sizeof client, dir, "qvfs-client");
    if (err != 0) {
        /* A broken installation. The system's words only: nothing of ours to translate. */
        setlocale(LC_ALL, "");
        fprintf(stderr, "qvfs: %s: %s\n", client, strerror(err));
        return 1;
    }
    const pid_t worker = prespawn(argc, argv, dir);
    execv(client, argv);
    const int execErr = errno;
    if (worker > 0)
        qvfs_kill_worker(worker);
    setlocale(LC_ALL, "");
    fprintf(stderr, "qvfs: %s: %s\n", client, strerror(execErr));
    return 1;
}
