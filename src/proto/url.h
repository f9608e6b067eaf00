// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_URL_H
#define QVFS_URL_H

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QUrl>

/*!
 * URL helpers.
 *
 * On Linux a file name is a sequence of bytes that need not be valid UTF-8. These
 * helpers keep every byte exact: URL paths are handled in their percent-encoded form
 * (QUrl::FullyEncoded) and names go in and out as raw bytes. Never turn a name into a
 * QString (QUrl::toLocalFile, QUrl::fromLocalFile, QFile::decodeName, QDir, QFileInfo):
 * those replace invalid bytes with U+FFFD.
 *
 * Paths built here use the same percent-encoding as QUrl itself would produce for a
 * valid UTF-8 path, so a URL built from bytes compares equal to one parsed from text.
 *
 * What depends on the installed workers (default ports, scheme aliases) is in
 * urlidentity.h of Qvfs::Core: Url::normalized(), Url::schedulerKey() and
 * Url::isAncestorOrSame().
 * \since 0.1
 */
namespace Qvfs::Url
{

/*!
 * Builds a file:// URL from the raw bytes of an absolute local \a path.
 *
 * Bytes that may not appear literally in a URL path are percent-encoded; '/' is kept
 * as the separator and runs of '/' are collapsed (the kernel treats them alike). A
 * trailing slash is kept.
 * \return an invalid QUrl if \a path is empty, relative or contains a NUL byte.
 * \since 0.1
 */
QVFSPROTO_EXPORT QUrl fromLocalPath(QByteArrayView path);

/*!
 * Returns the raw bytes of the path of the file URL \a url (percent-decoded from the
 * fully encoded path, byte exact). This is where a file URL becomes a path: a path
 * cannot hold a NUL byte, and cutting it there would name another file.
 * \return an empty array if \a url is invalid, not a file URL, names a host other
 *         than "localhost" or this machine's own name (gethostname()), or its
 *         decoded path contains a NUL byte ("%00").
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray localPath(const QUrl &url);

/*!
 * Turns a command-line argument into a URL.
 *
 * \a arg is the raw argv bytes. If it looks like "scheme://..." (scheme matching
 * [A-Za-z][A-Za-z0-9+.-]*) or starts with "file:", it is parsed as a URL; bytes outside
 * printable ASCII are percent-encoded first, so the path of a file: URL keeps its exact
 * bytes. Anything else (including "a:b") is a local path; a relative one is joined to
 * \a cwd (raw bytes of the absolute working folder) and "." / ".." are resolved
 * lexically.
 * A file: URL naming this machine ("localhost" or its own host name, as `ls --hyperlink`
 * writes) comes back without the host.
 * \return an invalid QUrl if \a arg is empty or contains a NUL byte, the URL does not
 *         parse, a file: URL has a relative path or names another host, or a relative
 *         path comes with an empty or relative \a cwd.
 * \since 0.1
 */
QVFSPROTO_EXPORT QUrl fromUserInput(QByteArrayView arg, QByteArrayView cwd);

/*!
 * Returns the URL of \a name inside the folder \a parent.
 *
 * \a name is raw bytes: one file name, or a relative path of names separated by '/'
 * (as a recursive listing reports them); empty segments are skipped. \a parent may end
 * with a slash or not. The result carries no query and no fragment.
 * \return an invalid QUrl if \a parent is invalid, or \a name has no segment, or a
 *         segment is "." or ".." or contains a NUL byte.
 * \since 0.1
 */
QVFSPROTO_EXPORT QUrl child(const QUrl &parent, QByteArrayView name);

/*!
 * Returns the last segment of the path of \a url as raw bytes. A trailing slash is
 * ignored; the root "/" (or an empty path) gives an empty array.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray fileName(const QUrl &url);

/*!
 * Returns the URL of the folder containing \a url, without query or fragment. The
 * parent of the root is the root. The path is not otherwise normalised ("/a/b/.." gives
 * "/a/b"); apply normalized() first if needed.
 * \return an invalid QUrl if \a url is invalid.
 * \since 0.1
 */
QVFSPROTO_EXPORT QUrl parent(const QUrl &url);

/*!
 * Returns \a url as text for error messages and the command-line client: a file URL
 * becomes its path (invalid UTF-8 shown as U+FFFD: display only, never parse it back);
 * other URLs are shown without the password, decoded where printable.
 * \since 0.1
 */
QVFSPROTO_EXPORT QString displayString(const QUrl &url);

/*!
 * Returns true if the scheme of \a url is "file".
 * \since 0.1
 */
QVFSPROTO_EXPORT bool isLocalFile(const QUrl &url);

/*!
 * Returns true if \a name can be used as one file name inside a folder: false if it is
 * empty, ".", "..", or contains '/' or a NUL byte. Use it on every name a peer sends.
 * \since 0.1
 */
QVFSPROTO_EXPORT bool isSafeName(QByteArrayView name);

} // namespace Qvfs::Url

#endif // QVFS_URL_H
