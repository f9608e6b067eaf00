// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FIXTUREHELPER_H
#define QVFS_TESTUTIL_FIXTUREHELPER_H

#include <QByteArray>
#include <QList>

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

} // namespace QvfsTest

#endif
