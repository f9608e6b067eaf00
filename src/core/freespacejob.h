// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FREESPACEJOB_H
#define QVFS_FREESPACEJOB_H

#include "job.h"

#include <QUrl>

namespace Qvfs
{

class FreeSpaceJobPrivate;

/*!
 * Finds out how large the filesystem holding a URL is and how much of it is free, like
 * `df` (KIO's FileSystemFreeSpaceJob, GIO's "filesystem::" attributes). Each worker
 * answers as its protocol can: statvfs(2) for local files, statvfs@openssh.com over
 * sftp, the quota properties of RFC 4331 on WebDAV (the user's quota, not the disk).
 *
 * Every figure is in bytes and -1 when the protocol does not give it; read them once
 * result() was emitted without error.
 * \since 0.1
 */
class QVFSCORE_EXPORT FreeSpaceJob : public Job
{
    Q_OBJECT
public:
    /*! The URL asked about. */
    QUrl url() const;
    /*! The size of the filesystem (or of the quota); -1 when unknown. */
    qint64 total() const;
    /*!
     * The bytes not in use, including those only the administrator may still use (the
     * blocks a local filesystem reserves for root); -1 when unknown.
     */
    qint64 free() const;
    /*! The bytes the user running the job may still write; -1 when unknown. */
    qint64 available() const;
    /*!
     * The bytes in use: what the protocol reports itself (WebDAV's quota-used-bytes),
     * else total() - free() when both are known; -1 when unknown.
     */
    qint64 used() const;

private:
    friend class FreeSpaceJobPrivate;
    explicit FreeSpaceJob(FreeSpaceJobPrivate &dd);
    Q_DECLARE_PRIVATE(FreeSpaceJob)
};

/*!
 * Asks for the size and free space of the filesystem that holds \a url (a file or a
 * folder on it). Errors: ErrDoesNotExist, ErrAccessDenied, ErrUnsupportedAction (the
 * protocol's worker does not declare "freeSpace", or the server gives no such figures),
 * worker errors.
 * \since 0.1
 */
QVFSCORE_EXPORT FreeSpaceJob *freeSpace(const QUrl &url);

} // namespace Qvfs

#endif
