// SPDX-License-Identifier: LGPL-2.1-or-later
// Watching smb:// folders: one notifier process per watched folder (smbnotifier.cpp), each
// with an SMB2 CHANGE_NOTIFY request outstanding on a connection of its own; the worker
// waits on all of their outputs through one epoll descriptor. As the file worker's
// inotify watches, events are coalesced per folder: each changed name is looked at once
// per flush (30 ms after the last event, at most 150 ms after the first) with a stat in
// the worker's own context, and only what changed travels. Events the server could not
// keep (its buffer overflowed) make the folder listed anew; a deleted folder is reported
// once; a notifier that ended without a word (the connection dropped) is started again
// and its folder listed anew. A watched folder renamed by another client looks deleted:
// SMB does not say where it went.
#include "smbwatch_p.h"

#include "error.h"
#include "fileops_base_p.h"
#include "smb_debug.h"
#include "smbnotifier_p.h"
#include "url.h"
#include "url_p.h"

#include <cerrno>
#include <cstring>

#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs
{

namespace
{
constexpr int RetryMs = 2000; // a notifier that could not start again is tried again after this
constexpr int StartTimeoutMs = 25000; // above the context's 20 s per call
} // namespace

SmbWorker::Watches::Watches()
{
    epoll = epoll_create1(EPOLL_CLOEXEC);
    clock.start();
}

SmbWorker::Watches::~Watches()
{
    byId.clear(); // each notifier stopped and reaped
    if (epoll >= 0)
        ::close(epoll);
}

WorkerResult SmbWorker::startNotifier(Watch &w)
{
    QByteArray why;
    if (!w.notifier.start({ QByteArrayLiteral("/proc/self/exe"), QByteArray(Smb::Notifier::Argument) }, {}, &why)) {
        qCWarning(QVFS_SMB) << "cannot start a notifier:" << why;
        return WorkerResult::fail(ErrInternal, why);
    }
    w.notifier.closeStderr(); // libsmbclient's own messages (level 0: seldom) go nowhere
    const QByteArray start = Smb::Notifier::startMessage(lib(w.url), m_host.port(0), m_login);
    for (qsizetype at = 0; at < start.size();) {
        const ssize_t n = ::write(w.notifier.stdinFd(), start.constData() + at, size_t(start.size() - at));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { // the pipe holds 64 KiB and the message is far smaller: it died
            w.notifier.stop(0);
            return WorkerResult::fail(ErrInternal, QByteArrayLiteral("the smb notifier ended at once"));
        }
        at += n;
    }
    w.input.clear();
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        const qsizetype nl = w.input.indexOf('\n');
        if (nl >= 0) {
            const QByteArray line = w.input.left(nl);
            w.input.remove(0, nl + 1);
            if (line == "ready")
                break;
            w.notifier.stop(0);
            if (line.startsWith("error ")) {
                const int err = line.mid(6).toInt();
                qCDebug(QVFS_SMB) << "the notifier cannot watch" << w.url << std::strerror(err);
                return fail(err, w.url, int(FileOps::Operation::Read));
            }
            if (line == "gone")
                return WorkerResult::fail(ErrDoesNotExist, w.url);
            return WorkerResult::fail(ErrInternal, QByteArrayLiteral("the smb notifier said: ") + line);
        }
        const int left = int(StartTimeoutMs - waited.elapsed());
        if (left <= 0 || !waitForDescriptor(w.notifier.stdoutFd(), left)) {
            w.notifier.stop(0);
            if (wasKilled())
                return WorkerResult::fail(ErrCancelled, w.url);
            return WorkerResult::fail(ErrServerTimedOut, Url::Detail::hostDisplay(m_host));
        }
        char buf[512];
        const ssize_t n = ::read(w.notifier.stdoutFd(), buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            w.notifier.stop(0);
            return WorkerResult::fail(ErrInternal, QByteArrayLiteral("the smb notifier ended without a word"));
        }
        w.input.append(buf, n);
    }
    epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.u32 = w.id;
    if (epoll_ctl(m_watches->epoll, EPOLL_CTL_ADD, w.notifier.stdoutFd(), &ev) != 0) {
        const int err = errno;
        w.notifier.stop(0);
        return WorkerResult::fail(ErrInternal, QByteArrayLiteral("epoll: ") + std::strerror(err));
    }
    w.broken = false;
    w.retryAtMs = -1;
    return WorkerResult::pass();
}

