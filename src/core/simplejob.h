// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SIMPLEJOB_H
#define QVFS_SIMPLEJOB_H

#include "job.h"

#include <QUrl>

namespace Qvfs
{

class SimpleJobPrivate;

/*!
 * A job that sends one command to one worker: mkdir, mkpath, rename, symlink, chmod.
 * \since 0.1
 */
class QVFSCORE_EXPORT SimpleJob : public Job
{
    Q_OBJECT
public:
    /*! The URL the job works on (the destination of a rename). */
    QUrl url() const;

protected:
    explicit SimpleJob(SimpleJobPrivate &dd);

private:
    friend class SimpleJobPrivate;
    Q_DECLARE_PRIVATE(SimpleJob)
};

/*!
 * Creates the folder \a url with \a permissions (-1: the default, 0777 less umask).
 * Errors: ErrAlreadyExists, ErrDoesNotExist (parent missing), ErrAccessDenied.
 * \since 0.1
 */
QVFSCORE_EXPORT SimpleJob *mkdir(const QUrl &url, int permissions = -1);
/*! Creates \a url and every missing parent, like `mkdir -p`. \since 0.1 */
QVFSCORE_EXPORT SimpleJob *mkpath(const QUrl &url, int permissions = -1);
/*!
 * Renames \a src to \a dest on the same filesystem/server (no copying). With
 * \a overwrite false an existing \a dest gives ErrAlreadyExists.
 * \since 0.1
 */
QVFSCORE_EXPORT SimpleJob *rename(const QUrl &src, const QUrl &dest, bool overwrite = false);
/*! Creates the symlink \a link pointing to \a target (raw bytes). \since 0.1 */
QVFSCORE_EXPORT SimpleJob *symlink(const QByteArray &target, const QUrl &link);
/*! Sets the permission bits of \a url. \since 0.1 */
QVFSCORE_EXPORT SimpleJob *chmod(const QUrl &url, int permissions);
/*!
 * Sets the modification time of \a url (the access time is left alone; a symlink's own
 * time, not its target's). Errors: ErrDoesNotExist, ErrAccessDenied, ErrUnsupportedAction.
 * \since 0.1
 */
QVFSCORE_EXPORT SimpleJob *setModificationTime(const QUrl &url, qint64 seconds, qint64 nanoseconds = 0);

} // namespace Qvfs

#endif
