// SPDX-License-Identifier: LGPL-2.1-or-later
// The WebDAV writes of the http worker but uploads: mkdir (MKCOL), delete (DELETE),
// rename (MOVE). Copies inside one server are davcopybackend.cpp's.
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

} // namespace Qvfs
