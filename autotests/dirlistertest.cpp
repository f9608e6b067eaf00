// SPDX-License-Identifier: LGPL-2.1-or-later
// DirLister and the watch worker behind it, against real folders through the real
// file:// worker (inotify) and the test:// worker (no watch: polling, or the
// application's own jobs). A tracker rebuilds every folder from the lister's signals and
// fails on any contradiction (an entry added twice, an unknown one removed); the result
// is compared with readdir().

#include "jobfixture.h"
#include "jobrunner.h"
#include "livefolders.h"
#include "procutil.h"
#include "raceruns.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/ChangeNotifier>
#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/Error>
#include <Qvfs/ListJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QSignalSpy>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{
QByteArray num(const char *prefix, int i)
{
    return QByteArray(prefix) + QByteArray::number(i);
}
} // namespace

class DirListerTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void listsAndFollows();
    void raceWithListing_data();
    void raceWithListing();
    void realOverflow();
    void deletedUnderTheView();
    void renamedUnderTheView();
    void watchLimitFallsBackToPolling();
    void sharedListingAndLateJoiner();
    void cachedFolderRevalidates();
    void filters();
    void oddNames();
    void manyFoldersOneWatcher();
    void watchesLeaveThePoolAlone();
    void pollingWorkerSendsDifferences();
    void ownChangesWithoutListing();
    void freeSpace();
    void failedEndsWithFailed();
    void reopenDeliversAgain();
};

void DirListerTest::listsAndFollows()
{
    QVERIFY(mkdirRaw(path("d")));
    for (int i = 0; i < 50; ++i)
        QVERIFY(writeRaw(path(num("d/a", i)), "x"));
    DirLister lister;
    ListerTracker t(&lister);
    const QUrl u = Url::normalized(url("d"));
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(t.names(u), readdirNames(path("d")));
    QCOMPARE(lister.watchMode(u), WatchMode::Native);
    QCOMPARE(lister.entries(u).size(), 50);

    // created, written, renamed, deleted: each seen, exactly
    QVERIFY(writeRaw(path("d/new"), "hello"));
    QVERIFY(waitFor([&] { return t.names(u).contains("new"); }));
    QCOMPARE(t.entry(u, "new").size(), 5);
    QVERIFY(writeRaw(path("d/new"), "hello world"));
    QVERIFY(waitFor([&] { return t.entry(u, "new").size() == 11; }));
    QCOMPARE(::rename(path("d/a1").constData(), path("d/renamed").constData()), 0);
    QVERIFY(waitFor([&] { return t.names(u).contains("renamed"); }));
    QCOMPARE(t.renamed, 1); // one row renamed, not a removal and an addition
    QCOMPARE(::unlink(path("d/a2").constData()), 0);
    QVERIFY(waitFor([&] { return !t.names(u).contains("a2"); }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), readdirNames(path("d")));
    QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));
}

void DirListerTest::raceWithListing_data()
{
    QTest::addColumn<int>("overflowAfter");
    QTest::addColumn<int>("runs");
    QTest::newRow("plain") << -1 << 10;
    // The worker loses the rest of its queue after this many events (a test hook): the
    // overflow path must re-list exactly.
    QTest::newRow("overflow injected") << 2000 << 10;
}

