// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h: what a copy or a replaced file keeps besides the
// data — extended attributes, POSIX ACLs, the replaced file's owner — and how to tell a
// file whose size the kernel does not know.
#ifndef QVFS_FILEOPS_METADATA_P_H
#define QVFS_FILEOPS_METADATA_P_H

#include "qvfsworker_export.h"

#include <QByteArray>
#include <QByteArrayView>

#include <sys/stat.h>
#include <sys/types.h>

namespace Qvfs::FileOps
{

// One file whose extended attributes are read or written: an open fd (regular files,
// folders), or, for entries that cannot be opened harmlessly (symlinks, fifos, devices),
// a name in a folder fd, never followed.
class QVFSWORKER_EXPORT XattrFile
{
public:
    static XattrFile ofFd(int fd) { return XattrFile(fd, -1, nullptr); }
    static XattrFile inFolder(int dirFd, const char *name) { return XattrFile(-1, dirFd, name); }

    // The names of its attributes, NUL-separated (one flistxattr call); empty when it has
    // none or the filesystem has no attributes.
    QByteArray names() const;
    // The value of \a name; false when it has none.
    bool get(const char *name, QByteArray *value) const;
    bool set(const char *name, QByteArrayView value) const;
    // Sets its permission bits (never through a symlink).
    void chmod(mode_t mode) const;

private:
    XattrFile(int fd, int dirFd, const char *name);

    int m_fd;
    int m_dirFd;
    const char *m_name;
    QByteArray m_path; // "/proc/self/fd/N/name" for inFolder(): the l*xattr calls take paths
};

// Whether the NUL-separated attribute list \a names holds the POSIX access ACL.
QVFSWORKER_EXPORT bool hasAccessAcl(QByteArrayView names);

// \a mode with group bits that never give more than the owning group has: with an
// extended access ACL (\a names holds one) the group bits of st_mode are the ACL's mask,
// which also covers named users and groups; without the ACL they would hand its rights
// to the owning group. Then the group bits become the owning group's own rights (its
// ACL entry, limited by the mask). Unchanged without an ACL.
QVFSWORKER_EXPORT mode_t modeWithoutAcl(const XattrFile &file, QByteArrayView names, mode_t mode);

// Copies the extended attributes \a names of \a in to \a out, best effort: user.* always;
// trusted.* and security.* where the process may (root), but never security.selinux
// (the destination's policy labels it) nor security.evm (made by the kernel), and
// security.capability only when \a sameOwner (as setuid: no privilege under another
// owner); system.posix_acl_access and system.posix_acl_default with \a acls. Call it after
// the final chmod and chown (both clear security.capability). When the access ACL
// cannot be set (a filesystem without ACLs), \a out gets \a mode with the group bits of
// modeWithoutAcl().
QVFSWORKER_EXPORT void copyAttributes(
    const XattrFile &in, const XattrFile &out, QByteArrayView names, bool acls, bool sameOwner, mode_t mode);

// The POSIX access ACL of \a file (its system.posix_acl_access value); empty without one.
QVFSWORKER_EXPORT QByteArray accessAcl(const XattrFile &file);
// Sets the access ACL \a value on \a out or, where the filesystem has no ACLs, \a mode
// with the group bits of modeWithoutAcl(): never the mask without the ACL it limits.
QVFSWORKER_EXPORT void setAccessAcl(const XattrFile &out, const QByteArray &value, mode_t mode);

// Gives \a fd, a new file about to replace \a replaced in the folder \a dirFd, the owner
// and group of the replaced file, best effort (as another user only a group it belongs
// to). Not when the folder is sticky and writable by others and the replaced file belongs
// neither to this user nor to the folder's owner (the kernel's protected_regular rule): a
// file planted there must not get a copy of what replaces it. \a st is \a fd's stat; it
// receives the owner and group \a fd has afterwards.
QVFSWORKER_EXPORT void keepOwner(int fd, int dirFd, const struct stat &replaced, struct stat *st);

// Whether the regular file \a fd (stat \a st) is a pseudo file whose size the kernel
// does not know (/proc, /sys, debugfs...: st_size 0 or 4096, no blocks), to be read
// until its end whatever st_size says. Costs an fstatfs only for files without blocks.
QVFSWORKER_EXPORT bool sizeUnknown(int fd, const struct stat &st);

} // namespace Qvfs::FileOps

#endif
