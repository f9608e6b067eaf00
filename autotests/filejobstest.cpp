// SPDX-License-Identifier: LGPL-2.1-or-later
// Every public job against real temporary trees through the real file:// worker (and the
// test:// worker for the generic copy path between protocols).
//
// Fixtures are made with raw system calls (never QFile/QDir for odd names: they would
// replace bytes that are not UTF-8) and URLs are built with Qvfs::Url, so every byte of a
// name is checked end to end. After every test function no worker process may be left
// running (idle ones are ended) and no temporary file of the library may remain.

#include "procutil.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/MetaData>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

using namespace Qvfs;
using ProcUtil::childPids;

namespace
{

constexpr qint64 MiB = 1024 * 1024;

// ---------------------------------------------------------------- raw filesystem helpers

QByteArray join(QByteArrayView dir, QByteArrayView name)
{
    QByteArray r = dir.toByteArray();
    if (!r.endsWith('/'))
        r += '/';
    r += name;
    return r;
}

QUrl fileUrl(const QByteArray &path)
{
    return Url::fromLocalPath(path);
}

QString encoded(const QByteArray &path)
{
    return QString::fromLatin1(fileUrl(path).toEncoded());
}

bool writeRaw(const QByteArray &path, QByteArrayView content, mode_t mode = 0644)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return false;
    const char *p = content.data();
    qsizetype left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            return false;
        }
        p += n;
        left -= n;
    }
    const bool ok = ::fchmod(fd, mode) == 0;
    return ::close(fd) == 0 && ok;
}

QByteArray readRaw(const QByteArray &path, bool *ok = nullptr)
{
    QByteArray r;
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (ok)
            *ok = false;
        return r;
    }
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        r.append(buf, n);
    ::close(fd);
    if (ok)
        *ok = n == 0;
    return r;
}

bool mkdirRaw(const QByteArray &path, mode_t mode = 0755)
{
    return ::mkdir(path.constData(), 0700) == 0 && ::chmod(path.constData(), mode) == 0;
}

bool symlinkRaw(const QByteArray &target, const QByteArray &path)
{
    return ::symlink(target.constData(), path.constData()) == 0;
}

bool existsRaw(const QByteArray &path)
{
    struct stat st;
    return ::lstat(path.constData(), &st) == 0;
}

struct stat lstatRaw(const QByteArray &path)
{
    struct stat st;
    std::memset(&st, 0, sizeof st);
    if (::lstat(path.constData(), &st) != 0)
        std::memset(&st, 0, sizeof st);
    return st;
}

QByteArray readLinkRaw(const QByteArray &path)
{
    char buf[4096];
    const ssize_t n = ::readlink(path.constData(), buf, sizeof buf);
    return n < 0 ? QByteArray() : QByteArray(buf, n);
}

bool setTimes(const QByteArray &path, qint64 sec, long nsec)
{
    struct timespec t[2];
    t[0].tv_sec = time_t(sec);
    t[0].tv_nsec = nsec;
    t[1] = t[0];
    return ::utimensat(AT_FDCWD, path.constData(), t, AT_SYMLINK_NOFOLLOW) == 0;
}

QList<QByteArray> namesIn(const QByteArray &dir)
{
    QList<QByteArray> names;
    DIR *d = ::opendir(dir.constData());
    if (!d)
        return names;
    while (dirent *e = ::readdir(d)) {
        const char *n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
            continue;
        names.append(QByteArray(n));
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

QList<QByteArray> sorted(QList<QByteArray> list)
{
    std::sort(list.begin(), list.end());
    return list;
}

// Removes a tree with raw calls (QDir would lose names that are not UTF-8), opening
// closed folders first.
void removeTreeRaw(const QByteArray &path)
{
    if (path.isEmpty())
        return;
    struct stat st;
    if (::lstat(path.constData(), &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        ::chmod(path.constData(), 0700);
        const QList<QByteArray> names = namesIn(path);
        for (const QByteArray &n : names)
            removeTreeRaw(join(path, n));
        ::rmdir(path.constData());
    } else {
        ::unlink(path.constData());
    }
}

// The library's named temporaries: ".<name>.qvfs-XXXXXX.part".
void findTemporaries(const QByteArray &dir, QList<QByteArray> *found)
{
    const QList<QByteArray> names = namesIn(dir);
    for (const QByteArray &n : names) {
        const QByteArray p = join(dir, n);
        if (n.contains(".qvfs-") && n.endsWith(".part"))
            found->append(p);
        struct stat st;
        if (::lstat(p.constData(), &st) == 0 && S_ISDIR(st.st_mode))
            findTemporaries(p, found);
    }
}

QByteArray pseudoRandom(qsizetype size, quint32 seed)
{
    QByteArray r(size, Qt::Uninitialized);
    quint32 x = seed * 2654435761u + 1;
    for (qsizetype i = 0; i < size; ++i) {
        x = x * 1664525u + 1013904223u;
        r[i] = char(x >> 24);
    }
    return r;
}

FileType typeOf(mode_t m)
{
    switch (m & S_IFMT) {
    case S_IFREG:
        return FileType::Regular;
    case S_IFDIR:
        return FileType::Directory;
    case S_IFLNK:
        return FileType::Symlink;
    case S_IFIFO:
        return FileType::Fifo;
    case S_IFCHR:
        return FileType::CharDevice;
    case S_IFBLK:
        return FileType::BlockDevice;
    case S_IFSOCK:
        return FileType::Socket;
    default:
        return FileType::Unknown;
    }
}

QByteArray userName(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? QByteArray(pw->pw_name) : QByteArray::number(uid);
}

QByteArray groupName(gid_t gid)
{
    const group *gr = ::getgrgid(gid);
    return gr ? QByteArray(gr->gr_name) : QByteArray::number(gid);
}

mode_t currentUmask()
{
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
}

// ---------------------------------------------------------------- tree snapshots

struct Node
{
    mode_t type = 0;
    mode_t mode = 0;
    qint64 size = 0;
    QByteArray content;
    QByteArray link;
    qint64 mtime = 0;
    long mtimeNs = 0;
};

void snapshotInto(const QByteArray &root, const QByteArray &rel, QMap<QByteArray, Node> *map)
{
    const QByteArray path = rel.isEmpty() ? root : join(root, rel);
    struct stat st;
    if (::lstat(path.constData(), &st) != 0)
        return;
    Node n;
    n.type = st.st_mode & S_IFMT;
    n.mode = st.st_mode & 07777;
    n.size = S_ISDIR(st.st_mode) ? 0 : qint64(st.st_size);
    n.mtime = st.st_mtim.tv_sec;
    n.mtimeNs = st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode))
        n.content = readRaw(path);
    if (S_ISLNK(st.st_mode))
        n.link = readLinkRaw(path);
    map->insert(rel, n);
    if (S_ISDIR(st.st_mode)) {
        const QList<QByteArray> names = namesIn(path);
        for (const QByteArray &c : names)
            snapshotInto(root, rel.isEmpty() ? c : join(rel, c), map);
    }
}

/*! Every node under \a root by relative path ("" is \a root itself). */
QMap<QByteArray, Node> snapshot(const QByteArray &root)
{
    QMap<QByteArray, Node> map;
    snapshotInto(root, QByteArray(), &map);
    return map;
}

QByteArray at(const QByteArray &what, const QByteArray &key)
{
    return QByteArray(what + " differs at \"" + key + "\"");
}

/*! Compares two trees; \a skipRoot leaves out the root node (a merged folder keeps its own). */
void compareTrees(
    const QMap<QByteArray, Node> &expected, const QMap<QByteArray, Node> &actual, bool skipRoot, bool times)
{
    QList<QByteArray> ek = expected.keys();
    QList<QByteArray> ak = actual.keys();
    if (skipRoot) {
        ek.removeAll(QByteArray());
        ak.removeAll(QByteArray());
    }
    QCOMPARE(ak, ek);
    for (const QByteArray &k : std::as_const(ek)) {
        const Node e = expected.value(k);
        const Node a = actual.value(k);
        QVERIFY2(a.type == e.type, at("type", k).constData());
        QVERIFY2(a.mode == e.mode,
            QByteArray(
                at("mode", k) + ": " + QByteArray::number(a.mode, 8) + " instead of " + QByteArray::number(e.mode, 8))
                .constData());
        QVERIFY2(a.size == e.size, at("size", k).constData());
        QVERIFY2(a.content == e.content, at("content", k).constData());
        QVERIFY2(a.link == e.link, at("link target", k).constData());
        if (times) {
            QVERIFY2(a.mtime == e.mtime && a.mtimeNs == e.mtimeNs,
                QByteArray(at("mtime", k) + ": " + QByteArray::number(a.mtime) + '.'
                    + QByteArray::number(qint64(a.mtimeNs)) + " instead of " + QByteArray::number(e.mtime) + '.'
                    + QByteArray::number(qint64(e.mtimeNs)))
                    .constData());
        }
    }
}

/*!
 * The standard tree for copies: files of several modes, a hidden file, nested and empty
 * folders, relative, absolute, dangling and folder symlinks, a fifo; every node with its
 * own modification time in nanoseconds.
 */
bool makeTree(const QByteArray &t)
{
    bool ok = mkdirRaw(t, 0755);
    ok = ok && writeRaw(join(t, "a.txt"), "alpha\n", 0644);
    ok = ok && writeRaw(join(t, ".dot"), "dot", 0600);
    ok = ok && mkdirRaw(join(t, "sub"), 0750);
    ok = ok && writeRaw(join(t, "sub/b.bin"), pseudoRandom(100 * 1024, 7), 0640);
    ok = ok && mkdirRaw(join(t, "sub/empty"), 0700);
    ok = ok && mkdirRaw(join(t, "sub/deep"), 0755);
    ok = ok && mkdirRaw(join(t, "sub/deep/deeper"), 0711);
    ok = ok && writeRaw(join(t, "sub/deep/deeper/c"), "c", 0444);
    ok = ok && symlinkRaw("a.txt", join(t, "link-rel"));
    ok = ok && symlinkRaw(join(t, "a.txt"), join(t, "link-abs"));
    ok = ok && symlinkRaw("does-not-exist", join(t, "link-dangling"));
    ok = ok && symlinkRaw("sub", join(t, "link-dir"));
    // The generic path (genericPathFileToFile) refuses special files, which cannot travel
    // as a stream of bytes (genericCopyRefusesFifo); the file worker recreates them.
    if (!qEnvironmentVariableIsSet("QVFS_WORKER_PATH"))
        ok = ok && ::mkfifo(join(t, "fifo").constData(), 0640) == 0 && ::chmod(join(t, "fifo").constData(), 0640) == 0;
    if (!ok)
        return false;
    // children before their parents: reverse order of the sorted relative paths
    QList<QByteArray> keys = snapshot(t).keys();
    std::reverse(keys.begin(), keys.end());
    qint64 i = 0;
    for (const QByteArray &k : std::as_const(keys)) {
        if (!setTimes(k.isEmpty() ? t : join(t, k), 1500000000 + i * 1000, long(123456789 + i)))
            return false;
        ++i;
    }
    return true;
}

// ---------------------------------------------------------------- jobs

template<typename J>
std::unique_ptr<J> run(J *job)
{
    job->setAutoDelete(false);
    job->exec();
    return std::unique_ptr<J>(job);
}

struct Listing
{
    int error = 0;
    QString errorString;
    QStringList errorArgs;
    qint64 removed = -1;
    QMap<QByteArray, Entry> entries;
    int count = 0;
};

Listing collect(ListJob *job)
{
    Listing l;
    job->setAutoDelete(false);
    QObject::connect(job, &ListJob::entries, job, [&l](ListJob *, const EntryList &list) {
        for (const Entry &e : list) {
            l.entries.insert(e.name().toByteArray(), e);
            ++l.count;
        }
    });
    job->exec();
    l.error = job->error();
    l.errorString = job->errorString();
    l.errorArgs = job->errorArgs();
    delete job;
    return l;
}

class Answerer : public AskDelegate
{
public:
    QByteArray action;
    bool applyToAll = false;
    int asked = 0;
    QList<ConflictQuestion> questions;
    void ask(Question *q) override
    {
        ++asked;
        if (q->kind() == Question::Kind::Conflict)
            questions.append(q->conflict());
        if (action.isEmpty()) {
            q->refuse();
            return;
        }
        q->answerConflict(conflictActionFromName(action), applyToAll);
    }
};

// ---------------------------------------------------------------- processes

qint64 realUidOf(qint64 pid)
{
    const QByteArray s = readRaw(QByteArray("/proc/" + QByteArray::number(pid) + "/status"));
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith("Uid:"))
            return line.mid(4).simplified().split(' ').value(0).toLongLong();
    }
    return -1;
}

/*! Ends the idle workers and waits until no child process is left (a killed request may take a moment). */
bool settleWorkers(int timeoutMs = 4000)
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        Qvfs::shutdownIdleWorkers();
        QCoreApplication::processEvents();
        if (childPids().isEmpty())
            return true;
        if (t.elapsed() > timeoutMs)
            return false;
        QTest::qWait(10);
    }
}

/*!
 * Sets an environment variable the worker pool reads when it starts a worker, for as
 * long as it lives: idle workers are ended before and after, so fresh ones start with
 * and without it.
 */
class WorkerEnv
{
public:
    WorkerEnv(const char *name, const QByteArray &value)
        : m_name(name)
    {
        Qvfs::shutdownIdleWorkers();
        if (!value.isEmpty())
            qputenv(name, value);
    }
    ~WorkerEnv()
    {
        qunsetenv(m_name);
        Qvfs::shutdownIdleWorkers();
    }
    WorkerEnv(const WorkerEnv &) = delete;
    WorkerEnv &operator=(const WorkerEnv &) = delete;

private:
    const char *m_name;
};

/*! Lowers RLIMIT_NOFILE (inherited by the workers started meanwhile). */
class FdLimit
{
public:
    explicit FdLimit(rlim_t soft)
    {
        Qvfs::shutdownIdleWorkers();
        ::getrlimit(RLIMIT_NOFILE, &m_old);
        struct rlimit l = m_old;
        l.rlim_cur = std::min(soft, m_old.rlim_max);
        ::setrlimit(RLIMIT_NOFILE, &l);
    }
    ~FdLimit()
    {
        Qvfs::shutdownIdleWorkers();
        ::setrlimit(RLIMIT_NOFILE, &m_old);
    }

private:
    struct rlimit m_old;
};

