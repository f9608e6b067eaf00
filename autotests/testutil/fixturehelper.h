// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FIXTUREHELPER_H
#define QVFS_TESTUTIL_FIXTUREHELPER_H

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>

namespace QvfsTest
{

/*!
 * A server fixture run by a helper program outside this process's children
 * (qvfs-test-sshd, qvfs-test-httpd, qvfs-test-smbd): tests that check after every row
 * that no child process is left can still use a real server. The helper forks, reports
 * one line "ok FIELD..." or "error WHY" on its standard output and keeps the server until
 * its standard input closes; then it stops the server and closes its output.
 */
class FixtureHelper
{
public:
    FixtureHelper() = default;
    ~FixtureHelper() { stop(); }
    FixtureHelper(const FixtureHelper &) = delete;
    FixtureHelper &operator=(const FixtureHelper &) = delete;

    /*!
     * Starts \a program (a file name beside the test's own binary) with \a args and waits
     * up to a minute for its line. On "ok" with \a fields words after it, returns them;
     * otherwise returns an empty list with \a why set (the helper's reason, or that
     * \a what did not start).
     */
    QList<QByteArray> start(
        const QByteArray &program, const QList<QByteArray> &args, int fields, const char *what, QByteArray *why);
    /*! Closes the helper's input and waits (up to 15 s) until it has stopped the server. */
    void stop();

private:
    int m_toHelper = -1;
    int m_fromHelper = -1;
};

/*!
 * The helper program's side of FixtureHelper, its whole main(). Forks at once and the
 * first process returns 0 (the test reaps it); the second, reparented and in a session of
 * its own (no signal to the test's process group reaches the server), makes a
 * QCoreApplication from \a argc and \a argv and calls \a start. It writes one line to
 * standard output: "ok" and the words \a start returned, or "error" and the reason
 * \a start put in its argument when it returned none (then it calls \a stop and returns
 * 1). Otherwise it waits until standard input ends (the test closed it, or went away) or
 * SIGTERM, SIGINT or SIGHUP comes, calls \a stop and returns 0; the process's exit then
 * closes standard output. \a stop must stop the server and remove every file it made.
 */
int runFixtureHelper(int argc, char **argv, const std::function<QList<QByteArray>(QString *why)> &start,
    const std::function<void()> &stop);

} // namespace QvfsTest

#endif
