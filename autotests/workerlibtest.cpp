// SPDX-License-Identifier: LGPL-2.1-or-later
// The helpers of the worker library (Qvfs::Worker) that workers on servers use:
// AtomicUpload's sequence and names, the batch timing of native watches, and waitUntil()
// (a Qt event loop inside a hook that still ends on a kill), through the real test worker.
#include "atomicupload.h"
#include "changebatchtimer_p.h"
#include "job.h"
#include "localfilewriter.h"
#include "statjob.h"
#include "url.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>
#include <unistd.h>

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

    void changeBatchTimer()
    {
        // The batches of native watches (file, smb): 30 ms after the last event, at most
        // 150 ms after the first.
        ChangeBatchTimer batch;
        QCOMPARE(batch.msUntilDue(), 0); // no event: nothing to wait for
        const auto startsBatch = [&batch] {
            QElapsedTimer clock;
            clock.start();
            batch.eventSeen();
            const int wait = batch.msUntilDue();
            QVERIFY(wait <= ChangeBatchTimer::QuietMs);
            if (clock.elapsed() < 10) // not when the machine stalled in between
                QVERIFY(wait > 0);
        };
        startsBatch();
        QTest::qSleep(ChangeBatchTimer::QuietMs + 10);
        QCOMPARE(batch.msUntilDue(), 0); // quiet since
        // A steady stream of events: due at the first one's latest all the same.
        batch.reset();
        startsBatch();
        QTest::qSleep(ChangeBatchTimer::MaxDelayMs + 10);
        batch.eventSeen();
        QCOMPARE(batch.msUntilDue(), 0);
        batch.reset();
        QCOMPARE(batch.msUntilDue(), 0);
        startsBatch(); // a new batch
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

    void localFileWriter()
    {
        // What copyToFile of a remote worker gets: nothing at the destination until commit,
        // nothing left after a discard, a planted symlink replaced, not written through.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray base = QFile::encodeName(dir.path());
        const QByteArray dest = base + "/f\xff";
        // Not UTF-8: QTemporaryDir, which removes by QString, cannot name it.
        const auto removeDest = qScopeGuard([&] { ::unlink(dest.constData()); });
        {
            LocalFileWriter w;
            QVERIFY(w.open(dest, false).ok());
            QVERIFY(w.fd() >= 0);
            QVERIFY(w.write("hello").ok());
            QVERIFY(!QFile::exists(QFile::decodeName(dest)));
            w.setModificationTime(1600000000, 5);
            QVERIFY(w.commit().ok());
        }
        struct stat st;
        QVERIFY(::stat(dest.constData(), &st) == 0);
        QCOMPARE(qint64(st.st_mtim.tv_sec), qint64(1600000000));
        {
            LocalFileWriter w;
            const WorkerResult r = w.open(dest, false);
            QCOMPARE(r.code(), int(ErrAlreadyExists));
            QCOMPARE(r.args().value(0), Url::fromLocalPath(dest).toEncoded());
        }
        {
            LocalFileWriter w;
            QVERIFY(w.open(base + "/gone", false).ok());
            QVERIFY(w.write("x").ok());
        } // discarded
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("gone"))));
        QVERIFY(::symlink("target", QByteArray(base + "/link").constData()) == 0);
        {
            LocalFileWriter w;
            QVERIFY(w.open(base + "/link", true).ok());
            QVERIFY(w.write("new").ok());
            QVERIFY(w.commit().ok());
        }
        QVERIFY(::lstat(QByteArray(base + "/link").constData(), &st) == 0 && S_ISREG(st.st_mode));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("target"))));

        // openSource: the listed file, or ErrSourceChanged.
        QVERIFY(::stat(dest.constData(), &st) == 0);
        WorkerResult error;
        const int fd = LocalFileWriter::openSource(dest, FileIdentity { qint64(st.st_dev), qint64(st.st_ino) }, &error);
        QVERIFY(fd >= 0);
        ::close(fd);
        QCOMPARE(
            LocalFileWriter::openSource(dest, FileIdentity { qint64(st.st_dev), qint64(st.st_ino) + 1 }, &error), -1);
        QCOMPARE(error.code(), int(ErrSourceChanged));
        QVERIFY(::symlink("f\xff", QByteArray(base + "/alias").constData()) == 0);
        QCOMPARE(
            LocalFileWriter::openSource(base + "/alias", FileIdentity { qint64(st.st_dev), qint64(st.st_ino) }, &error),
            -1);
        QCOMPARE(error.code(), int(ErrSourceChanged));
        QCOMPARE(LocalFileWriter::openSource(base, {}, &error), -1);
        QCOMPARE(error.code(), int(ErrIsDirectory));
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
