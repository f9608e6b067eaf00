// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filedevice.h"

#include "error.h"
#include "filejob_p.h"

#include <QElapsedTimer>

#include <cstring>
#include <limits>

namespace Qvfs
{

namespace
{
constexpr qint64 MinRead = 16 * 1024; // a read away from the last one asks for this much at least
constexpr qint64 MaxUnconfirmed = 8 * 1024 * 1024; // write() blocks beyond this
} // namespace

class FileDevicePrivate
{
public:
    explicit FileDevicePrivate(FileDevice *q)
        : q(q)
    { }

    /*! A range asked of the worker, and what of it came. */
    struct Segment
    {
        quint32 id = 0;
        qint64 offset = 0;
        qint64 length = 0; // asked for
        QByteArray data; // received so far (from offset on)
        bool done = false; // no more will come; short of length: the end of the file
        qint64 end() const { return offset + length; }
        qint64 dataEnd() const { return offset + data.size(); }
        bool atEof() const { return done && data.size() < length; }
    };

    FileDevice *q;
    QUrl url;
    FileJob *job = nullptr;
    FileJobPrivate *jd = nullptr;
    int error = NoError;
    bool opened = false;
    bool ended = false; // the job emitted result()
    bool sequential = false;
    int aheadRequests = 4;
    qint64 chunk = 256 * 1024;
    QList<Segment> segments; // by offset, not overlapping
    qint64 readPos = 0; // sequential devices: QIODevice::pos() is 0 for them
    qint64 lastEnd = -1; // where the previous read ended
    qint64 toWrite = 0;
    qint64 writeEnd = 0; // the furthest write, for size()
    bool inReadyRead = false;

    qint64 position() const { return sequential ? readPos : q->pos(); }

    void fail(int code, const QString &text)
    {
        error = code;
        q->setErrorString(text);
    }
    void takeJobError()
    {
        if (job && job->error() && !error)
            fail(job->error(), job->errorString());
    }
    /*! Whether reads and writes can go on. */
    bool usable() const { return job && opened && !ended && error == NoError; }

    const Segment *segmentAt(qint64 p) const
    {
        for (const Segment &s : segments) {
            if (s.offset <= p && p < s.end())
                return &s;
        }
        return nullptr;
    }
    /*! Bytes that came and follow on from \a p without a gap. */
    qint64 available(qint64 p) const
    {
        qint64 n = 0;
        for (;;) {
            const Segment *s = segmentAt(p + n);
            if (!s || s->dataEnd() <= p + n)
                return n;
            n = s->dataEnd() - p;
            if (s->atEof() || !s->done)
                return n;
        }
    }
    /*! Whether a read found the end of the file at or before \a p. */
    bool eofAt(qint64 p) const
    {
        for (const Segment &s : segments) {
            if (s.atEof() && s.offset <= p && s.dataEnd() <= p)
                return true;
        }
        return false;
    }
    qint64 copyOut(qint64 p, char *out, qint64 max) const
    {
        qint64 n = 0;
        while (n < max) {
            const Segment *s = segmentAt(p + n);
            if (!s || s->dataEnd() <= p + n)
                break;
            const qint64 k = qMin(max - n, s->dataEnd() - (p + n));
            std::memcpy(out + n, s->data.constData() + (p + n - s->offset), size_t(k));
            n += k;
        }
        return n;
    }
    void insert(Segment s)
    {
        qsizetype i = 0;
        while (i < segments.size() && segments.at(i).offset < s.offset)
            ++i;
        segments.insert(i, std::move(s));
    }
    /*!
     * Asks for what a read of \a want bytes at \a p needs; with \a streaming (the reads
     * follow on from each other), the read-ahead behind it too.
     */
    void planReads(qint64 p, qint64 want, bool streaming);
    /*! Whether a read at \a p continues the previous one. */
    bool isStreaming(qint64 p) const { return aheadRequests > 0 && p == lastEnd; }
    /*!
     * QIODevice's readData() and, with \a line, readLineData(): up to \a maxSize bytes at
     * the position (a line: up to its '\n'), waiting for them unless the end of the file
     * comes first; -1 when nothing could be read because of an error.
     */
    qint64 read(char *data, qint64 maxSize, bool line);

