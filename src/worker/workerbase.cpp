// SPDX-License-Identifier: LGPL-2.1-or-later
#include "workerbase.h"
#include "entrycodec_p.h"
#include "frame_p.h"
#include "spin_p.h"
#include "workerbase_debug.h"

#include <QList>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

namespace Qvfs
{

using namespace Internal;
using Wire::Msg;

namespace
{
constexpr qsizetype HighWater = 256 * 1024; // unsent bytes before the worker waits
constexpr qsizetype FirstBatchBytes = 4 * 1024; // the first entries reach the app fast
constexpr qsizetype BatchBytes = 60 * 1024;
constexpr qint64 BatchMaxMs = 100;
constexpr qint64 HeartbeatMs = 1000;
constexpr qint64 ProgressMs = 100;
constexpr qsizetype DataChunk = 256 * 1024;

qint64 nowUs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

qint64 nowMs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
} // namespace

static void appendProgress(MetaData &m, const char *prefix, qint64 bytes, qint64 files, qint64 dirs);

class WorkerBasePrivate
{
public:
    explicit WorkerBasePrivate(WorkerBase *q)
        : q(q)
    { }

    WorkerBase *q;
    QByteArray protocol;
    int fd = -1;
    FrameReader in;
    FrameWriter out;
    EntryEncoder encoder;
    QByteArray batch;
    int batchCount = 0;
    int lastBatchCount = 0;
    qint64 batchStartMs = 0;
    bool firstBatchSent = false;
    qint64 wireBytes = 0; // Entries frames sent for the running request

    struct Pending
    {
        Wire::Header header;
        QByteArray payload;
    };
    QList<Pending> commands; // commands that arrived (one at a time is expected)
    QList<QByteArray> putData;
    bool putEnd = false;
    bool helloOk = false;
    QList<MetaData> answers;

    quint32 current = 0; // running request id, 0 = idle
    MetaData opts;
    MetaData results;
    bool killed = false;
    bool suspended = false;
    bool appGone = false;
    bool justReplied = false;
    qint64 lastSendMs = 0;
    qint64 lastProgressMs = 0;
    qint64 lastPollMs = 0;
    std::array<qint64, 3> processed { { -1, -1, -1 } }; // bytes, files, dirs last reported by the hook
    bool progressPending = false;
    quint64 nextQuestion = 1;

    void send(Msg type, QByteArrayView payload)
    {
        out.append(type, current, payload);
        afterAppend();
    }
    void afterAppend()
    {
        lastSendMs = nowMs();
        if (!out.flushTo(fd)) {
            appGone = killed = true;
            out.clear();
            return;
        }
        // Backpressure: wait while too much is unsent, reading control messages meanwhile.
        while (out.pending() > HighWater && !appGone)
            pump(-1);
    }

    /*! Waits up to \a timeoutMs for I/O, reads and handles what came, writes what is pending. */
    void pump(int timeoutMs)
    {
        if (appGone)
            return;
        pollfd p { fd, short(POLLIN | (out.pending() ? POLLOUT : 0)), 0 };
        const int r = ::poll(&p, 1, timeoutMs);
        if (r < 0 && errno != EINTR) {
            appGone = killed = true;
            return;
        }
        if (r <= 0)
            return;
        if (p.revents & POLLOUT) {
            if (!out.flushTo(fd)) {
                appGone = killed = true;
                return;
            }
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            for (;;) {
                const FrameReader::ReadResult rr = in.readFrom(fd);
                if (rr == FrameReader::Eof || rr == FrameReader::Failed) {
                    appGone = killed = true;
                    break;
                }
                if (rr == FrameReader::WouldBlock)
                    break;
            }
            Wire::Header h;
            QByteArray payload;
            for (;;) {
                const FrameReader::NextResult nr = in.next(&h, &payload);
                if (nr == FrameReader::NeedMore)
                    break;
                if (nr == FrameReader::Bad) {
                    qCWarning(QVFS_WORKER) << protocol << "worker: malformed frame from the application";
                    appGone = killed = true;
                    return;
                }
                handle(h, std::move(payload));
            }
        }
    }

