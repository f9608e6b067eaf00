// SPDX-License-Identifier: LGPL-2.1-or-later
#include "copyjob.h"
#include "deletejob.h"
#include "error.h"
#include "job_p.h"
#include "listjob.h"
#include "simplejob.h"
#include "statjob.h"
#include "transferjob.h"
#include "url.h"

#include <algorithm>

namespace Qvfs
{

namespace
{
constexpr qsizetype MaxBuffered = 4 * 1024 * 1024; // generic copy: get is paused above this

const char *policyName(CopyJob::Conflict c)
{
    switch (c) {
    case CopyJob::ConflictOverwrite:
        return "overwrite";
    case CopyJob::ConflictSkip:
        return "skip";
    case CopyJob::ConflictRename:
        return "rename";
    case CopyJob::ConflictAsk:
        return "ask";
    case CopyJob::ConflictFail:
        break;
    }
    return "fail";
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
    CopyJob::Conflict policy = CopyJob::ConflictFail;

    // ---- the generic path (different protocols): streamed through the application ----
    struct Item
    {
        QUrl src;
        QUrl dst;
        FileType type = FileType::Unknown;
        QByteArray linkTarget;
        qint64 size = 0;
        qint64 mtime = -1;
        int mode = -1;
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
    void expandSource(const Entry &srcEntry);
    void runNextItem();
    void startTransfer(const Item &item);
    void feedPut();
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
    const QString scheme = dest.scheme();
    bool sameWorker = true;
    for (const QUrl &s : std::as_const(sources))
        sameWorker = sameWorker && s.scheme() == scheme;
    const Internal::ProtocolInfo info = Internal::protocolInfo(scheme);
    if (sameWorker && info.capabilities.contains(QLatin1String("copy"))) {
        request.command = Wire::Command::Copy;
        request.urls = sources;
        request.urls.append(dest);
        request.options.setNumber("into-directory", mode == Auto ? 2 : 0);
        request.options.setNumber("move", isMove ? 1 : 0);
        request.options.setNumber("preserve", preserve ? 1 : 0);
        request.options.setBytes("conflict", policyName(policy));
        submit(request);
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
    StatJob *job = track(Qvfs::stat(dest, DetailBasic));
    QObject::connect(job, &Job::result, job, [this, job] {
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
        Q_Q(CopyJob);
        qint64 bytes = 0, files = 0;
        for (const Item &i : std::as_const(items)) {
            if (i.type != FileType::Directory) {
                bytes += qMax<qint64>(i.size, 0);
                ++files;
            }
        }
        setTotal(Job::Bytes, bytes);
        setTotal(Job::Files, files);
        Q_UNUSED(q)
        runNextItem();
        return;
    }
    const QUrl src = sources.at(nextSource);
    StatJob *job = track(Qvfs::stat(src, DetailBasic | DetailTime));
    QObject::connect(job, &Job::result, job, [this, job] {
        if (job->error()) {
            fail(job->error(), job->errorArgs());
            return;
        }
        expandSource(job->statResult());
    });
}

void CopyJobPrivate::expandSource(const Entry &e)
{
    const QUrl src = sources.at(nextSource);
    const QUrl dst = destIsDir ? Url::child(dest, Url::fileName(src)) : dest;
    if (Url::isAncestorOrSame(src, dst) && e.isDir()) {
        fail(ErrCycle, { src.toString() });
        return;
    }
    Item root { src, dst, e.type(), e.bytes(LinkTarget).toByteArray(), e.size(), e.number(MTime), int(e.number(Mode)) };
    items.append(root);
    ++nextSource;
    if (!e.isDir()) {
        statNextSource();
        return;
    }
    ListJob *job = track(Qvfs::listRecursive(src, DetailBasic | DetailTime));
    auto *collected = new QList<Item>;
    auto *unsafe = new QByteArray;
    QObject::connect(job, &ListJob::entries, job, [collected, unsafe, src, dst](ListJob *, const EntryList &list) {
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
                int(c.number(Mode)) });
        }
    });
    QObject::connect(job, &Job::result, job, [this, job, collected, unsafe, src] {
        std::unique_ptr<QList<Item>> hold(collected);
        std::unique_ptr<QByteArray> holdName(unsafe);
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
    Q_Q(CopyJob);
    if (finished)
        return;
    if (nextItem >= items.size()) {
        finishGeneric();
        return;
    }
    const Item item = items.at(nextItem++);
    switch (item.type) {
    case FileType::Directory: {
        SimpleJob *job = track(Qvfs::mkdir(item.dst, preserve ? item.mode : -1));
        QObject::connect(job, &Job::result, q, [this, job] {
            // Merging into an existing folder is fine.
            if (job->error() && job->error() != ErrAlreadyExists) {
                fail(job->error(), job->errorArgs());
                return;
            }
            runNextItem();
        });
        return;
    }
    case FileType::Symlink: {
        SimpleJob *job = track(Qvfs::symlink(item.linkTarget, item.dst));
        QObject::connect(job, &Job::result, q, [this, job] {
            if (job->error() == ErrAlreadyExists && policy == CopyJob::ConflictSkip) {
                runNextItem();
                return;
            }
            if (job->error()) {
                fail(job->error(), job->errorArgs());
                return;
            }
            setProcessed(Job::Files, ++filesDone);
            runNextItem();
        });
        return;
    }
    default:
        startTransfer(item);
        return;
    }
}

void CopyJobPrivate::startTransfer(const Item &item)
{
    Q_Q(CopyJob);
    buffer.clear();
    getDone = false;
    putWaiting = false;
    const bool overwrite = policy == CopyJob::ConflictOverwrite;
    TransferJob *g = Qvfs::get(item.src);
    TransferJob *p = Qvfs::put(item.dst, preserve ? item.mode : -1, overwrite ? PutOverwrite : PutDefault);
    g->setAskDelegate(q->askDelegate());
    p->setAskDelegate(q->askDelegate());
    p->setAsyncDataEnabled(true);
    getJob = g;
    putJob = p;
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
        if (p->error() == ErrAlreadyExists && policy == CopyJob::ConflictSkip) {
            if (getJob)
                getJob->kill();
            bytesDone = startBytes + qMax<qint64>(item.size, 0);
            setProcessed(Job::Bytes, bytesDone);
            runNextItem();
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
    if (getJob && getJob->isSuspended() && buffer.size() < MaxBuffered / 2)
        getJob->resume();
}

void CopyJobPrivate::finishGeneric()
{
    if (!isMove) {
        emitResult();
        return;
    }
    // Everything is copied: now the sources may go.
    DeleteJob *job = track(Qvfs::del(sources));
    QObject::connect(job, &Job::result, job, [this, job] { emitResult(job->error(), job->errorArgs()); });
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

void CopyJob::setConflictPolicy(Conflict policy)
{
    d_func()->policy = policy;
}

CopyJob::Conflict CopyJob::conflictPolicy() const
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
