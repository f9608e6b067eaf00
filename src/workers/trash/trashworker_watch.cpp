// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash:/ worker: following trash:/ with inotify on every trash's folders, whoever
// trashes, restores or empties (this worker, another Qvfs application, GIO, trash-cli).
#include "trashworker.h"

#include <QHash>
#include <QSet>

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs
{

namespace
{
// What each folder of a trash is watched for.
constexpr uint32_t PartEvents = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr uint32_t TrashEvents = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR;
constexpr uint32_t PlaceEvents = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR;
} // namespace

struct TrashWorker::Watch
{
    enum class Part { Info, Files, Trash, Place };
    struct Target
    {
        QByteArray trashId; // Info, Files, Trash
        Part part;
        QList<QByteArray> names; // Place: a trash appearing as one of these means a fresh listing
    };
    // One descriptor for the worker base to wait on: inotify for the folders, and the
    // mount table (a volume mounted or unmounted brings or takes its trash).
    int epoll = -1;
    int inotify = -1;
    int mounts = -1;
    QHash<int, Target> targets; // by watch descriptor
    QHash<quint32, Details> ids; // the live watches of trash:/, with their details

    ~Watch() { closeAll(); }
    void closeAll()
    {
        for (int *fd : { &inotify, &mounts, &epoll }) {
            if (*fd >= 0)
                ::close(*fd);
            *fd = -1;
        }
        targets.clear();
    }
    bool add(int fd)
    {
        struct epoll_event ev = {};
        ev.events = fd == mounts ? EPOLLPRI : EPOLLIN;
        ev.data.fd = fd;
        return ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) == 0;
    }
    /*! Watches every folder of \a trashes, and where new ones would appear, anew. */
    bool rebuild(const std::vector<Trash::Folder> &trashes)
    {
        closeAll();
        epoll = ::epoll_create1(EPOLL_CLOEXEC);
        inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        mounts = ::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        if (epoll < 0 || inotify < 0 || !add(inotify) || (mounts >= 0 && !add(mounts)))
            return false;
        for (const Trash::Folder &t : trashes) {
            const std::pair<int, Part> parts[]
                = { { t.info.get(), Part::Info }, { t.files.get(), Part::Files }, { t.fd.get(), Part::Trash } };
            for (const auto &[dirFd, part] : parts) {
                const int wd = ::inotify_add_watch(
                    inotify, FileOps::fdPath(dirFd).constData(), part == Part::Trash ? TrashEvents : PartEvents);
                if (wd >= 0)
                    targets.insert(wd, { t.id, part, {} });
            }
        }
        for (const Trash::Place &p : Trash::trashPlaces()) {
            const int wd = ::inotify_add_watch(inotify, p.folder.constData(), PlaceEvents);
            if (wd >= 0 && !targets.contains(wd))
                targets.insert(wd, { {}, Part::Place, p.names });
        }
        return true;
    }
};

bool TrashWorker::rewatch()
{
    // Watches first, then what exists: a trash completed while the watches were being
    // added (info/ made after its folder was seen) is watched on the next round.
    auto shape = [this] {
        QList<QByteArray> ids;
        for (const Trash::Folder &t : m_trashes)
            ids.append(t.id);
        return ids;
    };
    for (int round = 0; round < 4; ++round) {
        const QList<QByteArray> before = shape();
        if (!m_watch->rebuild(m_trashes))
            return false;
        setWatchDescriptor(m_watch->epoll);
        refresh();
        if (shape() == before)
            break;
    }
    return true;
}

