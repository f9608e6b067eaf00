// SPDX-License-Identifier: LGPL-2.1-or-later
#include "workerbase.h"
#include "connection_p.h"
#include "entrycodec_p.h"
#include "keys_p.h"
#include "requests_p.h"
#include "translations_p.h"
#include "url_p.h"
#include "workerbase_debug.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QList>
#include <QSet>
#include <QSocketNotifier>
#include <QTimer>
#include <QtNumeric>

#include <limits>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
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
constexpr int EventLoopTickMs = 50; // waitUntil() looks for a kill at least this often
constexpr qsizetype ItemFlushBytes = 32 * 1024; // queued per-item reports written together

qint64 nowUs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

qint64 nowMs()
{
    return nowUs() / 1000;
}

/*! A descriptor 0..2 that is closed would be taken by the next open(): the socket, a file. */
void fillStandardDescriptors()
{
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            const int n = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                ::dup2(n, fd);
                ::close(n);
            }
        }
    }
}

/*! Deep trees need a descriptor or two per level: take what the hard limit allows. */
void raiseOpenFileLimit()
{
    rlimit rl;
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/*! What identifies the host a URL talks to: scheme, user, host, port. */
QUrl hostOf(const QUrl &url)
{
    return url.adjusted(QUrl::RemovePassword | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

const char *resultKeyName(WorkerBase::ResultKey key)
{
    switch (key) {
    case WorkerBase::ResultKey::Removed:
        return Keys::Removed;
    case WorkerBase::ResultKey::Bytes:
        return Keys::Bytes;
    case WorkerBase::ResultKey::Files:
        return Keys::Files;
    case WorkerBase::ResultKey::Folders:
        return Keys::Dirs;
    case WorkerBase::ResultKey::SkippedFolders:
        return Keys::SkippedFolders;
    case WorkerBase::ResultKey::TimesKept:
        return Keys::TimesKept;
    case WorkerBase::ResultKey::Device:
        return Keys::Device;
    case WorkerBase::ResultKey::Inode:
        return Keys::Inode;
    case WorkerBase::ResultKey::SpaceTotal:
        return Keys::SpaceTotal;
    case WorkerBase::ResultKey::SpaceFree:
        return Keys::SpaceFree;
    case WorkerBase::ResultKey::SpaceAvailable:
        return Keys::SpaceAvailable;
    case WorkerBase::ResultKey::SpaceUsed:
        return Keys::SpaceUsed;
    }
    return Keys::Removed;
}
} // namespace

class WorkerBasePrivate
{
public:
    explicit WorkerBasePrivate(WorkerBase *q)
        : q(q)
    { }

    WorkerBase *q;
    QByteArray protocol;
    Connection conn;
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
    QSet<quint32> suspendedPending; // Suspend for a command that has not started yet
    QList<QByteArray> putData;
    bool putEnd = false;
    bool helloOk = false;
    QList<MetaData> answers;

    // an open file (OpenRequest) being served
    struct FileOp
    {
        Msg type;
        FileOperation op;
        QByteArray data; // a write's data (the frame's own buffer)
    };
    std::deque<FileOp> fileOps;
    bool serving = false;
    bool badFileOp = false;
    QByteArray fileBuffer; // one reused buffer for every read

    quint32 current = 0; // running request id, 0 = idle
    MetaData opts;
    MetaData results;
    bool reportItems = false;
    bool killed = false;
    bool suspended = false;
    bool appGone = false;
    bool justReplied = false;
    bool hostSet = false;
    QUrl host;
    qint64 lastSendMs = 0;
    qint64 lastProgressMs = 0;
    qint64 lastPollMs = 0;
    Progress progress; // processed amounts last reported by the hook
    bool progressPending = false;
    quint64 nextQuestion = 1;

    // ---- watches (see WorkerBase::watch()) ----
    QHash<quint32, WatchMode> watches; // live watches and how each is watched
    QSet<quint32> ending; // live watches to end at the next turn: unwatch(), then Finished
    WatchMode startMode = WatchMode::Native; // of the watch being started
    int watchFd = -1;
    qint64 watchTimerDue = -1; // ms (nowMs() clock)
    WatchChanges changes; // removals and renames of the open batch
    bool inChanges = false;
    bool inResync = false;
    qint64 changeEntries = 0; // entries sent in the open batch
    quint32 lastEntriesId = 0; // request id of the last Entries frame: atoms restart with another
    std::function<void(const QList<QByteArray> &)> firstBatchHook; // whenFirstBatchSent()
    QList<QByteArray> firstBatchNames;
    void runFirstBatchHook()
    {
        if (!firstBatchHook)
            return;
        const auto hook = std::exchange(firstBatchHook, {});
        hook(std::exchange(firstBatchNames, {}));
    }

    // The default watch(): polling. The polling digest: a hash of each entry's fields per name.
    struct PolledFolder
    {
        struct Digest
        {
            quint64 hash;
            quint32 generation;
        };
        ListRequest list;
        int intervalMs = 0;
        qint64 dueMs = 0;
        quint32 generation = 1;
        QHash<QByteArray, Digest> digests; // by name
    };
    QHash<quint32, PolledFolder> polledFolders;
    enum class DigestMode {
        Off, //!< entries go out as the hook makes them
        SendAll, //!< entries are sent, and their digest kept
        SendChanged, //!< entries are digested; only new or changed ones are sent (as upserts)
    };
    DigestMode digestMode = DigestMode::Off;
    PolledFolder *digestFolder = nullptr;
    quint64 entryHash = 0;
    QByteArray entryName;
    QByteArray heldFields; // SendChanged: the fields of the entry being built, sent if it is new or changed

    void hashBytes(const void *p, qsizetype n)
    {
        const auto *b = static_cast<const unsigned char *>(p);
        for (qsizetype i = 0; i < n; ++i) {
            entryHash ^= b[i];
            entryHash *= 0x100000001b3ULL; // FNV-1a
        }
    }
    void digestField(quint16 field, qint64 number, QByteArrayView str);
    void sendHeldEntry();
    /*! Encodes the end of the entry and flushes the batch by size and time. */
    void finishEntry();
    void beginEntryBytes();
    void serveWatches();
    void endWatches();
    void runPoll(quint32 id);
    void sendResultEntry(const WireCommand &c);
    /*! Waits up to \a timeoutMs for the socket or \a fd (-1: none); returns whether \a fd is readable. */
    bool waitBoth(int fd, int timeoutMs);
    void readIncoming();

    WorkerBase::Options options;
    // The QCoreApplication of the EventLoop option (it keeps argc/argv for its life).
    int argc = 0;
    char **argv = nullptr;
    std::unique_ptr<QCoreApplication> app;

    void send(Msg type, QByteArrayView payload)
    {
        conn.send(type, current, payload);
        afterAppend();
    }
    void sendBlock(Msg type, const MetaData &m)
    {
        QByteArray payload;
        m.encode(payload);
        send(type, payload);
    }
    void gone() { appGone = killed = true; }
    void afterAppend()
    {
        lastSendMs = nowMs();
        if (!conn.flush()) {
            gone();
            return;
        }
        // Backpressure: wait while too much is unsent, reading control messages meanwhile.
        while (conn.pending() > HighWater && !appGone)
            pump(-1);
    }

    /*! Waits up to \a timeoutMs for I/O, reads and handles what came, writes what is pending. */
    void pump(int timeoutMs)
    {
        if (appGone)
            return;
        switch (conn.wait(timeoutMs)) {
        case Connection::WaitResult::Closed:
            gone();
            return;
        case Connection::WaitResult::TimedOut:
            return;
        case Connection::WaitResult::Readable:
            break;
        }
        readIncoming();
    }

    void handle(const Wire::Header &h, QByteArray &&payload);

    void sendProgress()
    {
        progressPending = false;
        send(Msg::Progress, [this] {
            QByteArray payload;
            encodeProgress(progress).encode(payload);
            return payload;
        }());
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
        batch.resize(0); // a batch that got no entry left its count hint behind
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
        if (inChanges)
            changeEntries += batchCount;
        conn.sendHeader(Msg::Entries, current, quint32(batch.size()));
        conn.sendRaw(batch);
        batch.resize(0);
        lastBatchCount = batchCount;
        batchCount = 0;
        firstBatchSent = true;
        if (firstBatchHook) {
            conn.flush(); // the first rows are on their way before the hook's work
            runFirstBatchHook();
        }
        if (last)
            return;
        afterAppend();
        pump(0); // read a kill or suspend that arrived meanwhile
        waitWhileSuspended();
    }

    MetaData ask(const MetaData &question);
    WorkerResult serveFile(const OpenRequest &request);
    WorkerResult serveOperations();
    WorkerResult serveRead(const FileOperation &o);
    void sendFileData(quint32 op, qint64 offset, QByteArrayView data, bool last);
    void sendFileDone(quint32 op, qint64 offset, qint64 value)
    {
        send(Msg::FileDone, encodeFileDone(FileDone { op, offset, value }));
    }
    void beginRequest(quint32 id);
    WorkerResult dispatch(const WireCommand &c);
    void runCommand(const Pending &p);
    void followHost(const QUrl &url);
};

void WorkerBasePrivate::handle(const Wire::Header &h, QByteArray &&payload)
{
    switch (Msg(h.type)) {
    case Msg::Hello: {
        quint32 version = 0;
        MetaData info;
        if (!decodeHello(payload, &version, &info) || version != Wire::ProtocolVersion) {
            conn.send(Msg::Error, 0,
                encodeError(
                    ErrVersionMismatch, { QByteArray::number(Wire::ProtocolVersion), QByteArray::number(version) }));
            conn.flush();
            gone();
            return;
        }
        helloOk = true;
        return;
    }
    case Msg::Command:
        commands.append(Pending { h, std::move(payload) });
        return;
    case Msg::Kill:
        if (watches.contains(h.requestId)) {
            // A live watch: it ends between hooks (unwatch(), then the acknowledgement).
            ending.insert(h.requestId);
            if (h.requestId == current)
                killed = true;
            return;
        }
        if (h.requestId == current && current) {
            killed = true;
            return;
        }
        // Killed before it started: drop the waiting command, and say so (the
        // application takes the error as the acknowledgement).
        for (qsizetype i = 0; i < commands.size(); ++i) {
            if (commands.at(i).header.requestId == h.requestId) {
                commands.removeAt(i);
                suspendedPending.remove(h.requestId);
                conn.send(Msg::Error, h.requestId, encodeError(ErrCancelled, {}));
                if (!conn.flush())
                    gone();
                return;
            }
        }
        return;
    case Msg::Suspend:
    case Msg::Resume: {
        const bool on = Msg(h.type) == Msg::Suspend;
        if (h.requestId == current && current) {
            suspended = on;
            return;
        }
        // For a command still waiting here: it starts suspended.
        for (const Pending &p : std::as_const(commands)) {
            if (p.header.requestId == h.requestId) {
                if (on)
                    suspendedPending.insert(h.requestId);
                else
                    suspendedPending.remove(h.requestId);
                return;
            }
        }
        return;
    }
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
    case Msg::FileRead:
    case Msg::FileTruncate:
    case Msg::FileSize:
    case Msg::FileWrite:
    case Msg::FileClose: {
        // Operations sent just before a kill, or for a file that failed, are not ours to do.
        if (!serving || h.requestId != current)
            return;
        FileOp o { Msg(h.type), {}, {} };
        bool ok = true;
        if (o.type == Msg::FileWrite) {
            ok = decodeFileWrite(&payload, &o.op);
            o.data = std::move(payload);
        } else if (o.type != Msg::FileClose) {
            ok = decodeFileOperation(o.type, payload, &o.op);
        }
        if (!ok)
            badFileOp = true;
        else
            fileOps.push_back(std::move(o));
        return;
    }
    default:
        qCWarning(QVFS_WORKER) << protocol << "worker: unexpected message" << h.type;
        return;
    }
}

WorkerBase::WorkerBase(const QByteArray &protocol, Options options)
    : d(new WorkerBasePrivate(this))
{
    d->protocol = protocol;
    d->options = options;
}

WorkerBase::~WorkerBase() = default;

int WorkerBase::exec(int argc, char **argv)
{
    fillStandardDescriptors();
    raiseOpenFileLimit();
    d->argc = argc;
    d->argv = argv;
    // Messages a worker makes (an error's detail) are in the user's language: the worker
    // inherits the application's environment. A worker without an event loop makes its
    // QCoreApplication only when there is a catalog to install (starting it costs time).
    if (!QCoreApplication::instance() && ((d->options & EventLoop) || !translationCatalog().isEmpty()))
        d->app.reset(new QCoreApplication(d->argc, d->argv));
    installTranslations();
    int fd = -1;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--fd") == 0)
            fd = std::atoi(argv[i + 1]);
    }
    if (fd <= 2) {
        std::fprintf(stderr, "qvfs-worker-%s: started without --fd; it is started by Qvfs applications\n",
            d->protocol.constData());
        return 2;
    }
    d->conn.adopt(fd);
    MetaData hello;
    hello.setBytes(Keys::Protocol, d->protocol);
    hello.setNumber(Keys::Pid, qint64(::getpid()));
    QByteArray helloPayload = encodeHello(hello);
    // For the version-mismatch test only: pretend to speak another version.
    const QByteArray fake = qgetenv("QVFS_WORKER_FAKE_VERSION");
    if (!fake.isEmpty()) {
        helloPayload.clear();
        Wire::appendVarint(helloPayload, fake.toULongLong());
        hello.encode(helloPayload);
    }
    d->conn.send(Msg::Hello, 0, helloPayload);
    d->afterAppend();
    if (d->conn.wait(0) == Connection::WaitResult::TimedOut)
        warmUp();
    const qint64 spinUs = spinMicroseconds();
    while (!d->appGone) {
        d->endWatches();
        if (d->commands.isEmpty() && (!d->watches.isEmpty() || d->watchTimerDue >= 0)) {
            d->serveWatches();
            continue;
        }
        if (d->commands.isEmpty()) {
            // Right after a reply the next command often follows within microseconds
            // (sequential stats): stay awake briefly instead of sleeping.
            if (d->justReplied && d->conn.spinUntilReadable(spinUs))
                d->pump(0);
            d->justReplied = false;
            if (d->commands.isEmpty())
                d->pump(-1);
            continue;
        }
        const WorkerBasePrivate::Pending p = d->commands.takeFirst();
        if (!d->helloOk) {
            d->conn.send(Msg::Error, p.header.requestId,
                encodeError(ErrProtocolError, { QByteArrayLiteral("command before hello") }));
            d->conn.flush();
            break;
        }
        d->runCommand(p);
        d->justReplied = true;
    }
    // The application went away: the watches it held end too.
    const QList<quint32> live = d->watches.keys();
    for (quint32 id : live)
        unwatch(id);
    d->watches.clear();
    if (d->hostSet)
        closeConnection();
    // Flush what is left (best effort), then finish what the worker does on its own.
    d->conn.flush();
    d->conn.close();
    finishBackgroundWork();
    return 0;
}

void WorkerBasePrivate::beginRequest(quint32 id)
{
    current = id;
    killed = putEnd = false;
    suspended = suspendedPending.remove(id);
    putData.clear();
    answers.clear();
    results = MetaData();
    opts = MetaData();
    reportItems = false;
    // Atoms restart with each run of Entries frames of another request (beginEntry()),
    // as the application's decoder does: watches of one process interleave.
    batch.resize(0);
    batchCount = 0;
    lastBatchCount = 0;
    firstBatchSent = false;
    firstBatchHook = {};
    firstBatchNames.clear();
    wireBytes = 0;
    lastProgressMs = 0;
    progress = Progress();
    progressPending = false;
}

void WorkerBasePrivate::followHost(const QUrl &url)
{
    const QUrl h = hostOf(url);
    if (hostSet && h == host)
        return;
    if (hostSet)
        q->closeConnection();
    host = h;
    hostSet = true;
    q->setHost(h);
}

namespace
{
// Decodes the typed request and calls the hook; a malformed one is a protocol error.
template<typename R, typename Hook>
WorkerResult call(const WireCommand &c, Hook hook)
{
    R r;
    if (!fromWire(c, &r))
        return WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("malformed command"));
    return hook(r);
}
} // namespace

