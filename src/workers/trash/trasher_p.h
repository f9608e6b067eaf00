// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHER_P_H
#define QVFS_TRASHER_P_H

// Moving local entries into the trash (freedesktop.org Trash specification 1.0), for the
// file worker's TrashRequest. Internal.

#include "trashdirs_p.h"

#include <QByteArray>
#include <QDateTime>

#include <map>

namespace Qvfs::Trash
{

/*!
 * Moves entries into the trash of their own filesystem, one rename each: never a copy
 * across filesystems (a file on a volume without a usable trash gives ErrNoTrash). The
 * trashes found are kept for the trasher's life (one request: the first entry of a
 * volume finds its trash, the others reuse it).
 */
class Trasher
{
public:
    /*!
     * Moves \a path (absolute; its last component is not followed: a link is trashed as
     * the link) to the trash. Its .trashinfo is complete and in place before the rename,
     * under a name no other entry of that trash has (O_TMPFILE linked in: never seen half
     * written, never replacing another); after a failed rename it goes again. \a name
     * receives the entry's trash:/ name ("<trash id>-<name in the trash>"). Errors:
     * ErrDoesNotExist, ErrNoTrash, ErrCycle (a trash folder, or what holds one), errno
     * errors naming \a path.
     */
    FileOps::OpResult trash(const QByteArray &path, QByteArray *name);

    /*! The deletion time written into .trashinfo files (tests); invalid: now. */
    QDateTime now;

private:
    std::map<dev_t, Folder> m_trashes;
};

/*!
 * The \a n-th candidate name for \a base in a trash, as GLib makes them: \a base itself,
 * then "stem.2.rest" ("a.tar.gz" → "a.2.tar.gz", "a" → "a.2"), cut so that the info
 * file's name ("<candidate>.trashinfo") stays within NAME_MAX bytes.
 */
QByteArray candidateName(const QByteArray &base, int n);

} // namespace Qvfs::Trash

#endif
