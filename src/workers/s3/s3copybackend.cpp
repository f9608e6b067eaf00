// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies and moves inside one S3 endpoint: the S3 primitives under the worker library's
// TreeCopy, which decides everything else. A file is copied by the server (CopyObject: no
// byte through the worker; in parts, UploadPartCopy, past m_copyPartSize), a folder is a marker made and filled entry
// by entry; S3 has no rename, so a move is a copy and a delete of what was copied (not atomic), and a rename is such a
// move.
#include "s3worker.h"

#include "error.h"
#include "treecopy.h"
#include "url.h"

namespace Qvfs
{

using namespace S3;

/*! The primitives of a copy on one S3 endpoint; the address is "bucket/key". */
class S3CopyBackend final : public CopyBackend
{
public:
    explicit S3CopyBackend(S3Worker *worker)
        : w(worker)
        , s3(*worker->m_s3)
    { }

    WorkerResult begin(const CopyRequest &request) override
    {
        Location dest;
        if (!Location::parse(request.destination, &dest))
            return WorkerResult::fail(ErrUnsupportedAction, request.destination);
        for (const QUrl &s : request.sources) {
            Location source;
            if (!Location::parse(s, &source) || source.endpoint != dest.endpoint || source.bucket.isEmpty())
                return WorkerResult::fail(ErrUnsupportedAction, s);
        }
        if (dest.bucket.isEmpty())
            return WorkerResult::fail(ErrUnsupportedAction, request.destination);
        return WorkerResult::pass();
    }
    WorkerResult place(const QUrl &url, CopyPlace *out) override
    {
        Location at;
        if (!Location::parse(url, &at))
            return WorkerResult::fail(ErrMalformedUrl, url);
        QByteArray key = at.key;
        while (key.endsWith('/'))
            key.chop(1);
        out->url = url;
        out->address = key.isEmpty() ? at.bucket : at.bucket + '/' + key;
        return WorkerResult::pass();
    }
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool) override
    {
        S3Worker::Found found;
        const WorkerResult r = w->find(location(place), &found);
        if (!r.ok())
            return r;
        out->place = place;
        out->name = Url::fileName(place.url);
        out->type = found.kind == S3Worker::Found::Folder ? CopyEntry::Type::Folder : CopyEntry::Type::File;
        out->size = out->isFolder() ? -1 : found.info.size;
        out->mtime = found.info.mtime.value_or(-1);
        return WorkerResult::pass();
    }
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override
    {
        out->clear();
        const Location at = location(folder.place);
        const QByteArray prefix = at.key.isEmpty() ? QByteArray() : at.key + '/';
        const S3::Result r = s3.list(at, prefix, true, [&](const ListEntry &e) {
            QByteArray name = e.key.mid(prefix.size());
            const bool isFolder = e.isPrefix || name.endsWith('/');
            while (name.endsWith('/'))
                name.chop(1);
            if (name.isEmpty())
                return true; // the folder's marker
            if (!Url::isSafeName(name)) {
                w->leftOutUnsafeName(folder.place.url, name);
                return true;
            }
            CopyEntry c;
            c.place = child(folder.place, name);
            c.name = name;
            c.type = isFolder ? CopyEntry::Type::Folder : CopyEntry::Type::File;
            c.size = isFolder ? -1 : e.size;
            c.mtime = e.mtime.value_or(-1);
            out->append(c);
            return !w->wasKilled();
        });
        return w->result(r);
    }
    bool isSame(const CopyEntry &a, const CopyEntry &b) override { return a.place.address == b.place.address; }
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override
    {
        return target.address.startsWith(QByteArray(folder.place.address + '/'));
    }
    bool renamesWhole(const CopyEntry &, const CopyPlace &) override { return false; } // S3 renames nothing
    WorkerResult makeFolder(const CopyEntry &, const CopyPlace &dst) override
    {
        const Location at = location(dst);
        return w->result(s3.put(at.withKey(at.key + '/'), QByteArray()));
    }
    void finishFolder(const CopyEntry &, const CopyPlace &) override { } // no attributes
    WorkerResult copyFile(const CopyEntry &source, const CopyPlace &dst, bool replace,
        const std::function<void(qint64)> &progress) override
    {
        const Location to = location(dst);
        if (!replace) {
            // S3 has no "if none match" on a copy: checked just before (a race stays possible)
            ObjectInfo info;
            const S3::Result h = s3.head(to, &info);
            if (h.ok())
                return WorkerResult::fail(ErrAlreadyExists, dst.url);
            if (h.error != ErrDoesNotExist)
                return w->result(h);
        }
        const Location from = location(source.place);
        if (source.size > w->m_copyPartSize) {
            ObjectInfo info;
            S3::Result r = s3.head(from, &info);
            if (r.ok() && info.size != source.size)
                r = S3::Result::fail(ErrSourceChanged, source.place.url);
            if (r.ok())
                r = s3.copyObjectInParts(from, info, to, w->m_copyPartSize, progress);
            return w->result(r);
        }
        const S3::Result r = s3.copyObject(from, to);
        if (r.ok() && progress && source.size > 0)
            progress(source.size);
        return w->result(r);
    }
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &, bool) override
    {
        return WorkerResult::fail(ErrCannotRead, source.place.url); // S3 has no links
    }
    WorkerResult rename(const CopyEntry &source, const CopyPlace &, bool) override
    {
        return WorkerResult::fail(ErrUnsupportedAction, source.place.url); // copied and deleted instead
    }
    WorkerResult remove(const CopyEntry &entry) override
    {
        const Location at = location(entry.place);
        if (!entry.isFolder()) {
            S3::Result r = s3.deleteObject(at);
            if (r.ok())
                r = w->keepParentFolder(at);
            return w->result(r);
        }
        const QByteArray marker = at.key + '/';
        bool other = false;
        const S3::Result r = s3.list(at, marker, false, [&](const ListEntry &e) {
            other = e.key != marker;
            return !other;
        });
        if (other)
            return WorkerResult::fail(ErrDirectoryNotEmpty, entry.place.url);
        if (!r.ok())
            return w->result(r);
        S3::Result d = s3.deleteObject(at.withKey(marker));
        if (d.ok())
            d = w->keepParentFolder(at);
        return w->result(d);
    }

private:
    // The location of \a place: its URL split, the key without a trailing slash.
    static Location location(const CopyPlace &place)
    {
        Location at;
        Location::parse(place.url, &at);
        while (at.key.endsWith('/'))
            at.key.chop(1);
        return at;
    }

    S3Worker *w;
    Client &s3;
};

WorkerResult S3Worker::copy(const CopyRequest &request)
{
    Location at;
    const WorkerResult w = begin(request.destination, &at);
    if (!w.ok())
        return w;
    S3CopyBackend backend(this);
    return TreeCopy(*this, backend, request).run();
}

WorkerResult S3Worker::rename(const RenameRequest &request)
{
    Location at;
    const WorkerResult w = begin(request.destination, &at);
    if (!w.ok())
        return w;
    // Not atomic: the server copies, then the source is deleted (docs/s3.md).
    CopyRequest copy;
    copy.sources = { request.source };
    copy.destination = request.destination;
    copy.target = CopyRequest::Target::As;
    copy.conflict = request.overwrite ? ConflictPolicy::Overwrite : ConflictPolicy::Fail;
    copy.move = true;
    copy.countFirst = false;
    S3CopyBackend backend(this);
    return TreeCopy(*this, backend, copy).run();
}

} // namespace Qvfs
