// SPDX-License-Identifier: LGPL-2.1-or-later
// The WebDAV writes of the http worker but uploads: mkdir (MKCOL), delete (DELETE),
// rename (MOVE) and copies inside one server (COPY / MOVE).
#include "httpworker.h"

#include "http_debug.h"
#include "url.h"

namespace Qvfs
{

using namespace Http;

namespace
{

DavClient::Kind kindOf(const DavEntry &e)
{
    return e.isCollection ? DavClient::Kind::Collection : DavClient::Kind::File;
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
    // The plan first, with nothing changed yet: what the server cannot do the way the copy
    // job promises (merging a folder into an existing one, replacing a folder by a file
    // or the other way round) goes back to the job (ErrUnsupportedAction), which copies
    // those entry by entry.
    bool into = request.target == CopyRequest::Target::Into;
    if (request.target == CopyRequest::Target::IntoIfFolder) {
        DavEntry d;
        const Result s = m_dav->stat(dest, &d);
        if (!s.ok() && s.error != ErrDoesNotExist)
            return result(s);
        into = s.ok() && d.isCollection;
    }
    struct Op
    {
        QUrl src;
        QUrl dst;
        DavEntry source;
        bool exists = false;
        bool existingIsCollection = false;
    };
    QList<Op> ops;
    qint64 totalBytes = 0;
    qint64 totalFiles = 0;
    qint64 totalDirs = 0;
    for (const QUrl &s : request.sources) {
        Op op;
        op.src = s;
        op.dst = into ? Url::child(dest, Url::fileName(s)) : dest;
        if (!op.dst.isValid())
            return WorkerResult::fail(ErrMalformedUrl, dest);
        Result r = m_dav->stat(s, &op.source);
        if (!r.ok())
            return result(r);
        DavEntry d;
        r = m_dav->stat(op.dst, &d);
        if (r.ok()) {
            op.exists = true;
            op.existingIsCollection = d.isCollection;
            const ConflictPolicy p = request.conflict;
            if (op.source.isCollection && d.isCollection && p != ConflictPolicy::Rename)
                return WorkerResult::fail(ErrUnsupportedAction, op.dst); // merged by the job
            if (op.source.isCollection != d.isCollection
                && (p == ConflictPolicy::Overwrite || p == ConflictPolicy::Ask))
                return WorkerResult::fail(ErrUnsupportedAction, op.dst); // the job decides
        } else if (r.error != ErrDoesNotExist) {
            return result(r);
        }
        if (op.source.isCollection) {
            ++totalDirs;
        } else {
            ++totalFiles;
            totalBytes += qMax<qint64>(op.source.size, 0);
        }
        ops.append(op);
    }
    setTotals(totalBytes, totalFiles, totalDirs);

    qint64 doneBytes = 0;
    qint64 doneFiles = 0;
    qint64 doneDirs = 0;
    qint64 skipped = 0;
    std::optional<ConflictAction> forAll;
    auto transfer = [&](const Op &op, const QUrl &to, bool overwrite) {
        if (!op.source.isCollection)
            reportItem(CopyItemEvent::Copying, op.src, to);
        const DavClient::Kind kind = kindOf(op.source);
        return request.move ? m_dav->move(op.src, to, overwrite, kind) : m_dav->copy(op.src, to, overwrite, kind);
    };
    for (const Op &op : std::as_const(ops)) {
        if (wasKilled())
            return WorkerResult::fail(ErrCancelled);
        QUrl to = op.dst;
        bool overwrite = false;
        bool skip = false;
        bool freeName = false;
        if (op.exists) {
            ConflictAction action = ConflictAction::Cancel;
            switch (request.conflict) {
            case ConflictPolicy::Fail:
                return WorkerResult::fail(ErrAlreadyExists, op.dst);
            case ConflictPolicy::Overwrite:
                action = ConflictAction::Overwrite;
                break;
            case ConflictPolicy::Skip:
                action = ConflictAction::Skip;
                break;
            case ConflictPolicy::Rename:
                action = ConflictAction::Rename;
                break;
            case ConflictPolicy::Ask:
                if (forAll) {
                    action = *forAll;
                    break;
                }
                {
                    const ConflictAnswer a = askConflict(ConflictQuestion { op.src, op.dst });
                    if (!a.answered)
                        return WorkerResult::fail(wasKilled() ? ErrCancelled : ErrNotAnswered, op.dst);
                    action = a.action;
                    if (a.applyToAll)
                        forAll = action;
                }
                break;
            }
            switch (action) {
            case ConflictAction::Overwrite:
                overwrite = true;
                break;
            case ConflictAction::Skip:
                skip = true;
                break;
            case ConflictAction::Rename:
                freeName = true;
                break;
            case ConflictAction::Cancel:
                return WorkerResult::fail(ErrCancelled);
            }
        }
        if (skip) {
            setSkipped(++skipped);
            reportItem(CopyItemEvent::Skipped, op.src, op.dst);
            continue;
        }
        Result r;
        if (freeName) {
            const QByteArray name = Url::fileName(op.dst);
            const QUrl folder = Url::parent(op.dst);
            r = Result::fail(ErrAlreadyExists, op.dst);
            for (int attempt = 0; attempt < MaxFreeNameAttempts && r.error == ErrAlreadyExists; ++attempt) {
                if (wasKilled())
                    return WorkerResult::fail(ErrCancelled);
                to = Url::child(folder, freeNameCandidate(name, op.source.isCollection, attempt));
                if (!to.isValid())
                    return WorkerResult::fail(ErrNameTooLong, op.dst);
                r = transfer(op, to, false); // Overwrite F: a name taken meanwhile is a 412, never replaced
            }
        } else {
            r = transfer(op, to, overwrite);
        }
        if (!r.ok())
            return result(r);
        if (op.source.isCollection) {
            ++doneDirs;
            reportItem(request.move ? CopyItemEvent::Moved : CopyItemEvent::CreatedFolder, op.src, to);
        } else {
            ++doneFiles;
            doneBytes += qMax<qint64>(op.source.size, 0);
            reportItem(request.move ? CopyItemEvent::Moved : CopyItemEvent::Copied, op.src, to);
        }
        setProcessed(doneBytes, doneFiles, doneDirs);
    }
    return WorkerResult::pass();
}

} // namespace Qvfs