WorkerResult WorkerBasePrivate::dispatch(const WireCommand &c)
{
    using Cmd = Wire::Command;
    for (const QUrl &u : c.urls) {
        if (!u.isValid())
            return WorkerResult::fail(ErrMalformedUrl, u.toEncoded());
    }
    if (c.urls.isEmpty())
        return WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("missing URL"));
    // The remote end of the command (a local file of copyToFile/copyFromFile is not the host).
    followHost(c.command == Cmd::CopyFromFile && c.urls.size() > 1 ? c.urls.at(1) : c.urls.at(0));
    waitWhileSuspended(); // suspended before it started: nothing happens until resumed
    if (killed)
        return WorkerResult::fail(ErrCancelled);
    switch (c.command) {
    case Cmd::ListDir:
    case Cmd::ListRecursive:
        startBatch();
        return call<ListRequest>(c, [this](const ListRequest &r) { return q->listDir(r); });
    case Cmd::Stat:
        startBatch();
        return call<StatRequest>(c, [this](const StatRequest &r) { return q->stat(r); });
    case Cmd::Mkdir:
        return call<MkdirRequest>(c, [this](const MkdirRequest &r) { return q->mkdir(r); });
    case Cmd::Delete:
        return call<DeleteRequest>(c, [this](const DeleteRequest &r) { return q->del(r); });
    case Cmd::Rename:
        return call<RenameRequest>(c, [this](const RenameRequest &r) { return q->rename(r); });
    case Cmd::Copy:
        return call<CopyRequest>(c, [this](const CopyRequest &r) {
            reportItems = r.reportItems;
            return q->copy(r);
        });
    case Cmd::Get:
        return call<GetRequest>(c, [this](const GetRequest &r) { return q->get(r); });
    case Cmd::Put:
        return call<PutRequest>(c, [this](const PutRequest &r) { return q->put(r); });
    case Cmd::Symlink:
        return call<SymlinkRequest>(c, [this](const SymlinkRequest &r) { return q->symlink(r); });
    case Cmd::Chmod:
        return call<ChmodRequest>(c, [this](const ChmodRequest &r) { return q->chmod(r); });
    case Cmd::SetModificationTime:
        return call<SetTimeRequest>(c, [this](const SetTimeRequest &r) { return q->setModificationTime(r); });
    case Cmd::DirectorySize:
        return call<DirectorySizeRequest>(c, [this](const DirectorySizeRequest &r) { return q->directorySize(r); });
    case Cmd::FreeSpace:
        return call<FreeSpaceRequest>(c, [this](const FreeSpaceRequest &r) { return q->freeSpace(r); });
    case Cmd::Trash:
        return call<TrashRequest>(c, [this](const TrashRequest &r) {
            reportItems = r.reportItems;
            return q->trash(r);
        });
    case Cmd::CopyToFile:
        return call<FileCopyRequest>(c, [this](const FileCopyRequest &r) { return q->copyToFile(r); });
    case Cmd::CopyFromFile:
        return call<FileCopyRequest>(c, [this](const FileCopyRequest &r) { return q->copyFromFile(r); });
    case Cmd::Open:
        return call<OpenRequest>(c, [this](const OpenRequest &r) { return serveFile(r); });
    case Cmd::Special:
        return q->special(c.urls.at(0));
    case Cmd::Watch:
        startBatch();
        startMode = WatchMode::Native;
        return call<WatchRequest>(c, [this](const WatchRequest &r) { return q->watch(r); });
    }
    return WorkerResult::fail(ErrUnsupportedAction, QByteArray::number(int(c.command)));
}

