// SPDX-License-Identifier: LGPL-2.1-or-later
// The fault matrix: list, stat, copy (one file, a tree), move and delete through the real
// file:// worker while things go wrong — the worker SIGKILLed or SIGSTOPped past its
// deadline mid-job, the job killed at random points, the destination full or read-only,
// the source deleted, truncated or growing during a copy, 200 concurrent jobs, and the
// application itself dying mid-copy (the faultapp helper).
//
// Every row checks: the right error within a bounded time; sources intact (content
// compared with what was written); every destination complete and byte-identical,
// absent, or (trees) a set of complete files; no temporary or hidden file left in a
// destination folder (listed with opendir); no file descriptor leaked by the
// application; no worker process left after shutdownIdleWorkers().
//
// How the faults are made:
// - "mid-job" for copies and moves means after the first processed bytes were reported:
//   the worker is SIGSTOPped at once (so a fast copy cannot finish meanwhile), checked to
//   be mid-copy (processed < total), then SIGKILLed or left stopped past the deadline.
// - list, stat and delete of a 2,000-file tree end in a few milliseconds, before any
//   progress: there the idle worker is prestarted and SIGSTOPped, the job is started (its
//   command sits unread in the socket), then the worker is SIGKILLed or left stopped.
// - Disk full: as root a 2 MiB tmpfs mounted by the test (ErrDiskFull); in every run
//   also RLIMIT_FSIZE through QVFS_WORKER_PREFIX="prlimit --fsize=1048576"
//   (ErrFileTooLarge), which works without privileges.
// - Read-only destination: as root a tmpfs remounted read-only (ErrReadOnlyFilesystem);
//   in every run also a 0555 folder with the worker run unprivileged (as root: as nobody
//   through QVFS_WORKER_PREFIX="setpriv --reuid=65534 ...", testutil's
//   UnprivilegedWorkers) (ErrAccessDenied).
// - Moves go to another filesystem (a tmpfs mounted by the test as root, else /dev/shm),
//   so that they copy instead of renaming.
// - The job killed at random points (kill(Quietly) / kill(EmitResult) after 0..50 ms,
//   fixed seeds) runs on a ready worker; jobKilledBeforeWorkerStarts kills a job whose
//   command has not been read yet by its worker (stopped, or still starting), and
//   listingAfterKilledListing checks the connection's key sets survive a killed listing.
// - A worker that dies while idle (workerKilled "idle worker" rows) must not fail the
//   next job: that job never reached it.
// Mounts are made with mount(2) and removed with umount2(MNT_DETACH) (`umount -l`) in
// cleanup(), also after a failure. The test makes itself a child subreaper so that the
// worker of the killed faultapp becomes its child and can be reaped.

#include "fixturedir.h"
#include "procutil.h"
#include "rawfs.h"
#include "tmpfsmount.h"
#include "unprivilegedworkers.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QPointer>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace Qvfs;
using namespace QvfsTest;
using ProcUtil::childPids;
using ProcUtil::openFdCount;
using ProcUtil::procStat;

namespace
{

constexpr qint64 BigSize = 192 * MiB; // copied in 16 MiB chunks: progress comes mid-copy
constexpr int TreeDirs = 20;
constexpr int TreeFilesPerDir = 100; // 2,000 files
constexpr int TreeFileSize = 4096;
constexpr qint64 BoundMs = 10000; // every job must end within this
constexpr int DeadlineMs = 1500; // QVFS_WORKER_TIMEOUT_MS
constexpr int MaxInstances = 5; // qvfs-worker-file.json

enum Op { List, Stat, CopyFile, CopyTree, MoveFile, MoveTree, Delete, CopyOver };
// How a worker fault is made (workerKilled, workerStopped).
enum When {
    Auto, // mid-copy after the first progress, else stopped before the command arrives
    Idle, // SIGKILL an idle worker, then start the job before the event loop runs (exec())
    IdleAsync, // ... the job starts from the event loop, as usual
    JobKilledQuietly, // stop the worker mid-copy, then kill(Quietly) the job
    JobKilledEmit, // ... kill(EmitResult)
};

const char *opName(int op)
{
    static const char *const names[]
        = { "list", "stat", "copy file", "copy tree", "move file", "move tree", "delete", "copy over existing" };
    return names[op];
}

// ---------------------------------------------------------------- fixtures of the matrix
// (the raw filesystem helpers are testutil/rawfs.h)

bool writeAll(int fd, const char *p, qint64 left)
{
    while (left > 0) {
        const ssize_t n = ::write(fd, p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += n;
        left -= n;
    }
    return true;
}

// A 64-bit hash of \a size bytes (the files compared here are up to 257 MiB: a
// multiply-xor over 8-byte words keeps that to tens of milliseconds).
quint64 hashBytes(const uchar *p, qint64 size)
{
    quint64 h = 0x9E3779B97F4A7C15ULL ^ quint64(size);
    qint64 i = 0;
    for (; i + 8 <= size; i += 8) {
        quint64 w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001B3ULL;
        h ^= h >> 29;
    }
    for (; i < size; ++i)
        h = (h ^ p[i]) * 0x100000001B3ULL;
    return h;
}

// Hash of the file's content; 0 with *ok false if it cannot be read.
quint64 hashFile(const QByteArray &path, qint64 *size = nullptr)
{
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return 0;
    }
    if (size)
        *size = st.st_size;
    quint64 h;
    if (st.st_size == 0) {
        h = hashBytes(nullptr, 0);
    } else {
        void *m = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            ::close(fd);
            return 0;
        }
        h = hashBytes(static_cast<const uchar *>(m), st.st_size);
        ::munmap(m, size_t(st.st_size));
    }
    ::close(fd);
    return h;
}

// Writes \a size bytes that never repeat (word i is a mix of i): a shifted or partial
// copy cannot pass for the real one. Returns its hash, 0 on failure.
quint64 makeBigFile(const QByteArray &path, qint64 size)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    QByteArray buf(int(MiB), Qt::Uninitialized);
    quint64 word = 0;
    for (qint64 done = 0; done < size; done += MiB) {
        auto *w = reinterpret_cast<quint64 *>(buf.data());
        for (qsizetype i = 0; i < buf.size() / 8; ++i, ++word) {
            quint64 z = word + 0x9E3779B97F4A7C15ULL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            w[i] = z ^ (z >> 31);
        }
        if (!writeAll(fd, buf.constData(), qMin<qint64>(MiB, size - done))) {
            ::close(fd);
            return 0;
        }
    }
    ::close(fd);
    return hashFile(path);
}

// Copies a fixture file in the kernel (copy_file_range), for sources a row may change.
bool copyRaw(const QByteArray &from, const QByteArray &to)
{
    const int in = ::open(from.constData(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return false;
    const int out = ::open(to.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        ::close(in);
        return false;
    }
    bool ok = true;
    for (;;) {
        const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, size_t(64 * MiB), 0);
        if (n == 0)
            break;
        if (n < 0) {
            ok = false;
            break;
        }
    }
    ::close(in);
    return ::close(out) == 0 && ok;
}

// The 2,000-file tree: relative path -> content.
using TreeContent = QHash<QByteArray, QByteArray>;

TreeContent treeContent()
{
    TreeContent files;
    for (int d = 0; d < TreeDirs; ++d) {
        for (int f = 0; f < TreeFilesPerDir; ++f) {
            const QByteArray rel = QByteArray("d") + QByteArray::number(d) + QByteArray("/f") + QByteArray::number(f);
            QByteArray content(TreeFileSize, Qt::Uninitialized);
            for (int i = 0; i < TreeFileSize; ++i)
                content[i] = char((d * 131 + f * 31 + i * 7 + (i >> 8)) & 0xff);
            content.replace(0, rel.size(), rel); // every file differs from its first bytes
            files.insert(rel, content);
        }
    }
    return files;
}

bool writeTree(const QByteArray &root, const TreeContent &files)
{
    if (::mkdir(root.constData(), 0700) != 0 || ::chmod(root.constData(), 0755) != 0)
        return false;
    for (int d = 0; d < TreeDirs; ++d) {
        const QByteArray dir = join(root, QByteArray("d") + QByteArray::number(d));
        if (::mkdir(dir.constData(), 0700) != 0 || ::chmod(dir.constData(), 0755) != 0)
            return false;
    }
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        if (!writeRaw(join(root, it.key()), it.value()))
            return false;
    }
    return true;
}

// A name the library might have left behind: hidden (".x.qvfs-XXXXXX.part") or ".part".
bool isTemporaryName(const QByteArray &name)
{
    return name.startsWith('.') || name.endsWith(".part") || name.contains("qvfs");
}

