// SPDX-License-Identifier: LGPL-2.1-or-later
// How the file worker walks trees (issue 16, findings 5 and 9): folder by folder through
// descriptors, never entering a folder swapped for a symlink meanwhile, skipping (and
// counting) a branch it cannot or should not enter without ending the walk, and deeper
// than any open-file limit: `rm -r`, `du` and `ls -R` of a 5,000-deep tree with the
// worker under `prlimit --nofile=64:64`. Through the real worker and the public jobs API;
// swaps happen while strace holds the worker's system call (workerhold.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "unprivilegedworkers.h"
#include "workerenv.h"
#include "workerhold.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/MetaData>
#include <Qvfs/Url>

#include <QProcess>
#include <QSet>
#include <QTest>

#include <climits>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

// A chain of \a depth folders "d" under \a top (made here), with the file "f" (\a content)
// at the bottom; built through descriptors, as no path reaches that deep.
bool makeChain(const QByteArray &top, int depth, QByteArrayView content)
{
    if (::mkdir(top.constData(), 0755) != 0)
        return false;
    int fd = ::open(top.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; fd >= 0 && i < depth; ++i) {
        const int next = ::mkdirat(fd, "d", 0755) == 0 ? ::openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        ::close(fd);
        fd = next;
    }
    if (fd < 0)
        return false;
    const int f = ::openat(fd, "f", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ::close(fd);
    const bool ok = f >= 0 && ::write(f, content.data(), size_t(content.size())) == content.size();
    return f >= 0 && ::close(f) == 0 && ok;
}

// The names a listing gave, and how many folders it says it skipped.
struct Names
{
    int error = -1;
    QSet<QByteArray> names;
    qint64 skipped = 0;
};

Names listAll(ListJob *job)
{
    Names l;
    QObject::connect(job, &ListJob::entries, job, [&l](ListJob *, const EntryList &list) {
        for (const Entry &e : list)
            l.names.insert(e.name().toByteArray());
    });
    const auto owner = run(job);
    l.error = job->error();
    l.skipped = job->metaData().number("skipped-folders");
    return l;
}

} // namespace

class FileWalkTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void listingNeverEntersSwappedFolder();
    void removeNeverFollowsSwappedFolder();
    void branchSkippedOthersListed_data();
    void branchSkippedOthersListed();
    void deepTreeWithFewDescriptors_data();
    void deepTreeWithFewDescriptors();

private:
    QByteArray path(const char *rel) const { return m_fixture.path(rel); }
    QUrl url(const char *rel) const { return m_fixture.url(rel); }
    // On /dev/shm: deep trees are made and removed in memory, not on a busy disk.
    QByteArray mem(const char *rel) const { return join(m_mem, rel); }
    QUrl memUrl(const char *rel) const { return fileUrl(mem(rel)); }

    JobFixture m_fixture;
    QByteArray m_mem;
};

void FileWalkTest::init()
{
    m_fixture.init(); // mode 0755: the unprivileged worker may enter
    m_mem = m_fixture.makeShm();
    QVERIFY(!m_mem.isEmpty());
}

void FileWalkTest::cleanup()
{
    // Deeper than a path reaches: rm -r walks it by descriptors.
    for (const char *deep : { "deep", "tree/deep" }) {
        if (existsRaw(path(deep)))
            QCOMPARE(
                QProcess::execute(QStringLiteral("rm"), { QStringLiteral("-rf"), QFile::decodeName(path(deep)) }), 0);
    }
    m_fixture.cleanup();
}

// ---------------------------------------------------------------- swaps