    void handle(const Wire::Header &h, QByteArray &&payload)
    {
        switch (Msg(h.type)) {
        case Msg::Hello: {
            quint32 version = 0;
            MetaData info;
            if (!decodeHello(payload, &version, &info) || version != Wire::ProtocolVersion) {
                out.append(Msg::Error, 0,
                    encodeError(ErrVersionMismatch,
                        { QByteArray::number(Wire::ProtocolVersion), QByteArray::number(version) }));
                out.flushTo(fd);
                appGone = killed = true;
                return;
            }
            helloOk = true;
            return;
        }
        case Msg::Command:
            commands.append(Pending { h, std::move(payload) });
            return;
        case Msg::Kill:
            if (h.requestId == current && current) {
                killed = true;
                return;
            }
            // Killed before it started: drop the waiting command, and say so (the
            // application takes the error as the acknowledgement).
            for (qsizetype i = 0; i < commands.size(); ++i) {
                if (commands.at(i).header.requestId == h.requestId) {
                    commands.removeAt(i);
                    out.append(Msg::Error, h.requestId, encodeError(ErrCancelled, {}));
                    if (!out.flushTo(fd))
                        appGone = killed = true;
                    return;
                }
            }
            return;
        case Msg::Suspend:
            if (h.requestId == current)
                suspended = true;
            return;
        case Msg::Resume:
            if (h.requestId == current)
                suspended = false;
            return;
        case Msg::Answer:
            if (h.requestId == current) {
                MetaData a;
                if (a.decode(payload))
                    answers.append(a);
            }
            return;
        case Msg::PutData:
            if (h.requestId == current)
                putData.append(std::move(payload));
            return;
        case Msg::PutEnd:
            if (h.requestId == current)
                putEnd = true;
            return;
        default:
            qCWarning(QVFS_WORKER) << protocol << "worker: unexpected message" << h.type;
            return;
        }
    }

    void sendProgress()
    {
        progressPending = false;
        MetaData m;
        appendProgress(m, "", processed[0], processed[1], processed[2]);
        QByteArray payload;
        m.encode(payload);
        send(Msg::Progress, payload);
    }

    /*! Blocks while the application keeps the request suspended (a kill ends it). */
    void waitWhileSuspended()
    {
        while (suspended && !killed)
            pump(-1);
    }

    void heartbeatIfDue()
    {
        if (current && nowMs() - lastSendMs >= HeartbeatMs)
            send(Msg::Heartbeat, {});
    }

    void startBatch()
    {
        encoder.beginPayload(batch, quint32(lastBatchCount));
        batchCount = 0;
        batchStartMs = nowMs();
    }

    /*!
     * Sends the pending entries. \a last: the request's final message follows at once,
     * so both go out in one write (one wake-up of the application per stat, not two).
     */
    void flushBatch(bool last = false)
    {
        if (batchCount == 0)
            return;
        wireBytes += Wire::HeaderSize + batch.size();
        out.appendHeader(Msg::Entries, current, quint32(batch.size()));
        out.appendRaw(batch);
        batch.resize(0);
        lastBatchCount = batchCount;
        batchCount = 0;
        firstBatchSent = true;
        if (last)
            return;
        afterAppend();
        pump(0); // read a kill or suspend that arrived meanwhile
        // Honour suspend between batches.
        waitWhileSuspended();
    }

