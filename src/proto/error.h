// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ERROR_H
#define QVFS_ERROR_H

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace Qvfs
{

/*!
 * Error codes of jobs and workers.
 *
 * A worker sends a code plus arguments (usually the URL concerned); the application
 * turns them into a translated text with errorText(). The numeric values travel on
 * the wire: never renumber, only append.
 * \since 0.1
 */
enum Error : int {
    NoError = 0,
    ErrCancelled = 1, //!< the job was killed
    ErrDoesNotExist = 2, //!< arg: URL
    ErrAccessDenied = 3, //!< arg: URL
    ErrIsDirectory = 4, //!< arg: URL (a file was expected)
    ErrIsNotDirectory = 5, //!< arg: URL (a folder was expected)
    ErrAlreadyExists = 6, //!< arg: URL
    ErrDiskFull = 7, //!< arg: URL being written
    ErrWorkerDied = 8, //!< arg: protocol or URL
    ErrProtocolError = 9, //!< arg: detail text (untranslated, technical)
    ErrTimedOut = 10, //!< arg: URL or protocol
    ErrUnsupportedProtocol = 11, //!< arg: scheme
    ErrUnsupportedAction = 12, //!< arg: URL
    ErrMalformedUrl = 13, //!< arg: the URL as given
    ErrCannotRead = 14, //!< arg: URL
    ErrCannotWrite = 15, //!< arg: URL
    ErrIdenticalFiles = 16, //!< arg: URL (source and destination are the same file)
    ErrCannotDelete = 17, //!< arg: URL
    ErrCannotRename = 18, //!< arg: URL
    ErrCannotCreateWorker = 19, //!< arg: protocol, detail
    ErrVersionMismatch = 20, //!< arg: worker's version, ours
    ErrDirectoryNotEmpty = 21, //!< arg: URL
    ErrNameTooLong = 22, //!< arg: URL
    ErrSymlinkLoop = 23, //!< arg: URL
    ErrCannotAuthenticate = 24, //!< arg: URL
    ErrHostNotFound = 25, //!< arg: host
    ErrConnectionFailed = 26, //!< arg: host, detail
    ErrCycle = 27, //!< arg: URL (copying a folder into itself)
    ErrSourceChanged = 28, //!< arg: URL (source changed while it was copied)
    ErrReadOnlyFilesystem = 29, //!< arg: URL
    ErrUnknownHostKey = 30, //!< arg: host, fingerprint
    ErrUntrustedCertificate = 31, //!< arg: host, detail
    ErrNotAnswered = 32, //!< arg: what was asked (a question got no answer in time)
    ErrUnsafeName = 33, //!< arg: URL (a peer-supplied name with '/', '..' or similar)
    ErrInternal = 34, //!< arg: detail (an unexpected system error, errno text)
    ErrFileTooLarge = 35, //!< arg: URL
    ErrServerError = 36, //!< arg: URL, status text
    ErrUrlTooLong = 37, //!< arg: the start of the URL (longer than the wire carries)
    ErrHostKeyChanged = 38, //!< arg: host, detail (the server's key differs from the one recorded: refused)
    ErrLocked = 39, //!< arg: URL (locked by someone else, e.g. a WebDAV lock: HTTP 423)
    ErrPartial = 40, //!< args: how many entries were left out, the first one's URL (the rest was done)
    ErrServerTimedOut = 41, //!< arg: host or URL (the server stopped answering; the worker is fine)
    ErrCannotSeek = 42, //!< arg: URL (read at an offset of a file that is only a stream: a server without ranges)
    /*!
     * arg: URL. The entry's volume has no trash that may be used (none can be made there,
     * or the one there is unsafe); nothing was moved: the application may offer to delete.
     */
    ErrNoTrash = 43,
    /*!
     * arg: URL. The server refused the request because this computer's clock and its own
     * differ too much (S3's RequestTimeTooSkewed: signatures hold for 15 minutes); setting the
     * clock right helps, asking for another password does not.
     */
    ErrClockSkewed = 44,
    ErrLast = ErrClockSkewed,
};

/*!
 * The translated, user-visible text for \a code with \a args (URL first, as documented
 * per code). Texts live in the application, never in workers.
 * \since 0.1
 */
QVFSPROTO_EXPORT QString errorText(int code, const QStringList &args);

/*!
 * The symbolic, untranslated name of \a code ("DoesNotExist"), for logs and JSON output.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray errorName(int code);

} // namespace Qvfs

#endif
