// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes of the s3 worker: uploads (one PUT up to a cutoff, multipart above it), folder
// markers, deletes of objects and prefixes.
#include "s3worker.h"

#include "davclient_p.h"
#include "fileops_util_p.h"
#include "localfilewriter.h"
#include "partuploads_p.h"
#include "s3_debug.h"
#include "url.h"

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

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
    QByteArray chunk;
    Source source;
    source.size = request.size;
    source.fill = [&](QByteArray *buffer, qint64 limit) {
        while (buffer->size() < limit) {
            if (!readData(&chunk))
                return false;
            buffer->append(chunk);
        }
        return true;
    };
    return upload(at.url, at, request.overwrite, request.mtime, request.mtimeNs, source);
}

// ---------------------------------------------------------------- copyFromFile

WorkerResult S3Worker::copyFromFile(const FileCopyRequest &request)
{
    Location at;
    WorkerResult w = begin(request.destination, &at);
    if (!w.ok())
        return w;
    if (!Url::isLocalFile(request.source))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    const QByteArray path = Url::localPath(request.source);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.source);
    // never through a symlink, and that very file when the plan knows which
    WorkerResult opened = WorkerResult::pass();
    FileOps::Fd in(LocalFileWriter::openSource(path, request.expected, &opened));
    if (!in.valid())
        return opened;
    struct stat st;
    if (::fstat(in.get(), &st) != 0)
        return WorkerResult::fail(ErrCannotRead, request.source);
    // read by the worker itself, straight into the part being filled: no byte through the
    // application, no copy of a chunk
    int readErrno = 0;
    Source source;
    source.size = qint64(st.st_size);
    source.fill = [&](QByteArray *buffer, qint64 limit) {
        while (buffer->size() < limit) {
            const qsizetype had = buffer->size();
            const qsizetype want = qsizetype(qMin<qint64>(limit - had, 1024 * 1024));
            buffer->resize(had + want);
            const ssize_t n = ::read(in.get(), buffer->data() + had, size_t(want));
            buffer->resize(had + qMax<qsizetype>(n, 0));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                readErrno = errno;
            if (n <= 0 || wasKilled())
                return false;
        }
        return true;
    };
    w = upload(at.url, at, request.overwrite, request.mtime, request.mtimeNs, source);
    if (!w.ok() && readErrno && !wasKilled())
        return WorkerResult::fail(ErrCannotRead, request.source);
    return w;
}

// ---------------------------------------------------------------- upload

