// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies and moves inside one WebDAV server: the WebDAV primitives under the worker
// library's TreeCopy, which decides everything else. A file is copied with COPY and
// moved with MOVE, a collection nothing is in the way of is copied with one COPY
// (Depth infinity) and moved with one MOVE; a merge descends, member by member, so no
// data ever passes through the worker.
#include "httpworker.h"

#include "davclient_p.h"
#include "error.h"
#include "treecopy.h"
#include "url.h"

namespace Qvfs
{

using namespace Http;

/*! The primitives of a copy on one WebDAV server; the URL is the address. */
class DavCopyBackend final : public CopyBackend
{
public:
    explicit DavCopyBackend(HttpWorker *worker)
        : w(worker)
        , dav(*worker->m_dav)
    { }

    WorkerResult begin(const CopyRequest &request) override
    {
        const QUrl &dest = request.destination;
        if (!w->m_davRequest)
            return WorkerResult::fail(ErrUnsupportedAction, dest);
        for (const QUrl &s : request.sources) {
            if (!HttpWorker::isDav(s) || HttpClient::origin(s) != HttpClient::origin(dest))
                return WorkerResult::fail(ErrUnsupportedAction, s);
        }
        return WorkerResult::pass();
    }
    WorkerResult place(const QUrl &url, CopyPlace *out) override
    {
        out->url = url;
        return WorkerResult::pass();
    }
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool) override
    {
        DavEntry e;
        const Result r = dav.stat(place.url, &e); // WebDAV has no links of its own
        if (!r.ok())
            return w->result(r);
        *out = entryOf(place, Url::fileName(place.url), e);
        return WorkerResult::pass();
    }
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override
    {
        out->clear();
        const Result r = dav.list(
            folder.place.url,
            [&](const DavEntry &e) {
                out->append(entryOf(child(folder.place, e.name), e.name, e));
                return true;
            },
            nullptr, [&](QByteArrayView unsafe) { w->leftOutUnsafeName(folder.place.url, unsafe); });
        return w->result(r);
    }
    bool isSame(const CopyEntry &a, const CopyEntry &b) override { return keyOf(a.place.url) == keyOf(b.place.url); }
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override
    {
        QString f = folder.place.url.path(QUrl::FullyEncoded);
        while (f.endsWith(u'/'))
            f.chop(1);
        return target.url.path(QUrl::FullyEncoded).startsWith(f + u'/');
    }
    WorkerResult makeFolder(const CopyEntry &, const CopyPlace &dst) override { return w->result(dav.mkcol(dst.url)); }
    void finishFolder(const CopyEntry &, const CopyPlace &) override { } // no writable attributes
    WorkerResult copyFile(
        const CopyEntry &source, const CopyPlace &dst, bool replace, const std::function<void(qint64)> &) override
    {
        return w->result(dav.copy(source.place.url, dst.url, replace, DavClient::Kind::File));
    }
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &, bool) override
    {
        return WorkerResult::fail(ErrCannotRead, source.place.url); // never listed
    }
    WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) override
    {
        return w->result(dav.move(source.place.url, dst.url, replace, kindOf(source)));
    }
    WorkerResult remove(const CopyEntry &entry) override
    {
        return w->result(dav.remove(entry.place.url, false, kindOf(entry)));
    }
    WorkerResult copyTree(const CopyEntry &source, const CopyPlace &dst) override
    {
        return w->result(dav.copy(source.place.url, dst.url, false, DavClient::Kind::Collection));
    }

private:
    static CopyEntry entryOf(const CopyPlace &place, const QByteArray &name, const DavEntry &e)
    {
        CopyEntry c;
        c.place = place;
        c.name = name;
        c.type = e.isCollection ? CopyEntry::Type::Folder : CopyEntry::Type::File;
        c.size = e.isCollection ? -1 : e.size;
        c.mtime = e.mtime.value_or(-1);
        return c;
    }
    static DavClient::Kind kindOf(const CopyEntry &e)
    {
        return e.isFolder() ? DavClient::Kind::Collection : DavClient::Kind::File;
    }
    static QUrl keyOf(const QUrl &url) { return url.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword); }

    HttpWorker *w;
    DavClient &dav;
};

WorkerResult HttpWorker::copy(const CopyRequest &request)
{
    begin(request.destination);
    DavCopyBackend backend(this);
    return TreeCopy(*this, backend, request).run();
}

} // namespace Qvfs
