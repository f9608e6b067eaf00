// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TREECOPY_H
#define QVFS_TREECOPY_H

#include "copybackend.h"
#include "copyrules.h"
#include "questions.h"
#include "qvfsworker_export.h"
#include "requests.h"
#include "workerbase.h"

#include <memory>

namespace Qvfs
{

/*!
 * What a TreeCopy tells and asks while it runs: WorkerBase's progress, item events,
 * conflict questions and kill. TreeCopy(WorkerBase &, ...) uses the worker's own; a test
 * implements it to watch and steer a copy in-process.
 * \since 0.1
 */
class QVFSWORKER_EXPORT CopyObserver
{
public:
    virtual ~CopyObserver();
    /*! As WorkerBase::setTotals(). */
    virtual void setTotals(qint64 bytes, qint64 files, qint64 folders) = 0;
    /*! As WorkerBase::setProcessed(). */
    virtual void setProcessed(qint64 bytes, qint64 files, qint64 folders) = 0;
    /*! As WorkerBase::setSkipped(). */
    virtual void setSkipped(qint64 count) = 0;
    /*! As WorkerBase::reportItem(). */
    virtual void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) = 0;
    /*! As WorkerBase::askConflict(). */
    virtual ConflictAnswer askConflict(const ConflictQuestion &question) = 0;
    /*! As WorkerBase::wasKilled(). */
    virtual bool wasKilled() = 0;
    /*! As WorkerBase::askUnreadable(); the default answers Skip, as nobody answering does. */
    virtual UnreadableAnswer askUnreadable(const UnreadableQuestion &question);
    /*! As WorkerBase::leftOut(); the default does nothing. */
    virtual void leftOut(const QUrl &url, int error);
};

class TreeCopyPrivate;

/*!
 * One CopyRequest carried out inside a worker, over the primitives of a CopyBackend:
 * the copy contract written once, for every worker that copies inside itself.
 *
 * It runs in stages (see Stage): it resolves the targets (As, Into, IntoIfFolder; a
 * folder into itself fails with ErrCycle before anything changes), counts the sources
 * when asked (CopyRequest::countFirst), copies entry by entry, finishes the folders it
 * made (attributes, deepest first), and for a move deletes the sources it copied.
 *
 * Each entry is decided by copyrules.h (decideCopyAsking()): a conflict is asked about
 * with apply-to-all, a rename takes firstFreeName(), a folder onto a folder is merged
 * entry by entry, and the skip accounting is CopyAmounts' (totals stay, a skipped entry's
 * bytes leave them, so percent reaches 100). A move renames at every level where nothing
 * is in the way (a file over a file too), so a move inside one server moves no data;
 * only what cannot be renamed is copied and deleted at the end (only what was copied: a
 * folder keeps what was left alone in it). A move counts a source it will most likely
 * rename whole as one entry (CopyBackend::renamesWhole()). Inside a copied tree an entry
 * that cannot be read is asked about (skip, skip all, retry, cancel) and left out,
 * reported with CopyObserver::leftOut(), and one deleted since it was listed is passed
 * over; a source itself that cannot be read ends the copy. A kill is noticed before each
 * entry and each folder counted (ErrCancelled). Item events (reportItem()) go out when
 * the request asks for them; totals lowered by skips go out at most ten times a second.
 * \since 0.1
 */
class QVFSWORKER_EXPORT TreeCopy
{
public:
    /*! The stages of a copy, in order. */
    enum class Stage : quint8 {
        ResolvingTargets, //!< stating the sources and the destination; nothing changes
        Counting, //!< counting what the sources hold (countFirst only)
        Copying, //!< copying, renaming and merging entry by entry
        FinishingFolders, //!< giving made folders their attributes, deepest first
        DeletingSources, //!< a move: deleting what was copied rather than renamed
        Done,
    };

    /*! A copy reporting to and asking through \a worker. */
    TreeCopy(WorkerBase &worker, CopyBackend &backend, const CopyRequest &request);
    /*! A copy reporting to and asking through \a observer (tests). */
    TreeCopy(CopyObserver &observer, CopyBackend &backend, const CopyRequest &request);
    ~TreeCopy();
    TreeCopy(const TreeCopy &) = delete;
    TreeCopy &operator=(const TreeCopy &) = delete;

    /*! Runs the copy once: the result for the worker's copy() hook. */
    WorkerResult run();

    /*! The stage the copy is in (Done once run() returned). */
    Stage stage() const;
    /*! The amounts so far: totals as counted (or found), processed and skipped. */
    const CopyAmounts &amounts() const;
    /*! Called whenever the stage changes (tests: cancelling at each stage). */
    void setStageHook(std::function<void(Stage)> hook);

private:
    std::unique_ptr<CopyObserver> m_observer; //!< the worker's, when made from one
    std::unique_ptr<TreeCopyPrivate> d;
};

} // namespace Qvfs

#endif
