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
 * Rename: the policy then applies to each entry inside. copyrules.h has the decision table
 * (decideCopy()) and the free-name rule.
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

} // namespace Qvfs

#endif
