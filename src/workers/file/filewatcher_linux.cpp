// SPDX-License-Identifier: LGPL-2.1-or-later
// Watching folders for the file:// worker: one inotify instance for every watch of the
// process. A watch is added before its folder is listed, and events are coalesced per
// folder: each changed name is stat'ed once per flush (30 ms after the last event, at
// most 150 ms after the first), and only what changed travels. A lost event queue
// (IN_Q_OVERFLOW) re-lists every watched folder; no watch left (ENOSPC) falls back to
// polling that folder and says so; a folder deleted or renamed under the watch is
// reported once.
//
// No descriptor of a watched folder stays open between flushes: an open descriptor pins
// the folder's dentry, and the kernel then reports its deletion (IN_DELETE_SELF) only
// when that descriptor is closed. A flush opens the folder by its path and checks it is
// the very folder watched (device and inode); a folder renamed in place is found again
// in its parent by its inode.
//
// Test hooks (environment, read when the first watch starts; for the autotests only):
//   QVFS_TEST_WATCH_LIMIT=N          at most N inotify watches, as if the system's limit
//                                    (fs.inotify.max_user_watches) were reached beyond
//   QVFS_TEST_WATCH_OVERFLOW_AFTER=N every N events read, the rest of the queue is
//                                    discarded (lost), and the overflow path runs: the
//                                    real loss of an overflowing queue, on demand
#include "fileworker.h"

#include "changebatchtimer_p.h"
#include "fileops_util_p.h"

#include "fileworker_debug.h"
#include "url.h"