void WorkerBasePrivate::runCommand(const Pending &p)
{
    beginRequest(p.header.requestId);
    WireCommand c;
    WorkerResult res = WorkerResult::pass();
    if (!decodeCommand(p.payload, &c)) {
        res = WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("malformed command"));
    } else {
        opts = c.options;
        res = dispatch(c);
    }
    if (!appGone) {
        if (res.ok() && killed)
            res = WorkerResult::fail(ErrCancelled);
        if (progressPending)
            sendProgress(); // the final amounts, which throttling may have held back
        if (firstBatchHook) {
            flushBatch(true); // runs it, when entries are left
            runFirstBatchHook(); // otherwise (no entry at all)
        }
        if (c.command == Wire::Command::Watch) {
            if (res.ok()) {
                // The listing is complete; the request stays open for the changes.
                flushBatch(true);
                // Live from here: a kill that arrives while this is sent ends it properly.
                watches.insert(current, startMode);
                WatchChanges listed;
                listed.kind = WatchChanges::Kind::Listed;
                listed.mode = startMode;
                send(Msg::Changes, encodeChanges(listed));
                if (killed)
                    ending.insert(current);
                current = 0;
                killed = false;
                opts = MetaData();
                return;
            }
            q->unwatch(current); // whatever the hook set up before it failed
        }
        if (res.ok())
            sendResultEntry(c);
        if (res.ok()) {
            flushBatch(true);
            if (wireBytes)
                results.setNumber(Keys::WireBytes, wireBytes);
            sendBlock(Msg::Finished, results);
        } else {
            // The entries built so far still go out: they may define key sets that the
            // encoder now counts as known on this connection.
            flushBatch(true);
            if (!results.isEmpty())
                sendBlock(Msg::MetaData, results); // what was done before the error
            send(Msg::Error, encodeError(res.code(), res.args()));
        }
    }
    current = 0;
    opts = MetaData();
}

