// SPDX-License-Identifier: LGPL-2.1-or-later
#include "treecopy.h"

#include "error.h"
#include "url.h"
#include "workerbase_debug.h"

#include <QHash>
#include <QtNumeric>

#include <limits>

namespace Qvfs
{

CopyObserver::~CopyObserver() = default;
CopyBackend::~CopyBackend() = default;

CopyPlace CopyBackend::child(const CopyPlace &folder, const QByteArray &name)
{
    CopyPlace p;
    p.url = Url::child(folder.url, name);
    if (!folder.address.isNull())
        p.address = folder.address.endsWith('/') ? QByteArray(folder.address + name)
                                                 : QByteArray(folder.address + '/' + name);
    return p;
}

CopyPlace CopyBackend::sibling(const CopyPlace &place, const QByteArray &name)
{
    CopyPlace p;
    p.url = Url::child(Url::parent(place.url), name);
    if (!place.address.isNull()) {
        const qsizetype slash = place.address.lastIndexOf('/');
        p.address = slash < 0 ? name : QByteArray(place.address.left(slash + 1) + name);
    }
    return p;
}

WorkerResult CopyBackend::copySpecial(const CopyEntry &source, const CopyPlace &, bool)
{
    return WorkerResult::fail(ErrCannotRead, source.place.url);
}

WorkerResult CopyBackend::copyTree(const CopyEntry &, const CopyPlace &)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}

/*! The observer of a copy run by a worker: the worker's own progress, events and questions. */
class WorkerCopyObserver final : public CopyObserver
{
public:
    explicit WorkerCopyObserver(WorkerBase &worker)
        : w(worker)
    { }
    void setTotals(qint64 bytes, qint64 files, qint64 folders) override { w.setTotals(bytes, files, folders); }
    void setProcessed(qint64 bytes, qint64 files, qint64 folders) override { w.setProcessed(bytes, files, folders); }
    void setSkipped(qint64 count) override { w.setSkipped(count); }
    void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) override
    {
        w.reportItem(event, source, destination);
    }
    ConflictAnswer askConflict(const ConflictQuestion &question) override { return w.askConflict(question); }
    bool wasKilled() override { return w.wasKilled(); }

private:
    WorkerBase &w;
};

namespace
{

qint64 sizeOf(const CopyEntry &e)
{
    return e.isFolder() ? 0 : qMax<qint64>(e.size, 0);
}

qint64 addBytes(qint64 a, qint64 b)
{
    qint64 sum;
    return qAddOverflow(a, b, &sum) ? std::numeric_limits<qint64>::max() : sum;
}

} // namespace

class TreeCopyPrivate
{
public:
    TreeCopyPrivate(CopyObserver &observer, CopyBackend &backend, const CopyRequest &request)
        : o(observer)
        , b(backend)
        , request(request)
        , policy(request.conflict)
    { }

    /*! What a counted folder holds (not the folder itself). */
    struct Inside
    {
        qint64 bytes = 0;
        qint64 files = 0;
        qint64 folders = 0;
    };
    struct Source
    {
        CopyEntry entry;
        CopyPlace dst;
    };
    struct Made
    {
        CopyEntry source;
        CopyPlace dst;
    };

    WorkerResult run();
    void enter(TreeCopy::Stage s)
    {
        stage = s;
        if (hook)
            hook(s);
    }
    bool fail(const WorkerResult &r)
    {
        if (result.ok())
            result = r.ok() ? WorkerResult::fail(ErrInternal) : r;
        return false;
    }
    bool fail(int code, const QUrl &url) { return fail(WorkerResult::fail(code, url)); }
    bool cancelled(const QUrl &url) { return o.wasKilled() && !fail(ErrCancelled, url); }
    void report() { o.setProcessed(amounts.bytes, amounts.files, amounts.folders); }
    void reportTotals() { o.setTotals(amounts.totalBytes, amounts.totalFiles, amounts.totalFolders); }
    static QString keyOf(const QUrl &url)
    {
        return url.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword).toString(QUrl::FullyEncoded);
    }
    Inside inside(const CopyEntry &folder) const { return counted.value(keyOf(folder.place.url)); }

    WorkerResult resolveTargets(QList<Source> *sources);
    bool count(const CopyEntry &folder, Inside *in);
    bool copyEntry(const CopyEntry &src, CopyPlace dst, bool inNewFolder = false);
    bool freeName(const CopyEntry &src, CopyPlace *dst);
    bool skip(const CopyEntry &src, const CopyPlace &dst);
    void whole(const CopyEntry &src, CopyItemEvent event, const CopyPlace &dst);
    bool copyFolder(const CopyEntry &src, const CopyPlace &dst, bool create);
    void finishFolders();
    bool deleteSources();

    CopyObserver &o;
    CopyBackend &b;
    const CopyRequest request; // a copy: callers may pass a temporary
    ConflictPolicy policy;
    TreeCopy::Stage stage = TreeCopy::Stage::ResolvingTargets;
    std::function<void(TreeCopy::Stage)> hook;
    WorkerResult result = WorkerResult::pass();
    CopyAmounts amounts;
    QHash<QString, Inside> counted; //!< countFirst: what each counted folder holds, by URL
    QList<Made> made; //!< folders made, parents first
    QList<CopyEntry> copied; //!< a move: sources copied rather than renamed, children first
};

