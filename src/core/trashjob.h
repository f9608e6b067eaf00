// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHJOB_H
#define QVFS_TRASHJOB_H

#include "conflict.h"
#include "job.h"

#include <QList>
#include <QUrl>

namespace Qvfs
{

class DeleteJob;
class TrashJobPrivate;

/*!
 * Moves local files and folders into the trash, or trash entries back to where they came
 * from: the freedesktop.org Trash specification, so that what one desktop trashes the
 * others (Dolphin, Nautilus, `gio trash`, trash-cli) list and restore, and the other way
 * round.
 *
 * Trashing (Qvfs::trash()) renames each entry into the trash of its own filesystem: the
 * home trash ($XDG_DATA_HOME/Trash) for the home's filesystem; on another volume the
 * shared `.Trash/$uid` of its top folder when that is a sticky folder and no link, else
 * `.Trash-$uid`, made 0700. It never copies across filesystems: a 4 GB file on a USB disk
 * stays on the disk, and an entry whose volume has no usable trash fails with ErrNoTrash
 * (the application may then offer to delete it). Each entry's .trashinfo (its original
 * path and the deletion time) is written complete before the rename; a name the trash has
 * already gets a free one ("a.2.txt").
 *
 * Restoring (Qvfs::restoreFromTrash()) moves trash:/ entries back to their original
 * paths, making missing parent folders; an entry there now is met by the conflict policy
 * as in a copy (Overwrite merges folders, Rename picks a free name, Skip leaves the trashed
 * entry in the trash, Ask asks).
 *
 * The entries go one after the other: an entry that cannot be moved (missing, denied, no
 * trash) is reported with leftOut() and the others still go; the job then ends with
 * ErrPartial. With one entry its error is the job's. Progress counts entries (Files).
 * \since 0.1
 */
class QVFSCORE_EXPORT TrashJob : public Job
{
    Q_OBJECT
public:
    /*! Whether the job trashes (false: restores). */
    bool isRestore() const;
    /*! The entries the job was given. */
    QList<QUrl> urls() const;

Q_SIGNALS:
    /*!
     * \a from is now \a to: its trash:/ URL when trashing, its restored file:// URL when
     * restoring.
     */
    void moved(Qvfs::Job *job, const QUrl &from, const QUrl &to);
    /*! A restore left \a from in the trash: \a existing was kept (conflict policy or answer). */
    void skipped(Qvfs::Job *job, const QUrl &from, const QUrl &existing);

private:
    friend class TrashJobPrivate;
    explicit TrashJob(TrashJobPrivate &dd);
    Q_DECLARE_PRIVATE(TrashJob)
};

/*!
 * Moves the local entries \a urls (file://) into the trash of their filesystems. Errors:
 * ErrDoesNotExist, ErrAccessDenied, ErrNoTrash, ErrCycle (a trash itself),
 * ErrUnsupportedAction for a URL that is not local, ErrPartial with several entries.
 * \since 0.1
 */
QVFSCORE_EXPORT TrashJob *trash(const QList<QUrl> &urls);
/*! Moves the local entry \a url into the trash. \since 0.1 */
QVFSCORE_EXPORT TrashJob *trash(const QUrl &url);

/*!
 * Moves the trash entries \a trashUrls (trash:/ names, as a listing of trash:/ gives them)
 * back to their original paths; \a conflict decides about what is there now. Errors:
 * ErrDoesNotExist (no such entry), the errors of a move, ErrPartial with several entries.
 * \since 0.1
 */
QVFSCORE_EXPORT TrashJob *restoreFromTrash(
    const QList<QUrl> &trashUrls, ConflictPolicy conflict = ConflictPolicy::Fail);

/*!
 * Empties every trash of the user (a delete of trash:/): once the job ends the trash lists
 * empty; the trashed entries were renamed out of sight and the trash worker deletes them
 * afterwards, between its other work.
 * \since 0.1
 */
QVFSCORE_EXPORT DeleteJob *emptyTrash();

} // namespace Qvfs

#endif
