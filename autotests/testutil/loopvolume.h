// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_LOOPVOLUME_H
#define QVFS_TESTUTIL_LOOPVOLUME_H

#include <QByteArray>

namespace QvfsTest
{

/*!
 * A real second volume: an ext4 image made by truncate and mkfs.ext4 and loop-mounted on
 * a folder (made if missing) for the lifetime of the object, as a USB disk would be;
 * tmpfs does not do where a desktop's rules tell volumes apart (GIO refuses to trash on
 * it). Needs root and mkfs.ext4; check mounted(). Call enterPrivateMountNamespace() once
 * first, so that no other process of the machine sees the mount. Unmounted (lazily) and
 * the image deleted when destroyed.
 */
class LoopVolume
{
public:
    LoopVolume(const QByteArray &mountPoint, const QByteArray &image, int sizeMiB = 32);
    ~LoopVolume();
    LoopVolume(const LoopVolume &) = delete;
    LoopVolume &operator=(const LoopVolume &) = delete;

    bool mounted() const { return m_mounted; }
    QByteArray errorString() const { return m_error; }
    QByteArray path() const { return m_path; }

    /*!
     * Moves this process into a mount namespace of its own whose mounts do not propagate
     * back (unshare -m, then / made private), before any worker starts: the workers are
     * its children and share it. False (with the reason in \a error) when that fails.
     */
    static bool enterPrivateMountNamespace(QByteArray *error);

private:
    QByteArray m_path;
    QByteArray m_image;
    QByteArray m_error;
    bool m_mounted = false;
};

} // namespace QvfsTest

#endif
