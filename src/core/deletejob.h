// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DELETEJOB_H
#define QVFS_DELETEJOB_H

#include "job.h"

#include <QList>
#include <QUrl>

namespace Qvfs
{

class DeleteJobPrivate;

/*!
 * Deletes files, symlinks (never their targets) and whole folders. Each URL is deleted
 * by its worker in one request (trees too: no round trip per file).
 * \since 0.1
 */
class QVFSCORE_EXPORT DeleteJob : public Job
{
    Q_OBJECT
public:
    /*! The URLs to delete. */
    QList<QUrl> urls() const;
    /*! How many entries (files, links and folders) were removed so far. */
    qint64 removedCount() const;

Q_SIGNALS:
    /*! \a url was deleted completely. */
    void deleted(Qvfs::DeleteJob *job, const QUrl &url);

private:
    friend class DeleteJobPrivate;
    explicit DeleteJob(DeleteJobPrivate &dd);
    Q_DECLARE_PRIVATE(DeleteJob)
};

/*!
 * Deletes \a urls, folders with everything in them. Stops at the first error (the
 * error names the URL concerned). Errors: ErrDoesNotExist, ErrAccessDenied, ...
 * \since 0.1
 */
QVFSCORE_EXPORT DeleteJob *del(const QList<QUrl> &urls);
/*! Deletes \a url (a file or a whole folder). \since 0.1 */
QVFSCORE_EXPORT DeleteJob *del(const QUrl &url);

} // namespace Qvfs

#endif