struct TreeCheck
{
    int files = 0; // complete, identical files found
    QStringList problems;
};

constexpr mode_t TreeDirMode = 0755;

// Walks \a root (a copy of the tree, or the tree itself) and compares every file with
// \a expected. Every file present must be complete and identical; with \a full every
// expected file must be present.
void checkTree(const QByteArray &root, const QByteArray &rel, const TreeContent &expected, TreeCheck *out)
{
    for (const QByteArray &name : namesIn(root)) {
        const QByteArray path = join(root, name);
        const QByteArray r = rel.isEmpty() ? name : QByteArray(rel + '/' + name);
        if (isTemporaryName(name)) {
            out->problems.append(QStringLiteral("temporary left: ") + QString::fromLocal8Bit(path));
            continue;
        }
        struct stat st;
        if (::lstat(path.constData(), &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            // a folder of a copy gets the source folder's mode (a killed copy must not leave
            // the owner-only mode it is made with)
            if ((st.st_mode & 07777) != TreeDirMode)
                out->problems.append(QStringLiteral("folder mode %1: %2")
                                         .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'))
                                         .arg(QString::fromLocal8Bit(path)));
            checkTree(path, r, expected, out);
            continue;
        }
        const auto it = expected.constFind(r);
        if (it == expected.constEnd()) {
            out->problems.append(QStringLiteral("unexpected: ") + QString::fromLocal8Bit(path));
            continue;
        }
        bool ok = false;
        const QByteArray content = readRaw(path, &ok);
        if (!ok || content != it.value()) {
            out->problems.append(QStringLiteral("partial or different: %1 (%2 of %3 bytes)")
                                     .arg(QString::fromLocal8Bit(path))
                                     .arg(content.size())
                                     .arg(it.value().size()));
            continue;
        }
        ++out->files;
    }
}

// The copy of the tree at \a root (if any): its own mode, then everything in it.
void checkCopiedTree(const QByteArray &root, const TreeContent &expected, TreeCheck *out)
{
    struct stat st;
    if (::lstat(root.constData(), &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode) || (st.st_mode & 07777) != TreeDirMode)
        out->problems.append(QStringLiteral("folder mode %1: %2")
                                 .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'))
                                 .arg(QString::fromLocal8Bit(root)));
    checkTree(root, QByteArray(), expected, out);
}

// Temporary or hidden names anywhere below \a root.
QStringList temporariesBelow(const QByteArray &root)
{
    QStringList found;
    for (const QByteArray &name : namesIn(root)) {
        const QByteArray path = join(root, name);
        if (isTemporaryName(name))
            found.append(QString::fromLocal8Bit(path));
        struct stat st;
        if (::lstat(path.constData(), &st) == 0 && S_ISDIR(st.st_mode))
            found += temporariesBelow(path);
    }
    return found;
}

// ---------------------------------------------------------------- process helpers

char procState(qint64 pid)
{
    const QList<QByteArray> f = procStat(pid);
    return f.isEmpty() || f.at(0).isEmpty() ? 0 : f.at(0).at(0);
}

QString describeChildren()
{
    QStringList out;
    for (qint64 pid : childPids()) {
        bool ok = false;
        const QByteArray cmd = readRaw(QByteArray("/proc/") + QByteArray::number(pid) + QByteArray("/cmdline"), &ok);
        out.append(QStringLiteral("%1 [%2] %3")
                       .arg(pid)
                       .arg(QLatin1Char(procState(pid)))
                       .arg(QString::fromLocal8Bit(QByteArray(cmd).replace('\0', ' '))));
    }
    return out.join(QStringLiteral("; "));
}

bool waitForState(qint64 pid, char state, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (procState(pid) == state)
            return true;
        ::usleep(1000);
    }
    return false;
}

} // namespace

class FaultTest : public QObject
{
    Q_OBJECT
public:
    FaultTest()
        : m_treeFiles(treeContent())
    { }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void workerKilled_data();
    void workerKilled();
    void workerStopped_data();
    void workerStopped();
    void jobKilled_data();
    void jobKilled();
    void jobKilledBeforeWorkerStarts_data();
    void jobKilledBeforeWorkerStarts();
    void listingAfterKilledListing();
    void destinationFull_data();
    void destinationFull();
    void destinationReadOnly_data();
    void destinationReadOnly();
    void sourceChanges_data();
    void sourceChanges();
    void concurrentJobs_data();
    void concurrentJobs();
    void shutdownWhileBusy_data();
    void shutdownWhileBusy();
    void applicationDies_data();
    void applicationDies();

private:
    // One row's fixture: what the job works on and where its output goes.
    struct Fixture
    {
        int op = List;
        QByteArray src;
        QByteArray dstDir; // empty for list, stat, delete
        bool copyOfBig = false; // src is a private copy of the big file (may change)
    };
    // What a run saw.
    struct Run
    {
        QPointer<Job> job;
        int results = 0;
        int error = -1;
        qint64 ms = -1;
        qint64 entries = 0;
        qint64 statSize = -1;
        QElapsedTimer clock;
    };

    bool prepare(int op, Fixture *fx);
    Job *startJob(const Fixture &fx, Run *run);
    void waitForResult(Run *run, qint64 boundMs = BoundMs);
    void verifyOutcome(const Fixture &fx, const Run &run);
    void runWorkerFault(bool sigkill);
    QByteArray mountTmpfs(const QByteArray &where, const char *options);
    bool noWorkersLeft();

    FixtureDir m_tmp; // 0755: the rows run as nobody read sources here
    QByteArray m_root;
    QByteArray m_big;
    quint64 m_bigHash = 0;
    QByteArray m_oldContent; // an existing destination that CopyOver replaces
    QByteArray m_tree;
    const TreeContent m_treeFiles;
    QByteArray m_other; // a folder on another filesystem (moves copy there)
    std::unique_ptr<TmpfsMount> m_otherMount; // the tmpfs behind it, when root
    std::unique_ptr<FixtureDir> m_shm; // else a folder in /dev/shm
    bool m_root_user = false;
    std::vector<std::unique_ptr<TmpfsMount>> m_mounts; // per-row mounts, unmounted in cleanup()
    std::unique_ptr<UnprivilegedWorkers> m_unprivileged; // a row's workers run as nobody
    QList<qint64> m_signalled; // worker pids this row stopped or killed
    QByteArray m_work;
    QObject *m_ctx = nullptr; // context of the row's connections: gone before cleanup() runs anything
    int m_row = 0;
    int m_fds = 0;
};

// A row's tmpfs on \a where, unmounted in cleanup(); its path, empty on failure.
QByteArray FaultTest::mountTmpfs(const QByteArray &where, const char *options)
{
    auto m = std::make_unique<TmpfsMount>(where, options, MS_NOSUID | MS_NODEV);
    if (!m->mounted()) {
        qWarning("%s", m->errorString().constData());
        return QByteArray();
    }
    m_mounts.push_back(std::move(m));
    return where;
}

void FaultTest::initTestCase()
{
    // Before the first job: the pool reads these when it makes a worker.
    qputenv("QVFS_WORKER_TIMEOUT_MS", QByteArray::number(DeadlineMs));
    qputenv("QVFS_WORKER_KILL_MS", "1000");
    qunsetenv("QVFS_WORKER_PREFIX");
    m_root_user = ::geteuid() == 0;
    // Orphaned workers (of the killed faultapp) become our children: we can reap them.
    QVERIFY(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);

    QVERIFY2(m_tmp.isValid(), m_tmp.errorString().constData());
    m_root = m_tmp.path();
    m_big = join(m_root, "big.bin");
    QElapsedTimer t;
    t.start();
    m_bigHash = makeBigFile(m_big, BigSize);
    QVERIFY(m_bigHash != 0);
    m_tree = join(m_root, "tree");
    QVERIFY(writeTree(m_tree, m_treeFiles));
    m_oldContent = QByteArray(64 * 1024, 'o');

    // Another filesystem for moves.
    if (m_root_user) {
        m_otherMount = std::make_unique<TmpfsMount>(join(m_root, "other"), "size=1g,mode=0755", MS_NOSUID | MS_NODEV);
        if (m_otherMount->mounted())
            m_other = m_otherMount->path();
        else
            qWarning("%s", m_otherMount->errorString().constData());
    }
    if (m_other.isEmpty()) {
        m_shm = std::make_unique<FixtureDir>("/dev/shm");
        if (m_shm->isValid())
            m_other = m_shm->path();
    }
    struct stat a, b;
    if (!m_other.isEmpty()
        && (::stat(m_other.constData(), &b) != 0 || ::stat(m_root.constData(), &a) != 0 || a.st_dev == b.st_dev))
        m_other.clear();
    qInfo("fixtures (%lld MiB file, %d-file tree) in %lld ms; running as %s; moves go to %s", BigSize / MiB,
        TreeDirs * TreeFilesPerDir, t.elapsed(), m_root_user ? "root" : "a user",
        m_other.isEmpty() ? "(no other filesystem)" : m_other.constData());

    // Warm up: whatever QProcess and the library make once (the pool, notifiers) is made now.
    {
        QProcess p;
        p.start(QStringLiteral("/bin/true"), {});
        QVERIFY(p.waitForFinished(5000));
    }
    StatJob *job = Qvfs::stat(fileUrl(m_big));
    job->setAutoDelete(false);
    QVERIFY(job->exec());
    delete job;
    shutdownIdleWorkers();
}

