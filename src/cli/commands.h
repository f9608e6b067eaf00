// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CLI_COMMANDS_H
#define QVFS_CLI_COMMANDS_H

#include "cli.h"

#include <Qvfs/TransferJob>

#include <QByteArray>
#include <QList>
#include <QString>

namespace Cli
{

/*! Each command takes the arguments after its name and returns the exit status. */
int cmdLs(const QList<QByteArray> &args);
int cmdStat(const QList<QByteArray> &args);
int cmdCp(const QList<QByteArray> &args);
int cmdMv(const QList<QByteArray> &args);
int cmdRm(const QList<QByteArray> &args);
int cmdMkdir(const QList<QByteArray> &args);
int cmdCat(const QList<QByteArray> &args);
int cmdPut(const QList<QByteArray> &args);
int cmdDu(const QList<QByteArray> &args);
int cmdDf(const QList<QByteArray> &args);
int cmdWatch(const QList<QByteArray> &args);
int cmdTrash(const QList<QByteArray> &args);
int cmdMount(const QList<QByteArray> &args);
int cmdUmount(const QList<QByteArray> &args);
/*! Moves the local entries named by \a operands to the trash (`trash URL...`, `rm --trash`). */
int trashUrls(const QList<QByteArray> &operands);

class ProgressBar;

/*!
 * Writes what can be read from \a fd to \a url (a put job; the file appears only when
 * complete), reading only as fast as the worker takes it. \a source names \a fd in an
 * error (already shown for standard error; unused for standard input). Reports an error
 * and returns false on failure.
 */
bool putFromDescriptor(int fd, const QString &source, const QUrl &url, Qvfs::PutFlags flags, ProgressBar *bar);

/*! The help of \a command (nullptr: the tool's), translated. Empty for an unknown command. */
QString helpText(const char *command);

/*!
 * Parses \a args for \a command. Returns false when the command should end now with
 * *status (a usage error, or --help was printed).
 */
bool prepare(
    const char *command, const QList<QByteArray> &args, const QList<OptionSpec> &specs, Parsed *parsed, int *status);

} // namespace Cli

#endif
