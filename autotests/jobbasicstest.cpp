// SPDX-License-Identifier: LGPL-2.1-or-later
// What every job promises, whatever it does (found by re-running KIO's job tests against
// Qvfs, issue 15): a job suspended before it starts does nothing until resumed; a stored
// put reports its size as its total and reaches 100 percent; a failed job is not at 100
// percent; a malformed URL is said to be one before any protocol is looked up; a move
// on one filesystem is one rename (the worker reads and writes no data).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>

#include <QSignalSpy>
#include <QTest>

#include <sys/stat.h>

using namespace Qvfs;
using namespace QvfsTest;

class JobBasicsTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void suspendedBeforeStart_data()
    {
        QTest::addColumn<bool>("copy"); // a copy inside the worker, or a put
        QTest::newRow("copy") << true;
        QTest::newRow("stored put") << false;
    }

    void suspendedBeforeStart()
    {
        QFETCH(bool, copy);
        const QByteArray big(8 * 1024 * 1024, 'b');
        QVERIFY(writeRaw(m_fx.path("big"), big));
        Job *job = copy ? static_cast<Job *>(Qvfs::copyAs(m_fx.url("big"), m_fx.url("dst")))
                        : static_cast<Job *>(Qvfs::storedPut(big, m_fx.url("dst")));
        job->setAutoDelete(false);
        std::unique_ptr<Job> hold(job);
        QSignalSpy result(job, &Job::result);
        QVERIFY(job->suspend());
        QVERIFY(job->isSuspended());
        // It starts (the command reaches the worker, queued behind nothing) and must do nothing.
        QTest::qWait(1000);
        QCOMPARE(result.count(), 0);
        QVERIFY2(!existsRaw(m_fx.path("dst")), "a suspended job wrote its destination");
        QVERIFY(job->resume());
        QVERIFY(result.wait(30000));
        QVERIFY2(job->error() == NoError, qPrintable(job->errorString()));
        QCOMPARE(readRaw(m_fx.path("dst")), big);
    }

    void storedPutTotals()
    {
        const QByteArray data(3 * 1024 * 1024 + 5, 'p');
        StoredTransferJob *job = Qvfs::storedPut(data, m_fx.url("out"));
        job->setAutoDelete(false);
        std::unique_ptr<StoredTransferJob> hold(job);
        QList<unsigned long> percents;
        connect(job, &Job::percentChanged, this, [&](Job *, unsigned long p) { percents.append(p); });
        QSignalSpy totals(job, &Job::totalAmountChanged);
        QVERIFY2(job->exec(), qPrintable(job->errorString()));
        QCOMPARE(job->totalAmount(Job::Bytes), qint64(data.size()));
        QVERIFY(totals.count() >= 1);
        QCOMPARE(job->processedAmount(Job::Bytes), qint64(data.size()));
        QVERIFY(!percents.isEmpty());
        QCOMPARE(percents.last(), 100ul);
        QCOMPARE(job->percent(), 100ul);
    }

    void failedJobPercent()
    {
        StatJob *job = Qvfs::stat(m_fx.url("missing"));
        job->setAutoDelete(false);
        std::unique_ptr<StatJob> hold(job);
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), int(ErrDoesNotExist));
        QCOMPARE(job->percent(), 0ul);

        StatJob *ok = Qvfs::stat(m_fx.url(""));
        ok->setAutoDelete(false);
        std::unique_ptr<StatJob> holdOk(ok);
        QVERIFY(ok->exec());
        QCOMPARE(ok->percent(), 100ul);
    }

    void malformedUrl_data()
    {
        QTest::addColumn<QUrl>("url");
        QTest::newRow("angle brackets in the host") << QUrl(QStringLiteral("http://strange<hostname>/"));
        QTest::newRow("no scheme") << QUrl(QStringLiteral("just/a/path"));
        QTest::newRow("empty") << QUrl();
    }

    void malformedUrl()
    {
        QFETCH(QUrl, url);
        StatJob *job = Qvfs::stat(url);
        job->setAutoDelete(false);
        std::unique_ptr<StatJob> hold(job);
        QVERIFY(!job->exec());
        QCOMPARE(errorName(job->error()), errorName(ErrMalformedUrl));
    }

    void moveIsOneRename()
    {
        // One filesystem: the job renames, no data is read or written. A FIFO shows it: a
        // copy would block or refuse on it, a rename moves it as it is.
        QVERIFY(::mkfifo(m_fx.path("pipe").constData(), 0600) == 0);
        QVERIFY(writeRaw(m_fx.path("file"), "data"));
        QVERIFY(mkdirRaw(m_fx.path("to")));
        CopyJob *job = Qvfs::move({ m_fx.url("pipe"), m_fx.url("file") }, m_fx.url("to"));
        job->setAutoDelete(false);
        std::unique_ptr<CopyJob> hold(job);
        QSignalSpy moved(job, &CopyJob::moved);
        QSignalSpy copied(job, &CopyJob::copied);
        QVERIFY2(job->exec(), qPrintable(job->errorString()));
        QCOMPARE(moved.count(), 2);
        QCOMPARE(copied.count(), 0);
        struct stat st;
        QVERIFY(::lstat(m_fx.path("to/pipe").constData(), &st) == 0 && S_ISFIFO(st.st_mode));
        QCOMPARE(readRaw(m_fx.path("to/file")), QByteArray("data"));
        QVERIFY(!existsRaw(m_fx.path("pipe")));
        QVERIFY(!existsRaw(m_fx.path("file")));
    }
};

QTEST_GUILESS_MAIN(JobBasicsTest)
#include "jobbasicstest.moc"
