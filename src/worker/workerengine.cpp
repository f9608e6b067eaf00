// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entrysink_p.h"
#include "keys_p.h"
#include "openfileserver_p.h"
#include "translations_p.h"
#include "watchserver_p.h"
#include "workerbase_debug.h"
#include "workerengine_p.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
constexpr qint64 HeartbeatMs = 1000;
constexpr qint64 ProgressMs = 100;
constexpr qsizetype DataChunk = 256 * 1024;
constexpr int EventLoopTickMs = 50; // waitUntil() looks for a kill at least this often
constexpr qsizetype ItemFlushBytes = 32 * 1024; // queued per-item reports written together

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

WorkerEngine::WorkerEngine(WorkerBase *q, const QByteArray &protocol, WorkerBase::Options options, EntrySink &entries,
    WatchServer &watches, OpenFileServer &files)
    : q(q)
    , m_entries(entries)
    , m_watches(watches)
    , m_files(files)
    , m_protocol(protocol)
    , m_options(options)
{ }

WorkerEngine::~WorkerEngine() = default;

EntryBatcher &WorkerEngine::batcher()
{
    return m_entries.batcher();
}

// ---- process start and the main loop ----

int WorkerEngine::exec(int argc, char **argv)
{
    fillStandardDescriptors();
    raiseOpenFileLimit();
    m_argc = argc;
    m_argv = argv;
    // Messages a worker makes (an error's detail) are in the user's language: the worker
    // inherits the application's environment. A worker without an event loop makes its
    // QCoreApplication only when there is a catalog to install (starting it costs time).
    if (!QCoreApplication::instance() && ((m_options & WorkerBase::EventLoop) || !translationCatalog().isEmpty()))
        m_app.reset(new QCoreApplication(m_argc, m_argv));
    installTranslations();
    int fd = -1;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--fd") == 0)
            fd = std::atoi(argv[i + 1]);
    }
    if (fd <= 2) {
        std::fprintf(stderr, "qvfs-worker-%s: started without --fd; it is started by Qvfs applications\n",
            m_protocol.constData());
        return 2;
    }
    conn.adopt(fd);
    MetaData hello;
    hello.setBytes(Keys::Protocol, m_protocol);
    hello.setNumber(Keys::Pid, qint64(::getpid()));
    QByteArray helloPayload = encodeHello(hello);
    // For the version-mismatch test only: pretend to speak another version.
    const QByteArray fake = qgetenv("QVFS_WORKER_FAKE_VERSION");
    if (!fake.isEmpty()) {
        helloPayload.clear();
        Wire::appendVarint(helloPayload, fake.toULongLong());
        hello.encode(helloPayload);
    }
    conn.send(Msg::Hello, 0, helloPayload);
    afterAppend();
    if (conn.wait(0) == Connection::WaitResult::TimedOut)
        q->warmUp();
    const qint64 spinUs = spinMicroseconds();
    while (!appGone) {
        m_watches.endWatches();
        if (m_commands.isEmpty() && m_watches.hasWork()) {
            m_watches.serve();
            continue;
        }
        if (m_commands.isEmpty()) {
            // Right after a reply the next command often follows within microseconds
            // (sequential stats): stay awake briefly instead of sleeping.
            if (m_justReplied && conn.spinUntilReadable(spinUs))
                pump(0);
            m_justReplied = false;
            if (m_commands.isEmpty())
                pump(-1);
            continue;
        }
        const Pending p = m_commands.takeFirst();
        if (!m_helloOk) {
            conn.send(Msg::Error, p.header.requestId,
                encodeError(ErrProtocolError, { QByteArrayLiteral("command before hello") }));
            conn.flush();
            break;
        }
        runCommand(p);
        m_justReplied = true;
    }
    // The application went away: the watches it held end too.
    m_watches.unwatchAll();
    if (m_hostSet)
        q->closeConnection();
    // Flush what is left (best effort), then finish what the worker does on its own.
    conn.flush();
    conn.close();
    q->finishBackgroundWork();
    return 0;
}

// ---- frame intake ----

