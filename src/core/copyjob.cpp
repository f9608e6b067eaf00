// SPDX-License-Identifier: LGPL-2.1-or-later
#include "copyjob.h"
#include "deletejob.h"
#include "error.h"
#include "job_p.h"
#include "listjob.h"
#include "simplejob.h"
#include "statjob.h"
#include "transferjob.h"
#include "protocol.h"
#include "url.h"
#include "urlidentity.h"

#include <algorithm>
#include <memory>

namespace Qvfs
{

namespace
{
constexpr qsizetype MaxBuffered = 4 * 1024 * 1024; // generic copy: get is paused above this

/*! The path's raw bytes (percent-decoded), for any scheme. */
QByteArray rawPath(const QUrl &url)
{
    return QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
}
} // namespace

class CopyJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(CopyJob)
    enum CopyMode { Auto, As };
    QList<QUrl> sources;
    QUrl dest;
    CopyMode mode = Auto;
    bool isMove = false;
    bool preserve = true;
    ConflictPolicy policy = ConflictPolicy::Fail;

    // ---- the generic path (different protocols): streamed through the application ----
    struct Item
    {
        QUrl src;
        QUrl dst;
        FileType type = FileType::Unknown;
        QByteArray linkTarget;
        qint64 size = 0;
        qint64 mtime = -1;
        qint64 mtimeNs = 0;
        int mode = -1;
        bool root = false; // one of the sources itself
    };
    QList<Item> items;
    qsizetype nextItem = 0;
    qsizetype nextSource = 0;
    bool destIsDir = false;
    QPointer<Job> sub; // the running sub-job (stat, list, mkdir, symlink, delete)
    QPointer<TransferJob> getJob;
    QPointer<TransferJob> putJob;
    QByteArray buffer;
    bool getDone = false;
    bool putWaiting = false;
    qint64 bytesDone = 0;
    qint64 filesDone = 0;
    QList<Item> folders; // created folders, for their times and modes at the end
    QList<QUrl> skipped; // sources of entries left alone: a move must not delete them

    ~CopyJobPrivate() override { abort(); } // sub-jobs must not outlive the copy

    static CopyJob *create(const QList<QUrl> &sources, const QUrl &dest, bool as, bool move)
    {
        auto *d = new CopyJobPrivate;
        d->sources = sources;
        d->dest = dest;
        d->mode = as ? As : Auto;
        d->isMove = move;
        return new CopyJob(*d);
    }
    void start() override;
    void abort() override;
    void suspendWork(bool suspend) override;

    void startGeneric();
    void statNextSource();
    void checkTarget(const Entry &srcEntry, const QUrl &dst);
    void checkCycle(const Entry &srcEntry, const QUrl &dst, const QUrl &ancestor, int steps);
    void expandSource(const Entry &srcEntry, const QUrl &dst);
    void runNextItem();
    void runItem(Item item, bool overwrite);
    void startTransfer(const Item &item, bool overwrite);
    void feedPut();
    void conflict(const Item &item, int code, const QStringList &args);
    /*! Leaves \a item's destination alone and goes on. */
    void skip(const Item &item);
    void withFreeName(const Item &item, int attempt);
    void finishFolders();
    /*! Gives item.dst the source's modification time (when preserving), then \a next. */
    void setTimeThen(const Item &item, std::function<void()> next);
    void finishGeneric();
    void fail(int code, const QStringList &args);
    template<typename J>
    J *track(J *job)
    {
        Q_Q(CopyJob);
        sub = job;
        job->setAskDelegate(q->askDelegate());
        return job;
    }
};

void CopyJobPrivate::start()
{
    const QString key = Url::schedulerKey(dest);
    bool sameWorker = true;
    for (const QUrl &s : std::as_const(sources))
        sameWorker = sameWorker && Url::schedulerKey(s) == key;
    if (sameWorker && Protocol::find(dest.scheme()).hasCapability(Protocol::Copy)) {
        CopyRequest r;
        r.sources = sources;
        r.destination = dest;
        r.target = mode == Auto ? CopyRequest::Target::IntoIfFolder : CopyRequest::Target::As;
        r.move = isMove;
        r.preserve = preserve;
        r.conflict = policy;
        request.set(r);
        request.start();
        return;
    }
    startGeneric();
}

void CopyJobPrivate::abort()
{
    JobPrivate::abort();
    for (Job *j : { sub.data(), static_cast<Job *>(getJob.data()), static_cast<Job *>(putJob.data()) }) {
        if (j)
            j->kill(Job::Quietly); // a killed put leaves the destination untouched
    }
}

