// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filejobcheck.h"

#include "procutil.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/FileJob>
#include <Qvfs/Job>

#include <QEventLoop>
#include <QHash>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace QvfsTest
{

std::unique_ptr<Qvfs::FileJob> openJob(const QUrl &url, QIODevice::OpenMode mode)
{
    Qvfs::FileJob *job = Qvfs::open(url, mode);
    job->setAutoDelete(false);
    return std::unique_ptr<Qvfs::FileJob>(job);
}

bool waitOpen(Qvfs::FileJob *job)
{
    QSignalSpy opened(job, &Qvfs::FileJob::opened);
    QSignalSpy result(job, &Qvfs::Job::result);
    (void)QTest::qWaitFor([&] { return opened.count() || result.count(); }, 30000);
    return opened.count() == 1;
}

QByteArray readNow(Qvfs::FileJob *job, qint64 offset, qint64 length, bool *ok)
{
    QByteArray out;
    bool done = false;
    const quint32 id = job->readAt(offset, length);
    if (ok)
        *ok = id != 0;
    if (!id)
        return out;
    // An event loop that ends at the answer: QTest::qWaitFor() sleeps 10 ms between looks,
    // which would hide the round trip. The connections end with it.
    QEventLoop loop;
    QObject::connect(
        job, &Qvfs::FileJob::dataRead, &loop, [&](Qvfs::FileJob *, quint32 i, qint64, const QByteArray &d) {
            if (i != id)
                return;
            out.append(d);
            if (d.isEmpty() || out.size() == length) {
                done = true;
                loop.quit();
            }
        });
    QObject::connect(job, &Qvfs::Job::result, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    loop.exec();
    if (ok)
        *ok = done;
    return out;
}

namespace
{
constexpr qint64 Chunk = 256 * 1024;

struct Pending
{
    qint64 offset = 0;
    qint64 length = 0;
    QByteArray got;
    bool ended = false;
};

qint64 randomLength(QRandomGenerator &rng)
{
    const quint32 kind = rng.bounded(100);
    if (kind < 5)
        return 0;
    if (kind < 50)
        return 1 + rng.bounded(4096);
    if (kind < 75)
        return 4097 + rng.bounded(60 * 1024);
    if (kind < 90) {
        // Around one and two pieces.
        const qint64 base = rng.bounded(2) ? Chunk : 2 * Chunk;
        return base - 2 + rng.bounded(5);
    }
    return 1 + rng.bounded(1024 * 1024);
}

qint64 randomOffset(QRandomGenerator &rng, qint64 size)
{
    const quint32 kind = rng.bounded(100);
    if (kind < 5)
        return size; // exactly at the end
    if (kind < 10)
        return size + 1 + rng.bounded(300 * 1024); // past it
    if (kind < 15)
        return qMax<qint64>(0, size - 1 - rng.bounded(4096)); // just before it
    return qint64(rng.bounded(quint64(size) + 1));
}
} // namespace

RandomReadReport checkRandomReads(
    const QUrl &url, const QByteArray &localPath, int count, quint32 seed, int maxInFlight)
{
    RandomReadReport report;
    const int fd = ::open(localPath.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        report.failure = QStringLiteral("cannot open %1 directly").arg(QString::fromLocal8Bit(localPath));
        return report;
    }
    struct stat st;
    ::fstat(fd, &st);
    const qint64 size = st.st_size;
    QRandomGenerator rng(seed);
    QHash<quint32, Pending> pending;
    int made = 0;
    QEventLoop loop;
    auto fail = [&](const QString &why) {
        if (report.failure.isEmpty())
            report.failure = why;
        loop.quit();
    };

    const std::unique_ptr<Qvfs::FileJob> owner = openJob(url, QIODevice::ReadOnly);
    Qvfs::FileJob *job = owner.get();

    auto makeMore = [&] {
        while (made < count && pending.size() < maxInFlight) {
            Pending p;
            p.offset = randomOffset(rng, size);
            p.length = randomLength(rng);
            const quint32 id = job->readAt(p.offset, p.length);
            if (!id)
                return fail(QStringLiteral("readAt refused a read"));
            if (pending.contains(id))
                return fail(QStringLiteral("an id given twice"));
            pending.insert(id, p);
            ++made;
            report.peakInFlight = qMax(report.peakInFlight, int(pending.size()));
        }
        if (made == count && pending.isEmpty())
            job->close();
    };
    QObject::connect(job, &Qvfs::FileJob::opened, &loop, [&](Qvfs::FileJob *, qint64 openedSize) {
        if (openedSize != size)
            fail(QStringLiteral("opened() says %1 bytes, the file has %2").arg(openedSize).arg(size));
    });
    QObject::connect(
        job, &Qvfs::FileJob::dataRead, &loop, [&](Qvfs::FileJob *, quint32 id, qint64 offset, const QByteArray &data) {
            auto it = pending.find(id);
            if (it == pending.end())
                return fail(QStringLiteral("data for an unknown or finished read %1").arg(id));
            Pending &p = it.value();
            if (offset != p.offset + p.got.size())
                return fail(QStringLiteral("read %1: a piece at %2, expected at %3")
                                .arg(id)
                                .arg(offset)
                                .arg(p.offset + p.got.size()));
            if (data.size() > 256 * 1024)
                return fail(QStringLiteral("a piece of %1 bytes (more than 256 KiB)").arg(data.size()));
            p.got.append(data);
            report.bytes += data.size();
            const bool complete = data.isEmpty() || (p.got.size() == p.length && p.length > 0);
            if (!complete)
                return;
            // What pread() says about the same range.
            QByteArray expected(p.length, Qt::Uninitialized);
            qint64 n = 0;
            while (n < p.length) {
                const ssize_t r = ::pread(fd, expected.data() + n, size_t(p.length - n), off_t(p.offset + n));
                if (r <= 0)
                    break;
                n += r;
            }
            expected.truncate(n);
            if (p.got != expected)
                return fail(QStringLiteral("read %1 (offset %2, length %3): %4 bytes differ from pread's %5")
                                .arg(id)
                                .arg(p.offset)
                                .arg(p.length)
                                .arg(p.got.size())
                                .arg(expected.size()));
            if (!data.isEmpty() && p.got.size() < p.length)
                return fail(QStringLiteral("read %1 ended short without an empty piece").arg(id));
            if (data.isEmpty() && p.got.size() == p.length && p.length > 0)
                return fail(QStringLiteral("read %1: an empty piece after the whole length").arg(id));
            if (p.offset >= size)
                ++report.pastEnd;
            if (p.length == 0)
                ++report.empty;
            if (p.length > 256 * 1024)
                ++report.acrossChunks;
            ++report.reads;
            pending.erase(it);
            makeMore();
        });
    QObject::connect(job, &Qvfs::Job::result, &loop, [&](Qvfs::Job *j) {
        if (j->error())
            fail(QStringLiteral("the job failed: %1").arg(j->errorString()));
        else if (report.reads != count)
            fail(QStringLiteral("the job ended after %1 of %2 reads").arg(report.reads).arg(count));
        loop.quit();
    });
    makeMore();
    QTimer::singleShot(300000, &loop, [&] { fail(QStringLiteral("timed out")); });
    loop.exec();
    if (!job->error() && job->isOpen())
        job->kill();
    ::close(fd);
    return report;
}

// ---------------------------------------------------------------- OpenBackend

namespace
{
bool holds(qint64 pid, const QByteArray &path)
{
    const QByteArray dir = "/proc/" + QByteArray::number(pid) + "/fd";
    for (const QByteArray &fd : namesIn(dir)) {
        if (readLinkRaw(dir + '/' + fd) == path)
            return true;
    }
    return false;
}

QList<qint64> allPids()
{
    QList<qint64> out;
    for (const QByteArray &n : namesIn("/proc")) {
        bool ok = false;
        const qint64 pid = n.toLongLong(&ok);
        if (ok)
            out.append(pid);
    }
    return out;
}
} // namespace

OpenBackend::OpenBackend()
{
    if (qgetenv("QVFS_OPEN_BACKEND") == "sftp")
        m_kind = Kind::Sftp;
}

OpenBackend::~OpenBackend()
{
    stop();
}

QByteArray OpenBackend::name() const
{
    return m_kind == Kind::Sftp ? QByteArrayLiteral("sftp") : QByteArrayLiteral("file");
}

bool OpenBackend::start(QByteArray *why)
{
    if (m_kind == Kind::File)
        return true;
    // "ok PORT DIR CONFIG"
    const QList<QByteArray> f = m_helper.start("qvfs-test-sshd", {}, 3, "the sshd fixture", why);
    if (f.isEmpty())
        return false;
    m_port = f.at(0).toInt();
    m_dir = f.at(1);
    const QByteArray runtime = m_dir + "/xdg-runtime";
    mkdirRaw(runtime, 0700);
    Qvfs::shutdownIdleWorkers(); // a worker that started before would not see these
    qputenv("QVFS_SSH_CONFIG", f.at(2));
    qputenv("SSH_AUTH_SOCK", m_dir + "/agent.sock");
    qputenv("XDG_RUNTIME_DIR", runtime);
    qputenv("HOME", m_dir); // whatever ssh might look at: never the real one
    return true;
}

void OpenBackend::stop()
{
    if (m_kind == Kind::File || !m_port)
        return;
    Qvfs::shutdownIdleWorkers();
    m_helper.stop();
    m_port = 0;
}

QUrl OpenBackend::url(const QByteArray &localPath) const
{
    return m_kind == Kind::File ? fileUrl(localPath) : sftpUrl(m_port, localPath);
}

QList<qint64> OpenBackend::holders(const QByteArray &localPath) const
{
    // The server's processes are not this test's children (they run under the helper).
    QList<qint64> out;
    for (qint64 pid : m_kind == Kind::File ? ProcUtil::childPids() : allPids()) {
        if (pid != qint64(::getpid()) && holds(pid, localPath))
            out.append(pid);
    }
    return out;
}

QList<qint64> OpenBackend::workersHolding(const QByteArray &localPath) const
{
    if (m_kind == Kind::File)
        return holders(localPath);
    // The worker holds a handle on the server, not the file: while a single file is open,
    // that is the one sftp worker running.
    QList<qint64> out;
    if (holders(localPath).isEmpty())
        return out;
    for (qint64 pid : ProcUtil::childPids()) {
        if (readLinkRaw("/proc/" + QByteArray::number(pid) + "/exe").endsWith("/qvfs-worker-sftp"))
            out.append(pid);
    }
    return out;
}

} // namespace QvfsTest
