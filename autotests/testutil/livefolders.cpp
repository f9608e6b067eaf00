// SPDX-License-Identifier: LGPL-2.1-or-later
#include "livefolders.h"
#include "procutil.h"

#include <QTest>

#include <cerrno>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace QvfsTest
{

qint64 monotonicMs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

ListerTracker::ListerTracker(Qvfs::DirLister *lister)
{
    using Qvfs::DirLister;
    using Qvfs::Entry;
    using Qvfs::EntryList;
    connect(lister, &DirLister::entriesAdded, this, [this](const QUrl &url, const EntryList &list) {
        auto &f = m_folders[url];
        for (const Entry &e : list) {
            const QByteArray n = e.name().toByteArray();
            if (f.contains(n))
                errors.append(QStringLiteral("added twice: %1").arg(QString::fromUtf8(n)));
            f.insert(n, e);
        }
        ++rounds;
        added += int(list.size());
        if (completed)
            changesAfterComplete += int(list.size());
        lastSignalMs = monotonicMs();
    });
    connect(lister, &DirLister::entriesRemoved, this, [this](const QUrl &url, const EntryList &list) {
        auto &f = m_folders[url];
        for (const Entry &e : list) {
            if (!f.remove(e.name().toByteArray()))
                errors.append(QStringLiteral("removed unknown: %1").arg(QString::fromUtf8(e.name())));
        }
        ++rounds;
        removed += int(list.size());
        if (completed)
            changesAfterComplete += int(list.size());
        lastSignalMs = monotonicMs();
    });
    connect(lister, &DirLister::entriesChanged, this,
        [this](const QUrl &url, const EntryList &before, const EntryList &after) {
            auto &f = m_folders[url];
            if (before.size() != after.size())
                errors.append(QStringLiteral("changed lists of different sizes"));
            for (const Entry &e : after) {
                const QByteArray n = e.name().toByteArray();
                if (!f.contains(n))
                    errors.append(QStringLiteral("changed unknown: %1").arg(QString::fromUtf8(n)));
                f.insert(n, e);
            }
            ++rounds;
            changed += int(after.size());
            lastSignalMs = monotonicMs();
        });
    connect(lister, &DirLister::entryRenamed, this, [this](const QUrl &url, const Entry &before, const Entry &after) {
        auto &f = m_folders[url];
        if (!f.remove(before.name().toByteArray()))
            errors.append(QStringLiteral("renamed unknown: %1").arg(QString::fromUtf8(before.name())));
        if (f.contains(after.name().toByteArray()))
            errors.append(QStringLiteral("renamed onto a known name: %1").arg(QString::fromUtf8(after.name())));
        f.insert(after.name().toByteArray(), after);
        ++rounds;
        ++renamed;
        lastSignalMs = monotonicMs();
    });
    connect(lister, &DirLister::cleared, this, [this](const QUrl &url) {
        // What was said of the folder no longer counts: it comes again, or not at all.
        m_folders.remove(url);
        ++clears;
        lastSignalMs = monotonicMs();
    });
    connect(lister, &DirLister::listingCompleted, this, [this] { ++completed; });
    connect(lister, &DirLister::dirGone, this, [this] { ++gone; });
    connect(lister, &DirLister::failed, this, [this] { ++failed; });
    connect(lister, &DirLister::redirected, this, [this](const QUrl &from, const QUrl &to) {
        redirections.append({ from, to });
        m_folders.insert(to, m_folders.take(from));
    });
    connect(lister, &DirLister::watchModeChanged, this, [this](const QUrl &, Qvfs::WatchMode m) { modes.append(m); });
}

QSet<QByteArray> ListerTracker::names(const QUrl &url) const
{
    QSet<QByteArray> s;
    const auto f = m_folders.value(url);
    for (auto it = f.cbegin(); it != f.cend(); ++it)
        s.insert(it.key());
    return s;
}

Qvfs::Entry ListerTracker::entry(const QUrl &url, const QByteArray &name) const
{
    return m_folders.value(url).value(name);
}

QSet<QByteArray> readdirNames(const QByteArray &path)
{
    QSet<QByteArray> s;
    DIR *d = ::opendir(path.constData());
    if (!d)
        return s;
    while (dirent *e = ::readdir(d)) {
        const QByteArray n(e->d_name);
        if (n != "." && n != "..")
            s.insert(n);
    }
    ::closedir(d);
    return s;
}

Churner::Churner(const QByteArray &dir, int creates, int deletes)
    : m_dir(dir)
    , m_creates(creates)
    , m_deletes(deletes)
{ }

Churner::~Churner()
{
    join();
}

void Churner::start()
{
    m_thread = std::thread([this] {
        const int dirfd = ::open(m_dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int deleted = 0;
        char name[32];
        for (int i = 0; i < m_creates; ++i) {
            snprintf(name, sizeof name, "f%d", i);
            const int fd = ::openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd >= 0)
                ::close(fd);
            // Every third file goes again at once, while the listing runs.
            if (i % 3 == 0 && deleted < m_deletes) {
                ::unlinkat(dirfd, name, 0);
                ++deleted;
            }
        }
        ::close(dirfd);
        m_done = true;
    });
}

void Churner::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

qint64 watcherPid(const QByteArray &executable)
{
    for (qint64 pid : ProcUtil::childPids()) {
        const QByteArray exe = ProcUtil::readProcFile("/proc/" + QByteArray::number(pid) + "/comm").trimmed();
        if (!executable.startsWith(exe.left(15)))
            continue;
        if (hasInotify(pid))
            return pid;
    }
    return 0;
}

namespace
{
/*! The inotify fds of \a pid (their numbers); false when the process cannot be read. */
bool inotifyFds(qint64 pid, QList<QByteArray> *fds)
{
    const QByteArray fdDir = "/proc/" + QByteArray::number(pid) + "/fd";
    DIR *d = ::opendir(fdDir.constData());
    if (!d)
        return false;
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        char target[256];
        const QByteArray link = fdDir + '/' + e->d_name;
        const ssize_t n = ::readlink(link.constData(), target, sizeof target - 1);
        if (n > 0 && QByteArray(target, n) == "anon_inode:inotify")
            fds->append(QByteArray(e->d_name));
    }
    ::closedir(d);
    return true;
}
} // namespace

bool hasInotify(qint64 pid)
{
    QList<QByteArray> fds;
    return inotifyFds(pid, &fds) && !fds.isEmpty();
}

int inotifyWatchCount(qint64 pid)
{
    QList<QByteArray> fds;
    if (!inotifyFds(pid, &fds))
        return -1;
    int count = 0;
    for (const QByteArray &fd : std::as_const(fds)) {
        const QByteArray info = ProcUtil::readProcFile("/proc/" + QByteArray::number(pid) + "/fdinfo/" + fd);
        count += int(info.count("inotify wd:"));
    }
    return count;
}

bool waitFor(const std::function<bool()> &condition, int timeoutMs)
{
    return QTest::qWaitFor(condition, timeoutMs);
}

bool waitQuiet(const ListerTracker &t, int quietMs, int timeoutMs)
{
    const qint64 end = monotonicMs() + timeoutMs;
    for (;;) {
        const qint64 last = t.lastSignalMs;
        QTest::qWait(quietMs);
        if (t.lastSignalMs == last)
            return true;
        if (monotonicMs() > end)
            return false;
    }
}

} // namespace QvfsTest
