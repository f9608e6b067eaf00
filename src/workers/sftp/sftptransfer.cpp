// SPDX-License-Identifier: LGPL-2.1-or-later
// The pipelined transfers of Session and the whole-file helpers built on them.
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "copyrules.h"
#include "error.h"
#include "sftp_debug.h"

#include <QCoreApplication>
#include <QHash>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>

namespace Qvfs::Sftp
{

namespace
{

/*! How long a cancelled transfer waits for the server to close and clean up. */
constexpr int CancelCleanupMs = 150;
/*! How long a failed transfer waits for the same. */
constexpr int FailureCleanupMs = 5000;
/*! Server-side copies go in ranges this large, each answered well within the timeout. */
constexpr quint64 CopyRange = 64 * 1024 * 1024;

/*! A READ in flight: what it asked for. */
struct PendingRead
{
    quint64 offset;
    quint32 length;
};

// Takes the request with the id \a id out of \a inflight into \a pending; false when none
// of them has it.
template<typename Pending>
bool takePending(QHash<quint32, Pending> &inflight, quint32 id, Pending *pending)
{
    const auto it = inflight.constFind(id);
    if (it == inflight.cend())
        return false;
    *pending = *it;
    inflight.erase(it);
    return true;
}

// The reply to the read \a req: a DATA reply of 1 to req.length bytes goes to \a onData
// (with its size), an end of file to \a onEof. A DATA reply of another size breaks the
// session; any other reply is the read's failure.
template<typename OnData, typename OnEof>
Result readReply(SessionPrivate *d, const Packet::Reply &reply, const PendingRead &req, OnData onData, OnEof onEof)
{
    if (reply.type == Packet::Data) {
        const quint32 n = quint32(reply.data.size());
        if (n == 0 || n > req.length)
            return d->breakWith(d->protocolError(
                QCoreApplication::translate("Qvfs", "The server sent a DATA reply of the wrong size.")));
        return onData(n);
    }
    if (reply.type == Packet::Status && reply.status == Packet::Eof) {
        onEof();
        return {};
    }
    return d->statusResult(reply, {}, Op::Read);
}

// Names the destination in an error: requests without a path, and those on the
// temporary file (a name the user never chose), report \a path instead.
Result withPath(Result r, const QByteArray &path, const QByteArray &temp = {})
{
    if (!r.ok() && r.failure == Failure::None && (r.path.isEmpty() || (!temp.isEmpty() && r.path == temp)))
        r.path = path;
    return r;
}

// Writes all of \a data to \a fd (which may be non-blocking).
int writeAllToFd(int fd, QByteArrayView data)
{
    const char *p = data.data();
    qsizetype left = data.size();
    while (left > 0) {
        const ssize_t w = ::write(fd, p, size_t(left));
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            pollfd pfd { fd, POLLOUT, 0 };
            ::poll(&pfd, 1, 100);
            continue;
        }
        if (w < 0)
            return (errno == ENOSPC || errno == EDQUOT) ? ErrDiskFull
                : errno == EFBIG                        ? ErrFileTooLarge
                                                        : ErrCannotWrite;
        p += w;
        left -= w;
    }
    return 0;
}

} // namespace

// ================================================================ helpers

QByteArray SessionPrivate::temporaryName(const QByteArray &path) const
{
    const qsizetype slash = path.lastIndexOf('/');
    return path.left(slash + 1) + temporaryNameFor(path.mid(slash + 1), Ssh::randomHex(8));
}

Result SessionPrivate::checkDestination(const QByteArray &path, bool overwrite, Attributes *existing, bool *exists)
{
    const Result r = q->lstat(path, existing);
    *exists = r.ok();
    if (!*exists && r.error != ErrDoesNotExist)
        return r;
    if (*exists && !overwrite)
        return makeError(ErrAlreadyExists, path);
    if (*exists && existing->isDir())
        return makeError(ErrIsDirectory, path);
    return {};
}

Result SessionPrivate::createTemporary(const QByteArray &temp, quint32 permissions, QByteArray *handle)
{
    Attributes initial;
    initial.setPermissions(permissions);
    return q->open(
        temp, Packet::OpenWrite | Packet::OpenCreate | Packet::OpenTruncate | Packet::OpenExclusive, initial, handle);
}

Result SessionPrivate::closeTemporary(const QByteArray &handle, const QByteArray &temp)
{
    const Result r = q->close(handle);
    if (!r.ok() && connected)
        (void)q->remove(temp);
    return r;
}