enum CopyKind { CopyInto, CopyAuto, CopyAs, MoveInto, MoveAs };

CopyJob *makeCopy(CopyKind kind, const QList<QUrl> &sources, const QUrl &dest)
{
    switch (kind) {
    case CopyInto:
    case CopyAuto:
        return Qvfs::copy(sources, dest);
    case CopyAs:
        return Qvfs::copyAs(sources.value(0), dest);
    case MoveInto:
        return Qvfs::move(sources, dest);
    case MoveAs:
        return Qvfs::moveAs(sources.value(0), dest);
    }
    return nullptr;
}

} // namespace

Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)

class FileJobsTest : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_root; // the fixture folder (0755), raw path
    QByteArray m_shm; // a fixture folder on /dev/shm, when a test made one
    QByteArray m_mount; // a tmpfs mounted by the test
    bool m_isRoot = false;
    mode_t m_umask = 022;

    QByteArray path(QByteArrayView rel) const { return join(m_root, rel); }
    QUrl url(QByteArrayView rel) const { return fileUrl(path(rel)); }
    bool makeShm()
    {
        QByteArray t("/dev/shm/filejobstest-XXXXXX");
        if (!::mkdtemp(t.data()))
            return false;
        m_shm = t;
        return ::chmod(t.constData(), 0755) == 0;
    }
    bool mountTmpfs(const QByteArray &where)
    {
        if (!mkdirRaw(where, 0755))
            return false;
        const int rc = QProcess::execute(QStringLiteral("mount"),
            { QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"), QStringLiteral("size=64m,mode=0755"),
                QStringLiteral("qvfs-filejobstest"), QFile::decodeName(where) });
        if (rc != 0)
            return false;
        m_mount = where;
        return true;
    }
    bool writeBig(const QByteArray &file, qint64 size)
    {
        const int fd = ::open(file.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            return false;
        const QByteArray chunk = pseudoRandom(MiB, 42);
        for (qint64 done = 0; done < size; done += MiB) {
            if (::write(fd, chunk.constData(), size_t(chunk.size())) != chunk.size()) {
                ::close(fd);
                return false;
            }
        }
        return ::close(fd) == 0;
    }

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void listFlat_data();
    void listFlat();
    void listRecursive_data();
    void listRecursive();
    void listErrors_data();
    void listErrors();

    void statFields_data();
    void statFields();
    void statResolveSymlink_data();
    void statResolveSymlink();
    void statMimeType_data();
    void statMimeType();
    void statMissing();

    void mkdirJob_data();
    void mkdirJob();
    void mkpathJob_data();
    void mkpathJob();
    void renameJob_data();
    void renameJob();
    void renameJobUrl();
    void symlinkJob_data();
    void symlinkJob();
    void chmodJob_data();
    void chmodJob();
    void directorySizeJob_data();
    void directorySizeJob();
    void deleteJob_data();
    void deleteJob();

    void copyFile_data();
    void copyFile();
    void copyTree_data();
    void copyTree();
    void copyConflicts_data();
    void copyConflicts();
    void copyIdentical_data();
    void copyIdentical();
    void copyCycle_data();
    void copyCycle();
    void moveSameFilesystem_data();
    void moveSameFilesystem();
    void moveAcrossFilesystems_data();
    void moveAcrossFilesystems();
    void copyProgress_data();
    void copyProgress();
    void copyKill_data();
    void copyKill();
    void userPartFileKept_data();
    void userPartFileKept();

    void transferGet_data();
    void transferGet();
    void transferGetErrors_data();
    void transferGetErrors();
    void transferPut_data();
    void transferPut();
    void transferPutExisting_data();
    void transferPutExisting();
    void transferPutKilled_data();
    void transferPutKilled();
    void transferPutOntoSymlink();
    void genericCopy_data();
    void genericCopy();
    void genericPathFileToFile_data();
    void genericPathFileToFile();

    void names_data();
    void names();
    void sparseFile();
    void accessDenied_data();
    void accessDenied();
};

void FileJobsTest::initTestCase()
{
    m_isRoot = ::geteuid() == 0;
    m_umask = currentUmask();
}

void FileJobsTest::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_tmp->setAutoRemove(false); // removed with raw calls: odd names and closed folders
    m_root = QFile::encodeName(m_tmp->path());
    // Traversable by the unprivileged worker of accessDenied().
    QCOMPARE(::chmod(m_root.constData(), 0755), 0);
}

void FileJobsTest::cleanup()
{
    const bool settled = settleWorkers();
    const QList<qint64> left = childPids();
    if (!m_mount.isEmpty()) {
        if (QProcess::execute(QStringLiteral("umount"), { QFile::decodeName(m_mount) }) != 0)
            QProcess::execute(QStringLiteral("umount"), { QStringLiteral("-l"), QFile::decodeName(m_mount) });
        m_mount.clear();
    }
    QList<QByteArray> temps;
    if (!m_root.isEmpty())
        findTemporaries(m_root, &temps);
    if (!m_shm.isEmpty())
        findTemporaries(m_shm, &temps);
    removeTreeRaw(m_root);
    removeTreeRaw(m_shm);
    m_root.clear();
    m_shm.clear();
    m_tmp.reset();
    qunsetenv("QVFS_WORKER_PREFIX");
    QVERIFY2(settled,
        QByteArray("worker processes still running after the test: " + QByteArray::number(left.size())).constData());
    QVERIFY2(temps.isEmpty(), QByteArray("temporary files left behind: " + temps.join(", ")).constData());
}

// ---------------------------------------------------------------- ListJob

void FileJobsTest::listFlat_data()
{
    QTest::addColumn<int>("details");
    QTest::newRow("names only (0)") << 0;
    QTest::newRow("basic") << int(DetailBasic);
    QTest::newRow("basic + .hidden") << int(DetailBasic | DetailHiddenFile);
    QTest::newRow("default") << int(DetailsDefault);
    QTest::newRow("full") << int(DetailsFull);
    QTest::newRow("full + all times") << int(DetailsFull | DetailAllTimes);
}

void FileJobsTest::listFlat()
{
    QFETCH(int, details);
    const Details d = Details(uint(details));
    const QByteArray dir = path("flat");
    QVERIFY(mkdirRaw(dir));
    QVERIFY(writeRaw(join(dir, "a.txt"), "hello", 0640));
    QVERIFY(writeRaw(join(dir, ".dot"), "dot", 0600));
    QVERIFY(writeRaw(join(dir, "hid"), "listed in .hidden", 0644));
    QVERIFY(writeRaw(join(dir, ".hidden"), "hid\nnot-there\n", 0644));
    QVERIFY(mkdirRaw(join(dir, "dir"), 0750));
    QVERIFY(symlinkRaw("a.txt", join(dir, "link")));
    QVERIFY(setTimes(join(dir, "a.txt"), 1234567890, 123456789));

    const Listing l = collect(Qvfs::listDir(fileUrl(dir), d));
    QCOMPARE(l.error, 0);
    const QList<QByteArray> expected { ".dot", ".hidden", "a.txt", "dir", "hid", "link" };
    QCOMPARE(l.entries.keys(), expected);
    QCOMPARE(l.count, expected.size());

    for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it) {
        const QByteArray &name = it.key();
        const Entry &e = it.value();
        const struct stat st = lstatRaw(join(dir, name));
        const QByteArray where = QByteArray("entry " + name);
        QVERIFY2(e.contains(Name), where.constData());
        if (d != 0 || e.contains(Type)) {
            QVERIFY2(e.contains(Type), where.constData());
            QVERIFY2(e.type() == typeOf(st.st_mode), where.constData());
        }
        if (d & DetailBasic) {
            QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
            QCOMPARE(e.size(), qint64(st.st_size));
            if (name == "link")
                QCOMPARE(e.bytes(LinkTarget).toByteArray(), QByteArray("a.txt"));
            else
                QVERIFY2(!e.contains(LinkTarget), where.constData());
            const bool hidden = name.startsWith('.') || ((d & DetailHiddenFile) && name == "hid");
            QVERIFY2((e.number(Hidden, 0) != 0) == hidden, where.constData());
        } else {
            QVERIFY2(!e.contains(Size), where.constData());
            QVERIFY2(!e.contains(Mode), where.constData());
            QVERIFY2(!e.contains(LinkTarget), where.constData());
        }
        if (d & DetailTime) {
            QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
            QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
        } else {
            QVERIFY2(!e.contains(MTime) && !e.contains(MTimeNs), where.constData());
        }
        if (d & DetailAllTimes) {
            QVERIFY2(e.contains(ATime) && e.contains(ATimeNs), where.constData());
            // Reading a link (for LinkTarget) or the .hidden file touches its atime.
            if (name != "link" && name != ".hidden") {
                QVERIFY2(
                    e.number(ATime) == qint64(st.st_atim.tv_sec) && e.number(ATimeNs) == qint64(st.st_atim.tv_nsec),
                    QByteArray(where + " atime " + QByteArray::number(e.number(ATime)) + '.'
                        + QByteArray::number(e.number(ATimeNs)) + " instead of "
                        + QByteArray::number(qint64(st.st_atim.tv_sec)) + '.'
                        + QByteArray::number(qint64(st.st_atim.tv_nsec)))
                        .constData());
            }
        } else {
            QVERIFY2(!e.contains(ATime) && !e.contains(BTime), where.constData());
        }
        if (d & DetailUser) {
            QCOMPARE(e.number(Uid), qint64(st.st_uid));
            QCOMPARE(e.number(Gid), qint64(st.st_gid));
            QCOMPARE(e.bytes(User).toByteArray(), userName(st.st_uid));
            QCOMPARE(e.bytes(Group).toByteArray(), groupName(st.st_gid));
        } else {
            QVERIFY2(
                !e.contains(Uid) && !e.contains(Gid) && !e.contains(User) && !e.contains(Group), where.constData());
        }
        if (d & DetailInode) {
            QCOMPARE(e.number(Inode), qint64(st.st_ino));
            QCOMPARE(e.number(Device), qint64(st.st_dev));
            QCOMPARE(e.number(NLink), qint64(st.st_nlink));
            QCOMPARE(e.number(Blocks), qint64(st.st_blocks));
        } else {
            QVERIFY2(!e.contains(Inode) && !e.contains(Device) && !e.contains(NLink) && !e.contains(Blocks),
                where.constData());
        }
        QVERIFY2(!e.contains(MimeType), where.constData());
    }
}

void FileJobsTest::listRecursive_data()
{
    QTest::addColumn<bool>("follow");
    QTest::addColumn<int>("wide"); // > 0: that many sibling folders, with RLIMIT_NOFILE 1024
    QTest::newRow("symlinks not followed") << false << 0;
    QTest::newRow("FollowSymlinks, loops end") << true << 0;
    QTest::newRow("1500 sibling folders, RLIMIT_NOFILE 1024") << false << 1500;
}

void FileJobsTest::listRecursive()
{
    QFETCH(bool, follow);
    QFETCH(int, wide);
    const QByteArray top = path("rtree");
    QVERIFY(mkdirRaw(top));
    QList<QByteArray> expected;
    if (wide > 0) {
        for (int i = 0; i < wide; ++i) {
            const QByteArray name = QByteArray("d" + QByteArray::number(i).rightJustified(4, '0'));
            QVERIFY(mkdirRaw(join(top, name)));
            QVERIFY(writeRaw(join(top, join(name, "f")), "f"));
            expected << name << join(name, "f");
        }
        FdLimit limit(1024); // the usual soft limit of a desktop session, for the worker
        const Listing l = collect(Qvfs::listRecursive(fileUrl(top), DetailBasic));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.count, expected.size());
        QCOMPARE(l.entries.keys(), sorted(expected));
        return;
    }

    QVERIFY(mkdirRaw(path("outside")));
    QVERIFY(writeRaw(path("outside/o"), "outside"));
    QVERIFY(writeRaw(join(top, "a"), "a"));
    QVERIFY(mkdirRaw(join(top, "sub")));
    QVERIFY(writeRaw(join(top, "sub/b"), "bb"));
    QVERIFY(writeRaw(join(top, "sub/.hidden"), "b\n"));
    QVERIFY(mkdirRaw(join(top, "sub/deeper")));
    QVERIFY(writeRaw(join(top, "sub/deeper/c"), "ccc"));
    QVERIFY(symlinkRaw("..", join(top, "sub/up"))); // a loop to the top
    QVERIFY(symlinkRaw(".", join(top, "sub/self"))); // a loop to itself
    QVERIFY(symlinkRaw("../outside", join(top, "linkdir")));
    QVERIFY(symlinkRaw("ring2", join(top, "ring1"))); // ELOOP
    QVERIFY(symlinkRaw("ring1", join(top, "ring2")));
    expected = { "a", "sub", "sub/b", "sub/.hidden", "sub/deeper", "sub/deeper/c", "sub/up", "sub/self", "linkdir",
        "ring1", "ring2" };
    if (follow)
        expected << "linkdir/o";

    const Listing l = collect(
        Qvfs::listRecursive(fileUrl(top), DetailsDefault, follow ? ListJob::FollowSymlinks : ListJob::NoFlags));
    QCOMPARE(l.error, 0);
    QCOMPARE(l.entries.keys(), sorted(expected));
    QCOMPARE(l.count, expected.size()); // nothing listed twice
    for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it) {
        const struct stat st = lstatRaw(join(top, it.key()));
        QVERIFY2(it.value().type() == typeOf(st.st_mode), it.key().constData());
        QCOMPARE(it.value().size(), qint64(st.st_size));
        QCOMPARE(it.value().number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    }
    QCOMPARE(l.entries.value("sub/up").bytes(LinkTarget).toByteArray(), QByteArray(".."));
    QCOMPARE(l.entries.value("linkdir").type(), FileType::Symlink);
    // .hidden of the sub-folder applies to its own entries
    QCOMPARE(l.entries.value("sub/b").number(Hidden, 0), qint64(1));
    QCOMPARE(l.entries.value("sub/.hidden").number(Hidden, 0), qint64(1));
    QCOMPARE(l.entries.value("sub/deeper/c").number(Hidden, 0), qint64(0));
    QCOMPARE(l.entries.value("a").number(Hidden, 0), qint64(0));
}

