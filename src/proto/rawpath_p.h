// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_RAWPATH_P_H
#define QVFS_RAWPATH_P_H

// Paths as raw bytes (a local path, a server's path): joined, split and compared the same
// way by the workers (file, sftp, trash) and the command-line client. Internal.

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>

namespace Qvfs::Internal
{

/*! \a path without its trailing slashes; "/" stays "/". */
QVFSPROTO_EXPORT QByteArray stripTrailingSlashes(const QByteArray &path);
/*!
 * \a dir and \a name joined by one '/': none is added after a \a dir that ends with one
 * ("/" and "a" give "/a", "/a/" and "b" give "/a/b"). \a name alone if \a dir is empty.
 */
QVFSPROTO_EXPORT QByteArray joinPath(const QByteArray &dir, const QByteArray &name);
/*!
 * Splits \a path, trailing slashes ignored, into its folder and last component: "/a/b"
 * gives "/a" and "b", "/a" gives "/" and "a", "/" gives "/" and "", and a path without a
 * slash gives "." and itself.
 */
QVFSPROTO_EXPORT void splitPath(const QByteArray &path, QByteArray *dir, QByteArray *name);
/*! The folder \a path lies in: the folder of splitPath(). */
QVFSPROTO_EXPORT QByteArray parentPath(const QByteArray &path);
/*!
 * Whether \a path is \a folder or lies below it, byte for byte ("/a/bc" is not below
 * "/a/b"). Both are taken as they are: clean them first (no "//", ".", "..").
 */
QVFSPROTO_EXPORT bool isSameOrBelow(QByteArrayView path, QByteArrayView folder);

} // namespace Qvfs::Internal

#endif