WorkerResult TreeCopyPrivate::resolveTargets(QList<Source> *sources)
{
    const QUrl &dest = request.destination;
    CopyPlace destPlace;
    WorkerResult r = b.place(dest, &destPlace);
    if (!r.ok())
        return r;
    bool into = request.target == CopyRequest::Target::Into;
    if (request.target == CopyRequest::Target::IntoIfFolder) {
        CopyEntry d;
        r = b.stat(destPlace, &d, true);
        if (!r.ok() && r.code() != ErrDoesNotExist)
            return r;
        into = r.ok() && d.isFolder();
    }
    if (!into && request.sources.size() != 1)
        return WorkerResult::fail(ErrIsNotDirectory, dest);
    for (const QUrl &url : request.sources) {
        Source s;
        CopyPlace place;
        r = b.place(url, &place);
        if (!r.ok())
            return r;
        r = b.stat(place, &s.entry, false);
        if (!r.ok())
            return r;
        if (s.entry.name.isEmpty()) // the root
            return WorkerResult::fail(ErrCycle, url);
        s.dst = into ? b.child(destPlace, s.entry.name) : destPlace;
        if (!s.dst.url.isValid())
            return WorkerResult::fail(ErrMalformedUrl, dest);
        if (s.entry.isFolder() && b.isInside(s.entry, s.dst))
            return WorkerResult::fail(ErrCycle, url);
        sources->append(s);
    }
    return WorkerResult::pass();
}

// What \a folder holds, remembered for the skip accounting and for folders taken whole.
// A folder that cannot be listed counts as empty: the copy reports why when it gets there.
bool TreeCopyPrivate::count(const CopyEntry &folder, Inside *in)
{
    if (cancelled(folder.place.url))
        return false;
    QList<CopyEntry> entries;
    Inside here;
    if (b.list(folder, &entries).ok()) {
        for (const CopyEntry &e : std::as_const(entries)) {
            if (!e.isFolder()) {
                ++here.files;
                here.bytes = addBytes(here.bytes, sizeOf(e));
                continue;
            }
            Inside sub;
            if (!count(e, &sub))
                return false;
            here.bytes = addBytes(here.bytes, sub.bytes);
            here.files += sub.files;
            here.folders += 1 + sub.folders;
        }
    }
    counted.insert(keyOf(folder.place.url), here);
    *in = here;
    return true;
}

bool TreeCopyPrivate::freeName(const CopyEntry &src, CopyPlace *dst)
{
    WorkerResult failed = WorkerResult::pass();
    CopyPlace found;
    const QByteArray name = Url::fileName(dst->url);
    const QByteArray free = firstFreeName(name, src.isFolder(), [&](const QByteArray &candidate) {
        if (o.wasKilled()) {
            failed = WorkerResult::fail(ErrCancelled, dst->url);
            return NameProbe::Failed;
        }
        found = b.sibling(*dst, candidate);
        if (!found.url.isValid()) {
            failed = WorkerResult::fail(ErrNameTooLong, dst->url);
            return NameProbe::Failed;
        }
        CopyEntry e;
        const WorkerResult r = b.stat(found, &e, false);
        if (r.code() == ErrDoesNotExist)
            return NameProbe::Free;
        if (r.ok())
            return NameProbe::Taken;
        failed = r;
        return NameProbe::Failed;
    });
    if (free.isEmpty())
        return fail(failed.ok() ? WorkerResult::fail(ErrAlreadyExists, dst->url) : failed);
    *dst = found;
    return true;
}

// An entry left alone: never processed; its bytes (a folder's with what it holds) leave
// the byte total (copyrules.h's accounting).
bool TreeCopyPrivate::skip(const CopyEntry &src, const CopyPlace &dst)
{
    amounts.skip(src.isFolder() ? inside(src).bytes : sizeOf(src));
    reportTotals();
    o.setSkipped(amounts.skipped);
    o.reportItem(CopyItemEvent::Skipped, src.place.url, dst.url);
    report();
    return true;
}