    void onData(quint32 id, qint64 offset, const QByteArray &data);
    void onWritten(qint64 bytes);
    void onResult();
    /*! One step of waiting; false when nothing more can come. */
    bool waitStep(int msecs)
    {
        if (!job || ended)
            return false;
        const bool progressed = jd->waitForProgress(msecs);
        return progressed && !ended;
    }
    /*!
     * One step of waiting inside read() or write(): readyRead() is not emitted meanwhile
     * (a slot reading would re-enter the read).
     */
    bool blockingWait()
    {
        if (!usable())
            return false;
        const bool was = inReadyRead;
        inReadyRead = true;
        const bool r = waitStep(-1);
        inReadyRead = was;
        return r;
    }
};

void FileDevicePrivate::planReads(qint64 p, qint64 want, bool streaming)
{
    const qint64 window = qint64(aheadRequests) * chunk;
    const qint64 far = std::numeric_limits<qint64>::max() / 4;
    want = qMin(want, far);
    p = qMin(p, far);
    // What this read needs, then what a stream reads ahead of it.
    qint64 needEnd = p + qMax(want, streaming ? qint64(0) : MinRead);
    qint64 aheadEnd = needEnd + (streaming ? window : 0);
    // Drop what lies far from here: one chunk behind is kept for short steps back, and
    // what a stream would read ahead (a short step aside must not drop requests in flight).
    const qint64 keepFrom = p - chunk;
    const qint64 keepTo = p + qMax(want, MinRead) + window + chunk;
    segments.removeIf([&](const Segment &s) { return s.end() <= keepFrom || s.offset >= keepTo; });
    // Not past a known end of the file (one read still goes out to find the end).
    const qint64 size = job->size();
    if (size >= 0) {
        const qint64 last = qMax(size, p + qMin(qMax(want, qint64(1)), chunk));
        needEnd = qMin(needEnd, last);
        aheadEnd = qMin(aheadEnd, last);
    }
    qint64 at = p;
    while (at < aheadEnd) {
        if (const Segment *s = segmentAt(at)) {
            if (s->atEof())
                return;
            at = s->end();
            continue;
        }
        qint64 gapEnd = aheadEnd;
        for (const Segment &s : std::as_const(segments)) {
            if (s.offset > at) {
                gapEnd = qMin(gapEnd, s.offset);
                break;
            }
        }
        const qint64 len = qMin(gapEnd - at, streaming ? chunk : qMin(FileJob::MaxReadLength, qMax(chunk, want)));
        // Read-ahead is topped up in whole chunks (or up to the end of the file), not
        // by the few bytes each small read moves on.
        if (at >= needEnd && len < chunk && !(size >= 0 && at + len >= size))
            return;
        const quint32 id = job->readAt(at, len);
        if (!id)
            return;
        Segment s;
        s.id = id;
        s.offset = at;
        s.length = len;
        insert(std::move(s));
        at += len;
    }
}

void FileDevicePrivate::onData(quint32 id, qint64 offset, const QByteArray &data)
{
    for (Segment &s : segments) {
        if (s.id != id)
            continue;
        if (data.isEmpty()) {
            s.done = true;
        } else if (offset == s.dataEnd()) {
            if (s.data.isEmpty())
                s.data = data; // shared, not copied: a piece is usually a whole segment
            else
                s.data.append(data);
            s.done = s.data.size() >= s.length;
        }
        break;
    }
    if (!inReadyRead && available(position()) > 0) {
        inReadyRead = true;
        Q_EMIT q->readyRead();
        inReadyRead = false;
    }
}

void FileDevicePrivate::onWritten(qint64 bytes)
{
    toWrite -= bytes;
    Q_EMIT q->bytesWritten(bytes);
}

void FileDevicePrivate::onResult()
{
    ended = true;
    takeJobError();
}

// ---------------------------------------------------------------- FileDevice

FileDevice::FileDevice(const QUrl &url, QObject *parent)
    : QIODevice(parent)
    , d(new FileDevicePrivate(this))
{
    d->url = url;
}

FileDevice::~FileDevice()
{
    if (isOpen())
        FileDevice::close();
    if (d->job)
        d->job->deleteLater();
}

QUrl FileDevice::url() const
{
    return d->url;
}

bool FileDevice::open(OpenMode mode)
{
    if (isOpen()) {
        qWarning("Qvfs::FileDevice::open: already open");
        return false;
    }
    if (d->job)
        d->job->deleteLater();
    d->job = nullptr;
    d->error = NoError;
    d->opened = d->ended = d->sequential = false;
    d->segments.clear();
    d->readPos = d->writeEnd = d->toWrite = 0;
    d->lastEnd = -1;
    setErrorString(QString());

    FileJob *job = Qvfs::open(d->url, mode & ~QIODevice::Unbuffered);
    job->setAutoDelete(false);
    d->job = job;
    d->jd = FileJobPrivate::get(job);
    connect(job, &FileJob::opened, this, [this] { d->opened = true; });
    connect(job, &FileJob::dataRead, this,
        [this](FileJob *, quint32 id, qint64 offset, const QByteArray &data) { d->onData(id, offset, data); });
    connect(job, &FileJob::written, this, [this](FileJob *, quint32, qint64, qint64 bytes) { d->onWritten(bytes); });
    connect(job, &Job::result, this, [this] { d->onResult(); });
    while (!d->opened && !d->ended)
        d->jd->waitForProgress(-1);
    if (!d->opened) {
        d->takeJobError();
        job->deleteLater();
        d->job = nullptr;
        d->jd = nullptr;
        return false;
    }
    d->sequential = !(job->capabilities() & FileJob::CanSeek);
    if (mode & (QIODevice::Append | QIODevice::NewOnly))
        mode |= QIODevice::WriteOnly;
    QIODevice::open(mode | QIODevice::Unbuffered);
    if ((mode & QIODevice::Append) && !d->sequential)
        QIODevice::seek(qMax<qint64>(0, job->size()));
    return true;
}

void FileDevice::close()
{
    if (!isOpen())
        return;
    Q_EMIT aboutToClose();
    if (d->job) {
        if (d->toWrite > 0 && d->usable())
            waitForBytesWritten(-1);
        d->segments.clear();
        d->job->close();
        while (d->waitStep(-1)) { }
        d->takeJobError();
        d->job->deleteLater();
        d->job = nullptr;
        d->jd = nullptr;
    }
    d->opened = false;
    const QString error = errorString();
    QIODevice::close();
    setErrorString(error); // QIODevice::close() forgets it; a failed close is worth keeping
}

bool FileDevice::isSequential() const
{
    return d->sequential;
}

qint64 FileDevice::size() const
{
    if (!d->job)
        return 0;
    return qMax(qMax<qint64>(0, d->job->size()), d->writeEnd);
}

bool FileDevice::seek(qint64 pos)
{
    return QIODevice::seek(pos);
}

bool FileDevice::atEnd() const
{
    if (!isOpen())
        return true;
    if (d->sequential)
        return d->available(d->readPos) == 0 && (d->eofAt(d->readPos) || !d->usable());
    return pos() >= size();
}

qint64 FileDevice::bytesAvailable() const
{
    if (!isOpen() || !isReadable())
        return 0;
    if (d->sequential || !d->job || d->job->size() < 0)
        return d->available(d->position());
    return qMax(qint64(0), size() - pos());
}

qint64 FileDevice::bytesToWrite() const
{
    return d->toWrite;
}

bool FileDevice::canReadLine() const
{
    const qint64 p = d->position();
    qint64 n = d->available(p);
    QByteArray probe(qMin<qint64>(n, 1 << 20), Qt::Uninitialized);
    n = d->copyOut(p, probe.data(), probe.size());
    return probe.left(n).contains('\n') || (n > 0 && d->eofAt(p + n));
}

bool FileDevice::waitForReadyRead(int msecs)
{
    if (!isOpen() || !isReadable() || !d->usable())
        return false;
    const qint64 p = d->position();
    if (d->available(p) > 0)
        return true;
    if (d->eofAt(p))
        return false;
    d->planReads(p, 1, d->isStreaming(p));
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        const int left = msecs < 0 ? -1 : int(qMax<qint64>(0, msecs - clock.elapsed()));
        if (!d->waitStep(left) && !(d->available(p) > 0))
            return false;
        if (d->available(p) > 0) {
            if (!d->inReadyRead) {
                d->inReadyRead = true;
                Q_EMIT readyRead();
                d->inReadyRead = false;
            }
            return true;
        }
        if (d->eofAt(p) || (msecs >= 0 && clock.elapsed() >= msecs))
            return false;
    }
}