void DirListerTest::raceWithListing()
{
    QFETCH(int, overflowAfter);
    QFETCH(int, runs);
    runs = raceRuns(runs);
    WorkerEnv env(
        "QVFS_TEST_WATCH_OVERFLOW_AFTER", overflowAfter >= 0 ? QByteArray::number(overflowAfter) : QByteArray());
    // On tmpfs: creations as fast as the kernel goes, the hardest race.
    const QByteArray base = m_fx.makeShm();
    QVERIFY(!base.isEmpty());
    int raced = 0;
    for (int run = 0; run < runs; ++run) {
        const QByteArray dir = base + "/race" + QByteArray::number(run);
        QVERIFY(mkdirRaw(dir));
        // A folder big enough that its listing takes a while...
        for (int i = 0; i < 20000; ++i)
            QVERIFY(writeRaw(QByteArray(dir + "/pre" + QByteArray::number(i)), {}));
        DirLister lister;
        ListerTracker t(&lister);
        const QUrl u = Url::normalized(fileUrl(dir));
        // ...while 10,000 files are created and 3,000 deleted.
        Churner churn(dir, 10000, 3000);
        churn.start();
        QVERIFY(lister.open(u));
        churn.join();
        QVERIFY(waitFor([&] { return t.completed >= 1; }));
        QVERIFY(waitQuiet(t, 600));
        const QSet<QByteArray> disk = readdirNames(dir);
        QCOMPARE(disk.size(), 20000 + 10000 - 3000);
        raced += t.changesAfterComplete > 0 ? 1 : 0;
        QVERIFY2(t.errors.isEmpty(), qPrintable(QStringLiteral("run %1: %2").arg(run).arg(t.errors.value(0))));
        if (t.names(u) != disk) {
            const QSet<QByteArray> seen = t.names(u);
            QFAIL(qPrintable(QStringLiteral("run %1: %2 listed, %3 on disk, %4 missing, %5 extra")
                                 .arg(run)
                                 .arg(seen.size())
                                 .arg(disk.size())
                                 .arg((disk - seen).size())
                                 .arg((seen - disk).size())));
        }
        QCOMPARE(lister.entries(u).size(), disk.size());
        lister.closeAll();
        removeTreeRaw(dir);
    }
    // The churn did overlap the listing and the watch (or the test proved nothing).
    QVERIFY(raced > 0);
}

void DirListerTest::realOverflow()
{
    // The kernel's own overflow: the watcher is stopped while more events happen than its
    // queue holds (fs.inotify.max_user_watches ... max_queued_events, 16,384 here).
    const int maxQueued = ProcUtil::readProcFile("/proc/sys/fs/inotify/max_queued_events").trimmed().toInt();
    if (maxQueued <= 0 || maxQueued > 100000)
        QSKIP("max_queued_events unreadable or too large for this test");
    const QByteArray dir = path("over");
    QVERIFY(mkdirRaw(dir));
    DirLister lister;
    ListerTracker t(&lister);
    const QUrl u = Url::normalized(fileUrl(dir));
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    const qint64 pid = watcherPid();
    QVERIFY(pid > 0);
    QCOMPARE(::kill(pid_t(pid), SIGSTOP), 0);
    const int n = maxQueued + 1000;
    for (int i = 0; i < n; ++i)
        QVERIFY(writeRaw(QByteArray(dir + "/o" + QByteArray::number(i)), {}));
    for (int i = 0; i < n; i += 2)
        QCOMPARE(::unlink(QByteArray(dir + "/o" + QByteArray::number(i)).constData()), 0);
    QCOMPARE(::kill(pid_t(pid), SIGCONT), 0);
    QVERIFY(waitFor([&] { return t.names(u).size() == n / 2; }, 30000));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), readdirNames(dir));
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::deletedUnderTheView()
{
    const QByteArray dir = path("doomed");
    QVERIFY(mkdirRaw(dir));
    for (int i = 0; i < 2000; ++i)
        QVERIFY(writeRaw(QByteArray(dir + "/g" + QByteArray::number(i)), {}));
    DirLister lister;
    ListerTracker t(&lister);
    const QUrl u = Url::normalized(fileUrl(dir));
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    const qint64 pid = watcherPid();
    QVERIFY(pid > 0);
    QCOMPARE(inotifyWatchCount(pid), 1);
    removeTreeRaw(dir);
    QVERIFY(waitFor([&] { return t.gone == 1; }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.gone, 1); // once
    QVERIFY(t.names(u).isEmpty());
    QVERIFY(t.errors.isEmpty());
    // The watch is gone with the folder: back to none.
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 0; }));
    // Made again: the lister does not hear of it by itself (no loop), opening shows it.
    QVERIFY(mkdirRaw(dir));
    QTest::qWait(200);
    QCOMPARE(t.gone, 1);
}