void CopyJobPrivate::suspendWork(bool suspend)
{
    JobPrivate::suspendWork(suspend);
    for (Job *j : { static_cast<Job *>(getJob.data()), static_cast<Job *>(putJob.data()) }) {
        if (j)
            suspend ? j->suspend() : j->resume();
    }
}

void CopyJobPrivate::fail(int code, const QStringList &args)
{
    abort();
    emitResult(code, args);
}

void CopyJobPrivate::startGeneric()
{
    if (sources.isEmpty()) {
        emitResult();
        return;
    }
    if (mode == As && sources.size() != 1) {
        emitResult(ErrUnsupportedAction, { dest.toString() });
        return;
    }
    // Is the destination an existing folder? Then the sources go into it.
    // A symlink to a folder counts as the folder, as with cp.
    StatJob *job = track(Qvfs::stat(dest, DetailBasic | DetailResolveSymlink));
    QObject::connect(job, &Job::result, q_ptr, [this, job] {
        destIsDir = mode == Auto && job->error() == NoError && job->statResult().isDir();
        if (job->error() && job->error() != ErrDoesNotExist) {
            fail(job->error(), job->errorArgs());
            return;
        }
        statNextSource();
    });
}

void CopyJobPrivate::statNextSource()
{
    if (nextSource >= sources.size()) {
        qint64 bytes = 0, files = 0;
        for (const Item &i : std::as_const(items)) {
            if (i.type != FileType::Directory) {
                bytes += qMax<qint64>(i.size, 0);
                ++files;
            }
        }
        setTotal(Job::Bytes, bytes);
        setTotal(Job::Files, files);
        runNextItem();
        return;
    }
    const QUrl src = sources.at(nextSource);
    StatJob *job = track(Qvfs::stat(src, DetailBasic | DetailTime | DetailInode));
    QObject::connect(job, &Job::result, q_ptr, [this, job, src] {
        if (job->error()) {
            fail(job->error(), job->errorArgs());
            return;
        }
        const Entry e = job->statResult();
        const QUrl dst = destIsDir ? Url::child(dest, Url::fileName(src)) : dest;
        if (e.isDir() && Url::isAncestorOrSame(src, dst)) {
            fail(ErrCycle, { src.toString() });
            return;
        }
        checkTarget(e, dst);
    });
}

void CopyJobPrivate::checkTarget(const Entry &e, const QUrl &dst)
{
    // The same file under two names (the same URL, or a hard link) is never copied
    // onto itself: with "overwrite" that would destroy it, and a move would delete it.
    StatJob *job = track(Qvfs::stat(dst, DetailBasic | DetailInode));
    QObject::connect(job, &Job::result, q_ptr, [this, job, e, dst] {
        const Entry t = job->statResult();
        const bool same = job->error() == NoError
            && (Url::normalized(sources.at(nextSource)) == Url::normalized(dst)
                || (e.contains(Inode) && t.contains(Inode) && e.number(Inode) == t.number(Inode)
                    && e.number(Device) == t.number(Device) && sources.at(nextSource).scheme() == dst.scheme()));
        if (same && policy != ConflictPolicy::Rename) {
            fail(ErrIdenticalFiles, { dst.toString() });
            return;
        }
        if (e.isDir() && e.contains(Inode))
            checkCycle(e, dst, Url::parent(dst), 0);
        else
            expandSource(e, dst);
    });
}

void CopyJobPrivate::checkCycle(const Entry &e, const QUrl &dst, const QUrl &ancestor, int steps)
{
    // The URLs may differ and still name the same folder through a symlink: compare the
    // identity of every folder above the destination with the source's.
    StatJob *job = track(Qvfs::stat(ancestor, DetailBasic | DetailInode | DetailResolveSymlink));
    QObject::connect(job, &Job::result, q_ptr, [this, job, e, dst, ancestor, steps] {
        const Entry a = job->statResult();
        if (job->error() == NoError && a.number(Inode) == e.number(Inode) && a.number(Device) == e.number(Device)
            && ancestor.scheme() == sources.at(nextSource).scheme()) {
            fail(ErrCycle, { sources.at(nextSource).toString() });
            return;
        }
        // Walk up from where a symlink really leads, not from its name.
        QUrl here = ancestor;
        const QByteArrayView link = a.bytes(LinkTarget);
        if (!link.isEmpty())
            here = ancestor.resolved(QUrl::fromEncoded(link.toByteArray().toPercentEncoding("/")));
        const QUrl up = Url::parent(here);
        if (job->error() || up == here || steps > 64)
            expandSource(e, dst);
        else
            checkCycle(e, dst, up, steps + 1);
    });
}

