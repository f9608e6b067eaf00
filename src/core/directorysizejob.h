// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRECTORYSIZEJOB_H
#define QVFS_DIRECTORYSIZEJOB_H

#include "job.h"

#include <QUrl>

namespace Qvfs
{

class DirectorySizeJobPrivate;

/*!
 * Counts the files, folders and bytes under a URL (like `du -s --apparent-size`),
 * without following symlinks. Progress reports the running counts.
 * \since 0.1
 */
class QVFSCORE_EXPORT DirectorySizeJob : public Job
{
    Q_OBJECT
public:
    QUrl url() const;
    /*! Sum of the sizes of the regular files. */
    qint64 totalBytes() const;
    /*! Files (every non-folder entry, symlinks included). */
    qint64 totalFiles() const;
    /*! Folders inside the URL (not counting the URL itself). */
    qint64 totalDirectories() const;

private:
    friend class DirectorySizeJobPrivate;
    explicit DirectorySizeJob(DirectorySizeJobPrivate &dd);
    Q_DECLARE_PRIVATE(DirectorySizeJob)
};

/*! Sizes \a url. Errors: ErrDoesNotExist, ErrAccessDenied, ... \since 0.1 */
QVFSCORE_EXPORT DirectorySizeJob *directorySize(const QUrl &url);

} // namespace Qvfs

#endif