void DirListerTest::renamedUnderTheView()
{
    QVERIFY(mkdirRaw(path("before")));
    QVERIFY(writeRaw(path("before/x"), "x"));
    DirLister lister;
    ListerTracker t(&lister);
    const QUrl u = Url::normalized(url("before"));
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(::rename(path("before").constData(), path("after").constData()), 0);
    QVERIFY(waitFor([&] { return t.redirections.size() == 1; }));
    const QUrl moved = Url::normalized(url("after"));
    QCOMPARE(t.redirections.at(0).first, u);
    QCOMPARE(t.redirections.at(0).second, moved);
    QVERIFY(lister.isOpen(moved));
    QVERIFY(!lister.isOpen(u));
    // Still watched where it is now.
    QVERIFY(writeRaw(path("after/y"), "y"));
    QVERIFY(waitFor([&] { return t.names(moved).contains("y"); }));
    QCOMPARE(t.names(moved), readdirNames(path("after")));
    QCOMPARE(t.gone, 0);
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::watchLimitFallsBackToPolling()
{
    // As if fs.inotify.max_user_watches were 1 (a test hook in the worker).
    WorkerEnv env("QVFS_TEST_WATCH_LIMIT", "1");
    QVERIFY(mkdirRaw(path("one")));
    QVERIFY(mkdirRaw(path("two")));
    DirLister lister;
    lister.setPollInterval(150);
    ListerTracker t(&lister);
    const QUrl one = Url::normalized(url("one")), two = Url::normalized(url("two"));
    QVERIFY(lister.open(one, DirLister::Keep));
    QVERIFY(lister.open(two, DirLister::Keep));
    QVERIFY(waitFor([&] { return t.completed == 2; }));
    QCOMPARE(lister.watchMode(one), WatchMode::Native);
    QCOMPARE(lister.watchMode(two), WatchMode::PollingAtLimit); // and says so
    QVERIFY(writeRaw(path("two/p"), "p"));
    QVERIFY(writeRaw(path("one/n"), "n"));
    QVERIFY(waitFor([&] { return t.names(two).contains("p") && t.names(one).contains("n"); }));
    QCOMPARE(::unlink(path("two/p").constData()), 0);
    QVERIFY(waitFor([&] { return !t.names(two).contains("p"); }));
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::sharedListingAndLateJoiner()
{
    QVERIFY(mkdirRaw(path("s")));
    for (int i = 0; i < 5000; ++i)
        QVERIFY(writeRaw(path(num("s/e", i)), {}));
    const QUrl u = Url::normalized(url("s"));
    DirLister first;
    ListerTracker t1(&first);
    QVERIFY(first.open(u));
    // Joins while the listing runs (or right after): what came so far, then the rest.
    QVERIFY(waitFor([&] { return t1.added > 0; }));
    DirLister second;
    ListerTracker t2(&second);
    QVERIFY(second.open(u));
    QCOMPARE(t2.added, 0); // nothing from inside open()
    QVERIFY(waitFor([&] { return t1.completed == 1 && t2.completed == 1; }));
    const qint64 pid = watcherPid();
    QCOMPARE(inotifyWatchCount(pid), 1); // one listing, one watch for both
    QVERIFY(writeRaw(path("s/late"), {}));
    QVERIFY(waitFor([&] { return t1.names(u).contains("late") && t2.names(u).contains("late"); }));
    QCOMPARE(t1.names(u), readdirNames(path("s")));
    QCOMPARE(t2.names(u), readdirNames(path("s")));
    QVERIFY(t1.errors.isEmpty() && t2.errors.isEmpty());
    first.closeAll();
    QTest::qWait(50);
    QCOMPARE(inotifyWatchCount(pid), 1); // the second still holds it
    second.closeAll();
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 0; }));
}

