// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_LOCALFILES_P_H
#define QVFS_LOCALFILES_P_H

#include <QByteArray>

namespace Qvfs::Http
{

/*!
 * The local files of the http worker (Linux): the spool of an upload whose size is not
 * known up front. Descriptors are close-on-exec; the
 * caller closes them.
 */
namespace LocalFiles
{

/*!
 * A private, nameless temporary file in $TMPDIR (else /tmp): O_TMPFILE, or a unique
 * name unlinked at once where the filesystem has no O_TMPFILE, so it is gone when its
 * descriptor closes, also when the worker is killed.
 * \return the descriptor, or -errno.
 */
int openSpool();

/*! The Qvfs::Error for an \a err (errno value) met reading a local file. */
int readError(int err);

} // namespace LocalFiles

} // namespace Qvfs::Http

#endif