    void runCommand(const Pending &p);
};

WorkerBase::WorkerBase(const QByteArray &protocol)
    : d(new WorkerBasePrivate(this))
{
    d->protocol = protocol;
}

WorkerBase::~WorkerBase() = default;

int WorkerBase::exec(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--fd") == 0)
            d->fd = std::atoi(argv[i + 1]);
    }
    if (d->fd < 0) {
        std::fprintf(stderr, "qvfs-worker-%s: started without --fd; it is started by Qvfs applications\n",
            d->protocol.constData());
        return 2;
    }
    setNonBlocking(d->fd);
    MetaData hello;
    hello.setBytes("protocol", d->protocol);
    hello.setNumber("pid", qint64(::getpid()));
    QByteArray helloPayload = encodeHello(hello);
    // For the version-mismatch test only: pretend to speak another version.
    const QByteArray fake = qgetenv("QVFS_WORKER_FAKE_VERSION");
    if (!fake.isEmpty()) {
        helloPayload.clear();
        Wire::appendVarint(helloPayload, fake.toULongLong());
        hello.encode(helloPayload);
    }
    d->out.append(Msg::Hello, 0, helloPayload);
    d->afterAppend();
    const qint64 spinUs = spinMicroseconds();
    while (!d->appGone) {
        if (d->commands.isEmpty()) {
            // Right after a reply the next command often follows within microseconds
            // (sequential stats): stay awake briefly, so a sleeping CPU does not have to
            // be woken for it (tens of microseconds on a virtual machine).
            const qint64 until = nowUs() + (d->justReplied ? spinUs : 0);
            d->justReplied = false;
            while (d->commands.isEmpty() && !d->appGone && nowUs() < until) {
                d->pump(0);
                sched_yield(); // the application may share this CPU: let it run
            }
            if (d->commands.isEmpty())
                d->pump(-1);
            continue;
        }
        const WorkerBasePrivate::Pending p = d->commands.takeFirst();
        if (!d->helloOk) {
            d->out.append(Msg::Error, p.header.requestId,
                encodeError(ErrProtocolError, { QByteArrayLiteral("command before hello") }));
            d->out.flushTo(d->fd);
            break;
        }
        d->runCommand(p);
        d->justReplied = true;
    }
    // Flush what is left (best effort) and leave.
    d->out.flushTo(d->fd);
    ::close(d->fd);
    return 0;
}

void WorkerBasePrivate::runCommand(const Pending &p)
{
    Wire::Command cmd;
    QList<QByteArray> rawUrls;
    current = p.header.requestId;
    killed = suspended = putEnd = false;
    putData.clear();
    answers.clear();
    results = MetaData();
    opts = MetaData();
    encoder.resetAtoms();
    batch.resize(0);
    batchCount = 0;
    lastBatchCount = 0;
    firstBatchSent = false;
    wireBytes = 0;
    lastProgressMs = 0;
    processed = { { -1, -1, -1 } };
    progressPending = false;
    WorkerResult res = WorkerResult::pass();
    if (!decodeCommand(p.payload, &cmd, &rawUrls, &opts)) {
        res = WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("malformed command"));
    } else {
        QList<QUrl> urls;
        urls.reserve(rawUrls.size());
        for (const QByteArray &u : rawUrls)
            urls.append(QUrl::fromEncoded(u, QUrl::StrictMode));
        const auto url = [&](int i) { return i < urls.size() ? urls.at(i) : QUrl(); };
        for (const QUrl &u : urls) {
            if (!u.isValid()) {
                res = WorkerResult::fail(ErrMalformedUrl, u.toEncoded());
                break;
            }
        }
        const Details details = Details(uint(opts.number("details", DetailsDefault)));
        const int minUrls = (cmd == Wire::Command::Rename || cmd == Wire::Command::Copy) ? 2 : 1;
        if (res.ok() && urls.size() < minUrls)
            res = WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("missing URL"));
        if (res.ok()) {
            switch (cmd) {
            case Wire::Command::ListDir:
            case Wire::Command::ListRecursive:
                startBatch();
                res = q->listDir(url(0), details, cmd == Wire::Command::ListRecursive);
                break;
            case Wire::Command::Stat:
                startBatch();
                res = q->stat(url(0), details);
                break;
            case Wire::Command::Mkdir:
                res = q->mkdir(url(0), int(opts.number("permissions", -1)), opts.number("parents", 0) != 0);
                break;
            case Wire::Command::Delete:
                res = q->del(url(0), opts.number("recursive", 0) != 0);
                break;
            case Wire::Command::Rename:
                res = q->rename(url(0), url(1), opts.number("overwrite", 0) != 0);
                break;
            case Wire::Command::Copy:
                res = q->copy(urls.mid(0, urls.size() - 1), urls.last());
                break;
            case Wire::Command::Get:
                res = q->get(url(0));
                break;
            case Wire::Command::Put:
                res = q->put(url(0));
                break;
            case Wire::Command::Symlink:
                res = q->symlink(opts.bytes("target"), url(0));
                break;
            case Wire::Command::Chmod:
                res = q->chmod(url(0), int(opts.number("permissions", 0)));
                break;
            case Wire::Command::DirectorySize:
                res = q->directorySize(url(0));
                break;
            case Wire::Command::Special:
                res = q->special(url(0));
                break;
            case Wire::Command::SetModificationTime:
                res = q->setModificationTime(url(0), opts.number("mtime"), opts.number("mtime-ns"));
                break;
            default:
                res = WorkerResult::fail(ErrUnsupportedAction, QByteArray::number(int(cmd)));
                break;
            }
        }
    }
    if (!appGone) {
        if (res.ok() && killed)
            res = WorkerResult::fail(ErrCancelled);
        if (progressPending)
            sendProgress(); // the final amounts, which throttling may have held back
        if (res.ok()) {
            flushBatch(true);
            if (wireBytes)
                results.setNumber("wire-bytes", wireBytes);
            QByteArray payload;
            results.encode(payload);
            send(Msg::Finished, payload);
        } else {
            // The entries built so far still go out: they may define key sets that the
            // encoder now counts as known on this connection.
            flushBatch(true);
            if (!results.isEmpty()) {
                // What was done before the error (e.g. how many entries were deleted).
                QByteArray payload;
                results.encode(payload);
                send(Msg::MetaData, payload);
            }
            send(Msg::Error, encodeError(res.code(), res.args()));
        }
    }
    current = 0;
    opts = MetaData();
}

