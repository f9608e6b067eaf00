// SPDX-License-Identifier: LGPL-2.1-or-later
// DirectorySizeJob through the real file:// worker: bytes, files and folders of a tree,
// symlinks not followed, a missing path.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Error>

#include <QTest>

using namespace Qvfs;
using namespace QvfsTest;

class DirectorySizeJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void directorySizeJob_data();
    void directorySizeJob();
};

void DirectorySizeJobTest::directorySizeJob_data()
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

void DirectorySizeJobTest::directorySizeJob()
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

QTEST_GUILESS_MAIN(DirectorySizeJobTest)

#include "directorysizejobtest.moc"
