// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_JOBFIXTURE_H
#define QVFS_TESTUTIL_JOBFIXTURE_H

#include "fixturedir.h"
#include "tmpfsmount.h"

#include <QUrl>

#include <memory>

namespace QvfsTest
{

/*!
 * The per-test-function fixture of the job tests: a fresh FixtureDir for every row, made in
 * init() and checked in cleanup(): after every row no worker process may be left running
 * (idle ones are ended) and no temporary file of the library may remain in the fixture.
 * Call init() and cleanup() from the test class's slots of those names.
 */
class JobFixture
{
public:
    JobFixture();
    ~JobFixture();

    /*! Makes the fixture folder (QVERIFY inside). */
    void init();
    /*! Checks and removes everything the row made (QVERIFY inside). */
    void cleanup();

    /*! The fixture folder (0755), raw path. */
    QByteArray root() const { return m_dir ? m_dir->path() : QByteArray(); }
    /*! \a rel below the fixture folder. */
    QByteArray path(QByteArrayView rel) const;
    /*! The file:// URL of path(\a rel). */
    QUrl url(QByteArrayView rel) const;
    /*! Whether workers run unprivileged can reach the fixture folder (see FixtureDir). */
    bool isReachableByOthers() const { return m_dir && m_dir->isReachableByOthers(); }
    /*! Why they cannot. */
    QByteArray errorString() const { return m_dir ? m_dir->errorString() : QByteArray("no fixture folder"); }
    /*! Whether the tests run as root (mounts, other owners, dropped privileges). */
    bool isRoot() const { return m_isRoot; }

    /*! A second fixture folder on /dev/shm (another filesystem, in memory); empty on failure. */
    QByteArray makeShm();
    /*! Mounts a 64 MiB tmpfs on \a where (made here) until cleanup(); needs root. */
    bool mountTmpfs(const QByteArray &where);

private:
    std::unique_ptr<FixtureDir> m_dir;
    std::unique_ptr<FixtureDir> m_shm;
    std::unique_ptr<TmpfsMount> m_mount;
    bool m_isRoot = false;
};

} // namespace QvfsTest

#endif
