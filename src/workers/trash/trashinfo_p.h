// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHINFO_P_H
#define QVFS_TRASHINFO_P_H

// The .trashinfo files of the freedesktop.org Trash specification 1.0: what a trashed
// entry was called and when it was trashed. Pure functions on bytes; shared by the file
// worker (which writes them) and the trash worker (which reads them). Internal.

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>

namespace Qvfs::Trash
{

/*!
 * \a path percent-encoded for a Path= line, byte by byte as GLib and KIO write it: letters,
 * digits, "-._~" and '/' stay, every other byte (spaces, '%', non-ASCII, bytes that are
 * not UTF-8) becomes %XX. A name that is no valid UTF-8 therefore round-trips exactly.
 */
QByteArray encodePath(QByteArrayView path);

/*!
 * The bytes of a Path= value: %XX decoded (any case), other bytes as they are. False for a
 * malformed escape, a NUL byte (encoded or not) or an empty path.
 */
bool decodePath(QByteArrayView encoded, QByteArray *path);

/*! What one .trashinfo says. */
struct Info
{
    /*! The decoded Path: absolute, or relative to the volume's top folder. */
    QByteArray path;
    /*! DeletionDate as seconds since the epoch (local time as written); -1 when missing or unreadable. */
    qint64 deletionTime = -1;
};

/*!
 * Reads a .trashinfo: the "[Trash Info]" group must come first (blank lines and comments
 * aside) and hold a Path; keys of other groups and unknown keys are ignored. False when it
 * is not one (no group header, no Path, a malformed Path).
 */
bool parseInfo(QByteArrayView content, Info *info);

/*! A .trashinfo for \a path (raw bytes, as it goes in: absolute or relative) trashed at \a when (local time). */
QByteArray formatInfo(QByteArrayView path, const QDateTime &when);

/*! The suffix of every info file. */
constexpr QByteArrayView InfoSuffix = ".trashinfo";

} // namespace Qvfs::Trash

#endif
