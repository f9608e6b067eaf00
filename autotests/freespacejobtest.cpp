// SPDX-License-Identifier: LGPL-2.1-or-later
// FreeSpaceJob through the real file:// worker: the figures statvfs(2) gives for the
// same path (a folder, a file, a symlink followed as df follows it), exact figures on a
// tmpfs of a known size, a missing path, and a protocol whose worker does not declare
// "freeSpace" (refused by the core without starting a worker).
//
// Fixtures are made with raw system calls (testutil/rawfs.h). After every row no worker
// process may be left running (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Protocol>

#include <QTest>

#include <sys/statvfs.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

/*! What statvfs(2) says about \a path, in bytes. */
struct Figures
{
    qint64 total = -1;
    qint64 free = -1;
    qint64 available = -1;
};

bool statvfsOf(const QByteArray &path, Figures *f)
{
    struct statvfs st;
    if (::statvfs(path.constData(), &st) != 0)
        return false;
    const qint64 unit = qint64(st.f_frsize ? st.f_frsize : st.f_bsize);
    f->total = qint64(st.f_blocks) * unit;
    f->free = qint64(st.f_bfree) * unit;
    f->available = qint64(st.f_bavail) * unit;
    return true;
}

/*!
 * Whether \a value lies between \a a and \a b (statvfs before and after the job), give or
 * take \a slack: other programs write to the same disk meanwhile.
 */
bool within(qint64 value, qint64 a, qint64 b, qint64 slack)
{
    return value >= qMin(a, b) - slack && value <= qMax(a, b) + slack;
}

} // namespace

class FreeSpaceJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void capability();
    void likeStatvfs_data();
    void likeStatvfs();
    void exactOnTmpfs();
    void errors_data();
    void errors();
    void unsupportedProtocol();
};

void FreeSpaceJobTest::capability()
{
    QVERIFY(Protocol::find(QStringLiteral("file")).hasCapability(Protocol::FreeSpace));
    // The test worker declares no "freeSpace" (see unsupportedProtocol()).
    QVERIFY(Protocol::find(QStringLiteral("test")).isValid());
    QVERIFY(!Protocol::find(QStringLiteral("test")).hasCapability(Protocol::FreeSpace));
}

void FreeSpaceJobTest::likeStatvfs_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::newRow("the fixture folder") << QByteArray("");
    QTest::newRow("a folder in it") << QByteArray("dir");
    QTest::newRow("a file") << QByteArray("dir/file");
    QTest::newRow("a symlink to the folder (followed, as df does)") << QByteArray("link");
}

void FreeSpaceJobTest::likeStatvfs()
{
    QFETCH(QByteArray, rel);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("dir/file"), "content"));
    QVERIFY(symlinkRaw("dir", path("link")));
    const QByteArray p = rel.isEmpty() ? m_fx.root() : path(rel);
    Figures before;
    QVERIFY(statvfsOf(p, &before));
    auto job = run(Qvfs::freeSpace(url(rel)));
    Figures after;
    QVERIFY(statvfsOf(p, &after));
    QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
    QCOMPARE(job->url(), url(rel));
    // The size of a filesystem does not move; what is free does, a little, while others write.
    QCOMPARE(job->total(), before.total);
    QCOMPARE(after.total, before.total);
    constexpr qint64 Slack = 4 * MiB;
    QVERIFY2(within(job->free(), before.free, after.free, Slack),
        qPrintable(QStringLiteral("free %1, statvfs %2 / %3").arg(job->free()).arg(before.free).arg(after.free)));
    QVERIFY2(within(job->available(), before.available, after.available, Slack),
        qPrintable(QStringLiteral("available %1, statvfs %2 / %3")
                       .arg(job->available())
                       .arg(before.available)
                       .arg(after.available)));
    QVERIFY(job->available() <= job->free());
    QVERIFY(job->free() <= job->total());
    // No worker reports "used" for a local filesystem: the job derives it.
    QCOMPARE(job->used(), job->total() - job->free());
}

void FreeSpaceJobTest::exactOnTmpfs()
{
    // A tmpfs of its own: nobody else writes there, so every figure is exact.
    if (!m_fx.isRoot())
        QSKIP("mounting a tmpfs needs root: the exact figures are not tested (likeStatvfs still runs)");
    const QByteArray mnt = path("mnt");
    QVERIFY2(m_fx.mountTmpfs(mnt), "mount -t tmpfs failed");
    auto job = run(Qvfs::freeSpace(fileUrl(mnt)));
    QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
    QCOMPARE(job->total(), 64 * MiB);
    Figures st;
    QVERIFY(statvfsOf(mnt, &st));
    QCOMPARE(job->free(), st.free);
    QCOMPARE(job->available(), st.available);
    QCOMPARE(job->available(), job->free()); // tmpfs keeps nothing back for root
    const qint64 freeBefore = job->free();
    // 4 MiB of data take 4 MiB of pages on tmpfs, exactly.
    QVERIFY(writeBig(join(mnt, "data"), 4 * MiB));
    job = run(Qvfs::freeSpace(fileUrl(join(mnt, "data"))));
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->total(), 64 * MiB);
    QCOMPARE(job->free(), freeBefore - 4 * MiB);
    QCOMPARE(job->used(), 64 * MiB - job->free());
}

void FreeSpaceJobTest::errors_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("error");
    QTest::newRow("missing") << QByteArray("missing") << int(ErrDoesNotExist);
    QTest::newRow("missing folder on the way") << QByteArray("missing/x") << int(ErrDoesNotExist);
    QTest::newRow("dangling symlink") << QByteArray("dangling") << int(ErrDoesNotExist);
    QTest::newRow("through a file") << QByteArray("file/x") << int(ErrIsNotDirectory);
}

void FreeSpaceJobTest::errors()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("file"), "x"));
    QVERIFY(symlinkRaw("nowhere", path("dangling")));
    auto job = run(Qvfs::freeSpace(url(rel)));
    QCOMPARE(job->error(), error);
    QCOMPARE(job->errorArgs().value(0), encoded(path(rel)));
    QVERIFY2(job->errorString().contains(QString::fromUtf8(path(rel))), qPrintable(job->errorString()));
    QCOMPARE(job->total(), qint64(-1));
    QCOMPARE(job->free(), qint64(-1));
    QCOMPARE(job->available(), qint64(-1));
    QCOMPARE(job->used(), qint64(-1));
}

void FreeSpaceJobTest::unsupportedProtocol()
{
    // The core refuses a command the worker does not declare, before any process starts.
    const int starts = Qvfs::workerStartCount();
    const QUrl u(QStringLiteral("test:///ok"));
    auto job = run(Qvfs::freeSpace(u));
    QCOMPARE(job->error(), int(ErrUnsupportedAction));
    QCOMPARE(job->errorArgs().value(0), u.toString());
    QVERIFY2(job->errorString().contains(u.toString()), qPrintable(job->errorString()));
    QCOMPARE(job->total(), qint64(-1));
    QCOMPARE(Qvfs::workerStartCount(), starts);
}

QTEST_GUILESS_MAIN(FreeSpaceJobTest)

#include "freespacejobtest.moc"