// ---- watches ----

void WorkerBase::setWatchMode(WatchMode mode)
{
    d->startMode = mode;
}

void WorkerBase::setWatchDescriptor(int fd)
{
    d->watchFd = fd;
}

void WorkerBase::setWatchTimer(int ms)
{
    d->watchTimerDue = ms < 0 ? -1 : nowMs() + ms;
}

void WorkerBase::whenFirstBatchSent(std::function<void(const QList<QByteArray> &)> hook)
{
    d->firstBatchHook = std::move(hook);
    d->firstBatchNames.clear();
}

bool WorkerBase::isWatching(quint32 id) const
{
    return d->watches.contains(id) && !d->ending.contains(id);
}

QList<std::pair<QByteArray, QByteArray>> WorkerBase::plainRenames(
    const QList<std::pair<QByteArray, QByteArray>> &renames, const QSet<QByteArray> &existing)
{
    QHash<QByteArray, int> uses;
    for (const auto &r : renames) {
        ++uses[r.first];
        ++uses[r.second];
    }
    QList<std::pair<QByteArray, QByteArray>> plain;
    for (const auto &r : renames) {
        if (uses.value(r.first) == 1 && uses.value(r.second) == 1 && !existing.contains(r.first)
            && existing.contains(r.second))
            plain.append(r);
    }
    return plain;
}

bool WorkerBase::beginChanges(quint32 id)
{
    Q_ASSERT(!d->inChanges && !d->inResync && !d->current);
    if (!isWatching(id) || d->appGone || d->current)
        return false;
    d->current = id;
    d->killed = false;
    d->inChanges = true;
    d->changeEntries = 0;
    d->changes = WatchChanges();
    d->startBatch();
    return true;
}

void WorkerBase::reportRemoved(QByteArrayView name)
{
    if (d->inChanges && !name.isEmpty())
        d->changes.removed.append(name.toByteArray());
}

void WorkerBase::reportRenamed(QByteArrayView from, QByteArrayView to)
{
    if (d->inChanges && !from.isEmpty() && !to.isEmpty())
        d->changes.renamed.append({ from.toByteArray(), to.toByteArray() });
}