WorkerResult TrashWorker::watch(const WatchRequest &request)
{
    refresh();
    Where w;
    if (const int err = locate(request.url, &w))
        return WorkerResult::fail(err, request.url);
    if (w.trash)
        return WorkerBase::watch(request); // inside a trashed folder: polling, if asked for
    if (!m_watch) {
        m_watch = new Watch;
        if (!rewatch()) {
            const int err = errno;
            setWatchDescriptor(-1);
            delete m_watch;
            m_watch = nullptr;
            setWatchMode(WatchMode::PollingAtLimit);
            if (request.pollMs > 0)
                return WorkerBase::watch(request);
            return WorkerResult::fail(errnoError(err), request.url);
        }
    }
    m_watch->ids.insert(requestId(), request.details);
    listRoot(request.details);
    return WorkerResult::pass();
}

void TrashWorker::unwatch(quint32 id)
{
    if (m_watch && m_watch->ids.remove(id) && m_watch->ids.isEmpty()) {
        setWatchDescriptor(-1);
        delete m_watch;
        m_watch = nullptr;
        return;
    }
    FileWorker::unwatch(id); // a polled watch inside a trashed folder
}

void TrashWorker::readWatchEvents()
{
    // Every event names an entry ("x.trashinfo" in info/, "x" in files/); a whole folder
    // replaced (an emptying renames info/ and files/) or lost events mean a fresh listing.
    QSet<std::pair<QByteArray, QByteArray>> changed; // (trash id, file id)
    bool resync = false;
    struct epoll_event ready[2];
    const int n = ::epoll_wait(m_watch->epoll, ready, 2, 0);
    for (int i = 0; i < n; ++i)
        resync = resync || ready[i].data.fd == m_watch->mounts; // the mount table changed
    alignas(struct inotify_event) char buf[16384];
    for (;;) {
        const ssize_t got = ::read(m_watch->inotify, buf, sizeof buf);
        if (got <= 0)
            break;
        for (ssize_t off = 0; off < got;) {
            const auto *ev = reinterpret_cast<const struct inotify_event *>(buf + off);
            off += ssize_t(sizeof(struct inotify_event) + ev->len);
            if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
                resync = true;
                continue;
            }
            const auto it = m_watch->targets.constFind(ev->wd);
            if (it == m_watch->targets.cend() || ev->len == 0)
                continue;
            QByteArray name(ev->name);
            if (it->part == Watch::Part::Place) {
                resync = resync || it->names.contains(name); // a trash appeared
                continue;
            }
            if (it->part == Watch::Part::Trash) {
                resync = resync || name == "info" || name == "files";
                continue;
            }
            if (it->part == Watch::Part::Info) {
                if (!name.endsWith(Trash::InfoSuffix))
                    continue;
                name.chop(Trash::InfoSuffix.size());
            }
            if (!name.isEmpty())
                changed.insert({ it->trashId, name });
        }
    }
    if (!resync && changed.isEmpty())
        return;
    refresh();
    if (resync)
        rewatch();
    // A folder's Size as a listing gives it: from each trash's directorysizes, read once.
    QHash<QByteArray, Trash::SizeCache> sizes;
    const QList<quint32> ids = m_watch->ids.keys();
    for (quint32 id : ids) {
        const Details details = m_watch->ids.value(id);
        if (resync) {
            if (beginResync(id)) {
                listRoot(details);
                endResync();
            }
            continue;
        }
        if (!beginChanges(id))
            continue;
        for (const auto &[trashId, fileId] : std::as_const(changed)) {
            Trash::Folder *trash = nullptr;
            for (Trash::Folder &t : m_trashes) {
                if (t.id == trashId)
                    trash = &t;
            }
            Trash::SizeCache *cache = nullptr;
            if (trash) {
                const bool loaded = sizes.contains(trashId);
                cache = &sizes[trashId];
                if (!loaded)
                    cache->load(trash->fd.get());
            }
            if (!trash || !sendEntry(*trash, fileId, details, cache))
                reportRemoved(QByteArray(trashId + '-' + fileId));
        }
        endChanges();
    }
    for (Trash::Folder &t : m_trashes) {
        if (sizes.contains(t.id))
            sizes[t.id].save(t.fd.get());
    }
}

} // namespace Qvfs