void WorkerEngine::handle(const Wire::Header &h, QByteArray &&payload)
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
        m_helloOk = true;
        return;
    }
    case Msg::Command:
        m_commands.append(Pending { h, std::move(payload) });
        return;
    case Msg::Kill:
        if (m_watches.kill(h.requestId)) {
            // A live watch: it ends between hooks (unwatch(), then the acknowledgement).
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
        for (qsizetype i = 0; i < m_commands.size(); ++i) {
            if (m_commands.at(i).header.requestId == h.requestId) {
                m_commands.removeAt(i);
                m_suspendedPending.remove(h.requestId);
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
            m_suspended = on;
            return;
        }
        // For a command still waiting here: it starts suspended.
        for (const Pending &p : std::as_const(m_commands)) {
            if (p.header.requestId == h.requestId) {
                if (on)
                    m_suspendedPending.insert(h.requestId);
                else
                    m_suspendedPending.remove(h.requestId);
                return;
            }
        }
        return;
    }
    case Msg::Answer:
        if (h.requestId == current) {
            MetaData a;
            if (a.decode(payload))
                m_answers.append(a);
        }
        return;
    case Msg::PutData:
        if (h.requestId == current)
            m_putData.append(std::move(payload));
        return;
    case Msg::PutEnd:
        if (h.requestId == current)
            m_putEnd = true;
        return;
    case Msg::FileRead:
    case Msg::FileTruncate:
    case Msg::FileSize:
    case Msg::FileWrite:
    case Msg::FileClose:
        m_files.receive(Msg(h.type), h.requestId, std::move(payload));
        return;
    default:
        qCWarning(QVFS_WORKER) << m_protocol << "worker: unexpected message" << h.type;
        return;
    }
}

void WorkerEngine::readIncoming()
{
    const Connection::ReadStatus status = conn.readFrames(INT_MAX, [this](const Wire::Header &h, QByteArray &&p) {
        handle(h, std::move(p));
        return !appGone;
    });
    if (status == Connection::ReadStatus::Malformed)
        qCWarning(QVFS_WORKER) << m_protocol << "worker: malformed frame from the application";
    if (status != Connection::ReadStatus::Open)
        gone();
}

void WorkerEngine::sendBlock(Msg type, const MetaData &m)
{
    QByteArray payload;
    m.encode(payload);
    send(type, payload);
}

void WorkerEngine::afterAppend()
{
    m_lastSendMs = nowMs();
    if (!conn.flush()) {
        gone();
        return;
    }
    while (conn.pending() > HighWater && !appGone)
        pump(-1);
}

void WorkerEngine::pump(int timeoutMs)
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

bool WorkerEngine::waitBoth(int fd, int timeoutMs)
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

void WorkerEngine::waitWhileSuspended()
{
    while (m_suspended && !killed)
        pump(-1);
}

void WorkerEngine::heartbeatIfDue()
{
    if (current && nowMs() - m_lastSendMs >= HeartbeatMs)
        send(Msg::Heartbeat, {});
}

// ---- command decode and dispatch ----

void WorkerEngine::beginRequest(quint32 id)
{
    current = id;
    killed = m_putEnd = false;
    m_suspended = m_suspendedPending.remove(id);
    m_putData.clear();
    m_answers.clear();
    m_results = MetaData();
    opts = MetaData();
    m_reportItems = false;
    batcher().beginRequest();
    m_lastProgressMs = 0;
    m_progress = Progress();
    m_progressPending = false;
}

void WorkerEngine::followHost(const QUrl &url)
{
    const QUrl h = hostOf(url);
    if (m_hostSet && h == m_host)
        return;
    if (m_hostSet)
        q->closeConnection();
    m_host = h;
    m_hostSet = true;
    q->setHost(h);
}