bool FileDevice::waitForBytesWritten(int msecs)
{
    QElapsedTimer clock;
    clock.start();
    while (d->toWrite > 0) {
        if (!d->usable())
            return false;
        const int left = msecs < 0 ? -1 : int(qMax<qint64>(0, msecs - clock.elapsed()));
        if (!d->waitStep(left) && d->toWrite > 0)
            return false;
        if (msecs >= 0 && clock.elapsed() >= msecs && d->toWrite > 0)
            return false;
    }
    return d->error == NoError;
}

bool FileDevice::flush()
{
    return waitForBytesWritten(-1);
}

bool FileDevice::resize(qint64 size)
{
    if (!isOpen() || !isWritable() || !d->usable())
        return false;
    d->segments.clear();
    bool done = false;
    const quint32 id = d->job->truncate(size);
    if (!id)
        return false;
    const QMetaObject::Connection c = connect(d->job, &FileJob::truncated, this, [&done, id](FileJob *, quint32 i) {
        if (i == id)
            done = true;
    });
    while (!done && d->waitStep(-1)) { }
    disconnect(c);
    if (done)
        d->writeEnd = qMin(d->writeEnd, size);
    return done && d->error == NoError;
}

void FileDevice::setReadAhead(int requests, qint64 chunk)
{
    d->aheadRequests = qBound(0, requests, 64);
    d->chunk = qBound<qint64>(4096, (chunk + 4095) / 4096 * 4096, FileJob::MaxReadLength);
}