void FileJobsTest::listErrors_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<bool>("recursive");
    QTest::addColumn<int>("error");
    QTest::newRow("missing, flat") << QByteArray("missing") << false << int(ErrDoesNotExist);
    QTest::newRow("missing, recursive") << QByteArray("missing") << true << int(ErrDoesNotExist);
    QTest::newRow("missing parent") << QByteArray("nodir/missing") << false << int(ErrDoesNotExist);
    QTest::newRow("a file, flat") << QByteArray("file") << false << int(ErrIsNotDirectory);
    QTest::newRow("a file, recursive") << QByteArray("file") << true << int(ErrIsNotDirectory);
}

void FileJobsTest::listErrors()
{
    QFETCH(QByteArray, rel);
    QFETCH(bool, recursive);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("file"), "x"));
    const Listing l = collect(recursive ? Qvfs::listRecursive(url(rel)) : Qvfs::listDir(url(rel)));
    QCOMPARE(l.error, error);
    QCOMPARE(l.count, 0);
    QCOMPARE(l.errorArgs.value(0), encoded(path(rel)));
    QVERIFY2(l.errorString.contains(QString::fromUtf8(path(rel))), qPrintable(l.errorString));
}

// ---------------------------------------------------------------- StatJob

void FileJobsTest::statFields_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("file") << QByteArray("file.txt");
    QTest::newRow("folder") << QByteArray("folder");
    QTest::newRow("symlink") << QByteArray("link");
    QTest::newRow("hidden file") << QByteArray(".dot");
    QTest::newRow("fifo") << QByteArray("fifo");
    QTest::newRow("other owner") << QByteArray("owned");
    QTest::newRow("hard linked") << QByteArray("hard");
}

void FileJobsTest::statFields()
{
    QFETCH(QByteArray, name);
    const QByteArray p = path(name);
    if (name == "folder") {
        QVERIFY(mkdirRaw(p, 0751));
    } else if (name == "link") {
        QVERIFY(symlinkRaw("some/target \xff", p));
    } else if (name == "fifo") {
        QVERIFY(::mkfifo(p.constData(), 0600) == 0);
    } else if (name == "hard") {
        QVERIFY(writeRaw(p, "hard linked", 0604));
        QVERIFY(::link(p.constData(), path("hard2").constData()) == 0);
    } else {
        QVERIFY(writeRaw(p, "some content\n", 0640));
    }
    if (name == "owned" && m_isRoot)
        QVERIFY(::lchown(p.constData(), 65534, 65534) == 0);
    QVERIFY(setTimes(p, 1234567890, 987654321));

    auto job = run(Qvfs::stat(fileUrl(p), DetailsFull | DetailAllTimes));
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->url(), fileUrl(p));
    const Entry e = job->statResult();
    const struct stat st = lstatRaw(p);
    QCOMPARE(e.name().toByteArray(), name);
    QCOMPARE(e.type(), typeOf(st.st_mode));
    QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
    QCOMPARE(e.size(), qint64(st.st_size));
    QCOMPARE(e.number(MTime), qint64(1234567890));
    QCOMPARE(e.number(MTimeNs), qint64(987654321));
    QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
    QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    if (name != "link") { // reading the link target touches its atime
        QCOMPARE(e.number(ATime), qint64(st.st_atim.tv_sec));
        QCOMPARE(e.number(ATimeNs), qint64(st.st_atim.tv_nsec));
    }
    QVERIFY(e.contains(ATime));
    QCOMPARE(e.number(Uid), qint64(st.st_uid));
    QCOMPARE(e.number(Gid), qint64(st.st_gid));
    QCOMPARE(e.bytes(User).toByteArray(), userName(st.st_uid));
    QCOMPARE(e.bytes(Group).toByteArray(), groupName(st.st_gid));
    QCOMPARE(e.number(Inode), qint64(st.st_ino));
    QCOMPARE(e.number(Device), qint64(st.st_dev));
    QCOMPARE(e.number(NLink), qint64(st.st_nlink));
    QCOMPARE(e.number(Blocks), qint64(st.st_blocks));
    if (name == "link")
        QCOMPARE(e.bytes(LinkTarget).toByteArray(), QByteArray("some/target \xff"));
    else
        QVERIFY(!e.contains(LinkTarget));
    QCOMPARE(e.number(Hidden, 0), qint64(name.startsWith('.') ? 1 : 0));
    QVERIFY(!e.contains(MimeType));
    if (name == "hard")
        QCOMPARE(e.number(NLink), qint64(2));
    if (name == "owned" && m_isRoot) {
        QCOMPARE(e.number(Uid), qint64(65534));
        QCOMPARE(e.bytes(User).toByteArray(), userName(65534));
    }

    // Only what was asked for.
    auto basic = run(Qvfs::stat(fileUrl(p), DetailBasic));
    QCOMPARE(basic->error(), 0);
    const Entry b = basic->statResult();
    QCOMPARE(b.size(), qint64(st.st_size));
    QVERIFY(!b.contains(MTime));
    QVERIFY(!b.contains(Uid));
    QVERIFY(!b.contains(Inode));
}

void FileJobsTest::statResolveSymlink_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("type"); // FileType of the answer with DetailResolveSymlink
    QTest::newRow("to a file") << QByteArray("target.txt") << int(FileType::Regular);
    QTest::newRow("to a folder") << QByteArray("folder") << int(FileType::Directory);
    QTest::newRow("dangling") << QByteArray("nowhere") << int(FileType::Symlink);
}

void FileJobsTest::statResolveSymlink()
{
    QFETCH(QByteArray, target);
    QFETCH(int, type);
    QVERIFY(writeRaw(path("target.txt"), "0123456789", 0640));
    QVERIFY(setTimes(path("target.txt"), 1111111111, 222222222));
    QVERIFY(mkdirRaw(path("folder"), 0700));
    QVERIFY(symlinkRaw(target, path("link")));

    auto plain = run(Qvfs::stat(url("link"), DetailsDefault));
    QCOMPARE(plain->error(), 0);
    QCOMPARE(plain->statResult().type(), FileType::Symlink);
    QCOMPARE(plain->statResult().bytes(LinkTarget).toByteArray(), target);

    auto job = run(Qvfs::stat(url("link"), DetailsDefault | DetailResolveSymlink));
    QCOMPARE(job->error(), 0);
    const Entry e = job->statResult();
    QCOMPARE(int(e.type()), type);
    QCOMPARE(e.name().toByteArray(), QByteArray("link"));
    QCOMPARE(e.bytes(LinkTarget).toByteArray(), target); // kept
    if (type != int(FileType::Symlink)) {
        const QByteArray t = path(target);
        struct stat st;
        QVERIFY(::stat(t.constData(), &st) == 0);
        QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
        QCOMPARE(e.size(), qint64(st.st_size));
        QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
        QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    }
}

void FileJobsTest::statMimeType_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("mimeType");
    QTest::addColumn<bool>("viaList");
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
    const QByteArray pngData(png, sizeof png - 1);
    QTest::newRow("text, by name") << QByteArray("notes.txt") << QByteArray("hello\n") << QStringLiteral("text/plain")
                                   << false;
    QTest::newRow("PNG without extension, by content")
        << QByteArray("picture") << pngData << QStringLiteral("image/png") << false;
    QTest::newRow("PNG without extension, in a listing")
        << QByteArray("picture") << pngData << QStringLiteral("image/png") << true;
    QTest::newRow("folder") << QByteArray("folder") << QByteArray() << QStringLiteral("inode/directory") << false;
}

void FileJobsTest::statMimeType()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, mimeType);
    QFETCH(bool, viaList);
    const QByteArray dir = path("m");
    QVERIFY(mkdirRaw(dir));
    if (name == "folder")
        QVERIFY(mkdirRaw(join(dir, name)));
    else
        QVERIFY(writeRaw(join(dir, name), content));
    Entry e;
    if (viaList) {
        const Listing l = collect(Qvfs::listDir(fileUrl(dir), DetailsDefault | DetailMimeType));
        QCOMPARE(l.error, 0);
        e = l.entries.value(name);
    } else {
        auto job = run(Qvfs::stat(fileUrl(join(dir, name)), DetailsDefault | DetailMimeType));
        QCOMPARE(job->error(), 0);
        e = job->statResult();
        auto without = run(Qvfs::stat(fileUrl(join(dir, name)), DetailsDefault));
        QVERIFY(!without->statResult().contains(MimeType)); // only on request
    }
    QCOMPARE(e.string(MimeType), mimeType);
}

void FileJobsTest::statMissing()
{
    auto job = run(Qvfs::stat(url("missing")));
    QCOMPARE(job->error(), int(ErrDoesNotExist));
    QCOMPARE(job->errorArgs().value(0), encoded(path("missing")));
    QVERIFY(job->errorString().contains(QString::fromUtf8(path("missing"))));
    QVERIFY(job->statResult().isEmpty());
    auto parent = run(Qvfs::stat(url("missing/child")));
    QCOMPARE(parent->error(), int(ErrDoesNotExist));
}

// ---------------------------------------------------------------- simple jobs

void FileJobsTest::mkdirJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::addColumn<int>("mode");
    QTest::newRow("new, default permissions") << QByteArray("new") << -1 << 0 << int(0777 & ~m_umask);
    QTest::newRow("new, 0750") << QByteArray("p") << 0750 << 0 << 0750;
    QTest::newRow("new, 0777 (beyond the umask)") << QByteArray("open") << 0777 << 0 << 0777;
    QTest::newRow("new, sticky 01777") << QByteArray("sticky") << 01777 << 0 << 01777;
    QTest::newRow("existing folder") << QByteArray("existing") << -1 << int(ErrAlreadyExists) << 0;
    QTest::newRow("existing file") << QByteArray("file") << -1 << int(ErrAlreadyExists) << 0;
    QTest::newRow("missing parent") << QByteArray("missing/child") << -1 << int(ErrDoesNotExist) << 0;
}

void FileJobsTest::mkdirJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QFETCH(int, mode);
    QVERIFY(mkdirRaw(path("existing"), 0700));
    QVERIFY(writeRaw(path("file"), "file"));
    const struct stat before = lstatRaw(path(rel));
    auto job = run(Qvfs::mkdir(url(rel), permissions));
    QCOMPARE(job->url(), url(rel));
    QCOMPARE(job->error(), error);
    const struct stat st = lstatRaw(path(rel));
    if (error) {
        // a missing parent is named itself: it is what does not exist
        QCOMPARE(job->errorArgs().value(0), encoded(path(rel == "missing/child" ? QByteArray("missing") : rel)));
        QCOMPARE(st.st_mode, before.st_mode); // untouched
        return;
    }
    QVERIFY(S_ISDIR(st.st_mode));
    QCOMPARE(int(st.st_mode & 07777), mode);
}

void FileJobsTest::mkpathJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("named"); // the path the error names
    QTest::newRow("three levels") << QByteArray("a/b/c") << -1 << 0 << QByteArray();
    QTest::newRow("three levels, 0700") << QByteArray("a/b/c") << 0700 << 0 << QByteArray();
    QTest::newRow("existing folder") << QByteArray("existing") << -1 << 0 << QByteArray();
    QTest::newRow("partly existing") << QByteArray("existing/x/y") << 0750 << 0 << QByteArray();
    QTest::newRow("through a symlink to a folder") << QByteArray("linkdir/z") << -1 << 0 << QByteArray();
    QTest::newRow("trailing slash") << QByteArray("t/u/") << -1 << 0 << QByteArray();
    QTest::newRow("through a file") << QByteArray("file/x") << -1 << int(ErrIsNotDirectory) << QByteArray("file");
    QTest::newRow("onto a file") << QByteArray("file") << -1 << int(ErrAlreadyExists) << QByteArray("file");
}

void FileJobsTest::mkpathJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QFETCH(QByteArray, named);
    QVERIFY(mkdirRaw(path("existing"), 0755));
    QVERIFY(writeRaw(path("file"), "file"));
    QVERIFY(symlinkRaw("existing", path("linkdir")));
    auto job = run(Qvfs::mkpath(url(rel), permissions));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(named)));
        QVERIFY(S_ISREG(lstatRaw(path("file")).st_mode));
        return;
    }
    struct stat st;
    QVERIFY(::stat(path(rel).constData(), &st) == 0);
    QVERIFY(S_ISDIR(st.st_mode));
    if (permissions >= 0 && rel != "existing")
        QCOMPARE(int(st.st_mode & 07777), permissions);
    // Parents get the default permissions.
    if (rel == "a/b/c")
        QCOMPARE(int(lstatRaw(path("a/b")).st_mode & 07777), int(0777 & ~m_umask));
    // Again: an existing folder is fine.
    auto again = run(Qvfs::mkpath(url(rel), permissions));
    QCOMPARE(again->error(), 0);
}

void FileJobsTest::renameJob_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("error");
    QTest::newRow("file to a new name") << QByteArray("f1") << QByteArray("g") << false << 0;
    QTest::newRow("onto a file, no overwrite")
        << QByteArray("f1") << QByteArray("f2") << false << int(ErrAlreadyExists);
    QTest::newRow("onto a file, overwrite") << QByteArray("f1") << QByteArray("f2") << true << 0;
    QTest::newRow("missing source") << QByteArray("nope") << QByteArray("g") << false << int(ErrDoesNotExist);
    QTest::newRow("into a missing folder")
        << QByteArray("f1") << QByteArray("nodir/g") << false << int(ErrDoesNotExist);
    QTest::newRow("folder") << QByteArray("d1") << QByteArray("dnew") << false << 0;
    QTest::newRow("folder onto an empty folder, overwrite") << QByteArray("d1") << QByteArray("d2") << true << 0;
    QTest::newRow("folder onto a non-empty folder, overwrite")
        << QByteArray("d1") << QByteArray("d3") << true << int(ErrDirectoryNotEmpty);
    QTest::newRow("folder onto a folder, no overwrite")
        << QByteArray("d1") << QByteArray("d2") << false << int(ErrAlreadyExists);
    QTest::newRow("symlink (not its target)") << QByteArray("link") << QByteArray("link2") << false << 0;
}

