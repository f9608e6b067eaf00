// SPDX-License-Identifier: LGPL-2.1-or-later
// TransferJob (get and put, streaming and stored) through the real file:// worker: data,
// offsets, MIME types, errors, permissions, existing destinations, kills, and writing
// through a symlink.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/TransferJob>

#include <QElapsedTimer>
#include <QMap>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <sys/stat.h>

using namespace Qvfs;
using namespace QvfsTest;

class TransferJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

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
};

void TransferJobTest::transferGet_data()
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

void TransferJobTest::transferGet()
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

void TransferJobTest::transferGetErrors_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("error");
    QTest::newRow("a folder") << QByteArray("dir") << int(ErrIsDirectory);
    QTest::newRow("missing") << QByteArray("missing") << int(ErrDoesNotExist);
    QTest::newRow("dangling symlink") << QByteArray("dangling") << int(ErrDoesNotExist);
    // Nobody writes to the fifo: a prompt error is expected, not a worker stuck in open().
    QTest::newRow("a fifo") << QByteArray("fifo") << -1;
}

void TransferJobTest::transferGetErrors()
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

void TransferJobTest::transferPut_data()
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
        << QByteArray("stream") << int(MiB) << 3 << -1 << false << int(0666 & ~currentUmask());
    QTest::newRow("streaming, nothing") << QByteArray("stream") << 0 << 0 << -1 << false << int(0666 & ~currentUmask());
    QTest::newRow("storedPut") << QByteArray("stored") << 1000 << 1 << -1 << false << int(0666 & ~currentUmask());
    QTest::newRow("storedPut, 2.5 MiB, 0600") << QByteArray("stored") << int(5 * MiB / 2) << 1 << 0600 << false << 0600;
    QTest::newRow("async data") << QByteArray("async") << 200 * 1024 << 4 << 0604 << false << 0604;
    QTest::newRow("overwrite, keeps the old mode") << QByteArray("stored") << 1000 << 1 << -1 << true << 0600;
    QTest::newRow("overwrite, streaming, new mode") << QByteArray("stream") << 100 * 1024 << 3 << 0644 << true << 0644;
}

void TransferJobTest::transferPut()
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

void TransferJobTest::transferPutExisting_data()
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

void TransferJobTest::transferPutExisting()
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

void TransferJobTest::transferPutKilled_data()
{
    QTest::addColumn<bool>("existing");
    QTest::addColumn<bool>("emitResult");
    QTest::newRow("new file, quietly") << false << false;
    QTest::newRow("new file, with result") << false << true;
    QTest::newRow("overwrite, quietly") << true << false;
    QTest::newRow("overwrite, with result") << true << true;
}

void TransferJobTest::transferPutKilled()
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

void TransferJobTest::transferPutOntoSymlink()
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
    QCOMPARE(int(lstatRaw(path("out/link")).st_mode & 07777), int(0666 & ~currentUmask()));
    QCOMPARE(readRaw(path("real/f")), QByteArray("old"));
    QCOMPARE(int(lstatRaw(path("real/f")).st_mode & 07777), 0640);
    QCOMPARE(namesIn(path("real")), QList<QByteArray> { "f" });
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { "link" });
}

QTEST_GUILESS_MAIN(TransferJobTest)

#include "transferjobtest.moc"
