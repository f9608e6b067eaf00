// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers of the live-folder tests (DirLister, DirModel, the watch worker): a tracker
// that rebuilds a folder from a lister's signals and notices any inconsistency, a
// thread that creates and deletes files while a folder is listed, and probes of the
// watcher process (its inotify watches, read from /proc/PID/fdinfo).
#ifndef QVFS_TESTUTIL_LIVEFOLDERS_H
#define QVFS_TESTUTIL_LIVEFOLDERS_H

#include <Qvfs/DirLister>

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QUrl>

#include <atomic>
#include <thread>

namespace QvfsTest
{

/*!
 * Follows a DirLister's signals for its folders and keeps what they say each folder
 * holds. Any signal that contradicts it (an entry added twice, a removed, changed or
 * renamed entry that was not there) is recorded in errors: a test checks it is empty.
 */
class ListerTracker : public QObject
{
    Q_OBJECT
public:
    explicit ListerTracker(Qvfs::DirLister *lister);

    /*! The names the signals say \a url holds. */
    QSet<QByteArray> names(const QUrl &url) const;
    Qvfs::Entry entry(const QUrl &url, const QByteArray &name) const;
    QStringList errors;
    int rounds = 0; // signals that changed entries
    int added = 0;
    int removed = 0;
    int changed = 0;
    int renamed = 0;
    int completed = 0; // listingCompleted
    int changesAfterComplete = 0; // entries added, changed or removed after the first listingCompleted
    int clears = 0; // cleared()
    int gone = 0;
    int failed = 0;
    QList<std::pair<QUrl, QUrl>> redirections;
    QList<Qvfs::WatchMode> modes;
    /*! Milliseconds of the monotonic clock when the last entry signal came. */
    qint64 lastSignalMs = 0;

private:
    QHash<QUrl, QHash<QByteArray, Qvfs::Entry>> m_folders;
};

/*! The names in the folder \a path (raw readdir, not "." and ".."). */
QSet<QByteArray> readdirNames(const QByteArray &path);

/*!
 * A thread that creates \a creates empty files "f<i>" in \a dir and deletes \a deletes of
 * them (every third, as soon as it exists) as fast as it can, starting when start() is
 * called. join() waits for it.
 */
class Churner
{
public:
    Churner(const QByteArray &dir, int creates, int deletes);
    ~Churner();
    void start();
    void join();
    bool running() const { return !m_done.load(); }

private:
    QByteArray m_dir;
    int m_creates;
    int m_deletes;
    std::thread m_thread;
    std::atomic<bool> m_done { false };
};

/*! The pid of this process's child \a executable ("qvfs-worker-file") that has an inotify fd; 0 when none. */
qint64 watcherPid(const QByteArray &executable = QByteArrayLiteral("qvfs-worker-file"));
/*!
 * The inotify watches \a pid holds: the "inotify wd:" lines of its inotify fds' fdinfo
 * (0 when it has no inotify fd: the file worker closes its instance with the last watch);
 * -1 when the process cannot be read.
 */
int inotifyWatchCount(qint64 pid);
/*! Whether \a pid has an inotify fd open. */
bool hasInotify(qint64 pid);
/*! Milliseconds of CLOCK_MONOTONIC. */
qint64 monotonicMs();
/*! Waits (running the event loop) until \a condition holds or \a timeoutMs passes. */
bool waitFor(const std::function<bool()> &condition, int timeoutMs = 20000);
/*! Waits until the tracker saw no entry signal for \a quietMs (at most \a timeoutMs). */
bool waitQuiet(const ListerTracker &t, int quietMs = 500, int timeoutMs = 30000);

} // namespace QvfsTest

#endif
