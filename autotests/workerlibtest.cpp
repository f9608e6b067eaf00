// SPDX-License-Identifier: LGPL-2.1-or-later
// The helpers of the worker library (Qvfs::Worker) that workers on servers use:
// AtomicUpload's sequence and names, and waitUntil() (a Qt event loop inside a hook that
// still ends on a kill), through the real test worker.
#include "atomicupload.h"
#include "job.h"
#include "statjob.h"
#include "url.h"

#include <QTest>
#include <QTimer>

using namespace Qvfs;

class WorkerLibTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        qputenv("QVFS_WORKER_PATH", QByteArray(QVFS_TEST_WORKER_DIR));
        // A worker that does not acknowledge a kill within this is SIGKILLed (and replaced).
        qputenv("QVFS_WORKER_KILL_MS", "300");
    }

    void temporaryNames_data()
    {
        QTest::addColumn<QUrl>("destination");
        QTest::newRow("plain") << QUrl(QStringLiteral("sftp://h/dir/report.txt"));
        QTest::newRow("bytes") << Url::child(QUrl(QStringLiteral("sftp://h/dir/")), "a\xff b");
        QTest::newRow("255 bytes") << Url::child(QUrl(QStringLiteral("webdav://h/d/")), QByteArray(255, 'n'));
        QTest::newRow("255 bytes of 3-byte characters")
            << Url::child(QUrl(QStringLiteral("webdav://h/d/")), QByteArray("\xe2\x82\xac").repeated(85));
    }

    void temporaryNames()
    {
        QFETCH(QUrl, destination);
        const QUrl a = AtomicUpload::temporaryFor(destination);
        const QUrl b = AtomicUpload::temporaryFor(destination);
        QVERIFY(a.isValid());
        QVERIFY(a != b); // unique per call
        QCOMPARE(Url::parent(a), Url::parent(destination)); // beside it: a rename, never a copy
        const QByteArray name = Url::fileName(a);
        QVERIFY(name.startsWith('.'));
        QVERIFY(name.endsWith(".part"));
        QVERIFY(name.contains(".qvfs-"));
        QVERIFY(name.size() <= 255);
        QCOMPARE(QString::fromUtf8(name).toUtf8().size() == name.size(),
            QString::fromUtf8(Url::fileName(destination)).toUtf8() == Url::fileName(destination));
    }

    void runSequence_data()
    {
        QTest::addColumn<int>("writeError");
        QTest::addColumn<int>("renameError");
        QTest::addColumn<QByteArray>("calls");
        QTest::newRow("success") << 0 << 0 << QByteArray("write rename");
        QTest::newRow("write fails") << int(ErrDiskFull) << 0 << QByteArray("write remove");
        QTest::newRow("killed while writing") << int(ErrCancelled) << 0 << QByteArray("write remove");
        QTest::newRow("destination appeared") << 0 << int(ErrAlreadyExists) << QByteArray("write rename remove");
    }

    void runSequence()
    {
        QFETCH(int, writeError);
        QFETCH(int, renameError);
        QFETCH(QByteArray, calls);
        const QUrl dest(QStringLiteral("sftp://h/d/f.txt"));
        QList<QByteArray> seen;
        QUrl written;
        AtomicUpload::Operations ops;
        ops.write = [&](const QUrl &t) {
            seen << "write";
            written = t;
            return writeError ? WorkerResult::fail(writeError, t) : WorkerResult::pass();
        };
        ops.rename = [&](const QUrl &from, const QUrl &to, bool overwrite) {
            seen << "rename";
            [&] {
                QCOMPARE(from, written);
                QCOMPARE(to, dest);
                QVERIFY(overwrite);
            }();
            return renameError ? WorkerResult::fail(renameError, to) : WorkerResult::pass();
        };
        ops.remove = [&](const QUrl &t) {
            seen << "remove";
            QCOMPARE(t, written);
        };
        const WorkerResult r = AtomicUpload::run(dest, true, ops);
        QCOMPARE(seen.join(' '), calls);
        QCOMPARE(r.code(), writeError ? writeError : renameError);
    }

    void eventLoopInsideAHook()
    {
        StatJob *job = Qvfs::stat(QUrl(QStringLiteral("test:///eventloop?ms=30")));
        job->setAutoDelete(false);
        QVERIFY2(job->exec(), qPrintable(job->errorString()));
        QCOMPARE(job->statResult().name(), QByteArrayView("waited"));
        delete job;
    }

    void killEndsAnEventLoop()
    {
        // The hook waits for a timer that never fires: only a kill ends it. The worker
        // acknowledges within the kill deadline (it is reused for the next job), instead
        // of being SIGKILLed.
        StatJob *pid = Qvfs::stat(QUrl(QStringLiteral("test:///pid")));
        pid->setAutoDelete(false);
        QVERIFY(pid->exec());
        const qint64 before = pid->statResult().size();
        delete pid;

        StatJob *job = Qvfs::stat(QUrl(QStringLiteral("test:///eventloop?ms=-1")));
        job->setAutoDelete(false);
        QTimer::singleShot(200, job, [job] { job->kill(Job::EmitResult); });
        QVERIFY(!job->exec());
        QCOMPARE(job->error(), int(ErrCancelled));
        delete job;
        QTest::qWait(600); // past the kill deadline: a worker that did not stop is gone now

        pid = Qvfs::stat(QUrl(QStringLiteral("test:///pid")));
        pid->setAutoDelete(false);
        QVERIFY(pid->exec());
        QCOMPARE(pid->statResult().size(), before);
        delete pid;
    }
};

QTEST_GUILESS_MAIN(WorkerLibTest)
#include "workerlibtest.moc"
