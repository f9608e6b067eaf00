// SPDX-License-Identifier: LGPL-2.1-or-later
#include "treecopy.h"

#include "error.h"
#include "rawpath_p.h"
#include "url.h"
#include "workerbase_debug.h"

#include <QElapsedTimer>
#include <QHash>
#include <QtNumeric>

#include <limits>

namespace Qvfs
{

CopyObserver::~CopyObserver() = default;
CopyBackend::~CopyBackend() = default;
CopyHandle::~CopyHandle() = default;

UnreadableAnswer CopyObserver::askUnreadable(const UnreadableQuestion &)
{
    return UnreadableAnswer();
}

void CopyObserver::leftOut(const QUrl &, int) { }

QUrl CopyBackend::url(const CopyPlace &place)
{
    return place.url;
}

CopyPlace CopyBackend::child(const CopyPlace &folder, const QByteArray &name)
{
    CopyPlace p;
    p.url = Url::child(folder.url, name);
    if (!p.url.isValid())
        return CopyPlace();
    if (!folder.address.isNull())
        p.address = Internal::joinPath(folder.address.isEmpty() ? QByteArrayLiteral("/") : folder.address, name);
    p.folder = folder.folder;
    return p;
}

CopyPlace CopyBackend::sibling(const CopyPlace &place, const QByteArray &name)
{
    CopyPlace p;
    p.url = Url::child(Url::parent(place.url), name);
    if (!p.url.isValid())
        return CopyPlace();
    if (!place.address.isNull())
        p.address = place.address.contains('/') ? Internal::joinPath(Internal::parentPath(place.address), name) : name;
    p.folder = place.folder;
    return p;
}

bool CopyBackend::renamesWhole(const CopyEntry &, const CopyPlace &)
{
    return true;
}

WorkerResult CopyBackend::enter(const CopyPlace &, const CopyEntry *, CopyPlace *)
{
    return WorkerResult::pass();
}

WorkerResult CopyBackend::copySpecial(const CopyEntry &source, const CopyPlace &, bool)
{
    return WorkerResult::fail(ErrCannotRead, url(source.place));
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
    UnreadableAnswer askUnreadable(const UnreadableQuestion &question) override { return w.askUnreadable(question); }
    void leftOut(const QUrl &url, int error) override { w.leftOut(url, error); }

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

// A place or entry as kept for a later stage: without the backend's folder handle, so
// that a copy of many folders does not hold them all open (CopyPlace::folder).
CopyPlace kept(CopyPlace p)
{
    p.folder.reset();
    return p;
}

CopyEntry kept(CopyEntry e)
{
    e.place.folder.reset();
    return e;
}

// Lowered totals (skips, left out entries: maybe thousands) go out at most this often.
constexpr qint64 TotalsIntervalMs = 100;

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
    /*! What becomes of a source entry inside a tree that failed (onSourceFailure()). */
    enum class AfterFailure {
        End, //!< the copy ends with the failure
        PassOver, //!< left out (or gone): the copy goes on without it
        Retry, //!< asked, and answered "try again"
    };
    /*! How an attempt() on a source entry ended. */
    enum class Outcome {
        Done,
        PassedOver, //!< left out or gone (onSourceFailure())
        Failed, //!< the failure is in the result given
    };
    /*! Runs \a op on the source \a src, again while a question about it says to retry. */
    template<typename Op>
    Outcome attempt(const CopyEntry &src, bool inTree, WorkerResult *r, Op op)
    {
        for (;;) {
            *r = op();
            if (r->ok())
                return Outcome::Done;
            switch (onSourceFailure(src, *r, inTree)) {
            case AfterFailure::Retry:
                continue;
            case AfterFailure::PassOver:
                return Outcome::PassedOver;
            case AfterFailure::End:
                return Outcome::Failed;
            }
        }
    }

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
    QUrl urlOf(const CopyPlace &p) { return b.url(p); }
    bool cancelled(const CopyPlace &p) { return o.wasKilled() && !fail(ErrCancelled, urlOf(p)); }
    void item(CopyItemEvent event, const CopyPlace &src, const CopyPlace &dst)
    {
        if (request.reportItems)
            o.reportItem(event, urlOf(src), urlOf(dst));
    }
    void report()
    {
        // Pending totals go first when the time has come, or when what is processed would
        // pass what the application was last told.
        if (totalsPending
            && (!totalsTimer.isValid() || totalsTimer.hasExpired(TotalsIntervalMs) || amounts.bytes > sent.totalBytes
                || amounts.files > sent.totalFiles || amounts.folders > sent.totalFolders))
            reportTotals();
        o.setProcessed(amounts.bytes, amounts.files, amounts.folders);
    }
    void reportTotals()
    {
        o.setTotals(amounts.totalBytes, amounts.totalFiles, amounts.totalFolders);
        totalsPending = false;
        sent = amounts;
        totalsTimer.start();
    }
    /*! The totals changed: sent with the next report(), at most every TotalsIntervalMs. */
    void totalsChanged() { totalsPending = true; }
    static QByteArray keyOf(CopyBackend &b, const CopyPlace &p)
    {
        if (!p.address.isNull())
            return p.address;
        return b.url(p).adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword).toEncoded();
    }
    Inside inside(const CopyEntry &folder) const { return counted.value(keyOf(b, folder.place)); }
    bool wasCounted(const CopyEntry &folder) const { return counted.contains(keyOf(b, folder.place)); }