void SessionPrivate::abandonFile(const QByteArray &handle, const QByteArray &tempPath)
{
    if (!connected)
        return;
    const bool cancelled = !tempPath.isEmpty() && cancel && cancel();
    if (!handle.isEmpty())
        discard(request(Packet::Close, handle));
    // The server runs requests in order: this comes after every write still queued.
    if (!tempPath.isEmpty())
        discard(request(Packet::Remove, tempPath));
    // Only a temporary file is worth waiting for: a handle's close happens in its turn
    // whether or not anybody waits for the answer.
    if (!tempPath.isEmpty())
        drain(cancelled ? CancelCleanupMs : FailureCleanupMs);
}

Result SessionPrivate::commitTemporary(const QByteArray &temp, const QByteArray &path, bool overwrite)
{
    Result r = q->rename(temp, path, overwrite);
    if (!r.ok()) {
        r.path = path;
        if (connected)
            (void)q->remove(temp);
    }
    return r;
}

Result SessionPrivate::finishTemporary(const QByteArray &temp, const QByteArray &path,
    const Session::PutOptions &options, const Attributes &existing, bool destinationExists)
{
    Attributes a;
    if (options.permissions)
        a.setPermissions(*options.permissions & 07777);
    else if (destinationExists && existing.has(Attributes::Permissions))
        a.setPermissions(existing.permissions & 07777);
    if (options.mtime) {
        const quint32 t = quint32(qBound<qint64>(0, *options.mtime, qint64(UINT32_MAX)));
        a.setTimes(t, t);
    }
    if (a.flags) {
        const Result r = q->setStat(temp, a);
        if (options.mtime && options.timesKept)
            *options.timesKept = r.ok();
        if (!r.ok()) {
            // Permissions the server refuses (another owner, a restricted file system)
            // do not make the upload fail; a lost connection does.
            if (broken) {
                return r;
            }
            qCDebug(QVFS_SFTP) << "setstat of the upload failed:" << r.error << r.detail;
        }
    }
    return commitTemporary(temp, path, options.overwrite);
}

// ================================================================ pipelined transfers

Result Session::download(const QByteArray &handle, quint64 offset, const Sink &sink, const Progress &progress,
    quint64 *transferred, qint64 sizeHint)
{
    Result r;
    if (transferred)
        *transferred = 0;
    if (!d->checkConnected(&r))
        return r;

    QHash<quint32, PendingRead> inflight;
    std::map<quint64, QByteArray> early; // replies that came before the bytes in front of them
    const quint32 chunk = d->readChunk;
    const int maxRequests = d->options.maxRequests;
    quint64 next = offset;
    quint64 delivered = offset;
    quint64 limit = sizeHint >= 0 ? quint64(sizeHint) : UINT64_MAX;
    bool eof = false;
    quint64 eofAt = UINT64_MAX;

    const auto sendRead = [&](quint64 off, quint32 len) {
        inflight.insert(d->sendRead(handle, off, len), { off, len });
    };
    const auto deliver = [&](QByteArrayView data) -> Result {
        const int err = sink(data);
        d->lastActivity.start(); // time spent in the sink is not the server's silence
        if (err)
            return makeError(err, {});
        delivered += quint64(data.size());
        if (progress)
            progress(delivered - offset);
        return {};
    };
    const SessionPrivate::ReplyHandler handler = [&](const Packet::Reply &reply) -> Result {
        PendingRead req {};
        if (!takePending(inflight, reply.id, &req))
            return d->unexpectedReply();
        const auto onData = [&](quint32 n) -> Result {
            if (req.offset + n > limit)
                limit = UINT64_MAX; // the file grew: read on to its real end
            if (n < req.length)
                sendRead(req.offset + n, req.length - n); // short read: ask for the rest
            if (req.offset == delivered) {
                Result res = deliver(reply.data);
                while (res.ok() && !early.empty() && early.begin()->first == delivered) {
                    const QByteArray data = std::move(early.begin()->second);
                    early.erase(early.begin());
                    res = deliver(data);
                }
                return res;
            }
            if (req.offset < delivered)
                return d->breakWith(
                    d->protocolError(QCoreApplication::translate("Qvfs", "The server sent overlapping data.")));
            early.emplace(req.offset, reply.data.toByteArray());
            return {};
        };
        return readReply(d.get(), reply, req, onData, [&] {
            eof = true;
            eofAt = qMin(eofAt, req.offset);
        });
    };

    const auto topUp = [&] {
        // Memory: at most maxRequests chunks in flight or waiting for a gap before them.
        while (!eof && inflight.size() + qsizetype(early.size()) < maxRequests && next <= limit) {
            quint32 len = chunk;
            if (next < limit && limit - next < chunk)
                len = quint32(limit - next);
            sendRead(next, len);
            next += len;
        }
        return !inflight.isEmpty();
    };
    const Result failure = d->runPipeline(inflight, topUp, handler);
    if (transferred)
        *transferred = delivered - offset;
    if (!failure.ok())
        return failure;
    if (!early.empty() || eofAt < delivered)
        return makeError(
            ErrSourceChanged, {}, QCoreApplication::translate("Qvfs", "The file became shorter while it was read."));
    return {};
}