void FileJobsTest::renameJob()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(bool, overwrite);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("f1"), "one"));
    QVERIFY(writeRaw(path("f2"), "two"));
    QVERIFY(mkdirRaw(path("d1")));
    QVERIFY(writeRaw(path("d1/x"), "x"));
    QVERIFY(mkdirRaw(path("d2")));
    QVERIFY(mkdirRaw(path("d3")));
    QVERIFY(writeRaw(path("d3/y"), "y"));
    QVERIFY(symlinkRaw("f1", path("link")));
    const QMap<QByteArray, Node> before = snapshot(m_root);
    const struct stat srcSt = lstatRaw(path(from));

    auto job = run(Qvfs::rename(url(from), url(to), overwrite));
    QCOMPARE(job->error(), error);
    if (error) {
        compareTrees(before, snapshot(m_root), false, true); // nothing changed
        if (QTest::currentTestFailed())
            return;
        return;
    }
    QVERIFY(!existsRaw(path(from)));
    const struct stat dstSt = lstatRaw(path(to));
    QCOMPARE(dstSt.st_ino, srcSt.st_ino);
    QCOMPARE(dstSt.st_mode, srcSt.st_mode);
    if (from == "f1")
        QCOMPARE(readRaw(path(to)), QByteArray("one"));
    if (from == "d1")
        QCOMPARE(readRaw(path(join(to, "x"))), QByteArray("x"));
    if (from == "link") {
        QCOMPARE(readLinkRaw(path(to)), QByteArray("f1"));
        QCOMPARE(readRaw(path("f1")), QByteArray("one"));
    }
}

void FileJobsTest::renameJobUrl()
{
    // SimpleJob::url(): "The URL the job works on (the destination of a rename)."
    QVERIFY(writeRaw(path("f1"), "one"));
    auto job = run(Qvfs::rename(url("f1"), url("g")));
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->url(), url("g"));
}

void FileJobsTest::symlinkJob_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("link");
    QTest::addColumn<int>("error");
    QTest::newRow("relative") << QByteArray("target.txt") << QByteArray("l1") << 0;
    QTest::newRow("absolute") << QByteArray("/etc/passwd") << QByteArray("l2") << 0;
    QTest::newRow("dangling") << QByteArray("nowhere/at all") << QByteArray("l3") << 0;
    QTest::newRow("raw bytes") << QByteArray("caf\xe9/\xff\xfe\n-x") << QByteArray("l\xff") << 0;
    QTest::newRow("link path exists") << QByteArray("target.txt") << QByteArray("existing") << int(ErrAlreadyExists);
    QTest::newRow("missing parent") << QByteArray("target.txt") << QByteArray("nodir/l") << int(ErrDoesNotExist);
}

void FileJobsTest::symlinkJob()
{
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, link);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("target.txt"), "t"));
    QVERIFY(writeRaw(path("existing"), "e"));
    auto job = run(Qvfs::symlink(target, url(link)));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(link)));
        if (link == "existing")
            QCOMPARE(readRaw(path(link)), QByteArray("e"));
        return;
    }
    QVERIFY(S_ISLNK(lstatRaw(path(link)).st_mode));
    QCOMPARE(readLinkRaw(path(link)), target);
}

void FileJobsTest::chmodJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::newRow("file 0600") << QByteArray("f") << 0600 << 0;
    QTest::newRow("file 0755") << QByteArray("f") << 0755 << 0;
    QTest::newRow("file 04755 (setuid)") << QByteArray("f") << 04755 << 0;
    QTest::newRow("file 0") << QByteArray("f") << 0 << 0;
    QTest::newRow("folder 01777") << QByteArray("d") << 01777 << 0;
    QTest::newRow("through a symlink") << QByteArray("link") << 0604 << 0;
    QTest::newRow("missing") << QByteArray("missing") << 0644 << int(ErrDoesNotExist);
}

void FileJobsTest::chmodJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("f"), "f", 0644));
    QVERIFY(mkdirRaw(path("d"), 0755));
    QVERIFY(symlinkRaw("f", path("link")));
    auto job = run(Qvfs::chmod(url(rel), permissions));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(rel)));
        return;
    }
    struct stat st;
    QVERIFY(::stat(path(rel).constData(), &st) == 0);
    QCOMPARE(int(st.st_mode & 07777), permissions);
    if (rel == "link")
        QVERIFY(S_ISLNK(lstatRaw(path("link")).st_mode));
}

void FileJobsTest::directorySizeJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<qint64>("files");
    QTest::addColumn<qint64>("dirs");
    QTest::addColumn<int>("error");
    QTest::newRow("tree") << QByteArray("tree") << qint64(100) << qint64(5) << qint64(3) << 0;
    QTest::newRow("empty folder") << QByteArray("tree/sub/empty") << qint64(0) << qint64(0) << qint64(0) << 0;
    QTest::newRow("one file") << QByteArray("tree/b") << qint64(20) << qint64(1) << qint64(0) << 0;
    QTest::newRow("symlink to the tree (not followed)")
        << QByteArray("treelink") << qint64(0) << qint64(1) << qint64(0) << 0;
    QTest::newRow("missing") << QByteArray("missing") << qint64(0) << qint64(0) << qint64(0) << int(ErrDoesNotExist);
}

void FileJobsTest::directorySizeJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(qint64, bytes);
    QFETCH(qint64, files);
    QFETCH(qint64, dirs);
    QFETCH(int, error);
    QVERIFY(mkdirRaw(path("tree")));
    QVERIFY(writeRaw(path("tree/a"), QByteArray(10, 'a')));
    QVERIFY(writeRaw(path("tree/b"), QByteArray(20, 'b')));
    QVERIFY(mkdirRaw(path("tree/sub")));
    QVERIFY(writeRaw(path("tree/sub/c"), QByteArray(30, 'c')));
    QVERIFY(mkdirRaw(path("tree/sub/deeper")));
    QVERIFY(writeRaw(path("tree/sub/deeper/.d"), QByteArray(40, 'd')));
    QVERIFY(mkdirRaw(path("tree/sub/empty")));
    QVERIFY(symlinkRaw("a", path("tree/link")));
    QVERIFY(symlinkRaw("tree", path("treelink")));
    auto job = run(Qvfs::directorySize(url(rel)));
    QCOMPARE(job->url(), url(rel));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(rel)));
        return;
    }
    QCOMPARE(job->totalBytes(), bytes);
    QCOMPARE(job->totalFiles(), files);
    QCOMPARE(job->totalDirectories(), dirs);
}

void FileJobsTest::deleteJob_data()
{
    QTest::addColumn<QList<QByteArray>>("targets");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("named");
    QTest::addColumn<int>("deletedSignals");
    QTest::newRow("file") << QList<QByteArray> { "f" } << 0 << QByteArray() << 1;
    QTest::newRow("empty folder") << QList<QByteArray> { "empty" } << 0 << QByteArray() << 1;
    QTest::newRow("tree") << QList<QByteArray> { "tree" } << 0 << QByteArray() << 1;
    QTest::newRow("symlink to a folder (target kept)") << QList<QByteArray> { "linkdir" } << 0 << QByteArray() << 1;
    QTest::newRow("several") << QList<QByteArray> { "f", "tree", "linkdir", "empty" } << 0 << QByteArray() << 4;
    QTest::newRow("missing in the middle")
        << QList<QByteArray> { "f", "missing", "g" } << int(ErrDoesNotExist) << QByteArray("missing") << 1;
}

void FileJobsTest::deleteJob()
{
    QFETCH(QList<QByteArray>, targets);
    QFETCH(int, error);
    QFETCH(QByteArray, named);
    QFETCH(int, deletedSignals);
    QVERIFY(writeRaw(path("f"), "f"));
    QVERIFY(writeRaw(path("g"), "g"));
    QVERIFY(mkdirRaw(path("empty")));
    QVERIFY(makeTree(path("tree")));
    QVERIFY(mkdirRaw(path("target")));
    QVERIFY(writeRaw(path("target/keep"), "keep"));
    QVERIFY(symlinkRaw("target", path("linkdir")));
    QMap<QByteArray, qint64> counts { { "f", 1 }, { "g", 1 }, { "empty", 1 }, { "linkdir", 1 } };
    counts.insert("tree", snapshot(path("tree")).size());

    QList<QUrl> urls;
    for (const QByteArray &t : std::as_const(targets))
        urls << url(t);
    DeleteJob *job = Qvfs::del(urls);
    QCOMPARE(job->urls(), urls);
    QList<QUrl> deleted;
    connect(job, &DeleteJob::deleted, this, [&deleted](DeleteJob *, const QUrl &u) { deleted << u; });
    auto j = run(job);
    QCOMPARE(j->error(), error);
    QCOMPARE(deleted.size(), deletedSignals);
    QCOMPARE(deleted, urls.mid(0, deletedSignals));
    qint64 removed = 0;
    for (int i = 0; i < deletedSignals; ++i) {
        QVERIFY2(!existsRaw(path(targets.at(i))), targets.at(i).constData());
        removed += counts.value(targets.at(i));
    }
    QCOMPARE(j->removedCount(), removed);
    if (error) {
        QCOMPARE(j->errorArgs().value(0), encoded(path(named)));
        QVERIFY(existsRaw(path("g"))); // stopped at the first error
    }
    QCOMPARE(readRaw(path("target/keep")), QByteArray("keep")); // never a link's target
}

// ---------------------------------------------------------------- CopyJob

void FileJobsTest::copyFile_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("dest"); // the URL given
    QTest::addColumn<QByteArray>("result"); // where the copy lands
    QTest::addColumn<int>("mode");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("preserve");
    const QByteArray data = pseudoRandom(3 * MiB + 17, 1);
    QTest::newRow("into a folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/a.bin") << 0640 << data
                                   << true;
    QTest::newRow("as a new name") << int(CopyAuto) << QByteArray("out/b.bin") << QByteArray("out/b.bin") << 0640
                                   << data << true;
    QTest::newRow("copyAs") << int(CopyAs) << QByteArray("out/c.bin") << QByteArray("out/c.bin") << 0604 << data
                            << true;
    QTest::newRow("empty file") << int(CopyInto) << QByteArray("out") << QByteArray("out/a.bin") << 0644 << QByteArray()
                                << true;
    QTest::newRow("setuid mode kept") << int(CopyAs) << QByteArray("out/s") << QByteArray("out/s") << 04755
                                      << QByteArray("#!/bin/sh\n") << true;
    QTest::newRow("not preserved") << int(CopyAs) << QByteArray("out/n") << QByteArray("out/n") << 0666
                                   << QByteArray("new times") << false;
}

void FileJobsTest::copyFile()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, dest);
    QFETCH(QByteArray, result);
    QFETCH(int, mode);
    QFETCH(QByteArray, content);
    QFETCH(bool, preserve);
    QVERIFY(writeRaw(path("a.bin"), content, mode_t(mode)));
    QVERIFY(setTimes(path("a.bin"), 1234567890, 123456789));
    QVERIFY(mkdirRaw(path("out")));
    const QMap<QByteArray, Node> source = snapshot(path("a.bin"));

    CopyJob *job = makeCopy(CopyKind(kind), { url("a.bin") }, url(dest));
    job->setPreserve(preserve);
    QCOMPARE(job->sources(), QList<QUrl> { url("a.bin") });
    QCOMPARE(job->destination(), url(dest));
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    compareTrees(source, snapshot(path("a.bin")), false, true); // the source is untouched
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(readRaw(path(result)), content);
    const struct stat st = lstatRaw(path(result));
    QVERIFY(S_ISREG(st.st_mode));
    if (preserve) {
        QCOMPARE(int(st.st_mode & 07777), mode);
        QCOMPARE(qint64(st.st_mtim.tv_sec), qint64(1234567890));
        QCOMPARE(qint64(st.st_mtim.tv_nsec), qint64(123456789));
    } else {
        QCOMPARE(int(st.st_mode & 07777), int(mode & 0777 & ~m_umask));
        QVERIFY(st.st_mtim.tv_sec != 1234567890);
    }
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { Url::fileName(url(result)) });
}

void FileJobsTest::copyTree_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<QByteArray>("result");
    QTest::newRow("into a folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/tree");
    QTest::newRow("as a new name") << int(CopyAuto) << QByteArray("out/t2") << QByteArray("out/t2");
    QTest::newRow("copyAs") << int(CopyAs) << QByteArray("out/t3") << QByteArray("out/t3");
    QTest::newRow("merged into an existing folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/tree");
}

void FileJobsTest::copyTree()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, dest);
    QFETCH(QByteArray, result);
    const bool merge = QByteArray(QTest::currentDataTag()).startsWith("merged");
    QVERIFY(makeTree(path("tree")));
    QVERIFY(mkdirRaw(path("out")));
    if (merge) {
        QVERIFY(mkdirRaw(path("out/tree"), 0700));
        QVERIFY(writeRaw(path("out/tree/extra.txt"), "mine"));
        QVERIFY(mkdirRaw(path("out/tree/sub"), 0750)); // merged too
    }
    const QMap<QByteArray, Node> source = snapshot(path("tree"));
    auto job = run(makeCopy(CopyKind(kind), { url("tree") }, url(dest)));
    QCOMPARE(job->error(), 0);
    compareTrees(source, snapshot(path("tree")), false, true); // untouched
    if (QTest::currentTestFailed())
        return;
    QMap<QByteArray, Node> copied = snapshot(path(result));
    if (merge) {
        QCOMPARE(copied.value("extra.txt").content, QByteArray("mine"));
        copied.remove("extra.txt");
        QCOMPARE(int(copied.value("").mode), 0700); // an existing folder keeps its own mode
        // sub existed already: a merged folder keeps its times; compare the rest
        copied.remove("sub");
        QMap<QByteArray, Node> expected = source;
        expected.remove("sub");
        compareTrees(expected, copied, true, true);
        if (QTest::currentTestFailed())
            return;
        return;
    }
    compareTrees(source, copied, false, true);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(copied.value("link-abs").link, path("tree/a.txt")); // links are copied as they are
    if (!qEnvironmentVariableIsSet("QVFS_WORKER_PATH")) // see makeTree()
        QVERIFY(S_ISFIFO(lstatRaw(path(join(result, "fifo"))).st_mode));
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { Url::fileName(url(result)) });
}

