// SPDX-License-Identifier: LGPL-2.1-or-later
// Uploads of the http worker (put, copyFromFile) through a unique temporary name MOVEd
// into place, and downloads to local files (copyToFile).
#include "httpworker.h"

#include "atomicupload.h"
#include "fileops_util_p.h"
#include "http_debug.h"
#include "localfiles_p.h"
#include "localfilewriter.h"
#include "url.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs
{

using namespace Http;

namespace
{

constexpr qint64 ChunkBytes = 256 * 1024;

// An error about the temporary is about the destination the caller named.
Result aboutDestination(Result r, const QUrl &temporary, const QUrl &destination)
{
    const QByteArray t = urlArgument(DavClient::resourceUrl(temporary));
    const QByteArray d = urlArgument(DavClient::resourceUrl(destination));
    if (r.arg1 == t)
        r.arg1 = d;
    if (r.arg2 == t)
        r.arg2 = d;
    return r;
}

// Reads a local file from its current position, chunk by chunk.
struct FileReader
{
    int fd = -1;
    QByteArray buffer;
    int error = 0;
    bool operator()(QByteArray *chunk)
    {
        if (buffer.size() != ChunkBytes)
            buffer.resize(ChunkBytes);
        for (;;) {
            const ssize_t n = ::read(fd, buffer.data(), size_t(buffer.size()));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                error = errno;
            if (n <= 0) {
                chunk->clear();
                return false;
            }
            *chunk = buffer.first(n); // a copy: the device keeps the chunk while Qt reads it
            return true;
        }
    }
};

} // namespace

WorkerResult HttpWorker::upload(const QUrl &url, bool overwrite, qint64 mtime, const Source &source)
{
    setTotals(source.size, 1, -1);
    std::optional<qint64> askedTime;
    if (mtime >= 0)
        askedTime = mtime;
    bool ocAccepted = false;
    AtomicUpload::Operations ops;
    bool putCut = false; // the PUT ended midway: the server may still be writing the temporary
    ops.write = [&](const QUrl &temporary) {
        const Result w = m_dav->upload(temporary, source.size, source.pull, askedTime, &ocAccepted);
        putCut = w.error == ErrCancelled || w.error == ErrConnectionFailed || w.error == ErrServerTimedOut
            || w.error == ErrCannotWrite;
        return result(aboutDestination(w, temporary, url));
    };
    ops.rename = [&](const QUrl &temporary, const QUrl &destination, bool replace) {
        return result(aboutDestination(
            m_dav->move(temporary, destination, replace, DavClient::Kind::File), temporary, destination));
    };
    ops.remove = [&](const QUrl &temporary) { m_dav->removeQuietly(DavClient::resourceUrl(temporary), putCut); };
    const WorkerResult r = AtomicUpload::run(url, overwrite, ops);
    if (!r.ok())
        return r;
    if (askedTime) {
        // X-OC-Mtime confirmed (ownCloud, Nextcloud, rclone), or the Date rule held
        // (nginx, through the MOVE that kept it); Apache keeps neither.
        bool kept = ocAccepted;
        if (!kept) {
            DavEntry e;
            kept = m_dav->stat(url, &e).ok() && e.mtime && *e.mtime == *askedTime;
        }
        setResult(ResultKey::TimesKept, kept ? 1 : 0);
    }
    setProcessed(source.size, 1);
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- put

WorkerResult HttpWorker::put(const PutRequest &request)
{
    begin(request.url);
    if (!m_davRequest)
        return WorkerResult::fail(ErrUnsupportedAction, request.url);
    // Before any byte: a body once sent cannot be sent again (authentication is settled
    // here), and a refusal (exists, folder missing) comes before the data.
    Result r = m_dav->checkPutDestination(request.url, request.overwrite);
    if (!r.ok())
        return result(r);
    qint64 sent = 0;
    Source source;
    if (request.size >= 0) {
        source.size = request.size;
        source.pull = [&](QByteArray *chunk) {
            if (!readData(chunk))
                return false;
            sent += chunk->size();
            setProcessed(sent);
            return true;
        };
        return upload(request.url, request.overwrite, request.mtime, source);
    }
    // The size is needed up front (Content-Length; Qt would otherwise buffer the whole
    // body): the data goes to a private, nameless local file first, then up.
    FileOps::Fd spool(LocalFiles::openSpool()); // a negative errno when it failed
    if (!spool.valid())
        return WorkerResult::fail(ErrInternal, QByteArray("cannot make a temporary file: ") + strerror(-spool.get()));
    QByteArray chunk;
    qint64 size = 0;
    while (readData(&chunk)) {
        if (!FileOps::writeAll(spool.get(), chunk)) {
            const int err = errno;
            return WorkerResult::fail(err == ENOSPC || err == EDQUOT ? int(ErrDiskFull) : int(ErrInternal),
                QByteArray("the temporary file of the upload: ") + strerror(err));
        }
        size += chunk.size();
        setProcessed(size); // what the application handed over so far
    }
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    if (::lseek(spool.get(), 0, SEEK_SET) != 0)
        return WorkerResult::fail(ErrInternal, QByteArray("the temporary file of the upload: ") + strerror(errno));
    qCDebug(QVFS_HTTP) << "spooled" << size << "bytes of unknown size before the upload";
    // (the progress stays at what the application handed over while it goes up)
    FileReader reader { spool.get(), {}, 0 };
    source.size = size;
    source.pull = [&](QByteArray *c) { return reader(c); };
    return upload(request.url, request.overwrite, request.mtime, source);
}

// ---------------------------------------------------------------- copyFromFile

WorkerResult HttpWorker::copyFromFile(const FileCopyRequest &request)
{
    begin(request.destination);
    if (!m_davRequest || !Url::isLocalFile(request.source))
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
        return WorkerResult::fail(LocalFiles::readError(errno), request.source);
    const Result r = m_dav->checkPutDestination(request.destination, request.overwrite);
    if (!r.ok())
        return result(r);
    FileReader reader { in.get(), {}, 0 };
    qint64 sent = 0;
    Source source;
    source.size = qint64(st.st_size);
    source.pull = [&](QByteArray *chunk) {
        if (!reader(chunk))
            return false;
        sent += chunk->size();
        setProcessed(sent);
        return true;
    };
    const WorkerResult w = upload(request.destination, request.overwrite, request.mtime, source);
    if (!w.ok() && reader.error && !wasKilled())
        return WorkerResult::fail(LocalFiles::readError(reader.error), request.source);
    return w;
}

// ---------------------------------------------------------------- copyToFile

WorkerResult HttpWorker::copyToFile(const FileCopyRequest &request)
{
    begin(request.source);
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.source);
    const QByteArray path = Url::localPath(request.destination);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.destination);
    // The local side as a local copy has it: a nameless file in the destination's
    // folder, linked into place only once complete; nothing left after an error or a
    // kill; a symlink at the destination replaced, never written through.
    LocalFileWriter writer;
    WorkerResult w = writer.open(path, request.overwrite, request.permissions, request.expectedParent);
    if (!w.ok())
        return w;
    qint64 done = 0;
    HttpClient::GetHandler h;
    // The size the job found (PROPFIND, HEAD) holds a reply without a length of its own
    // (chunked, or ended by a close) to it: such a body cannot pass off more or fewer bytes
    // as the file. A reply with a Content-Length is held to that (HttpClient).
    qint64 expected = request.size;
    h.headers = [&](const ResourceInfo &info) {
        if (info.size >= 0) {
            setTotals(info.size, 1, -1);
            expected = -1;
        }
        return true;
    };
    const auto changed = [&] {
        qCWarning(QVFS_HTTP) << request.source.toDisplayString() << "sent" << done << "bytes where the job found"
                             << expected;
        return WorkerResult::fail(ErrSourceChanged, request.source);
    };
    h.data = [&](QByteArrayView chunk) {
        if (expected >= 0 && done + chunk.size() > expected) {
            done += chunk.size();
            w = changed();
            return false;
        }
        w = writer.write(chunk);
        if (!w.ok())
            return false;
        done += chunk.size();
        setProcessed(done);
        return !wasKilled();
    };
    const WorkerResult r = download(request.source, 0, h);
    if (!w.ok())
        return w; // the local side failed (disk full ...), or more than the file's size came
    if (!r.ok())
        return r;
    if (expected >= 0 && done != expected)
        return changed();
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    w = writer.commit();
    if (w.ok())
        setProcessed(done, 1);
    return w;
}

} // namespace Qvfs