void WorkerBase::endChanges()
{
    if (!d->inChanges)
        return;
    d->flushBatch(true);
    const bool any = d->changeEntries > 0 || !d->changes.removed.isEmpty() || !d->changes.renamed.isEmpty();
    if (any && !d->appGone) {
        d->changes.kind = WatchChanges::Kind::Commit;
        d->send(Msg::Changes, encodeChanges(d->changes));
    }
    d->changes = WatchChanges();
    d->inChanges = false;
    d->current = 0;
    d->killed = false;
}

bool WorkerBase::beginResync(quint32 id)
{
    Q_ASSERT(!d->inChanges && !d->inResync && !d->current);
    if (!isWatching(id) || d->appGone || d->current)
        return false;
    d->current = id;
    d->killed = false;
    d->inResync = true;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Resync;
    d->send(Msg::Changes, encodeChanges(c));
    d->startBatch();
    return true;
}

void WorkerBase::endResync()
{
    if (!d->inResync)
        return;
    d->flushBatch(true);
    if (!d->appGone) {
        WatchChanges c;
        c.kind = WatchChanges::Kind::Listed;
        c.mode = d->watches.value(d->current, WatchMode::Native);
        d->send(Msg::Changes, encodeChanges(c));
    }
    d->inResync = false;
    d->current = 0;
    d->killed = false;
}

void WorkerBase::watchGone(quint32 id)
{
    if (!isWatching(id) || d->appGone)
        return;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Gone;
    d->conn.send(Msg::Changes, id, encodeChanges(c));
    d->afterAppend();
    d->ending.insert(id); // unwatch() and the end of the request at the next turn
}

void WorkerBase::watchMoved(quint32 id, const QUrl &url)
{
    if (!isWatching(id) || d->appGone)
        return;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Moved;
    c.url = url;
    d->conn.send(Msg::Changes, id, encodeChanges(c));
    d->afterAppend();
    auto it = d->polledFolders.find(id);
    if (it != d->polledFolders.end())
        it->list.url = url;
}

bool WorkerBase::waitForDescriptor(int fd, int timeoutMs)
{
    const qint64 deadline = timeoutMs < 0 ? -1 : nowMs() + timeoutMs;
    for (;;) {
        if (d->killed || d->appGone)
            return false;
        const int left = deadline < 0 ? -1 : int(qMax<qint64>(0, deadline - nowMs()));
        if (d->waitBoth(fd, left))
            return true;
        if (deadline >= 0 && nowMs() >= deadline)
            return false;
        d->heartbeatIfDue();
    }
}

void WorkerBasePrivate::readIncoming()
{
    const Connection::ReadStatus status = conn.readFrames(INT_MAX, [this](const Wire::Header &h, QByteArray &&p) {
        handle(h, std::move(p));
        return !appGone;
    });
    if (status == Connection::ReadStatus::Malformed)
        qCWarning(QVFS_WORKER) << protocol << "worker: malformed frame from the application";
    if (status != Connection::ReadStatus::Open)
        gone();
}