void CopyJobPrivate::expandSource(const Entry &e, const QUrl &dst)
{
    const QUrl src = sources.at(nextSource);
    items.append(Item { src, dst, e.type(), e.bytes(LinkTarget).toByteArray(), e.size(), e.number(MTime),
        e.number(MTimeNs, 0), int(e.number(Mode)), true });
    ++nextSource;
    if (!e.isDir()) {
        statNextSource();
        return;
    }
    ListJob *job = track(Qvfs::listRecursive(src, DetailBasic | DetailTime));
    auto collected = std::make_shared<QList<Item>>();
    auto unsafe = std::make_shared<QByteArray>();
    QObject::connect(job, &ListJob::entries, q_ptr, [collected, unsafe, src, dst](ListJob *, const EntryList &list) {
        for (const Entry &c : list) {
            // A listing is foreign input: a name with "..", an absolute path or an empty
            // segment must not steer a write outside the destination.
            const QUrl from = Url::child(src, c.name());
            const QUrl to = Url::child(dst, c.name());
            if (!from.isValid() || !to.isValid() || !Url::isAncestorOrSame(dst, to)) {
                if (unsafe->isNull())
                    *unsafe = c.name().toByteArray();
                continue;
            }
            collected->append(Item { from, to, c.type(), c.bytes(LinkTarget).toByteArray(), c.size(), c.number(MTime),
                c.number(MTimeNs, 0), int(c.number(Mode)), false });
        }
    });
    QObject::connect(job, &Job::result, q_ptr, [this, job, collected, unsafe, src] {
        if (job->error()) {
            fail(job->error(), job->errorArgs());
            return;
        }
        if (!unsafe->isNull()) {
            fail(ErrUnsafeName, { src.toString() + QLatin1Char('/') + QString::fromUtf8(*unsafe) });
            return;
        }
        // Parents before their children: a path sorts before every path below it.
        std::sort(collected->begin(), collected->end(), [](const Item &a, const Item &b) {
            return a.src.path(QUrl::FullyEncoded) < b.src.path(QUrl::FullyEncoded);
        });
        items += *collected;
        statNextSource();
    });
}

void CopyJobPrivate::runNextItem()
{
    if (finished)
        return;
    if (nextItem >= items.size()) {
        finishFolders();
        return;
    }
    runItem(items.at(nextItem++), policy == ConflictPolicy::Overwrite);
}

void CopyJobPrivate::runItem(Item item, bool overwrite)
{
    Q_Q(CopyJob);
    switch (item.type) {
    case FileType::Directory: {
        // Writable while it is filled; its own mode and time are set at the end.
        SimpleJob *job = track(Qvfs::mkdir(item.dst, 0700));
        QObject::connect(job, &Job::result, q, [this, job, item] {
            if (job->error() == ErrAlreadyExists) {
                if (item.root && policy == ConflictPolicy::Rename) {
                    withFreeName(item, 1);
                    return;
                }
                // Merging into an existing folder is fine (its mode and time stay as they
                // were); a file in the way is a conflict.
                StatJob *st = track(Qvfs::stat(item.dst, DetailBasic));
                QObject::connect(st, &Job::result, q_ptr, [this, st, item] {
                    if (st->error() || !st->statResult().isDir()) {
                        fail(st->error() ? st->error() : int(ErrAlreadyExists),
                            st->error() ? st->errorArgs() : QStringList { item.dst.toString() });
                        return;
                    }
                    runNextItem();
                });
                return;
            }
            if (job->error()) {
                fail(job->error(), job->errorArgs());
                return;
            }
            folders.append(item);
            runNextItem();
        });
        return;
    }
    case FileType::Symlink: {
        SimpleJob *job = track(Qvfs::symlink(item.linkTarget, item.dst));
        QObject::connect(job, &Job::result, q, [this, job, item, overwrite] {
            if (job->error() == ErrAlreadyExists && overwrite) {
                // Replace the existing entry: delete it, then link again.
                DeleteJob *del = track(Qvfs::del(item.dst));
                QObject::connect(del, &Job::result, q_ptr, [this, del, item] {
                    if (del->error()) {
                        fail(del->error(), del->errorArgs());
                        return;
                    }
                    runItem(item, false);
                });
                return;
            }
            if (job->error() == ErrAlreadyExists) {
                conflict(item, job->error(), job->errorArgs());
                return;
            }
            if (job->error()) {
                fail(job->error(), job->errorArgs());
                return;
            }
            setProcessed(Job::Files, ++filesDone);
            setTimeThen(item, [this] { runNextItem(); });
        });
        return;
    }
    case FileType::Regular:
    case FileType::Unknown:
        startTransfer(item, overwrite);
        return;
    default:
        // Fifos, devices and sockets cannot travel as a stream of bytes.
        fail(ErrUnsupportedAction, { item.src.toString() });
        return;
    }
}