void FileWalkTest::listingNeverEntersSwappedFolder()
{
    // `ls -R` of a tree whose folder a/ is swapped for a link to another tree right after
    // the worker entered it, while it is about to enter a/b: what is listed under a/b is
    // the real folder's content or nothing, never the other tree's.
    QVERIFY2(WorkerHold::haveStrace(), "strace is needed (scripts/setup.sh --test)");
    const QByteArray tree = path("tree");
    const QByteArray a = path("tree/a");
    const QByteArray moved = path("tree/a.moved");
    const QByteArray outside = path("outside");
    QVERIFY(mkdirRaw(tree, 0755) && mkdirRaw(a, 0755));
    QVERIFY(mkdirRaw(path("tree/a/b"), 0755));
    QVERIFY(writeRaw(path("tree/a/b/c.txt"), "c"));
    QVERIFY(mkdirRaw(outside, 0755) && mkdirRaw(path("outside/b"), 0755));
    QVERIFY(writeRaw(path("outside/b/secret.txt"), "s"));

    for (int delayUs = 500000;; delayUs *= 2) {
        Names l;
        bool inTime = false;
        {
            // Every open of something in tree/ or tree/a is held; the one of b (from a) counts.
            WorkerEnv prefix("QVFS_WORKER_PREFIX", WorkerHold::prefix("openat", delayUs, "1+", { tree, a }));
            ListJob *job = Qvfs::listRecursive(url("tree"), DetailBasic);
            job->setAutoDelete(false);
            std::unique_ptr<ListJob> owner(job);
            QSet<QByteArray> names;
            connect(job, &ListJob::entries, job, [&names](ListJob *, const EntryList &list) {
                for (const Entry &e : list)
                    names.insert(e.name().toByteArray());
            });
            const WorkerHold::Held held = WorkerHold::wait({ SYS_openat }, { "b", "a/b" });
            QVERIFY2(held.isValid(), "the worker never opened a/b");
            QVERIFY(
                ::rename(a.constData(), moved.constData()) == 0 && ::symlink(outside.constData(), a.constData()) == 0);
            inTime = WorkerHold::stillHeld(held);
            runToResult(job);
            l.error = job->error();
            l.names = names;
        }
        if (!inTime) {
            QVERIFY2(delayUs < 8000000, "the swap never came while the call was held");
            QVERIFY(::unlink(a.constData()) == 0 && ::rename(moved.constData(), a.constData()) == 0);
            continue;
        }
        QCOMPARE(l.error, 0);
        QVERIFY(l.names.contains("a/b"));
        QVERIFY2(!l.names.contains("a/b/secret.txt"), "listed through the swapped-in link");
        break;
    }
}

void FileWalkTest::removeNeverFollowsSwappedFolder()
{
    // `rm -r` of a tree whose folder a/ is swapped for a link to another tree just before
    // the worker enters it: the link goes, the other tree stays.
    QVERIFY2(WorkerHold::haveStrace(), "strace is needed (scripts/setup.sh --test)");
    const QByteArray t = path("t");
    const QByteArray a = path("t/a");
    const QByteArray moved = path("t/a.moved");
    const QByteArray outside = path("outside");
    QVERIFY(mkdirRaw(t, 0755) && mkdirRaw(a, 0755));
    QVERIFY(mkdirRaw(path("t/a/b"), 0755));
    QVERIFY(writeRaw(path("t/a/b/x.txt"), "x"));
    QVERIFY(mkdirRaw(outside, 0755) && mkdirRaw(path("outside/b"), 0755));
    QVERIFY(writeRaw(path("outside/b/keep.txt"), "keep"));

    for (int delayUs = 500000;; delayUs *= 2) {
        int error = -1;
        bool inTime = false;
        {
            WorkerEnv prefix("QVFS_WORKER_PREFIX", WorkerHold::prefix("openat", delayUs, "1+", { t }));
            DeleteJob *job = Qvfs::del(url("t"));
            job->setAutoDelete(false);
            std::unique_ptr<DeleteJob> owner(job);
            const WorkerHold::Held held = WorkerHold::wait({ SYS_openat }, { "a" });
            QVERIFY2(held.isValid(), "the worker never opened t/a");
            QVERIFY(
                ::rename(a.constData(), moved.constData()) == 0 && ::symlink(outside.constData(), a.constData()) == 0);
            inTime = WorkerHold::stillHeld(held);
            runToResult(job);
            error = job->error();
        }
        QVERIFY(existsRaw(path("outside/b/keep.txt")));
        if (!inTime && existsRaw(t)) {
            QVERIFY2(delayUs < 8000000, "the swap never came while the call was held");
            QVERIFY(::unlink(a.constData()) == 0 && ::rename(moved.constData(), a.constData()) == 0);
            continue;
        }
        QVERIFY2(inTime, "the swap never came while the call was held");
        QCOMPARE(error, 0);
        QVERIFY(!existsRaw(t));
        break;
    }
}

// ---------------------------------------------------------------- skipped branches

void FileWalkTest::branchSkippedOthersListed_data()
{
    QTest::addColumn<QByteArray>("branch");
    QTest::newRow("deeper than PATH_MAX") << QByteArray("deep");
    QTest::newRow("unreadable folder") << QByteArray("closed");
}

