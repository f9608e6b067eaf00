// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_COPYJOB_P_H
#define QVFS_COPYJOB_P_H

#include "compositejob_p.h"
#include "copyjob.h"
#include "copyrules.h"
#include "entry.h"
#include "listjob.h"
#include "protocol.h"
#include "umask_p.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QPointer>
#include <QSet>

#include <functional>

namespace Qvfs
{

class SimpleJob;

namespace Internal
{
class FileTransfer;
}

/*!
 * The states of a copy, in the order it goes through them; enter() is the one place
 * that changes the state. Each state works on the sources the earlier ones left:
 *
 * - StatingDestination: is the destination an existing folder (then sources go into
 *   it)? Skipped when nothing needs to know (a copy done by one worker decides itself),
 *   until that worker refuses the copy: then the plan needs it, and it comes before
 *   CopyingByPlan. A local folder found here, or the folder above a local destination
 *   that is not there yet (or is given by its new name), is remembered with its identity
 *   for the writes into it (folderIdentities).
 * - Renaming: a move whose source is on the destination's host, with a worker that
 *   declares "rename": each such source is renamed; a rename the worker cannot do
 *   (another filesystem, a destination in the way) leaves it to the next states.
 * - CopyingInWorker: sources on the destination's host, with a worker that declares
 *   "copy": one request copies (or moves) them all inside the worker.
 * - CopyingByPlan: every remaining source is stated and checked (a folder into itself,
 *   a file onto itself) before anything is written; then each, if a folder, is listed
 *   recursively: the copy plan (items), which
 *   is carried out as it arrives, in the listing's order — each folder made (parents come
 *   first in a listing) before what comes after it, files and symlinks several at a
 *   time, each by the remote worker itself (copyToFile / copyFromFile) or streamed
 *   get → put. The plan is never held whole: the listing is suspended while more than
 *   PlanHighWater entries wait, and what was carried out is dropped, so a tree of any
 *   size copies in bounded memory and its first file is written while it is still
 *   being listed. A folder skipped or renamed on a conflict takes what comes below it
 *   along (skippedFolders, renamedFolders).
 * - SettingFolderAttributes: mode and time of each folder the job created, deepest
 *   first, checked to be that very folder.
 * - DeletingSources: a move deletes the sources that were copied (not skipped ones).
 * - Done.
 */
enum class CopyState {
    Starting,
    StatingDestination,
    Renaming,
    CopyingInWorker,
    CopyingByPlan,
    SettingFolderAttributes,
    DeletingSources,
    Done,
};

/*! One entry of the copy plan (from the CopyingByPlan state's listings). */
struct CopyItem
{
    QUrl src;
    QUrl dst;
    FileType type = FileType::Unknown;
    QByteArray linkTarget;
    qint64 size = 0;
    qint64 mtime = -1;
    qint64 mtimeNs = 0;
    int mode = -1;
    FileIdentity identity; // the source's, when its protocol tells
    bool root = false; // one of the sources itself
    qsizetype seq = -1; // its place in the plan: conflicts are resolved in this order
};

/*! A folder this job created, for its attributes at the end. */
struct CreatedFolder
{
    CopyItem item;
    FileIdentity identity; // the destination folder's, when its protocol tells
};

class CopyJobPrivate : public CompositeJobPrivate
{
public:
    Q_DECLARE_PUBLIC(CopyJob)

    // ---- what was asked ----
    QList<QUrl> sources;
    QUrl dest;
    bool as = false; // the one source becomes dest itself
    bool isMove = false;
    bool preserve = true;
    ConflictPolicy policy = ConflictPolicy::Fail;

    // ---- where it is ----
    CopyState state = CopyState::Starting;
    bool destIsDir = false;
    bool destinationStated = false; // StatingDestination ran
    CopyState afterDestination = CopyState::Renaming; // where StatingDestination goes on
    QList<QUrl> pending; // sources no strategy has taken yet
    Protocol destProtocol;

    // ---- the plan (CopyingByPlan), carried out as it arrives ----
    QList<CopyItem> items; // waiting from nextItem on; what came before is dropped now and then
    qsizetype nextItem = 0;
    qsizetype nextSeq = 0; // the plan order of the next item that arrives
    qsizetype nextSource = 0;
    QList<CopyItem> checkedSources; // every source is checked before anything is written
    bool planComplete = false; // every source stated and listed
    bool folderBusy = false; // a folder of the plan is being made (what comes after it waits)
    QPointer<ListJob> listing; // the source being listed (held back while too much waits)
    QSet<QUrl> skippedFolders; // normalized destinations of folders skipped: what comes below goes too
    QHash<QUrl, QUrl> renamedFolders; // normalized destination of a folder renamed -> its new one
    QList<CreatedFolder> created;
    // Normalized URL of a folder this job writes into -> its identity: the destination
    // folder as first stated, each folder made here or merged into. Every write below one
    // checks it (expectedParent), so a folder swapped for a symlink meanwhile is refused.
    QHash<QUrl, FileIdentity> folderIdentities;
    const int processMask = int(processUmask()); // for foreignCopyMode(), read once per job
    QList<Internal::FileTransfer *> transfers; // in flight
    int itemsInFlight = 0; // transfers and symlinks being made
    bool toFileRefused = false; // a worker answered ErrUnsupportedAction to copyToFile
    bool fromFileRefused = false;
    QSet<qsizetype> activeItems; // files and links started, not done
    QMap<qsizetype, std::function<void()>> heldConflicts; // resolved in plan order, one question at a time
    bool askingConflict = false;
    QList<QUrl> skippedSources; // a move never deletes these
    qint64 skippedCount = 0;