void FileJobsTest::copyConflicts_data()
{
    QTest::addColumn<bool>("tree");
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<QByteArray>("action"); // the delegate's answer; empty: no delegate
    QTest::addColumn<bool>("applyToAll");
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("replaced"); // f1.txt and f2.txt have the new content
    QTest::addColumn<bool>("renamed"); // the new content went to "f1 (1).txt", "f2 (1).txt"
    QTest::addColumn<int>("asked");
    for (bool tree : { false, true }) {
        const QByteArray p = tree ? "tree: " : "files: ";
        auto row = [&p](const char *name) -> QTestData & { return QTest::newRow(QByteArray(p + name).constData()); };
        row("fail") << tree << ConflictPolicy::Fail << QByteArray() << false << int(ErrAlreadyExists) << false << false
                    << 0;
        row("overwrite") << tree << ConflictPolicy::Overwrite << QByteArray() << false << 0 << true << false << 0;
        row("skip") << tree << ConflictPolicy::Skip << QByteArray() << false << 0 << false << false << 0;
        if (!tree) // a folder onto a folder with Rename is copied as "src (1)"
            row("rename") << tree << ConflictPolicy::Rename << QByteArray() << false << 0 << false << true << 0;
        row("ask: overwrite") << tree << ConflictPolicy::Ask << QByteArray("overwrite") << false << 0 << true << false
                              << 2;
        row("ask: overwrite, apply to all")
            << tree << ConflictPolicy::Ask << QByteArray("overwrite") << true << 0 << true << false << 1;
        row("ask: skip") << tree << ConflictPolicy::Ask << QByteArray("skip") << false << 0 << false << false << 2;
        row("ask: skip, apply to all") << tree << ConflictPolicy::Ask << QByteArray("skip") << true << 0 << false
                                       << false << 1;
        row("ask: rename") << tree << ConflictPolicy::Ask << QByteArray("rename") << false << 0 << false << true << 2;
        row("ask: rename, apply to all") << tree << ConflictPolicy::Ask << QByteArray("rename") << true << 0 << false
                                         << true << 1;
        row("ask: cancel") << tree << ConflictPolicy::Ask << QByteArray("cancel") << false << int(ErrCancelled)
                           << false << false << 1;
        row("ask: no delegate") << tree << ConflictPolicy::Ask << QByteArray() << false << int(ErrNotAnswered) << false
                                << false << 0;
    }
}

void FileJobsTest::copyConflicts()
{
    QFETCH(bool, tree);
    QFETCH(ConflictPolicy, policy);
    QFETCH(QByteArray, action);
    QFETCH(bool, applyToAll);
    QFETCH(int, error);
    QFETCH(bool, replaced);
    QFETCH(bool, renamed);
    QFETCH(int, asked);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(path("src/f1.txt"), "new1"));
    QVERIFY(writeRaw(path("src/f2.txt"), "new2"));
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(mkdirRaw(path("out/src")));
    QVERIFY(writeRaw(path("out/src/f1.txt"), "old1"));
    QVERIFY(writeRaw(path("out/src/f2.txt"), "old2"));
    QVERIFY(writeRaw(path("out/src/f2.txt.part"), "a user's own file"));

    CopyJob *job = tree ? Qvfs::copy(url("src"), url("out"))
                        : Qvfs::copy({ url("src/f1.txt"), url("src/f2.txt") }, url("out/src"));
    job->setConflictPolicy(policy);
    QCOMPARE(job->conflictPolicy(), policy);
    Answerer answerer;
    answerer.action = action;
    answerer.applyToAll = applyToAll;
    if (!action.isEmpty())
        job->setAskDelegate(&answerer);
    auto j = run(job);
    QCOMPARE(j->error(), error);
    QCOMPARE(answerer.asked, asked);
    for (const ConflictQuestion &q : std::as_const(answerer.questions)) {
        const QByteArray dst = q.destination.toEncoded();
        QVERIFY2(
            dst == fileUrl(path("out/src/f1.txt")).toEncoded() || dst == fileUrl(path("out/src/f2.txt")).toEncoded(),
            dst.constData());
        QCOMPARE(q.source.toEncoded(), QByteArray(dst).replace("/out/src/", "/src/"));
    }
    if (!tree && !answerer.questions.isEmpty())
        QCOMPARE(answerer.questions.first().destination.toEncoded(), fileUrl(path("out/src/f1.txt")).toEncoded());
    if (error == ErrAlreadyExists && !tree)
        QCOMPARE(j->errorArgs().value(0), encoded(path("out/src/f1.txt")));

    QCOMPARE(readRaw(path("out/src/f1.txt")), replaced ? QByteArray("new1") : QByteArray("old1"));
    QCOMPARE(readRaw(path("out/src/f2.txt")), replaced ? QByteArray("new2") : QByteArray("old2"));
    QList<QByteArray> names { "f1.txt", "f2.txt", "f2.txt.part" };
    if (renamed) {
        names << "f1 (1).txt"
              << "f2 (1).txt";
        QCOMPARE(readRaw(path("out/src/f1 (1).txt")), QByteArray("new1"));
        QCOMPARE(readRaw(path("out/src/f2 (1).txt")), QByteArray("new2"));
    }
    QCOMPARE(namesIn(path("out/src")), sorted(names));
    QCOMPARE(readRaw(path("out/src/f2.txt.part")), QByteArray("a user's own file"));
    QCOMPARE(readRaw(path("src/f1.txt")), QByteArray("new1"));
}

void FileJobsTest::copyIdentical_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("src");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::newRow("copyAs onto itself") << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f")
                                        << ConflictPolicy::Fail;
    QTest::newRow("copyAs onto itself, overwrite")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f") << ConflictPolicy::Overwrite;
    QTest::newRow("copyAs onto itself, skip")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f") << ConflictPolicy::Skip;
    QTest::newRow("into its own folder") << int(CopyInto) << QByteArray("dir/f") << QByteArray("dir")
                                         << ConflictPolicy::Fail;
    QTest::newRow("into its own folder, overwrite")
        << int(CopyInto) << QByteArray("dir/f") << QByteArray("dir") << ConflictPolicy::Overwrite;
    QTest::newRow("onto a hard link, overwrite")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/hard") << ConflictPolicy::Overwrite;
    QTest::newRow("folder into its own parent")
        << int(CopyInto) << QByteArray("dir") << QByteArray("") << ConflictPolicy::Fail;
    QTest::newRow("move into its own folder")
        << int(MoveInto) << QByteArray("dir/f") << QByteArray("dir") << ConflictPolicy::Overwrite;
    QTest::newRow("moveAs onto itself") << int(MoveAs) << QByteArray("dir/f") << QByteArray("dir/f")
                                        << ConflictPolicy::Fail;
}

void FileJobsTest::copyIdentical()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, src);
    QFETCH(QByteArray, dest);
    QFETCH(ConflictPolicy, policy);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("dir/f"), "precious", 0640));
    QVERIFY(::link(path("dir/f").constData(), path("dir/hard").constData()) == 0);
    QVERIFY(setTimes(path("dir/f"), 1234567890, 5));
    QVERIFY(setTimes(path("dir"), 1234567890, 6));
    const QMap<QByteArray, Node> before = snapshot(m_root);
    const ino_t ino = lstatRaw(path("dir/f")).st_ino;
    CopyJob *job = makeCopy(CopyKind(kind), { url(src) }, dest.isEmpty() ? fileUrl(m_root) : url(dest));
    job->setConflictPolicy(policy);
    auto j = run(job);
    // Nothing lost, nothing changed: checked first, it matters most.
    QVERIFY2(readRaw(path("dir/f")) == "precious", "the file was lost");
    QMap<QByteArray, Node> after = snapshot(m_root);
    after.insert("", before.value("")); // the fixture root's own times are not the point
    compareTrees(before, after, false, true);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(lstatRaw(path("dir/f")).st_ino, ino);
    if (src == "dir" && j->error() == int(ErrCycle))
        return; // a folder into its own parent is a copy into itself too
    QCOMPARE(j->error(), int(ErrIdenticalFiles));
    QVERIFY2(j->errorString().contains(QString::fromUtf8(path(src)))
            || j->errorString().contains(QString::fromUtf8(path(dest))),
        qPrintable(j->errorString()));
}

void FileJobsTest::copyCycle_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest");
    QTest::newRow("folder into itself") << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("dir");
    QTest::newRow("folder into its sub-folder")
        << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("dir/sub");
    QTest::newRow("copyAs below itself") << int(CopyAs) << QList<QByteArray> { "dir" } << QByteArray("dir/sub/new");
    QTest::newRow("move into its sub-folder") << int(MoveInto) << QList<QByteArray> { "dir" } << QByteArray("dir/sub");
    QTest::newRow("moveAs below itself") << int(MoveAs) << QList<QByteArray> { "dir" } << QByteArray("dir/new");
    QTest::newRow("second source is the cycle")
        << int(CopyInto) << QList<QByteArray> { "file", "dir" } << QByteArray("dir/sub");
    QTest::newRow("through a symlinked destination")
        << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("linktosub");
}

void FileJobsTest::copyCycle()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("dir/a"), "a"));
    QVERIFY(mkdirRaw(path("dir/sub")));
    QVERIFY(writeRaw(path("dir/sub/b"), "b"));
    QVERIFY(writeRaw(path("file"), "f"));
    QVERIFY(symlinkRaw("dir/sub", path("linktosub")));
    const QMap<QByteArray, Node> before = snapshot(m_root);
    QList<QUrl> urls;
    for (const QByteArray &s : std::as_const(sources))
        urls << url(s);
    auto j = run(makeCopy(CopyKind(kind), urls, url(dest)));
    QCOMPARE(j->error(), int(ErrCycle));
    QCOMPARE(j->errorArgs().value(0), encoded(path("dir")));
    QVERIFY2(j->errorString().contains(QString::fromUtf8(path("dir"))), qPrintable(j->errorString()));
    QMap<QByteArray, Node> after = snapshot(m_root);
    after.insert("", before.value(""));
    compareTrees(before, after, false, true); // checked before anything was written
    if (QTest::currentTestFailed())
        return;
}

void FileJobsTest::moveSameFilesystem_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<QList<QByteArray>>("results");
    QTest::newRow("file into a folder") << int(MoveInto) << QList<QByteArray> { "f" } << QByteArray("out")
                                        << QList<QByteArray> { "out/f" };
    QTest::newRow("moveAs file") << int(MoveAs) << QList<QByteArray> { "f" } << QByteArray("out/g")
                                 << QList<QByteArray> { "out/g" };
    QTest::newRow("tree into a folder") << int(MoveInto) << QList<QByteArray> { "tree" } << QByteArray("out")
                                        << QList<QByteArray> { "out/tree" };
    QTest::newRow("moveAs tree") << int(MoveAs) << QList<QByteArray> { "tree" } << QByteArray("out/t2")
                                 << QList<QByteArray> { "out/t2" };
    QTest::newRow("several sources") << int(MoveInto) << QList<QByteArray> { "f", "tree" } << QByteArray("out")
                                     << QList<QByteArray> { "out/f", "out/tree" };
}

void FileJobsTest::moveSameFilesystem()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QFETCH(QList<QByteArray>, results);
    QVERIFY(writeRaw(path("f"), "file", 0600));
    QVERIFY(setTimes(path("f"), 1234567890, 42));
    QVERIFY(makeTree(path("tree")));
    QVERIFY(mkdirRaw(path("out")));
    QList<QUrl> urls;
    QList<QMap<QByteArray, Node>> before;
    QList<ino_t> inodes;
    for (const QByteArray &s : std::as_const(sources)) {
        urls << url(s);
        before << snapshot(path(s));
        inodes << lstatRaw(path(s)).st_ino;
    }
    auto j = run(makeCopy(CopyKind(kind), urls, url(dest)));
    QCOMPARE(j->error(), 0);
    for (int i = 0; i < sources.size(); ++i) {
        QVERIFY(!existsRaw(path(sources.at(i))));
        QCOMPARE(lstatRaw(path(results.at(i))).st_ino, inodes.at(i)); // renamed, not copied
        compareTrees(before.at(i), snapshot(path(results.at(i))), false, true);
        if (QTest::currentTestFailed())
            return;
    }
}

void FileJobsTest::moveAcrossFilesystems_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest"); // relative to the mounted tmpfs
    QTest::addColumn<QList<QByteArray>>("results");
    QTest::addColumn<int>("error");
    QTest::newRow("moveAs file") << int(MoveAs) << QList<QByteArray> { "f" } << QByteArray("g")
                                 << QList<QByteArray> { "g" } << 0;
    QTest::newRow("tree into a folder") << int(MoveInto) << QList<QByteArray> { "tree" } << QByteArray()
                                        << QList<QByteArray> { "tree" } << 0;
    QTest::newRow("several sources") << int(MoveInto) << QList<QByteArray> { "f", "tree" } << QByteArray()
                                     << QList<QByteArray> { "f", "tree" } << 0;
    QTest::newRow("a failing source keeps every source")
        << int(MoveInto) << QList<QByteArray> { "tree", "clash" } << QByteArray() << QList<QByteArray> {}
        << int(ErrAlreadyExists);
}

void FileJobsTest::moveAcrossFilesystems()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QFETCH(QList<QByteArray>, results);
    QFETCH(int, error);
    if (!m_isRoot)
        QSKIP("mounting a tmpfs for a second filesystem needs root: the move across filesystems is not tested");
    const QByteArray mnt = path("mnt");
    QVERIFY2(mountTmpfs(mnt), "mount -t tmpfs failed");
    QVERIFY(lstatRaw(mnt).st_dev != lstatRaw(m_root).st_dev);
    QVERIFY(writeRaw(path("f"), pseudoRandom(2 * MiB, 3), 0604));
    QVERIFY(setTimes(path("f"), 1234567890, 987654321));
    QVERIFY(makeTree(path("tree")));
    QVERIFY(writeRaw(path("clash"), "source clash"));
    QVERIFY(writeRaw(join(mnt, "clash"), "existing at the destination"));
    QList<QUrl> urls;
    QList<QMap<QByteArray, Node>> before;
    for (const QByteArray &s : std::as_const(sources)) {
        urls << url(s);
        before << snapshot(path(s));
    }
    auto j = run(makeCopy(CopyKind(kind), urls, fileUrl(dest.isEmpty() ? mnt : join(mnt, dest))));
    QCOMPARE(j->error(), error);
    if (error) {
        // The sources go only after everything was copied: all of them are still there.
        for (int i = 0; i < sources.size(); ++i) {
            compareTrees(before.at(i), snapshot(path(sources.at(i))), false, true);
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(readRaw(join(mnt, "clash")), QByteArray("existing at the destination"));
        return;
    }
    for (int i = 0; i < sources.size(); ++i) {
        QVERIFY2(!existsRaw(path(sources.at(i))), sources.at(i).constData());
        compareTrees(before.at(i), snapshot(join(mnt, results.at(i))), false, true);
        if (QTest::currentTestFailed())
            return;
    }
}