#include <QHash>
#include <QList>
#include <QSet>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace Qvfs
{

namespace
{
constexpr int PollMsAtLimit = 2000; // polling when no inotify watch is left
// Events of the folder itself: names created, deleted, moved; the folder deleted or moved.
// Cheap to add, so they are there before the first name is listed.
constexpr quint32 FolderMask
    = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;
// Events of the entries in it (written, attributes). Adding them makes the kernel mark
// every child dentry it holds — tens of milliseconds for 100,000 — so they come once the
// first rows are on their way, and the entries listed until then are looked at again.
constexpr quint32 EntryMask = IN_ATTRIB | IN_CLOSE_WRITE | IN_MODIFY;

int envInt(const char *name)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok ? v : -1;
}

/*! The folder \a path opened, when it is still the folder \a dev/\a ino; -1 otherwise. */
int openSame(const QByteArray &path, dev_t dev, ino_t ino)
{
    const int fd = open(path.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/*!
 * Where the folder \a dev/\a ino went from \a path: renamed within its parent, it is
 * found there by its inode. Empty when it is nowhere in sight (moved away or deleted).
 */
QByteArray findMoved(const QByteArray &path, dev_t dev, ino_t ino)
{
    const QByteArray parent = Internal::parentPath(path);
    FileOps::DirStream dir(FileOps::Fd(open(parent.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
    if (!dir.valid())
        return {};
    while (const dirent *de = dir.next()) {
        struct stat st;
        if (de->d_ino == ino && fstatat(dir.fd(), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == dev
            && st.st_ino == ino && S_ISDIR(st.st_mode))
            return Internal::joinPath(parent, de->d_name);
    }
    return {};
}
} // namespace

struct FileWorker::Watcher
{
    /*! One watched folder (one inotify watch descriptor), maybe under several watches. */
    struct Folder
    {
        QByteArray path; // where it is now
        dev_t dev = 0; // which folder it is
        ino_t ino = 0;
        QList<quint32> ids;
        QHash<quint32, Details> details;
        QHash<quint32, QUrl> urls;
        QSet<QByteArray> hiddenNames; // its .hidden file
        // what happened since the last flush
        QSet<QByteArray> dirty;
        QList<std::pair<QByteArray, QByteArray>> renames;
        QHash<quint32, QByteArray> movedFrom; // by cookie: a rename's first half
        bool resync = false;
        bool contentChanged = false; // names came or went: its own modification time changed
        bool moved = false;
        bool gone = false;
        bool reportedGone = false;
        bool pending() const { return !dirty.isEmpty() || resync || moved || (gone && !reportedGone); }
    };

    int fd = -1;
    QHash<int, Folder> folders; // by watch descriptor
    QHash<quint32, int> wdOf; // watch id -> descriptor
    ChangeBatchTimer batch;
    int limit = envInt("QVFS_TEST_WATCH_LIMIT");
    int overflowAfter = envInt("QVFS_TEST_WATCH_OVERFLOW_AFTER");
    qint64 eventsRead = 0;
    QByteArray buf = QByteArray(64 * 1024, Qt::Uninitialized);

    void readEvents();
    /*! \a f (and every watched folder below it) is at \a to now: their watches say so. */
    void folderMoved(FileWorker *worker, Folder &f, const QByteArray &to);
    void overflowed()
    {
        // Events were lost: every folder is listed afresh (its events since then follow).
        qCDebug(QVFS_WORKER_FILE) << "inotify queue overflow: re-listing" << folders.size() << "folders";
        for (Folder &f : folders)
            f.resync = true;
    }
};

void FileWorker::Watcher::readEvents()
{
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), size_t(buf.size()));
        if (n <= 0)
            return;
        batch.eventSeen();
        for (ssize_t pos = 0; pos + ssize_t(sizeof(inotify_event)) <= n;) {
            const auto *ev = reinterpret_cast<const inotify_event *>(buf.constData() + pos);
            pos += ssize_t(sizeof(inotify_event)) + ev->len;
            ++eventsRead;
            if (overflowAfter > 0 && eventsRead >= overflowAfter) {
                // The test hook: what follows is lost, as in a queue that overflowed.
                eventsRead = 0;
                while (::read(fd, buf.data(), size_t(buf.size())) > 0) { }
                overflowed();
                return;
            }
            if (ev->mask & IN_Q_OVERFLOW) {
                overflowed();
                continue;
            }
            auto it = folders.find(ev->wd);
            if (it == folders.end())
                continue; // a watch removed meanwhile
            Folder &f = *it;
            if (ev->mask & (IN_DELETE_SELF | IN_UNMOUNT | IN_IGNORED)) {
                f.gone = true;
                continue;
            }
            if (ev->mask & IN_MOVE_SELF) {
                f.moved = true;
                continue;
            }
            if (!ev->len)
                continue;
            const QByteArray name(ev->name, qsizetype(::strnlen(ev->name, ev->len)));
            if (name.isEmpty())
                continue;
            f.dirty.insert(name);
            if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO))
                f.contentChanged = true;
            if (ev->mask & IN_MOVED_FROM) {
                f.movedFrom.insert(ev->cookie, name);
            } else if (ev->mask & IN_MOVED_TO) {
                const QByteArray from = f.movedFrom.take(ev->cookie);
                if (!from.isEmpty())
                    f.renames.append({ from, name });
            }
            if (name == ".hidden")
                f.resync = true; // which names are hidden changed
        }
    }
}

WorkerResult FileWorker::watch(const WatchRequest &request)
{
    if (!m_watcher)
        m_watcher = new Watcher;
    Watcher &w = *m_watcher;
    const QUrl &url = request.url;
    const QByteArray path = Url::localPath(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    const quint32 id = requestId();
    const auto poll = [this, &request] {
        // No native watch to be had: poll this folder, and say why.
        setWatchMode(WatchMode::PollingAtLimit);
        WatchRequest p = request;
        if (p.pollMs <= 0)
            p.pollMs = PollMsAtLimit;
        return WorkerBase::watch(p);
    };
    if (w.fd < 0) {
        w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w.fd < 0) {
            qCWarning(QVFS_WORKER_FILE) << "inotify_init1:" << strerror(errno) << "- polling instead";
            return poll();
        }
        setWatchDescriptor(w.fd);
    }
    const int dirfd = open(path.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return WorkerResult::fail(errnoError(errno), url);
    // The watch goes on the very folder opened (through its descriptor), before the listing.
    int wd = -1;
    if (w.limit >= 0 && w.folders.size() >= w.limit) {
        errno = ENOSPC;
    } else {
        wd = inotify_add_watch(w.fd, FileOps::fdPath(dirfd).constData(), FolderMask | IN_MASK_ADD);
    }
    if (wd < 0) {
        const int err = errno;
        ::close(dirfd);
        if (err == ENOSPC || err == ENOMEM) {
            qCDebug(QVFS_WORKER_FILE) << "no inotify watch left for" << path << "- polling";
            return poll();
        }
        return WorkerResult::fail(errnoError(err), url);
    }
    auto it = w.folders.find(wd);
    const bool fresh = it == w.folders.end();
    if (fresh) {
        // (The same folder under another name shares its inotify watch.)
        it = w.folders.insert(wd, Watcher::Folder());
        struct stat st;
        if (fstat(dirfd, &st) == 0) {
            it->dev = st.st_dev;
            it->ino = st.st_ino;
        }
        it->path = path;
    }
    it->ids.append(id);
    it->details.insert(id, request.details);
    it->urls.insert(id, url);
    if (request.details & DetailHiddenFile)
        it->hiddenNames = FileEntryInfo::readHiddenFile(dirfd);
    w.wdOf.insert(id, wd);
    if (!fresh) {
        ::close(dirfd); // held open, it would hold back the folder's own deletion event
    } else {
        whenFirstBatchSent([this, wd, dirfd](const QList<QByteArray> &names) {
            if (!m_watcher) {
                ::close(dirfd);
                return;
            }
            Watcher &w = *m_watcher;
            auto f = w.folders.find(wd);
            if (f != w.folders.end()) {
                inotify_add_watch(w.fd, FileOps::fdPath(dirfd).constData(), EntryMask | IN_MASK_ADD);
                // Listed before their own events counted: looked at again, as if changed.
                for (const QByteArray &n : names)
                    f->dirty.insert(n);
                if (!names.isEmpty()) {
                    w.batch.eventSeen();
                    setWatchTimer(ChangeBatchTimer::QuietMs);
                }
            }
            ::close(dirfd);
        });
    }
    ListRequest list;
    list.url = url;
    list.details = request.details;
    return listDir(list); // on failure the base class calls unwatch(id)
}

void FileWorker::unwatch(quint32 id)
{
    WorkerBase::unwatch(id); // a folder polled at the limit
    if (!m_watcher)
        return;
    Watcher &w = *m_watcher;
    const auto wdIt = w.wdOf.find(id);
    if (wdIt != w.wdOf.end()) {
        const int wd = *wdIt;
        w.wdOf.erase(wdIt);
        auto it = w.folders.find(wd);
        if (it != w.folders.end()) {
            it->ids.removeOne(id);
            it->details.remove(id);
            it->urls.remove(id);
            if (it->ids.isEmpty()) {
                if (!it->gone)
                    inotify_rm_watch(w.fd, wd);
                w.folders.erase(it);
            }
        }
    }
    if (w.folders.isEmpty() && w.wdOf.isEmpty()) {
        // Nothing watched any more: the inotify instance goes too.
        setWatchDescriptor(-1);
        setWatchTimer(-1);
        if (w.fd >= 0)
            ::close(w.fd);
        delete m_watcher;
        m_watcher = nullptr;
    }
}

void FileWorker::watchEvent()
{
    if (!m_watcher)
        return;
    Watcher &w = *m_watcher;
    w.readEvents();
    bool pending = false;
    for (const Watcher::Folder &f : std::as_const(w.folders))
        pending = pending || f.pending();
    if (!pending) {
        w.batch.reset();
        setWatchTimer(-1);
        return;
    }
    if (const int wait = w.batch.msUntilDue(); wait > 0) {
        setWatchTimer(wait);
        return;
    }
    flushWatches();
}

void FileWorker::Watcher::folderMoved(FileWorker *worker, Folder &f, const QByteArray &to)
{
    // inotify tells the folders below a renamed one nothing (their own inodes did not
    // move): the watched ones among them (a tree view's expanded folders) follow it here.
    const QByteArray from = f.path;
    const auto moveTo = [worker](Folder &g, const QByteArray &path) {
        g.path = path;
        const QUrl url = Url::fromLocalPath(path);
        for (quint32 id : std::as_const(g.ids)) {
            g.urls.insert(id, url);
            worker->watchMoved(id, url);
        }
    };
    moveTo(f, to);
    const QByteArray prefix = from + '/';
    for (Folder &g : folders) {
        if (!g.path.startsWith(prefix))
            continue;
        const QByteArray now = to + g.path.mid(from.size());
        const int fd = openSame(now, g.dev, g.ino);
        if (fd < 0)
            continue; // moved on from there too: its own events tell
        ::close(fd);
        moveTo(g, now);
    }
}

void FileWorker::flushWatches()
{
    Watcher &w = *m_watcher;
    w.batch.reset();
    setWatchTimer(-1);
    // Folders above the folders in them: a folder deleted (or replaced) under its watch is
    // removed from (or changed in) its parent before it says it is gone, so a tree view
    // takes its row away once, with what is below it, rather than its rows first.
    std::vector<std::pair<qsizetype, int>> byDepth;
    byDepth.reserve(size_t(w.folders.size()));
    for (auto it = w.folders.cbegin(); it != w.folders.cend(); ++it)
        byDepth.emplace_back(it->path.count('/'), it.key());
    std::sort(byDepth.begin(), byDepth.end());
    QList<int> wds;
    wds.reserve(qsizetype(byDepth.size()));
    for (const auto &d : byDepth)
        wds.append(d.second);
    for (int wd : std::as_const(wds)) {
        auto it = w.folders.find(wd);
        if (it == w.folders.end() || !it->moved || it->gone)
            continue;
        if (const int fd = openSame(it->path, it->dev, it->ino); fd >= 0) {
            ::close(fd); // still where it was (moved back?): the main loop looks again
            continue;
        }
        const QByteArray now = findMoved(it->path, it->dev, it->ino);
        if (now.isEmpty())
            continue; // out of sight: gone, said below
        it->moved = false;
        w.folderMoved(this, *it, now);
    }
    // A folder whose names changed has a new modification time, which inotify does not
    // tell its parent's watch: its row there is looked at again.
    // The watched folders by path, made once for the flush (only when one changed).
    QHash<QByteArrayView, Watcher::Folder *> byPath;
    for (Watcher::Folder &f : w.folders) {
        if (!std::exchange(f.contentChanged, false))
            continue;
        const qsizetype slash = f.path.lastIndexOf('/');
        if (slash < 0)
            continue;
        if (byPath.isEmpty()) {
            byPath.reserve(w.folders.size());
            for (Watcher::Folder &p : w.folders) {
                if (!p.gone)
                    byPath.insert(QByteArrayView(p.path), &p);
            }
        }
        const QByteArrayView parent = slash == 0 ? QByteArrayView("/") : QByteArrayView(f.path).first(slash);
        if (Watcher::Folder *p = byPath.value(parent); p && p != &f)
            p->dirty.insert(f.path.mid(slash + 1));
    }
    for (int wd : std::as_const(wds)) {
        auto it = w.folders.find(wd);
        if (it == w.folders.end() || !it->pending())
            continue;
        Watcher::Folder &f = *it;
        const QList<quint32> ids = f.ids;
        if (f.gone) {
            // Reported once; unwatch() follows from the base class.
            f.reportedGone = true;
            f.dirty.clear();
            for (quint32 id : ids)
                watchGone(id);
            continue;
        }
        int dirfd = openSame(f.path, f.dev, f.ino);
        if (f.moved || dirfd < 0) {
            // Renamed (or replaced) under the watch: found again in its parent, or gone.
            f.moved = false;
            const QByteArray now = dirfd < 0 ? findMoved(f.path, f.dev, f.ino) : QByteArray();
            if (dirfd < 0 && now.isEmpty()) {
                f.reportedGone = true;
                f.dirty.clear();
                for (quint32 id : ids)
                    watchGone(id);
                continue;
            }
            if (!now.isEmpty()) {
                w.folderMoved(this, f, now);
                dirfd = openSame(f.path, f.dev, f.ino);
            }
            if (dirfd < 0)
                continue;
        }
        if (f.resync) {
            f.resync = false;
            f.dirty.clear();
            f.renames.clear();
            f.movedFrom.clear();
            f.hiddenNames = FileEntryInfo::readHiddenFile(dirfd);
            ::close(dirfd);
            for (quint32 id : ids) {
                if (!beginResync(id))
                    continue;
                ListRequest list;
                list.url = f.urls.value(id);
                list.details = f.details.value(id);
                const WorkerResult r = listDir(list);
                if (!r.ok())
                    qCDebug(QVFS_WORKER_FILE) << "re-listing failed" << r.code();
                endResync();
            }
            continue;
        }
        if (f.dirty.isEmpty()) {
            ::close(dirfd);
            continue;
        }
        // Each changed name is looked at once, whatever happened to it meanwhile.
        struct Seen
        {
            QByteArray name;
            bool exists;
            struct statx st;
        };
        QList<Seen> seen;
        seen.reserve(f.dirty.size());
        QSet<QByteArray> existing;
        for (const QByteArray &name : std::as_const(f.dirty)) {
            Seen s { name, false, {} };
            s.exists = statx(dirfd, name.constData(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
                           STATX_BASIC_STATS | STATX_BTIME, &s.st)
                == 0;
            if (s.exists)
                existing.insert(name);
            seen.append(std::move(s));
        }
        const QList<std::pair<QByteArray, QByteArray>> renames = plainRenames(f.renames, existing);
        f.dirty.clear();
        f.renames.clear();
        f.movedFrom.clear();
        for (quint32 id : ids) {
            if (!beginChanges(id))
                continue;
            const Details details = f.details.value(id);
            const QSet<QByteArray> renamedFrom = reportRenames(renames);
            for (const Seen &s : std::as_const(seen)) {
                if (!s.exists) {
                    if (!renamedFrom.contains(s.name))
                        reportRemoved(s.name);
                    continue;
                }
                const bool hidden = s.name.startsWith('.') || f.hiddenNames.contains(s.name);
                addEntry(s.name, dirfd, s.name.constData(), s.st, details, hidden);
            }
            endChanges();
        }
        ::close(dirfd);
    }
}

} // namespace Qvfs
