// SPDX-License-Identifier: LGPL-2.1-or-later
// Extended attributes and POSIX ACLs of raw paths, for the tests of what a copy keeps
// besides the data (filemetadatatest, fileopstest).
#ifndef QVFS_TESTUTIL_XATTRS_H
#define QVFS_TESTUTIL_XATTRS_H

#include <QByteArray>

#include <array>
#include <initializer_list>

namespace QvfsTest
{

/*! The value of the extended attribute \a name of \a path (not following a link); "<none>" without. */
QByteArray xattrOf(const QByteArray &path, const char *name);
/*! Sets the extended attribute \a name of \a path (not following a link) to \a value. */
bool setXattr(const QByteArray &path, const char *name, const QByteArray &value);

/*! The id of an ACL entry that names no user or group (ACL_UNDEFINED_ID). */
constexpr quint32 NoAclId = 0xffffffff;
/*!
 * A POSIX ACL as the system.posix_acl_* attributes hold it: version 2, then \a entries of
 * (tag, permissions, id).
 */
QByteArray aclValue(std::initializer_list<std::array<quint32, 3>> entries);
/*! `chmod 640 f; setfacl -m u:1000:rw f`: the mode shows the mask as group bits (0660). */
QByteArray userRwAcl();
/*! `setfacl -m u:1000:rwx,g::rx,o::-` on a 0750 folder (also as its default ACL, with -d). */
QByteArray defaultAcl();

} // namespace QvfsTest

#endif
