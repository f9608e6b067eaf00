// SPDX-License-Identifier: LGPL-2.1-or-later
// CopyJob, state CopyingByPlan: the copy plan. Each source left by the other
// strategies is stated, checked (a folder into itself, a file onto itself, also through
// symlinks) and, when a folder, listed recursively into items, which copytransfer.cpp
// carries out as they arrive.
#include "copyjob_p.h"
#include "error.h"
#include "listjob.h"
#include "qvfs_debug.h"
#include "statjob.h"
#include "url.h"
#include "urlidentity.h"

#include <memory>
#include <utility>

namespace Qvfs
{

namespace
{
constexpr int MaxAncestorSteps = 64;
constexpr qsizetype NameMax = 255; // NAME_MAX of every local filesystem Qvfs writes to

// Whether a segment of the relative path \a name is longer than a local file name can be.
bool hasOverlongSegment(QByteArrayView name)
{
    qsizetype start = 0;
    for (;;) {
        const qsizetype slash = name.indexOf('/', start);
        const qsizetype end = slash < 0 ? name.size() : slash;
        if (end - start > NameMax)
            return true;
        if (slash < 0)
            return false;
        start = slash + 1;
    }
}
constexpr Details SourceDetails = DetailBasic | DetailTime | DetailInode;
} // namespace

FileIdentity CopyJobPrivate::identityOf(const Entry &e)
{
    FileIdentity id;
    if (e.contains(Inode) && e.contains(Device)) {
        id.inode = e.number(Inode);
        id.device = e.number(Device);
    }
    return id;
}

void CopyJobPrivate::rememberFolder(const QUrl &dst, const Entry &e)
{
    // A symlink the user named as the destination is followed (as cp does); only a real
    // folder has an identity to hold the writes to (they open it with O_NOFOLLOW).
    const FileIdentity id = identityOf(e);
    if (e.isDir() && e.bytes(LinkTarget).isEmpty() && id.isValid())
        folderIdentities.insert(Url::normalized(dst), id);
}

CopyItem CopyJobPrivate::itemOf(const Entry &e, const QUrl &src, const QUrl &dst, bool root) const
{
    CopyItem item;
    item.src = src;
    item.dst = dst;
    item.type = e.type();
    item.linkTarget = e.bytes(LinkTarget).toByteArray();
    item.size = e.size();
    item.mtime = e.number(MTime);
    item.mtimeNs = e.number(MTimeNs, 0);
    // A foreign source's owner is not the copy's: no setuid, setgid or sticky bit from it.
    const int mode = int(e.number(Mode));
    item.mode = Url::isLocalFile(src) ? mode : foreignCopyMode(mode, processMask);
    item.identity = identityOf(e);
    item.root = root;
    return item;
}

bool CopyJobPrivate::destinationCanName(QByteArrayView name) const
{
    return !destProtocol.namesAreUtf8() || name.isValidUtf8();
}

void CopyJobPrivate::statNextSource()
{
    if (nextSource >= pending.size()) {
        // Every source is checked (nothing was written yet): now the plan.
        expandNextSource();
        return;
    }
    const QUrl src = pending.at(nextSource);
    addSubjob<StatJob>(Qvfs::stat(src, SourceDetails), [this, src](StatJob *job) {
        const Entry e = job->statResult();
        const QUrl dst = destinationFor(src);
        if (e.isDir() && Url::isAncestorOrSame(src, dst)) {
            fail(ErrCycle, { src.toString() });
            return;
        }
        if (!destinationCanName(Url::fileName(dst))) {
            fail(ErrUnsafeName, { dst.toString() });
            return;
        }
        checkTarget(e, src, dst);
    });
}

void CopyJobPrivate::checkTarget(const Entry &e, const QUrl &src, const QUrl &dst)
{
    // The same file under two names (the same URL, or a hard link) is never copied
    // onto itself: with "overwrite" that would destroy it, and a move would delete it.
    addSubjob<StatJob>(
        Qvfs::stat(dst, DetailBasic | DetailInode),
        [this, e, src, dst](StatJob *job) {
            const FileIdentity target = identityOf(job->statResult());
            const bool same = Url::normalized(src) == Url::normalized(dst)
                || (target.isValid() && target == identityOf(e) && src.scheme() == dst.scheme());
            if (same && policy != ConflictPolicy::Rename) {
                fail(ErrIdenticalFiles, { dst.toString() });
                return;
            }
            if (e.isDir() && identityOf(e).isValid())
                checkCycle(e, src, dst, Url::parent(dst), 0);
            else
                acceptSource(e, src, dst);
        },
        [this, e, src, dst](StatJob *job) {
            if (job->error() != ErrDoesNotExist)
                return false;
            if (e.isDir() && identityOf(e).isValid())
                checkCycle(e, src, dst, Url::parent(dst), 0);
            else
                acceptSource(e, src, dst);
            return true;
        });
}

void CopyJobPrivate::checkCycle(const Entry &e, const QUrl &src, const QUrl &dst, const QUrl &ancestor, int steps)
{
    // The URLs may differ and still name the same folder through a symlink: compare the
    // identity of every folder above the destination with the source's.
    const auto next = [this, e, src, dst, ancestor, steps](StatJob *job) {
        const Entry a = job->statResult();
        if (!job->error() && identityOf(a) == identityOf(e) && ancestor.scheme() == src.scheme()) {
            fail(ErrCycle, { src.toString() });
            return;
        }
        // Walk up from where a symlink really leads, not from its name.
        QUrl here = ancestor;
        const QByteArrayView link = a.bytes(LinkTarget);
        if (!job->error() && !link.isEmpty())
            here = ancestor.resolved(QUrl::fromEncoded(link.toByteArray().toPercentEncoding("/")));
        const QUrl up = Url::parent(here);
        if (job->error() || up == here || steps > MaxAncestorSteps)
            acceptSource(e, src, dst);
        else
            checkCycle(e, src, dst, up, steps + 1);
    };
    addSubjob<StatJob>(
        Qvfs::stat(ancestor, DetailBasic | DetailInode | DetailResolveSymlink), next, [next](StatJob *job) {
            next(job); // an ancestor that cannot be stated ends the walk
            return true;
        });
}

namespace
{
// The listing waits while this many entries of the plan wait, and goes on below the half.
constexpr qsizetype PlanHighWater = 4096;
} // namespace

void CopyJobPrivate::addToPlan(CopyItem item)
{
    item.seq = nextSeq++;
    if (item.type != FileType::Directory) {
        planTotal[Job::Bytes] += qMax<qint64>(item.size, 0);
        ++planTotal[Job::Files];
    }
    items.append(std::move(item));
}

void CopyJobPrivate::acceptSource(const Entry &e, const QUrl &src, const QUrl &dst)
{
    checkedSources.append(itemOf(e, src, dst, true));
    ++nextSource;
    statNextSource();
}

void CopyJobPrivate::expandNextSource()
{
    // Sources that are not folders go into the plan one after the other (a loop, not a
    // call per source: `cp` of 100,000 files is that many sources); a folder is listed.
    CopyItem root;
    for (;;) {
        if (checkedSources.isEmpty()) {
            planComplete = true;
            carryOut();
            return;
        }
        root = checkedSources.takeFirst();
        const bool folder = root.type == FileType::Directory;
        addToPlan(root);
        updateProgress();
        if (folder)
            break;
        carryOut();
    }
    const QUrl src = root.src;
    const QUrl dst = root.dst;
    Q_Q(CopyJob);
    ListJob *job = Qvfs::listRecursive(src, SourceDetails);
    listing = job;
    QObject::connect(job, &ListJob::entries, q, [this, src, dst](ListJob *j, const EntryList &list) {
        for (const Entry &c : list) {
            // A listing is foreign input: a name with "..", an absolute path or an empty
            // segment must not steer a write outside the destination; a name the
            // destination cannot store is refused, not mangled.
            const QUrl from = Url::child(src, c.name());
            const QUrl to = Url::child(dst, c.name());
            if (!from.isValid() || !to.isValid() || !Url::isAncestorOrSame(dst, to) || !destinationCanName(c.name())) {
                fail(ErrUnsafeName,
                    { to.isValid() ? to.toString() : src.toString() + QLatin1Char('/') + QString::fromUtf8(c.name()) });
                return;
            }
            if (Url::isLocalFile(to) && hasOverlongSegment(c.name())) {
                // No local file can have this name (nor anything below it): left out as
                // listed (a listing of 100,000 names of 4 KB each took 1.7 GB when the
                // plan was kept whole).
                recordLeftOut(from, ErrNameTooLong); // the source: a move keeps it
                continue;
            }
            addToPlan(itemOf(c, from, to, false));
        }
        updateProgress();
        if (items.size() - nextItem > PlanHighWater && !j->isSuspended()) {
            qCDebug(QVFS_CORE) << "copy plan: the listing of" << src << "waits," << items.size() - nextItem
                               << "entries to go";
            j->suspend(); // carryOut() lets it go on
        }
        carryOut();
    });
    addSubjob<ListJob>(job, [this](ListJob *) {
        listing = nullptr;
        expandNextSource();
    });
}

void CopyJobPrivate::releaseListing()
{
    if (listing && listing->isSuspended() && !isSuspended && items.size() - nextItem < PlanHighWater / 2)
        listing->resume();
}

} // namespace Qvfs
