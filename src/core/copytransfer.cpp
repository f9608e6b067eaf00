// SPDX-License-Identifier: LGPL-2.1-or-later
// CopyJob, the plan's execution (CopyingByPlan): folders made in plan order, files and
// links several at a time, each by the remote worker itself or streamed; conflicts;
// then SettingFolderAttributes and DeletingSources.
#include "copyjob_p.h"
#include "deletejob.h"
#include "error.h"
#include "filetransfer_p.h"
#include "keys_p.h"
#include "simplejob_p.h"
#include "statjob.h"
#include "url.h"
#include "url_p.h"
#include "urlidentity.h"

#include <algorithm>

namespace Qvfs
{

namespace
{
constexpr int MaxFilesInFlight = 4;

FileIdentity identityIn(const MetaData &results)
{
    FileIdentity id;
    if (results.isNumber(Internal::Keys::Inode) && results.isNumber(Internal::Keys::Device)) {
        id.device = results.number(Internal::Keys::Device);
        id.inode = results.number(Internal::Keys::Inode);
    }
    return id;
}
} // namespace

// ---------------------------------------------------------------- CopyingByPlan

void CopyJobPrivate::carryOut()
{
    // In plan order: a folder is made before anything after it starts (what is inside
    // it comes after it in a listing); files and links go several at a time.
    while (!finished && !folderBusy && nextItem < items.size()) {
        CopyItem &item = items[nextItem];
        if (!followFolderDecisions(item)) {
            ++nextItem; // below a folder skipped: it goes with it
            continue;
        }
        if (item.type == FileType::Directory) {
            folderBusy = true;
            const CopyItem folder = items.at(nextItem++);
            createFolder(folder);
            continue;
        }
        if (itemsInFlight >= MaxFilesInFlight)
            break;
        const CopyItem file = items.at(nextItem++);
        ++itemsInFlight;
        activeItems.insert(file.seq);
        startItem(file, policy == ConflictPolicy::Overwrite);
    }
    if (finished)
        return;
    if (nextItem >= 1024 && nextItem * 2 >= items.size()) {
        items.remove(0, nextItem); // carried out: never kept whole
        nextItem = 0;
    }
    releaseListing();
    if (planComplete && nextItem >= items.size() && itemsInFlight == 0 && !folderBusy)
        enter(CopyState::SettingFolderAttributes);
}

bool CopyJobPrivate::followFolderDecisions(CopyItem &item)
{
    if (item.root)
        return true;
    const QUrl parent = Url::normalized(Url::parent(item.dst));
    if (skippedFolders.contains(parent)) {
        if (item.type == FileType::Directory)
            skippedFolders.insert(Url::normalized(item.dst));
        else
            leaveOutOfTotals(item); // a skipped folder's content: its bytes leave the total
        return false;
    }
    const auto renamed = renamedFolders.constFind(parent);
    if (renamed != renamedFolders.constEnd()) {
        const QUrl old = item.dst;
        item.dst = Url::child(*renamed, Url::fileName(old));
        if (item.type == FileType::Directory)
            renamedFolders.insert(Url::normalized(old), item.dst);
    }
    return true;
}

void CopyJobPrivate::folderDone()
{
    folderBusy = false;
    carryOut();
}

FileIdentity CopyJobPrivate::parentIdentityOf(const QUrl &dst) const
{
    return folderIdentities.value(Url::normalized(Url::parent(dst)));
}

void CopyJobPrivate::createFolder(const CopyItem &item)
{
    Q_Q(CopyJob);
    // Its owner can fill it now; its exact mode comes at the end, after its content.
    const int mode = preserve && item.mode >= 0 ? (item.mode & 07777) | 0700 : -1;
    addSubjob<SimpleJob>(
        SimpleJobPrivate::create(MkdirRequest { item.dst, mode, false, parentIdentityOf(item.dst) }),
        [this, q, item](SimpleJob *job) {
            const FileIdentity identity = identityIn(job->metaData());
            created.append(CreatedFolder { item, identity });
            if (identity.isValid())
                folderIdentities.insert(Url::normalized(item.dst), identity);
            Q_EMIT q->createdFolder(q, item.dst);
            folderDone();
        },
        [this, item](SimpleJob *job) {
            if (job->error() != ErrAlreadyExists)
                return false;
            if (item.root && policy == ConflictPolicy::Rename) {
                withFreeName(item, 0, [this](const CopyItem &renamed) { createFolder(renamed); });
                return true;
            }
            // Merging into an existing folder is fine (its mode and time stay as they
            // were); anything else in the way, or Rename, is decided by copyrules.h.
            // (not followed: a symlink in the way is no folder to merge into)
            addSubjob<StatJob>(Qvfs::stat(item.dst, DetailBasic | DetailInode), [this, item](StatJob *st) {
                const CopyTarget target = st->statResult().isDir() ? CopyTarget::Folder : CopyTarget::Other;
                if (decideCopy(policy, true, target, false).action != CopyAction::Merge) {
                    folderConflict(item, policy, target, false);
                    return;
                }
                rememberFolder(item.dst, st->statResult());
                folderDone();
            });
            return true;
        });
}

std::optional<ConflictPolicy> CopyJobPrivate::answeredPolicy(const MetaData &answer, const QUrl &dst)
{
    // The policy a conflict answer stands for; none (the job failed) without an answer or
    // for Cancel.
    const ConflictAnswer a = Internal::decodeConflictAnswer(answer);
    const std::optional<ConflictPolicy> policy = a.answered ? policyForAnswer(a.action) : std::nullopt;
    if (!policy)
        fail(a.answered ? ErrCancelled : ErrNotAnswered, { dst.toString() });
    return policy;
}

void CopyJobPrivate::folderConflict(const CopyItem &item, ConflictPolicy chosen, CopyTarget target, bool answered)
{
    // Something is in the way of the folder item: copyrules.h's table decides.
    const CopyDecision d = decideCopy(chosen, true, target, false);
    switch (d.action) {
    case CopyAction::Skip:
        skipFolder(item);
        return;
    case CopyAction::Rename:
        withFreeName(item, 0, [this](const CopyItem &renamed) { createFolder(renamed); });
        return;
    case CopyAction::Ask:
        if (!answered) {
            askQuestion(Internal::encodeQuestion(ConflictQuestion { item.src, item.dst }),
                [this, item, target](const MetaData &m) {
                    if (const std::optional<ConflictPolicy> answer = answeredPolicy(m, item.dst))
                        folderConflict(item, *answer, target, true);
                });
            return;
        }
        break;
    case CopyAction::Fail:
        fail(d.error, { item.dst.toString() });
        return;
    case CopyAction::Merge: // merged by the caller, before any question
    case CopyAction::Create:
    case CopyAction::Replace:
        break;
    }
    fail(ErrAlreadyExists, { item.dst.toString() });
}

void CopyJobPrivate::skipFolder(const CopyItem &item)
{
    Q_Q(CopyJob);
    // The folder and everything of the plan below it (it comes after it) are left alone;
    // the file totals stay as found, their bytes leave the byte total as they come.
    skippedFolders.insert(Url::normalized(item.dst));
    skippedSources.append(item.src);
    ++skippedCount;
    Q_EMIT q->skipped(q, item.src, item.dst);
    folderDone();
}

// ---------------------------------------------------------------- files and links of the plan

void CopyJobPrivate::itemDone(const CopyItem &item)
{
    Q_Q(CopyJob);
    ++planDone[Job::Files];
    updateProgress();
    Q_EMIT q->copied(q, item.src, item.dst);
    itemEnded(item);
}

void CopyJobPrivate::itemEnded(const CopyItem &item)
{
    --itemsInFlight;
    activeItems.remove(item.seq);
    releaseConflicts(); // an earlier item is out of the way
    carryOut();
}

void CopyJobPrivate::startItem(const CopyItem &item, bool overwrite)
{
    Q_Q(CopyJob);
    switch (item.type) {
    case FileType::Symlink:
        Q_EMIT q->copying(q, item.src, item.dst);
        startSymlink(item, overwrite);
        return;
    case FileType::Regular:
    case FileType::Unknown:
        Q_EMIT q->copying(q, item.src, item.dst);
        startTransfer(item, overwrite, false);
        return;
    default:
        // Fifos, devices and sockets cannot travel as a stream of bytes.
        fail(ErrUnsupportedAction, { item.src.toString() });
        return;
    }
}

void CopyJobPrivate::startSymlink(const CopyItem &item, bool overwrite)
{
    addSubjob<SimpleJob>(
        SimpleJobPrivate::create(SymlinkRequest { item.linkTarget, item.dst, parentIdentityOf(item.dst) }),
        [this, item](SimpleJob *) { setTime(item.dst, item, {}, [this, item] { itemDone(item); }); },
        [this, item, overwrite](SimpleJob *job) {
            if (job->error() != ErrAlreadyExists)
                return false;
            if (overwrite) {
                // Replace what is there (the link itself, never through it), then link again.
                addSubjob<DeleteJob>(Qvfs::del(item.dst, DeleteScope::NoFolders),
                    [this, item](DeleteJob *) { startSymlink(item, false); });
                return true;
            }
            conflict(item, job->error(), job->errorArgs(),
                [this](const CopyItem &i, bool replace) { startSymlink(i, replace); });
            return true;
        });
}

void CopyJobPrivate::startTransfer(const CopyItem &item, bool overwrite, bool streamOnly)
{
    Q_Q(CopyJob);
    using Internal::FileTransfer;
    const Protocol srcProtocol = Protocol::find(item.src.scheme());
    FileTransfer::Route route = FileTransfer::Route::Stream;
    if (!streamOnly && Url::isLocalFile(item.dst) && !Url::isLocalFile(item.src) && !toFileRefused
        && srcProtocol.hasCapability(Protocol::CopyToFile))
        route = FileTransfer::Route::ToFile;
    else if (!streamOnly && Url::isLocalFile(item.src) && !Url::isLocalFile(item.dst) && !fromFileRefused
        && destProtocol.hasCapability(Protocol::CopyFromFile))
        route = FileTransfer::Route::FromFile;

    FileTransfer::Spec spec;
    spec.source = item.src;
    spec.destination = item.dst;
    spec.expected = item.identity;
    spec.expectedParent = parentIdentityOf(item.dst);
    spec.permissions = preserve ? item.mode : -1;
    spec.overwrite = overwrite;
    spec.size = item.size;
    if (preserve && item.mtime >= 0) {
        spec.mtime = item.mtime;
        spec.mtimeNs = item.mtimeNs;
    }
    auto *t = new FileTransfer(spec, route, askDelegate, q);
    transfers.append(t);
    auto base = std::make_shared<qint64>(0);
    QObject::connect(t, &FileTransfer::progressed, q, [this, base](qint64 bytes) {
        planDone[Job::Bytes] += bytes - *base;
        *base = bytes;
        updateProgress();
    });
    QObject::connect(
        t, &FileTransfer::finished, q, [this, t, item, base, route, overwrite](int code, const QStringList &args) {
            transfers.removeOne(t);
            t->deleteLater();
            if (code == NoError) {
                // Count what the progress reports did not (a worker that reports no bytes).
                planDone[Job::Bytes] += qMax<qint64>(item.size, 0) - *base;
                itemDone(item);
                return;
            }
            planDone[Job::Bytes] -= *base; // this file starts over, or the job ends
            updateProgress();
            if (code == ErrUnsupportedAction && route != Internal::FileTransfer::Route::Stream) {
                // The worker cannot do it itself after all: stream this file and the rest.
                (route == Internal::FileTransfer::Route::ToFile ? toFileRefused : fromFileRefused) = true;
                startTransfer(item, policy == ConflictPolicy::Overwrite, true);
                return;
            }
            if (code == ErrAlreadyExists) {
                conflict(
                    item, code, args, [this](const CopyItem &i, bool replace) { startTransfer(i, replace, false); });
                return;
            }
            if (!item.root && (code == ErrAccessDenied || code == ErrCannotRead)
                && args.value(0) == QString::fromLatin1(item.src.toEncoded())) {
                // Inside a tree, a file that cannot be read is left out, not the end of the copy.
                unreadable(item, code, args, [this, item, overwrite] { startTransfer(item, overwrite, false); });
                return;
            }
            fail(code, args);
        });
    t->setSuspended(isSuspended);
    t->start();
}

// ---------------------------------------------------------------- conflicts

void CopyJobPrivate::conflict(
    const CopyItem &item, int code, const QStringList &args, const std::function<void(const CopyItem &, bool)> &retry)
{
    // Several files are in flight, but conflicts are resolved (failed, asked about) in
    // the plan's order, so the same copy always stops at, or asks first about, the same file.
    heldConflicts.insert(item.seq, [this, item, code, args, retry] { resolveConflict(item, code, args, retry); });
    releaseConflicts();
}

void CopyJobPrivate::releaseConflicts()
{
    while (!finished && !askingConflict && !heldConflicts.isEmpty()) {
        const qsizetype first = heldConflicts.firstKey();
        for (const qsizetype seq : std::as_const(activeItems)) {
            if (seq < first && !heldConflicts.contains(seq))
                return; // an earlier file may still conflict
        }
        heldConflicts.take(first)();
    }
}

void CopyJobPrivate::resolveConflict(
    const CopyItem &item, int code, const QStringList &args, const std::function<void(const CopyItem &, bool)> &retry)
{
    decideConflict(item, policy, false, code, args, retry);
}

void CopyJobPrivate::decideConflict(const CopyItem &item, ConflictPolicy chosen, bool answered, int code,
    const QStringList &args, const std::function<void(const CopyItem &, bool)> &retry)
{
    // A file or link is in the way (a folder in the way of a folder was merged when the
    // folders were made); the table of copyrules.h says what \a chosen does with it.
    switch (decideCopy(chosen, false, CopyTarget::Other, false).action) {
    case CopyAction::Skip:
        skip(item);
        return;
    case CopyAction::Rename:
        withFreeName(item, 0, [retry](const CopyItem &renamed) { retry(renamed, false); });
        return;
    case CopyAction::Ask:
        askConflict(item, retry);
        return;
    case CopyAction::Replace:
        if (answered) {
            retry(item, true);
            return;
        }
        break; // the job's Overwrite was tried: what is in the way cannot be replaced
    case CopyAction::Create:
    case CopyAction::Merge:
    case CopyAction::Fail:
        break;
    }
    fail(code, args);
}

void CopyJobPrivate::askConflict(const CopyItem &item, const std::function<void(const CopyItem &, bool)> &retry)
{
    // One question at a time (releaseConflicts() waits for the answer); an "apply to
    // all" answer answers the later ones.
    askingConflict = true;
    askQuestion(
        Internal::encodeQuestion(ConflictQuestion { item.src, item.dst }), [this, item, retry](const MetaData &m) {
            askingConflict = false;
            const std::optional<ConflictPolicy> answer = answeredPolicy(m, item.dst);
            if (!answer)
                return;
            decideConflict(item, *answer, true, ErrAlreadyExists, { item.dst.toString() }, retry);
            releaseConflicts();
        });
}

void CopyJobPrivate::unreadable(
    const CopyItem &item, int code, const QStringList &args, const std::function<void()> &retry)
{
    askQuestion(Internal::encodeQuestion(UnreadableQuestion { item.src, code }), [=](const MetaData &m) {
        const UnreadableAnswer a = Internal::decodeUnreadableAnswer(m);
        if (a.answered && a.action == UnreadableAction::Cancel) {
            fail(ErrCancelled, args);
            return;
        }
        if (a.answered && a.action == UnreadableAction::Retry) {
            retry();
            return;
        }
        recordLeftOut(item.src, code);
        leaveOutOfTotals(item);
        itemEnded(item);
    });
}

void CopyJobPrivate::recordLeftOut(const QUrl &url, int error)
{
    skippedSources.append(url);
    CompositeJobPrivate::recordLeftOut(url, error);
}

void CopyJobPrivate::skip(const CopyItem &item)
{
    Q_Q(CopyJob);
    skippedSources.append(item.src);
    ++skippedCount;
    leaveOutOfTotals(item);
    Q_EMIT q->skipped(q, item.src, item.dst);
    itemEnded(item);
}

void CopyJobPrivate::leaveOutOfTotals(const CopyItem &item)
{
    // The skip accounting rule: the file total stays as found, the bytes leave.
    CopyAmounts amounts;
    amounts.totalBytes = planTotal[Job::Bytes];
    amounts.leaveOut(item.size);
    planTotal[Job::Bytes] = amounts.totalBytes;
    updateProgress();
}

void CopyJobPrivate::withFreeName(const CopyItem &item, int attempt, const std::function<void(const CopyItem &)> &then)
{
    // The first free "name (N).ext" (copyrules.h has the rule).
    const QByteArray name = freeNameCandidate(Url::fileName(item.dst), item.type == FileType::Directory, attempt);
    if (name.isEmpty()) {
        fail(ErrAlreadyExists, { item.dst.toString() });
        return;
    }
    CopyItem renamed = item;
    renamed.dst = Url::child(Url::parent(item.dst), name);
    addSubjob<StatJob>(
        Qvfs::stat(renamed.dst, DetailBasic),
        [this, item, attempt, then](StatJob *) { withFreeName(item, attempt + 1, then); },
        [this, item, renamed, then](StatJob *job) {
            if (job->error() != ErrDoesNotExist)
                return false;
            if (item.type == FileType::Directory) // everything below it moves with it
                renamedFolders.insert(Url::normalized(item.dst), renamed.dst);
            then(renamed);
            return true;
        });
}

// ---------------------------------------------------------------- SettingFolderAttributes

void CopyJobPrivate::setAttribute(SimpleJob *job, std::function<void()> then)
{
    addSubjob<SimpleJob>(
        job, [then](SimpleJob *) { then(); },
        [then](SimpleJob *failed) {
            if (failed->error() != ErrUnsupportedAction)
                return false;
            then();
            return true;
        });
}

void CopyJobPrivate::setTime(
    const QUrl &url, const CopyItem &item, const FileIdentity &identity, std::function<void()> then)
{
    if (!preserve || item.mtime < 0) {
        then();
        return;
    }
    setAttribute(SimpleJobPrivate::create(SetTimeRequest { url, item.mtime, item.mtimeNs, identity }), then);
}

void CopyJobPrivate::setFolderAttributes()
{
    // Deepest first: a folder's time is set after everything inside it was written.
    if (created.isEmpty() || !preserve) {
        enter(isMove ? CopyState::DeletingSources : CopyState::Done);
        return;
    }
    const CreatedFolder f = created.takeLast();
    const auto time = [this, f] { setTime(f.item.dst, f.item, f.identity, [this] { setFolderAttributes(); }); };
    if (f.item.mode < 0) {
        time();
        return;
    }
    // On the very folder the job made: the worker refuses a symlink or another folder
    // swapped in meanwhile (ErrSourceChanged), instead of changing what it points to.
    setAttribute(SimpleJobPrivate::create(ChmodRequest { f.item.dst, f.item.mode & 07777, f.identity }), time);
}

// ---------------------------------------------------------------- DeletingSources

void CopyJobPrivate::deleteSources()
{
    // Everything is copied: now the sources may go, but never one with a part that was
    // skipped (its destination kept what it had, so the source is the only copy).
    QList<QUrl> done;
    for (const QUrl &src : std::as_const(pending)) {
        const bool partlySkipped = std::any_of(skippedSources.cbegin(), skippedSources.cend(),
            [&src](const QUrl &s) { return Url::isAncestorOrSame(src, s); });
        if (!partlySkipped)
            done.append(src);
    }
    if (done.isEmpty()) {
        enter(CopyState::Done);
        return;
    }
    addSubjob<DeleteJob>(Qvfs::del(done), [this](DeleteJob *) { enter(CopyState::Done); });
}

} // namespace Qvfs