Result Session::upload(
    const QByteArray &handle, quint64 offset, const Source &source, const Progress &progress, quint64 *transferred)
{
    Result r;
    if (transferred)
        *transferred = 0;
    if (!d->checkConnected(&r))
        return r;

    QHash<quint32, quint32> inflight; // id → length
    const quint32 chunk = d->writeChunk;
    const int maxRequests = d->options.maxRequests;
    quint64 next = offset;
    quint64 acknowledged = 0;
    bool end = false;

    const SessionPrivate::ReplyHandler handler = [&](const Packet::Reply &reply) -> Result {
        quint32 len = 0;
        if (!takePending(inflight, reply.id, &len))
            return d->unexpectedReply();
        const Result res = d->statusResult(reply, {}, Op::Write);
        if (!res.ok())
            return res;
        acknowledged += len;
        if (progress)
            progress(acknowledged);
        return {};
    };

    Result sourceFailure;
    const auto topUp = [&] {
        // Queue writes while requests are free, keeping little more than one packet
        // waiting for the pipe: memory is bounded by the requests in flight.
        while (!end && inflight.size() < maxRequests && d->queuedOutput() < qsizetype(chunk)) {
            Packet::Writer w(d->out);
            const quint32 id = d->begin(w, Packet::Write);
            w.string(handle);
            w.u64(next);
            char *buffer = w.beginString(chunk);
            qint64 got = 0;
            while (got < qint64(chunk)) {
                const qint64 n = source(buffer + got, qint64(chunk) - got);
                if (n <= 0) {
                    if (n < 0)
                        sourceFailure = makeError(int(-n), {});
                    end = true;
                    break;
                }
                got += n;
            }
            d->lastActivity.start(); // time spent in the source is not the server's silence
            if (!sourceFailure.ok() || got == 0) {
                d->out.truncate(w.packetStart());
                break;
            }
            w.commitString(got);
            d->finish(w);
            inflight.insert(id, quint32(got));
            next += quint64(got);
        }
        return sourceFailure.ok() && !(end && inflight.isEmpty());
    };
    const Result failure = d->runPipeline(inflight, topUp, handler);
    if (transferred)
        *transferred = acknowledged;
    return sourceFailure.ok() ? failure : sourceFailure;
}