WorkerResult SmbWorker::watch(const WatchRequest &request)
{
    const QUrl &url = request.url;
    if (url.host().isEmpty())
        return WorkerResult::fail(ErrUnsupportedAction, url);
    if (isHostRoot(url))
        return WorkerBase::watch(request); // a host's shares change no notification: polled when asked
    // The folder first, in the worker's own context: the login (asked for when needed)
    // that the notifier then uses, and whether there is a folder at all.
    struct stat st;
    const WorkerResult found = statEntry(url, &st);
    if (!found.ok())
        return found;
    if (!S_ISDIR(st.st_mode))
        return WorkerResult::fail(ErrIsNotDirectory, url);
    if (!m_watches)
        m_watches = std::make_unique<Watches>();
    if (m_watches->epoll < 0)
        return WorkerResult::fail(ErrInternal, QByteArrayLiteral("epoll: ") + std::strerror(errno));
    auto w = std::make_unique<Watch>();
    w->id = requestId();
    w->url = url;
    w->details = request.details;
    const WorkerResult started = startNotifier(*w);
    if (!started.ok()) {
        if (started.code() == ErrCancelled || started.code() == ErrDoesNotExist || started.code() == ErrAccessDenied
            || started.code() == ErrCannotAuthenticate)
            return started;
        // The server takes no change notifications here: said so, and polled when asked.
        qCDebug(QVFS_SMB) << "no change notifications for" << url << "- error" << started.code();
        return WorkerBase::watch(request);
    }
    setWatchDescriptor(m_watches->epoll);
    m_watches->byId[w->id] = std::move(w);
    ListRequest list;
    list.url = url;
    list.details = request.details;
    return listDir(list); // on failure the base class calls unwatch(id)
}

void SmbWorker::unwatch(quint32 id)
{
    WorkerBase::unwatch(id); // a host's shares, polled
    if (!m_watches)
        return;
    m_watches->byId.erase(id); // its notifier stopped (its descriptor leaves the epoll set as it closes)
    if (m_watches->byId.empty()) {
        setWatchDescriptor(-1);
        setWatchTimer(-1);
        m_watches.reset();
    }
}

void SmbWorker::stopNotifier(Watch &w)
{
    if (w.notifier.stdoutFd() >= 0)
        epoll_ctl(m_watches->epoll, EPOLL_CTL_DEL, w.notifier.stdoutFd(), nullptr);
    // Its input closed, it ends within a tick, closing its handle and its connection as
    // a client does (a killed one leaves the server to notice the dropped connection).
    w.notifier.stop(2 * Smb::Notifier::NotifyTickMs);
    w.broken = true; // looked at again, and started again while its folder is there
}

void SmbWorker::readNotifier(Watch &w)
{
    const int fd = w.notifier.stdoutFd();
    char buf[16 * 1024];
    for (;;) {
        const ssize_t n = fd < 0 ? 0 : ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break; // EAGAIN: all read
        if (n == 0) {
            // It ended: after "gone", or without a word (its connection dropped, killed).
            const bool gone = w.gone;
            stopNotifier(w);
            w.gone = gone;
            break;
        }
        w.input.append(buf, n);
    }
    qsizetype from = 0;
    for (qsizetype nl; (nl = w.input.indexOf('\n', from)) >= 0; from = nl + 1) {
        const QByteArrayView line = QByteArrayView(w.input).sliced(from, nl - from);
        const qsizetype sp = line.indexOf(' ');
        const QByteArrayView what = sp < 0 ? line : line.first(sp);
        const QByteArray name
            = sp < 0 ? QByteArray() : QByteArray::fromPercentEncoding(line.sliced(sp + 1).toByteArray());
        qCDebug(QVFS_SMB) << "notifier of" << w.url << "says" << line;
        if (what == "lost") {
            w.resync = true;
        } else if (what == "gone") {
            w.gone = true;
        } else if (what == "error") {
            w.broken = true; // it ends: started again
        } else if (!Url::isSafeName(name) || name.contains('/')) {
            continue; // not a name of this folder: left out, as in a listing
        } else if (what == "from") {
            w.renamedFrom = name;
            w.dirty.insert(name);
        } else if (what == "to") {
            if (!w.renamedFrom.isEmpty())
                w.renames.append({ std::exchange(w.renamedFrom, QByteArray()), name });
            w.dirty.insert(name);
        } else {
            w.dirty.insert(name); // add, remove, modify: whatever it is now, a stat tells
        }
    }
    w.input.remove(0, from);
}

