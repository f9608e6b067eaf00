// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_COPYJOB_H
#define QVFS_COPYJOB_H

#include "conflict.h"
#include "job.h"

#include <QList>
#include <QUrl>

namespace Qvfs
{

class CopyJobPrivate;

/*!
 * Copies or moves files and trees.
 *
 * When the sources and the destination are served by the same worker that can copy
 * (file:// to file://), the whole operation runs inside that worker: no round trip
 * through the application per file. Between different protocols the job streams each
 * file get → put through the application, with the same guarantees at the
 * destination: a file appears only once complete; on error or kill nothing partial is
 * left and an existing destination is untouched. A move deletes its sources only after
 * everything was copied.
 *
 * Progress: totals first (the worker counts the tree), then bytes and files with speed.
 * \since 0.1
 */
class QVFSCORE_EXPORT CopyJob : public Job
{
    Q_OBJECT
public:
    /*! The sources. */
    QList<QUrl> sources() const;
    /*! The destination as given. */
    QUrl destination() const;
    /*! Sets the conflict policy (before the job starts; default ConflictPolicy::Fail). */
    void setConflictPolicy(ConflictPolicy policy);
    ConflictPolicy conflictPolicy() const;
    /*! Whether modification times and permissions are kept (default true). */
    void setPreserve(bool preserve);

private:
    friend class CopyJobPrivate;
    explicit CopyJob(CopyJobPrivate &dd);
    Q_DECLARE_PRIVATE(CopyJob)
};

/*!
 * Copies \a sources into \a dest when it is an existing folder, otherwise (one source)
 * as \a dest. Errors: ErrDoesNotExist (a source), ErrAlreadyExists, ErrCycle (a folder
 * into itself), ErrIdenticalFiles, ErrDiskFull, ErrAccessDenied, ...
 * \since 0.1
 */
QVFSCORE_EXPORT CopyJob *copy(const QList<QUrl> &sources, const QUrl &dest);
/*! Copies one source \a src to \a dest (into it when it is a folder). \since 0.1 */
QVFSCORE_EXPORT CopyJob *copy(const QUrl &src, const QUrl &dest);
/*! Copies \a src as exactly \a dest. \since 0.1 */
QVFSCORE_EXPORT CopyJob *copyAs(const QUrl &src, const QUrl &dest);
/*! Moves \a sources into the folder \a dest (or one source as \a dest). \since 0.1 */
QVFSCORE_EXPORT CopyJob *move(const QList<QUrl> &sources, const QUrl &dest);
/*! Moves one source \a src to \a dest (into it when it is a folder). \since 0.1 */
QVFSCORE_EXPORT CopyJob *move(const QUrl &src, const QUrl &dest);
/*! Moves \a src as exactly \a dest. \since 0.1 */
QVFSCORE_EXPORT CopyJob *moveAs(const QUrl &src, const QUrl &dest);

} // namespace Qvfs

#endif