Result Session::readAt(
    const QByteArray &handle, quint64 offset, char *buffer, quint32 length, quint32 *got, int readAhead)
{
    Result r;
    *got = 0;
    if (!d->checkConnected(&r))
        return r;
    if (length == 0)
        return r;

    QHash<quint32, PendingRead> inflight;
    const quint64 end = offset + length;
    quint64 eofAt = end; // the lowest offset the server called the end of the file
    const bool sequential = readAhead > 0 && offset == d->lastReadEnd;
    d->inReadAt = true;
    // Copies a DATA reply's bytes into place; a short one is asked again for the rest.
    const auto place = [&](quint64 off, quint32 len, QByteArrayView data) {
        std::memcpy(buffer + (off - offset), data.data(), size_t(data.size()));
        const quint32 n = quint32(data.size());
        if (n < len && off + n < eofAt)
            inflight.insert(d->sendRead(handle, off + n, len - n), { off + n, len - n });
    };

    // The read-ahead, when it holds exactly this piece (and nothing straddles its end).
    bool adopted = false;
    if (!d->ahead.isEmpty()) {
        bool fits = sequential && d->aheadHandle == handle;
        quint64 covered = 0;
        for (auto it = d->ahead.cbegin(); fits && it != d->ahead.cend(); ++it) {
            if (it->offset < offset || (it->offset < end && it->offset + it->length > end))
                fits = false;
            else if (it->offset < end)
                covered += it->length;
        }
        if (fits && covered == length) {
            adopted = true;
            for (const SessionPrivate::AheadRead &a : std::as_const(d->ahead)) {
                if (a.offset < end && a.answered && a.eof)
                    eofAt = qMin(eofAt, a.offset);
            }
            for (auto it = d->ahead.begin(); it != d->ahead.end();) {
                if (it->offset >= end) {
                    ++it;
                    continue;
                }
                if (!it->answered)
                    inflight.insert(it.key(), { it->offset, it->length });
                else if (it->failed)
                    inflight.insert(d->sendRead(handle, it->offset, it->length), { it->offset, it->length });
                else if (!it->eof && it->offset < eofAt)
                    place(it->offset, it->length, it->data);
                it = d->ahead.erase(it);
            }
        } else {
            d->dropReadAhead();
        }
    }
    if (!adopted) {
        for (quint64 at = offset; at < end; at += d->readChunk) {
            const quint32 len = quint32(qMin<quint64>(d->readChunk, end - at));
            inflight.insert(d->sendRead(handle, at, len), { at, len });
        }
    }
    // Top up the read-ahead to readAhead pieces after this one.
    if (sequential) {
        d->aheadHandle = handle;
        quint64 from = qMax(d->aheadEnd, end);
        while (from < end + quint64(readAhead) * length) {
            for (quint64 at = from; at < from + length; at += d->readChunk) {
                const quint32 len = quint32(qMin<quint64>(d->readChunk, from + length - at));
                SessionPrivate::AheadRead a;
                a.offset = at;
                a.length = len;
                d->ahead.insert(d->sendRead(handle, at, len), a);
            }
            from += length;
        }
        d->aheadEnd = from;
    }
    d->inReadAt = false;

    const SessionPrivate::ReplyHandler handler = [&](const Packet::Reply &reply) -> Result {
        PendingRead req {};
        if (!takePending(inflight, reply.id, &req)) {
            const auto a = d->ahead.find(reply.id);
            if (a == d->ahead.end())
                return d->unexpectedReply();
            // A reply for a later piece: kept for the read that asks for it.
            a->answered = true;
            if (reply.type == Packet::Data && reply.data.size() > 0 && quint32(reply.data.size()) <= a->length)
                a->data = reply.data.toByteArray();
            else if (reply.type == Packet::Status && reply.status == Packet::Eof)
                a->eof = true;
            else
                a->failed = true; // asked again if that piece is read
            return {};
        }
        const auto onData = [&](quint32) -> Result {
            d->inReadAt = true;
            place(req.offset, req.length, reply.data);
            d->inReadAt = false;
            return {};
        };
        return readReply(d.get(), reply, req, onData, [&] { eofAt = qMin(eofAt, req.offset); });
    };
    const Result failure = d->runPipeline(
        inflight, [&] { return !inflight.isEmpty(); }, handler);
    if (!failure.ok()) {
        d->dropReadAhead();
        d->lastReadEnd = UINT64_MAX;
        return failure;
    }
    // Everything below eofAt arrived (short replies were asked again up to it).
    *got = quint32(eofAt - offset);
    d->lastReadEnd = offset + *got;
    if (*got < length)
        d->dropReadAhead(); // the end of the file: nothing after it to read ahead
    return {};
}

// ================================================================ whole files

Result Session::get(const QByteArray &path, const Sink &sink, const Progress &progress, Attributes *attrs)
{
    QByteArray handle;
    Result r = open(path, Packet::OpenRead, Attributes(), &handle);
    if (!r.ok())
        return r;
    Attributes a;
    if (fstat(handle, &a).ok() && a.isDir()) {
        d->abandonFile(handle, {});
        return makeError(ErrIsDirectory, path);
    }
    if (attrs)
        *attrs = a;
    const qint64 sizeHint = a.signedSize() < INT64_MAX ? a.signedSize() : -1;
    r = download(handle, 0, sink, progress, nullptr, sizeHint);
    if (!r.ok()) {
        d->abandonFile(handle, {});
        return withPath(r, path);
    }
    closeInBackground(handle); // nothing to learn from closing a file that was only read
    return {};
}

Result Session::downloadToFd(const QByteArray &path, int fd, const Progress &progress, Attributes *attrs)
{
    return get(
        path, [fd](QByteArrayView chunk) { return writeAllToFd(fd, chunk); }, progress, attrs);
}