void FileWalkTest::branchSkippedOthersListed()
{
    // One branch the worker cannot (or should not) enter is listed, skipped and counted;
    // its 50 siblings are listed as if it were not there.
    QFETCH(QByteArray, branch);
    QVERIFY(mkdirRaw(mem("tree"), 0755));
    for (int i = 0; i < 50; ++i) {
        const QByteArray sibling = mem("tree/s") + QByteArray::number(i);
        QVERIFY(mkdirRaw(sibling, 0755));
        QVERIFY(writeRaw(join(sibling, "file"), "x"));
    }
    std::unique_ptr<WorkerEnv> prefix;
    if (branch == "deep") {
        // 2,100 levels of "d/": 4,200 bytes of path below the tree.
        QVERIFY(makeChain(mem("tree/deep"), 2100, "bottom"));
    } else {
        QVERIFY(mkdirRaw(mem("tree/closed")));
        QVERIFY(writeRaw(mem("tree/closed/hidden.txt"), "h"));
        // Closed to the workers: root's 0700 for a worker run as nobody, else 0000.
        QVERIFY(::chmod(mem("tree/closed").constData(), UnprivilegedWorkers::dropsPrivileges() ? 0700 : 0) == 0);
        prefix = std::make_unique<UnprivilegedWorkers>();
    }
    const Names l = listAll(Qvfs::listRecursive(memUrl("tree"), DetailBasic));
    QCOMPARE(l.error, 0);
    for (int i = 0; i < 50; ++i)
        QVERIFY(l.names.contains("s" + QByteArray::number(i) + "/file"));
    QVERIFY(l.names.contains(branch));
    QCOMPARE(l.skipped, qint64(1));
    const qsizetype rootSize = mem("tree").size();
    qsizetype longest = 0;
    for (const QByteArray &name : l.names) {
        QVERIFY(!name.endsWith("hidden.txt"));
        longest = qMax(longest, name.size());
    }
    // Every listed entry can be named by a path.
    QVERIFY2(rootSize + 1 + longest < PATH_MAX, QByteArray::number(longest).constData());
    if (branch == "deep")
        QVERIFY(longest > PATH_MAX / 2); // and the branch was listed as deep as that allows
}

// ---------------------------------------------------------------- deep trees

void FileWalkTest::deepTreeWithFewDescriptors_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::newRow("recursive listing") << QByteArray("list");
    QTest::newRow("directory size") << QByteArray("size");
    QTest::newRow("delete") << QByteArray("delete");
}

void FileWalkTest::deepTreeWithFewDescriptors()
{
    // 5,000 levels with 64 descriptors allowed (soft and hard): no walk may hold one per level.
    QFETCH(QByteArray, operation);
    constexpr int Depth = 5000;
    QVERIFY(makeChain(mem("deep"), Depth, "0123456789"));
    WorkerEnv prefix("QVFS_WORKER_PREFIX", "prlimit --nofile=64:64");
    if (operation == "list") {
        const Names l = listAll(Qvfs::listRecursive(memUrl("deep"), DetailBasic));
        QCOMPARE(l.error, 0);
        // Entered as deep as a path can name, then one branch skipped (and counted).
        QCOMPARE(l.skipped, qint64(1));
        QVERIFY(l.names.size() > 1000);
        QVERIFY(l.names.contains("d/d/d"));
    } else if (operation == "size") {
        DirectorySizeJob *job = Qvfs::directorySize(memUrl("deep"));
        job->setAutoDelete(false);
        std::unique_ptr<DirectorySizeJob> owner(job);
        runToResult(job);
        QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
        QCOMPARE(job->totalDirectories(), qint64(Depth));
        QCOMPARE(job->totalFiles(), qint64(1));
        QCOMPARE(job->totalBytes(), qint64(10));
    } else {
        DeleteJob *job = Qvfs::del(memUrl("deep"));
        job->setAutoDelete(false);
        std::unique_ptr<DeleteJob> owner(job);
        runToResult(job);
        QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
        QCOMPARE(job->removedCount(), qint64(Depth + 2)); // the folders, the top one, the file
        QVERIFY(!existsRaw(mem("deep")));
    }
}

QTEST_GUILESS_MAIN(FileWalkTest)

#include "filewalktest.moc"
