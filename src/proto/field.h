// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FIELD_H
#define QVFS_FIELD_H

#include <QtGlobal>

#include <sys/stat.h>

namespace Qvfs
{

/*!
 * The storage type of a field; part of the field id (bits 8 and 9).
 * \since 0.1
 */
enum class FieldType : quint8 {
    Number = 0, //!< a signed 64-bit integer
    String = 1, //!< bytes (UTF-8 for text, raw bytes for names)
    Atom = 2, //!< bytes that repeat across entries (user, group, MIME type): interned per listing
};

/*!
 * Field ids of an Entry. The type is encoded in the id, see fieldType().
 * Ids travel on the wire: never renumber, only append. Protocol-specific extras use
 * the ExtraNumber / ExtraString / ExtraAtom ranges (up to 63 each).
 * \since 0.1
 */
enum Field : quint16 {
    // numbers
    Type = 1, //!< a Qvfs::FileType value
    Mode = 2, //!< permission bits (07777)
    Size = 3, //!< bytes
    MTime = 4, //!< modification time, seconds since the epoch
    MTimeNs = 5, //!< nanoseconds part of MTime
    ATime = 6, //!< access time, seconds
    ATimeNs = 7,
    BTime = 8, //!< creation (birth) time, seconds
    BTimeNs = 9,
    Uid = 10,
    Gid = 11,
    Inode = 12,
    Device = 13,
    NLink = 14,
    Hidden = 15, //!< 1 when the entry is hidden (dot-name or listed in the folder's .hidden)
    Blocks = 16, //!< 512-byte blocks allocated (st_blocks)
    /*!
     * 1 when the entry could not be described (its stat failed, for another reason than
     * being gone): a listing still gives its Name, and its Type as the folder tells it
     * (Unknown if not), but none of the details asked for; `ls -l` shows "??????????".
     */
    Incomplete = 17,
    /*!
     * 1 when the entry is marked read-only where the protocol has such a mark apart from
     * permission bits (SMB's DOS attribute: the server refuses writes whoever asks).
     */
    ReadOnly = 18,
    /*! When the entry was moved to the trash (trash:/), seconds since the epoch. */
    DeletionTime = 19,
    ExtraNumber = 0x40, //!< first id of protocol extras (numbers)

    // strings
    Name = 0x100 | 1, //!< the file name as raw bytes (a relative path in recursive listings)
    LinkTarget = 0x100 | 2, //!< symlink target, raw bytes
    LocalPath = 0x100 | 3, //!< a local path the entry is reachable at, raw bytes
    DisplayName = 0x100 | 4, //!< UTF-8 text to show instead of Name
    TargetUrl = 0x100 | 5, //!< a URL (percent-encoded) the entry stands for
    OriginalPath = 0x100 | 6, //!< where a trash:/ entry was trashed from: an absolute local path, raw bytes
    ExtraString = 0x100 | 0x40,

    // atoms (interned strings)
    User = 0x200 | 1, //!< owner's user name
    Group = 0x200 | 2, //!< owner's group name
    MimeType = 0x200 | 3,
    ExtraAtom = 0x200 | 0x40,
};

/*! Largest valid field id + 1. \since 0.1 */
constexpr quint16 FieldIdLimit = 0x300;

/*! The storage type of \a f. \since 0.1 */
constexpr FieldType fieldType(quint16 f) noexcept
{
    return FieldType((f >> 8) & 3);
}

/*! Whether \a f is a well-formed field id (used to validate peer input). \since 0.1 */
constexpr bool isValidField(quint16 f) noexcept
{
    return f < FieldIdLimit && (f & 0xff) != 0 && (f & 0xff) < 0x80;
}

/*!
 * The values of the Type field.
 * \since 0.1
 */
enum class FileType : quint8 {
    Unknown = 0,
    Regular = 1,
    Directory = 2,
    Symlink = 3,
    CharDevice = 4,
    BlockDevice = 5,
    Fifo = 6,
    Socket = 7,
};

namespace Internal
{
// The S_IFMT bits by FileType value; Unknown has none.
inline constexpr quint32 fileTypeModeBits[] = { 0, S_IFREG, S_IFDIR, S_IFLNK, S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK };
} // namespace Internal

/*!
 * The FileType of a POSIX mode (st_mode, statx's stx_mode, an SFTP permissions
 * attribute): its S_IFMT bits. Unknown for a mode without a known type.
 * \since 0.1
 */
constexpr FileType fileTypeFromMode(quint32 mode)
{
    for (quint8 t = quint8(FileType::Regular); t <= quint8(FileType::Socket); ++t) {
        if ((mode & S_IFMT) == Internal::fileTypeModeBits[t])
            return FileType(t);
    }
    return FileType::Unknown;
}

/*!
 * The S_IFMT bits of \a type, as st_mode has them: the inverse of fileTypeFromMode().
 * 0 for Unknown.
 * \since 0.1
 */
constexpr quint32 fileTypeMode(FileType type)
{
    return type <= FileType::Socket ? Internal::fileTypeModeBits[quint8(type)] : 0;
}

/*!
 * What a listing or stat should fill in. The worker makes no system call for details
 * nobody asked for.
 * \since 0.1
 */
enum Detail : quint32 {
    DetailBasic = 0x1, //!< Name, Type, Mode, Size, LinkTarget, Hidden, ReadOnly
    DetailTime = 0x2, //!< MTime(+Ns); ATime and BTime with DetailAllTimes
    DetailUser = 0x4, //!< Uid, Gid, User, Group
    DetailInode = 0x8, //!< Inode, Device, NLink, Blocks
    DetailMimeType = 0x10, //!< MimeType (costs a content or name sniff)
    DetailAllTimes = 0x20, //!< ATime and BTime too
    /*!
     * stat: describe a symlink's target (LinkTarget kept); a dangling link or a loop
     * fails (ErrDoesNotExist, ErrSymlinkLoop naming the URL), like `stat -L`.
     */
    DetailResolveSymlink = 0x40,
    DetailHiddenFile = 0x80, //!< honour the folder's .hidden file
    DetailsDefault = DetailBasic | DetailTime | DetailUser | DetailHiddenFile,
    DetailsFull = DetailBasic | DetailTime | DetailUser | DetailInode | DetailHiddenFile, //!< what `ls -l` shows
};
Q_DECLARE_FLAGS(Details, Detail)

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::Details)

#endif