void FileJobsTest::copyProgress_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<bool>("toShm"); // destination on /dev/shm: another filesystem
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<qint64>("files");
    const qint64 treeBytes = 3 * 2 * MiB + 5 * 100;
    QTest::newRow("tree") << int(CopyInto) << QList<QByteArray> { "p" } << false << treeBytes << qint64(8);
    QTest::newRow("one big file") << int(CopyInto) << QList<QByteArray> { "big" } << false << qint64(64 * MiB)
                                  << qint64(1);
    QTest::newRow("several sources") << int(CopyInto) << QList<QByteArray> { "p", "big" } << false
                                     << treeBytes + 64 * MiB << qint64(9);
    QTest::newRow("small file") << int(CopyInto) << QList<QByteArray> { "p/s0" } << false << qint64(100) << qint64(1);
    QTest::newRow("move to another filesystem")
        << int(MoveInto) << QList<QByteArray> { "p" } << true << treeBytes << qint64(8);
}

void FileJobsTest::copyProgress()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(bool, toShm);
    QFETCH(qint64, bytes);
    QFETCH(qint64, files);
    QVERIFY(mkdirRaw(path("p")));
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeRaw(path(QByteArray("p/m" + QByteArray::number(i))), pseudoRandom(2 * MiB, quint32(i))));
    QVERIFY(mkdirRaw(path("p/sub")));
    for (int i = 0; i < 5; ++i)
        QVERIFY(writeRaw(path(QByteArray((i < 3 ? "p/s" : "p/sub/s") + QByteArray::number(i))), QByteArray(100, 's')));
    QVERIFY(writeBig(path("big"), 64 * MiB));
    QByteArray out = path("out");
    if (toShm) {
        QVERIFY(makeShm());
        out = join(m_shm, "out");
    }
    QVERIFY(mkdirRaw(out));
    QList<QUrl> urls;
    for (const QByteArray &s : std::as_const(sources))
        urls << url(s);
    CopyJob *job = makeCopy(CopyKind(kind), urls, fileUrl(out));
    qint64 lastBytes = 0;
    bool monotonic = true;
    bool withinTotal = true;
    connect(job, &Job::processedAmountChanged, this, [&](Job *j, Job::Unit unit, qint64 amount) {
        if (unit != Job::Bytes)
            return;
        monotonic = monotonic && amount >= lastBytes;
        withinTotal = withinTotal && (j->totalAmount(Job::Bytes) < 0 || amount <= j->totalAmount(Job::Bytes));
        lastBytes = amount;
    });
    QSignalSpy percentSpy(job, &Job::percentChanged);
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    QCOMPARE(j->totalAmount(Job::Bytes), bytes);
    QCOMPARE(j->totalAmount(Job::Files), files);
    QVERIFY(monotonic);
    QVERIFY(withinTotal);
    QCOMPARE(j->processedAmount(Job::Bytes), bytes);
    QCOMPARE(j->processedAmount(Job::Files), files);
    QCOMPARE(j->percent(), 100ul);
    QVERIFY(!percentSpy.isEmpty());
    QCOMPARE(percentSpy.last().at(1).value<unsigned long>(), 100ul);
}

void FileJobsTest::copyKill_data()
{
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<bool>("emitResult");
    QTest::addColumn<bool>("userPart");
    QTest::addColumn<bool>("move");
    QTest::newRow("new destination, kill quietly") << false << false << false << false;
    QTest::newRow("new destination, kill with result") << false << true << false << false;
    QTest::newRow("overwrite, kill quietly") << true << false << false << false;
    QTest::newRow("overwrite, kill with result") << true << true << false << false;
    QTest::newRow("a user's x.part beside it") << false << false << true << false;
    QTest::newRow("move to another filesystem") << false << true << false << true;
}

void FileJobsTest::copyKill()
{
    QFETCH(bool, overwrite);
    QFETCH(bool, emitResult);
    QFETCH(bool, userPart);
    QFETCH(bool, move);
    constexpr qint64 size = 300 * MiB;
    QVERIFY(makeShm());
    const QByteArray src = join(m_shm, "x");
    QVERIFY2(writeBig(src, size), "could not write 300 MiB to /dev/shm");
    // The move goes from /dev/shm (tmpfs) to the fixture folder: another filesystem.
    const QByteArray destDir = move ? path("out") : join(m_shm, "out");
    QVERIFY(mkdirRaw(destDir));
    QList<QByteArray> names;
    if (overwrite) {
        QVERIFY(writeRaw(join(destDir, "x"), "old content", 0600));
        names << "x";
    }
    if (userPart) {
        QVERIFY(writeRaw(join(destDir, "x.part"), "mine"));
        names << "x.part";
    }
    const QMap<QByteArray, Node> destBefore = snapshot(destDir);

    CopyJob *job = move ? Qvfs::move(fileUrl(src), fileUrl(destDir)) : Qvfs::copy(fileUrl(src), fileUrl(destDir));
    job->setAutoDelete(false);
    std::unique_ptr<CopyJob> hold(job);
    if (overwrite)
        job->setConflictPolicy(ConflictPolicy::Overwrite);
    const Job::KillVerbosity verbosity = emitResult ? Job::EmitResult : Job::Quietly;
    bool killed = false;
    bool killOk = false;
    qint64 bytesAtKill = -1;
    auto killIt = [&] {
        if (killed)
            return;
        killed = true;
        bytesAtKill = job->processedAmount(Job::Bytes);
        killOk = job->kill(verbosity);
    };
    connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
        if (unit == Job::Bytes && amount > 0)
            killIt();
    });
    QTimer::singleShot(300, job, killIt); // in case no progress came yet
    QSignalSpy resultSpy(job, &Job::result);
    QTRY_VERIFY_WITH_TIMEOUT(killed, 20000);
    QVERIFY(killOk);
    QVERIFY2(bytesAtKill < size, "the copy was over before the kill: nothing tested");
    QCOMPARE(job->kill(verbosity), false); // already finished
    if (emitResult) {
        QCOMPARE(resultSpy.count(), 1);
        QCOMPARE(job->error(), int(ErrCancelled));
    }
    // Let the worker acknowledge the kill (it must stop promptly), then look.
    QVERIFY2(settleWorkers(3000), "the worker did not stop after the kill");
    QCOMPARE(resultSpy.count(), emitResult ? 1 : 0);
    QCOMPARE(namesIn(destDir), sorted(names)); // no x, no temporary, no .part
    compareTrees(destBefore, snapshot(destDir), true, true); // an existing destination is untouched
    if (QTest::currentTestFailed())
        return;
    struct stat st;
    QVERIFY(::stat(src.constData(), &st) == 0); // the source stays
    QCOMPARE(qint64(st.st_size), size);
}

void FileJobsTest::userPartFileKept_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("x"); // the content of out/x afterwards
    QTest::newRow("copy") << QByteArray("copy") << 0 << QByteArray("new");
    QTest::newRow("copy, overwrite") << QByteArray("copy overwrite") << 0 << QByteArray("new");
    QTest::newRow("copy onto an existing x fails")
        << QByteArray("copy fail") << int(ErrAlreadyExists) << QByteArray("old");
    QTest::newRow("put, overwrite") << QByteArray("put overwrite") << 0 << QByteArray("put");
    QTest::newRow("put onto an existing x fails")
        << QByteArray("put fail") << int(ErrAlreadyExists) << QByteArray("old");
    QTest::newRow("copy of x.part itself") << QByteArray("copy part") << 0 << QByteArray();
}

void FileJobsTest::userPartFileKept()
{
    QFETCH(QByteArray, operation);
    QFETCH(int, error);
    QFETCH(QByteArray, x);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(path("src/x"), "new"));
    QVERIFY(writeRaw(path("src/x.part"), "source part"));
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(writeRaw(path("out/x.part"), "mine"));
    QVERIFY(writeRaw(path("out/.x.part"), "mine too"));
    const bool existing = operation != "copy" && operation != "copy part";
    if (existing)
        QVERIFY(writeRaw(path("out/x"), "old"));
    std::unique_ptr<Job> j;
    if (operation.startsWith("put")) {
        j = run(Qvfs::storedPut("put", url("out/x"), -1, operation == "put overwrite" ? PutOverwrite : PutDefault));
    } else {
        CopyJob *job = Qvfs::copy(url(operation == "copy part" ? "src/x.part" : "src/x"), url("out"));
        job->setConflictPolicy(operation == "copy part" ? ConflictPolicy::Skip
                : operation == "copy overwrite"         ? ConflictPolicy::Overwrite
                                                        : ConflictPolicy::Fail);
        j = run(job);
    }
    QCOMPARE(j->error(), error);
    QCOMPARE(readRaw(path("out/x.part")), QByteArray("mine"));
    QCOMPARE(readRaw(path("out/.x.part")), QByteArray("mine too"));
    QList<QByteArray> names { ".x.part", "x.part" };
    if (!x.isEmpty() || existing) {
        names << "x";
        QCOMPARE(readRaw(path("out/x")), x);
    }
    QCOMPARE(namesIn(path("out")), sorted(names));
}

// ---------------------------------------------------------------- TransferJob

void FileJobsTest::transferGet_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("mimeType");
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<bool>("stored");
    QByteArray text;
    for (int i = 0; text.size() < 3 * MiB / 2; ++i)
        text += QByteArray("line " + QByteArray::number(i) + " of some text\n");
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
    const QByteArray pngData = QByteArray(png, sizeof png - 1) + pseudoRandom(400 * 1024, 9);
    QTest::newRow("text file") << QByteArray("doc.txt") << text << QStringLiteral("text/plain") << qint64(0) << false;
    QTest::newRow("PNG without extension")
        << QByteArray("picture") << pngData << QStringLiteral("image/png") << qint64(0) << false;
    QTest::newRow("empty file") << QByteArray("empty.txt") << QByteArray() << QStringLiteral("text/plain") << qint64(0)
                                << false;
    QTest::newRow("from an offset") << QByteArray("doc.txt") << text << QStringLiteral("text/plain") << qint64(1000)
                                    << false;
    QTest::newRow("storedGet") << QByteArray("doc.txt") << text << QStringLiteral("text/plain") << qint64(0) << true;
    QTest::newRow("odd name") << QByteArray("-n \xff\nx.txt") << text << QStringLiteral("text/plain") << qint64(0)
                              << false;
}

void FileJobsTest::transferGet()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, mimeType);
    QFETCH(qint64, offset);
    QFETCH(bool, stored);
    QVERIFY(writeRaw(path(name), content));
    TransferJob *job = stored ? Qvfs::storedGet(url(name)) : Qvfs::get(url(name), offset);
    QCOMPARE(job->url(), url(name));
    QVERIFY(!job->isPut());
    QByteArray received;
    int chunks = 0;
    int mimeSignals = 0;
    bool mimeBeforeData = true;
    qsizetype largest = 0;
    connect(job, &TransferJob::mimeTypeFound, this, [&](TransferJob *, const QString &m) {
        ++mimeSignals;
        QCOMPARE(m, mimeType);
    });
    connect(job, &TransferJob::data, this, [&](TransferJob *, const QByteArray &d) {
        if (mimeSignals == 0)
            mimeBeforeData = false;
        ++chunks;
        largest = std::max(largest, d.size());
        received += d;
    });
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    QCOMPARE(mimeSignals, 1);
    QVERIFY(mimeBeforeData);
    QCOMPARE(j->mimeType(), mimeType);
    QVERIFY(largest <= 256 * 1024);
    if (stored) {
        QCOMPARE(chunks, 0);
        QCOMPARE(static_cast<StoredTransferJob *>(j.get())->data(), content);
    } else {
        QVERIFY(received == content.mid(offset));
    }
}

void FileJobsTest::transferGetErrors_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("error");
    QTest::newRow("a folder") << QByteArray("dir") << int(ErrIsDirectory);
    QTest::newRow("missing") << QByteArray("missing") << int(ErrDoesNotExist);
    QTest::newRow("dangling symlink") << QByteArray("dangling") << int(ErrDoesNotExist);
    // Nobody writes to the fifo: a prompt error is expected, not a worker stuck in open().
    QTest::newRow("a fifo") << QByteArray("fifo") << -1;
}

void FileJobsTest::transferGetErrors()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, error);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(symlinkRaw("nowhere", path("dangling")));
    QVERIFY(::mkfifo(path("fifo").constData(), 0600) == 0);
    // A stuck worker is ended after 3 s of silence instead of 30.
    WorkerEnv timeout("QVFS_WORKER_TIMEOUT_MS", "3000");
    TransferJob *job = Qvfs::get(url(rel));
    QSignalSpy dataSpy(job, &TransferJob::data);
    QElapsedTimer timer;
    timer.start();
    auto j = run(job);
    if (error < 0) {
        QVERIFY2(j->error() != 0 && j->error() != int(ErrTimedOut) && timer.elapsed() < 2000,
            QByteArray("after " + QByteArray::number(timer.elapsed()) + " ms: " + errorName(j->error())).constData());
        QCOMPARE(j->errorArgs().value(0), encoded(path(rel)));
        return;
    }
    QCOMPARE(j->error(), error);
    QCOMPARE(j->errorArgs().value(0), encoded(path(rel)));
    QVERIFY2(j->errorString().contains(QString::fromUtf8(path(rel))), qPrintable(j->errorString()));
    QCOMPARE(dataSpy.count(), 0);
}

