/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef QVFS_CLI_LAUNCHARGS_H
#define QVFS_CLI_LAUNCHARGS_H

/*
 * Which worker `qvfs` starts before anything else. Plain C: the launcher (launcher.c),
 * which must not load Qt, and the client (main.cpp) read the command line the same way.
 */

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The first operand of the command in \a argv (the URL whose worker is started ahead of
 * the job), or NULL when the command line runs no job: a global option other than --yes
 * and --no (--help, --version, a wrong one), no command, help, watch (its folders go to a
 * watcher process) or a command's --help. ls, du and df work on "." without an operand.
 * Options of the command are skipped, with the values of mkdir's -m/--mode and cat's
 * --offset/--length; "--" ends them. (A value in a cluster, "mkdir -pm 755 URL", is taken
 * for the operand: that only starts a file worker nobody may use.) The commands are those
 * of main.cpp's table that take URLs, less watch and mount (whose workers are the
 * mount process's): a command added there belongs here too.
 */
static inline const char *qvfs_prestart_operand(int argc, char *const argv[])
{
    static const char *const commands[]
        = { "ls", "stat", "cp", "mv", "rm", "mkdir", "cat", "put", "du", "df", "trash" };
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        if (strcmp(argv[i], "--yes") != 0 && strcmp(argv[i], "--no") != 0)
            return NULL;
    }
    if (i >= argc)
        return NULL;
    const char *command = argv[i];
    int known = 0;
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c)
        known = known || strcmp(command, commands[c]) == 0;
    if (!known)
        return NULL;
    const int isMkdir = strcmp(command, "mkdir") == 0;
    const int isCat = strcmp(command, "cat") == 0;
    int optionsEnded = 0;
    for (++i; i < argc; ++i) {
        const char *a = argv[i];
        if (!optionsEnded && strcmp(a, "--") == 0) {
            optionsEnded = 1;
            continue;
        }
        if (!optionsEnded && a[0] == '-' && a[1] != '\0') {
            if (strcmp(a, "--help") == 0)
                return NULL;
            if ((isMkdir && (strcmp(a, "-m") == 0 || strcmp(a, "--mode") == 0))
                || (isCat && (strcmp(a, "--offset") == 0 || strcmp(a, "--length") == 0)))
                ++i; /* its value */
            continue;
        }
        return a;
    }
    return (strcmp(command, "ls") == 0 || strcmp(command, "du") == 0 || strcmp(command, "df") == 0) ? "." : NULL;
}

#ifdef __cplusplus
}
#endif

#endif
