// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_URL_P_H
#define QVFS_URL_P_H

// The byte-level path helpers behind url.h, shared with the core's URL identity code
// (urlidentity.cpp), which also needs what the installed workers declare. Internal.

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QUrl>

namespace Qvfs::Url::Detail
{

/*! Appends \a bytes percent-encoded exactly as QUrl encodes a path ('/' kept). */
QVFSPROTO_EXPORT void appendEncoded(QByteArray &out, QByteArrayView bytes);
/*! The path as QUrl keeps it: fully encoded, pure ASCII. */
QVFSPROTO_EXPORT QByteArray encodedPath(const QUrl &url);
/*! Sets an already encoded path, keeping its escapes as they are. */
QVFSPROTO_EXPORT void setEncodedPath(QUrl &url, const QByteArray &encoded);
/*! The value of the hexadecimal digit \a c (either case), -1 if it is none. */
inline int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
/*!
 * Appends \a encoded percent-decoded to \a out, without a copy of its own (\a out's
 * buffer grows only when too small); a '%' without two hex digits stays as it is.
 */
QVFSPROTO_EXPORT void appendDecoded(QByteArray &out, QByteArrayView encoded);
/*! Percent-decodes \a encoded into raw bytes. */
QVFSPROTO_EXPORT QByteArray decoded(QByteArrayView encoded);
/*!
 * The path of \a url percent-decoded to raw bytes, whatever its scheme: what a worker acts
 * on ("%2E%2E" is "..", "%2F" a '/'). Unlike localPath(), nothing is checked.
 */
QVFSPROTO_EXPORT QByteArray decodedPath(const QUrl &url);
/*!
 * The host of \a url as errors and questions name it, in UTF-8: "host", "host:port", an
 * IPv6 address in brackets ("[::1]:2222").
 */
QVFSPROTO_EXPORT QByteArray hostDisplay(const QUrl &url);
/*! Whether a file URL names this machine (no host, or "localhost"). */
QVFSPROTO_EXPORT bool isLocalHost(const QUrl &url);
/*!
 * The URL that names the entry \a name of \a folder in a report (an entry left out as
 * unsafe): \a name percent-encoded whole, '/' included, so that it stays one segment and
 * shows the bytes the server sent. Not a path to open.
 */
QVFSPROTO_EXPORT QUrl reportedChild(const QUrl &folder, QByteArrayView name);
/*! The non-empty segments of \a path. */
QVFSPROTO_EXPORT QList<QByteArrayView> splitSegments(QByteArrayView path);
/*!
 * Lexical cleanup of an absolute path (raw or encoded bytes alike): collapses "//",
 * drops ".", resolves ".." (never above the root), drops the trailing slash.
 */
QVFSPROTO_EXPORT QByteArray cleanAbsolutePath(QByteArrayView path);
/*! The raw byte segments of \a url's path (an encoded '/' separates only in file URLs). */
QVFSPROTO_EXPORT QList<QByteArray> decodedSegments(const QUrl &url);

/*!
 * Url::normalized() (urlidentity.h) given what the protocol declares: its canonical
 * scheme (empty: the URL's own, in lower case) and default port (-1: none).
 */
QVFSPROTO_EXPORT QUrl normalizedFor(const QUrl &url, const QString &canonicalScheme, int defaultPort);
/*! Url::schedulerKey() of an already normalized URL. */
QVFSPROTO_EXPORT QString keyOfNormalized(const QUrl &normalized);
/*! Url::isAncestorOrSame() of two already normalized URLs. */
QVFSPROTO_EXPORT bool isAncestorOrSameNormalized(const QUrl &ancestor, const QUrl &url);

} // namespace Qvfs::Url::Detail

#endif