void DirListerTest::cachedFolderRevalidates()
{
    QVERIFY(mkdirRaw(path("c")));
    for (int i = 0; i < 100; ++i)
        QVERIFY(writeRaw(path(num("c/k", i)), {}));
    const QUrl u = Url::normalized(url("c"));
    {
        DirLister lister;
        ListerTracker t(&lister);
        QVERIFY(lister.open(u));
        QVERIFY(waitFor([&] { return t.completed == 1; }));
    }
    // Closed: cached, unwatched. Changed meanwhile.
    QVERIFY(writeRaw(path("c/fresh"), {}));
    QCOMPARE(::unlink(path("c/k7").constData()), 0);
    DirLister lister;
    ListerTracker t(&lister);
    QVERIFY(lister.open(u));
    // The cached entries come first (from the event loop), then only the differences.
    QVERIFY(waitFor([&] { return t.added >= 100; }));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), readdirNames(path("c")));
    QCOMPARE(t.added, 101); // 100 cached + "fresh"
    QCOMPARE(t.removed, 1); // "k7"
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::filters()
{
    QVERIFY(mkdirRaw(path("f")));
    QVERIFY(mkdirRaw(path("f/sub")));
    for (const char *n : { "a.txt", "b.TXT", "c.png", ".hidden.txt", "IMG_0001.jpg", "notes" })
        QVERIFY(writeRaw(QByteArray(path("f/") + n), {}));
    const QUrl u = Url::normalized(url("f"));
    DirLister lister;
    ListerTracker t(&lister);
    lister.setNameFilters({ "*.txt", "IMG_????.JPG" });
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(t.names(u), (QSet<QByteArray> { "a.txt", "b.TXT", "IMG_0001.jpg", "sub" }));
    lister.setShowHidden(true);
    QCOMPARE(t.names(u), (QSet<QByteArray> { "a.txt", "b.TXT", "IMG_0001.jpg", "sub", ".hidden.txt" }));
    lister.setNameFilters({});
    lister.setMimeFilters({ QStringLiteral("image/*") });
    QCOMPARE(t.names(u), (QSet<QByteArray> { "c.png", "IMG_0001.jpg", "sub" }));
    lister.setMimeFilters({});
    lister.setDirsOnly(true);
    QCOMPARE(t.names(u), (QSet<QByteArray> { "sub" }));
    // A change to a filtered-out entry says nothing; one that passes is seen.
    QVERIFY(writeRaw(path("f/later.txt"), {}));
    QVERIFY(mkdirRaw(path("f/sub2")));
    QVERIFY(waitFor([&] { return t.names(u).contains("sub2"); }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), (QSet<QByteArray> { "sub", "sub2" }));
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::oddNames()
{
    QVERIFY(mkdirRaw(path("odd")));
    const QByteArray latin1("caf\xe9"); // not UTF-8
    const QByteArray newline("two\nlines");
    QVERIFY(writeRaw(QByteArray(path("odd/") + latin1), "1"));
    const QUrl u = Url::normalized(url("odd"));
    DirLister lister;
    ListerTracker t(&lister);
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QVERIFY(t.names(u).contains(latin1));
    QVERIFY(writeRaw(QByteArray(path("odd/") + newline), "2"));
    QVERIFY(waitFor([&] { return t.names(u).contains(newline); }));
    const QByteArray renamed = newline + "\xff";
    QCOMPARE(
        ::rename(QByteArray(path("odd/") + latin1).constData(), QByteArray(path("odd/") + renamed).constData()), 0);
    QVERIFY(waitFor([&] { return t.names(u).contains(renamed); }));
    QCOMPARE(t.entry(u, renamed).name(), QByteArrayView(renamed));
    QCOMPARE(t.names(u), readdirNames(path("odd")));
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::manyFoldersOneWatcher()
{
    // 200 folders opened and closed: one watcher process, and its watches back to none.
    for (int i = 0; i < 200; ++i)
        QVERIFY(mkdirRaw(path(num("m", i))));
    DirLister lister;
    ListerTracker t(&lister);
    for (int i = 0; i < 200; ++i)
        QVERIFY(lister.open(url(num("m", i)), DirLister::Keep));
    QVERIFY(waitFor([&] { return t.completed == 200; }));
    const qint64 pid = watcherPid();
    QVERIFY(pid > 0);
    QCOMPARE(inotifyWatchCount(pid), 200);
    int watchers = 0;
    for (qint64 child : ProcUtil::childPids())
        watchers += hasInotify(child) ? 1 : 0;
    QCOMPARE(watchers, 1);
    for (int i = 0; i < 150; ++i)
        lister.close(url(num("m", i)));
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 50; }));
    lister.closeAll();
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 0; }));
}