    WorkerResult resolveTargets(QList<Source> *sources);
    bool count(const CopyEntry &folder, Inside *in);
    bool copyEntry(const CopyEntry &src, CopyPlace dst, bool inNewFolder, bool inTree);
    bool freeName(const CopyEntry &src, CopyPlace *dst);
    bool skip(const CopyEntry &src, const CopyPlace &dst);
    void leaveOut(const CopyEntry &src);
    AfterFailure onSourceFailure(const CopyEntry &src, const WorkerResult &r, bool inTree);
    void whole(const CopyEntry &src, CopyItemEvent event, const CopyPlace &dst);
    bool copyFolder(const CopyEntry &src, const CopyPlace &dst, const CopyEntry *existing, bool inTree);
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
    bool totalsPending = false;
    CopyAmounts sent; //!< the totals last sent
    QElapsedTimer totalsTimer;
    bool skipUnreadable = false; //!< "skip all" was answered to an unreadable entry
    QHash<QByteArray, Inside> counted; //!< what each counted folder holds, by keyOf()
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
    CopyEntry d;
    if (request.target != CopyRequest::Target::As) {
        r = b.stat(destPlace, &d, true);
        if (!r.ok() && (into || r.code() != ErrDoesNotExist))
            return r;
        if (into && !d.isFolder())
            return WorkerResult::fail(ErrIsNotDirectory, dest);
        into = r.ok() && d.isFolder();
    }
    if (!into && request.sources.size() != 1)
        return WorkerResult::fail(ErrIsNotDirectory, dest);
    // Everything goes into the very folder stated here (for the file worker: one
    // descriptor of it), whatever is put at its name meanwhile.
    CopyPlace destInside = destPlace;
    if (into) {
        r = b.enter(destPlace, &d, &destInside);
        if (!r.ok())
            return r;
    }
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
        s.dst = into ? b.child(destInside, s.entry.name) : destPlace;
        if (!s.dst.isValid())
            return WorkerResult::fail(ErrMalformedUrl, dest);
        if (s.entry.isFolder() && b.isInside(s.entry, s.dst))
            return WorkerResult::fail(ErrCycle, url);
        sources->append(s);
    }
    return WorkerResult::pass();
}

// What \a folder holds, remembered for the skip accounting and for folders taken whole.
// A folder that cannot be listed adds nothing and is not remembered: the copy asks about
// it or reports why when it gets there, and counts what it finds then (copyFolder()).
bool TreeCopyPrivate::count(const CopyEntry &folder, Inside *in)
{
    if (cancelled(folder.place))
        return false;
    QList<CopyEntry> entries;
    Inside here;
    if (!b.list(folder, &entries).ok()) {
        *in = here;
        return true;
    }
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
    counted.insert(keyOf(b, folder.place), here);
    *in = here;
    return true;
}