int FileDevice::error() const
{
    return d->error;
}

QString FileDevice::mimeType() const
{
    return d->job ? d->job->mimeType() : QString();
}

FileJob::Capabilities FileDevice::capabilities() const
{
    return d->job ? d->job->capabilities() : FileJob::Capabilities();
}

FileJob *FileDevice::job() const
{
    return d->job;
}

qint64 FileDevicePrivate::read(char *data, qint64 maxSize, bool line)
{
    if (error != NoError || !job)
        return -1;
    const qint64 p = position();
    const bool streaming = isStreaming(p);
    qint64 total = 0;
    while (total < maxSize) {
        const qint64 at = p + total;
        if (usable())
            planReads(at, line ? 1 : maxSize - total, streaming); // a line's end is not known: one byte
        const qint64 n = copyOut(at, data + total, maxSize - total);
        if (line && n > 0) {
            if (const void *nl = std::memchr(data + total, '\n', size_t(n))) {
                total = static_cast<const char *>(nl) - data + 1;
                break;
            }
        }
        total += n;
        if (total == maxSize || eofAt(p + total))
            break;
        if (n > 0)
            continue; // further on now: ask for what is needed there before waiting
        if (!blockingWait()) {
            if (total == 0 && error != NoError)
                return -1;
            break;
        }
    }
    lastEnd = p + total;
    if (sequential)
        readPos += total;
    return total;
}

qint64 FileDevice::readData(char *data, qint64 maxSize)
{
    return d->read(data, maxSize, false);
}

qint64 FileDevice::readLineData(char *data, qint64 maxSize)
{
    return d->read(data, maxSize, true);
}

qint64 FileDevice::writeData(const char *data, qint64 maxSize)
{
    if (!d->usable())
        return -1;
    d->segments.clear(); // what was read ahead may be stale now
    const QByteArray bytes(data, maxSize);
    const bool append = openMode() & QIODevice::Append;
    const qint64 at = pos();
    const quint32 id = append ? d->job->append(bytes) : d->job->writeAt(at, bytes);
    if (!id) {
        d->fail(ErrUnsupportedAction, errorText(ErrUnsupportedAction, { d->url.toString() }));
        return -1;
    }
    d->toWrite += maxSize;
    d->writeEnd = qMax(d->writeEnd, append ? size() + maxSize : at + maxSize);
    while (d->toWrite > MaxUnconfirmed && d->blockingWait()) { }
    if (d->error != NoError)
        return -1;
    return maxSize;
}

} // namespace Qvfs
