// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_CLIRUN_H
#define QVFS_TESTUTIL_CLIRUN_H

// Running the `qvfs` command-line client (or any program) as a user does, for the tests
// that drive it from outside: clitest, sftpclitest, httpclitest.

#include <QByteArray>
#include <QProcessEnvironment>
#include <QStringList>

#include <functional>

namespace CliRun
{

/*! What a program did: its exit code (-1: crashed, did not start or timed out), outputs. */
struct Result
{
    int code = -1;
    QByteArray out;
    QByteArray err;
};

/*! The built `qvfs` (QVFS_CLI_TEST_BIN_DIR/qvfs). */
QString qvfsBinary();

/*!
 * This process's environment for a predictable client: C locale (LC_ALL, LANG), UTC, no
 * LANGUAGE, LC_MESSAGES, LC_TIME, progress delay or COLUMNS from the caller's shell,
 * SHELL=/bin/sh.
 */
QProcessEnvironment environment();

/*!
 * Runs \a program with \a args in \a cwd and \a env, writes \a input to its standard
 * input and closes it, and waits up to two minutes (then kills it). \a inChild, when
 * given, runs in the child between fork and exec (QProcess::setChildProcessModifier():
 * async-signal-safe calls only).
 */
Result run(const QString &program, const QStringList &args, const QString &cwd, const QByteArray &input = {},
    const QProcessEnvironment &env = environment(), const std::function<void()> &inChild = {});

} // namespace CliRun

#endif