void SmbWorker::watchEvent()
{
    if (!m_watches)
        return;
    Watches &ws = *m_watches;
    epoll_event evs[32];
    bool read = false;
    for (;;) {
        const int n = epoll_wait(ws.epoll, evs, 32, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (int i = 0; i < n; ++i) {
            const auto it = ws.byId.find(evs[i].data.u32);
            if (it != ws.byId.end())
                readNotifier(*it->second);
        }
        read = true;
    }
    const qint64 now = ws.clock.elapsed();
    if (read)
        ws.batch.eventSeen();
    bool pending = false;
    qint64 retryAt = -1;
    for (const auto &[id, w] : ws.byId) {
        if (w->broken && w->retryAtMs >= 0) {
            retryAt = retryAt < 0 ? w->retryAtMs : qMin(retryAt, w->retryAtMs);
            continue;
        }
        pending = pending || w->pending();
    }
    if (!pending && (retryAt < 0 || now < retryAt)) {
        ws.batch.reset();
        setWatchTimer(retryAt < 0 ? -1 : int(retryAt - now));
        return;
    }
    if (const int wait = ws.batch.msUntilDue(); wait > 0) {
        setWatchTimer(wait);
        return;
    }
    flushWatches();
}

void SmbWorker::flushWatches()
{
    Watches &ws = *m_watches;
    ws.batch.reset();
    setWatchTimer(-1);
    qint64 retryAt = -1;
    QList<quint32> ids;
    for (const auto &[id, w] : ws.byId)
        ids.append(id);
    for (quint32 id : std::as_const(ids)) {
        const auto it = ws.byId.find(id);
        if (it == ws.byId.end() || !it->second->pending())
            continue;
        Watch &w = *it->second;
        if (w.gone) {
            watchGone(id); // unwatch() follows from the base class
            continue;
        }
        struct stat st;
        if (w.broken) {
            // The notifier ended: its folder deleted, or its connection lost. Which one,
            // the folder tells; a live one gets a notifier anew, and is listed anew.
            if (w.retryAtMs >= 0 && ws.clock.elapsed() < w.retryAtMs) {
                retryAt = retryAt < 0 ? w.retryAtMs : qMin(retryAt, w.retryAtMs);
                continue;
            }
            const WorkerResult there = statEntry(w.url, &st);
            if (!there.ok() && there.code() == ErrDoesNotExist) {
                watchGone(id);
                continue;
            }
            const WorkerResult again = there.ok() ? startNotifier(w) : there;
            if (!again.ok()) {
                qCDebug(QVFS_SMB) << "the notifier of" << w.url << "cannot start again:" << again.code();
                w.retryAtMs = ws.clock.elapsed() + RetryMs;
                retryAt = retryAt < 0 ? w.retryAtMs : qMin(retryAt, w.retryAtMs);
                continue;
            }
            w.resync = true;
        }
        if (w.resync) {
            w.resync = false;
            w.dirty.clear();
            w.renames.clear();
            w.renamedFrom.clear();
            if (beginResync(id)) {
                ListRequest list;
                list.url = w.url;
                list.details = w.details;
                const WorkerResult r = listDir(list);
                if (!r.ok())
                    qCDebug(QVFS_SMB) << "re-listing failed" << r.code();
                endResync();
            }
            continue;
        }
        // Each changed name is looked at once, whatever happened to it meanwhile.
        struct Seen
        {
            QByteArray name;
            bool exists = false;
            DirEntry entry;
        };
        QList<Seen> seen;
        seen.reserve(w.dirty.size());
        QSet<QByteArray> existing;
        bool folderGone = false;
        for (const QByteArray &name : std::as_const(w.dirty)) {
            Seen s;
            s.name = name;
            const QUrl child = Url::child(w.url, name);
            errno = 0;
            s.exists = smbc_getFunctionStat(m_ctx.get())(m_ctx.get(), lib(child).constData(), &st) == 0;
            if (s.exists) {
                entryFromStat(st, &s.entry);
                existing.insert(name);
            } else if (errno != ENOENT && errno != ENOTDIR) {
                qCDebug(QVFS_SMB) << "cannot look at" << child << std::strerror(errno);
                continue; // not readable now: not reported as gone either
            }
            seen.append(std::move(s));
        }
        if (existing.size() < seen.size()) {
            // Names went: maybe with their folder. A folder deleted by another client
            // while the notifier's request was not outstanding (between two answers) is
            // only delete-pending: the notifier's own handle holds it, and the server
            // answers no request on it again. Any failure to look at the folder stops the
            // notifier (closing that handle), and the folder is looked at again then.
            errno = 0;
            if (smbc_getFunctionStat(m_ctx.get())(m_ctx.get(), lib(w.url).constData(), &st) != 0) {
                if (errno == ENOENT || errno == ENOTDIR) {
                    folderGone = true;
                } else {
                    qCDebug(QVFS_SMB) << "cannot look at the watched" << w.url << std::strerror(errno);
                    stopNotifier(w);
                    retryAt = retryAt < 0 ? ws.clock.elapsed() : qMin(retryAt, ws.clock.elapsed());
                }
            }
        }
        const QList<std::pair<QByteArray, QByteArray>> renames = plainRenames(w.renames, existing);
        w.dirty.clear();
        w.renames.clear();
        if (folderGone) {
            watchGone(id);
            continue;
        }
        if (!beginChanges(id))
            continue;
        const QSet<QByteArray> renamedFrom = reportRenames(renames);
        for (const Seen &s : std::as_const(seen)) {
            if (!s.exists) {
                if (!renamedFrom.contains(s.name))
                    reportRemoved(s.name);
                continue;
            }
            addEntry(s.name, s.entry, w.details);
        }
        endChanges();
    }
    if (retryAt >= 0)
        setWatchTimer(int(qMax<qint64>(0, retryAt - ws.clock.elapsed())));
}

} // namespace Qvfs
