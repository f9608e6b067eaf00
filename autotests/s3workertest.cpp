// SPDX-License-Identifier: LGPL-2.1-or-later
// The s3 worker through the public jobs API and the real worker process, against a real
// Ceph radosgw on 127.0.0.1 (testutil/rgwfixture.h), started once for the whole program:
// buckets, keys from an AWS profile (HOME and the AWS files in a temporary folder, never
// the real ~), a 10,000-key prefix listed without a HEAD per object, awkward keys
// (blanks, %, #, +, é, a 1,000-byte key), folders and their markers, 100 MiB up in one
// PUT and in parts and back byte for byte, random reads through Qvfs::open, a kill mid-upload (no object, no multipart
// upload left), a wrong secret, a skewed clock, keys asked from the application, and a
// copy and a rename done by the server. The rows every backend shares are in the
// conformance suite (backends/s3backend.cpp).
#include "testutil/bigfile.h"
#include "testutil/rgwfixture.h"
#include "testutil/serverprocess.h"

#include "answerer.h"
#include "filejobcheck.h"
#include "fixturedir.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "workerenv.h"

#include "s3keys.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/Error>
#include <Qvfs/FileJob>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

constexpr const char *Bucket = "qvfs-test";
constexpr int ManyKeys = 10000;
constexpr qint64 BigSize = 100 * MiB;

bool settleTestWorkers(int timeoutMs = 5000)
{
    return QvfsTest::settleWorkers({ "/qvfs-worker-s3", "/qvfs-worker-file" }, timeoutMs);
}

// The access lines of radosgw's log ("beast: ... \"GET /qvfs-test?... HTTP/1.1\" 200 ...").
QList<QByteArray> accessLines(const QByteArray &log)
{
    QList<QByteArray> out;
    for (const QByteArray &line : log.split('\n')) {
        const qsizetype q = line.indexOf("beast: ");
        const qsizetype r = line.indexOf(" HTTP/1.1\"");
        if (q >= 0 && r > 0) {
            const qsizetype open = line.lastIndexOf('"', r);
            out.append(line.mid(open + 1, r - open - 1)); // "METHOD /path?query"
        }
    }
    return out;
}

} // namespace

class S3WorkerTest : public QObject
{
    Q_OBJECT

private:
    RgwFixture m_rgw;
    QTemporaryDir m_home;
    QTemporaryDir m_local;

    QUrl url(const QByteArray &rel = {}) const
    {
        QUrl u;
        u.setScheme(QStringLiteral("s3+http"));
        u.setHost(QStringLiteral("127.0.0.1"));
        u.setPort(m_rgw.port());
        u.setPath(QStringLiteral("/"));
        return rel.isEmpty() ? u : Url::child(u, rel);
    }
    QUrl object(const QByteArray &key) const { return Url::child(url(Bucket), key); }
    QByteArray local(const char *name) const { return QFile::encodeName(m_local.filePath(QLatin1String(name))); }