void FaultTest::cleanupTestCase()
{
    shutdownIdleWorkers();
    m_otherMount.reset();
    m_shm.reset();
}

void FaultTest::init()
{
    m_work = join(m_root, QByteArray("row-") + QByteArray::number(++m_row));
    QVERIFY(::mkdir(m_work.constData(), 0755) == 0);
    m_signalled.clear();
    m_ctx = new QObject(this);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QTRY_VERIFY2_WITH_TIMEOUT(childPids().isEmpty(), qPrintable(describeChildren()), 3000);
    m_fds = openFdCount();
}

bool FaultTest::noWorkersLeft()
{
    return childPids().isEmpty();
}

void FaultTest::cleanup()
{
    // Jobs of a failed row may still run: nothing may call into its stack any more.
    delete m_ctx;
    m_ctx = nullptr;
    m_unprivileged.reset();
    qunsetenv("QVFS_WORKER_PREFIX");
    // A worker the row stopped may still be held by the pool: let it run again.
    for (qint64 pid : std::as_const(m_signalled)) {
        if (procState(pid) == 'T')
            ::kill(pid_t(pid), SIGCONT);
    }
    // Mounts first, so that a failure below cannot leave one behind.
    m_mounts.clear();

    // The application carries on: the next job works (on a replaced worker if need be).
    {
        StatJob *job = Qvfs::stat(fileUrl(m_big), DetailBasic);
        job->setAutoDelete(false);
        const bool ok = job->exec();
        const QString err = job->errorString();
        const qint64 size = job->statResult().size();
        delete job;
        QVERIFY2(ok, qPrintable(err));
        QCOMPARE(size, BigSize);
    }

    // No worker left after shutdownIdleWorkers() (deferred deletes and kill
    // acknowledgements get a moment first).
    QTest::qWait(50);
    shutdownIdleWorkers();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    bool clean = false;
    for (int i = 0; i < 300 && !(clean = noWorkersLeft()); ++i)
        QTest::qWait(10);
    const QString left = describeChildren();
    if (!clean) {
        // Do not let the next rows inherit it.
        for (qint64 pid : childPids()) {
            ::kill(pid_t(pid), SIGKILL);
            ::waitpid(pid_t(pid), nullptr, 0);
        }
        shutdownIdleWorkers();
    }
    removeTreeRaw(m_work);
    if (!m_other.isEmpty())
        removeTreeRaw(join(m_other, QByteArray("row-") + QByteArray::number(m_row)));
    QVERIFY2(clean, qPrintable(QStringLiteral("workers left after shutdownIdleWorkers(): ") + left));

    // No descriptor leaked by the application (closing may take a turn of the event loop).
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QTRY_COMPARE_WITH_TIMEOUT(openFdCount(), m_fds, 3000);
}

// ---------------------------------------------------------------- fixtures and runs

bool FaultTest::prepare(int op, Fixture *fx)
{
    fx->op = op;
    switch (op) {
    case List:
        fx->src = m_tree;
        return true;
    case Stat:
        fx->src = m_big;
        return true;
    case CopyFile:
        fx->src = m_big;
        fx->dstDir = join(m_work, "dst");
        return ::mkdir(fx->dstDir.constData(), 0755) == 0;
    case CopyOver:
        fx->src = m_big;
        fx->dstDir = join(m_work, "dst");
        return ::mkdir(fx->dstDir.constData(), 0755) == 0 && writeRaw(join(fx->dstDir, "big.bin"), m_oldContent);
    case CopyTree:
        fx->src = m_tree;
        fx->dstDir = join(m_work, "dst");
        return ::mkdir(fx->dstDir.constData(), 0755) == 0;
    case MoveFile:
    case MoveTree:
        if (m_other.isEmpty())
            return false;
        fx->dstDir = join(m_other, QByteArray("row-") + QByteArray::number(m_row));
        if (::mkdir(fx->dstDir.constData(), 0755) != 0)
            return false;
        if (op == MoveFile) {
            // A hard link of the big file: moving it away unlinks only this name.
            fx->src = join(m_work, "big.bin");
            return ::link(m_big.constData(), fx->src.constData()) == 0;
        }
        fx->src = join(m_work, "tree");
        return writeTree(fx->src, m_treeFiles);
    case Delete:
        fx->src = join(m_work, "tree");
        return writeTree(fx->src, m_treeFiles);
    }
    return false;
}

Job *FaultTest::startJob(const Fixture &fx, Run *run)
{
    Job *job = nullptr;
    switch (fx.op) {
    case List: {
        ListJob *l = listRecursive(fileUrl(fx.src), DetailsFull);
        connect(l, &ListJob::entries, m_ctx, [run](ListJob *, const EntryList &list) { run->entries += list.size(); });
        job = l;
        break;
    }
    case Stat: {
        StatJob *s = Qvfs::stat(fileUrl(fx.src), DetailsFull);
        connect(s, &Job::result, m_ctx, [run](Job *j) {
            if (!j->error())
                run->statSize = static_cast<StatJob *>(j)->statResult().size();
        });
        job = s;
        break;
    }
    case CopyFile:
    case CopyTree:
        job = Qvfs::copy(fileUrl(fx.src), fileUrl(fx.dstDir));
        break;
    case CopyOver: {
        CopyJob *c = Qvfs::copy(fileUrl(fx.src), fileUrl(fx.dstDir));
        c->setConflictPolicy(ConflictPolicy::Overwrite);
        job = c;
        break;
    }
    case MoveFile:
    case MoveTree:
        job = Qvfs::move(fileUrl(fx.src), fileUrl(fx.dstDir));
        break;
    case Delete:
        job = Qvfs::del(fileUrl(fx.src));
        break;
    }
    run->job = job;
    run->clock.start();
    connect(job, &Job::result, m_ctx, [run](Job *j) {
        ++run->results;
        run->error = j->error();
        run->ms = run->clock.elapsed();
    });
    return job;
}

void FaultTest::waitForResult(Run *run, qint64 boundMs)
{
    QTRY_VERIFY_WITH_TIMEOUT(run->results > 0, int(boundMs));
    QVERIFY2(run->ms < boundMs, qPrintable(QStringLiteral("took %1 ms").arg(run->ms)));
    // Auto-deleted after result(): nothing of the job stays.
    QTRY_VERIFY_WITH_TIMEOUT(run->job.isNull(), 1000);
    QCOMPARE(run->results, 1);
}

