// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes of the s3 worker: uploads (one PUT up to a cutoff, multipart above it), folder
// markers, deletes of objects and prefixes.
#include "s3worker.h"

#include "davclient_p.h"
#include "s3_debug.h"
#include "url.h"

namespace Qvfs
{

using namespace S3;

namespace
{

// The folder part of \a key with its slash ("a/b/c" → "a/b/"; "c" → "").
QByteArray parentOf(QByteArray key)
{
    while (key.endsWith('/'))
        key.chop(1);
    const qsizetype slash = key.lastIndexOf('/');
    return slash < 0 ? QByteArray() : key.left(slash + 1);
}

QByteArray withoutSlash(QByteArray key)
{
    while (key.endsWith('/'))
        key.chop(1);
    return key;
}

} // namespace

S3::Result S3Worker::keepParentFolder(const Location &at)
{
    const QByteArray parent = parentOf(at.key);
    if (parent.isEmpty())
        return S3::Result::pass(); // the bucket's root stays anyway
    bool any = false;
    const S3::Result r = hasKeysUnder(at, parent, &any);
    if (!r.ok() || any)
        return r;
    qCDebug(QVFS_S3) << "keeping the folder" << parent << "with its marker";
    return m_s3->put(at.withKey(parent), QByteArray());
}

S3::Result S3Worker::deletePrefix(const Location &at, const QByteArray &prefix, qint64 *removed)
{
    // Listed whole first: deleting while paging would move the pages under the listing.
    QList<QByteArray> keys;
    S3::Result r = m_s3->list(at, prefix, false, [&](const ListEntry &e) {
        keys.append(e.key);
        return !wasKilled();
    });
    if (!r.ok())
        return r;
    for (qsizetype i = 0; i < keys.size(); i += 1000) {
        if (wasKilled())
            return S3::Result::fail(ErrCancelled);
        r = m_s3->deleteObjects(at, keys.mid(i, 1000));
        if (!r.ok())
            return r;
        *removed += qMin<qsizetype>(1000, keys.size() - i);
        setProcessed(-1, *removed);
    }
    return r;
}

// ---------------------------------------------------------------- put

WorkerResult S3Worker::put(const PutRequest &request)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (at.bucket.isEmpty() || at.key.isEmpty() || at.key.endsWith('/'))
        return WorkerResult::fail(ErrIsDirectory, request.url);
    // Before any byte: what is there, and whether the folder it goes into exists.
    Found found;
    w = find(at, &found);
    if (w.ok() && found.kind == Found::Folder)
        return WorkerResult::fail(ErrIsDirectory, request.url);
    if (w.ok() && !request.overwrite)
        return WorkerResult::fail(ErrAlreadyExists, request.url);
    if (!w.ok() && w.code() != ErrDoesNotExist)
        return w;
    const QByteArray parent = parentOf(at.key);
    if (!parent.isEmpty()) {
        bool any = false;
        const S3::Result r = hasKeysUnder(at, parent, &any);
        if (!r.ok())
            return result(r);
        if (!any)
            return WorkerResult::fail(ErrDoesNotExist, Url::parent(request.url));
    }

    SigV4::Pairs headers { { "Content-Type", Http::DavClient::guessMimeType(at.key) } };
    if (request.mtime >= 0) // as rclone writes it, so either reads the other's
        headers.append({ "x-amz-meta-mtime",
            QByteArray::number(request.mtime) + '.' + QByteArray::number(request.mtimeNs).rightJustified(9, '0') });
    setTotals(request.size, 1, -1);

    // The first part decides: data that ends within the cutoff goes up in one PUT.
    qint64 sent = 0;
    bool ended = false;
    QByteArray chunk;
    const auto fill = [&](QByteArray *buffer, qint64 limit) {
        while (!ended && buffer->size() < limit) {
            if (!readData(&chunk)) {
                ended = true;
                return;
            }
            buffer->append(chunk);
        }
    };
    QByteArray part;
    part.reserve(qMax(m_uploadCutoff, m_partSize) + 256 * 1024);
    fill(&part, m_uploadCutoff + 1);
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    if (ended && (request.size < 0 || part.size() == request.size)) {
        const S3::Result r = m_s3->put(at, part, headers);
        if (!r.ok())
            return result(r);
        setProcessed(part.size(), 1);
        if (request.mtime >= 0)
            setResult(ResultKey::TimesKept, 1);
        return WorkerResult::pass();
    }
    if (ended)
        return WorkerResult::fail(ErrSourceChanged, request.url); // fewer bytes than announced

