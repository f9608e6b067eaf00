// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CONFLICT_H
#define QVFS_CONFLICT_H

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>

namespace Qvfs
{

/*!
 * What a copy or a move does when a destination exists. One policy for the copy job,
 * the workers and the command-line client.
 *
 * A folder copied onto an existing folder is merged whatever the policy, except
 * Rename: the policy then applies to each entry inside.
 * \since 0.1
 */
enum class ConflictPolicy : quint8 {
    Fail, //!< stop with ErrAlreadyExists naming the destination
    Overwrite, //!< replace the destination (atomically, once the copy succeeded)
    Skip, //!< keep the destination, skip that source
    Rename, //!< copy under a free name: see freeNameCandidate()
    Ask, //!< ask the job's AskDelegate (a Question of kind Conflict)
};

/*!
 * An answer to a conflict question.
 * \since 0.1
 */
enum class ConflictAction : quint8 {
    Overwrite, //!< replace this destination
    Skip, //!< keep it and skip this source
    Rename, //!< copy this source under a free name
    Cancel, //!< stop the whole job (ErrCancelled)
};

/*!
 * The stable, untranslated name of \a policy ("fail", "overwrite", "skip", "rename",
 * "ask"), for logs and configuration.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray conflictPolicyName(ConflictPolicy policy);

/*!
 * The policy named \a name (see conflictPolicyName()); \a ok (may be null) tells
 * whether the name was known. Unknown names give ConflictPolicy::Fail.
 * \since 0.1
 */
QVFSPROTO_EXPORT ConflictPolicy conflictPolicyFromName(QByteArrayView name, bool *ok = nullptr);

/*!
 * The stable, untranslated name of \a action ("overwrite", "skip", "rename",
 * "cancel"), for logs and machine-readable output.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray conflictActionName(ConflictAction action);

/*!
 * The action named \a name (see conflictActionName()); \a ok (may be null) tells
 * whether the name was known. Unknown names give ConflictAction::Cancel.
 * \since 0.1
 */
QVFSPROTO_EXPORT ConflictAction conflictActionFromName(QByteArrayView name, bool *ok = nullptr);

/*!
 * How many candidates freeNameCandidate() offers before a caller gives up.
 * \since 0.1
 */
constexpr int MaxFreeNameAttempts = 10000;

/*!
 * The free-name rule of ConflictPolicy::Rename: candidate number \a attempt (from 0)
 * for a copy of \a name (raw bytes) that must not replace an existing entry.
 *
 * "report.txt" gives "report (1).txt", "report (2).txt", ...; a name already ending in
 * " (N)" goes on from N + 1 ("report (3).txt" gives "report (4).txt"), and a folder (\a
 * isDirectory) keeps no extension ("photos.2024" gives "photos.2024 (1)"). Only a short
 * last extension counts as one (at most 31 bytes, not a leading dot). Every candidate
 * is at most 255 bytes: the base is shortened, never inside a UTF-8 sequence.
 * \return an empty array for an empty \a name or when \a attempt is outside
 *         [0, MaxFreeNameAttempts).
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray freeNameCandidate(QByteArrayView name, bool isDirectory, int attempt);

/*!
 * The permission bits a copy gives its destination when the source is on another host
 * (sftp, WebDAV, ... copied to local files): the source's owner is not the copy's, so its
 * setuid, setgid and sticky bits are dropped and \a umask (the process's) is applied, as
 * coreutils' cp does for a copy whose owner it does not keep. A server listing 04755
 * gives 0755 under a 022 umask, 0777 gives 0755. -1 (unknown) stays -1.
 * \since 0.1
 */
QVFSPROTO_EXPORT int foreignCopyMode(int mode, int umask);

} // namespace Qvfs

#endif