Result Session::put(const QByteArray &path, const PutOptions &options, const Source &source, const Progress &progress)
{
    Result r;
    if (!d->checkConnected(&r))
        return r;
    Attributes existing;
    bool exists = false;
    r = d->checkDestination(path, options.overwrite, &existing, &exists);
    if (!r.ok())
        return r;

    // A symlink in the way is replaced (not written through); the file it points at, if
    // any, lends its permissions.
    if (exists && existing.isSymLink()) {
        Attributes target;
        existing = stat(path, &target).ok() ? target : Attributes();
    }
    // Private while it is written when its final permissions are known; otherwise the
    // server's default (its umask) applies, as to any new file.
    const bool permissionsKnown = options.permissions || (exists && existing.has(Attributes::Permissions));
    const QByteArray temp = d->temporaryName(path);
    QByteArray handle;
    r = d->createTemporary(temp, permissionsKnown ? 0600 : 0666, &handle);
    if (!r.ok())
        return withPath(r, path, temp);

    r = upload(handle, 0, source, progress);
    if (r.ok() && options.fsync && d->extFsync)
        r = fsync(handle);
    if (!r.ok()) {
        d->abandonFile(handle, temp);
        return withPath(r, path, temp);
    }
    r = d->closeTemporary(handle, temp);
    if (!r.ok())
        return withPath(r, path, temp);
    return withPath(d->finishTemporary(temp, path, options, existing, exists), path, temp);
}

Result Session::uploadFromFd(int fd, const QByteArray &path, const PutOptions &options, const Progress &progress)
{
    return put(
        path, options,
        [fd](char *buffer, qint64 capacity) -> qint64 {
            for (;;) {
                const ssize_t n = ::read(fd, buffer, size_t(capacity));
                if (n >= 0)
                    return n;
                if (errno == EINTR)
                    continue;
                if (errno == EAGAIN) {
                    pollfd pfd { fd, POLLIN, 0 };
                    ::poll(&pfd, 1, 100);
                    continue;
                }
                return -qint64(ErrCannotRead);
            }
        },
        progress);
}

Result Session::copyFile(
    const QByteArray &from, const QByteArray &to, const PutOptions &options, const Progress &progress)
{
    Result r;
    if (!d->checkConnected(&r))
        return r;
    if (!d->extCopyData)
        return d->unsupported(to, "copy-data");
    Attributes existing;
    bool exists = false;
    r = d->checkDestination(to, options.overwrite, &existing, &exists);
    if (!r.ok())
        return r;

    QByteArray source;
    r = open(from, Packet::OpenRead, Attributes(), &source);
    if (!r.ok())
        return r;
    Attributes sourceAttrs;
    r = fstat(source, &sourceAttrs);
    if (r.ok() && sourceAttrs.isDir())
        r = makeError(ErrIsDirectory, from);
    if (!r.ok()) {
        d->abandonFile(source, {});
        return withPath(r, from);
    }
    PutOptions opts = options;
    if (!opts.permissions && sourceAttrs.has(Attributes::Permissions) && !exists)
        opts.permissions = sourceAttrs.permissions & 07777;

    const QByteArray temp = d->temporaryName(to);
    QByteArray target;
    r = d->createTemporary(temp, 0600, &target);
    if (!r.ok()) {
        d->abandonFile(source, {});
        return withPath(r, to);
    }

    quint64 offset = 0;
    for (;;) {
        Packet::Writer w(d->out);
        const quint32 id = d->beginExtended(w, "copy-data");
        w.string(source);
        w.u64(offset);
        w.u64(CopyRange);
        w.string(target);
        w.u64(offset);
        d->finish(w);
        quint32 status = 0;
        r = d->call(id, [&](const Packet::Reply &reply) {
            status = reply.type == Packet::Status ? reply.status : quint32(Packet::Failure);
            if (status == Packet::Eof)
                return Result();
            return d->statusResult(reply, from, Op::Write);
        });
        if (!r.ok() || status == Packet::Eof)
            break;
        offset += CopyRange;
        if (progress)
            progress(sourceAttrs.has(Attributes::Size) ? qMin(offset, sourceAttrs.size) : offset);
    }
    if (r.ok() && progress && sourceAttrs.has(Attributes::Size))
        progress(sourceAttrs.size);
    if (!r.ok()) {
        d->abandonFile(source, {});
        d->abandonFile(target, temp);
        return withPath(r, to, temp);
    }
    closeInBackground(source);
    r = d->closeTemporary(target, temp);
    if (!r.ok())
        return withPath(r, to, temp);
    if (!opts.mtime && sourceAttrs.has(Attributes::AccessModTime))
        opts.mtime = sourceAttrs.mtime;
    return withPath(d->finishTemporary(temp, to, opts, existing, exists), to, temp);
}

} // namespace Qvfs::Sftp