WorkerResult WorkerEngine::dispatch(const WireCommand &c)
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
        batcher().start();
        return call<ListRequest>(c, [this](const ListRequest &r) { return q->listDir(r); });
    case Cmd::Stat:
        batcher().start();
        return call<StatRequest>(c, [this](const StatRequest &r) { return q->stat(r); });
    case Cmd::Mkdir:
        return call<MkdirRequest>(c, [this](const MkdirRequest &r) { return q->mkdir(r); });
    case Cmd::Delete:
        return call<DeleteRequest>(c, [this](const DeleteRequest &r) { return q->del(r); });
    case Cmd::Rename:
        return call<RenameRequest>(c, [this](const RenameRequest &r) { return q->rename(r); });
    case Cmd::Copy:
        return call<CopyRequest>(c, [this](const CopyRequest &r) {
            m_reportItems = r.reportItems;
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
            m_reportItems = r.reportItems;
            return q->trash(r);
        });
    case Cmd::CopyToFile:
        return call<FileCopyRequest>(c, [this](const FileCopyRequest &r) { return q->copyToFile(r); });
    case Cmd::CopyFromFile:
        return call<FileCopyRequest>(c, [this](const FileCopyRequest &r) { return q->copyFromFile(r); });
    case Cmd::Open:
        return call<OpenRequest>(c, [this](const OpenRequest &r) { return m_files.serve(r); });
    case Cmd::Special:
        return q->special(c.urls.at(0));
    case Cmd::Watch:
        batcher().start();
        m_watches.beginWatch();
        return call<WatchRequest>(c, [this](const WatchRequest &r) { return q->watch(r); });
    }
    return WorkerResult::fail(ErrUnsupportedAction, QByteArray::number(int(c.command)));
}

void WorkerEngine::runCommand(const Pending &p)
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
        if (m_progressPending)
            sendProgress(); // the final amounts, which throttling may have held back
        if (batcher().hasFirstBatchHook()) {
            batcher().flush(true); // runs it, when entries are left
            batcher().runFirstBatchHook(); // otherwise (no entry at all)
        }
        if (c.command == Wire::Command::Watch) {
            if (res.ok()) {
                // The listing is complete; the request stays open for the changes.
                batcher().flush(true);
                // Live from here: a kill that arrives while this is sent ends it properly.
                m_watches.listed(current);
                if (killed)
                    m_watches.endLater(current);
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
            batcher().flush(true);
            if (batcher().wireBytes())
                m_results.setNumber(Keys::WireBytes, batcher().wireBytes());
            sendBlock(Msg::Finished, m_results);
        } else {
            // The entries built so far still go out: they may define key sets that the
            // encoder now counts as known on this connection.
            batcher().flush(true);
            if (!m_results.isEmpty())
                sendBlock(Msg::MetaData, m_results); // what was done before the error
            send(Msg::Error, encodeError(res.code(), res.args()));
        }
    }
    current = 0;
    opts = MetaData();
}

void WorkerEngine::sendResultEntry(const WireCommand &c)
{
    const qint64 details = opts.number(Keys::ResultEntry, 0);
    if (details <= 0 || killed || appGone)
        return;
    const QUrl url = resultEntryUrl(c); // the entry the command made or changed
    if (url.isEmpty())
        return;
    batcher().start();
    StatRequest r;
    r.url = url;
    r.details = Details(uint(details)) & ~Details(DetailResolveSymlink);
    (void)q->stat(r); // the entry goes out with the result; no entry if it cannot be described
}

// ---- streaming and progress ----

void WorkerEngine::data(QByteArrayView chunk)
{
    while (!chunk.isEmpty() && !killed) {
        const qsizetype n = std::min(chunk.size(), DataChunk);
        send(Msg::Data, chunk.first(n));
        chunk = chunk.sliced(n);
        waitWhileSuspended();
    }
}

bool WorkerEngine::readData(QByteArray *chunk)
{
    if (m_putData.isEmpty() && !m_putEnd && !killed)
        send(Msg::DataRequest, {});
    while (m_putData.isEmpty() && !m_putEnd && !killed) {
        pump(1000);
        heartbeatIfDue();
    }
    if (killed || m_putData.isEmpty()) {
        chunk->clear();
        return false;
    }
    *chunk = m_putData.takeFirst();
    return true;
}