    // The names a listing of \a u gives (folders with a trailing '/').
    QList<QByteArray> names(const QUrl &u, int *error = nullptr)
    {
        const Listing l = collect(listDir(u));
        if (error)
            *error = l.error;
        QList<QByteArray> out;
        for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it)
            out.append(it.key() + (it.value().type() == FileType::Directory ? "/" : ""));
        std::sort(out.begin(), out.end());
        return out;
    }
    // Waits for radosgw's log to settle (a thread of its own writes it) and returns its size.
    qsizetype logMark()
    {
        QThread::msleep(1000);
        return m_rgw.rgwLog().size();
    }
    QList<QByteArray> requestsSince(qsizetype mark)
    {
        QThread::msleep(1000);
        return accessLines(m_rgw.rgwLog().mid(mark));
    }

    bool putData(const QByteArray &key, const QByteArray &data)
    {
        auto j = run(storedPut(data, object(key), -1, PutOverwrite));
        if (j->error())
            qWarning("put %s: %s", key.constData(), qPrintable(j->errorString()));
        return j->error() == 0;
    }
    QByteArray getData(const QByteArray &key, int *error = nullptr)
    {
        auto j = run(storedGet(object(key)));
        if (error)
            *error = j->error();
        return j->data();
    }
    // Uploads' ids of the bucket that were started and neither completed nor aborted.
    QByteArray multipartUploads()
    {
        QByteArray body;
        m_rgw.curl("GET", QByteArray("/") + Bucket + "?uploads=", &body);
        return body;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY(m_local.isValid());
        QVFS_START_SERVER(m_rgw);
        // Keys from a profile in a throwaway HOME: the real ~/.aws is never read.
        for (const char *v : { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                 "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE" })
            qunsetenv(v);
        qputenv("HOME", QFile::encodeName(m_home.path()));
        QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral(".aws")));
        QVERIFY(ServerProcess::writeFile(QFile::encodeName(m_home.path()) + "/.aws/credentials",
            "[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\n[qvfs]\naws_access_key_id = "
                + m_rgw.accessKey() + "\naws_secret_access_key = " + m_rgw.secretKey() + "\n"));
        QVERIFY(ServerProcess::writeFile(
            QFile::encodeName(m_home.path()) + "/.aws/config", "[profile qvfs]\nregion = default\n"));
        qputenv("AWS_PROFILE", "qvfs");
    }

    void cleanupTestCase()
    {
        QVERIFY(settleTestWorkers());
        m_rgw.stop();
    }

    void cleanup() { QVERIFY(settleTestWorkers()); }

    void buckets()
    {
        auto mk = run(mkdir(url(Bucket)));
        QVERIFY2(mk->error() == 0, qPrintable(mk->errorString()));
        QVERIFY(names(url()).contains(QByteArray(Bucket) + '/'));
        auto st = run(stat(url(Bucket)));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().type(), FileType::Directory);
        int error = 0;
        names(url("no-such-bucket"), &error);
        QCOMPARE(error, int(ErrDoesNotExist));
        auto again = run(mkdir(url(Bucket)));
        QCOMPARE(again->error(), int(ErrAlreadyExists));
        // S3 has no free-space figure: unknown, not an error
        auto df = run(freeSpace(url(Bucket)));
        QCOMPARE(df->error(), 0);
        QCOMPARE(df->available(), -1);
    }

    void putGetStat()
    {
        const QByteArray data = "hello, object store\n";
        QVERIFY(putData("hello.txt", data));
        QCOMPARE(getData("hello.txt"), data);
        auto st = run(stat(object("hello.txt")));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().type(), FileType::Regular);
        QCOMPARE(st->statResult().size(), data.size());
        QVERIFY(qAbs(st->statResult().number(MTime) - QDateTime::currentSecsSinceEpoch()) < 120);
        auto exists = run(storedPut("x", object("hello.txt")));
        QCOMPARE(exists->error(), int(ErrAlreadyExists));
        int error = 0;
        getData("missing.txt", &error);
        QCOMPARE(error, int(ErrDoesNotExist));
        auto missing = run(stat(object("missing.txt")));
        QCOMPARE(missing->error(), int(ErrDoesNotExist));
        QVERIFY(missing->errorString().contains(QStringLiteral("missing.txt")));
    }

    void awkwardKeys()
    {
        const QList<QByteArray> keys { "a b", "100%", "#hash", "a+b", "caf\xc3\xa9", "q?x&y=z", "~t!l'd(e)*",
            QByteArray(996, 'k') };
        auto mk = run(mkdir(object("awk")));
        QCOMPARE(mk->error(), 0);
        QVERIFY(putData("awk/.hidden", "m"));
        for (const QByteArray &k : keys)
            QVERIFY2(putData("awk/" + k, "data of " + k), k.constData());
        QList<QByteArray> expected = keys;
        expected.append(".hidden");
        std::sort(expected.begin(), expected.end());
        QCOMPARE(names(object("awk")), expected);
        for (const QByteArray &k : keys) {
            QCOMPARE(getData("awk/" + k), "data of " + k);
            auto st = run(stat(object("awk/" + k)));
            QCOMPARE(st->error(), 0);
            QCOMPARE(Url::fileName(st->url()), k);
        }
        auto d = run(del(object("awk")));
        QCOMPARE(d->error(), 0);
        auto gone = run(stat(object("awk")));
        QCOMPARE(gone->error(), int(ErrDoesNotExist));
    }

    void foldersAndMarkers()
    {
        auto orphan = run(mkdir(object("no/parent")));
        QCOMPARE(orphan->error(), int(ErrDoesNotExist));
        auto mk = run(mkdir(object("f")));
        QCOMPARE(mk->error(), 0);
        QVERIFY(names(url(Bucket)).contains("f/"));
        QCOMPARE(names(object("f")), QList<QByteArray>());
        QVERIFY(putData("f/x", "x"));
        auto sub = run(mkdir(object("f/sub")));
        QCOMPARE(sub->error(), 0);
        QVERIFY(putData("f/sub/y", "y"));
        QCOMPARE(names(object("f")), (QList<QByteArray> { "sub/", "x" }));
        const Listing all = collect(listRecursive(object("f")));
        const QList<QByteArray> rec = all.entries.keys();
        QCOMPARE(rec, (QList<QByteArray> { "sub", "sub/y", "x" }));
        // a folder stays when its last file goes, and its marker is never a file
        auto rm = run(del(object("f/sub/y")));
        QCOMPARE(rm->error(), 0);
        auto st = run(stat(object("f/sub")));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().type(), FileType::Directory);
        QCOMPARE(names(object("f/sub")), QList<QByteArray>());
        // a folder made only by a key's prefix (no marker; another client's) stays too
        QCOMPARE(m_rgw.curl("PUT", QByteArray("/") + Bucket + "/g/deep/z", nullptr, {},
                     { QStringLiteral("-d"), QStringLiteral("z") }),
            200);
        auto rmz = run(del(object("g/deep/z")));
        QCOMPARE(rmz->error(), 0);
        QCOMPARE(names(object("g")), QList<QByteArray> { "deep/" });
        auto notEmpty = run(del(object("f"), DeleteScope::EmptyFolders));
        QCOMPARE(notEmpty->error(), int(ErrDirectoryNotEmpty));
        for (const char *k : { "f", "g" }) {
            auto d = run(del(object(k)));
            QCOMPARE(d->error(), 0);
        }
        QVERIFY(!names(url(Bucket)).contains("f/"));
        auto isFile = collect(listDir(object("hello.txt")));
        QCOMPARE(isFile.error, int(ErrIsNotDirectory));
    }

    void manyKeys()
    {
        // 10,000 keys made once, in parallel, straight through the engine (16 clients)
        QElapsedTimer made;
        made.start();
        const int failed = putObjectsInParallel(
            url(Bucket), m_rgw.accessKey(), m_rgw.secretKey(), ManyKeys,
            [](int i) -> QByteArray { return "many/f" + QByteArray::number(i).rightJustified(5, '0') + ".txt"; },
            [](int i) -> QByteArray { return QByteArray::number(i); });
        QCOMPARE(failed, 0);
        for (const char *sub : { "many/sub1", "many/sub2" }) {
            auto mk = run(mkdir(object(sub)));
            QCOMPARE(mk->error(), 0);
            QVERIFY(putData(sub + QByteArray("/x.txt"), "x"));
        }
        qDebug("10,000 keys made in %lld ms", made.elapsed());

        const qsizetype mark = logMark();
        const Listing l = collect(listDir(object("many")));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.count, ManyKeys + 2);
        int folders = 0;
        for (const Entry &e : l.entries) {
            if (e.type() == FileType::Directory)
                ++folders;
            else
                QVERIFY(e.size() >= 1 && e.number(MTime) > 0); // from the listing alone
        }
        QCOMPARE(folders, 2);
        const QList<QByteArray> requests = requestsSince(mark);
        int lists = 0;
        for (const QByteArray &r : requests) {
            QVERIFY2(!r.startsWith("HEAD "), r.constData()); // no HEAD per object
            if (r.startsWith("GET /qvfs-test") && r.contains("list-type=2"))
                ++lists;
        }
        QCOMPARE(lists, 11); // 1,000 keys a page
    }

    void bigUploads_data()
    {
        QTest::addColumn<QByteArray>("cutoff");
        QTest::addColumn<bool>("multipart");
        QTest::newRow("one PUT") << QByteArray::number(200 * MiB) << false;
        QTest::newRow("multipart") << QByteArray() << true;
    }
    void bigUploads()
    {
        QFETCH(QByteArray, cutoff);
        QFETCH(bool, multipart);
        const QByteArray up = local("big.bin");
        if (!ServerProcess::exists(up))
            QVERIFY(makeRandomFile(up, BigSize, 28));
        WorkerEnv env("QVFS_S3_UPLOAD_CUTOFF", cutoff);
        const QByteArray key = multipart ? "big-parts.bin" : "big-one.bin";
        auto c = run(copyAs(Url::fromLocalPath(up), object(key)));
        QVERIFY2(c->error() == 0, qPrintable(c->errorString()));
        QByteArray head;
        QCOMPARE(m_rgw.curl("HEAD", QByteArray("/") + Bucket + '/' + key, &head, {}, { QStringLiteral("-I") }), 200);
        // radosgw's ETag tells how it was stored: an MD5, or the parts' MD5 and their count
        QCOMPARE(head.toLower().contains("-13\""), multipart); // 8 MiB parts
        const QByteArray down = local("down.bin");
        ::unlink(down.constData());
        auto g = run(copyAs(object(key), Url::fromLocalPath(down)));
        QVERIFY2(g->error() == 0, qPrintable(g->errorString()));
        QVERIFY(sameFiles(up, down));
        ::unlink(down.constData());
    }

    void randomReads()
    {
        // Qvfs::open on an object: one ranged GET per piece, compared with the local file
        const RandomReadReport r = checkRandomReads(object("big-parts.bin"), local("big.bin"), 300, 28);
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        QCOMPARE(r.reads, 300);
        QVERIFY(r.pastEnd > 0 && r.acrossChunks > 0);
        auto writable = openJob(object("big-parts.bin"), QIODevice::ReadWrite);
        QVERIFY(!waitOpen(writable.get())); // S3 writes no byte in place
        QCOMPARE(writable->error(), int(ErrUnsupportedAction));
    }

    void killMidUpload()
    {
        const QByteArray up = local("big.bin");
        if (!ServerProcess::exists(up))
            QVERIFY(makeRandomFile(up, BigSize, 28));
        WorkerEnv part("QVFS_S3_PART_SIZE", QByteArray::number(5 * MiB));
        CopyJob *job = copyAs(Url::fromLocalPath(up), object("killed.bin"));
        bool killed = false;
        connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
            if (unit == Job::Bytes && amount >= 30 * MiB && !killed) {
                killed = true;
                job->kill(Job::EmitResult);
            }
        });
        auto j = run(job);
        QVERIFY(killed);
        QCOMPARE(j->error(), int(ErrCancelled));
        QVERIFY(settleTestWorkers());
        auto st = run(stat(object("killed.bin")));
        QCOMPARE(st->error(), int(ErrDoesNotExist));
        const QByteArray uploads = multipartUploads();
        QVERIFY2(uploads.contains("ListMultipartUploadsResult") && !uploads.contains("<Upload>"), uploads.constData());
    }

    void wrongSecret()
    {
        QUrl u = url(Bucket);
        u.setUserName(QString::fromLatin1(m_rgw.accessKey()));
        u.setPassword(QStringLiteral("not-the-secret-xyz"));
        const Listing l = collect(listDir(u));
        QCOMPARE(l.error, int(ErrCannotAuthenticate));
        auto st = run(stat(Url::child(u, "hello.txt")));
        QCOMPARE(st->error(), int(ErrCannotAuthenticate));
        QVERIFY(st->errorString().contains(QStringLiteral("hello.txt")));
        QVERIFY(!st->errorString().contains(QStringLiteral("not-the-secret-xyz")));
    }

    void skewedClock()
    {
        WorkerEnv skew("QVFS_S3_CLOCK_OFFSET", "-1800");
        auto st = run(stat(object("hello.txt")));
        QCOMPARE(st->error(), int(ErrClockSkewed));
        QVERIFY(st->errorString().contains(QStringLiteral("clock")));
    }

    void askedKeys()
    {
        const auto restore = qScopeGuard([] { qputenv("AWS_PROFILE", "qvfs"); }); // (WorkerEnv unsets it)
        WorkerEnv profile("AWS_PROFILE", "nothing-configured");
        CredentialsAnswerer delegate;
        delegate.answerUser = QString::fromLatin1(m_rgw.accessKey());
        delegate.answers = { m_rgw.secretKey() };
        StatJob *job = stat(object("hello.txt"));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(delegate.passwords.size(), 1);
        QCOMPARE(delegate.passwords.at(0).realm, QStringLiteral("S3"));
    }

    void serverSideCopy()
    {
        const qsizetype mark = logMark();
        auto c = run(copyAs(object("big-parts.bin"), object("copied/big.bin")));
        QVERIFY2(c->error() == 0, qPrintable(c->errorString()));
        const QList<QByteArray> requests = requestsSince(mark);
        for (const QByteArray &r : requests)
            QVERIFY2(!r.startsWith("GET /qvfs-test/big-parts.bin"), r.constData()); // no byte through us
        auto st = run(stat(object("copied/big.bin")));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().size(), BigSize);
        // a rename: a copy and a delete (not atomic)
        auto mv = run(Qvfs::rename(object("hello.txt"), object("copied/hello.txt")));
        QVERIFY2(mv->error() == 0, qPrintable(mv->errorString()));
        QCOMPARE(getData("copied/hello.txt"), QByteArray("hello, object store\n"));
        auto gone = run(stat(object("hello.txt")));
        QCOMPARE(gone->error(), int(ErrDoesNotExist));
        auto folder = run(Qvfs::rename(object("copied"), object("moved")));
        QVERIFY2(folder->error() == 0, qPrintable(folder->errorString()));
        QCOMPARE(names(object("moved")), (QList<QByteArray> { "big.bin", "hello.txt" }));
        QVERIFY(!names(url(Bucket)).contains("copied/"));
    }

    void serverSideCopyInParts()
    {
        // Past the part size (512 MiB in use; 5 MiB here) the server copies the object in
        // parts (UploadPartCopy: CopyObject ends at 5 GiB), still without a byte through
        // us, and the copy is the same bytes with the same modification time.
        constexpr qint64 Size = 12 * MiB + 5;
        const QByteArray up = local("parts-source.bin");
        QVERIFY(makeRandomFile(up, Size, 31));
        auto p = run(copyAs(Url::fromLocalPath(up), object("parts-source.bin")));
        QVERIFY2(p->error() == 0, qPrintable(p->errorString()));
        auto source = run(stat(object("parts-source.bin")));
        QCOMPARE(source->error(), 0);
        WorkerEnv part("QVFS_S3_COPY_PART_SIZE", QByteArray::number(5 * MiB));
        const qsizetype mark = logMark();
        auto c = run(copyAs(object("parts-source.bin"), object("in-parts.bin")));
        QVERIFY2(c->error() == 0, qPrintable(c->errorString()));
        int parts = 0;
        for (const QByteArray &r : requestsSince(mark)) {
            QVERIFY2(!r.startsWith("GET /qvfs-test/parts-source.bin"), r.constData()); // no byte through us
            if (r.startsWith("PUT /qvfs-test/in-parts.bin?partNumber="))
                ++parts;
        }
        QCOMPARE(parts, 3); // 5 + 5 + 2 MiB
        auto st = run(stat(object("in-parts.bin")));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().size(), Size);
        QCOMPARE(st->statResult().number(MTime), source->statResult().number(MTime));
        const QByteArray down = local("in-parts-down.bin");
        auto g = run(copyAs(object("in-parts.bin"), Url::fromLocalPath(down)));
        QVERIFY2(g->error() == 0, qPrintable(g->errorString()));
        QVERIFY(sameFiles(up, down));
        ::unlink(down.constData());
        ::unlink(up.constData());
        const QByteArray uploads = multipartUploads();
        QVERIFY2(uploads.contains("ListMultipartUploadsResult") && !uploads.contains("<Upload>"), uploads.constData());
    }

    void virtualHostStyle()
    {
        // A profile that asks for virtual-host style, as the AWS CLI writes it: requests
        // about a bucket go to BUCKET.HOST/KEY. HOST is radosgw's own name (rgw dns name),
        // which no resolver knows: the worker reaches it through a forward proxy, as a
        // user behind one would.
        const QByteArray config = local("aws-config");
        QVERIFY(ServerProcess::writeFile(
            config, "[profile qvfs]\nregion = default\ns3 =\n    addressing_style = virtual\n"));
        WorkerEnv profile("AWS_CONFIG_FILE", config);
        QProcess proxy;
        proxy.start(QStringLiteral("python3"),
            { QStringLiteral(QVFS_TEST_SOURCE_DIR "/testutil/forwardproxy.py"), QStringLiteral("--domain"),
                QString::fromLatin1(RgwFixture::dnsName()), QStringLiteral("--to"), QString::number(m_rgw.port()) });
        QByteArray line;
        while (!line.endsWith('\n') && proxy.waitForReadyRead(10000))
            line += proxy.readLine();
        const QByteArray port = line.trimmed().mid(5);
        QVERIFY2(port.toInt() > 0, QByteArray(line + proxy.readAllStandardError()).constData());
        const auto stopProxy = qScopeGuard([&] {
            proxy.closeWriteChannel();
            if (!proxy.waitForFinished(5000))
                proxy.kill();
            proxy.waitForFinished();
        });
        WorkerEnv via("http_proxy", "http://127.0.0.1:" + port);
        WorkerEnv none("no_proxy", "");
        QUrl at = object("vhost/a.txt");
        at.setHost(QString::fromLatin1(RgwFixture::dnsName()));
        QUrl folder = object("vhost");
        folder.setHost(at.host());

        const qsizetype mark = logMark();
        auto m = run(Qvfs::mkdir(folder));
        QVERIFY2(m->error() == 0, qPrintable(m->errorString()));
        auto p = run(storedPut("by the bucket's own name\n", at, -1, PutOverwrite));
        QVERIFY2(p->error() == 0, qPrintable(p->errorString()));
        auto st = run(stat(at));
        QCOMPARE(st->error(), 0);
        QCOMPARE(st->statResult().size(), qint64(25));
        const Listing l = collect(listDir(folder));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.keys(), (QList<QByteArray> { "a.txt" }));
        auto g = run(storedGet(at));
        QCOMPARE(g->data(), QByteArray("by the bucket's own name\n"));
        auto d = run(del(folder));
        QVERIFY2(d->error() == 0, qPrintable(d->errorString()));
        // radosgw was asked by the bucket's host name: its paths name no bucket
        int byHost = 0;
        for (const QByteArray &r : requestsSince(mark)) {
            QVERIFY2(!r.contains("/qvfs-test/"), r.constData());
            if (r.startsWith("PUT /vhost/a.txt") || r.startsWith("GET /vhost/a.txt")
                || r.startsWith("HEAD /vhost/a.txt"))
                ++byHost;
        }
        QVERIFY2(byHost >= 3, qPrintable(QString::number(byHost)));
        QCOMPARE(run(stat(object("vhost/a.txt")))->error(), int(ErrDoesNotExist)); // gone, path-style too
    }
};

QTEST_GUILESS_MAIN(S3WorkerTest)
#include "s3workertest.moc"
