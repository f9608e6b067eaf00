// SPDX-License-Identifier: LGPL-2.1-or-later
// The WebDAV writes of the http worker but uploads: mkdir (MKCOL), delete (DELETE),
// rename (MOVE) and copies inside one server (COPY / MOVE).
#include "httpworker.h"

#include "copyrules.h"
#include "http_debug.h"
#include "url.h"

#include <QHash>

#include <functional>

namespace Qvfs
{

using namespace Http;

namespace
{

DavClient::Kind kindOf(const DavEntry &e)
{
    return e.isCollection ? DavClient::Kind::Collection : DavClient::Kind::File;
}

// Whether \a url is inside the collection \a folder (same origin).
bool isBelow(const QUrl &url, const QUrl &folder)
{
    QString f = folder.path(QUrl::FullyEncoded);
    while (f.endsWith(u'/'))
        f.chop(1);
    return url.path(QUrl::FullyEncoded).startsWith(f + u'/');
}

} // namespace

// ---------------------------------------------------------------- mkdir

WorkerResult HttpWorker::mkdir(const MkdirRequest &request)
{
    begin(request.url);
    if (!m_davRequest)
        return WorkerResult::fail(ErrUnsupportedAction, request.url);
    Result r = m_dav->mkcol(request.url);
    if (!request.parents)
        return result(r);
    if (r.error == ErrAlreadyExists) {
        // `mkdir -p`: an existing folder is fine, a file is not
        DavEntry e;
        const Result s = m_dav->stat(request.url, &e);
        if (s.ok() && e.isCollection)
            return WorkerResult::pass();
        return result(r);
    }
    if (r.error != ErrDoesNotExist)
        return result(r);
    // Missing parents: find the deepest existing ancestor, then make the rest downwards.
    QList<QUrl> missing { request.url };
    QUrl up = Url::parent(request.url);
    for (int depth = 0; depth < 256; ++depth) {
        if (Url::fileName(up).isEmpty())
            break; // the root exists
        r = m_dav->mkcol(up);
        if (r.ok())
            break;
        if (r.error == ErrAlreadyExists) {
            DavEntry e;
            const Result s = m_dav->stat(up, &e);
            if (!s.ok())
                return result(s);
            if (!e.isCollection)
                return WorkerResult::fail(ErrIsNotDirectory, up);
            break;
        }
        if (r.error != ErrDoesNotExist)
            return result(r);
        missing.prepend(up);
        up = Url::parent(up);
    }
    for (const QUrl &u : std::as_const(missing)) {
        r = m_dav->mkcol(u);
        if (r.error == ErrAlreadyExists) {
            DavEntry e;
            if (m_dav->stat(u, &e).ok() && e.isCollection)
                continue; // made meanwhile by someone else
        }
        if (!r.ok())
            return result(r);
    }
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- delete

WorkerResult HttpWorker::del(const DeleteRequest &request)
{
    begin(request.url);
    if (!m_davRequest)
        return WorkerResult::fail(ErrUnsupportedAction, request.url);
    DavEntry e;
    Result r = m_dav->stat(request.url, &e);
    if (!r.ok())
        return result(r);
    switch (request.scope) {
    case DeleteRequest::Scope::Tree:
        // one DELETE, Depth infinity, for a whole tree: the server removes it
        r = m_dav->remove(request.url, true, kindOf(e));
        break;
    case DeleteRequest::Scope::Entry:
        // An empty folder only. The emptiness is checked with a PROPFIND first, then the
        // folder goes with DELETE (which has no "only if empty" form): a member added in
        // between would go with it. Best effort, and documented as such.
        r = m_dav->remove(request.url, false, kindOf(e));
        break;
    case DeleteRequest::Scope::NotFolder:
        if (e.isCollection)
            return WorkerResult::fail(ErrIsDirectory, request.url);
        r = m_dav->remove(request.url, false, DavClient::Kind::File);
        break;
    }
    if (r.ok())
        setResult(ResultKey::Removed, 1); // a tree counts as one: the server does not say more
    return result(r);
}

// ---------------------------------------------------------------- rename

WorkerResult HttpWorker::rename(const RenameRequest &request)
{
    begin(request.source);
    if (!m_davRequest || !isDav(request.destination)
        || HttpClient::origin(request.source) != HttpClient::origin(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    DavEntry src;
    Result r = m_dav->stat(request.source, &src);
    if (!r.ok())
        return result(r);
    if (request.overwrite) {
        // MOVE with Overwrite T deletes whatever is in the way, a whole tree included; a
        // rename replaces a file by a file, or a folder by an empty folder, like rename(2).
        DavEntry dst;
        const Result s = m_dav->stat(request.destination, &dst);
        if (s.ok()) {
            if (dst.isCollection && !src.isCollection)
                return WorkerResult::fail(ErrIsDirectory, request.destination);
            if (!dst.isCollection && src.isCollection)
                return WorkerResult::fail(ErrIsNotDirectory, request.destination);
            if (dst.isCollection) {
                bool members = false;
                const Result l = m_dav->list(request.destination, [&](const DavEntry &) {
                    members = true;
                    return false;
                });
                if (!l.ok())
                    return result(l);
                if (members)
                    return WorkerResult::fail(ErrDirectoryNotEmpty, request.destination);
            }
        } else if (s.error != ErrDoesNotExist) {
            return result(s);
        }
    }
    return result(m_dav->move(request.source, request.destination, request.overwrite, kindOf(src)));
}

// ---------------------------------------------------------------- copy inside one server

WorkerResult HttpWorker::copy(const CopyRequest &request)
{
    begin(request.destination);
    const QUrl &dest = request.destination;
    if (!m_davRequest)
        return WorkerResult::fail(ErrUnsupportedAction, dest);
    for (const QUrl &s : request.sources) {
        if (!isDav(s) || HttpClient::origin(s) != HttpClient::origin(dest))
            return WorkerResult::fail(ErrUnsupportedAction, s);
    }
    bool into = request.target == CopyRequest::Target::Into;
    if (request.target == CopyRequest::Target::IntoIfFolder) {
        DavEntry d;
        const Result s = m_dav->stat(dest, &d);
        if (!s.ok() && s.error != ErrDoesNotExist)
            return result(s);
        into = s.ok() && d.isCollection;
    }
    if (!into && request.sources.size() != 1)
        return WorkerResult::fail(ErrIsNotDirectory, dest);
    struct Op
    {
        QUrl src;
        QUrl dst;
        DavEntry source;
    };
    // Every source is stated before anything changes. With countFirst a collection is
    // counted with what it holds (one PROPFIND per folder; COPY and MOVE then take it
    // whole), else as one folder, and the members of a merged one as the merge finds them.
    QList<Op> ops;
    CopyAmounts amounts;
    struct Inside
    {
        qint64 bytes = 0;
        qint64 files = 0;
        qint64 folders = 0;
    };
    QHash<QString, Inside> counted; // each counted collection, by URL
    auto keyOf = [](const QUrl &u) { return u.adjusted(QUrl::StripTrailingSlash).toString(QUrl::FullyEncoded); };
    std::function<Result(const QUrl &, Inside *)> countInside = [&](const QUrl &folder, Inside *in) -> Result {
        QList<DavEntry> members;
        Result r = m_dav->list(folder, [&members](const DavEntry &e) {
            members.append(e);
            return true;
        });
        if (!r.ok())
            return r;
        Inside here;
        for (const DavEntry &m : std::as_const(members)) {
            if (wasKilled())
                return Result::fail(ErrCancelled, folder);
            if (!m.isCollection) {
                ++here.files;
                here.bytes += qMax<qint64>(m.size, 0);
                continue;
            }
            Inside sub;
            r = countInside(Url::child(folder, m.name), &sub);
            if (!r.ok())
                return r;
            here.bytes += sub.bytes;
            here.files += sub.files;
            here.folders += 1 + sub.folders;
        }
        counted.insert(keyOf(folder), here);
        *in = here;
        return Result::pass();
    };
    for (const QUrl &s : request.sources) {
        Op op;
        op.src = s;
        op.dst = into ? Url::child(dest, Url::fileName(s)) : dest;
        if (!op.dst.isValid())
            return WorkerResult::fail(ErrMalformedUrl, dest);
        const Result r = m_dav->stat(s, &op.source);
        if (!r.ok())
            return result(r);
        if (op.source.isCollection && isBelow(op.dst, s))
            return WorkerResult::fail(ErrCycle, s);
        if (op.source.isCollection) {
            ++amounts.totalFolders;
            Inside in;
            if (request.countFirst) {
                const Result c = countInside(s, &in);
                if (!c.ok())
                    return result(c);
            }
            amounts.totalBytes += in.bytes;
            amounts.totalFiles += in.files;
            amounts.totalFolders += in.folders;
        } else {
            ++amounts.totalFiles;
            amounts.totalBytes += qMax<qint64>(op.source.size, 0);
        }
        ops.append(op);
    }
    setTotals(amounts.totalBytes, amounts.totalFiles, amounts.totalFolders);

    // The decisions and the accounting of copyrules.h: a skipped entry is never
    // processed, its bytes leave the byte total.
    ConflictPolicy policy = request.conflict;
    WorkerResult failed = WorkerResult::pass();
    auto fail = [&failed](const WorkerResult &r) {
        failed = r;
        return false;
    };
    auto transfer = [&](const QUrl &src, const DavEntry &source, const QUrl &to, bool overwrite) {
        if (!source.isCollection)
            reportItem(CopyItemEvent::Copying, src, to);
        const DavClient::Kind kind = kindOf(source);
        return request.move ? m_dav->move(src, to, overwrite, kind) : m_dav->copy(src, to, overwrite, kind);
    };
    auto inside = [&](const QUrl &src, const DavEntry &source) {
        return source.isCollection ? counted.value(keyOf(src)) : Inside();
    };
    auto done = [&](const QUrl &src, const DavEntry &source, const QUrl &to) {
        if (source.isCollection) {
            const Inside in = inside(src, source); // taken whole by COPY or MOVE
            amounts.bytes += in.bytes;
            amounts.files += in.files;
            amounts.folders += 1 + in.folders;
            reportItem(request.move ? CopyItemEvent::Moved : CopyItemEvent::CreatedFolder, src, to);
        } else {
            ++amounts.files;
            amounts.bytes += qMax<qint64>(source.size, 0);
            reportItem(request.move ? CopyItemEvent::Moved : CopyItemEvent::Copied, src, to);
        }
        setProcessed(amounts.bytes, amounts.files, amounts.folders);
    };
    // One entry: what is at \a dst decides (a collection onto a collection is merged here,
    // member by member, each member copied or moved by the server).
    std::function<bool(const QUrl &, const DavEntry &, const QUrl &)> copyEntry
        = [&](const QUrl &src, const DavEntry &source, const QUrl &dst) -> bool {
        if (wasKilled())
            return fail(WorkerResult::fail(ErrCancelled));
        DavEntry existing;
        Result r = m_dav->stat(dst, &existing);
        if (!r.ok() && r.error != ErrDoesNotExist)
            return fail(result(r));
        const CopyTarget target = !r.ok() ? CopyTarget::Absent
            : existing.isCollection       ? CopyTarget::Folder
                                          : CopyTarget::Other;
        const bool identical = target != CopyTarget::Absent
            && src.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword)
                == dst.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword);
        const CopyDecision d = decideCopyAsking(&policy, source.isCollection, target, identical, [&] {
            return askConflict(ConflictQuestion { src, dst });
        });
        QUrl to = dst;
        switch (d.action) {
        case CopyAction::Skip:
            amounts.skip(source.isCollection ? inside(src, source).bytes : source.size);
            setTotals(amounts.totalBytes, amounts.totalFiles, amounts.totalFolders);
            setSkipped(amounts.skipped);
            reportItem(CopyItemEvent::Skipped, src, dst);
            setProcessed(amounts.bytes, amounts.files, amounts.folders);
            return true;
        case CopyAction::Merge: {
            QList<DavEntry> members;
            r = m_dav->list(
                src,
                [&members](const DavEntry &e) {
                    members.append(e);
                    return true;
                },
                nullptr, [&](QByteArrayView unsafe) { leftOutUnsafeName(src, unsafe); });
            if (!r.ok())
                return fail(result(r));
            if (!request.countFirst) {
                for (const DavEntry &m : std::as_const(members)) {
                    ++(m.isCollection ? amounts.totalFolders : amounts.totalFiles);
                    if (!m.isCollection)
                        amounts.totalBytes += qMax<qint64>(m.size, 0);
                }
                setTotals(amounts.totalBytes, amounts.totalFiles, amounts.totalFolders);
            }
            for (const DavEntry &m : std::as_const(members)) {
                if (!copyEntry(Url::child(src, m.name), m, Url::child(dst, m.name)))
                    return false;
            }
            if (request.move) {
                // Emptied by the moves, unless something in it was skipped.
                r = m_dav->remove(src, false, DavClient::Kind::Collection);
                if (!r.ok() && r.error != ErrDirectoryNotEmpty)
                    return fail(result(r));
            }
            ++amounts.folders;
            setProcessed(amounts.bytes, amounts.files, amounts.folders);
            return true;
        }
        case CopyAction::Rename: {
            const QUrl folder = Url::parent(dst);
            r = Result::fail(ErrAlreadyExists, dst);
            firstFreeName(Url::fileName(dst), source.isCollection, [&](const QByteArray &candidate) {
                if (wasKilled()) {
                    r = Result::fail(ErrCancelled, dst);
                    return NameProbe::Failed;
                }
                to = Url::child(folder, candidate);
                if (!to.isValid()) {
                    r = Result::fail(ErrNameTooLong, dst);
                    return NameProbe::Failed;
                }
                r = transfer(src, source, to, false); // Overwrite F: a name taken meanwhile is a 412, never replaced
                return r.ok() ? NameProbe::Free : r.error == ErrAlreadyExists ? NameProbe::Taken : NameProbe::Failed;
            });
            break;
        }
        case CopyAction::Create:
        case CopyAction::Replace:
            r = transfer(src, source, to, d.action == CopyAction::Replace);
            break;
        case CopyAction::Ask: // never from decideCopyAsking()
            return fail(WorkerResult::fail(ErrInternal, dst));
        case CopyAction::Fail:
            return fail(WorkerResult::fail(d.error == ErrNotAnswered && wasKilled() ? ErrCancelled : d.error, dst));
        }
        if (!r.ok())
            return fail(result(r));
        done(src, source, to);
        return true;
    };
    for (const Op &op : std::as_const(ops)) {
        if (!copyEntry(op.src, op.source, op.dst))
            return failed;
    }
    return WorkerResult::pass();
}

} // namespace Qvfs
