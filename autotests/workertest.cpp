// SPDX-License-Identifier: LGPL-2.1-or-later
// The worker machinery with real processes: qvfs-worker-test misbehaves on command.
#include "answerer.h"
#include "fixturedir.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>

#include <QElapsedTimer>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <unistd.h>

using namespace Qvfs;
using ProcUtil::childPids;
using ProcUtil::cpuTicks;
using ProcUtil::openFdCount;
using QvfsTest::Answerer;
using QvfsTest::WorkerEnv;

namespace
{
QUrl testUrl(const char *pathAndQuery)
{
    return QUrl(QStringLiteral("test://") + QLatin1String(pathAndQuery));
}

qint64 workerPidOf(const QUrl &url = testUrl("/pid"))
{
    StatJob *job = Qvfs::stat(url);
    job->setAutoDelete(false);
    if (!job->exec())
        return -1;
    const qint64 pid = job->statResult().number(Inode);
    delete job;
    return pid;
}
} // namespace

class WorkerTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Silence is measured in milliseconds here; heartbeats come every second.
        qputenv("QVFS_WORKER_TIMEOUT_MS", "1500");
        qputenv("QVFS_WORKER_KILL_MS", "1000");
    }

    void sequentialJobsReuseOneWorker()
    {
        shutdownIdleWorkers();
        const int startsBefore = workerStartCount();
        QSet<qint64> pids;
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < 1000; ++i) {
            StatJob *job = Qvfs::stat(testUrl("/ok?size=7"));
            job->setAutoDelete(false);
            QVERIFY2(job->exec(), qPrintable(job->errorString()));
            QCOMPARE(job->statResult().size(), 7);
            pids.insert(job->statResult().number(Inode));
            delete job;
        }
        qInfo("1000 sequential stat jobs: %lld ms", t.elapsed());
        QCOMPARE(pids.size(), 1);
        QVERIFY(workerStartCount() - startsBefore <= 1);
    }

    void concurrentJobsRespectLimits()
    {
        shutdownIdleWorkers();
        QList<StatJob *> jobs;
        int done = 0;
        QSet<qint64> pids;
        int maxChildren = 0;
        for (int i = 0; i < 50; ++i) {
            StatJob *job = Qvfs::stat(testUrl("/slow?ms=20"));
            connect(job, &Job::result, this, [&](Job *j) {
                QCOMPARE(j->error(), 0);
                pids.insert(static_cast<StatJob *>(j)->statResult().number(Inode));
                ++done;
                maxChildren = qMax(maxChildren, int(childPids().size()));
            });
            jobs.append(job);
        }
        QTRY_COMPARE_WITH_TIMEOUT(done, 50, 20000);
        // qvfs-worker-test.json: maxInstancesPerHost 2 (all these jobs are one host).
        QVERIFY2(pids.size() <= 2, qPrintable(QString::number(pids.size())));
        QVERIFY(maxChildren <= 3);
    }

    void killedJobStopsWorkerAndReusesIt()
    {
        shutdownIdleWorkers();
        ListJob *job = listDir(testUrl("/flood"));
        qint64 received = 0;
        bool gotResult = false;
        connect(job, &Job::result, this, [&] { gotResult = true; });
        connect(job, &ListJob::entries, this, [&](ListJob *, const EntryList &l) { received += l.size(); });
        QTRY_VERIFY_WITH_TIMEOUT(received > 1000, 5000);
        const qint64 pid = childPids().value(0);
        QVERIFY(pid > 0);
        QVERIFY(job->kill(Job::Quietly));
        QVERIFY(!gotResult);
        // The worker acknowledges the kill and stops producing: no CPU burnt afterwards...
        QTest::qWait(100);
        const qint64 ticks = cpuTicks(pid);
        QTest::qWait(300);
        QVERIFY(cpuTicks(pid) - ticks <= 2);
        // ... and serves the next job (it is idle again, the only worker).
        QCOMPARE(childPids(), QList<qint64> { pid });
        QCOMPARE(workerPidOf(), pid);
    }

    void killWithResult()
    {
        ListJob *job = listDir(testUrl("/flood"));
        job->setAutoDelete(false);
        QSignalSpy result(job, &Job::result);
        QTRY_VERIFY(job->entryCount() > 0);
        QVERIFY(job->kill(Job::EmitResult));
        QCOMPARE(result.count(), 1);
        QCOMPARE(job->error(), int(ErrCancelled));
        delete job;
    }

    void suspendedJobStopsTheWorker()
    {
        shutdownIdleWorkers();
        const qint64 size = 200 * 1024 * 1024;
        TransferJob *job = Qvfs::get(testUrl(QByteArray("/data?size=" + QByteArray::number(size)).constData()));
        job->setAutoDelete(false);
        qint64 got = 0;
        bool suspendedOnce = false;
        QString mime;
        connect(job, &TransferJob::mimeTypeFound, this, [&](TransferJob *, const QString &m) {
            QCOMPARE(got, 0); // before any data
            mime = m;
        });
        connect(job, &TransferJob::data, this, [&](TransferJob *j, const QByteArray &d) {
            got += d.size();
            if (got > 4 * 1024 * 1024 && !suspendedOnce) {
                suspendedOnce = true;
                j->suspend();
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(job->isSuspended(), 10000);
        QCOMPARE(mime, QStringLiteral("application/x-test"));
        const qint64 pid = childPids().value(0);
        QTest::qWait(200);
        const qint64 gotWhileSuspended = got;
        const qint64 ticks = cpuTicks(pid);
        QTest::qWait(2500); // longer than the deadline: a suspended job is not a silent worker
        QCOMPARE(got, gotWhileSuspended);
        QVERIFY2(cpuTicks(pid) - ticks <= 3, "the suspended worker keeps working");
        QVERIFY(job->resume());
        QSignalSpy result(job, &Job::result);
        QVERIFY(result.wait(20000));
        QCOMPARE(job->error(), 0);
        QCOMPARE(got, size);
        delete job;
    }

    void suspendedBeforeItStarts()
    {
        // Suspended while still queued: the worker that takes it over starts it paused.
        TransferJob *job = Qvfs::get(testUrl("/data?size=8388608"));
        job->setAutoDelete(false);
        qint64 got = 0;
        connect(job, &TransferJob::data, this, [&](TransferJob *, const QByteArray &d) { got += d.size(); });
        QVERIFY(job->suspend());
        QTest::qWait(500);
        QCOMPARE(got, 0);
        QVERIFY(job->resume());
        QSignalSpy result(job, &Job::result);
        QVERIFY(result.wait(10000));
        QCOMPARE(job->error(), 0);
        QCOMPARE(got, 8388608);
        delete job;
    }

    void failures_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<bool>("list");
        QTest::addColumn<int>("error");
        QTest::newRow("crash") << QByteArray("/crash") << true << int(ErrWorkerDied);
        QTest::newRow("early exit") << QByteArray("/exit") << false << int(ErrWorkerDied);
        QTest::newRow("hang") << QByteArray("/hang") << false << int(ErrTimedOut);
        QTest::newRow("garbage") << QByteArray("/garbage") << false << int(ErrProtocolError);
        QTest::newRow("malformed batch") << QByteArray("/badbatch") << true << int(ErrProtocolError);
        QTest::newRow("no delegate") << QByteArray("/ask") << false << int(ErrNotAnswered);
        QTest::newRow("worker error") << QByteArray("/nothing-here") << false << int(ErrDoesNotExist);
    }

    void failures()
    {
        QFETCH(QByteArray, path);
        QFETCH(bool, list);
        QFETCH(int, error);
        QElapsedTimer t;
        t.start();
        Job *job = list ? static_cast<Job *>(listDir(testUrl(path.constData())))
                        : static_cast<Job *>(Qvfs::stat(testUrl(path.constData())));
        job->setAutoDelete(false);
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), error);
        QVERIFY(!job->errorString().isEmpty());
        QVERIFY2(t.elapsed() < 5000, "the job must end within seconds");
        delete job;
        // The application carries on: the next job works.
        QVERIFY(workerPidOf() > 0);
    }

    void questions()
    {
        Answerer a;
        a.action = "skip";
        StatJob *job = Qvfs::stat(testUrl("/ask"));
        job->setAutoDelete(false);
        job->setAskDelegate(&a);
        QVERIFY2(job->exec(), qPrintable(job->errorString()));
        QCOMPARE(job->statResult().name(), QByteArrayView("skip"));
        QCOMPARE(a.asked, 1);
        delete job;

        // Nobody answers: the job's ask timeout refuses, the job fails within seconds.
        Answerer silent;
        silent.never = true;
        job = Qvfs::stat(testUrl("/ask"));
        job->setAutoDelete(false);
        job->setAskDelegate(&silent);
        job->setAskTimeout(300);
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), int(ErrNotAnswered));
        delete job;
    }

    void credentialsAskedOnce()
    {
        struct Passwords : AskDelegate
        {
            int asked = 0;
            void ask(Question *q) override
            {
                ++asked;
                QCOMPARE(q->kind(), Question::Kind::Password);
                q->answerPassword(QStringLiteral("bob"), QStringLiteral("s3cret"));
            }
        } passwords;
        for (int i = 0; i < 50; ++i) {
            StatJob *job = Qvfs::stat(testUrl("/password"));
            job->setAutoDelete(false);
            job->setAskDelegate(&passwords);
            QVERIFY2(job->exec(), qPrintable(job->errorString()));
            QCOMPARE(job->statResult().name(), QByteArrayView("bob:s3cret"));
            delete job;
        }
        // ... even across a replaced worker.
        shutdownIdleWorkers();
        StatJob *job = Qvfs::stat(testUrl("/password"));
        job->setAutoDelete(false);
        job->setAskDelegate(&passwords);
        QVERIFY(job->exec());
        delete job;
        QCOMPARE(passwords.asked, 1);
    }

    void putStreamsWithBackpressure()
    {
        QByteArray payload(3 * 1024 * 1024 + 17, 'p');
        StoredTransferJob *job = storedPut(payload, testUrl("/sink"));
        job->setAutoDelete(false);
        QVERIFY2(job->exec(), qPrintable(job->errorString()));
        QCOMPARE(job->metaData().number("bytes"), payload.size());
        delete job;
    }

    void hostileNamesFromAListing()
    {
        // A worker's listing is foreign input to a tree copy: nothing may be written
        // outside the destination.
        QvfsTest::FixtureDir tmp;
        QVERIFY(tmp.isValid());
        const QUrl dest = QvfsTest::fileUrl(QvfsTest::join(tmp.path(), "dest"));
        CopyJob *job = Qvfs::copyAs(testUrl("/evil"), dest);
        job->setAutoDelete(false);
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), int(ErrUnsafeName));
        QVERIFY(job->errorString().contains(QLatin1String("escape")));
        delete job;
        QVERIFY(!QvfsTest::existsRaw(QvfsTest::join(tmp.path(), "escape.txt")));
        QVERIFY(!QvfsTest::existsRaw(QvfsTest::join(tmp.path(), "escape2.txt")));
        QVERIFY(!QvfsTest::existsRaw("/etc/escape3.txt"));
    }

    void versionMismatch()
    {
        StatJob *job = nullptr;
        {
            WorkerEnv fake("QVFS_WORKER_FAKE_VERSION", "999");
            job = Qvfs::stat(testUrl("/ok"));
            job->setAutoDelete(false);
            QVERIFY(!job->exec());
        }
        QCOMPARE(job->error(), int(ErrVersionMismatch));
        QVERIFY(job->errorString().contains(QLatin1String("999")));
        delete job;
    }

    void unknownProtocol()
    {
        StatJob *job = Qvfs::stat(QUrl(QStringLiteral("nosuchproto:///x")));
        job->setAutoDelete(false);
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), int(ErrUnsupportedProtocol));
        QVERIFY(job->errorString().contains(QLatin1String("nosuchproto")));
        delete job;
    }

    void spawnPrefix()
    {
        qint64 pid = -1;
        {
            WorkerEnv prefix("QVFS_WORKER_PREFIX", "env QVFS_PREFIX_SEEN=1");
            pid = workerPidOf();
        }
        QVERIFY(pid > 0);
    }

    void noLeaks()
    {
        shutdownIdleWorkers();
        QCoreApplication::processEvents();
        const int fdsBefore = openFdCount();
        for (int i = 0; i < 1000; ++i) {
            Job *job = i % 2 ? static_cast<Job *>(Qvfs::stat(testUrl("/ok"))) : listDir(testUrl("/flood?n=5"));
            job->setAutoDelete(false);
            QVERIFY(job->exec());
            delete job;
        }
        shutdownIdleWorkers();
        QTest::qWait(50); // deferred deletes
        for (qint64 pid : childPids())
            qWarning() << "left over:"
                       << ProcUtil::readProcFile(QByteArray("/proc/" + QByteArray::number(pid) + "/stat"));
        QTRY_COMPARE(childPids().size(), 0);
        QCOMPARE(openFdCount(), fdsBefore);
    }
};

QTEST_GUILESS_MAIN(WorkerTest)
#include "workertest.moc"
