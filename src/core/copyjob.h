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
 * Copies or moves files and trees, between any two protocols.
 *
 * The job picks a strategy per source, each falling back to the next:
 * 1. a move whose source and destination are on one host (Url::schedulerKey()) of a
 *    protocol that declares "rename" is first tried as a rename: no byte is copied;
 * 2. sources on the destination's host of a protocol that declares "copy" are copied
 *    (or moved) inside that worker, in one request: no round trip per file;
 * 3. otherwise each file goes by itself: written or read by the remote worker itself
 *    when it declares "copyToFile" / "copyFromFile" and the other side is a local file,
 *    else streamed get → put through the application, several files at a time.
 * A worker that answers ErrUnsupportedAction sends the job to the next strategy.
 *
 * Whatever the strategy: a file appears at its destination only once complete; on
 * error or kill nothing partial is left and an existing destination is untouched. A
 * move deletes its sources only after everything was copied (and never a source whose
 * destination was skipped). Folders get their mode and time after their content, on
 * the very folder the job created (never through a symlink swapped in meanwhile).
 *
 * Progress: totals first (sources are counted), then bytes and files with speed. The
 * per-file signals below come from every strategy (ask for them by connecting to them
 * before the job starts: a worker then reports each entry).
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
    /*! Whether this is a move. */
    bool isMove() const;
    /*! Sets the conflict policy (before the job starts; default ConflictPolicy::Fail). */
    void setConflictPolicy(ConflictPolicy policy);
    ConflictPolicy conflictPolicy() const;
    /*! Whether modification times and permissions are kept (set before it starts; default true). */
    void setPreserve(bool preserve);
    bool preserve() const;
    /*! Entries left alone by the conflict policy or an answer so far (not counted as processed). */
    qint64 skippedCount() const;

Q_SIGNALS:
    /*! A file or symlink starts to be copied from \a from to \a to. */
    void copying(Qvfs::CopyJob *job, const QUrl &from, const QUrl &to);
    /*! A file or symlink was copied (for a move: copied, its source deleted at the end). */
    void copied(Qvfs::CopyJob *job, const QUrl &from, const QUrl &to);
    /*! The job created the folder \a url. */
    void createdFolder(Qvfs::CopyJob *job, const QUrl &url);
    /*! \a from was left alone because \a to exists (policy or answer). */
    void skipped(Qvfs::CopyJob *job, const QUrl &from, const QUrl &to);
    /*! \a from was moved to \a to by a rename, without copying. */
    void moved(Qvfs::CopyJob *job, const QUrl &from, const QUrl &to);

private:
    friend class CopyJobPrivate;
    explicit CopyJob(CopyJobPrivate &dd);
    Q_DECLARE_PRIVATE(CopyJob)
};

/*!
 * Copies \a sources into \a dest when it is an existing folder (a symlink to one
 * counts), otherwise (one source) as \a dest. Errors: ErrDoesNotExist (a source),
 * ErrAlreadyExists, ErrCycle (a folder into itself), ErrIdenticalFiles, ErrDiskFull,
 * ErrAccessDenied, ErrSourceChanged (a source replaced while it was copied),
 * ErrUnsafeName (a listing's name that would leave the destination, or a name the
 * destination's protocol cannot store), ...
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