// An entry taken whole by one server operation (a rename, a tree copy): processed with
// what a folder holds when it was counted.
void TreeCopyPrivate::whole(const CopyEntry &src, CopyItemEvent event, const CopyPlace &dst)
{
    if (src.isFolder()) {
        const Inside in = inside(src);
        amounts.bytes = addBytes(amounts.bytes, in.bytes);
        amounts.files += in.files;
        amounts.folders += 1 + in.folders;
    } else {
        ++amounts.files;
        amounts.bytes = addBytes(amounts.bytes, sizeOf(src));
    }
    o.reportItem(event, src.place.url, dst.url);
    report();
}

bool TreeCopyPrivate::copyEntry(const CopyEntry &src, CopyPlace dst, bool inNewFolder)
{
    if (cancelled(src.place.url))
        return false;
    // In a folder this copy has just made nothing is in the way but what someone adds
    // meanwhile, and that is never replaced: every primitive creates without replacing
    // (ErrAlreadyExists). No stat per entry there.
    CopyDecision d { CopyAction::Create, 0 };
    WorkerResult r = WorkerResult::pass();
    if (!inNewFolder) {
        CopyEntry existing;
        r = b.stat(dst, &existing, false);
        if (!r.ok() && r.code() != ErrDoesNotExist)
            return fail(r);
        const CopyTarget target = !r.ok() ? CopyTarget::Absent
            : existing.isFolder()         ? CopyTarget::Folder
                                          : CopyTarget::Other;
        const bool identical = target != CopyTarget::Absent && b.isSame(src, existing);
        d = decideCopyAsking(&policy, src.isFolder(), target, identical, [&] {
            return o.askConflict(ConflictQuestion { src.place.url, dst.url });
        });
    }
    CopyAction action = d.action;
    switch (action) {
    case CopyAction::Fail:
        return fail(d.error == ErrNotAnswered && o.wasKilled() ? ErrCancelled : d.error, dst.url);
    case CopyAction::Ask: // never from decideCopyAsking()
        return fail(ErrInternal, dst.url);
    case CopyAction::Skip:
        return skip(src, dst);
    case CopyAction::Rename:
        if (!freeName(src, &dst))
            return false;
        action = CopyAction::Create;
        break;
    case CopyAction::Create:
    case CopyAction::Replace:
    case CopyAction::Merge:
        break;
    }
    const bool replace = action == CopyAction::Replace;
    if (request.move && (action == CopyAction::Create || (replace && !src.isFolder()))) {
        // A move is a rename at every level where nothing is in the way (a file replacing
        // a file is renamed over it); inside a merged folder too.
        r = b.rename(src, dst, replace);
        if (r.ok()) {
            whole(src, CopyItemEvent::Moved, dst);
            return true;
        }
        if (r.code() != ErrUnsupportedAction)
            return fail(r);
    }
    switch (src.type) {
    case CopyEntry::Type::Folder:
        if (action == CopyAction::Create && !request.move) {
            r = b.copyTree(src, dst);
            if (r.ok()) {
                whole(src, CopyItemEvent::CreatedFolder, dst);
                return true;
            }
            if (r.code() != ErrUnsupportedAction)
                return fail(r);
        }
        return copyFolder(src, dst, action == CopyAction::Create);
    case CopyEntry::Type::Link:
        o.reportItem(CopyItemEvent::Copying, src.place.url, dst.url);
        r = b.copyLink(src, dst, replace);
        break;
    case CopyEntry::Type::Special:
        o.reportItem(CopyItemEvent::Copying, src.place.url, dst.url);
        r = b.copySpecial(src, dst, replace);
        break;
    case CopyEntry::Type::File: {
        o.reportItem(CopyItemEvent::Copying, src.place.url, dst.url);
        const qint64 before = amounts.bytes;
        r = b.copyFile(src, dst, replace, [this, before](qint64 n) {
            amounts.bytes = addBytes(before, n);
            report();
        });
        amounts.bytes = r.ok() ? addBytes(before, sizeOf(src)) : before;
        break;
    }
    }
    if (!r.ok())
        return fail(r);
    ++amounts.files;
    if (request.move)
        copied.append(src);
    o.reportItem(CopyItemEvent::Copied, src.place.url, dst.url);
    report();
    return true;
}