void CopyJobPrivate::skip(const Item &item)
{
    skipped.append(item.src);
    bytesDone += qMax<qint64>(item.size, 0);
    setProcessed(Job::Bytes, bytesDone);
    runNextItem();
}

void CopyJobPrivate::conflict(const Item &item, int code, const QStringList &args)
{
    switch (policy) {
    case ConflictPolicy::Skip:
        skip(item);
        return;
    case ConflictPolicy::Rename:
        withFreeName(item, 1);
        return;
    case ConflictPolicy::Ask: {
        askQuestion(Internal::encodeQuestion(ConflictQuestion { item.src, item.dst }), [this, item](const MetaData &m) {
            const ConflictAnswer a = Internal::decodeConflictAnswer(m);
            if (!a.answered) {
                fail(ErrNotAnswered, { item.dst.toString() });
                return;
            }
            switch (a.action) {
            case ConflictAction::Overwrite:
                runItem(item, true);
                return;
            case ConflictAction::Skip:
                skip(item);
                return;
            case ConflictAction::Rename:
                withFreeName(item, 1);
                return;
            case ConflictAction::Cancel:
                break;
            }
            fail(ErrCancelled, { item.dst.toString() });
        });
        return;
    }
    default:
        fail(code, args);
        return;
    }
}

void CopyJobPrivate::withFreeName(const Item &item, int attempt)
{
    // "name (1).ext", "name (2).ext", ...: the first that does not exist.
    const QByteArray name = freeNameCandidate(Url::fileName(item.dst), item.type == FileType::Directory, attempt - 1);
    if (name.isEmpty()) {
        fail(ErrAlreadyExists, { item.dst.toString() });
        return;
    }
    Item renamed = item;
    renamed.dst = Url::child(Url::parent(item.dst), name);
    StatJob *job = track(Qvfs::stat(renamed.dst, DetailBasic));
    QObject::connect(job, &Job::result, q_ptr, [this, job, item, renamed, attempt] {
        if (job->error() == NoError && attempt < MaxFreeNameAttempts) {
            withFreeName(item, attempt + 1);
            return;
        }
        if (job->error() != ErrDoesNotExist) {
            fail(job->error() ? job->error() : int(ErrAlreadyExists),
                job->error() ? job->errorArgs() : QStringList { item.dst.toString() });
            return;
        }
        // Everything below a renamed folder moves with it.
        for (qsizetype i = nextItem; i < items.size(); ++i) {
            if (Url::isAncestorOrSame(item.dst, items.at(i).dst)) {
                const QByteArray full = rawPath(items.at(i).dst);
                const QByteArray rel = full.mid(rawPath(item.dst).size() + 1);
                items[i].dst = Url::child(renamed.dst, rel);
            }
        }
        runItem(renamed, false);
    });
}

void CopyJobPrivate::startTransfer(const Item &item, bool overwrite)
{
    Q_Q(CopyJob);
    buffer.clear();
    getDone = false;
    putWaiting = false;
    TransferJob *g = Qvfs::get(item.src);
    TransferJob *p = Qvfs::put(item.dst, preserve ? item.mode : -1, overwrite ? PutOverwrite : PutDefault);
    g->setAskDelegate(q->askDelegate());
    p->setAskDelegate(q->askDelegate());
    p->setAsyncDataEnabled(true);
    if (preserve && item.mtime >= 0)
        p->setModificationTime(item.mtime, item.mtimeNs);
    getJob = g;
    putJob = p;
    if (isSuspended) {
        g->suspend();
        p->suspend();
    }
    const qint64 startBytes = bytesDone;
    QObject::connect(g, &TransferJob::data, q, [this](TransferJob *, const QByteArray &chunk) {
        buffer.append(chunk);
        if (buffer.size() > MaxBuffered && getJob)
            getJob->suspend();
        feedPut();
    });
    QObject::connect(g, &Job::result, q, [this, g] {
        if (g->error()) {
            fail(g->error(), g->errorArgs()); // kills the put: the destination stays as it was
            return;
        }
        getDone = true;
        feedPut();
    });
    QObject::connect(p, &TransferJob::dataReq, q, [this](TransferJob *, QByteArray &) {
        putWaiting = true;
        feedPut();
    });
    QObject::connect(p, &Job::result, q, [this, p, item, startBytes] {
        if (p->error() == ErrAlreadyExists) {
            if (getJob)
                getJob->kill();
            bytesDone = startBytes;
            conflict(item, p->error(), p->errorArgs());
            return;
        }
        if (p->error()) {
            fail(p->error(), p->errorArgs());
            return;
        }
        setProcessed(Job::Files, ++filesDone);
        runNextItem();
    });
}