bool TreeCopyPrivate::freeName(const CopyEntry &src, CopyPlace *dst)
{
    WorkerResult failed = WorkerResult::pass();
    CopyPlace found;
    const QUrl dstUrl = urlOf(*dst);
    const QByteArray name = Url::fileName(dstUrl);
    const QByteArray free = firstFreeName(name, src.isFolder(), [&](const QByteArray &candidate) {
        if (o.wasKilled()) {
            failed = WorkerResult::fail(ErrCancelled, dstUrl);
            return NameProbe::Failed;
        }
        found = b.sibling(*dst, candidate);
        if (!found.isValid()) {
            failed = WorkerResult::fail(ErrNameTooLong, dstUrl);
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
        return fail(failed.ok() ? WorkerResult::fail(ErrAlreadyExists, dstUrl) : failed);
    *dst = found;
    return true;
}

// An entry left alone: never processed; its bytes (a folder's with what it holds) leave
// the byte total (copyrules.h's accounting).
bool TreeCopyPrivate::skip(const CopyEntry &src, const CopyPlace &dst)
{
    amounts.skip(src.isFolder() ? inside(src).bytes : sizeOf(src));
    totalsChanged();
    o.setSkipped(amounts.skipped);
    item(CopyItemEvent::Skipped, src.place, dst);
    report();
    return true;
}

// An entry left out of the copy without a choice (unreadable, gone): out of the byte
// total as a skipped one, not counted as skipped.
void TreeCopyPrivate::leaveOut(const CopyEntry &src)
{
    amounts.leaveOut(src.isFolder() ? inside(src).bytes : sizeOf(src));
    totalsChanged();
    report();
}

TreeCopyPrivate::AfterFailure TreeCopyPrivate::onSourceFailure(const CopyEntry &src, const WorkerResult &r, bool inTree)
{
    if (!inTree || (r.code() != ErrAccessDenied && r.code() != ErrDoesNotExist))
        return AfterFailure::End;
    const QUrl url = urlOf(src.place);
    if (r.args().value(0) != url.toEncoded())
        return AfterFailure::End; // about the destination
    if (r.code() == ErrDoesNotExist) {
        leaveOut(src); // deleted since it was listed
        return AfterFailure::PassOver;
    }
    UnreadableAction action = UnreadableAction::Skip;
    if (!skipUnreadable) {
        const UnreadableAnswer a = o.askUnreadable(UnreadableQuestion { url, r.code() });
        action = a.action;
        skipUnreadable = a.applyToAll && a.action == UnreadableAction::Skip;
    }
    switch (action) {
    case UnreadableAction::Retry:
        return AfterFailure::Retry;
    case UnreadableAction::Cancel:
        fail(ErrCancelled, url);
        return AfterFailure::End;
    case UnreadableAction::Skip:
        break;
    }
    o.leftOut(url, r.code()); // the job ends with ErrPartial
    leaveOut(src);
    return AfterFailure::PassOver;
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
    item(event, src.place, dst);
    report();
}

bool TreeCopyPrivate::copyEntry(const CopyEntry &src, CopyPlace dst, bool inNewFolder, bool inTree)
{
    if (cancelled(src.place))
        return false;
    // In a folder this copy has just made nothing is in the way but what someone adds
    // meanwhile, and that is never replaced: every primitive creates without replacing
    // (ErrAlreadyExists). No stat per entry there.
    CopyDecision d { CopyAction::Create, 0 };
    WorkerResult r = WorkerResult::pass();
    CopyEntry existing;
    if (!inNewFolder) {
        r = b.stat(dst, &existing, false);
        if (!r.ok() && r.code() != ErrDoesNotExist)
            return fail(r);
        const CopyTarget target = !r.ok() ? CopyTarget::Absent
            : existing.isFolder()         ? CopyTarget::Folder
                                          : CopyTarget::Other;
        const bool identical = target != CopyTarget::Absent && b.isSame(src, existing);
        d = decideCopyAsking(&policy, src.isFolder(), target, identical, [&] {
            return o.askConflict(ConflictQuestion { urlOf(src.place), urlOf(dst) });
        });
    }
    CopyAction action = d.action;
    switch (action) {
    case CopyAction::Fail:
        return fail(d.error == ErrNotAnswered && o.wasKilled() ? ErrCancelled : d.error, urlOf(dst));
    case CopyAction::Ask: // never from decideCopyAsking()
        return fail(ErrInternal, urlOf(dst));
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
        switch (attempt(src, inTree, &r, [&] { return b.rename(src, dst, replace); })) {
        case Outcome::Done:
            whole(src, CopyItemEvent::Moved, dst);
            return true;
        case Outcome::PassedOver:
            return true;
        case Outcome::Failed:
            if (r.code() != ErrUnsupportedAction)
                return fail(r); // else: another device, say: copied, deleted at the end
            break;
        }
    }
    if (src.isFolder()) {
        if (action == CopyAction::Create && !request.move) {
            r = b.copyTree(src, dst);
            if (r.ok()) {
                whole(src, CopyItemEvent::CreatedFolder, dst);
                return true;
            }
            if (r.code() != ErrUnsupportedAction)
                return fail(r);
        }
        return copyFolder(src, dst, action == CopyAction::Merge ? &existing : nullptr, inTree);
    }
    item(CopyItemEvent::Copying, src.place, dst);
    const qint64 before = amounts.bytes;
    qint64 reported = 0; // a file that grew while it was copied counts what was copied
    const Outcome outcome = attempt(src, inTree, &r, [&] {
        switch (src.type) {
        case CopyEntry::Type::Link:
            return b.copyLink(src, dst, replace);
        case CopyEntry::Type::Special:
            return b.copySpecial(src, dst, replace);
        case CopyEntry::Type::File:
        case CopyEntry::Type::Folder:
            break;
        }
        return b.copyFile(src, dst, replace, [this, before, &reported](qint64 n) {
            reported = n;
            amounts.bytes = addBytes(before, n);
            report();
        });
    });
    amounts.bytes = outcome == Outcome::Done ? addBytes(before, qMax(sizeOf(src), reported)) : before;
    if (outcome != Outcome::Done)
        return outcome == Outcome::PassedOver || fail(r);
    ++amounts.files;
    if (request.move)
        copied.append(kept(src));
    item(CopyItemEvent::Copied, src.place, dst);
    report();
    return true;
}

// The folder \a src copied to \a dst: made there, or merged into \a existing.
bool TreeCopyPrivate::copyFolder(const CopyEntry &src, const CopyPlace &dst, const CopyEntry *existing, bool inTree)
{
    QList<CopyEntry> entries;
    WorkerResult r = WorkerResult::pass();
    const Outcome listed = attempt(src, inTree, &r, [&] { return b.list(src, &entries); });
    if (listed != Outcome::Done)
        return listed == Outcome::PassedOver || fail(r);
    const bool create = !existing;
    CopyPlace in = dst;
    if (create) {
        r = b.makeFolder(src, dst);
        if (r.ok()) {
            made.append({ kept(src), kept(dst) });
            r = b.enter(dst, nullptr, &in);
        }
        if (!r.ok())
            return fail(r);
        item(CopyItemEvent::CreatedFolder, src.place, dst);
    } else {
        r = b.enter(dst, existing, &in);
        if (!r.ok())
            return fail(r);
    }
    if (!wasCounted(src)) {
        // Nothing was counted here: the totals grow as folders are found.
        for (const CopyEntry &e : std::as_const(entries)) {
            ++(e.isFolder() ? amounts.totalFolders : amounts.totalFiles);
            amounts.totalBytes = addBytes(amounts.totalBytes, sizeOf(e));
        }
        if (!entries.isEmpty())
            totalsChanged();
    }
    for (const CopyEntry &e : std::as_const(entries)) {
        const CopyPlace to = b.child(in, e.name);
        if (!to.isValid())
            return fail(ErrMalformedUrl, urlOf(dst));
        if (!copyEntry(e, to, create, true))
            return false;
    }
    ++amounts.folders;
    if (request.move)
        copied.append(kept(src));
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
        if (cancelled(e.place))
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
            // A tree a move will rename whole is one entry: counting it could take longer
            // than the move (if it is copied after all, it is counted as it goes).
            if (!s.entry.isFolder() || (request.move && b.renamesWhole(s.entry, s.dst)))
                continue;
            Inside in;
            if (!count(s.entry, &in))
                return result;
            amounts.totalBytes = addBytes(amounts.totalBytes, in.bytes);
            amounts.totalFiles += in.files;
            amounts.totalFolders += in.folders;
        }
    }
    reportTotals();

    enter(Stage::Copying);
    for (const Source &s : std::as_const(sources)) {
        if (!copyEntry(s.entry, s.dst, false, false))
            break;
    }
    enter(Stage::FinishingFolders);
    finishFolders();
    if (result.ok() && request.move) {
        enter(Stage::DeletingSources);
        deleteSources();
    }
    if (totalsPending)
        reportTotals();
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