void FileJobsTest::transferPut_data()
{
    QTest::addColumn<QByteArray>("mode"); // "stream", "stored", "async"
    QTest::addColumn<int>("chunkSize");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<bool>("existing");
    QTest::addColumn<int>("expectedMode");
    QTest::newRow("streaming, 300 KiB chunks, 0640")
        << QByteArray("stream") << 300 * 1024 << 5 << 0640 << false << 0640;
    QTest::newRow("streaming, 1 MiB chunks")
        << QByteArray("stream") << int(MiB) << 3 << -1 << false << int(0666 & ~m_umask);
    QTest::newRow("streaming, nothing") << QByteArray("stream") << 0 << 0 << -1 << false << int(0666 & ~m_umask);
    QTest::newRow("storedPut") << QByteArray("stored") << 1000 << 1 << -1 << false << int(0666 & ~m_umask);
    QTest::newRow("storedPut, 2.5 MiB, 0600") << QByteArray("stored") << int(5 * MiB / 2) << 1 << 0600 << false << 0600;
    QTest::newRow("async data") << QByteArray("async") << 200 * 1024 << 4 << 0604 << false << 0604;
    QTest::newRow("overwrite, keeps the old mode") << QByteArray("stored") << 1000 << 1 << -1 << true << 0600;
    QTest::newRow("overwrite, streaming, new mode") << QByteArray("stream") << 100 * 1024 << 3 << 0644 << true << 0644;
}

void FileJobsTest::transferPut()
{
    QFETCH(QByteArray, mode);
    QFETCH(int, chunkSize);
    QFETCH(int, chunks);
    QFETCH(int, permissions);
    QFETCH(bool, existing);
    QFETCH(int, expectedMode);
    QVERIFY(mkdirRaw(path("out")));
    if (existing)
        QVERIFY(writeRaw(path("out/f"), "old content that is longer than the new one", 0600));
    QByteArray expected;
    for (int i = 0; i < chunks; ++i)
        expected += pseudoRandom(chunkSize, quint32(i + 100));
    const PutFlags flags = existing ? PutOverwrite : PutDefault;
    TransferJob *job = nullptr;
    int requests = 0;
    if (mode == "stored") {
        job = Qvfs::storedPut(expected, url("out/f"), permissions, flags);
    } else {
        job = Qvfs::put(url("out/f"), permissions, flags);
        if (mode == "async")
            job->setAsyncDataEnabled(true);
        connect(job, &TransferJob::dataReq, this, [&, job](TransferJob *, QByteArray &data) {
            const int i = requests++;
            const QByteArray chunk = i < chunks ? expected.mid(qsizetype(i) * chunkSize, chunkSize) : QByteArray();
            if (mode == "async") {
                QTimer::singleShot(5, job, [job, chunk] { job->sendAsyncData(chunk); });
            } else {
                data = chunk;
            }
        });
    }
    QVERIFY(job->isPut());
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    if (mode != "stored")
        QCOMPARE(requests, chunks + 1);
    QCOMPARE(readRaw(path("out/f")), expected);
    QCOMPARE(int(lstatRaw(path("out/f")).st_mode & 07777), expectedMode);
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { "f" });
}

void FileJobsTest::transferPutExisting_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("flags");
    QTest::addColumn<int>("error");
    QTest::newRow("existing file, no overwrite") << QByteArray("out/f") << int(PutDefault) << int(ErrAlreadyExists);
    QTest::newRow("a folder") << QByteArray("out/d") << int(PutDefault) << int(ErrIsDirectory);
    QTest::newRow("a folder, overwrite") << QByteArray("out/d") << int(PutOverwrite) << int(ErrIsDirectory);
    QTest::newRow("missing parent") << QByteArray("out/nodir/f") << int(PutDefault) << int(ErrDoesNotExist);
    QTest::newRow("a symlink, no overwrite") << QByteArray("out/link") << int(PutDefault) << int(ErrAlreadyExists);
}

void FileJobsTest::transferPutExisting()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, flags);
    QFETCH(int, error);
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(writeRaw(path("out/f"), "old", 0640));
    QVERIFY(mkdirRaw(path("out/d")));
    QVERIFY(symlinkRaw("f", path("out/link")));
    const QMap<QByteArray, Node> before = snapshot(path("out"));
    TransferJob *job = Qvfs::put(url(rel), -1, PutFlags(flags));
    int requests = 0;
    connect(job, &TransferJob::dataReq, this, [&requests](TransferJob *, QByteArray &data) {
        if (requests++ < 3)
            data = QByteArray(64 * 1024, 'n');
    });
    auto j = run(job);
    QCOMPARE(j->error(), error);
    const QByteArray named = error == ErrDoesNotExist ? path("out/nodir") : path(rel);
    QVERIFY2(j->errorString().contains(QString::fromUtf8(named)), qPrintable(j->errorString()));
    compareTrees(before, snapshot(path("out")), true, true); // untouched
    if (QTest::currentTestFailed())
        return;
}

void FileJobsTest::transferPutKilled_data()
{
    QTest::addColumn<bool>("existing");
    QTest::addColumn<bool>("emitResult");
    QTest::newRow("new file, quietly") << false << false;
    QTest::newRow("new file, with result") << false << true;
    QTest::newRow("overwrite, quietly") << true << false;
    QTest::newRow("overwrite, with result") << true << true;
}

void FileJobsTest::transferPutKilled()
{
    QFETCH(bool, existing);
    QFETCH(bool, emitResult);
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(writeRaw(path("out/x.part"), "mine"));
    if (existing)
        QVERIFY(writeRaw(path("out/x"), "old", 0640));
    const QMap<QByteArray, Node> before = snapshot(path("out"));
    TransferJob *job = Qvfs::put(url("out/x"), -1, existing ? PutOverwrite : PutDefault);
    job->setAutoDelete(false);
    std::unique_ptr<TransferJob> hold(job);
    QSignalSpy resultSpy(job, &Job::result);
    int requests = 0;
    bool killed = false;
    connect(job, &TransferJob::dataReq, this, [&](TransferJob *j, QByteArray &data) {
        if (++requests == 4) {
            QTimer::singleShot(0, j, [&, j] { killed = j->kill(emitResult ? Job::EmitResult : Job::Quietly); });
        }
        data = QByteArray(256 * 1024, 'k'); // never ends by itself
    });
    QTRY_VERIFY_WITH_TIMEOUT(killed, 10000);
    if (emitResult) {
        QCOMPARE(resultSpy.count(), 1);
        QCOMPARE(job->error(), int(ErrCancelled));
    }
    QVERIFY2(settleWorkers(3000), "the worker did not stop after the kill");
    compareTrees(before, snapshot(path("out")), true, true);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(resultSpy.count(), emitResult ? 1 : 0);
}

void FileJobsTest::genericCopy_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("into");
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<bool>("existing");
    QTest::addColumn<int>("error");
    QTest::addColumn<qint64>("size"); // of the result; -1: the old content stays
    QTest::newRow("3,000,000 bytes, copyAs") << QStringLiteral("test:///data?size=3000000") << false
                                             << ConflictPolicy::Fail << false << 0 << qint64(3000000);
    QTest::newRow("into a folder") << QStringLiteral("test:///data?size=1000") << true << ConflictPolicy::Fail << false
                                   << 0 << qint64(1000);
    QTest::newRow("onto an existing file, no overwrite")
        << QStringLiteral("test:///data?size=3000000") << false << ConflictPolicy::Fail << true
        << int(ErrAlreadyExists) << qint64(-1);
    QTest::newRow("onto an existing file, skip")
        << QStringLiteral("test:///data?size=3000000") << false << ConflictPolicy::Skip << true << 0 << qint64(-1);
    QTest::newRow("onto an existing file, overwrite") << QStringLiteral("test:///data?size=3000000") << false
                                                      << ConflictPolicy::Overwrite << true << 0 << qint64(3000000);
}

void FileJobsTest::genericCopy()
{
    QFETCH(QString, source);
    QFETCH(bool, into);
    QFETCH(ConflictPolicy, policy);
    QFETCH(bool, existing);
    QFETCH(int, error);
    QFETCH(qint64, size);
    QVERIFY(mkdirRaw(path("out")));
    const QByteArray result = into ? path("out/data") : path("out/x");
    if (existing)
        QVERIFY(writeRaw(result, "old", 0640));
    const QMap<QByteArray, Node> before = snapshot(path("out"));
    CopyJob *job = into ? Qvfs::copy(QUrl(source), url("out")) : Qvfs::copyAs(QUrl(source), fileUrl(result));
    job->setConflictPolicy(policy);
    auto j = run(job);
    QVERIFY2(j->error() == error, qPrintable(QString::number(j->error()) + QLatin1String(": ") + j->errorString()));
    if (size < 0) {
        compareTrees(before, snapshot(path("out")), true, true);
        if (QTest::currentTestFailed())
            return;
        return;
    }
    QCOMPARE(readRaw(result), QByteArray(size, 'x'));
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { Url::fileName(fileUrl(result)) });
    QCOMPARE(j->processedAmount(Job::Bytes), size);
    QCOMPARE(j->percent(), 100ul);
}

void FileJobsTest::transferPutOntoSymlink()
{
    // "A symlink at the destination is replaced, never written through" (issue 16.7): a
    // link planted in a shared folder must not redirect the write to its target.
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(mkdirRaw(path("real")));
    QVERIFY(writeRaw(path("real/f"), "old", 0640));
    QVERIFY(symlinkRaw("../real/f", path("out/link")));
    auto j = run(Qvfs::storedPut("new content", url("out/link"), -1, PutOverwrite));
    QCOMPARE(j->error(), 0);
    QVERIFY(S_ISREG(lstatRaw(path("out/link")).st_mode));
    QCOMPARE(readRaw(path("out/link")), QByteArray("new content"));
    QCOMPARE(int(lstatRaw(path("out/link")).st_mode & 07777), int(0666 & ~m_umask));
    QCOMPARE(readRaw(path("real/f")), QByteArray("old"));
    QCOMPARE(int(lstatRaw(path("real/f")).st_mode & 07777), 0640);
    QCOMPARE(namesIn(path("real")), QList<QByteArray> { "f" });
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { "link" });
}

void FileJobsTest::genericPathFileToFile_data()
{
    QTest::addColumn<QString>("function");
    for (const char *f : { "copyFile", "copyTree", "copyConflicts", "copyIdentical", "copyCycle",
             "moveAcrossFilesystems", "copyProgress", "copyKill", "userPartFileKept", "names" })
        QTest::newRow(f) << QString::fromLatin1(f);
}

void FileJobsTest::genericPathFileToFile()
{
    // The generic path (get -> put through the application, mkdir, symlink, del) is what
    // every worker without the "copy" capability gets (sftp, plain http...), also between
    // two URLs of its own protocol. The test:// worker cannot be written to, so the copy
    // tests run again in a child process where file:// is described without "copy": the
    // same real worker, but the copy jobs take the generic path. They promise the same.
    QFETCH(QString, function);
    if (qEnvironmentVariableIsSet("QVFS_WORKER_PATH"))
        QSKIP("already running with a worker path of its own");
    const QByteArray dir = path("workers");
    QVERIFY(mkdirRaw(dir));
    const QByteArray worker = join(QFile::encodeName(QCoreApplication::applicationDirPath()), "qvfs-worker-file");
    QVERIFY2(existsRaw(worker), worker.constData());
    QVERIFY(symlinkRaw(worker, join(dir, "qvfs-worker-file")));
    QVERIFY(writeRaw(join(dir, "qvfs-worker-file.json"),
        "{\"exec\": \"qvfs-worker-file\", \"protocols\": [\"file\"], \"capabilities\": [\"list\", "
        "\"stat\", \"read\", \"write\", \"delete\", \"mkdir\", \"rename\", \"symlink\", \"chmod\", "
        "\"size\", \"settime\"], \"maxInstances\": 5, \"maxInstancesPerHost\": 5}\n"));
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QVFS_WORKER_PATH"), QFile::decodeName(dir));
    env.insert(QStringLiteral("QVFS_WORKER_TIMEOUT_MS"), QStringLiteral("5000")); // a stuck worker costs 5 s, not 30
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), { function });
    QVERIFY(child.waitForStarted());
    QVERIFY(child.waitForFinished(15 * 60 * 1000));
    const QList<QByteArray> lines = child.readAll().split('\n');
    QByteArray failures;
    int failed = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!lines.at(i).startsWith("FAIL!"))
            continue;
        ++failed;
        // "FAIL!  : FileJobsTest::copyFile(row) message": the row and the start of the message
        QByteArray line = lines.at(i).mid(lines.at(i).indexOf("::") + 2).simplified();
        if (i + 1 < lines.size() && lines.at(i + 1).startsWith("   Actual"))
            line += ' ' + lines.at(i + 1).simplified();
        failures += QByteArray("\n  " + line.left(120));
    }
    QByteArray totals;
    for (const QByteArray &l : lines) {
        if (l.startsWith("Totals:"))
            totals = l;
    }
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0 && failed == 0,
        QByteArray("generic path: " + totals + failures).constData());
}

// ---------------------------------------------------------------- names

void FileJobsTest::names_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("Latin-1 byte") << QByteArray("caf\xe9");
    QTest::newRow("invalid UTF-8") << QByteArray("\xff\xfe\x80 bad \xc3(");
    QTest::newRow("spaces") << QByteArray(" two  spaces ");
    QTest::newRow("newline") << QByteArray("line1\nline2");
    QTest::newRow("leading dash") << QByteArray("-rf --help");
    QTest::newRow("255 bytes") << QByteArray(255, 'n');
    QByteArray cjk;
    while (cjk.size() < 255)
        cjk += "\xe6\x97\xa5"; // U+65E5, 3 bytes: 85 of them are 255 bytes
    QTest::newRow("255 bytes of 3-byte characters") << cjk;
    QTest::newRow("percent, hash, question mark") << QByteArray("100% #1 ?x=y&z");
    QTest::newRow("backslash and quotes") << QByteArray("a\\b \"c\" 'd'");
    QTest::newRow("tab and control bytes") << QByteArray("tab\there\x01\x7f");
    QTest::newRow("dot name with extension") << QByteArray(".hidden name.tar.gz");
    QTest::newRow("looks like a URL") << QByteArray("file:%2F%2Fx");
}

