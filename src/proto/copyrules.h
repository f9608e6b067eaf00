// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_COPYRULES_H
#define QVFS_COPYRULES_H

#include "conflict.h"
#include "questions.h"
#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>

#include <functional>
#include <optional>

class QUrl;

namespace Qvfs
{

/*!
 * \file copyrules.h
 * The rules of a copy or a move, written once: the copy job's generic path and every
 * worker that copies inside itself (file, sftp, WebDAV) decide with these functions, so a
 * conflict, a skip, a free name or a temporary file means the same on every protocol.
 */

/*!
 * What a copy does with one source entry at its destination.
 * \since 0.1
 */
enum class CopyAction : quint8 {
    Create, //!< nothing is there: make the entry
    Replace, //!< replace what is there (a file or link by a file or link), atomically
    Merge, //!< a folder onto a folder: copy the content into it, one entry at a time
    Skip, //!< leave the destination alone and this source uncopied
    Rename, //!< copy under the first free name (see freeNameCandidate())
    Ask, //!< ask the job's delegate, then decide again with policyForAnswer()
    Fail, //!< stop: CopyDecision::error says why
};

/*!
 * What is at a copy's destination, as far as deciding goes.
 * \since 0.1
 */
enum class CopyTarget : quint8 {
    Absent, //!< nothing
    Folder, //!< a folder (not a link to one: a link is Other)
    Other, //!< a file, a link or a special file
};

/*!
 * The outcome of decideCopy().
 * \since 0.1
 */
struct CopyDecision
{
    CopyAction action = CopyAction::Fail;
    int error = 0; //!< with CopyAction::Fail: ErrAlreadyExists, ErrIdenticalFiles, ErrIsDirectory or ErrIsNotDirectory
};

/*!
 * The decision table of a copy: what a source (a folder when \a sourceIsFolder) does at a
 * destination holding \a target under \a policy. \a identical says the destination is the
 * source itself (the same URL, or the same file under another name).
 *
 * - nothing there: Create;
 * - a folder onto a different folder: Merge, whatever the policy but Rename;
 * - the source onto itself: Fail with ErrIdenticalFiles, unless the policy is Rename;
 * - otherwise by \a policy: Fail (ErrAlreadyExists), Skip, Rename, Ask, or Replace for
 *   Overwrite, which cannot replace a file by a folder (Fail, ErrIsNotDirectory) nor a
 *   folder by a file (Fail, ErrIsDirectory).
 * \since 0.1
 */
QVFSPROTO_EXPORT CopyDecision decideCopy(ConflictPolicy policy, bool sourceIsFolder, CopyTarget target, bool identical);

/*!
 * The policy an answer to a conflict question stands for: decideCopy() with it gives what
 * to do with that entry, and an answer "for all" makes it the policy of the rest of the
 * copy. Cancel stands for none (the copy ends with ErrCancelled).
 * \since 0.1
 */
QVFSPROTO_EXPORT std::optional<ConflictPolicy> policyForAnswer(ConflictAction action);

/*!
 * decideCopy() by \a *policy, asking \a ask when the table says Ask and deciding again
 * with the policy the answer stands for; an answer "for all" becomes \a *policy. Never
 * gives Ask: no answer gives Fail with ErrNotAnswered, Cancel Fail with ErrCancelled. The
 * synchronous copies (the workers') decide with it.
 * \since 0.1
 */
QVFSPROTO_EXPORT CopyDecision decideCopyAsking(ConflictPolicy *policy, bool sourceIsFolder, CopyTarget target,
    bool identical, const std::function<ConflictAnswer()> &ask);

/*!
 * The amounts of a copy, as found by counting and as processed; the skip accounting rule,
 * as KIO counts it. File and folder totals stay as found. An entry left alone (skipped by
 * a policy or an answer, or left out because it cannot be read) is never counted as
 * processed; its bytes, with those of everything inside a skipped folder, leave the byte
 * total, so the processed bytes still reach the total and Job::percent() reaches 100.
 * \since 0.1
 */
struct QVFSPROTO_EXPORT CopyAmounts
{
    qint64 totalBytes = 0; //!< counted (0 while nothing was counted)
    qint64 totalFiles = 0; //!< counted: files, links and special files
    qint64 totalFolders = 0; //!< counted
    qint64 bytes = 0; //!< processed
    qint64 files = 0; //!< processed
    qint64 folders = 0; //!< processed
    qint64 skipped = 0; //!< entries skipped by a policy or an answer (a skipped folder is one)

    /*! Records an entry skipped by a policy or an answer, holding \a bytes (-1: unknown). */
    void skip(qint64 bytes);
    /*! Records an entry left out (not skipped by choice), holding \a bytes (-1: unknown). */
    void leaveOut(qint64 bytes);
};

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
 * What a probe of firstFreeName() found at a candidate name.
 * \since 0.1
 */
enum class NameProbe : quint8 {
    Free, //!< nothing there: take it
    Taken, //!< something there: try the next candidate
    Failed, //!< the probe itself failed: stop (the probe keeps its error)
};

/*!
 * The first candidate of freeNameCandidate() that \a probe finds free, trying at most
 * MaxFreeNameAttempts; empty when none was free or \a probe failed.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray firstFreeName(
    QByteArrayView name, bool isDirectory, const std::function<NameProbe(const QByteArray &candidate)> &probe);

/*!
 * The name of the temporary file a copy writes before it renames it to \a name:
 * ".<name>.qvfs-<tag>.part", hidden, in the destination's folder, at most 255 bytes (\a
 * name is shortened, never inside a UTF-8 sequence). \a tag (letters, digits and '-')
 * makes it unique; it may record who writes it (the local engine records its process).
 * Every temporary a Qvfs worker makes, local or on a server, is named by this rule, so
 * isTemporaryName() recognises them all.
 * \since 0.1
 */
QVFSPROTO_EXPORT QByteArray temporaryNameFor(QByteArrayView name, QByteArrayView tag);

/*!
 * Whether \a name is one temporaryNameFor() makes (or the ".qvfs-<tag>.part" of earlier
 * versions): a hidden name ending in ".part" with a ".qvfs-<tag>" before it. \a tag (may be
 * null) receives the tag.
 * \since 0.1
 */
QVFSPROTO_EXPORT bool isTemporaryName(QByteArrayView name, QByteArrayView *tag = nullptr);

/*!
 * The "same server" rule of a copy: whether \a a and \a b are served by one connection of
 * one worker (scheme, host without case, port with the scheme's default filled in by \a
 * defaultPort, user), so a copy between them can stay inside that worker.
 * \since 0.1
 */
QVFSPROTO_EXPORT bool isSameServer(const QUrl &a, const QUrl &b, int defaultPort = -1);

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
