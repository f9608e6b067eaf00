// SPDX-License-Identifier: LGPL-2.1-or-later
// DeleteJob through the real file:// worker: files, folders, trees and symlinks (never
// their targets), several URLs, and the first error stopping the job.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/Error>
#include <Qvfs/Job>

#include <QMap>
#include <QTest>

using namespace Qvfs;
using namespace QvfsTest;

class DeleteJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void deleteJob_data();
    void deleteJob();
};

void DeleteJobTest::deleteJob_data()
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

void DeleteJobTest::deleteJob()
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

QTEST_GUILESS_MAIN(DeleteJobTest)

#include "deletejobtest.moc"
