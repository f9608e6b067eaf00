// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SFTPTYPES_H
#define QVFS_SFTPTYPES_H

#include <QByteArray>
#include <QList>
#include <QtGlobal>

#include <utility>

/*!
 * The value types of the SFTP protocol as the engine hands them out: a file's
 * attributes, a file system's statistics and the server's limits. Plain structs, copied
 * freely; strings are the server's raw bytes.
 * \since 0.1
 */
namespace Qvfs::Sftp
{

/*!
 * A file's attributes (ATTRS of draft-ietf-secsh-filexfer-02, section 5).
 *
 * Only the fields whose bit is set in \c flags were sent; the others are 0. Times are
 * whole seconds since the epoch (version 3 has no finer resolution and no 64-bit time).
 * \since 0.1
 */
struct Attributes
{
    enum Flag : quint32 {
        Size = 0x1,
        UidGid = 0x2,
        Permissions = 0x4,
        AccessModTime = 0x8,
        Extended = 0x80000000u,
    };

    quint32 flags = 0;
    quint64 size = 0;
    quint32 uid = 0;
    quint32 gid = 0;
    quint32 permissions = 0; //!< st_mode: file type bits and permission bits
    quint32 atime = 0;
    quint32 mtime = 0;
    QList<std::pair<QByteArray, QByteArray>> extended; //!< (type, data) pairs, raw bytes

    bool has(Flag f) const { return (flags & f) != 0; }
    /*! The S_IFMT bits of permissions, or 0 when permissions were not sent. */
    quint32 fileType() const { return has(Permissions) ? (permissions & 0170000u) : 0; }
    bool isDir() const { return fileType() == 0040000u; }
    bool isSymLink() const { return fileType() == 0120000u; }
    bool isRegular() const { return fileType() == 0100000u; }
    /*!
     * The size as a signed figure: a claim past INT64_MAX (2^64 - 1 from a broken or
     * hostile server) is clamped to it; -1 when the size was not sent.
     */
    qint64 signedSize() const { return has(Size) ? qint64(qMin<quint64>(size, quint64(INT64_MAX))) : -1; }
    /*! What the entry adds to a byte total: signedSize() for a regular file, else 0. */
    qint64 bytesForTotals() const { return isRegular() ? qMax<qint64>(signedSize(), 0) : 0; }

    /*! Sets the permission bits (and the flag), for setstat and open. */
    void setPermissions(quint32 mode)
    {
        permissions = mode;
        flags |= Permissions;
    }
    /*! Sets both times (version 3 always sends them together). */
    void setTimes(quint32 accessTime, quint32 modificationTime)
    {
        atime = accessTime;
        mtime = modificationTime;
        flags |= AccessModTime;
    }
};

/*! \a total + \a more for byte totals (both >= 0), held at INT64_MAX instead of wrapping. */
inline qint64 addBytes(qint64 total, qint64 more)
{
    return more > INT64_MAX - total ? INT64_MAX : total + more;
}

/*!
 * A file system's statistics (statvfs@openssh.com, OpenSSH's PROTOCOL 4.4).
 * \since 0.1
 */
struct StatVfs
{
    enum Flag : quint64 {
        ReadOnly = 0x1,
        NoSuid = 0x2,
    };
    quint64 blockSize = 0; //!< f_bsize
    quint64 fragmentSize = 0; //!< f_frsize: the unit of the block counts
    quint64 blocks = 0;
    quint64 blocksFree = 0;
    quint64 blocksAvailable = 0; //!< free blocks for unprivileged users
    quint64 files = 0;
    quint64 filesFree = 0;
    quint64 filesAvailable = 0;
    quint64 fsid = 0;
    quint64 flag = 0;
    quint64 nameMax = 0;

    quint64 totalBytes() const { return blocks * fragmentSize; }
    quint64 availableBytes() const { return blocksAvailable * fragmentSize; }
};

/*!
 * The server's limits (limits@openssh.com, OpenSSH's PROTOCOL 4.8); 0 means "not
 * enforced". Without the extension the engine uses the draft's 32 KiB floor.
 * \since 0.1
 */
struct Limits
{
    quint64 maxPacketLength = 0;
    quint64 maxReadLength = 0;
    quint64 maxWriteLength = 0;
    quint64 maxOpenHandles = 0;
};

} // namespace Qvfs::Sftp

#endif
