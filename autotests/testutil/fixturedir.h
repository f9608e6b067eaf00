// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FIXTUREDIR_H
#define QVFS_TESTUTIL_FIXTUREDIR_H

#include <QByteArray>

namespace QvfsTest
{

/*!
 * A temporary folder for a test's fixtures, removed with raw calls when destroyed (odd
 * names and closed folders included; QTemporaryDir would lose names that are not UTF-8).
 *
 * The folder is mode 0755, unlike QTemporaryDir's 0700, so that a worker run unprivileged
 * (UnprivilegedWorkers) reaches the fixture and fails where the test closed something, not
 * at the fixture's root. isReachableByOthers() checks the folders above it too.
 */
class FixtureDir
{
public:
    /*! Makes the folder in \a base (default: $TMPDIR, else /tmp). See isValid(). */
    explicit FixtureDir(const QByteArray &base = QByteArray());
    ~FixtureDir();
    FixtureDir(const FixtureDir &) = delete;
    FixtureDir &operator=(const FixtureDir &) = delete;

    /*! Whether the folder was made. */
    bool isValid() const { return !m_path.isEmpty(); }
    /*! Why it was not made, or (isReachableByOthers() false) why others cannot reach it. */
    QByteArray errorString() const { return m_error; }
    /*! Whether other users can reach the folder (it and every folder above are searchable). */
    bool isReachableByOthers() const { return isValid() && m_error.isEmpty(); }
    /*! The raw path of the folder. */
    QByteArray path() const { return m_path; }
    /*! Removes the folder and everything in it now. */
    void remove();

private:
    QByteArray m_path;
    QByteArray m_error;
};

} // namespace QvfsTest

#endif