bool WorkerBasePrivate::waitBoth(int fd, int timeoutMs)
{
    if (appGone)
        return false;
    if (fd < 0) {
        pump(timeoutMs);
        return false;
    }
    pollfd p[2] = { { conn.fd(), short(POLLIN | (conn.pending() ? POLLOUT : 0)), 0 }, { fd, POLLIN, 0 } };
    const int r = ::poll(p, 2, timeoutMs);
    if (r < 0) {
        if (errno != EINTR)
            gone();
        return false;
    }
    if (r == 0)
        return false;
    if ((p[0].revents & POLLOUT) && !conn.flush()) {
        gone();
        return false;
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
        readIncoming();
    return p[1].revents != 0;
}

void WorkerBasePrivate::serveWatches()
{
    // Between commands while watches live: wait for the application, the worker's watch
    // descriptor, its timer or a poll that is due, whichever comes first.
    qint64 due = watchTimerDue;
    for (const PolledFolder &p : std::as_const(polledFolders)) {
        if (due < 0 || p.dueMs < due)
            due = p.dueMs;
    }
    const qint64 now = nowMs();
    const int timeout = due < 0 ? -1 : int(qBound(qint64(0), due - now, qint64(INT_MAX)));
    const bool readable = waitBoth(watchFd, timeout);
    if (appGone || !commands.isEmpty())
        return; // a command first; the events wait in their queue
    endWatches();
    const qint64 after = nowMs();
    const bool timerDue = watchTimerDue >= 0 && after >= watchTimerDue;
    if (timerDue)
        watchTimerDue = -1;
    if (readable || timerDue)
        q->watchEvent();
    QList<quint32> duePolls;
    for (auto it = polledFolders.cbegin(); it != polledFolders.cend(); ++it) {
        if (it->dueMs <= after && watches.contains(it.key()))
            duePolls.append(it.key());
    }
    for (quint32 id : std::as_const(duePolls))
        runPoll(id);
}

void WorkerBasePrivate::endWatches()
{
    while (!ending.isEmpty()) {
        const quint32 id = *ending.cbegin();
        ending.remove(id);
        if (!watches.remove(id))
            continue;
        q->unwatch(id);
        polledFolders.remove(id);
        if (!appGone) {
            QByteArray payload;
            MetaData().encode(payload);
            conn.send(Msg::Finished, id, payload); // the acknowledgement
            afterAppend();
        }
    }
}

void WorkerBasePrivate::runPoll(quint32 id)
{
    auto it = polledFolders.find(id);
    if (it == polledFolders.end() || !q->beginChanges(id))
        return;
    PolledFolder &poll = *it;
    ++poll.generation;
    digestMode = DigestMode::SendChanged;
    digestFolder = &poll;
    const WorkerResult res = q->listDir(poll.list);
    digestMode = DigestMode::Off;
    digestFolder = nullptr;
    if (res.ok() && !killed) {
        for (auto d = poll.digests.begin(); d != poll.digests.end();) {
            if (d->generation != poll.generation) {
                q->reportRemoved(d.key());
                d = poll.digests.erase(d);
            } else {
                ++d;
            }
        }
    }
    poll.dueMs = nowMs() + poll.intervalMs;
    q->endChanges();
    if (!res.ok() && (res.code() == ErrDoesNotExist || res.code() == ErrIsNotDirectory))
        q->watchGone(id);
}

void WorkerBasePrivate::sendResultEntry(const WireCommand &c)
{
    // The entry of what the command made, so that listers of its folder need no listing.
    const qint64 details = opts.number(Keys::ResultEntry, 0);
    if (details <= 0 || killed || appGone)
        return;
    QUrl url;
    switch (c.command) {
    case Wire::Command::Mkdir:
    case Wire::Command::Put:
    case Wire::Command::Symlink:
    case Wire::Command::Chmod:
    case Wire::Command::SetModificationTime:
        url = c.urls.value(0);
        break;
    case Wire::Command::Rename:
    case Wire::Command::CopyFromFile:
        url = c.urls.value(1);
        break;
    default:
        return;
    }
    startBatch();
    StatRequest r;
    r.url = url;
    r.details = Details(uint(details)) & ~Details(DetailResolveSymlink);
    (void)q->stat(r); // the entry goes out with the result; no entry if it cannot be described
}

WorkerResult WorkerBasePrivate::serveFile(const OpenRequest &request)
{
    OpenedFile file;
    WorkerResult res = q->openFile(request, &file);
    if (!res.ok())
        return res;
    serving = true;
    badFileOp = false;
    send(Msg::FileOpened, encodeOpened(file));
    res = serveOperations();
    serving = false;
    fileOps.clear();
    WorkerResult closed = q->closeFile();
    if (res.ok() && !killed)
        res = std::move(closed);
    // An operation's hook may not know the URL: the error names it.
    if (!res.ok() && res.args().isEmpty())
        return WorkerResult::fail(res.code(), request.url);
    return res;
}

WorkerResult WorkerBasePrivate::serveOperations()
{
    const qint64 spinUs = spinMicroseconds();
    bool replied = false;
    for (;;) {
        if (killed)
            return WorkerResult::fail(ErrCancelled);
        if (badFileOp)
            return WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("malformed file operation"));
        if (fileOps.empty()) {
            // The next operation often follows the answer within microseconds (a reader
            // going through a file): stay awake briefly instead of sleeping.
            if (replied && conn.spinUntilReadable(spinUs))
                pump(0);
            replied = false;
            if (fileOps.empty() && !killed && !badFileOp)
                pump(-1);
            continue;
        }
        const FileOp o = std::move(fileOps.front());
        fileOps.pop_front();
        replied = true;
        WorkerResult res = WorkerResult::pass();
        switch (o.type) {
        case Msg::FileClose:
            return WorkerResult::pass();
        case Msg::FileRead:
            res = serveRead(o.op);
            break;
        case Msg::FileWrite:
            if (o.op.offset < 0) {
                qint64 at = -1;
                res = q->append(o.data, &at);
                if (res.ok())
                    sendFileDone(o.op.op, at, o.data.size());
            } else {
                res = q->writeAt(o.op.offset, o.data);
                if (res.ok())
                    sendFileDone(o.op.op, o.op.offset, o.data.size());
            }
            break;
        case Msg::FileTruncate:
            res = q->truncate(o.op.offset);
            if (res.ok())
                sendFileDone(o.op.op, o.op.offset, o.op.offset);
            break;
        case Msg::FileSize: {
            qint64 size = -1;
            res = q->fileSize(&size);
            if (res.ok())
                sendFileDone(o.op.op, 0, size);
            break;
        }
        default:
            break;
        }
        if (!res.ok())
            return res;
    }
}

WorkerResult WorkerBasePrivate::serveRead(const FileOperation &o)
{
    qint64 offset = o.offset;
    qint64 left = qBound(qint64(0), o.length, Wire::MaxFileRead);
    if (left == 0) {
        sendFileData(o.op, offset, {}, true);
        return WorkerResult::pass();
    }
    if (fileBuffer.size() < Wire::FileChunk)
        fileBuffer = QByteArray(Wire::FileChunk, Qt::Uninitialized);
    while (left > 0) {
        const qint64 want = qMin(left, Wire::FileChunk);
        qint64 got = 0;
        WorkerResult res = q->readAt(offset, fileBuffer.data(), want, &got);
        if (!res.ok())
            return res;
        if (got < 0 || got > want)
            return WorkerResult::fail(ErrInternal, QByteArrayLiteral("readAt() reported more than it was asked for"));
        if (got == 0) {
            sendFileData(o.op, offset, {}, true); // the end of the file
            return WorkerResult::pass();
        }
        left -= got;
        sendFileData(o.op, offset, QByteArrayView(fileBuffer.constData(), got), left == 0);
        offset += got;
        if (left > 0)
            pump(0); // a kill
        if (killed)
            return WorkerResult::fail(ErrCancelled);
    }
    return WorkerResult::pass();
}

void WorkerBasePrivate::sendFileData(quint32 op, qint64 offset, QByteArrayView data, bool last)
{
    char trailer[Wire::FileDataTrailer];
    putFileDataTrailer(trailer, op, offset, last);
    conn.sendHeader(Msg::FileData, current, quint32(data.size() + Wire::FileDataTrailer));
    conn.sendRaw(data);
    conn.sendRaw(QByteArrayView(trailer, Wire::FileDataTrailer));
    afterAppend();
}

int WorkerBase::socketFd() const
{
    return d->conn.fd();
}

quint32 WorkerBase::requestId() const
{
    return d->current;
}

// ---- default hooks ----

