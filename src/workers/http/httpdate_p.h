// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_HTTPDATE_P_H
#define QVFS_HTTPDATE_P_H

#include <QByteArray>
#include <QByteArrayView>

#include <optional>

/*!
 * HTTP dates (RFC 9110 §5.6.7) as seconds since the epoch, without QDateTime: these
 * parsers read foreign bytes (Last-Modified, getlastmodified) and are fuzzed.
 */
namespace Qvfs::Http
{

/*!
 * Parses an HTTP date: the preferred IMF-fixdate form ("Sun, 06 Nov 1994 08:49:37 GMT"),
 * the obsolete RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime
 * ("Sun Nov  6 08:49:37 1994") forms, and, because some WebDAV servers send it in
 * getlastmodified, ISO 8601 in UTC ("1994-11-06T08:49:37Z", fractions ignored).
 * Surrounding white space is ignored; the day name is not checked against the date.
 * \return the seconds since 1970-01-01T00:00:00Z, or nothing if \a text is none of
 *         these or names an impossible date (31 April, 25:00).
 */
std::optional<qint64> parseHttpDate(QByteArrayView text);

/*!
 * Formats \a secondsSinceEpoch as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"),
 * for Date and X-OC-Mtime companions. Years outside 0..9999 are clamped.
 */
QByteArray formatHttpDate(qint64 secondsSinceEpoch);

} // namespace Qvfs::Http

#endif