void DirListerTest::watchesLeaveThePoolAlone()
{
    // 30 watched folders take one watcher process, none of the pool's 5 file workers:
    // 10 listings at once still run 5 at a time on the pool, and all finish.
    DirLister lister;
    ListerTracker t(&lister);
    for (int i = 0; i < 30; ++i) {
        QVERIFY(mkdirRaw(path(num("w", i))));
        QVERIFY(lister.open(url(num("w", i)), DirLister::Keep));
    }
    QVERIFY(waitFor([&] { return t.completed == 30; }));
    QList<ListJob *> jobs;
    int done = 0;
    for (int i = 0; i < 10; ++i) {
        ListJob *job = Qvfs::listDir(url(num("w", i)));
        connect(job, &Job::result, this, [&done] { ++done; });
        jobs.append(job);
    }
    int most = 0;
    QVERIFY(waitFor([&] {
        most = qMax(most, int(ProcUtil::childPids().size()));
        return done == 10;
    }));
    QVERIFY2(most <= 1 + 5, qPrintable(QString::number(most))); // the watcher + the pool's limit
    int watchers = 0;
    for (qint64 child : ProcUtil::childPids())
        watchers += hasInotify(child) ? 1 : 0;
    QCOMPARE(watchers, 1);
}

void DirListerTest::pollingWorkerSendsDifferences()
{
    // test:// cannot watch; asked to poll, its worker lists every 100 ms and sends what differs.
    const QByteArray root = path("fsroot");
    QVERIFY(mkdirRaw(root));
    QVERIFY(mkdirRaw(root + "/p"));
    for (int i = 0; i < 20; ++i)
        QVERIFY(writeRaw(QByteArray(root + "/p/q" + QByteArray::number(i)), {}));
    WorkerEnv env("QVFS_TEST_FS_ROOT", root);
    const QUrl u(QStringLiteral("test:///fs/p"));
    DirLister lister;
    lister.setPollInterval(100);
    ListerTracker t(&lister);
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(lister.watchMode(u), WatchMode::Polling);
    QCOMPARE(t.names(u).size(), 20);
    QVERIFY(writeRaw(root + "/p/new", "abc"));
    QCOMPARE(::unlink(QByteArray(root + "/p/q3").constData()), 0);
    QVERIFY(waitFor([&] { return t.names(u).contains("new") && !t.names(u).contains("q3"); }));
    QVERIFY(waitQuiet(t, 400));
    // Only the differences: one addition, one removal, never the 19 unchanged again.
    QCOMPARE(t.added, 21);
    QCOMPARE(t.removed, 1);
    QCOMPARE(t.changed, 0);
    QCOMPARE(t.names(u), readdirNames(root + "/p"));
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::ownChangesWithoutListing()
{
    // A worker that cannot watch, and no polling: the application's own 1,000 copies in
    // and 500 deletes keep the lister true with no listing beyond the first.
    const QByteArray root = path("fsroot");
    QVERIFY(mkdirRaw(root));
    QVERIFY(mkdirRaw(root + "/dst"));
    QVERIFY(mkdirRaw(path("src")));
    QList<QUrl> sources;
    for (int i = 0; i < 1000; ++i) {
        QVERIFY(writeRaw(path(num("src/c", i)), "data"));
        sources.append(url(num("src/c", i)));
    }
    WorkerEnv env("QVFS_TEST_FS_ROOT", root);
    const QUrl u(QStringLiteral("test:///fs/dst"));
    DirLister lister;
    ListerTracker t(&lister);
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(lister.watchMode(u), WatchMode::None);
    const auto listings = [&] { return readRaw(root + ".listings").count('\n'); };
    QCOMPARE(listings(), 1);
    auto copy = run(Qvfs::copy(sources, u));
    QCOMPARE(copy->error(), 0);
    QVERIFY(waitFor([&] { return t.names(u).size() == 1000; }));
    QList<QUrl> doomed;
    for (int i = 0; i < 500; ++i)
        doomed.append(QUrl(QStringLiteral("test:///fs/dst/c%1").arg(i * 2)));
    auto del = run(Qvfs::del(doomed));
    QCOMPARE(del->error(), 0);
    QVERIFY(waitFor([&] { return t.names(u).size() == 500; }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), readdirNames(root + "/dst"));
    QCOMPARE(t.entry(u, "c1").size(), 4); // the worker's fresh entry, not a guess
    QCOMPARE(listings(), 1); // none beyond the first
    QVERIFY(t.errors.isEmpty());
}

void DirListerTest::freeSpace()
{
    // A status bar's question: the figures of the folder's filesystem, once per
    // question however often it was asked meanwhile; -1 with the error where the
    // protocol has none.
    QVERIFY(mkdirRaw(path("space")));
    DirLister lister;
    const QUrl u = Url::normalized(url("space"));
    QVERIFY(lister.open(u));
    QSignalSpy spy(&lister, &DirLister::freeSpace);
    lister.requestFreeSpace(u);
    lister.requestFreeSpace(u);
    QVERIFY(spy.wait(10000));
    QTest::qWait(200);
    QCOMPARE(spy.count(), 1);
    const QList<QVariant> answer = spy.takeFirst();
    QCOMPARE(answer.at(0).toUrl(), u);
    struct statvfs st;
    QCOMPARE(::statvfs(path("space").constData(), &st), 0);
    const qint64 unit = qint64(st.f_frsize ? st.f_frsize : st.f_bsize);
    QCOMPARE(answer.at(1).toLongLong(), qint64(st.f_blocks) * unit);
    QVERIFY(answer.at(2).toLongLong() >= answer.at(3).toLongLong());
    QVERIFY(answer.at(3).toLongLong() >= 0);
    QCOMPARE(answer.at(4).toInt(), 0);

    // test:// does not declare "freeSpace".
    const QUrl synthetic(QStringLiteral("test:///fs"));
    lister.requestFreeSpace(synthetic);
    QVERIFY(spy.wait(10000));
    const QList<QVariant> none = spy.takeFirst();
    QCOMPARE(none.at(0).toUrl(), Url::normalized(synthetic));
    QCOMPARE(none.at(1).toLongLong(), qint64(-1));
    QCOMPARE(none.at(3).toLongLong(), qint64(-1));
    QCOMPARE(none.at(4).toInt(), int(ErrUnsupportedAction));
}

void DirListerTest::failedEndsWithFailed()
{
    // A folder that cannot be listed ends with failed(), never followed by completed().
    QVERIFY(mkdirRaw(path("fine")));
    QVERIFY(writeRaw(path("fine/x"), "x"));
    const QUrl missing = Url::normalized(url("missing")), fine = Url::normalized(url("fine"));
    DirLister lister;
    QStringList order;
    connect(&lister, &DirLister::completed, this, [&] { order.append(QStringLiteral("completed")); });
    connect(&lister, &DirLister::listingCompleted, this,
        [&](const QUrl &u) { order.append(QStringLiteral("listed ") + u.fileName()); });
    connect(&lister, &DirLister::failed, this,
        [&](const QUrl &u, int error) { order.append(QStringLiteral("failed %1 %2").arg(u.fileName()).arg(error)); });
    QVERIFY(lister.open(missing));
    QVERIFY(waitFor([&] { return !order.isEmpty(); }));
    QTest::qWait(300);
    QCOMPARE(order, QStringList { QStringLiteral("failed missing %1").arg(int(ErrDoesNotExist)) });

    // Opened again (by another lister, from what the cache knows): the same. (The folder is
    // listed again for both: the first lister hears of it failing again, too.)
    QStringList secondOrder;
    DirLister second;
    connect(&second, &DirLister::completed, this, [&] { secondOrder.append(QStringLiteral("completed")); });
    connect(&second, &DirLister::failed, this,
        [&](const QUrl &u) { secondOrder.append(QStringLiteral("failed ") + u.fileName()); });
    QVERIFY(second.open(missing));
    QVERIFY(waitFor([&] { return !secondOrder.isEmpty(); }));
    QTest::qWait(300);
    QCOMPARE(secondOrder, QStringList { QStringLiteral("failed missing") });
    QVERIFY(!order.contains(QStringLiteral("completed")));

    // Beside a folder that lists: each ends with its own signal, completed() with the one listed.
    lister.closeAll();
    second.closeAll();
    order.clear();
    DirLister both;
    connect(&both, &DirLister::completed, this, [&] { order.append(QStringLiteral("completed")); });
    connect(&both, &DirLister::listingCompleted, this,
        [&](const QUrl &u) { order.append(QStringLiteral("listed ") + u.fileName()); });
    connect(&both, &DirLister::failed, this,
        [&](const QUrl &u) { order.append(QStringLiteral("failed ") + u.fileName()); });
    QVERIFY(both.open(fine, DirLister::Keep));
    QVERIFY(waitFor([&] { return order.contains(QStringLiteral("completed")); }));
    QVERIFY(both.open(missing, DirLister::Keep));
    QVERIFY(waitFor([&] { return order.contains(QStringLiteral("failed missing")); }));
    QTest::qWait(300);
    QCOMPARE(order,
        (QStringList { QStringLiteral("listed fine"), QStringLiteral("completed"), QStringLiteral("failed missing") }));
}

void DirListerTest::reopenDeliversAgain()
{
    // open() of a folder the lister holds: what it holds comes again (after cleared()),
    // then listingCompleted() and completed(), as for a first open; nothing from inside open().
    QVERIFY(mkdirRaw(path("ro")));
    for (int i = 0; i < 20; ++i)
        QVERIFY(writeRaw(path(num("ro/e", i)), {}));
    const QUrl u = Url::normalized(url("ro"));
    DirLister lister;
    ListerTracker t(&lister);
    QSignalSpy completed(&lister, &DirLister::completed);
    QSignalSpy cleared(&lister, &DirLister::cleared);
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return completed.size() == 1; }));
    QCOMPARE(t.names(u), readdirNames(path("ro")));
    int expect = 1;
    for (const DirLister::OpenFlags flags :
        { DirLister::OpenFlags(DirLister::NoFlags), DirLister::OpenFlags(DirLister::Keep),
            DirLister::OpenFlags(DirLister::Reload), DirLister::OpenFlags(DirLister::Keep | DirLister::Reload) }) {
        const int added = t.added;
        QVERIFY(lister.open(u, flags));
        QCOMPARE(t.added, added); // nothing from inside open()
        QCOMPARE(completed.size(), expect);
        ++expect;
        QVERIFY2(waitFor([&] { return completed.size() == expect; }), qPrintable(QString::number(int(flags))));
        QCOMPARE(cleared.size(), expect - 1);
        QCOMPARE(cleared.last().at(0).toUrl(), u);
        QCOMPARE(t.added, added + 20); // the entries again
        QCOMPARE(t.names(u), readdirNames(path("ro")));
    }
    // Changes still follow, once.
    QVERIFY(writeRaw(path("ro/late"), {}));
    QVERIFY(waitFor([&] { return t.names(u).contains("late"); }));
    QVERIFY(waitQuiet(t));
    QCOMPARE(t.names(u), readdirNames(path("ro")));
    QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));

    // A second lister opening the folder gets it all too.
    DirLister second;
    ListerTracker t2(&second);
    QSignalSpy completed2(&second, &DirLister::completed);
    QVERIFY(second.open(u));
    QVERIFY(waitFor([&] { return completed2.size() == 1; }));
    QCOMPARE(t2.names(u), readdirNames(path("ro")));
    // ...also from the cache, when nobody holds it.
    lister.closeAll();
    second.closeAll();
    DirLister third;
    ListerTracker t3(&third);
    QSignalSpy completed3(&third, &DirLister::completed);
    QVERIFY(third.open(u));
    QVERIFY(waitFor([&] { return completed3.size() == 1; }));
    QCOMPARE(t3.names(u), readdirNames(path("ro")));
    QVERIFY(t2.errors.isEmpty() && t3.errors.isEmpty());
}

QTEST_GUILESS_MAIN(DirListerTest)
#include "dirlistertest.moc"