WorkerResult WorkerBase::listDir(const ListRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::stat(const StatRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::mkdir(const MkdirRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::del(const DeleteRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::rename(const RenameRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.source);
}
WorkerResult WorkerBase::copy(const CopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.destination);
}
WorkerResult WorkerBase::get(const GetRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::put(const PutRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::symlink(const SymlinkRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.link);
}
WorkerResult WorkerBase::chmod(const ChmodRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::setModificationTime(const SetTimeRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::directorySize(const DirectorySizeRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
void WorkerBase::finishBackgroundWork() { }

WorkerResult WorkerBase::trash(const TrashRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.urls.value(0));
}

WorkerResult WorkerBase::freeSpace(const FreeSpaceRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::copyToFile(const FileCopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.source);
}
WorkerResult WorkerBase::copyFromFile(const FileCopyRequest &r)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.destination);
}
WorkerResult WorkerBase::special(const QUrl &url)
{
    return WorkerResult::fail(ErrUnsupportedAction, url);
}
WorkerResult WorkerBase::openFile(const OpenRequest &r, OpenedFile *)
{
    return WorkerResult::fail(ErrUnsupportedAction, r.url);
}
WorkerResult WorkerBase::readAt(qint64, char *, qint64, qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::writeAt(qint64, QByteArrayView)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::append(QByteArrayView, qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::truncate(qint64)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::fileSize(qint64 *)
{
    return WorkerResult::fail(ErrUnsupportedAction);
}
WorkerResult WorkerBase::closeFile()
{
    return WorkerResult::pass();
}

WorkerResult WorkerBase::watch(const WatchRequest &r)
{
    if (r.pollMs <= 0)
        return WorkerResult::fail(ErrUnsupportedAction, r.url);
    // Polling: the listing goes out as usual while its digest is kept; every pollMs the
    // folder is listed again and only what differs is sent.
    if (d->startMode == WatchMode::Native)
        d->startMode = WatchMode::Polling;
    const quint32 id = d->current;
    WorkerBasePrivate::PolledFolder &poll = d->polledFolders[id];
    poll = WorkerBasePrivate::PolledFolder();
    poll.list.url = r.url;
    poll.list.details = r.details;
    poll.intervalMs = qMax(r.pollMs, 100);
    d->digestMode = WorkerBasePrivate::DigestMode::SendAll;
    d->digestFolder = &poll;
    const WorkerResult res = listDir(poll.list);
    d->digestMode = WorkerBasePrivate::DigestMode::Off;
    d->digestFolder = nullptr;
    if (!res.ok()) {
        d->polledFolders.remove(id);
        return res;
    }
    poll.dueMs = nowMs() + poll.intervalMs;
    return res;
}

void WorkerBase::unwatch(quint32 id)
{
    d->polledFolders.remove(id);
}

void WorkerBase::watchEvent() { }

void WorkerBase::setHost(const QUrl &) { }

void WorkerBase::closeConnection() { }

void WorkerBase::warmUp() { }

// ---- helpers for hooks ----

const MetaData &WorkerBase::options() const
{
    return d->opts;
}

void WorkerBasePrivate::beginEntryBytes()
{
    // The first entry of a batch of another request than the last one sent: the atoms
    // start afresh, exactly when the application's decoder starts them afresh.
    if (batchCount == 0 && lastEntriesId != current) {
        encoder.resetAtoms();
        lastEntriesId = current;
    }
    encoder.begin(batch);
}

void WorkerBasePrivate::finishEntry()
{
    // Never fails: the batch is flushed long before it could use every key set.
    const bool encoded = encoder.end();
    Q_ASSERT(encoded);
    if (!encoded)
        return;
    ++batchCount;
    const qsizetype limit = firstBatchSent ? BatchBytes : FirstBatchBytes;
    bool flush = batch.size() >= limit || encoder.keySetsInPayload() >= MaxKeySets - 16;
    if (!flush && (batchCount & 63) == 0) {
        const qint64 now = nowMs();
        flush = now - batchStartMs >= BatchMaxMs;
    }
    if (flush) {
        flushBatch();
        startBatch();
    }
}

void WorkerBasePrivate::digestField(quint16 field, qint64 number, QByteArrayView str)
{
    hashBytes(&field, sizeof field);
    if (fieldType(field) == FieldType::Number) {
        hashBytes(&number, sizeof number);
    } else {
        const qint64 n = str.size();
        hashBytes(&n, sizeof n);
        hashBytes(str.data(), str.size());
        if (field == Name)
            entryName = str.toByteArray();
    }
    if (digestMode != DigestMode::SendChanged)
        return;
    // Kept to be encoded only if the entry turns out new or changed.
    heldFields.append(reinterpret_cast<const char *>(&field), sizeof field);
    if (fieldType(field) == FieldType::Number) {
        heldFields.append(reinterpret_cast<const char *>(&number), sizeof number);
    } else {
        const quint32 n = quint32(str.size());
        heldFields.append(reinterpret_cast<const char *>(&n), sizeof n);
        heldFields.append(str.data(), str.size());
    }
}

void WorkerBasePrivate::sendHeldEntry()
{
    beginEntryBytes();
    const char *p = heldFields.constData();
    const char *end = p + heldFields.size();
    while (p < end) {
        quint16 field;
        std::memcpy(&field, p, sizeof field);
        p += sizeof field;
        if (fieldType(field) == FieldType::Number) {
            qint64 v;
            std::memcpy(&v, p, sizeof v);
            p += sizeof v;
            encoder.addNumber(field, v);
        } else {
            quint32 n;
            std::memcpy(&n, p, sizeof n);
            p += sizeof n;
            encoder.add(field, 0, QByteArrayView(p, n));
            p += n;
        }
    }
    finishEntry();
}

void WorkerBase::beginEntry()
{
    if (d->digestMode != WorkerBasePrivate::DigestMode::Off) {
        d->entryHash = 0xcbf29ce484222325ULL;
        d->entryName.clear();
        d->heldFields.clear();
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged)
            return;
    }
    d->beginEntryBytes();
}

void WorkerBase::addNumber(Field field, qint64 value)
{
    if (d->digestMode != WorkerBasePrivate::DigestMode::Off) {
        d->digestField(field, value, {});
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged)
            return;
    }
    d->encoder.addNumber(field, value);
}

void WorkerBase::addString(Field field, QByteArrayView value)
{
    if (field == Name && d->firstBatchHook)
        d->firstBatchNames.append(value.toByteArray());
    if (d->digestMode != WorkerBasePrivate::DigestMode::Off) {
        d->digestField(field, 0, value);
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged)
            return;
    }
    d->encoder.addString(field, value);
}

void WorkerBase::addAtom(Field field, QByteArrayView value)
{
    if (d->digestMode != WorkerBasePrivate::DigestMode::Off) {
        d->digestField(field, 0, value);
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged)
            return;
    }
    d->encoder.addAtom(field, value);
}

void WorkerBase::endEntry()
{
    if (d->digestMode != WorkerBasePrivate::DigestMode::Off && d->digestFolder) {
        WorkerBasePrivate::PolledFolder &poll = *d->digestFolder;
        auto it = poll.digests.find(d->entryName);
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged) {
            if (it != poll.digests.end() && it->hash == d->entryHash) {
                it->generation = poll.generation; // unchanged: nothing to send
                return;
            }
            d->sendHeldEntry();
        }
        if (it != poll.digests.end())
            *it = { d->entryHash, poll.generation };
        else
            poll.digests.insert(d->entryName, { d->entryHash, poll.generation });
        if (d->digestMode == WorkerBasePrivate::DigestMode::SendChanged)
            return;
    }
    d->finishEntry();
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

void WorkerBase::setTotals(qint64 bytes, qint64 files, qint64 dirs)
{
    Progress p;
    p.total = { { bytes, files, dirs } };
    QByteArray payload;
    encodeProgress(p).encode(payload);
    d->send(Msg::Progress, payload);
}

void WorkerBase::setProcessed(qint64 bytes, qint64 files, qint64 dirs)
{
    // Throttled; the last values are kept and always sent before the request ends.
    const qint64 amounts[3] = { bytes, files, dirs };
    for (size_t u = 0; u < 3; ++u) {
        if (amounts[u] >= 0)
            d->progress.processed[u] = amounts[u];
    }
    d->progressPending = true;
    const qint64 now = nowMs();
    if (now - d->lastProgressMs < ProgressMs) {
        d->heartbeatIfDue();
        return;
    }
    d->lastProgressMs = now;
    d->sendProgress();
}

void WorkerBase::setSkipped(qint64 count)
{
    d->progress.skipped = count;
    d->progressPending = true;
}

void WorkerBase::sendMetaData(const MetaData &meta)
{
    d->sendBlock(Msg::MetaData, meta);
}

void WorkerBase::mimeType(const QString &type)
{
    MetaData m;
    m.setString(Keys::MimeType, type);
    sendMetaData(m);
}

void WorkerBase::redirection(const QUrl &url)
{
    d->send(Msg::Redirection, encodeRedirection(url));
}

void WorkerBase::reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination)
{
    if (!d->reportItems || !d->current)
        return;
    // Queued, not written: item events go out with the next progress, data or result, or
    // once enough of them pile up (one write per many files, not one per file).
    d->conn.send(Msg::Item, d->current, encodeItem(event, source, destination));
    if (d->conn.pending() >= ItemFlushBytes)
        d->afterAppend();
}

