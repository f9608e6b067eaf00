// SPDX-License-Identifier: LGPL-2.1-or-later
// Extended attributes, POSIX ACLs, owners of replaced files and pseudo files
// (fileops_metadata_p.h).
//
// ACLs are copied as the system.posix_acl_access / system.posix_acl_default attributes
// the kernel offers, not through libacl: a copy moves them as opaque values (the kernel
// checks them and maps ids through user namespaces), one code path covers every
// attribute, and the only parsing needed — the owning group's entry, when a filesystem
// refuses the ACL — is the kernel's stable little-endian format (version 2, then 8-byte
// entries). No extra library for the worker, and nothing that could differ from what the
// kernel enforces.
#include "fileops_metadata_p.h"
#include "fileops_util_p.h"

#include <QtEndian>

#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace Qvfs::FileOps
{

namespace
{

const char AccessAcl[] = "system.posix_acl_access";
const char DefaultAcl[] = "system.posix_acl_default";

// linux/posix_acl.h and linux/posix_acl_xattr.h (not in every distribution's headers)
constexpr quint32 AclVersion = 2;
constexpr quint16 AclGroupObj = 0x04;
constexpr quint16 AclMask = 0x10;

// The owning group's rights (rwx) in the ACL attribute \a value: its entry limited by
// the mask. -1 when \a value is not an ACL.
int owningGroupRights(QByteArrayView value)
{
    if (value.size() < 4 || (value.size() - 4) % 8 != 0)
        return -1;
    const uchar *p = reinterpret_cast<const uchar *>(value.data());
    if (qFromLittleEndian<quint32>(p) != AclVersion)
        return -1;
    int group = -1;
    int mask = 7;
    for (qsizetype at = 4; at < value.size(); at += 8) {
        const quint16 tag = qFromLittleEndian<quint16>(p + at);
        const int perm = qFromLittleEndian<quint16>(p + at + 2) & 7;
        if (tag == AclGroupObj)
            group = perm;
        else if (tag == AclMask)
            mask = perm;
    }
    return group < 0 ? -1 : (group & mask);
}

bool startsWith(const char *s, const char *prefix)
{
    return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool wanted(const char *name, bool acls, bool sameOwner)
{
    if (startsWith(name, "user.") || startsWith(name, "trusted."))
        return true;
    if (std::strcmp(name, AccessAcl) == 0 || std::strcmp(name, DefaultAcl) == 0)
        return acls;
    if (startsWith(name, "security.")) {
        if (std::strcmp(name, "security.selinux") == 0 || std::strcmp(name, "security.evm") == 0)
            return false;
        if (std::strcmp(name, "security.capability") == 0)
            return sameOwner;
        return true;
    }
    return false; // other system.* attributes belong to their filesystem
}

} // namespace

XattrFile::XattrFile(int fd, int dirFd, const char *name)
    : m_fd(fd)
    , m_dirFd(dirFd)
    , m_name(name)
{
    if (name)
        m_path = fdPath(dirFd, name);
}

QByteArray XattrFile::names() const
{
    QByteArray list(256, Qt::Uninitialized);
    for (int attempt = 0; attempt < 4; ++attempt) {
        const ssize_t n = m_fd >= 0 ? ::flistxattr(m_fd, list.data(), size_t(list.size()))
                                    : ::llistxattr(m_path.constData(), list.data(), size_t(list.size()));
        if (n >= 0) {
            list.truncate(n);
            return list;
        }
        if (errno != ERANGE)
            break;
        // grown meanwhile: ask for the size
        const ssize_t size = m_fd >= 0 ? ::flistxattr(m_fd, nullptr, 0) : ::llistxattr(m_path.constData(), nullptr, 0);
        if (size <= 0)
            break;
        list.resize(size);
    }
    return QByteArray();
}

bool XattrFile::get(const char *name, QByteArray *value) const
{
    value->resize(1024);
    for (int attempt = 0; attempt < 4; ++attempt) {
        const ssize_t n = m_fd >= 0 ? ::fgetxattr(m_fd, name, value->data(), size_t(value->size()))
                                    : ::lgetxattr(m_path.constData(), name, value->data(), size_t(value->size()));
        if (n >= 0) {
            value->truncate(n);
            return true;
        }
        if (errno != ERANGE)
            break;
        const ssize_t size
            = m_fd >= 0 ? ::fgetxattr(m_fd, name, nullptr, 0) : ::lgetxattr(m_path.constData(), name, nullptr, 0);
        if (size <= 0)
            break;
        value->resize(size);
    }
    value->clear();
    return false;
}

bool XattrFile::set(const char *name, QByteArrayView value) const
{
    const int r = m_fd >= 0 ? ::fsetxattr(m_fd, name, value.data(), size_t(value.size()), 0)
                            : ::lsetxattr(m_path.constData(), name, value.data(), size_t(value.size()), 0);
    return r == 0;
}

void XattrFile::chmod(mode_t mode) const
{
    if (m_fd >= 0) {
        ::fchmod(m_fd, mode);
        return;
    }
    struct stat st;
    if (::fstatat(m_dirFd, m_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode))
        ::fchmodat(m_dirFd, m_name, mode, 0);
}

bool hasAccessAcl(QByteArrayView names)
{
    for (qsizetype at = 0; at < names.size();) {
        const qsizetype end = names.indexOf('\0', at);
        const QByteArrayView name = names.sliced(at, (end < 0 ? names.size() : end) - at);
        if (name == QByteArrayView(AccessAcl))
            return true;
        if (end < 0)
            break;
        at = end + 1;
    }
    return false;
}

mode_t modeWithoutAcl(const XattrFile &file, QByteArrayView names, mode_t mode)
{
    if (!hasAccessAcl(names))
        return mode;
    QByteArray acl;
    const int rights = file.get(AccessAcl, &acl) ? owningGroupRights(acl) : -1;
    // an unreadable ACL: no group rights rather than the mask's
    return (mode & ~mode_t(S_IRWXG)) | mode_t(rights > 0 ? rights << 3 : 0);
}

QByteArray accessAcl(const XattrFile &file)
{
    QByteArray value;
    file.get(AccessAcl, &value);
    return value;
}

void setAccessAcl(const XattrFile &out, const QByteArray &value, mode_t mode)
{
    if (out.set(AccessAcl, value))
        return;
    const int rights = owningGroupRights(value);
    out.chmod((mode & ~mode_t(S_IRWXG)) | mode_t(rights > 0 ? rights << 3 : 0));
}

void copyAttributes(
    const XattrFile &in, const XattrFile &out, QByteArrayView names, bool acls, bool sameOwner, mode_t mode)
{
    QByteArray value;
    for (qsizetype at = 0; at < names.size();) {
        qsizetype end = names.indexOf('\0', at);
        if (end < 0)
            end = names.size();
        const QByteArray name = names.sliced(at, end - at).toByteArray();
        at = end + 1;
        if (name.isEmpty() || !wanted(name.constData(), acls, sameOwner) || !in.get(name.constData(), &value))
            continue;
        if (name == AccessAcl)
            setAccessAcl(out, value, mode);
        else
            out.set(name.constData(), value); // best effort
    }
}

void keepOwner(int fd, int dirFd, const struct stat &replaced, struct stat *st)
{
    if (replaced.st_uid == st->st_uid && replaced.st_gid == st->st_gid)
        return;
    struct stat dir;
    if (::fstat(dirFd, &dir) != 0)
        return;
    if ((dir.st_mode & S_ISVTX) && (dir.st_mode & (S_IWGRP | S_IWOTH)) && replaced.st_uid != dir.st_uid
        && replaced.st_uid != ::geteuid())
        return;
    if (::fchown(fd, replaced.st_uid, replaced.st_gid) == 0) {
        st->st_uid = replaced.st_uid;
        st->st_gid = replaced.st_gid;
    } else if (replaced.st_gid != st->st_gid && ::fchown(fd, uid_t(-1), replaced.st_gid) == 0) {
        st->st_gid = replaced.st_gid;
    }
}

bool sizeUnknown(int fd, const struct stat &st)
{
    if (st.st_blocks != 0)
        return false;
    struct statfs fs;
    if (::fstatfs(fd, &fs) != 0)
        return false;
    switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x9fa0: // proc
    case 0x62656572: // sysfs
    case 0x64626720: // debugfs
    case 0x74726163: // tracefs
    case 0x73636673: // securityfs
    case 0x62656570: // configfs
    case 0x27e0eb: // cgroup
    case 0x63677270: // cgroup2
        return true;
    default:
        return false;
    }
}

} // namespace Qvfs::FileOps