// Sources intact, destinations complete or absent, no temporaries — as fits the outcome.
void FaultTest::verifyOutcome(const Fixture &fx, const Run &run)
{
    const bool ok = run.error == 0;
    const QByteArray name = fx.src.mid(fx.src.lastIndexOf('/') + 1);
    const int treeFiles = TreeDirs * TreeFilesPerDir;
    switch (fx.op) {
    case List: {
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY2(src.problems.isEmpty(), qPrintable(src.problems.join(QLatin1Char('\n'))));
        QCOMPARE(src.files, treeFiles);
        if (ok)
            QCOMPARE(run.entries, qint64(treeFiles + TreeDirs));
        return;
    }
    case Stat:
        if (ok)
            QCOMPARE(run.statSize, BigSize);
        QCOMPARE(hashFile(fx.src), m_bigHash);
        return;
    case CopyFile:
    case MoveFile: {
        const bool move = fx.op == MoveFile;
        const QList<QByteArray> names = namesIn(fx.dstDir);
        QStringList temps = temporariesBelow(fx.dstDir);
        QVERIFY2(temps.isEmpty(), qPrintable(temps.join(QLatin1Char(' '))));
        // The destination: complete and identical, or absent (required on failure unless
        // the copy had already been committed when the fault hit).
        if (names.isEmpty()) {
            QVERIFY2(!ok, "the job succeeded but the destination is missing");
        } else {
            QCOMPARE(names, QList<QByteArray> { name });
            qint64 size = -1;
            const quint64 h = hashFile(join(fx.dstDir, name), &size);
            QVERIFY2(h == m_bigHash,
                qPrintable(QStringLiteral("destination partial: %1 of %2 bytes").arg(size).arg(BigSize)));
        }
        // The source: intact, or (a move that succeeded) gone.
        if (move && ok) {
            QVERIFY(!existsRaw(fx.src));
        } else if (move && !existsRaw(fx.src)) {
            // the fault came after the move was done: it must be complete
            QVERIFY2(!names.isEmpty(), "the move failed, the source is gone and so is the destination");
        } else {
            QVERIFY2(existsRaw(fx.src), "the source is gone");
            QCOMPARE(hashFile(fx.src), m_bigHash);
        }
        QCOMPARE(hashFile(m_big), m_bigHash);
        return;
    }
    case CopyOver: {
        // The existing destination: replaced by a complete copy, or exactly as before.
        QStringList temps = temporariesBelow(fx.dstDir);
        QVERIFY2(temps.isEmpty(), qPrintable(temps.join(QLatin1Char(' '))));
        QCOMPARE(namesIn(fx.dstDir), QList<QByteArray> { name });
        qint64 size = -1;
        const quint64 h = hashFile(join(fx.dstDir, name), &size);
        if (ok) {
            QVERIFY2(h == m_bigHash, qPrintable(QStringLiteral("destination partial: %1 bytes").arg(size)));
        } else if (h != m_bigHash) {
            bool read = false;
            QVERIFY2(readRaw(join(fx.dstDir, name), &read) == m_oldContent,
                qPrintable(QStringLiteral("the existing destination was changed: %1 bytes").arg(size)));
        }
        QCOMPARE(hashFile(m_big), m_bigHash);
        return;
    }
    case CopyTree: {
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY2(src.problems.isEmpty(), qPrintable(src.problems.join(QLatin1Char('\n'))));
        QCOMPARE(src.files, treeFiles);
        TreeCheck dst;
        const QList<QByteArray> names = namesIn(fx.dstDir);
        QVERIFY2(names.isEmpty() || names == QList<QByteArray> { name }, names.join(' ').constData());
        checkCopiedTree(join(fx.dstDir, name), m_treeFiles, &dst);
        QVERIFY2(dst.problems.isEmpty(), qPrintable(dst.problems.join(QLatin1Char('\n'))));
        if (ok)
            QCOMPARE(dst.files, treeFiles);
        return;
    }
    case MoveTree: {
        // Every file in the source or the destination, complete; none lost, none partial.
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY2(src.problems.isEmpty(), qPrintable(src.problems.join(QLatin1Char('\n'))));
        TreeCheck dst;
        const QList<QByteArray> names = namesIn(fx.dstDir);
        QVERIFY2(names.isEmpty() || names == QList<QByteArray> { name }, names.join(' ').constData());
        checkCopiedTree(join(fx.dstDir, name), m_treeFiles, &dst);
        QVERIFY2(dst.problems.isEmpty(), qPrintable(dst.problems.join(QLatin1Char('\n'))));
        if (ok) {
            QVERIFY(!existsRaw(fx.src));
            QCOMPARE(dst.files, treeFiles);
        } else {
            // sources go only after everything was copied
            QVERIFY2(src.files == treeFiles || dst.files == treeFiles,
                qPrintable(QStringLiteral("files lost: %1 in the source, %2 copied").arg(src.files).arg(dst.files)));
        }
        return;
    }
    case Delete: {
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY2(src.problems.isEmpty(), qPrintable(src.problems.join(QLatin1Char('\n'))));
        if (ok)
            QVERIFY(!existsRaw(fx.src));
        return;
    }
    }
}

// ---------------------------------------------------------------- worker SIGKILL / SIGSTOP

void FaultTest::workerKilled_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("when");
    QTest::addColumn<int>("error");
    for (int op : { List, Stat, CopyFile, CopyOver, CopyTree, MoveFile, MoveTree, Delete })
        QTest::newRow(opName(op)) << op << int(Auto) << int(ErrWorkerDied);
    // A worker that died while idle never saw the command: the job must not fail for it
    // (it is handed to a fresh worker), even before the event loop noticed the death.
    QTest::newRow("idle worker, then stat") << int(Stat) << int(Idle) << 0;
    QTest::newRow("idle worker, then list") << int(List) << int(Idle) << 0;
    QTest::newRow("idle worker, then copy file") << int(CopyFile) << int(Idle) << 0;
    QTest::newRow("idle worker, then stat from the event loop") << int(Stat) << int(IdleAsync) << 0;
}

void FaultTest::workerKilled()
{
    runWorkerFault(true);
}

void FaultTest::workerStopped_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("when");
    QTest::addColumn<int>("error");
    for (int op : { List, Stat, CopyFile, CopyOver, CopyTree, MoveFile, MoveTree, Delete })
        QTest::newRow(opName(op)) << op << int(Auto) << int(ErrTimedOut);
    // The job killed while its worker is stopped: it ends at once; the worker, which cannot
    // acknowledge, is SIGKILLed after QVFS_WORKER_KILL_MS.
    QTest::newRow("copy file, job killed quietly") << int(CopyFile) << int(JobKilledQuietly) << int(ErrCancelled);
    QTest::newRow("copy file, job killed with result") << int(CopyFile) << int(JobKilledEmit) << int(ErrCancelled);
}

void FaultTest::workerStopped()
{
    runWorkerFault(false);
}

void FaultTest::runWorkerFault(bool sigkill)
{
    QFETCH(int, op);
    QFETCH(int, when);
    QFETCH(int, error);
    Fixture fx;
    if ((op == MoveFile || op == MoveTree) && m_other.isEmpty())
        QSKIP("no second filesystem for a copying move");
    QVERIFY(prepare(op, &fx));
    Run run;
    const bool midCopy = op == CopyFile || op == CopyOver || op == CopyTree || op == MoveFile || op == MoveTree;
    qint64 pid = 0;
    bool hit = false;
    QString problem;
    if (when == Idle || when == IdleAsync) {
        // An idle worker dies; the next job is submitted before the event loop has run.
        prestartWorker(fileUrl(fx.src));
        QTRY_COMPARE_WITH_TIMEOUT(childPids().size(), 1, 3000);
        pid = childPids().constFirst();
        QTest::qWait(100); // its hello is read: an ordinary idle worker
        QVERIFY(::kill(pid_t(pid), SIGKILL) == 0);
        m_signalled.append(pid);
        QVERIFY(waitForState(pid, 'Z', 2000)); // dead, not yet reaped by the pool
        Job *job = startJob(fx, &run);
        if (when == Idle) {
            job->setAutoDelete(false);
            job->exec(); // starts at once, with the death still unread
            job->deleteLater();
        }
        hit = true;
    } else if (!midCopy) {
        // Too quick for progress: the worker is stopped before the command reaches it.
        prestartWorker(fileUrl(fx.src));
        QTRY_COMPARE_WITH_TIMEOUT(childPids().size(), 1, 3000);
        pid = childPids().constFirst();
        QVERIFY(::kill(pid_t(pid), SIGSTOP) == 0);
        m_signalled.append(pid);
        QVERIFY(waitForState(pid, 'T', 2000));
        startJob(fx, &run);
        QTest::qWait(100); // the command is sent and sits in the socket
        QCOMPARE(run.results, 0);
        if (sigkill)
            QVERIFY(::kill(pid_t(pid), SIGKILL) == 0);
        hit = true;
    } else {
        Job *job = startJob(fx, &run);
        connect(job, &Job::processedAmountChanged, m_ctx, [&](Job *j, Job::Unit unit, qint64 amount) {
            if (hit || unit != Job::Bytes || amount <= 0)
                return;
            hit = true;
            const QList<qint64> pids = childPids();
            if (pids.size() != 1) {
                problem = QStringLiteral("expected one worker: ") + describeChildren();
                return;
            }
            pid = pids.constFirst();
            ::kill(pid_t(pid), SIGSTOP);
            m_signalled.append(pid);
            if (!waitForState(pid, 'T', 2000))
                problem = QStringLiteral("the worker did not stop");
            if (j->processedAmount(Job::Bytes) >= j->totalAmount(Job::Bytes))
                problem = QStringLiteral("the copy was over before the fault; make the data bigger");
            if (sigkill)
                ::kill(pid_t(pid), SIGKILL);
        });
    }
    if (when == JobKilledQuietly || when == JobKilledEmit) {
        QTRY_VERIFY_WITH_TIMEOUT(hit, int(BoundMs));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(run.job);
        QElapsedTimer k;
        k.start();
        QVERIFY(run.job->kill(when == JobKilledEmit ? Job::EmitResult : Job::Quietly));
        if (when == JobKilledEmit) {
            waitForResult(&run);
            QCOMPARE(run.error, error);
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(run.job.isNull(), 1000);
            QCOMPARE(run.results, 0);
            run.error = ErrCancelled;
        }
        // Without shutdownIdleWorkers(): the pool ends the worker that cannot acknowledge.
        QTRY_VERIFY_WITH_TIMEOUT(procState(pid) == 0, 5000);
        qInfo("the stopped worker was ended %lld ms after the kill", k.elapsed());
        QVERIFY(k.elapsed() < 1000 + 1500);
        verifyOutcome(fx, run);
        return;
    }
    waitForResult(&run);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(hit);
    QVERIFY2(run.error == error,
        qPrintable(QStringLiteral("error %1 (%2), expected %3")
                       .arg(run.error)
                       .arg(QString::fromLatin1(errorName(run.error)))
                       .arg(QString::fromLatin1(errorName(error)))));
    if (!sigkill) {
        // The deadline measures silence: not before it, not much after.
        QVERIFY2(run.ms >= DeadlineMs - 100, qPrintable(QString::number(run.ms)));
        QVERIFY2(run.ms < DeadlineMs + 3000, qPrintable(QString::number(run.ms)));
    }
    // The worker is gone (the pool killed and reaped a stopped one).
    QTRY_VERIFY_WITH_TIMEOUT(procState(pid) == 0, 3000);
    verifyOutcome(fx, run);
}

