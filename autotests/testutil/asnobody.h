// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_ASNOBODY_H
#define QVFS_TESTUTIL_ASNOBODY_H

namespace QvfsTest
{

/*!
 * Runs this process as nobody (effective uid and gid 65534) until destroyed, when the
 * tests run as root: for code tested in-process, without a worker. seteuid() is
 * reversible because the real and saved ids stay 0. Unprivileged tests are left as they
 * are. Tests of jobs use UnprivilegedWorkers instead (the worker drops, not the test).
 */
class AsNobody
{
public:
    AsNobody();
    ~AsNobody();
    AsNobody(const AsNobody &) = delete;
    AsNobody &operator=(const AsNobody &) = delete;

    /*! Whether the process now runs unprivileged. */
    bool ok() const { return m_ok; }

private:
    bool m_ok = false;
    bool m_changed = false;
};

} // namespace QvfsTest

#endif
