// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads of a file whose protocol has no random access (no "open": trash:/): one get
// streams from the offset of the first read, the reads that follow are answered from it,
// and a read elsewhere starts the get again there. What was read is not kept; at most
// StreamAhead bytes wait unread (the get is suspended beyond that).
#include "mountfs_p.h"

#include <Qvfs/TransferJob>

#include <cerrno>

namespace Mount
{

namespace
{

constexpr qsizetype StreamAhead = 8 * 1024 * 1024;

} // namespace

void MountFs::streamRead(FileHandle *h, fuse_req *req, qint64 off, size_t size)
{
    // A read at or a little past where the stream is goes on with it; one behind it, or
    // far ahead, starts it again there.
    const qint64 end = h->streamPos + h->streamBuf.size();
    if (!h->stream && !h->streamEnded)
        startStream(h, off);
    else if (off < h->streamPos || off > end + qint64(MaxIo))
        startStream(h, off);
    h->streamWaiting.append({ req, off, size, {} });
    serveStream(h);
}

void MountFs::startStream(FileHandle *h, qint64 off)
{
    stopStream(h);
    h->streamPos = off;
    h->streamBuf.clear();
    h->streamEnded = false;
    h->streamSuspended = false;
    Qvfs::TransferJob *job = Qvfs::get(h->url, off);
    h->stream = job;
    job->setAskDelegate(m_options.askDelegate);
    connect(job, &Qvfs::TransferJob::data, this, [this, h](Qvfs::TransferJob *j, const QByteArray &data) {
        h->streamBuf += data;
        if (h->streamBuf.size() > StreamAhead && !h->streamSuspended) {
            h->streamSuspended = true;
            j->suspend();
        }
        serveStream(h);
    });
    connect(job, &Qvfs::Job::result, this, [this, h](Qvfs::Job *j) {
        h->stream = nullptr;
        h->streamEnded = true;
        h->error = j->error() ? errnoFor(j->error()) : 0;
        serveStream(h);
    });
}

void MountFs::serveStream(FileHandle *h)
{
    while (!h->streamWaiting.isEmpty()) {
        const FileHandle::Read r = h->streamWaiting.first();
        if (r.off < h->streamPos) {
            startStream(h, r.off); // (a later read of the batch went back)
            return;
        }
        const qint64 from = r.off - h->streamPos;
        const qint64 have = h->streamBuf.size() - from;
        if (have < qint64(r.size) && !h->streamEnded)
            return; // more is coming
        h->streamWaiting.removeFirst();
        if (have <= 0 && h->error) {
            fuse_reply_err(r.req, h->error);
            continue;
        }
        const qint64 n = qBound<qint64>(0, have, qint64(r.size));
        fuse_reply_buf(r.req, n > 0 ? h->streamBuf.constData() + from : nullptr, size_t(n));
        // What was read goes; the stream goes on after it.
        h->streamBuf.remove(0, qsizetype(from + n));
        h->streamPos = r.off + n;
    }
    if (h->streamSuspended && h->stream && h->streamBuf.size() < StreamAhead / 2) {
        h->streamSuspended = false;
        h->stream->resume();
    }
}

void MountFs::stopStream(FileHandle *h)
{
    if (h->stream) {
        h->stream->disconnect(this);
        h->stream->kill();
    }
    h->stream = nullptr;
}

} // namespace Mount