// ---------------------------------------------------------------- the job killed at random

void FaultTest::jobKilled_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<bool>("emitResult");
    QTest::addColumn<quint32>("seed");
    // Fixed seeds: each row kills after the same 0..50 ms every run.
    quint32 seed = 20240601;
    for (int op : { List, Stat, CopyFile, CopyOver, CopyTree, MoveFile, MoveTree, Delete }) {
        for (bool emitResult : { false, true }) {
            const QByteArray name
                = QByteArray(opName(op)) + (emitResult ? QByteArray(", EmitResult") : QByteArray(", Quietly"));
            QTest::newRow(name.constData()) << op << emitResult << seed++;
        }
    }
}

void FaultTest::jobKilled()
{
    QFETCH(int, op);
    QFETCH(bool, emitResult);
    QFETCH(quint32, seed);
    if ((op == MoveFile || op == MoveTree) && m_other.isEmpty())
        QSKIP("no second filesystem for a copying move");
    Fixture fx;
    QVERIFY(prepare(op, &fx));
    QRandomGenerator rng(seed);
    const int delay = int(rng.bounded(51));
    // A ready worker: the kill points fall in the job's work, not in the worker's start-up
    // (jobKilledBeforeWorkerStarts has that case).
    prestartWorker(fileUrl(fx.src));
    QTest::qWait(30);
    Run run;
    Job *job = startJob(fx, &run);
    bool killed = false;
    bool killReturned = false;
    QTimer::singleShot(delay, m_ctx, [&] {
        killed = true;
        if (run.job)
            killReturned = run.job->kill(emitResult ? Job::EmitResult : Job::Quietly);
    });
    Q_UNUSED(job)
    QTRY_VERIFY_WITH_TIMEOUT(killed, 1000);
    if (killReturned && !emitResult) {
        // Quietly: no result, ever; the job deletes itself.
        QTRY_VERIFY_WITH_TIMEOUT(run.job.isNull(), 1000);
        QTest::qWait(100);
        QCOMPARE(run.results, 0);
        run.error = ErrCancelled;
    } else {
        waitForResult(&run);
        if (killReturned)
            QCOMPARE(run.error, int(ErrCancelled));
        else
            QCOMPARE(run.error, 0); // it had finished before the kill
    }
    qInfo("killed after %d ms: %s", delay, killReturned ? "while running" : "after it ended");
    // Let the worker acknowledge (or be killed after QVFS_WORKER_KILL_MS) before looking.
    QTest::qWait(50);
    verifyOutcome(fx, run);
}

// The job is killed while its command waits, unread, in the worker's socket (a worker
// slow to get to it: here stopped). The worker then reads the command and the kill
// together: it must not run the command — the application already reported the job
// killed, and a delete or a copy going on behind its back is data loss or a ghost file.
void FaultTest::jobKilledBeforeWorkerStarts_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<bool>("emitResult");
    QTest::addColumn<bool>("stopped"); // else: killed while the new worker is still starting
    QTest::newRow("delete, EmitResult") << int(Delete) << true << true;
    QTest::newRow("copy file, EmitResult") << int(CopyFile) << true << true;
    QTest::newRow("copy over existing, Quietly") << int(CopyOver) << false << true;
    QTest::newRow("move tree, EmitResult") << int(MoveTree) << true << true;
    // No signal at all: a job killed within the few milliseconds its new worker takes to
    // start (exec, libraries, hello) — a user's quick "Cancel".
    QTest::newRow("delete during worker start-up, Quietly") << int(Delete) << false << false;
}