WorkerResult S3Worker::upload(
    const QUrl &url, const Location &at, bool overwrite, qint64 mtime, qint64 mtimeNs, const Source &source)
{
    if (at.bucket.isEmpty() || at.key.isEmpty() || at.key.endsWith('/'))
        return WorkerResult::fail(ErrIsDirectory, url);
    // Before any byte: what is there, and whether the folder it goes into exists.
    Found found;
    WorkerResult w = find(at, &found);
    if (w.ok() && found.kind == Found::Folder)
        return WorkerResult::fail(ErrIsDirectory, url);
    if (w.ok() && !overwrite)
        return WorkerResult::fail(ErrAlreadyExists, url);
    if (!w.ok() && w.code() != ErrDoesNotExist)
        return w;
    const QByteArray parent = parentOf(at.key);
    if (!parent.isEmpty()) {
        bool any = false;
        const S3::Result r = hasKeysUnder(at, parent, &any);
        if (!r.ok())
            return result(r);
        if (!any)
            return WorkerResult::fail(ErrDoesNotExist, Url::parent(url));
    }

    SigV4::Pairs headers { { "Content-Type", Http::DavClient::guessMimeType(at.key) } };
    if (mtime >= 0) // as rclone writes it, so either reads the other's
        headers.append({ "x-amz-meta-mtime",
            QByteArray::number(mtime) + '.' + QByteArray::number(mtimeNs).rightJustified(9, '0') });
    setTotals(source.size, 1, -1);

    qint64 sent = 0;
    bool ended = false;
    const auto fill = [&](QByteArray *buffer, qint64 limit) {
        if (!ended && !source.fill(buffer, limit))
            ended = true;
    };
    QByteArray part;
    // The first part decides: data that ends within the cutoff goes up in one PUT.
    part.reserve(qMax(m_uploadCutoff, m_partSize) + 256 * 1024);
    fill(&part, m_uploadCutoff + 1);
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    if (ended && (source.size < 0 || part.size() == source.size)) {
        const S3::Result r = m_s3->put(at, part, headers);
        if (!r.ok())
            return result(r);
        setProcessed(part.size(), 1);
        if (mtime >= 0)
            setResult(ResultKey::TimesKept, 1);
        return WorkerResult::pass();
    }
    if (ended)
        return WorkerResult::fail(ErrSourceChanged, url); // fewer bytes than announced

    // Multipart: parts of m_partSize, m_inFlight of them going up at once (each on a
    // connection of its own) while the next is read; aborted on any failure or a kill, so no
    // part stays stored (and billed), and the object appears only once completed.
    QByteArray uploadId;
    S3::Result r = m_s3->createMultipart(at, headers, &uploadId);
    if (!r.ok())
        return result(r);
    QList<QByteArray> etags;
    int parts = 0;
    {
        PartUploads uploads(*m_s3, at, uploadId, m_inFlight, [this] { return !wasKilled(); });
        QByteArray next;
        for (;;) {
            fill(&part, m_partSize);
            if (part.size() > m_partSize) { // the rest goes into the next part
                next = part.sliced(m_partSize);
                part.truncate(m_partSize);
            }
            if (wasKilled()) {
                r = S3::Result::fail(ErrCancelled);
                break;
            }
            if (part.isEmpty() && parts > 0)
                break;
            if (!uploads.submit(++parts, part))
                break; // finish() says why
            sent += part.size();
            setProcessed(sent);
            part = next; // the submitted part is the uploader's now
            next = QByteArray();
            part.reserve(m_partSize + 256 * 1024);
            if (ended && part.isEmpty())
                break;
        }
        const S3::Result u = uploads.finish(&etags);
        if (r.ok())
            r = u;
    }
    if (r.ok() && source.size >= 0 && sent != source.size)
        r = S3::Result::fail(ErrSourceChanged, url);
    if (r.ok())
        r = m_s3->completeMultipart(at, uploadId, etags);
    if (!r.ok()) {
        const S3::Result a = m_s3->abortMultipart(at, uploadId);
        if (!a.ok())
            qCWarning(QVFS_S3) << "could not abort the upload of" << url.toDisplayString() << a.error;
        return result(r);
    }
    qCDebug(QVFS_S3) << "uploaded" << sent << "bytes in" << etags.size() << "parts";
    setProcessed(sent, 1);
    if (mtime >= 0)
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
        return WorkerResult::fail(ErrAlreadyExists, at.url);
    const QByteArray key = withoutSlash(at.key);
    if (key.isEmpty()) {
        // a bucket; radosgw answers 200 for one of this user's that exists
        const S3::Result exists = m_s3->headBucket(at);
        if (exists.ok())
            return WorkerResult::fail(ErrAlreadyExists, at.url);
        if (exists.error != ErrDoesNotExist)
            return result(exists);
        return result(m_s3->createBucket(at));
    }
    Found found;
    w = find(at, &found);
    if (w.ok() && request.parents && found.kind == Found::Folder)
        return WorkerResult::pass(); // mkpath: there already
    if (w.ok())
        return WorkerResult::fail(ErrAlreadyExists, at.url);
    if (w.code() != ErrDoesNotExist)
        return w;
    const QByteArray parent = parentOf(key);
    if (!parent.isEmpty() && !request.parents) {
        bool any = false;
        const S3::Result r = hasKeysUnder(at, parent, &any);
        if (!r.ok())
            return result(r);
        if (!any)
            return WorkerResult::fail(ErrDoesNotExist, Url::parent(at.url));
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
        return WorkerResult::fail(ErrAccessDenied, at.url);
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
        return WorkerResult::fail(ErrIsDirectory, at.url);
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
            return WorkerResult::fail(ErrDirectoryNotEmpty, at.url);
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