void CopyJobPrivate::feedPut()
{
    if (!putWaiting || !putJob)
        return;
    if (buffer.isEmpty() && !getDone)
        return;
    putWaiting = false;
    const QByteArray chunk = buffer.left(Wire::MaxPayload);
    buffer.remove(0, chunk.size());
    bytesDone += chunk.size();
    setProcessed(Job::Bytes, bytesDone);
    putJob->sendAsyncData(chunk); // empty when the source is done
    if (getJob && getJob->isSuspended() && !isSuspended && buffer.size() < MaxBuffered / 2)
        getJob->resume();
}

void CopyJobPrivate::finishFolders()
{
    // Deepest first: a folder's time is set after everything inside it was written.
    if (folders.isEmpty()) {
        finishGeneric();
        return;
    }
    const Item f = folders.takeLast();
    if (!preserve) {
        finishFolders();
        return;
    }
    SimpleJob *chmodJob = track(Qvfs::chmod(f.dst, f.mode >= 0 ? f.mode : 0755));
    QObject::connect(chmodJob, &Job::result, q_ptr, [this, chmodJob, f] {
        if (chmodJob->error()) {
            fail(chmodJob->error(), chmodJob->errorArgs());
            return;
        }
        setTimeThen(f, [this] { finishFolders(); });
    });
}

void CopyJobPrivate::setTimeThen(const Item &item, std::function<void()> next)
{
    if (!preserve || item.mtime < 0) {
        next();
        return;
    }
    SimpleJob *job = track(Qvfs::setModificationTime(item.dst, item.mtime, item.mtimeNs));
    QObject::connect(job, &Job::result, q_ptr, [this, job, next] {
        // A protocol that cannot set times keeps the copy's own.
        if (job->error() && job->error() != ErrUnsupportedAction) {
            fail(job->error(), job->errorArgs());
            return;
        }
        next();
    });
}

void CopyJobPrivate::finishGeneric()
{
    if (!isMove) {
        emitResult();
        return;
    }
    // Everything is copied: now the sources may go, but never one with a part that was
    // skipped (its destination kept what it had, so the source is the only copy).
    QList<QUrl> done;
    for (const QUrl &src : std::as_const(sources)) {
        const bool partlySkipped = std::any_of(
            skipped.cbegin(), skipped.cend(), [&src](const QUrl &s) { return Url::isAncestorOrSame(src, s); });
        if (!partlySkipped)
            done.append(src);
    }
    if (done.isEmpty()) {
        emitResult();
        return;
    }
    DeleteJob *job = track(Qvfs::del(done));
    QObject::connect(job, &Job::result, q_ptr, [this, job] { emitResult(job->error(), job->errorArgs()); });
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

static CopyJob *makeCopy(const QList<QUrl> &sources, const QUrl &dest, bool as, bool move)
{
    return CopyJobPrivate::create(sources, dest, as, move);
}

CopyJob *copy(const QList<QUrl> &sources, const QUrl &dest)
{
    return makeCopy(sources, dest, false, false);
}

CopyJob *copy(const QUrl &src, const QUrl &dest)
{
    return makeCopy({ src }, dest, false, false);
}

CopyJob *copyAs(const QUrl &src, const QUrl &dest)
{
    return makeCopy({ src }, dest, true, false);
}

CopyJob *move(const QList<QUrl> &sources, const QUrl &dest)
{
    return makeCopy(sources, dest, false, true);
}

CopyJob *move(const QUrl &src, const QUrl &dest)
{
    return makeCopy({ src }, dest, false, true);
}

CopyJob *moveAs(const QUrl &src, const QUrl &dest)
{
    return makeCopy({ src }, dest, true, true);
}

} // namespace Qvfs