void WorkerBase::setResult(ResultKey key, qint64 value)
{
    d->results.setNumber(resultKeyName(key), value);
}

void WorkerBase::setFreeSpace(quint64 unit, quint64 totalBlocks, quint64 freeBlocks, quint64 availableBlocks)
{
    const auto bytes = [unit](quint64 blocks) {
        quint64 n = 0;
        if (qMulOverflow(blocks, unit, &n) || n > quint64(std::numeric_limits<qint64>::max()))
            return std::numeric_limits<qint64>::max();
        return qint64(n);
    };
    setResult(ResultKey::SpaceTotal, bytes(totalBlocks));
    setResult(ResultKey::SpaceFree, bytes(freeBlocks));
    setResult(ResultKey::SpaceAvailable, bytes(availableBlocks));
}

MetaData WorkerBasePrivate::ask(const MetaData &question)
{
    MetaData q = question;
    const qint64 qid = qint64(nextQuestion++);
    q.setNumber(Keys::QuestionId, qid);
    sendBlock(Msg::Question, q);
    for (;;) {
        for (qsizetype i = 0; i < answers.size(); ++i) {
            if (answers.at(i).number(Keys::QuestionId, -1) == qid)
                return answers.takeAt(i);
        }
        if (killed)
            return MetaData();
        pump(1000);
        heartbeatIfDue();
    }
}

ConflictAnswer WorkerBase::askConflict(const ConflictQuestion &question)
{
    return decodeConflictAnswer(d->ask(encodeQuestion(question)));
}

Credentials WorkerBase::askPassword(const PasswordQuestion &question)
{
    return decodeCredentials(d->ask(encodeQuestion(question)));
}

Trust WorkerBase::askTrust(const TrustQuestion &question)
{
    return decodeTrust(d->ask(encodeQuestion(question)));
}

UnreadableAnswer WorkerBase::askUnreadable(const UnreadableQuestion &question)
{
    return decodeUnreadableAnswer(d->ask(encodeQuestion(question)));
}

void WorkerBase::leftOut(const QUrl &url, int error)
{
    d->send(Msg::LeftOut, encodeLeftOut(url, error));
}

void WorkerBase::leftOutUnsafeName(const QUrl &folder, QByteArrayView name)
{
    qCWarning(QVFS_WORKER) << folder.toDisplayString() << "holds an entry whose name is no safe name:" << name;
    leftOut(Url::Detail::reportedChild(folder, name), ErrUnsafeName);
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

bool WorkerBase::waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    Q_ASSERT_X(QCoreApplication::instance(), "WorkerBase::waitUntil", "construct the worker with the EventLoop option");
    if (!QCoreApplication::instance())
        d->app.reset(new QCoreApplication(d->argc, d->argv));
    // Control messages wake the loop; a tick bounds how long a kill can go unnoticed.
    QSocketNotifier notifier(d->conn.fd(), QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &notifier, [this] { d->pump(0); });
    QTimer tick;
    tick.start(EventLoopTickMs);
    QElapsedTimer clock;
    clock.start();
    QEventLoop loop;
    while (!done()) {
        if (wasKilled())
            return false;
        if (timeoutMs >= 0 && clock.elapsed() >= timeoutMs)
            return false;
        loop.processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

} // namespace Qvfs
