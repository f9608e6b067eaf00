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

/*! What del() may delete. \since 0.1 */
enum class DeleteScope : quint8 {
    Tree, //!< files, links, and folders with everything in them
    EmptyFolders, //!< files, links and empty folders (ErrDirectoryNotEmpty otherwise)
    NoFolders, //!< files and links only: a folder gives ErrIsDirectory, decided by the worker itself
};

/*!
 * Deletes \a urls. Stops at the first error (the error names the URL concerned).
 * Errors: ErrDoesNotExist, ErrAccessDenied, ErrIsDirectory / ErrDirectoryNotEmpty (see
 * \a scope), ...
 * \since 0.1
 */
QVFSCORE_EXPORT DeleteJob *del(const QList<QUrl> &urls, DeleteScope scope = DeleteScope::Tree);
/*! Deletes \a url (by default a file or a whole folder). \since 0.1 */
QVFSCORE_EXPORT DeleteJob *del(const QUrl &url, DeleteScope scope = DeleteScope::Tree);

} // namespace Qvfs

#endif