int WorkerBase::socketFd() const
{
    return d->fd;
}

quint32 WorkerBase::requestId() const
{
    return d->current;
}

// ---- default hooks ----

#define QVFS_UNSUPPORTED(url) return WorkerResult::fail(ErrUnsupportedAction, url)
WorkerResult WorkerBase::listDir(const QUrl &url, Details, bool)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::stat(const QUrl &url, Details)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::mkdir(const QUrl &url, int, bool)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::del(const QUrl &url, bool)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::rename(const QUrl &from, const QUrl &, bool)
{
    QVFS_UNSUPPORTED(from);
}
WorkerResult WorkerBase::copy(const QList<QUrl> &, const QUrl &dest)
{
    QVFS_UNSUPPORTED(dest);
}
WorkerResult WorkerBase::get(const QUrl &url)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::put(const QUrl &url)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::symlink(const QByteArray &, const QUrl &link)
{
    QVFS_UNSUPPORTED(link);
}
WorkerResult WorkerBase::chmod(const QUrl &url, int)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::directorySize(const QUrl &url)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::special(const QUrl &url)
{
    QVFS_UNSUPPORTED(url);
}
WorkerResult WorkerBase::setModificationTime(const QUrl &url, qint64, qint64)
{
    QVFS_UNSUPPORTED(url);
}
#undef QVFS_UNSUPPORTED

// ---- helpers for hooks ----

const MetaData &WorkerBase::options() const
{
    return d->opts;
}

void WorkerBase::beginEntry()
{
    d->encoder.begin(d->batch);
}

void WorkerBase::addNumber(Field field, qint64 value)
{
    d->encoder.addNumber(field, value);
}

void WorkerBase::addString(Field field, QByteArrayView value)
{
    d->encoder.addString(field, value);
}

void WorkerBase::addAtom(Field field, QByteArrayView value)
{
    d->encoder.addAtom(field, value);
}

