// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xattrs.h"

#include <QtEndian>

#include <sys/xattr.h>

namespace QvfsTest
{

QByteArray xattrOf(const QByteArray &path, const char *name)
{
    QByteArray value(65536, Qt::Uninitialized);
    const ssize_t n = ::lgetxattr(path.constData(), name, value.data(), size_t(value.size()));
    return n < 0 ? QByteArrayLiteral("<none>") : value.left(n);
}

bool setXattr(const QByteArray &path, const char *name, const QByteArray &value)
{
    return ::lsetxattr(path.constData(), name, value.constData(), size_t(value.size()), 0) == 0;
}

QByteArray aclValue(std::initializer_list<std::array<quint32, 3>> entries)
{
    QByteArray v(4 + 8 * int(entries.size()), Qt::Uninitialized);
    uchar *p = reinterpret_cast<uchar *>(v.data());
    qToLittleEndian<quint32>(2, p);
    p += 4;
    for (const std::array<quint32, 3> &e : entries) {
        qToLittleEndian<quint16>(quint16(e[0]), p);
        qToLittleEndian<quint16>(quint16(e[1]), p + 2);
        qToLittleEndian<quint32>(e[2], p + 4);
        p += 8;
    }
    return v;
}

QByteArray userRwAcl()
{
    return aclValue(
        { { 0x01, 6, NoAclId }, { 0x02, 6, 1000 }, { 0x04, 4, NoAclId }, { 0x10, 6, NoAclId }, { 0x20, 0, NoAclId } });
}

QByteArray defaultAcl()
{
    return aclValue(
        { { 0x01, 7, NoAclId }, { 0x02, 7, 1000 }, { 0x04, 5, NoAclId }, { 0x10, 7, NoAclId }, { 0x20, 0, NoAclId } });
}

} // namespace QvfsTest
