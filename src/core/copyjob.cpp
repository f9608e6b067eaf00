// SPDX-License-Identifier: LGPL-2.1-or-later
// CopyJob: the public class, the states and the strategies that need no plan (rename,
// a copy inside one worker). The plan and its execution are in copyplan.cpp and
// copytransfer.cpp.
#include "changenotifier_p.h"
#include "copyjob_p.h"
#include "error.h"
#include "filetransfer_p.h"
#include "keys_p.h"
#include "simplejob.h"
#include "statjob.h"
#include "url.h"
#include "urlidentity.h"

#include <QMetaMethod>

namespace Qvfs
{

CopyJob *CopyJobPrivate::create(const QList<QUrl> &sources, const QUrl &dest, bool as, bool move)
{
    auto *d = new CopyJobPrivate;
    d->sources = sources;
    d->dest = dest;
    d->as = as;
    d->isMove = move;
    return new CopyJob(*d);
}

void CopyJobPrivate::start()
{
    if (sources.isEmpty()) {
        emitResult();
        return;
    }
    if (as && sources.size() != 1) {
        emitResult(ErrUnsupportedAction, { dest.toString() });
        return;
    }
    destProtocol = Protocol::find(dest.scheme());
    pending = sources;
    // Whether the destination is a folder matters to renames and to plans; a copy done
    // by one worker decides it itself.
    bool needDestination = false;
    for (const QUrl &s : std::as_const(sources)) {
        const bool inWorker = onDestinationHost(s) && destProtocol.hasCapability(Protocol::Copy);
        const bool renames = isMove && onDestinationHost(s) && destProtocol.hasCapability(Protocol::Rename);
        needDestination = needDestination || renames || !inWorker;
    }
    // A local destination given by its new name still has a folder to hold the writes to.
    const bool stateDestination = needDestination && (!as || Url::isLocalFile(dest));
    enter(stateDestination ? CopyState::StatingDestination : CopyState::Renaming);
}

void CopyJobPrivate::stateFolderOfDestination()
{
    // A destination that is not there yet (or is given by its new name) is made in the
    // folder above it: a local one is held to the identity found here as well, so a
    // folder swapped for a symlink before the first write is refused there too.
    const QUrl parent = Url::parent(dest);
    if (!Url::isLocalFile(dest) || Url::normalized(parent) == Url::normalized(dest)) {
        enter(afterDestination);
        return;
    }
    addSubjob<StatJob>(
        Qvfs::stat(parent, DetailBasic | DetailInode | DetailResolveSymlink),
        [this, parent](StatJob *job) {
            rememberFolder(parent, job->statResult());
            enter(afterDestination);
        },
        [this](StatJob *) {
            enter(afterDestination); // the copy meets it, and says what is wrong
            return true;
        });
}

void CopyJobPrivate::enter(CopyState next)
{
    if (finished)
        return;
    state = next;
    switch (state) {
    case CopyState::Starting:
        return;
    case CopyState::StatingDestination: {
        destinationStated = true;
        if (as) {
            stateFolderOfDestination();
            return;
        }
        // A symlink to a folder counts as the folder, as with cp.
        addSubjob<StatJob>(
            Qvfs::stat(dest, DetailBasic | DetailInode | DetailResolveSymlink),
            [this](StatJob *job) {
                destIsDir = job->statResult().isDir();
                rememberFolder(dest, job->statResult());
                enter(afterDestination);
            },
            [this](StatJob *job) {
                if (job->error() != ErrDoesNotExist)
                    return false;
                stateFolderOfDestination();
                return true;
            });
        return;
    }
    case CopyState::Renaming:
        if (isMove && destProtocol.hasCapability(Protocol::Rename))
            renameNext(0);
        else
            enter(CopyState::CopyingInWorker);
        return;
    case CopyState::CopyingInWorker:
        copyInWorker();
        return;
    case CopyState::CopyingByPlan:
        nextSource = 0;
        statNextSource();
        return;
    case CopyState::SettingFolderAttributes:
        setFolderAttributes();
        return;
    case CopyState::DeletingSources:
        deleteSources();
        return;
    case CopyState::Done:
        emitResult();
        return;
    }
}

QUrl CopyJobPrivate::destinationFor(const QUrl &src) const
{
    return destIsDir && !as ? Url::child(dest, Url::fileName(src)) : dest;
}

bool CopyJobPrivate::onDestinationHost(const QUrl &src) const
{
    return Url::schedulerKey(src) == Url::schedulerKey(dest);
}

void CopyJobPrivate::abort()
{
    CompositeJobPrivate::abort();
    const QList<Internal::FileTransfer *> running = std::exchange(transfers, {});
    for (Internal::FileTransfer *t : running) {
        t->kill(); // the destination stays as it was
        t->deleteLater();
    }
}

void CopyJobPrivate::suspendWork(bool suspend)
{
    CompositeJobPrivate::suspendWork(suspend);
    for (Internal::FileTransfer *t : std::as_const(transfers))
        t->setSuspended(suspend);
}

// ---------------------------------------------------------------- Renaming

void CopyJobPrivate::renameNext(qsizetype index)
{
    Q_Q(CopyJob);
    while (index < pending.size() && !onDestinationHost(pending.at(index)))
        ++index;
    if (index >= pending.size()) {
        enter(CopyState::CopyingInWorker);
        return;
    }
    const QUrl src = pending.at(index);
    const QUrl dst = destinationFor(src);
    if (Url::isAncestorOrSame(src, dst) && Url::normalized(src) != Url::normalized(dst)) {
        fail(ErrCycle, { src.toString() });
        return;
    }
    addSubjob<SimpleJob>(
        Qvfs::rename(src, dst, policy == ConflictPolicy::Overwrite),
        [this, q, index, src, dst](SimpleJob *) {
            pending.removeAt(index);
            ++planDone[Job::Files];
            ++planTotal[Job::Files];
            updateProgress();
            Q_EMIT q->moved(q, src, dst);
            renameNext(index);
        },
        [this, index](SimpleJob *job) {
            // What a copy does better: another filesystem, something in the way (merged,
            // asked about or replaced by the copy), a worker that cannot.
            switch (job->error()) {
            case ErrUnsupportedAction:
            case ErrAlreadyExists:
            case ErrDirectoryNotEmpty:
            case ErrIsDirectory:
            case ErrIsNotDirectory:
            case ErrIdenticalFiles:
                renameNext(index + 1);
                return true;
            default:
                return false;
            }
        });
}

// ---------------------------------------------------------------- CopyingInWorker

void CopyJobPrivate::copyInWorker()
{
    Q_Q(CopyJob);
    CopyRequest r;
    if (destProtocol.hasCapability(Protocol::Copy)) {
        for (const QUrl &s : std::as_const(pending)) {
            if (onDestinationHost(s))
                r.sources.append(s);
        }
    }
    if (r.sources.isEmpty()) {
        enter(CopyState::CopyingByPlan);
        return;
    }
    r.destination = dest;
    r.target = as ? CopyRequest::Target::As : CopyRequest::Target::IntoIfFolder;
    r.move = isMove;
    r.preserve = preserve;
    r.conflict = policy;
    r.reportItems = q->isSignalConnected(QMetaMethod::fromSignal(&CopyJob::copying))
        || q->isSignalConnected(QMetaMethod::fromSignal(&CopyJob::copied))
        || q->isSignalConnected(QMetaMethod::fromSignal(&CopyJob::createdFolder))
        || q->isSignalConnected(QMetaMethod::fromSignal(&CopyJob::skipped))
        || q->isSignalConnected(QMetaMethod::fromSignal(&CopyJob::moved));
    request.set(r);
    request.start();
}

void CopyJobPrivate::requestProgress(const Internal::Progress &p)
{
    for (size_t u = 0; u < 3; ++u) {
        if (p.total[u] >= 0)
            workerTotal[u] = p.total[u];
        if (p.processed[u] >= 0)
            workerDone[u] = p.processed[u];
    }
    if (p.skipped >= 0)
        workerSkipped = p.skipped;
    updateProgress();
}

void CopyJobPrivate::requestItem(CopyItemEvent event, const QUrl &source, const QUrl &destination)
{
    Q_Q(CopyJob);
    switch (event) {
    case CopyItemEvent::Copying:
        Q_EMIT q->copying(q, source, destination);
        return;
    case CopyItemEvent::Copied:
        Q_EMIT q->copied(q, source, destination);
        return;
    case CopyItemEvent::CreatedFolder:
        Q_EMIT q->createdFolder(q, destination);
        return;
    case CopyItemEvent::Skipped:
        Q_EMIT q->skipped(q, source, destination);
        return;
    case CopyItemEvent::Moved:
        Q_EMIT q->moved(q, source, destination);
        return;
    }
}

void CopyJobPrivate::onFinished(const MetaData &)
{
    // The copy inside the worker: listers of the destination look at what it made. (The
    // other strategies run jobs that publish their own changes.)
    Internal::publishResult(request.command(), {});
    // The worker did these; what is left (other hosts) goes by plan.
    QList<QUrl> left;
    for (const QUrl &s : std::as_const(pending)) {
        if (!onDestinationHost(s))
            left.append(s);
    }
    pending = left;
    skippedCount += workerSkipped;
    enter(CopyState::CopyingByPlan);
}

void CopyJobPrivate::onFailed(int code, const QStringList &args)
{
    if (code == ErrUnsupportedAction && state == CopyState::CopyingInWorker) {
        // The worker cannot copy these after all: they go by plan, file by file, and the
        // plan needs to know whether the destination is a folder to go into (a WebDAV
        // folder merged into DST/tree went beside it, into DST, before).
        workerTotal = workerDone = { { 0, 0, 0 } };
        updateProgress();
        if (!destinationStated && (!as || Url::isLocalFile(dest))) {
            afterDestination = CopyState::CopyingByPlan;
            enter(CopyState::StatingDestination);
            return;
        }
        enter(CopyState::CopyingByPlan);
        return;
    }
    emitResult(code, args);
}

void CopyJobPrivate::updateProgress()
{
    for (int u = 0; u < 3; ++u) {
        const size_t i = size_t(u);
        setTotal(Job::Unit(u), workerTotal[i] + planTotal[i]);
        setProcessed(Job::Unit(u), workerDone[i] + planDone[i]);
    }
}

// ---------------------------------------------------------------- CopyJob

CopyJob::CopyJob(CopyJobPrivate &dd)
    : Job(dd)
{ }

QList<QUrl> CopyJob::sources() const
{
    return d_func()->sources;
}

QUrl CopyJob::destination() const
{
    return d_func()->dest;
}

bool CopyJob::isMove() const
{
    return d_func()->isMove;
}

void CopyJob::setConflictPolicy(ConflictPolicy policy)
{
    d_func()->policy = policy;
}

ConflictPolicy CopyJob::conflictPolicy() const
{
    return d_func()->policy;
}

void CopyJob::setPreserve(bool preserve)
{
    d_func()->preserve = preserve;
}

bool CopyJob::preserve() const
{
    return d_func()->preserve;
}

qint64 CopyJob::skippedCount() const
{
    return d_func()->skippedCount;
}

CopyJob *copy(const QList<QUrl> &sources, const QUrl &dest)
{
    return CopyJobPrivate::create(sources, dest, false, false);
}

CopyJob *copy(const QUrl &src, const QUrl &dest)
{
    return CopyJobPrivate::create({ src }, dest, false, false);
}

CopyJob *copyAs(const QUrl &src, const QUrl &dest)
{
    return CopyJobPrivate::create({ src }, dest, true, false);
}

CopyJob *move(const QList<QUrl> &sources, const QUrl &dest)
{
    return CopyJobPrivate::create(sources, dest, false, true);
}

CopyJob *move(const QUrl &src, const QUrl &dest)
{
    return CopyJobPrivate::create({ src }, dest, false, true);
}

CopyJob *moveAs(const QUrl &src, const QUrl &dest)
{
    return CopyJobPrivate::create({ src }, dest, true, true);
}

} // namespace Qvfs
