// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_MIMETYPES_H
#define QVFS_MIMETYPES_H

#include "field.h"
#include "qvfsproto_export.h"

#include <QByteArrayView>
#include <QMimeType>
#include <QString>

namespace Qvfs
{

class Entry;

/*!
 * \file mimetypes.h
 * The one rule for the MIME type of an entry, used by the models (DirModel's Type column
 * and its sort key), the lister's filters and the workers that name types without reading
 * content (sftp, smb, WebDAV): by the file type first, then what the worker said, then the
 * name.
 */

/*!
 * The MIME type a file type stands for whatever the name: "inode/directory",
 * "inode/symlink", "inode/chardevice", "inode/blockdevice", "inode/fifo", "inode/socket";
 * empty for a regular file or an unknown type (the name or the content decide).
 * \since 0.1
 */
QVFSPROTO_EXPORT QString mimeTypeForFileType(FileType type);

/*!
 * The MIME type of a file named \a name (raw bytes, UTF-8 expected) judged by the name
 * alone, no content read: QMimeDatabase's glob match, cached per extension (one match per
 * distinct extension however many files), per thread. isDefault() when the name says
 * nothing.
 * \since 0.1
 */
QVFSPROTO_EXPORT QMimeType mimeTypeForFileName(QByteArrayView name);

/*!
 * The MIME type of an entry of \a type named \a name without reading content:
 * mimeTypeForFileType(), else mimeTypeForFileName() ("application/octet-stream" when the
 * name says nothing). What a worker reports when a listing asks for MIME types and it
 * reads no content.
 * \since 0.1
 */
QVFSPROTO_EXPORT QString mimeTypeOf(FileType type, QByteArrayView name);

/*!
 * The MIME type of \a entry without reading content: mimeTypeForFileType() of its type,
 * else its MimeType field (what the worker found, from content or the server), else
 * mimeTypeForFileName() of its name ("application/octet-stream" when that says nothing).
 * \since 0.1
 */
QVFSPROTO_EXPORT QString mimeTypeOf(const Entry &entry);

} // namespace Qvfs

#endif
