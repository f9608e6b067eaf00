// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_STATJOB_H
#define QVFS_STATJOB_H

#include "entry.h"
#include "job.h"

#include <QUrl>

namespace Qvfs
{

class StatJobPrivate;

/*!
 * Finds out about one URL: type, size, permissions, owner, times... as asked by the
 * details flags.
 * \since 0.1
 */
class QVFSCORE_EXPORT StatJob : public Job
{
    Q_OBJECT
public:
    /*! The URL asked about. */
    QUrl url() const;
    /*! The result, once result() was emitted without error. */
    Entry statResult() const;

private:
    friend class StatJobPrivate;
    explicit StatJob(StatJobPrivate &dd);
    Q_DECLARE_PRIVATE(StatJob)
};

/*!
 * Stats \a url. With DetailResolveSymlink a symlink's target is described (LinkTarget
 * still given). Errors: ErrDoesNotExist, ErrAccessDenied, worker errors.
 * \since 0.1
 */
QVFSCORE_EXPORT StatJob *stat(const QUrl &url, Details details = DetailsDefault);

} // namespace Qvfs

#endif
