// SPDX-License-Identifier: LGPL-2.1-or-later
// The raw-byte filesystem helpers (rawpath.h) and what joins them to Qvfs: the file:// and
// sftp:// URLs of a raw path and the Qvfs type of a file. The tests of jobs include this one.
#ifndef QVFS_TESTUTIL_RAWFS_H
#define QVFS_TESTUTIL_RAWFS_H

#include "rawpath.h"

#include <Qvfs/Field>

#include <QByteArray>
#include <QString>
#include <QUrl>

#include <sys/stat.h>

namespace QvfsTest
{

/*! The file:// URL of a raw path (Qvfs::Url::fromLocalPath: every byte kept). */
QUrl fileUrl(const QByteArray &path);
/*! The URL of \a path as an error's arguments carry it (percent-encoded). */
QString encoded(const QByteArray &path);
/*!
 * The sftp:// URL of the raw path \a path on a test sshd (sshdfixture.h, which serves this
 * machine's files) at 127.0.0.1:\a port, as \a user (none when empty): every byte kept.
 */
QUrl sftpUrl(int port, const QByteArray &path, const QByteArray &user = "root");
/*! The Qvfs type of a st_mode (Qvfs::fileTypeFromMode(), the mapping the workers use too). */
Qvfs::FileType typeOf(mode_t mode);

} // namespace QvfsTest

#endif