void FaultTest::jobKilledBeforeWorkerStarts()
{
    QFETCH(int, op);
    QFETCH(bool, emitResult);
    QFETCH(bool, stopped);
    if ((op == MoveFile || op == MoveTree) && m_other.isEmpty())
        QSKIP("no second filesystem for a copying move");
    Fixture fx;
    QVERIFY(prepare(op, &fx));
    Run run;
    qint64 pid = 0;
    if (stopped) {
        prestartWorker(fileUrl(fx.src));
        QTRY_COMPARE_WITH_TIMEOUT(childPids().size(), 1, 3000);
        pid = childPids().constFirst();
        QTest::qWait(50); // hello read
        QVERIFY(::kill(pid_t(pid), SIGSTOP) == 0);
        m_signalled.append(pid);
        QVERIFY(waitForState(pid, 'T', 2000));
        startJob(fx, &run);
        QTest::qWait(50); // the command is in the socket
    } else {
        QVERIFY(childPids().isEmpty());
        startJob(fx, &run);
        // The pool spawns the worker and sends the command in one go: once the process
        // exists, the command is in its socket.
        QElapsedTimer t;
        t.start();
        while (childPids().isEmpty() && t.elapsed() < 3000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        QCOMPARE(childPids().size(), 1);
        pid = childPids().constFirst();
    }
    QVERIFY(run.job);
    QVERIFY(run.job->kill(emitResult ? Job::EmitResult : Job::Quietly));
    if (emitResult) {
        waitForResult(&run);
        QCOMPARE(run.error, int(ErrCancelled));
    } else {
        QTRY_VERIFY_WITH_TIMEOUT(run.job.isNull(), 1000);
        run.error = ErrCancelled;
    }
    if (stopped)
        QVERIFY(::kill(pid_t(pid), SIGCONT) == 0);
    QTest::qWait(300); // whatever the worker does now, it does within this
    verifyOutcome(fx, run);
    // A worker still starting up may already have begun the command when the kill
    // arrives (a slow machine, a sanitizer build): then the kill stops it part-way, as
    // any kill does. Only with the worker stopped are command and kill surely both
    // waiting in its socket when it reads them.
    if (!stopped)
        return;
    // ... and it did nothing: the killed job's command never ran.
    switch (op) {
    case Delete: {
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY2(src.files == TreeDirs * TreeFilesPerDir,
            qPrintable(
                QStringLiteral("the killed delete removed %1 files").arg(TreeDirs * TreeFilesPerDir - src.files)));
        break;
    }
    case CopyFile:
        QVERIFY2(namesIn(fx.dstDir).isEmpty(), "the killed copy made its destination");
        break;
    case CopyOver: {
        bool ok = false;
        QVERIFY2(readRaw(join(fx.dstDir, "big.bin"), &ok) == m_oldContent, "the killed copy replaced its destination");
        break;
    }
    case MoveTree:
        QVERIFY2(existsRaw(fx.src) && namesIn(fx.dstDir).isEmpty(), "the killed move moved");
        break;
    }
}

// Key sets are defined once per connection. A listing killed after its first batch: the
// batches still in flight are discarded, and with them, possibly, the definition of a key
// set (a new shape of entry: a symlink, a hidden file). The next listing on that worker
// must still decode.
void FaultTest::listingAfterKilledListing()
{
    const QByteArray dir = join(m_work, "shapes");
    QVERIFY(::mkdir(dir.constData(), 0755) == 0);
    for (int i = 0; i < 3000; ++i)
        QVERIFY(writeRaw(join(dir, QByteArray("f") + QByteArray::number(i)), QByteArray()));
    // Listed after the root level (recursion): entries of new shapes.
    const QByteArray z = join(dir, "z");
    QVERIFY(::mkdir(z.constData(), 0755) == 0);
    QVERIFY(::symlink("f0", join(z, "link").constData()) == 0);
    QVERIFY(writeRaw(join(z, ".dot"), "hidden"));

    ListJob *job = listRecursive(fileUrl(dir), DetailsFull);
    QPointer<ListJob> guard(job);
    bool killed = false;
    connect(job, &ListJob::entries, m_ctx, [&](ListJob *j, const EntryList &) {
        if (killed)
            return;
        killed = true;
        // Busy application: meanwhile the worker sends the whole listing.
        ::usleep(200 * 1000);
        j->kill(Job::Quietly);
    });
    QTRY_VERIFY_WITH_TIMEOUT(killed, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(guard.isNull(), 1000);
    QTest::qWait(100); // the kill is acknowledged: the worker is idle again
    QCOMPARE(childPids().size(), 1);

    // The same worker lists entries of the shapes it defined in the discarded batches.
    {
        ListJob *next = listDir(fileUrl(z), DetailsFull);
        next->setAutoDelete(false);
        qint64 entries = 0;
        connect(
            next, &ListJob::entries, m_ctx, [&entries](ListJob *, const EntryList &list) { entries += list.size(); });
        const bool ok = next->exec();
        const QString err = next->errorString();
        delete next;
        QVERIFY2(ok, qPrintable(err));
        QCOMPARE(entries, qint64(2));
    }
}

// ---------------------------------------------------------------- disk full

void FaultTest::destinationFull_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<bool>("tmpfs"); // else RLIMIT_FSIZE through the spawn prefix
    QTest::addColumn<int>("error");
    QTest::newRow("tmpfs 2 MiB: copy file") << int(CopyFile) << true << int(ErrDiskFull);
    QTest::newRow("tmpfs 2 MiB: copy over existing") << int(CopyOver) << true << int(ErrDiskFull);
    QTest::newRow("tmpfs 2 MiB: copy tree") << int(CopyTree) << true << int(ErrDiskFull);
    QTest::newRow("tmpfs 2 MiB: move file") << int(MoveFile) << true << int(ErrDiskFull);
    QTest::newRow("tmpfs 2 MiB: move tree") << int(MoveTree) << true << int(ErrDiskFull);
    QTest::newRow("fsize 1 MiB: copy file") << int(CopyFile) << false << int(ErrFileTooLarge);
    QTest::newRow("fsize 1 MiB: copy over existing") << int(CopyOver) << false << int(ErrFileTooLarge);
    QTest::newRow("fsize 1 MiB: move file") << int(MoveFile) << false << int(ErrFileTooLarge);
}

void FaultTest::destinationFull()
{
    QFETCH(int, op);
    QFETCH(bool, tmpfs);
    QFETCH(int, error);
    if (tmpfs && !m_root_user)
        QSKIP("mounting a tmpfs needs root (the fsize rows cover this without it)");
    Fixture fx;
    if (op == MoveFile || op == MoveTree) {
        // moves come from this filesystem's twin: the test's folder
        fx.op = op;
        if (op == MoveFile) {
            fx.src = join(m_work, "big.bin");
            QVERIFY(::link(m_big.constData(), fx.src.constData()) == 0);
        } else {
            fx.src = join(m_work, "tree");
            QVERIFY(writeTree(fx.src, m_treeFiles));
        }
    } else {
        QVERIFY(prepare(op, &fx));
    }
    struct statvfs before;
    if (tmpfs) {
        const QByteArray m = mountTmpfs(join(m_work, "full"), "size=2m,mode=0755");
        QVERIFY(!m.isEmpty());
        fx.dstDir = m;
        if (op == CopyOver)
            QVERIFY(writeRaw(join(m, "big.bin"), m_oldContent));
        QVERIFY(::statvfs(m.constData(), &before) == 0);
    } else {
        if (fx.dstDir.isEmpty()) {
            fx.dstDir = join(m_work, "dst");
            QVERIFY(::mkdir(fx.dstDir.constData(), 0755) == 0);
        }
        if (op == MoveFile) {
            // across filesystems, or the move is a rename that writes nothing
            if (m_other.isEmpty())
                QSKIP("no second filesystem for a copying move");
            fx.dstDir = join(m_other, QByteArray("row-") + QByteArray::number(m_row));
            QVERIFY(::mkdir(fx.dstDir.constData(), 0755) == 0);
        }
        shutdownIdleWorkers(); // the prefix applies to workers started from now on
        qputenv("QVFS_WORKER_PREFIX", "prlimit --fsize=1048576");
    }
    Run run;
    startJob(fx, &run);
    waitForResult(&run);
    QVERIFY2(run.error == error,
        qPrintable(QStringLiteral("error %1 (%2), expected %3")
                       .arg(run.error)
                       .arg(QString::fromLatin1(errorName(run.error)))
                       .arg(QString::fromLatin1(errorName(error)))));
    verifyOutcome(fx, run);
    if (fx.op == CopyFile || fx.op == MoveFile)
        QVERIFY2(namesIn(fx.dstDir).isEmpty(), "a failed copy left its destination");
    if (tmpfs) {
        // The space of the failed file is given back (no unlinked temporary held open),
        // once the worker is gone.
        shutdownIdleWorkers();
        QTRY_VERIFY_WITH_TIMEOUT(noWorkersLeft(), 3000);
        struct statvfs after;
        QVERIFY(::statvfs(fx.dstDir.constData(), &after) == 0);
        if (op == CopyFile || op == MoveFile || op == CopyOver)
            QCOMPARE(after.f_bfree, before.f_bfree);
    }
}

// ---------------------------------------------------------------- read-only destination

void FaultTest::destinationReadOnly_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<bool>("remount"); // else a 0555 folder and the worker run as nobody
    QTest::addColumn<int>("error");
    QTest::newRow("ro tmpfs: copy file") << int(CopyFile) << true << int(ErrReadOnlyFilesystem);
    QTest::newRow("ro tmpfs: copy tree") << int(CopyTree) << true << int(ErrReadOnlyFilesystem);
    QTest::newRow("ro tmpfs: move file") << int(MoveFile) << true << int(ErrReadOnlyFilesystem);
    QTest::newRow("0555 as nobody: copy file") << int(CopyFile) << false << int(ErrAccessDenied);
    QTest::newRow("0555 as nobody: copy tree") << int(CopyTree) << false << int(ErrAccessDenied);
}

