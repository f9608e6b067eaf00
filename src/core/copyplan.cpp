// SPDX-License-Identifier: LGPL-2.1-or-later
// CopyJob, state StatingSources: the copy plan. Each source left by the other
// strategies is stated, checked (a folder into itself, a file onto itself, also through
// symlinks) and, when a folder, listed recursively into items.
#include "copyjob_p.h"
#include "error.h"
#include "listjob.h"
#include "statjob.h"
#include "url.h"
#include "urlidentity.h"

#include <algorithm>
#include <memory>

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
        // Parents before their children: a path sorts before every path below it.
        std::stable_sort(items.begin(), items.end(), [](const CopyItem &a, const CopyItem &b) {
            return a.dst.path(QUrl::FullyEncoded) < b.dst.path(QUrl::FullyEncoded);
        });
        for (const CopyItem &i : std::as_const(items)) {
            if (i.type != FileType::Directory) {
                planTotal[Job::Bytes] += qMax<qint64>(i.size, 0);
                ++planTotal[Job::Files];
            }
        }
        updateProgress();
        enter(CopyState::CreatingFolders);
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
                expandSource(e, src, dst);
        },
        [this, e, src, dst](StatJob *job) {
            if (job->error() != ErrDoesNotExist)
                return false;
            if (e.isDir() && identityOf(e).isValid())
                checkCycle(e, src, dst, Url::parent(dst), 0);
            else
                expandSource(e, src, dst);
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
            expandSource(e, src, dst);
        else
            checkCycle(e, src, dst, up, steps + 1);
    };
    addSubjob<StatJob>(
        Qvfs::stat(ancestor, DetailBasic | DetailInode | DetailResolveSymlink), next, [next](StatJob *job) {
            next(job); // an ancestor that cannot be stated ends the walk
            return true;
        });
}

void CopyJobPrivate::expandSource(const Entry &e, const QUrl &src, const QUrl &dst)
{
    items.append(itemOf(e, src, dst, true));
    ++nextSource;
    if (!e.isDir()) {
        statNextSource();
        return;
    }
    Q_Q(CopyJob);
    ListJob *job = Qvfs::listRecursive(src, SourceDetails);
    auto collected = std::make_shared<QList<CopyItem>>();
    auto unsafe = std::make_shared<QUrl>();
    QObject::connect(job, &ListJob::entries, q, [this, collected, unsafe, src, dst](ListJob *, const EntryList &list) {
        for (const Entry &c : list) {
            // A listing is foreign input: a name with "..", an absolute path or an empty
            // segment must not steer a write outside the destination; a name the
            // destination cannot store is refused, not mangled.
            const QUrl from = Url::child(src, c.name());
            const QUrl to = Url::child(dst, c.name());
            if (!from.isValid() || !to.isValid() || !Url::isAncestorOrSame(dst, to) || !destinationCanName(c.name())) {
                if (unsafe->isEmpty())
                    *unsafe = to.isValid() ? to : QUrl(src.toString() + QLatin1Char('/') + QString::fromUtf8(c.name()));
                continue;
            }
            if (Url::isLocalFile(to) && hasOverlongSegment(c.name())) {
                // No local file can have this name (nor anything below it): left out as
                // listed, not kept in the plan (a listing of 100,000 names of 4 KB each
                // took 1.7 GB before anything was written).
                recordLeftOut(from, ErrNameTooLong); // the source: a move keeps it
                continue;
            }
            collected->append(itemOf(c, from, to, false));
        }
    });
    addSubjob<ListJob>(job, [this, collected, unsafe](ListJob *) {
        if (!unsafe->isEmpty()) {
            fail(ErrUnsafeName, { unsafe->toString() });
            return;
        }
        items += *collected;
        statNextSource();
    });
}

} // namespace Qvfs
