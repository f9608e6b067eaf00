// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_UNPRIVILEGEDWORKERS_H
#define QVFS_TESTUTIL_UNPRIVILEGEDWORKERS_H

#include "workerenv.h"

namespace QvfsTest
{

/*!
 * Workers started while this lives run as nobody when the tests run as root, through
 * QVFS_WORKER_PREFIX="setpriv --reuid=65534 --regid=65534 --clear-groups ..."; otherwise
 * they run as the test does, which is unprivileged already. As nobody they run from a
 * private root-owned 0755 copy of the build tree's programs and Qvfs's libraries (made
 * once per test process, removed at its exit), so the tests hold from a checkout that
 * nobody may enter, such as one in root's 0700 home. Permission tests close fixtures to
 * that user: as root with modes such as 0700/0600 (the fixture is root's), otherwise with
 * 0000/0555 (the fixture is the test's own). Make the fixtures in a FixtureDir, which such
 * a worker can reach.
 */
class UnprivilegedWorkers : public WorkerEnv
{
public:
    UnprivilegedWorkers();

    /*! The uid and gid the workers run as when the test runs as root. */
    static constexpr int NobodyId = 65534;
    /*! Whether privileges are dropped at all (the test runs as root). */
    static bool dropsPrivileges();
    /*! The spawn prefix that drops them and starts the private copy of the worker. */
    static QByteArray prefix();
    /*! Its first words: the setpriv call alone. */
    static QByteArray dropPrefix();
    /*! Whether every child process of the test runs with the real uid NobodyId. */
    static bool allWorkersUnprivileged();
};

} // namespace QvfsTest

#endif
