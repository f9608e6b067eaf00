// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_URLIDENTITY_H
#define QVFS_URLIDENTITY_H

#include "qvfscore_export.h"

#include <QString>
#include <QUrl>

/*!
 * When two URLs name the same thing, and which worker a URL goes to. These helpers know
 * what the installed workers declare (default ports, scheme aliases: see Qvfs::Protocol);
 * the byte-exact path helpers are in url.h.
 * \since 0.1
 */
namespace Qvfs::Url
{

/*!
 * Returns \a url in canonical form, for comparisons and as a map key: the scheme in
 * lower case with an alias a worker declares replaced by its protocol, the host in lower case, the protocol's default
 * port removed, "localhost" removed from file URLs, an empty path of a URL with a host made "/", and an absolute path
 * with "//" runs collapsed, "." and ".." resolved (never above the root) and no trailing slash except for the root.
 * Query and fragment are kept. Bytes are never decoded into text; the percent-encoding of a file URL's path is made
 * canonical. \return \a url unchanged if it is invalid. \since 0.1
 */
QVFSCORE_EXPORT QUrl normalized(const QUrl &url);

/*!
 * Returns the key by which jobs are grouped onto workers: one string per (scheme, user,
 * host, port) after normalized(), e.g. "example://bob@host.org:2222". Every file URL
 * gives "file:". The password is never part of the key. Two URLs with the same key are
 * "on the same host": a worker that declares "copy" or "rename" handles both at once.
 * \return an empty string if \a url is invalid.
 * \since 0.1
 */
QVFSCORE_EXPORT QString schedulerKey(const QUrl &url);

/*!
 * Returns true if \a url is \a ancestor or lies below it: after normalized(), both
 * have the same schedulerKey() and the path segments of \a ancestor are a prefix of
 * those of \a url ("/a/b" is not below "/a/bc"). Segments are compared as raw bytes.
 * Used to refuse copying or moving a folder into itself.
 * \return false if either URL is invalid.
 * \since 0.1
 */
QVFSCORE_EXPORT bool isAncestorOrSame(const QUrl &ancestor, const QUrl &url);

} // namespace Qvfs::Url

#endif
