// SPDX-License-Identifier: LGPL-2.1-or-later
// The generic copy path (get -> put through the application, mkdir, symlink, del): what
// every worker without the "copy" capability gets. From the test:// worker to file://, and
// the copy tests of copyjobtest and namestest run again with file:// described without
// "copy".
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "genericpath.h"
#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/Url>

#include <QFile>
#include <QMap>
#include <QProcess>
#include <QTest>

using namespace Qvfs;
using namespace QvfsTest;

Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)

class GenericCopyTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void genericCopy_data();
    void genericCopy();
    void genericPathFileToFile_data();
    void genericPathFileToFile();
};

void GenericCopyTest::genericCopy_data()
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
        << QStringLiteral("test:///data?size=3000000") << false << ConflictPolicy::Fail << true << int(ErrAlreadyExists)
        << qint64(-1);
    QTest::newRow("onto an existing file, skip")
        << QStringLiteral("test:///data?size=3000000") << false << ConflictPolicy::Skip << true << 0 << qint64(-1);
    QTest::newRow("onto an existing file, overwrite") << QStringLiteral("test:///data?size=3000000") << false
                                                      << ConflictPolicy::Overwrite << true << 0 << qint64(3000000);
}

void GenericCopyTest::genericCopy()
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

void GenericCopyTest::genericPathFileToFile_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("function");
    for (const char *f : { "copyFile", "copyTree", "copyBigTree", "copyConflicts", "copyFolderOntoFile",
             "copyIdentical", "copyCycle", "moveAcrossFilesystems", "copyProgress", "copyKill", "userPartFileKept" })
        QTest::newRow(f) << QStringLiteral(QVFS_COPYJOBTEST) << QString::fromLatin1(f);
    QTest::newRow("names") << QStringLiteral(QVFS_NAMESTEST) << QStringLiteral("names");
}

void GenericCopyTest::genericPathFileToFile()
{
    // The generic path (get -> put through the application, mkdir, symlink, del) is what
    // every worker without the "copy" capability gets (sftp, plain http...), also between
    // two URLs of its own protocol. The test:// worker cannot be written to, so the copy
    // tests (copyjobtest, namestest) run again in a child process where file:// is described
    // without "copy": the same real worker, but the copy jobs take the generic path. They
    // promise the same.
    QFETCH(QString, program);
    QFETCH(QString, function);
    if (qEnvironmentVariableIsSet("QVFS_WORKER_PATH"))
        QSKIP("already running with a worker path of its own");
    const QByteArray dir = path("workers");
    QVERIFY(describeFileWorkerWithoutCopy(dir));
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QVFS_WORKER_PATH"), QFile::decodeName(dir));
    env.insert(QStringLiteral("QVFS_WORKER_TIMEOUT_MS"), QStringLiteral("5000")); // a stuck worker costs 5 s, not 30
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(program, { function });
    QVERIFY(child.waitForStarted());
    QVERIFY(child.waitForFinished(15 * 60 * 1000));
    const QList<QByteArray> lines = child.readAll().split('\n');
    QByteArray failures;
    int failed = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!lines.at(i).startsWith("FAIL!"))
            continue;
        ++failed;
        // "FAIL!  : CopyJobTest::copyFile(row) message": the row and the start of the message
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

QTEST_GUILESS_MAIN(GenericCopyTest)

#include "genericcopytest.moc"