void WorkerBase::endEntry()
{
    // Never fails: the batch is flushed long before it could use every key set.
    const bool encoded = d->encoder.end();
    Q_ASSERT(encoded);
    if (!encoded)
        return;
    ++d->batchCount;
    const qsizetype limit = d->firstBatchSent ? BatchBytes : FirstBatchBytes;
    bool flush = d->batch.size() >= limit || d->encoder.keySetsInPayload() >= MaxKeySets - 16;
    if (!flush && (d->batchCount & 63) == 0) {
        const qint64 now = nowMs();
        flush = now - d->batchStartMs >= BatchMaxMs;
    }
    if (flush) {
        d->flushBatch();
        d->startBatch();
    }
}

void WorkerBase::data(QByteArrayView chunk)
{
    while (!chunk.isEmpty() && !d->killed) {
        const qsizetype n = std::min(chunk.size(), DataChunk);
        d->send(Msg::Data, chunk.first(n));
        chunk = chunk.sliced(n);
        d->waitWhileSuspended();
    }
}

bool WorkerBase::readData(QByteArray *chunk)
{
    if (d->putData.isEmpty() && !d->putEnd && !d->killed)
        d->send(Msg::DataRequest, {});
    while (d->putData.isEmpty() && !d->putEnd && !d->killed) {
        d->pump(1000);
        d->heartbeatIfDue();
    }
    if (d->killed || d->putData.isEmpty()) {
        chunk->clear();
        return false;
    }
    *chunk = d->putData.takeFirst();
    return true;
}

static void appendProgress(MetaData &m, const char *prefix, qint64 bytes, qint64 files, qint64 dirs)
{
    const QByteArray p(prefix);
    if (bytes >= 0)
        m.setNumber(QByteArray(p + "bytes"), bytes);
    if (files >= 0)
        m.setNumber(QByteArray(p + "files"), files);
    if (dirs >= 0)
        m.setNumber(QByteArray(p + "dirs"), dirs);
}

void WorkerBase::setTotals(qint64 bytes, qint64 files, qint64 dirs)
{
    MetaData m;
    appendProgress(m, "total-", bytes, files, dirs);
    QByteArray payload;
    m.encode(payload);
    d->send(Msg::Progress, payload);
}

void WorkerBase::setProcessed(qint64 bytes, qint64 files, qint64 dirs)
{
    // Throttled; the last values are kept and always sent before the request ends.
    if (bytes >= 0)
        d->processed[0] = bytes;
    if (files >= 0)
        d->processed[1] = files;
    if (dirs >= 0)
        d->processed[2] = dirs;
    d->progressPending = true;
    const qint64 now = nowMs();
    if (now - d->lastProgressMs < ProgressMs) {
        d->heartbeatIfDue();
        return;
    }
    d->lastProgressMs = now;
    d->sendProgress();
}

void WorkerBase::sendMetaData(const MetaData &meta)
{
    QByteArray payload;
    meta.encode(payload);
    d->send(Msg::MetaData, payload);
}

void WorkerBase::setResult(QByteArrayView key, qint64 value)
{
    d->results.setNumber(key, value);
}

MetaData WorkerBase::ask(const QByteArray &kind, const MetaData &question)
{
    MetaData q = question;
    const qint64 qid = qint64(d->nextQuestion++);
    q.setNumber("qid", qid);
    q.setBytes("kind", kind);
    QByteArray payload;
    q.encode(payload);
    d->send(Msg::Question, payload);
    for (;;) {
        for (qsizetype i = 0; i < d->answers.size(); ++i) {
            if (d->answers.at(i).number("qid", -1) == qid)
                return d->answers.takeAt(i);
        }
        if (d->killed)
            return MetaData();
        d->pump(1000);
        d->heartbeatIfDue();
    }
}

bool WorkerBase::wasKilled()
{
    if (!d->killed && !d->appGone) {
        // Cheap enough to call per entry: the socket is looked at once a millisecond at most.
        const qint64 now = nowMs();
        if (now - d->lastPollMs < 1)
            return false;
        d->lastPollMs = now;
        d->pump(0);
        d->heartbeatIfDue();
        d->waitWhileSuspended();
    }
    return d->killed;
}

} // namespace Qvfs