    // Multipart: parts of m_partSize, one in flight; aborted on any failure or a kill, so
    // no part stays stored (and billed), and the object appears only once completed.
    QByteArray uploadId;
    S3::Result r = m_s3->createMultipart(at, headers, &uploadId);
    if (!r.ok())
        return result(r);
    QList<QByteArray> etags;
    QByteArray next;
    next.reserve(m_partSize + 256 * 1024);
    for (;;) {
        fill(&part, m_partSize);
        if (part.size() > m_partSize) { // the rest goes into the next part
            next.append(QByteArrayView(part).sliced(m_partSize));
            part.truncate(m_partSize);
        }
        if (wasKilled()) {
            r = S3::Result::fail(ErrCancelled);
            break;
        }
        if (part.isEmpty() && !etags.isEmpty())
            break;
        QByteArray etag;
        r = m_s3->uploadPart(at, uploadId, int(etags.size() + 1), part, &etag);
        if (!r.ok())
            break;
        etags.append(etag);
        sent += part.size();
        setProcessed(sent);
        part.swap(next);
        next.resize(0);
        if (ended && part.isEmpty())
            break;
    }
    if (r.ok() && request.size >= 0 && sent != request.size)
        r = S3::Result::fail(ErrSourceChanged, request.url);
    if (r.ok())
        r = m_s3->completeMultipart(at, uploadId, etags);
    if (!r.ok()) {
        const S3::Result a = m_s3->abortMultipart(at, uploadId);
        if (!a.ok())
            qCWarning(QVFS_S3) << "could not abort the upload of" << request.url.toDisplayString() << a.error;
        return result(r);
    }
    qCDebug(QVFS_S3) << "uploaded" << sent << "bytes in" << etags.size() << "parts";
    setProcessed(sent, 1);
    if (request.mtime >= 0)
        setResult(ResultKey::TimesKept, 1);
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- mkdir

WorkerResult S3Worker::mkdir(const MkdirRequest &request)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (at.bucket.isEmpty())
        return WorkerResult::fail(ErrAlreadyExists, request.url);
    const QByteArray key = withoutSlash(at.key);
    if (key.isEmpty()) {
        // a bucket; radosgw answers 200 for one of this user's that exists
        const S3::Result exists = m_s3->headBucket(at);
        if (exists.ok())
            return WorkerResult::fail(ErrAlreadyExists, request.url);
        if (exists.error != ErrDoesNotExist)
            return result(exists);
        return result(m_s3->createBucket(at));
    }
    Found found;
    w = find(at, &found);
    if (w.ok() && request.parents && found.kind == Found::Folder)
        return WorkerResult::pass(); // mkpath: there already
    if (w.ok())
        return WorkerResult::fail(ErrAlreadyExists, request.url);
    if (w.code() != ErrDoesNotExist)
        return w;
    const QByteArray parent = parentOf(key);
    if (!parent.isEmpty() && !request.parents) {
        bool any = false;
        const S3::Result r = hasKeysUnder(at, parent, &any);
        if (!r.ok())
            return result(r);
        if (!any)
            return WorkerResult::fail(ErrDoesNotExist, Url::parent(request.url));
    }
    // the marker alone: the folders above it are its prefixes
    return result(m_s3->put(at.withKey(key + '/'), QByteArray()));
}

// ---------------------------------------------------------------- delete

WorkerResult S3Worker::del(const DeleteRequest &request)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (at.bucket.isEmpty())
        return WorkerResult::fail(ErrAccessDenied, request.url);
    Found found;
    w = find(at, &found);
    if (!w.ok())
        return w;
    const QByteArray key = withoutSlash(at.key);
    if (found.kind == Found::File) {
        S3::Result r = m_s3->deleteObject(at.withKey(key));
        if (r.ok())
            r = keepParentFolder(at.withKey(key));
        if (r.ok())
            setResult(ResultKey::Removed, 1);
        return result(r);
    }
    if (request.scope == DeleteRequest::Scope::NotFolder)
        return WorkerResult::fail(ErrIsDirectory, request.url);
    const QByteArray prefix = key.isEmpty() ? QByteArray() : key + '/';
    if (request.scope == DeleteRequest::Scope::Entry) {
        bool other = false;
        const S3::Result r = m_s3->list(at, prefix, false, [&](const ListEntry &e) {
            other = e.key != prefix;
            return !other;
        });
        if (!r.ok() && !other)
            return result(r);
        if (other)
            return WorkerResult::fail(ErrDirectoryNotEmpty, request.url);
    }
    qint64 removed = 0;
    S3::Result r = deletePrefix(at, prefix, &removed);
    if (r.ok() && key.isEmpty())
        r = m_s3->deleteBucket(at);
    else if (r.ok())
        r = keepParentFolder(at.withKey(key));
    if (!r.ok())
        return result(r);
    setResult(ResultKey::Removed, qMax<qint64>(removed, 1));
    return WorkerResult::pass();
}

} // namespace Qvfs
