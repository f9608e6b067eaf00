// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_TMPFSMOUNT_H
#define QVFS_TESTUTIL_TMPFSMOUNT_H

#include <QByteArray>

namespace QvfsTest
{

/*!
 * A tmpfs mounted on a folder (made if missing) for the lifetime of the object, a second
 * filesystem or a small one that fills up. Needs root; check mounted(). Unmounted with
 * MNT_DETACH (like `umount -l`), so a worker still inside cannot keep it.
 */
class TmpfsMount
{
public:
    /*!
     * Mounts with the mount(2) \a options ("size=64m,mode=0755") and \a flags (MS_NOSUID ...);
     * \a type "ramfs" gives a filesystem without extended attributes or ACLs.
     */
    TmpfsMount(const QByteArray &path, const char *options, unsigned long flags = 0, const char *type = "tmpfs");
    ~TmpfsMount();
    TmpfsMount(const TmpfsMount &) = delete;
    TmpfsMount &operator=(const TmpfsMount &) = delete;

    bool mounted() const { return m_mounted; }
    /*! Why it could not be mounted. */
    QByteArray errorString() const { return m_error; }
    QByteArray path() const { return m_path; }

private:
    QByteArray m_path;
    QByteArray m_error;
    bool m_mounted = false;
};

} // namespace QvfsTest

#endif