void WorkerEngine::sendProgress()
{
    m_progressPending = false;
    send(Msg::Progress, [this] {
        QByteArray payload;
        encodeProgress(m_progress).encode(payload);
        return payload;
    }());
}

void WorkerEngine::setTotals(qint64 bytes, qint64 files, qint64 dirs)
{
    Progress p;
    p.total = { { bytes, files, dirs } };
    QByteArray payload;
    encodeProgress(p).encode(payload);
    send(Msg::Progress, payload);
}

void WorkerEngine::setProcessed(qint64 bytes, qint64 files, qint64 dirs)
{
    // Throttled; the last values are kept and always sent before the request ends.
    const qint64 amounts[3] = { bytes, files, dirs };
    for (size_t u = 0; u < 3; ++u) {
        if (amounts[u] >= 0)
            m_progress.processed[u] = amounts[u];
    }
    m_progressPending = true;
    const qint64 now = nowMs();
    if (now - m_lastProgressMs < ProgressMs) {
        heartbeatIfDue();
        return;
    }
    m_lastProgressMs = now;
    sendProgress();
}

void WorkerEngine::setSkipped(qint64 count)
{
    m_progress.skipped = count;
    m_progressPending = true;
}

void WorkerEngine::redirection(const QUrl &url)
{
    send(Msg::Redirection, encodeRedirection(url));
}

void WorkerEngine::reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination)
{
    if (!m_reportItems || !current)
        return;
    // Queued, not written: item events go out with the next progress, data or result, or
    // once enough of them pile up (one write per many files, not one per file).
    conn.send(Msg::Item, current, encodeItem(event, source, destination));
    if (conn.pending() >= ItemFlushBytes)
        afterAppend();
}

void WorkerEngine::setResult(WorkerBase::ResultKey key, qint64 value)
{
    m_results.setNumber(resultKeyName(key), value);
}

void WorkerEngine::leftOut(const QUrl &url, int error)
{
    send(Msg::LeftOut, encodeLeftOut(url, error));
}

// ---- questions ----

MetaData WorkerEngine::ask(const MetaData &question)
{
    MetaData q = question;
    const qint64 qid = qint64(m_nextQuestion++);
    q.setNumber(Keys::QuestionId, qid);
    sendBlock(Msg::Question, q);
    for (;;) {
        for (qsizetype i = 0; i < m_answers.size(); ++i) {
            if (m_answers.at(i).number(Keys::QuestionId, -1) == qid)
                return m_answers.takeAt(i);
        }
        if (killed)
            return MetaData();
        pump(1000);
        heartbeatIfDue();
    }
}

// ---- kill and the event loop ----

bool WorkerEngine::wasKilled()
{
    if (!killed && !appGone) {
        // Cheap enough to call per entry: the socket is looked at once a millisecond at most.
        const qint64 now = nowMs();
        if (now - m_lastPollMs < 1)
            return false;
        m_lastPollMs = now;
        pump(0);
        heartbeatIfDue();
        waitWhileSuspended();
    }
    return killed;
}

bool WorkerEngine::waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    Q_ASSERT_X(QCoreApplication::instance(), "WorkerBase::waitUntil", "construct the worker with the EventLoop option");
    if (!QCoreApplication::instance())
        m_app.reset(new QCoreApplication(m_argc, m_argv));
    // Control messages wake the loop; a tick bounds how long a kill can go unnoticed.
    QSocketNotifier notifier(conn.fd(), QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &notifier, [this] { pump(0); });
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

bool WorkerEngine::waitForDescriptor(int fd, int timeoutMs)
{
    const qint64 deadline = timeoutMs < 0 ? -1 : nowMs() + timeoutMs;
    for (;;) {
        if (killed || appGone)
            return false;
        const int left = deadline < 0 ? -1 : int(qMax<qint64>(0, deadline - nowMs()));
        if (waitBoth(fd, left))
            return true;
        if (deadline >= 0 && nowMs() >= deadline)
            return false;
        heartbeatIfDue();
    }
}

} // namespace Qvfs