bool TreeCopyPrivate::copyFolder(const CopyEntry &src, const CopyPlace &dst, bool create)
{
    QList<CopyEntry> entries;
    WorkerResult r = b.list(src, &entries);
    if (!r.ok())
        return fail(r);
    if (create) {
        r = b.makeFolder(src, dst);
        if (!r.ok())
            return fail(r);
        made.append({ src, dst });
        o.reportItem(CopyItemEvent::CreatedFolder, src.place.url, dst.url);
    }
    if (!request.countFirst) {
        // Nothing was counted: the totals grow as folders are found.
        for (const CopyEntry &e : std::as_const(entries)) {
            ++(e.isFolder() ? amounts.totalFolders : amounts.totalFiles);
            amounts.totalBytes = addBytes(amounts.totalBytes, sizeOf(e));
        }
        if (!entries.isEmpty())
            reportTotals();
    }
    for (const CopyEntry &e : std::as_const(entries)) {
        const CopyPlace to = b.child(dst, e.name);
        if (!to.url.isValid())
            return fail(ErrMalformedUrl, dst.url);
        if (!copyEntry(e, to, create))
            return false;
    }
    ++amounts.folders;
    if (request.move)
        copied.append(src);
    report();
    return true;
}

void TreeCopyPrivate::finishFolders()
{
    for (qsizetype i = made.size() - 1; i >= 0; --i)
        b.finishFolder(made.at(i).source, made.at(i).dst);
    made.clear();
}

// A move: everything arrived, now the copied sources go (a folder only once empty: what
// a conflict left alone stays with it).
bool TreeCopyPrivate::deleteSources()
{
    for (const CopyEntry &e : std::as_const(copied)) {
        if (cancelled(e.place.url))
            return false; // everything is at the destination, and what was not deleted at the source
        const WorkerResult r = b.remove(e);
        if (!r.ok() && r.code() != ErrDoesNotExist && r.code() != ErrDirectoryNotEmpty)
            return fail(r);
    }
    return true;
}

WorkerResult TreeCopyPrivate::run()
{
    using Stage = TreeCopy::Stage;
    enter(Stage::ResolvingTargets);
    WorkerResult r = b.begin(request);
    if (!r.ok())
        return r;
    QList<Source> sources;
    r = resolveTargets(&sources);
    if (!r.ok())
        return r;
    if (o.wasKilled())
        return WorkerResult::fail(ErrCancelled, request.destination);

    for (const Source &s : std::as_const(sources)) {
        ++(s.entry.isFolder() ? amounts.totalFolders : amounts.totalFiles);
        amounts.totalBytes = addBytes(amounts.totalBytes, sizeOf(s.entry));
    }
    if (request.countFirst) {
        enter(Stage::Counting);
        for (const Source &s : std::as_const(sources)) {
            Inside in;
            if (s.entry.isFolder() && !count(s.entry, &in))
                return result;
            amounts.totalBytes = addBytes(amounts.totalBytes, in.bytes);
            amounts.totalFiles += in.files;
            amounts.totalFolders += in.folders;
        }
    }
    reportTotals();

    enter(Stage::Copying);
    for (const Source &s : std::as_const(sources)) {
        if (!copyEntry(s.entry, s.dst))
            break;
    }
    enter(Stage::FinishingFolders);
    finishFolders();
    if (!result.ok())
        return result;
    if (request.move) {
        enter(Stage::DeletingSources);
        if (!deleteSources())
            return result;
    }
    qCDebug(QVFS_WORKER) << "tree copy:" << amounts.files << "files," << amounts.folders << "folders,"
                         << amounts.skipped << "skipped";
    return result;
}

TreeCopy::TreeCopy(WorkerBase &worker, CopyBackend &backend, const CopyRequest &request)
    : m_observer(std::make_unique<WorkerCopyObserver>(worker))
    , d(std::make_unique<TreeCopyPrivate>(*m_observer, backend, request))
{ }

TreeCopy::TreeCopy(CopyObserver &observer, CopyBackend &backend, const CopyRequest &request)
    : d(std::make_unique<TreeCopyPrivate>(observer, backend, request))
{ }

TreeCopy::~TreeCopy() = default;

WorkerResult TreeCopy::run()
{
    WorkerResult r = d->run();
    d->enter(Stage::Done);
    return r;
}

TreeCopy::Stage TreeCopy::stage() const
{
    return d->stage;
}

const CopyAmounts &TreeCopy::amounts() const
{
    return d->amounts;
}

void TreeCopy::setStageHook(std::function<void(Stage)> hook)
{
    d->hook = std::move(hook);
}

} // namespace Qvfs