void FileJobsTest::names()
{
    QFETCH(QByteArray, name);
    const QByteArray content = QByteArray("content of " + name);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(join(path("src"), name), content));
    QVERIFY(mkdirRaw(path("srcdir")));
    QVERIFY(mkdirRaw(join(path("srcdir"), name)));
    QVERIFY(writeRaw(join(join(path("srcdir"), name), name), content));
    QVERIFY(mkdirRaw(path("copy")));
    QVERIFY(mkdirRaw(path("moved")));
    const QUrl srcDir = url("src");
    const QUrl file = Url::child(srcDir, name);
    QVERIFY(file.isValid());
    QCOMPARE(Url::fileName(file), name);
    QCOMPARE(Url::localPath(file), join(path("src"), name));

    // list
    const Listing flat = collect(Qvfs::listDir(srcDir, DetailsFull));
    QCOMPARE(flat.error, 0);
    QCOMPARE(flat.entries.keys(), QList<QByteArray> { name });
    QCOMPARE(flat.entries.first().size(), qint64(content.size()));
    const Listing rec = collect(Qvfs::listRecursive(url("srcdir")));
    QCOMPARE(rec.error, 0);
    QCOMPARE(rec.entries.keys(), sorted({ name, join(name, name) }));
    QCOMPARE(Url::localPath(Url::child(url("srcdir"), join(name, name))), join(join(path("srcdir"), name), name));

    // stat and get
    auto st = run(Qvfs::stat(file, DetailsFull));
    QCOMPARE(st->error(), 0);
    QCOMPARE(st->statResult().name().toByteArray(), name);
    QCOMPARE(st->statResult().size(), qint64(content.size()));
    QCOMPARE(st->statResult().number(Hidden, 0), qint64(name.startsWith('.') ? 1 : 0));
    auto get = run(Qvfs::storedGet(file));
    QCOMPARE(get->error(), 0);
    QCOMPARE(get->data(), content);

    // copy, then copy again under a free name
    auto cp = run(Qvfs::copy(file, url("copy")));
    QCOMPARE(cp->error(), 0);
    QCOMPARE(namesIn(path("copy")), QList<QByteArray> { name });
    QCOMPARE(readRaw(join(path("copy"), name)), content);
    CopyJob *again = Qvfs::copy(file, url("copy"));
    again->setConflictPolicy(ConflictPolicy::Rename);
    auto cp2 = run(again);
    QCOMPARE(cp2->error(), 0);
    const QList<QByteArray> copies = namesIn(path("copy"));
    QCOMPARE(copies.size(), 2);
    const QByteArray other = copies.at(0) == name ? copies.at(1) : copies.at(0);
    QVERIFY2(other.contains(" (1)") && other.size() <= 255, other.constData());
    QCOMPARE(readRaw(join(path("copy"), other)), content);
    QCOMPARE(readRaw(join(path("copy"), name)), content);

    // a tree whose folder and file have that name
    auto tree = run(Qvfs::copy(Url::child(url("srcdir"), name), url("copy")));
    QVERIFY2(tree->error() == int(ErrAlreadyExists) || tree->error() == 0, qPrintable(tree->errorString()));
    auto treeAs = run(Qvfs::copyAs(Url::child(url("srcdir"), name), url("treecopy")));
    QCOMPARE(treeAs->error(), 0);
    QCOMPARE(readRaw(join(path("treecopy"), name)), content);

    // move, rename there and back
    auto mv = run(Qvfs::move(Url::child(url("copy"), name), url("moved")));
    QCOMPARE(mv->error(), 0);
    QVERIFY(!existsRaw(join(path("copy"), name)));
    QCOMPARE(namesIn(path("moved")), QList<QByteArray> { name });
    QCOMPARE(readRaw(join(path("moved"), name)), content);
    auto rn = run(Qvfs::rename(Url::child(url("moved"), name), url("moved/plain")));
    QCOMPARE(rn->error(), 0);
    auto back = run(Qvfs::rename(url("moved/plain"), Url::child(url("moved"), name)));
    QCOMPARE(back->error(), 0);
    QCOMPARE(namesIn(path("moved")), QList<QByteArray> { name });

    // delete
    auto del = run(Qvfs::del({ Url::child(url("moved"), name), Url::child(url("srcdir"), name), file }));
    QCOMPARE(del->error(), 0);
    QCOMPARE(del->removedCount(), qint64(4));
    QVERIFY(namesIn(path("moved")).isEmpty());
    QVERIFY(namesIn(path("srcdir")).isEmpty());
    QVERIFY(namesIn(path("src")).isEmpty());
}

// ---------------------------------------------------------------- sparse files

void FileJobsTest::sparseFile()
{
    constexpr qint64 size = 5 * 1024 * MiB + 12345; // over 4 GiB
    constexpr qint64 tailAt = 4 * 1024 * MiB + 777;
    const QByteArray src = path("sparse");
    const int fd = ::open(src.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    const bool ok
        = ::ftruncate(fd, size) == 0 && ::pwrite(fd, "head", 4, 0) == 4 && ::pwrite(fd, "tail", 4, tailAt) == 4;
    ::close(fd);
    QVERIFY(ok);
    const struct stat srcSt = lstatRaw(src);
    QVERIFY2(qint64(srcSt.st_blocks) * 512 < 4 * MiB, "this filesystem does not keep holes");

    auto st = run(Qvfs::stat(fileUrl(src), DetailsFull));
    QCOMPARE(st->error(), 0);
    QCOMPARE(st->statResult().size(), size);
    QCOMPARE(st->statResult().number(Blocks), qint64(srcSt.st_blocks));
    auto du = run(Qvfs::directorySize(fileUrl(m_root)));
    QCOMPARE(du->totalBytes(), size);

    QElapsedTimer timer;
    timer.start();
    auto cp = run(Qvfs::copyAs(fileUrl(src), url("sparse.copy")));
    QCOMPARE(cp->error(), 0);
    const struct stat dst = lstatRaw(path("sparse.copy"));
    QCOMPARE(qint64(dst.st_size), size);
    QVERIFY2(qint64(dst.st_blocks) * 512 <= 4 * MiB,
        QByteArray("the copy filled its holes: " + QByteArray::number(qint64(dst.st_blocks)) + " blocks").constData());
    QCOMPARE(cp->processedAmount(Job::Bytes), size);
    const int in = ::open(path("sparse.copy").constData(), O_RDONLY | O_CLOEXEC);
    QVERIFY(in >= 0);
    char buf[4096];
    QCOMPARE(::pread(in, buf, 4, 0), ssize_t(4));
    QCOMPARE(QByteArray(buf, 4), QByteArray("head"));
    QCOMPARE(::pread(in, buf, 4, tailAt), ssize_t(4));
    QCOMPARE(QByteArray(buf, 4), QByteArray("tail"));
    QCOMPARE(::pread(in, buf, sizeof buf, 2 * 1024 * MiB), ssize_t(sizeof buf));
    ::close(in);
    QVERIFY(std::all_of(buf, buf + sizeof buf, [](char c) { return c == 0; }));
}

// ---------------------------------------------------------------- access denied

void FileJobsTest::accessDenied_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::addColumn<QByteArray>("rel"); // the URL given, relative to the fixture "acc"
    QTest::addColumn<QByteArray>("named"); // the exact path the error must name
    QTest::newRow("list a closed folder") << QByteArray("list") << QByteArray("secret") << QByteArray("secret");
    QTest::newRow("list a closed folder recursively")
        << QByteArray("listRecursive") << QByteArray("secret") << QByteArray("secret");
    QTest::newRow("stat inside a closed folder")
        << QByteArray("stat") << QByteArray("secret/f") << QByteArray("secret/f");
    QTest::newRow("get an unreadable file")
        << QByteArray("get") << QByteArray("private.txt") << QByteArray("private.txt");
    QTest::newRow("copy an unreadable file")
        << QByteArray("copyAs") << QByteArray("private.txt") << QByteArray("private.txt");
    QTest::newRow("copy a tree with an unreadable file")
        << QByteArray("copy") << QByteArray("tree") << QByteArray("tree/b.txt");
    QTest::newRow("size a tree with a closed folder")
        << QByteArray("size") << QByteArray("sizetree") << QByteArray("sizetree/locked");
    QTest::newRow("delete in a read-only folder")
        << QByteArray("delete") << QByteArray("ro/victim") << QByteArray("ro/victim");
    // Its 3 files can go, the folder itself cannot: removedCount counts what went.
    QTest::newRow("delete a tree in a read-only folder")
        << QByteArray("deleteTree") << QByteArray("ro/tree") << QByteArray("ro/tree");
    QTest::newRow("mkdir in a read-only folder") << QByteArray("mkdir") << QByteArray("ro/new") << QByteArray("ro/new");
    QTest::newRow("put in a read-only folder")
        << QByteArray("put") << QByteArray("ro/new.txt") << QByteArray("ro/new.txt");
    if (::geteuid() == 0) // a file of one's own can always be chmod-ed
        QTest::newRow("chmod another user's file")
            << QByteArray("chmod") << QByteArray("private.txt") << QByteArray("private.txt");
}

void FileJobsTest::accessDenied()
{
    QFETCH(QByteArray, operation);
    QFETCH(QByteArray, rel);
    QFETCH(QByteArray, named);
    // As root the worker drops to nobody; the fixture is root's, so 0700/0600 close it.
    // Otherwise the fixture is ours and modes 0000/0555 close it.
    const mode_t closedDir = m_isRoot ? 0700 : 0000;
    const mode_t closedFile = m_isRoot ? 0600 : 0000;
    const mode_t readOnlyDir = m_isRoot ? 0755 : 0555;
    const QByteArray t = path("acc");
    QVERIFY(mkdirRaw(t, 0755));
    QVERIFY(mkdirRaw(join(t, "secret"), 0755));
    QVERIFY(writeRaw(join(t, "secret/f"), "f"));
    QVERIFY(::chmod(join(t, "secret").constData(), closedDir) == 0);
    QVERIFY(writeRaw(join(t, "private.txt"), "private", closedFile));
    QVERIFY(mkdirRaw(join(t, "tree"), 0755));
    QVERIFY(writeRaw(join(t, "tree/a.txt"), "a", 0644));
    QVERIFY(writeRaw(join(t, "tree/b.txt"), "b", closedFile));
    QVERIFY(mkdirRaw(join(t, "sizetree"), 0755));
    QVERIFY(writeRaw(join(t, "sizetree/x.txt"), "x", 0644));
    QVERIFY(mkdirRaw(join(t, "sizetree/locked"), 0755));
    QVERIFY(writeRaw(join(t, "sizetree/locked/y"), "y"));
    QVERIFY(::chmod(join(t, "sizetree/locked").constData(), closedDir) == 0);
    QVERIFY(mkdirRaw(join(t, "ro"), 0755));
    QVERIFY(writeRaw(join(t, "ro/victim"), "victim", 0666));
    QVERIFY(mkdirRaw(join(t, "ro/tree"), 0755));
    for (const char *f : { "ro/tree", "ro/tree/1", "ro/tree/2", "ro/tree/3" }) {
        if (!existsRaw(join(t, f)))
            QVERIFY(writeRaw(join(t, f), f, 0644));
        if (m_isRoot) // the unprivileged worker's own
            QVERIFY(::lchown(join(t, f).constData(), 65534, 65534) == 0);
    }
    QVERIFY(::chmod(join(t, "ro").constData(), readOnlyDir) == 0);
    QVERIFY(mkdirRaw(join(t, "out"), 0777));
    const QUrl u = fileUrl(join(t, rel));

    int error = 0;
    QString errorString;
    QStringList errorArgs;
    qint64 removed = -1;
    {
        WorkerEnv prefix("QVFS_WORKER_PREFIX",
            m_isRoot ? QByteArray("setpriv --reuid=65534 --regid=65534 --clear-groups") : QByteArray());
        std::unique_ptr<Job> j;
        if (operation == "list" || operation == "listRecursive") {
            const Listing l = collect(operation == "list" ? Qvfs::listDir(u) : Qvfs::listRecursive(u));
            error = l.error;
            errorString = l.errorString;
            errorArgs = l.errorArgs;
        } else {
            if (operation == "stat")
                j = run(Qvfs::stat(u));
            else if (operation == "get")
                j = run(Qvfs::storedGet(u));
            else if (operation == "copyAs")
                j = run(Qvfs::copyAs(u, fileUrl(join(t, "out/p.txt"))));
            else if (operation == "copy")
                j = run(Qvfs::copy(u, fileUrl(join(t, "out"))));
            else if (operation == "size")
                j = run(Qvfs::directorySize(u));
            else if (operation == "delete")
                j = run(Qvfs::del(u));
            else if (operation == "deleteTree") {
                auto d = run(Qvfs::del(u));
                removed = d->removedCount();
                j = std::move(d);
            } else if (operation == "mkdir")
                j = run(Qvfs::mkdir(u));
            else if (operation == "put")
                j = run(Qvfs::storedPut("data", u));
            else if (operation == "chmod")
                j = run(Qvfs::chmod(u, 0644));
            QVERIFY(j);
            error = j->error();
            errorString = j->errorString();
            errorArgs = j->errorArgs();
        }
        if (m_isRoot) {
            // the worker really ran unprivileged
            const QList<qint64> pids = childPids();
            QVERIFY(!pids.isEmpty());
            for (qint64 pid : pids)
                QCOMPARE(realUidOf(pid), qint64(65534));
        }
    }
    QCOMPARE(error, int(ErrAccessDenied));
    QCOMPARE(errorArgs.value(0), encoded(join(t, named)));
    QVERIFY2(errorString.contains(QString::fromUtf8(join(t, named))), qPrintable(errorString));
    // nothing was changed where access was denied
    QCOMPARE(readRaw(join(t, "ro/victim")), QByteArray("victim"));
    QCOMPARE(namesIn(join(t, "ro")), (QList<QByteArray> { "tree", "victim" }));
    QVERIFY(!existsRaw(join(t, "out/p.txt")));
    if (operation == "deleteTree") {
        QVERIFY(namesIn(join(t, "ro/tree")).isEmpty()); // the files went
        QCOMPARE(removed, qint64(3)); // "how many entries were removed so far"
    }
}

QTEST_GUILESS_MAIN(FileJobsTest)

#include "filejobstest.moc"
