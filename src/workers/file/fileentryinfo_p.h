// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the file worker: what an entry needs beyond statx, for listings and get: user
// and group names, the names a folder's .hidden file hides, and MIME types.
#ifndef QVFS_FILEENTRYINFO_P_H
#define QVFS_FILEENTRYINFO_P_H

#include "field.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QSet>
#include <QString>

#include <cstddef>

class QMimeDatabase;

namespace Qvfs::FileEntryInfo
{

/*! uid or gid -> name, resolved once per worker. */
struct NameCache
{
    QByteArray (*lookup)(uint id, char *buf, size_t size);
    QHash<uint, QByteArray> names;
    uint lastId = 0;
    QByteArray last;
    QByteArrayView get(uint id);
};

/*! The name of the user \a uid (getpwuid_r() with \a buf of \a size bytes), null if unknown. */
QByteArray lookupUser(uint uid, char *buf, size_t size);
/*! The name of the group \a gid (getgrgid_r() with \a buf of \a size bytes), null if unknown. */
QByteArray lookupGroup(uint gid, char *buf, size_t size);

/*! Loaded on first use only: listings without MIME types never pay for it. */
const QMimeDatabase &mimeDatabase();
/*! The names that the .hidden file of the folder \a dirfd lists (one per line), if it has one. */
QSet<QByteArray> readHiddenFile(int dirfd);
/*!
 * The MIME type of the entry \a path in \a dirfd, named \a name: by its name, and for a
 * regular file by its first bytes too.
 */
QString mimeTypeOf(int dirfd, const char *path, QByteArrayView name, FileType type);

} // namespace Qvfs::FileEntryInfo

#endif
