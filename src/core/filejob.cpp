// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filejob_p.h"

#include "error.h"
#include "qvfs_debug.h"

#include <QEventLoop>
#include <QTimer>

namespace Qvfs
{

// ---------------------------------------------------------------- FileJobPrivate

void FileJobPrivate::start()
{
    if (!openRequest.read && !openRequest.write) {
        emitResult(ErrUnsupportedAction, { openRequest.url.toString() });
        return;
    }
    request.set(openRequest);
    request.start();
}

quint32 FileJobPrivate::nextId()
{
    if (++lastId == 0)
        lastId = 1;
    return lastId;
}

quint32 FileJobPrivate::enqueue(Op op)
{
    op.id = nextId();
    const quint32 id = op.id;
    if (op.kind == Kind::Write)
        toWrite += op.length;
    ops.push_back(std::move(op));
    sendPending();
    return id;
}

void FileJobPrivate::sendPending()
{
    if (state == State::Opening || finished)
        return;
    while (sending < ops.size()) {
        Op &o = ops[sending];
        switch (o.kind) {
        case Kind::Read:
            request.fileRead(o.id, o.offset, o.length);
            break;
        case Kind::Truncate:
            request.fileTruncate(o.id, o.offset);
            break;
        case Kind::Size:
            request.fileSize(o.id);
            break;
        case Kind::Write:
            // In pieces of at most FileChunk, a few MiB in flight: the worker holds only
            // what it is about to write. An empty write still goes out once, for its answer.
            do {
                const qint64 n = qMin(Wire::FileChunk, o.length - o.sent);
                if (writeInFlight > 0 && writeInFlight + n > WriteWindow)
                    return;
                request.fileWrite(o.id, o.append ? -1 : o.offset + o.sent, QByteArrayView(o.data).sliced(o.sent, n));
                o.sent += n;
                writeInFlight += n;
            } while (o.sent < o.length);
            break;
        }
        ++sending;
    }
    if (closeRequested && !closeSent) {
        closeSent = true;
        state = State::Closing;
        request.fileClose();
    }
}

FileJobPrivate::Op *FileJobPrivate::answered(quint32 id)
{
    if (!ops.empty()) {
        Op &o = ops.front();
        const bool sent = sending > 0 || (o.kind == Kind::Write && o.sent > 0);
        if (sent && o.id == id)
            return &o;
    }
    protocolError("an answer to a request not made");
    return nullptr;
}

void FileJobPrivate::protocolError(const char *what)
{
    qCWarning(QVFS_CORE) << "open file" << openRequest.url << ":" << what;
    request.cancel();
    ops.clear();
    sending = 0;
    emitResult(ErrProtocolError, { QString::fromLatin1(what) });
}

void FileJobPrivate::requestOpened(const OpenedFile &f)
{
    Q_Q(FileJob);
    file = f;
    size = f.size;
    state = State::Open;
    Q_EMIT q->opened(q, size, file.mimeType, q->capabilities());
    sendPending();
}

void FileJobPrivate::requestFileData(quint32 id, qint64 offset, const QByteArray &data, bool last)
{
    Q_Q(FileJob);
    Op *o = answered(id);
    if (!o)
        return;
    if (o->kind != Kind::Read || offset != o->offset + o->done || data.size() > o->length - o->done)
        return protocolError("file data that no read asked for");
    o->done += data.size();
    const qint64 readOffset = o->offset;
    const qint64 length = o->length;
    const qint64 done = o->done;
    if (last) {
        // Off the list before anyone hears of it: a slot may make the next request.
        ops.pop_front();
        --sending;
    }
    if (!data.isEmpty()) {
        growSize(offset + data.size());
        Q_EMIT q->dataRead(q, id, offset, data);
    }
    if (last && (done < length || length == 0)) {
        // The end of the file, as the read found it. A read that got nothing only tells that
        // the end is at or before its offset: another read in flight past the end must not
        // move a known size up to where it asked.
        if (done < length && (done > 0 || (size >= 0 && size > readOffset)))
            size = readOffset + done;
        if (!finished)
            Q_EMIT q->dataRead(q, id, readOffset + done, QByteArray());
    }
}

void FileJobPrivate::requestFileDone(const Internal::FileDone &d)
{
    Q_Q(FileJob);
    Op *o = answered(d.op);
    if (!o)
        return;
    const quint32 id = o->id;
    switch (o->kind) {
    case Kind::Read:
        return protocolError("a write answer to a read");
    case Kind::Write: {
        if (d.value < 0 || d.value > o->sent - o->done)
            return protocolError("a write answer for bytes not sent");
        if (o->at < 0)
            o->at = d.offset;
        o->done += d.value;
        writeInFlight -= d.value;
        toWrite -= d.value;
        if (d.offset >= 0)
            growSize(d.offset + d.value);
        if (o->done < o->length || o->sent < o->length) {
            sendPending(); // room in the window for more
            return;
        }
        const qint64 at = o->at;
        const qint64 length = o->length;
        ops.pop_front();
        --sending;
        Q_EMIT q->written(q, id, at, length);
        if (!finished)
            sendPending();
        return;
    }
    case Kind::Truncate:
        size = d.value;
        ops.pop_front();
        --sending;
        Q_EMIT q->truncated(q, id, d.value);
        return;
    case Kind::Size:
        size = d.value;
        ops.pop_front();
        --sending;
        Q_EMIT q->sizeRefreshed(q, id, d.value);
        return;
    }
}

void FileJobPrivate::onFinished(const MetaData &)
{
    if (!closeSent || !ops.empty())
        return protocolError("the file was closed before it was asked to");
    emitResult();
}

void FileJobPrivate::onFailed(int code, const QStringList &args)
{
    ops.clear();
    sending = 0;
    emitResult(code, args);
}

bool FileJobPrivate::waitForProgress(int msecs)
{
    Q_Q(FileJob);
    if (!started && !finished) {
        started = true;
        start();
    }
    if (finished)
        return false;
    if (request.isRunning())
        return request.waitForWorker(msecs) || finished;
    // Still queued (every worker of the protocol holds an open file), or the outcome is
    // on its way through the event loop (a failure found before any worker ran).
    QEventLoop loop;
    const auto quit = [&loop] { loop.quit(); };
    QObject::connect(q, &FileJob::opened, &loop, quit);
    QObject::connect(q, &Job::result, &loop, quit);
    QTimer tick; // back to waiting on the socket once a worker took the request
    QObject::connect(&tick, &QTimer::timeout, &loop, quit);
    tick.start(msecs >= 0 ? qMin(msecs, 20) : 20);
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    return true;
}

// ---------------------------------------------------------------- FileJob

FileJob::FileJob(FileJobPrivate &dd)
    : Job(dd)
{ }

QUrl FileJob::url() const
{
    return d_func()->openRequest.url;
}

QIODevice::OpenMode FileJob::openMode() const
{
    return d_func()->mode;
}

bool FileJob::isOpen() const
{
    Q_D(const FileJob);
    return d->state == FileJobPrivate::State::Open && !d->finished && !d->closeRequested;
}

qint64 FileJob::size() const
{
    return d_func()->size;
}

QString FileJob::mimeType() const
{
    return d_func()->file.mimeType;
}

FileJob::Capabilities FileJob::capabilities() const
{
    Q_D(const FileJob);
    Capabilities c;
    if (d->state == FileJobPrivate::State::Opening)
        return c;
    c.setFlag(CanSeek, d->file.canSeek);
    c.setFlag(CanWrite, d->file.canWrite);
    c.setFlag(CanTruncate, d->file.canTruncate);
    c.setFlag(CanAppend, d->file.canAppend);
    return c;
}

quint32 FileJob::readAt(qint64 offset, qint64 length)
{
    Q_D(FileJob);
    if (!d->accepting() || !d->openRequest.read || offset < 0 || length < 0)
        return 0;
    FileJobPrivate::Op op;
    op.kind = FileJobPrivate::Kind::Read;
    op.offset = offset;
    op.length = qMin(length, MaxReadLength);
    return d->enqueue(std::move(op));
}

quint32 FileJob::writeAt(qint64 offset, const QByteArray &data)
{
    Q_D(FileJob);
    if (!d->accepting() || !d->openRequest.write || d->openRequest.append || offset < 0)
        return 0;
    if (d->state != FileJobPrivate::State::Opening && !d->file.canWrite)
        return 0;
    FileJobPrivate::Op op;
    op.kind = FileJobPrivate::Kind::Write;
    op.offset = offset;
    op.length = data.size();
    op.data = data;
    return d->enqueue(std::move(op));
}

quint32 FileJob::append(const QByteArray &data)
{
    Q_D(FileJob);
    if (!d->accepting() || !d->openRequest.write)
        return 0;
    if (d->state != FileJobPrivate::State::Opening && !d->file.canAppend)
        return 0;
    FileJobPrivate::Op op;
    op.kind = FileJobPrivate::Kind::Write;
    op.append = true;
    op.offset = -1;
    op.length = data.size();
    op.data = data;
    return d->enqueue(std::move(op));
}

quint32 FileJob::truncate(qint64 length)
{
    Q_D(FileJob);
    if (!d->accepting() || !d->openRequest.write || length < 0)
        return 0;
    if (d->state != FileJobPrivate::State::Opening && !d->file.canTruncate)
        return 0;
    FileJobPrivate::Op op;
    op.kind = FileJobPrivate::Kind::Truncate;
    op.offset = length;
    return d->enqueue(std::move(op));
}

quint32 FileJob::refreshSize()
{
    Q_D(FileJob);
    if (!d->accepting())
        return 0;
    FileJobPrivate::Op op;
    op.kind = FileJobPrivate::Kind::Size;
    return d->enqueue(std::move(op));
}

void FileJob::close()
{
    Q_D(FileJob);
    if (!d->accepting())
        return;
    d->closeRequested = true;
    d->sendPending();
}

qint64 FileJob::pos() const
{
    return d_func()->pos;
}

bool FileJob::seek(qint64 offset, SeekFrom from)
{
    Q_D(FileJob);
    qint64 base = 0;
    switch (from) {
    case SeekFrom::Start:
        break;
    case SeekFrom::Current:
        base = d->pos;
        break;
    case SeekFrom::End:
        if (d->size < 0)
            return false;
        base = d->size;
        break;
    }
    if (offset > 0 && base > std::numeric_limits<qint64>::max() - offset)
        return false;
    const qint64 target = base + offset;
    if (target < 0)
        return false;
    d->pos = target;
    return true;
}

quint32 FileJob::read(qint64 length)
{
    Q_D(FileJob);
    const quint32 id = readAt(d->pos, length);
    if (id)
        d->pos += qMin(length, MaxReadLength);
    return id;
}

quint32 FileJob::write(const QByteArray &data)
{
    Q_D(FileJob);
    const quint32 id = d->openRequest.append ? append(data) : writeAt(d->pos, data);
    if (id)
        d->pos += data.size();
    return id;
}

int FileJob::requestsInFlight() const
{
    return int(d_func()->ops.size());
}

qint64 FileJob::bytesToWrite() const
{
    return d_func()->toWrite;
}

FileJob *open(const QUrl &url, QIODevice::OpenMode mode)
{
    auto *d = new FileJobPrivate;
    // As QFile reads the mode (Qt 6): Append and NewOnly imply WriteOnly; WriteOnly alone
    // truncates; writing creates the file unless ExistingOnly.
    if (mode & (QIODevice::Append | QIODevice::NewOnly))
        mode |= QIODevice::WriteOnly;
    d->mode = mode;
    OpenRequest &r = d->openRequest;
    r.url = url;
    r.read = mode & QIODevice::ReadOnly;
    r.write = mode & QIODevice::WriteOnly;
    r.append = r.write && (mode & QIODevice::Append);
    r.truncate = r.write
        && ((mode & QIODevice::Truncate) || !(mode & (QIODevice::ReadOnly | QIODevice::Append | QIODevice::NewOnly)));
    r.create = r.write && !(mode & QIODevice::ExistingOnly);
    r.exclusive = mode & QIODevice::NewOnly;
    return FileJobPrivate::create(d);
}

} // namespace Qvfs