    // ---- progress: what workers copied inside themselves plus the plan's part ----
    std::array<qint64, 3> workerTotal { { 0, 0, 0 } };
    std::array<qint64, 3> workerDone { { 0, 0, 0 } };
    std::array<qint64, 3> planTotal { { 0, 0, 0 } };
    std::array<qint64, 3> planDone { { 0, 0, 0 } };
    qint64 workerSkipped = 0;

    static CopyJob *create(const QList<QUrl> &sources, const QUrl &dest, bool as, bool move);

    void start() override;
    void abort() override;
    void suspendWork(bool suspend) override;
    /*! Moves to \a next and does what it starts with. */
    void enter(CopyState next);

    // Renaming, CopyingInWorker (copyjob.cpp)
    QUrl destinationFor(const QUrl &src) const;
    bool onDestinationHost(const QUrl &src) const;
    void renameNext(qsizetype index);
    void copyInWorker();
    void requestProgress(const Internal::Progress &progress) override;
    void requestItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) override;
    void onFinished(const MetaData &results) override;
    void onFailed(int code, const QStringList &args) override;
    void updateProgress();

    // CopyingByPlan: the plan's sources and listings (copyplan.cpp)
    void statNextSource();
    void checkTarget(const Entry &srcEntry, const QUrl &src, const QUrl &dst);
    void checkCycle(const Entry &srcEntry, const QUrl &src, const QUrl &dst, const QUrl &ancestor, int steps);
    /*! \a src passed the checks: it joins the plan once every source did. */
    void acceptSource(const Entry &srcEntry, const QUrl &src, const QUrl &dst);
    /*! The next checked source into the plan (a folder: listed as the plan goes). */
    void expandNextSource();
    /*! Appends \a item to the plan, in plan order, counted in the totals as found. */
    void addToPlan(CopyItem item);
    /*! Lets a listing held back go on once little of the plan waits. */
    void releaseListing();
    CopyItem itemOf(const Entry &e, const QUrl &src, const QUrl &dst, bool root) const;
    /*! The identity (device, inode) a stat or listing gave, invalid without one. */
    static FileIdentity identityOf(const Entry &e);
    /*! Remembers \a e as the folder at \a dst that writes below must find (a real folder only). */
    void rememberFolder(const QUrl &dst, const Entry &e);
    /*! StatingDestination for a destination not there yet: its folder's identity, then on. */
    void stateFolderOfDestination();
    /*! Whether the destination's protocol can store \a name (raw bytes). */
    bool destinationCanName(QByteArrayView name) const;

    // CopyingByPlan: carrying the plan out; SettingFolderAttributes, DeletingSources (copytransfer.cpp)
    /*! Starts what of the plan can start now (in order), and ends CopyingByPlan when all is done. */
    void carryOut();
    /*! Applies the decisions on folders above \a item (skipped, renamed); false: it goes too. */
    bool followFolderDecisions(CopyItem &item);
    /*! A folder of the plan is made, merged into, skipped or renamed: what comes after it may go. */
    void folderDone();
    void createFolder(const CopyItem &item);
    /*! The identity of \a dst's folder when this job created it (what is written there checks it). */
    FileIdentity parentIdentityOf(const QUrl &dst) const;
    void startItem(const CopyItem &item, bool overwrite);
    void startSymlink(const CopyItem &item, bool overwrite);
    void startTransfer(const CopyItem &item, bool overwrite, bool streamOnly);
    void itemDone(const CopyItem &item);
    void itemEnded(const CopyItem &item);
    void conflict(const CopyItem &item, int code, const QStringList &args,
        const std::function<void(const CopyItem &, bool)> &retry);
    void resolveConflict(const CopyItem &item, int code, const QStringList &args,
        const std::function<void(const CopyItem &, bool)> &retry);
    void releaseConflicts();
    void decideConflict(const CopyItem &item, ConflictPolicy chosen, bool answered, int code, const QStringList &args,
        const std::function<void(const CopyItem &, bool)> &retry);
    void askConflict(const CopyItem &item, const std::function<void(const CopyItem &, bool)> &retry);
    void skip(const CopyItem &item);
    void leaveOutOfTotals(const CopyItem &item);
    std::optional<ConflictPolicy> answeredPolicy(const MetaData &answer, const QUrl &dst);
    void folderConflict(const CopyItem &item, ConflictPolicy chosen, CopyTarget target, bool answered);
    void skipFolder(const CopyItem &item);
    /*! A file of the plan cannot be read: asked about (skip, retry, cancel), skipped unanswered. */
    void unreadable(const CopyItem &item, int code, const QStringList &args, const std::function<void()> &retry);
    /*! Also keeps a move from deleting what was left out. */
    void recordLeftOut(const QUrl &url, int error) override;
    void withFreeName(const CopyItem &item, int attempt, const std::function<void(const CopyItem &)> &then);
    void setFolderAttributes();
    /*!
     * Runs \a job, which sets an attribute of a copy (its time, its mode), then \a then:
     * also when the protocol cannot set it (ErrUnsupportedAction: the copy keeps its own).
     */
    void setAttribute(SimpleJob *job, std::function<void()> then);
    void setTime(const QUrl &url, const CopyItem &item, const FileIdentity &identity, std::function<void()> then);
    void deleteSources();
};

} // namespace Qvfs

#endif
