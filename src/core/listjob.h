// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_LISTJOB_H
#define QVFS_LISTJOB_H

#include "entry.h"
#include "job.h"

#include <QUrl>

namespace Qvfs
{

class ListJobPrivate;

/*!
 * Lists a folder, flat or recursive. Entries arrive in batches through entries();
 * the order is unspecified (sort in the application). In recursive listings the Name
 * of each entry is its path relative to the listed folder ("sub/file.txt"); symlinked
 * folders are not followed unless asked, and loops are impossible.
 * \since 0.1
 */
class QVFSCORE_EXPORT ListJob : public Job
{
    Q_OBJECT
public:
    enum ListFlag {
        NoFlags = 0,
        FollowSymlinks = 0x1, //!< recursive: descend into symlinked folders (each folder once)
    };
    Q_DECLARE_FLAGS(ListFlags, ListFlag)

    /*! The listed URL. */
    QUrl url() const;
    /*! Entries received so far. */
    qint64 entryCount() const;

Q_SIGNALS:
    /*! A batch of entries. Keep \a list (or entries of it) as long as needed: it is cheap. */
    void entries(Qvfs::ListJob *job, const Qvfs::EntryList &list);

private:
    friend class ListJobPrivate;
    explicit ListJob(ListJobPrivate &dd);
    Q_DECLARE_PRIVATE(ListJob)
};

/*!
 * Lists the folder \a url with \a details. Errors: ErrDoesNotExist, ErrIsNotDirectory,
 * ErrAccessDenied (naming the URL), worker errors.
 * \since 0.1
 */
QVFSCORE_EXPORT ListJob *listDir(const QUrl &url, Details details = DetailsDefault);
/*!
 * Lists the tree under \a url with one worker and one job. Names are relative paths.
 * \since 0.1
 */
QVFSCORE_EXPORT ListJob *listRecursive(
    const QUrl &url, Details details = DetailsDefault, ListJob::ListFlags flags = ListJob::NoFlags);

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::ListJob::ListFlags)

#endif
