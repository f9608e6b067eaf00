// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHDIRS_P_H
#define QVFS_TRASHDIRS_P_H

// Where the trashes are (freedesktop.org Trash specification 1.0): the home trash for
// the home's filesystem, and on every other volume $topdir/.Trash/$uid (a shared, sticky
// .Trash that is no link) or $topdir/.Trash-$uid. Each trash is opened folder by folder
// without following a symlink and checked for its owner, so that another user of the
// volume can neither redirect nor read what is trashed. Shared by the file worker (which
// trashes) and the trash worker (which lists, restores and empties). Internal.

#include "fileops_util_p.h"

#include <QByteArray>
#include <QList>

#include <sys/types.h>

#include <vector>

namespace Qvfs::Trash
{

/*! One trash folder, open: its info/ and files/ folders as descriptors. */
struct Folder
{
    /*! The trash folder: $XDG_DATA_HOME/Trash, $topdir/.Trash/$uid or $topdir/.Trash-$uid. */
    QByteArray path;
    /*! The volume's top folder, which relative Paths start from; empty for the home trash (absolute Paths). */
    QByteArray topdir;
    /*! Its name in trash:/ names: "0" for the home trash, "<major>.<minor>" of the volume's device otherwise. */
    QByteArray id;
    dev_t device = 0;
    FileOps::Fd fd;
    FileOps::Fd info;
    FileOps::Fd files;

    /*! The original absolute path of what \a infoPath (decoded Path=) names. */
    QByteArray originalPath(const QByteArray &infoPath) const;
    /*! What \a absolutePath is written as in a .trashinfo of this trash (relative to topdir here). */
    QByteArray infoPathFor(const QByteArray &absolutePath) const;
};

/*!
 * The home trash's path: $XDG_DATA_HOME/Trash, else $HOME/.local/share/Trash (a relative
 * XDG_DATA_HOME is ignored, as the XDG base directory specification says). Empty when
 * neither gives an absolute path.
 */
QByteArray homeTrashPath();

/*!
 * Opens, making what is missing (folders 0700), the trash that an entry of the absolute,
 * canonical \a path on device \a device goes to: the home trash when \a device is the
 * filesystem of the home trash, else the trash of the volume \a path is on. Fails with
 * ErrNoTrash naming \a path when that volume has no trash that may be used: the top
 * folder cannot be written, or the trash folders there are links or belong to another
 * user.
 */
FileOps::OpResult trashFor(const QByteArray &path, dev_t device, Folder *out);

/*!
 * Every trash of this user that exists now, opened: the home trash first, then each
 * mounted volume's .Trash/$uid and .Trash-$uid (each volume once, in the order of the
 * mount table). Nothing is created; a trash folder that fails the checks is left out.
 */
std::vector<Folder> existingTrashes();

/*!
 * Opens the folder \a name in \a parent without following a link, making it (0700) when
 * missing and \a create is set, and checks that it is a folder this user owns: its
 * descriptor, or -1 (errno set; EPERM for another owner or another type).
 */
int openOwnedFolder(int parent, const char *name, bool create);

/*! Opens the info/ and files/ folders of \a folder (made when missing and \a create is set). */
bool openParts(Folder *folder, bool create);

/*! A folder where a trash of this user would appear: as one of \a names. */
struct Place
{
    QByteArray folder;
    QList<QByteArray> names;
};

/*!
 * Where the trashes that do not exist yet would appear (for a watch to notice them): the
 * nearest existing folder above a missing home trash, each volume's top folder (.Trash,
 * .Trash-$uid) and a shared .Trash ($uid).
 */
QList<Place> trashPlaces();

/*! The trash id of \a device ("<major>.<minor>"). */
QByteArray volumeId(dev_t device);

} // namespace Qvfs::Trash

#endif