void FaultTest::destinationReadOnly()
{
    QFETCH(int, op);
    QFETCH(bool, remount);
    QFETCH(int, error);
    if (remount && !m_root_user)
        QSKIP("remounting needs root (the 0555 rows cover this without it)");
    Fixture fx;
    fx.op = op;
    fx.src = op == CopyTree ? m_tree : m_big;
    if (op == MoveFile) {
        fx.src = join(m_work, "big.bin");
        QVERIFY(::link(m_big.constData(), fx.src.constData()) == 0);
    }
    if (remount) {
        const QByteArray m = mountTmpfs(join(m_work, "ro"), "size=4m,mode=0777");
        QVERIFY(!m.isEmpty());
        QVERIFY(writeRaw(join(m, "existing"), "kept"));
        QVERIFY2(
            ::mount(nullptr, m.constData(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4m") == 0,
            strerror(errno));
        fx.dstDir = m;
    } else {
        fx.dstDir = join(m_work, "ro");
        QVERIFY(::mkdir(fx.dstDir.constData(), 0755) == 0);
        QVERIFY(writeRaw(join(fx.dstDir, "existing"), "kept"));
        QVERIFY(::chmod(fx.dstDir.constData(), 0555) == 0);
        m_unprivileged = std::make_unique<UnprivilegedWorkers>(); // until cleanup()
    }
    Run run;
    startJob(fx, &run);
    waitForResult(&run);
    QVERIFY2(run.error == error,
        qPrintable(QStringLiteral("error %1 (%2), expected %3")
                       .arg(run.error)
                       .arg(QString::fromLatin1(errorName(run.error)))
                       .arg(QString::fromLatin1(errorName(error)))));
    // The destination is exactly as before.
    QCOMPARE(namesIn(fx.dstDir), QList<QByteArray> { QByteArrayLiteral("existing") });
    bool ok = false;
    QCOMPARE(readRaw(join(fx.dstDir, "existing"), &ok), QByteArray("kept"));
    if (fx.op == CopyTree) {
        TreeCheck src;
        checkTree(fx.src, QByteArray(), m_treeFiles, &src);
        QVERIFY(src.problems.isEmpty());
        QCOMPARE(src.files, TreeDirs * TreeFilesPerDir);
    } else {
        QCOMPARE(hashFile(fx.src), m_bigHash);
    }
    ::chmod(fx.dstDir.constData(), 0755);
}

// ---------------------------------------------------------------- the source changes

void FaultTest::sourceChanges_data()
{
    QTest::addColumn<QByteArray>("change");
    QTest::addColumn<int>("error");
    // Deleted: the worker holds it open and copies what it was (like cp).
    QTest::newRow("file deleted") << QByteArray("delete") << 0;
    // Truncated below what was copied: the copy cannot be complete.
    QTest::newRow("file truncated") << QByteArray("truncate") << int(ErrSourceChanged);
    // Growing: copied up to its end when the copy gets there.
    QTest::newRow("file growing") << QByteArray("grow") << 0;
    // Tree: files deleted meanwhile are skipped, the rest is copied.
    QTest::newRow("tree files deleted") << QByteArray("tree-delete") << 0;
}

void FaultTest::sourceChanges()
{
    QFETCH(QByteArray, change);
    QFETCH(int, error);
    const bool tree = change.startsWith("tree");
    Fixture fx;
    fx.op = tree ? CopyTree : CopyFile;
    fx.dstDir = join(m_work, "dst");
    QVERIFY(::mkdir(fx.dstDir.constData(), 0755) == 0);
    if (tree) {
        fx.src = join(m_work, "tree");
        QVERIFY(writeTree(fx.src, m_treeFiles));
    } else {
        fx.src = join(m_work, "big.bin");
        QVERIFY(copyRaw(m_big, fx.src));
    }
    Run run;
    Job *job = startJob(fx, &run);
    bool changed = false;
    QString problem;
    quint64 newHash = 0;
    qint64 pid = 0;
    connect(job, &Job::processedAmountChanged, m_ctx, [&](Job *j, Job::Unit unit, qint64 amount) {
        if (changed || unit != Job::Bytes || amount <= 0)
            return;
        changed = true;
        // Hold the worker while the source changes, so the change lands mid-copy.
        const QList<qint64> pids = childPids();
        if (pids.size() != 1) {
            problem = QStringLiteral("expected one worker: ") + describeChildren();
            return;
        }
        pid = pids.constFirst();
        ::kill(pid_t(pid), SIGSTOP);
        m_signalled.append(pid);
        waitForState(pid, 'T', 2000);
        if (j->processedAmount(Job::Bytes) >= j->totalAmount(Job::Bytes))
            problem = QStringLiteral("the copy was over before the change");
        if (change == "delete") {
            ::unlink(fx.src.constData());
        } else if (change == "truncate") {
            ::truncate(fx.src.constData(), 1 * MiB);
        } else if (change == "grow") {
            const int fd = ::open(fx.src.constData(), O_WRONLY | O_APPEND | O_CLOEXEC);
            const QByteArray more(int(MiB), 'g');
            writeAll(fd, more.constData(), more.size());
            ::close(fd);
            newHash = hashFile(fx.src);
        } else if (change == "tree-delete") {
            for (int d = 0; d < TreeDirs; ++d)
                removeTreeRaw(join(fx.src, QByteArray("d") + QByteArray::number(d)));
        }
        ::kill(pid_t(pid), SIGCONT);
    });
    waitForResult(&run);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(changed);
    QVERIFY2(run.error == error,
        qPrintable(QStringLiteral("error %1 (%2), expected %3")
                       .arg(run.error)
                       .arg(QString::fromLatin1(errorName(run.error)))
                       .arg(QString::fromLatin1(errorName(error)))));
    const QStringList temps = temporariesBelow(fx.dstDir);
    QVERIFY2(temps.isEmpty(), qPrintable(temps.join(QLatin1Char(' '))));
    const QList<QByteArray> names = namesIn(fx.dstDir);
    if (change == "delete") {
        QCOMPARE(names, QList<QByteArray> { QByteArrayLiteral("big.bin") });
        QCOMPARE(hashFile(join(fx.dstDir, "big.bin")), m_bigHash);
    } else if (change == "truncate") {
        QVERIFY2(names.isEmpty(), "a partial copy of a truncated source was left");
        qint64 size = 0;
        hashFile(fx.src, &size);
        QCOMPARE(size, 1 * MiB); // the source is as the test left it
    } else if (change == "grow") {
        QCOMPARE(names, QList<QByteArray> { QByteArrayLiteral("big.bin") });
        qint64 size = 0;
        const quint64 h = hashFile(join(fx.dstDir, "big.bin"), &size);
        QVERIFY2(h == newHash,
            qPrintable(QStringLiteral("copy of %1 bytes, the source has %2").arg(size).arg(BigSize + MiB)));
    } else {
        // Whatever was copied before the deletion is complete; nothing else appeared.
        TreeCheck dst;
        checkCopiedTree(join(fx.dstDir, "tree"), m_treeFiles, &dst);
        QVERIFY2(dst.problems.isEmpty(), qPrintable(dst.problems.join(QLatin1Char('\n'))));
        QVERIFY(dst.files > 0);
        QVERIFY(dst.files < TreeDirs * TreeFilesPerDir);
    }
}

// ---------------------------------------------------------------- many jobs at once

void FaultTest::concurrentJobs_data()
{
    QTest::addColumn<QByteArray>("fault");
    QTest::newRow("no fault") << QByteArray("none");
    QTest::newRow("a worker SIGKILLed") << QByteArray("sigkill");
    QTest::newRow("a worker SIGSTOPped") << QByteArray("sigstop");
    QTest::newRow("jobs killed at random") << QByteArray("kills");
}

void FaultTest::concurrentJobs()
{
    QFETCH(QByteArray, fault);
    // Small files to stat, list and copy.
    const QByteArray small = join(m_work, "small");
    QVERIFY(::mkdir(small.constData(), 0755) == 0);
    const QByteArray dst = join(m_work, "dst");
    QVERIFY(::mkdir(dst.constData(), 0755) == 0);
    constexpr int Files = 20;
    for (int i = 0; i < Files; ++i)
        QVERIFY(writeRaw(join(small, QByteArray("s") + QByteArray::number(i)), QByteArray(100 + i, char('a' + i))));

    const int startsBefore = workerStartCount();
    int ended = 0, maxWorkers = 0;
    QHash<int, int> errors; // error code -> count
    QStringList problems;
    QTimer sampler;
    sampler.setInterval(2);
    connect(&sampler, &QTimer::timeout, m_ctx, [&] { maxWorkers = qMax(maxWorkers, int(childPids().size())); });
    sampler.start();
    QElapsedTimer t;
    t.start();
    constexpr int Jobs = 200;
    QList<QPointer<Job>> jobs;
    QSet<int> quietlyKilled;
    QRandomGenerator rng(7);
    bool faultDone = false;
    auto faultNow = [&] {
        if (faultDone || (fault != "sigkill" && fault != "sigstop"))
            return;
        faultDone = true;
        const QList<qint64> pids = childPids();
        if (pids.isEmpty())
            return;
        const qint64 pid = pids.at(int(rng.bounded(int(pids.size()))));
        m_signalled.append(pid);
        ::kill(pid_t(pid), fault == "sigkill" ? SIGKILL : SIGSTOP);
    };
    for (int i = 0; i < Jobs; ++i) {
        const int kind = i % 3;
        const QByteArray name = QByteArray("s") + QByteArray::number(i % Files);
        Job *job = nullptr;
        if (kind == 0) {
            job = Qvfs::stat(fileUrl(join(small, name)), DetailBasic);
            connect(job, &Job::result, m_ctx, [&, i](Job *j) {
                const qint64 size = static_cast<StatJob *>(j)->statResult().size();
                if (!j->error() && size != 100 + i % Files)
                    problems.append(QStringLiteral("stat %1: size %2").arg(i).arg(size));
            });
        } else if (kind == 1) {
            auto count = std::make_shared<int>(0);
            ListJob *l = listDir(fileUrl(small), DetailBasic);
            connect(
                l, &ListJob::entries, m_ctx, [count](ListJob *, const EntryList &list) { *count += int(list.size()); });
            connect(l, &Job::result, m_ctx, [&, i, count](Job *j) {
                if (!j->error() && *count != Files)
                    problems.append(QStringLiteral("list %1: %2 entries").arg(i).arg(*count));
            });
            job = l;
        } else {
            job = Qvfs::copyAs(fileUrl(join(small, name)), fileUrl(join(dst, QByteArray("c") + QByteArray::number(i))));
        }
        connect(job, &Job::result, m_ctx, [&, i](Job *j) {
            ++ended;
            if (j->error())
                ++errors[j->error()];
            const int allowed = fault == "kills" ? int(ErrCancelled)
                : fault == "sigkill"             ? int(ErrWorkerDied)
                : fault == "sigstop"             ? int(ErrTimedOut)
                                                 : 0;
            if (j->error() && j->error() != allowed)
                problems.append(QStringLiteral("job %1: %2").arg(i).arg(j->errorString()));
            maxWorkers = qMax(maxWorkers, int(childPids().size()));
            if (ended == 50)
                faultNow();
        });
        jobs.append(job);
        if (fault == "kills" && i % 5 == 0) {
            const bool quietly = i % 10 == 0;
            QTimer::singleShot(int(rng.bounded(51)), m_ctx, [&, i, quietly] {
                Job *j = jobs.at(i);
                if (j && j->kill(quietly ? Job::Quietly : Job::EmitResult) && quietly) {
                    quietlyKilled.insert(i);
                    ++ended;
                }
            });
        }
    }
    QTRY_VERIFY_WITH_TIMEOUT(ended == Jobs, int(BoundMs));
    sampler.stop();
    QStringList errorList;
    for (auto it = errors.cbegin(); it != errors.cend(); ++it)
        errorList.append(QStringLiteral("%1 x%2").arg(QString::fromLatin1(errorName(it.key()))).arg(it.value()));
    qInfo("%d concurrent jobs in %lld ms, at most %d workers, %d started; errors: %s; %d killed quietly", Jobs,
        t.elapsed(), maxWorkers, workerStartCount() - startsBefore, qPrintable(errorList.join(QStringLiteral(", "))),
        int(quietlyKilled.size()));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.mid(0, 10).join(QLatin1Char('\n'))));
    QVERIFY2(maxWorkers <= MaxInstances, qPrintable(QString::number(maxWorkers)));
    // The faulty worker fails the one job it runs; the pool replaces it.
    if (fault == "none") {
        QVERIFY(errors.isEmpty());
        QVERIFY(workerStartCount() - startsBefore <= MaxInstances);
    } else if (fault == "sigkill" || fault == "sigstop") {
        QVERIFY(faultDone);
        const int expected = fault == "sigkill" ? int(ErrWorkerDied) : int(ErrTimedOut);
        int others = 0;
        for (auto it = errors.cbegin(); it != errors.cend(); ++it)
            others += it.key() == expected ? 0 : it.value();
        QCOMPARE(others, 0);
        QVERIFY2(errors.value(expected) <= 1, qPrintable(errorList.join(QStringLiteral(", "))));
        QVERIFY(workerStartCount() - startsBefore <= MaxInstances + 1);
    } else {
        QCOMPARE(errors.size() - int(errors.contains(ErrCancelled)), 0);
    }
    // Every copy complete and identical, nothing else in the folder.
    for (const QByteArray &n : namesIn(dst)) {
        QVERIFY2(n.startsWith('c'), n.constData());
        const int i = n.mid(1).toInt();
        bool ok = false;
        QCOMPARE(readRaw(join(dst, n), &ok), QByteArray(100 + i % Files, char('a' + i % Files)));
    }
    if (fault == "none")
        QCOMPARE(namesIn(dst).size(), Jobs / 3);
}

// ---------------------------------------------------------------- shutdown while busy

void FaultTest::shutdownWhileBusy_data()
{
    QTest::addColumn<bool>("killJob");
    QTest::newRow("busy copy") << false;
    QTest::newRow("killed job, not yet acknowledged") << true;
}

void FaultTest::shutdownWhileBusy()
{
    // WorkerPool::shutdownIdle(): "Ends every idle worker now; busy ones when they finish".
    // An application that cancels its jobs and then asks for its workers to go.
    QFETCH(bool, killJob);
    const QByteArray dst = join(m_work, "dst");
    QVERIFY(::mkdir(dst.constData(), 0755) == 0);
    Run run;
    Fixture fx;
    fx.op = CopyFile;
    fx.src = m_big;
    fx.dstDir = dst;
    startJob(fx, &run);
    QTRY_VERIFY_WITH_TIMEOUT(run.job && run.job->processedAmount(Job::Bytes) > 0, 5000);
    QCOMPARE(childPids().size(), 1);
    if (killJob) {
        QVERIFY(run.job->kill(Job::Quietly));
        run.error = ErrCancelled;
    }
    shutdownIdleWorkers(); // the worker is busy
    if (!killJob) {
        waitForResult(&run);
        QCOMPARE(run.error, 0);
    }
    // Without another call, the worker that was busy is ended once its job is over.
    QTRY_VERIFY2_WITH_TIMEOUT(
        noWorkersLeft(), qPrintable(QStringLiteral("still running: ") + describeChildren()), 5000);
    verifyOutcome(fx, run);
}

// ---------------------------------------------------------------- the application dies

void FaultTest::applicationDies_data()
{
    QTest::addColumn<bool>("tree");
    QTest::newRow("big file") << false;
    QTest::newRow("tree") << true;
}

void FaultTest::applicationDies()
{
    QFETCH(bool, tree);
    const QByteArray dst = join(m_work, "dst");
    QVERIFY(::mkdir(dst.constData(), 0755) == 0);
    const QByteArray src = tree ? m_tree : m_big;
    // Without its own arguments (no QCoreApplication::arguments() detour for the bytes).
    QProcess app;
    app.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    app.start(QStringLiteral(QVFS_FAULTAPP), { QFile::decodeName(src), QFile::decodeName(dst) });
    QVERIFY2(app.waitForStarted(5000), qPrintable(app.errorString()));
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (!out.contains("started\n") && !out.contains("result ") && t.elapsed() < BoundMs) {
        if (app.waitForReadyRead(100))
            out += app.readAllStandardOutput();
        if (app.state() == QProcess::NotRunning)
            break;
    }
    out += app.readAllStandardOutput();
    QVERIFY2(out.contains("started\n"), out.constData());
    // The application dies mid-copy.
    const qint64 appPid = app.processId();
    QVERIFY(::kill(pid_t(appPid), SIGKILL) == 0);
    QVERIFY(app.waitForFinished(5000));
    QList<qint64> workers;
    for (const QByteArray &line : out.split('\n')) {
        if (line.startsWith("worker "))
            workers.append(line.mid(7).toLongLong());
    }
    QCOMPARE(workers.size(), 1);
    const qint64 worker = workers.constFirst();
    const bool wasRunning = procState(worker) != 0 && procState(worker) != 'Z';
    // Orphaned, it became our child (subreaper): it must notice and exit within seconds.
    QElapsedTimer gone;
    gone.start();
    bool exited = false;
    while (gone.elapsed() < 5000) {
        const pid_t r = ::waitpid(pid_t(worker), nullptr, WNOHANG);
        if (r == pid_t(worker) || (r < 0 && errno == ECHILD && procState(worker) == 0)) {
            exited = true;
            break;
        }
        QTest::qWait(5);
    }
    if (!exited) {
        const QString state
            = QStringLiteral("worker %1 still there: [%2]").arg(worker).arg(QLatin1Char(procState(worker)));
        ::kill(pid_t(worker), SIGKILL);
        ::waitpid(pid_t(worker), nullptr, 0);
        QFAIL(qPrintable(state));
    }
    qInfo("the worker %s when the application died, gone %lld ms later", wasRunning ? "was copying" : "had ended",
        gone.elapsed());
    // Nothing partial in the destination folder.
    const QStringList temps = temporariesBelow(dst);
    QVERIFY2(temps.isEmpty(), qPrintable(temps.join(QLatin1Char(' '))));
    if (tree) {
        TreeCheck check;
        checkCopiedTree(join(dst, "tree"), m_treeFiles, &check);
        QVERIFY2(check.problems.isEmpty(), qPrintable(check.problems.join(QLatin1Char('\n'))));
    } else {
        const QList<QByteArray> names = namesIn(dst);
        QVERIFY(names.isEmpty() || names == QList<QByteArray> { QByteArrayLiteral("big.bin") });
        if (!names.isEmpty())
            QCOMPARE(hashFile(join(dst, "big.bin")), m_bigHash);
        qInfo("destination: %s", names.isEmpty() ? "absent" : "complete");
    }
}

QTEST_GUILESS_MAIN(FaultTest)
#include "faulttest.moc"
