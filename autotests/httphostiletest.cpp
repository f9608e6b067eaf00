// SPDX-License-Identifier: LGPL-2.1-or-later
// The http worker against servers that lie about what they send (testutil/hostilehttp.py,
// a small misbehaving HTTP/1.1 server on 127.0.0.1; the misbehaviour is the point): a
// resumed download answered with another version of the file, a 206 longer than its
// Content-Range, a body longer than the size the job found, broken chunked framing, an
// authentication challenge with a new realm every time. Each copy must fail with an error
// and leave no destination; a well-behaved server (the control row) copies the same file.

#include "fixturedir.h"
#include "httpserverfixture.h"
#include "jobrunner.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"
#include "workerhold.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

constexpr int FileSize = 10000;

// Version A of the fixture's /file.
QByteArray versionA()
{
    QByteArray out(FileSize, Qt::Uninitialized);
    for (int i = 0; i < FileSize; ++i)
        out[i] = char((i * 7 + 3) % 251);
    return out;
}

// One fixture server, stopped by its pid (closing its stdin ends it too).
class HostileServer
{
public:
    /*! With \a countFile, the server writes its request count there after every request. */
    explicit HostileServer(const QString &scenario, int size = FileSize, const QByteArray &countFile = {})
    {
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QStringList args { QStringLiteral(QVFS_TEST_SOURCE_DIR "/testutil/hostilehttp.py"),
            QStringLiteral("--scenario"), scenario, QStringLiteral("--size"), QString::number(size) };
        if (!countFile.isEmpty())
            args << QStringLiteral("--count-file") << QString::fromLocal8Bit(countFile);
        m_process.start(QStringLiteral("python3"), args);
        if (!m_process.waitForStarted(10000))
            return;
        while (m_process.state() == QProcess::Running && !m_process.canReadLine())
            m_process.waitForReadyRead(10000);
        const QByteArray line = m_process.readLine().trimmed();
        if (line.startsWith("PORT "))
            m_port = line.mid(5).toInt();
    }
    ~HostileServer()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    int port() const { return m_port; }
    QUrl url(const QString &path, const QString &userInfo = QString()) const
    {
        QUrl u(QStringLiteral("http://127.0.0.1/"));
        u.setPort(m_port);
        u.setPath(path);
        if (!userInfo.isEmpty())
            u.setUserInfo(userInfo);
        return u;
    }
    /*! url() with the webdav:// scheme. */
    QUrl davUrl(const QString &path, const QString &userInfo = QString()) const
    {
        QUrl u = url(path, userInfo);
        u.setScheme(QStringLiteral("webdav"));
        return u;
    }
    // The requests the server answered so far (its /count).
    int requestCount() const
    {
        auto job = run(Qvfs::storedGet(url(QStringLiteral("/count"))));
        return job->error() ? -1 : job->data().toInt();
    }

private:
    QProcess m_process;
    int m_port = 0;
};

} // namespace

class HttpHostileTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QFAIL("python3 is needed for the hostile server (scripts/setup.sh --test installs it)");
        QVERIFY2(m_tmp.isValid(), m_tmp.errorString().constData());
    }

    void copyRefused_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("error");
        QTest::addColumn<bool>("direct");
        // Each through Qt's path, and on the client's own socket (the path of an https
        // download; QVFS_HTTP_DIRECT_GETS sends one over plain http there too).
        for (const bool direct : { false, true }) {
            const auto row = [direct](const char *name) -> QTestData & {
                return QTest::newRow(
                    qPrintable(QString::fromUtf8(name) + (direct ? QStringLiteral(" (own socket)") : QString())));
            };
            // A dropped download resumed with Range + If-Range, answered 206 by a server that
            // ignores If-Range: the new version's ETag (or Last-Modified) differs from the first
            // reply's, so its bytes are never appended to the old ones.
            row("resume: 206 with another ETag") << "splice-etag" << int(ErrSourceChanged) << direct;
            row("resume: 206 with another Last-Modified") << "splice-lastmod" << int(ErrSourceChanged) << direct;
            // bytes 5000-9999/10000 followed by 105,000 bytes: more than the range.
            row("206 longer than its Content-Range") << "overlong-206" << int(ErrServerError) << direct;
            // A close-delimited 200 with 15,000 bytes for a file the job found 10,000 long.
            row("body longer than the file's size") << "overlong-200" << int(ErrSourceChanged) << direct;
            // Chunked bodies that never end with the last chunk: never complete.
            row("chunk size not hexadecimal") << "chunk-garbage" << -1 << direct;
            row("chunk size 2^64-1") << "chunk-huge" << -1 << direct;
            row("chunked body cut by a close") << "chunk-cut" << -1 << direct;
        }
    }
    void copyRefused()
    {
        QFETCH(QString, scenario);
        QFETCH(int, error);
        QFETCH(bool, direct);
        WorkerEnv directGets("QVFS_HTTP_DIRECT_GETS", direct ? "1" : "");
        HostileServer server(scenario);
        QVERIFY(server.port() > 0);
        const QByteArray dest = join(m_tmp.path(), scenario.toUtf8());
        auto job = run(Qvfs::copyAs(server.url(QStringLiteral("/file")), fileUrl(dest)));
        QVERIFY2(job->error() != 0, "the copy of a broken transfer succeeded");
        if (error >= 0)
            QCOMPARE(job->error(), error);
        QVERIFY2(job->errorString().contains(QString::number(server.port())), qPrintable(job->errorString()));
        struct stat st;
        QVERIFY2(::lstat(dest.constData(), &st) != 0, "a destination was left");
        for (const QByteArray &name : listNames(m_tmp.path())) // no temporary of it either
            QVERIFY2(!name.contains(scenario.toUtf8()), name.constData());
    }

    void streamRefused_data()
    {
        QTest::addColumn<QString>("scenario");
        // The same broken bodies, copied to another server: get → put through the
        // application, where the size the job found is all there is to hold them to.
        QTest::newRow("body longer than the file's size") << "overlong-200";
        QTest::newRow("chunk size not hexadecimal") << "chunk-garbage";
        QTest::newRow("chunk size 2^64-1") << "chunk-huge";
        QTest::newRow("chunked body cut by a close") << "chunk-cut";
    }
    void streamRefused()
    {
        QFETCH(QString, scenario);
        // (one per row: a server left running would count as a worker to settleWorkers())
        HttpServerFixture dav(HttpServerFixture::Server::Nginx);
        QVERIFY2(dav.start(), qPrintable(dav.errorString()));
        HostileServer server(scenario);
        QVERIFY(server.port() > 0);
        const QByteArray name = "streamed-" + scenario.toUtf8();
        QUrl dest = dav.url("/" + name);
        dest.setScheme(QStringLiteral("webdav"));
        auto job = run(Qvfs::copyAs(server.url(QStringLiteral("/file")), dest));
        // The source that broke is named, whatever the destination makes of a short body
        // (an http put with a Content-Length refuses it too; an sftp or smb put would not).
        QCOMPARE(job->error(), int(ErrSourceChanged));
        QVERIFY2(job->errorString().contains(QString::number(server.port())), qPrintable(job->errorString()));
        QVERIFY2(!dav.exists(name), "a destination was left");
        const QByteArrayList left = dav.entries("");
        for (const QByteArray &n : left) // no temporary of it either
            QVERIFY2(!n.contains(name), n.constData());
    }

    void getRefused_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<bool>("direct");
        for (const bool direct : { false, true }) {
            const QString own = direct ? QStringLiteral(" (own socket)") : QString();
            QTest::newRow(qPrintable(QStringLiteral("resume: 206 with another ETag") + own)) << "splice-etag" << direct;
            QTest::newRow(qPrintable(QStringLiteral("resume: 206 with another Last-Modified") + own))
                << "splice-lastmod" << direct;
            QTest::newRow(qPrintable(QStringLiteral("206 longer than its Content-Range") + own))
                << "overlong-206" << direct;
        }
    }
    void getRefused()
    {
        // The stream of `qvfs cat` (TransferJob): the same rules, with no size to compare.
        QFETCH(QString, scenario);
        QFETCH(bool, direct);
        WorkerEnv directGets("QVFS_HTTP_DIRECT_GETS", direct ? "1" : "");
        HostileServer server(scenario);
        QVERIFY(server.port() > 0);
        auto job = run(Qvfs::storedGet(server.url(QStringLiteral("/file"))));
        QVERIFY2(job->error() != 0, "a broken transfer was delivered as complete");
        QVERIFY(job->data().size() <= FileSize);
        QVERIFY(versionA().startsWith(job->data()));
    }

    void authenticationLoop()
    {
        // A 401 with a new realm each time and credentials in the URL: answered a few
        // times, then the job ends; never a loop.
        HostileServer server(QStringLiteral("auth-loop"));
        QVERIFY(server.port() > 0);
        const QByteArray dest = join(m_tmp.path(), "auth");
        auto job = run(Qvfs::copyAs(server.url(QStringLiteral("/file"), QStringLiteral("user:pw")), fileUrl(dest)));
        const int requests = server.requestCount();
        qInfo("%d requests: %s", requests, qPrintable(job->errorString()));
        QCOMPARE(job->error(), int(ErrCannotAuthenticate));
        // The worker stops a reply once Qt sent it more than 8 times (9 requests on a quiet
        // machine). The server answers each send 50 ms late (see hostilehttp.py), so a send
        // more is on its way only when the worker's event loop stalls for that long.
        QVERIFY2(requests > 0 && requests <= 12, qPrintable(QString::number(requests)));
        QTest::qWait(300); // and nothing is sent after the job ended
        QCOMPARE(server.requestCount(), requests);
    }

    void slowServers_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("listing");
        // A byte every half second: never silent for the timeout, never done. Progress
        // is counted 1 KiB at a time, so it ends as a silent server does.
        QTest::newRow("GET trickled") << "trickle"
                                      << "/file" << false;
        QTest::newRow("PROPFIND trickled") << "trickle"
                                           << "/dir/" << true;
        // 1,100 bytes every 1.5 s: progress each time within the 2 s timeout, but the
        // whole exchange must average 1 KiB a second once the timeout has passed.
        QTest::newRow("GET dripped") << "drip"
                                     << "/file" << false;
        QTest::newRow("PROPFIND dripped") << "drip"
                                          << "/dir/" << true;
        // Blamed on the server (ErrServerTimedOut naming its URL), not on the worker.
        QTest::newRow("silent server, GET") << "silent"
                                            << "/file" << false;
        QTest::newRow("silent server, PROPFIND") << "silent"
                                                 << "/dir/" << true;
        // the downloads on the client's own socket (QVFS_HTTP_DIRECT_GETS)
        QTest::newRow("GET trickled (own socket)") << "trickle"
                                                   << "/file" << false;
        QTest::newRow("GET dripped (own socket)") << "drip"
                                                  << "/file" << false;
        QTest::newRow("silent server, GET (own socket)") << "silent"
                                                         << "/file" << false;
    }
    void slowServers()
    {
        QFETCH(QString, scenario);
        QFETCH(QString, path);
        QFETCH(bool, listing);
        WorkerEnv timeout("QVFS_HTTP_TIMEOUT_MS", "2000");
        const bool direct = QByteArray(QTest::currentDataTag()).endsWith("(own socket)");
        WorkerEnv directGets("QVFS_HTTP_DIRECT_GETS", direct ? "1" : "");
        HostileServer server(scenario);
        QVERIFY(server.port() > 0);
        QElapsedTimer clock;
        clock.start();
        int error = 0;
        QString text;
        if (listing) {
            const Listing l = collect(Qvfs::listDir(server.davUrl(path)));
            error = l.error;
            text = l.errorString;
        } else {
            const QByteArray dest = join(m_tmp.path(), "slow");
            auto job = run(Qvfs::copyAs(server.url(path), fileUrl(dest)));
            error = job->error();
            text = job->errorString();
            struct stat st;
            QVERIFY2(::lstat(dest.constData(), &st) != 0, "a destination was left");
        }
        QCOMPARE(error, int(ErrServerTimedOut));
        QVERIFY2(text.contains(QString::number(server.port())), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("worker")), qPrintable(text));
        // Bounded by the timeout (2 s), not by the server's patience; generous for a busy machine.
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
    }

    void interimAnswersWithoutEnd_data()
    {
        QTest::addColumn<bool>("dav");
        QTest::newRow("HEAD (http)") << false;
        QTest::newRow("PROPFIND Depth 0 (webdav)") << true;
    }
    void interimAnswersWithoutEnd()
    {
        // "102 Processing" every 10 ms and never a final answer: each interim answer is
        // bytes on the wire, so the silence timeout alone never ends it. A few are taken,
        // then the answer is malformed (the stat's own connection, not through Qt).
        QFETCH(bool, dav);
        HostileServer server(QStringLiteral("interim-flood"));
        QVERIFY(server.port() > 0);
        QElapsedTimer clock;
        clock.start();
        const QUrl u = dav ? server.davUrl(QStringLiteral("/file")) : server.url(QStringLiteral("/file"));
        auto job = run(Qvfs::stat(u));
        QCOMPARE(job->error(), int(ErrServerError));
        QVERIFY2(job->errorString().contains(QString::number(server.port())), qPrintable(job->errorString()));
        // Well before the 20 s a silent server is given (generous for a busy machine).
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    }

    void bytesAfterAnAnswer()
    {
        // A server that writes bytes belonging to no answer after a HEAD's answer, on the
        // kept-alive connection: those bytes are never read as the start of the next
        // answer. Stats right after each other and after the bytes came all succeed.
        HostileServer server(QStringLiteral("stale-bytes"));
        QVERIFY(server.port() > 0);
        const QUrl u = server.url(QStringLiteral("/file"));
        for (int i = 0; i < 3; ++i) {
            auto job = run(Qvfs::stat(u));
            QVERIFY2(job->error() == 0, qPrintable(QString::number(i) + QLatin1Char(' ') + job->errorString()));
            QCOMPARE(job->statResult().size(), qint64(FileSize));
            if (i == 1)
                QTest::qWait(500); // the stray bytes are waiting on the kept connection now
        }
    }

    void bigListingKeepsTheWorkerSmall()
    {
        // 200,000 PROPFIND responses as fast as the socket takes them: the worker reads
        // the answer as it parses it, whatever the server's speed (Qt 6.4 forgot the read
        // buffer size of a request with a body and held the whole answer: 289 MB for
        // 1,000,000 responses).
        constexpr int Entries = 200000;
        QVERIFY(settleWorkers());
        HostileServer server(QStringLiteral("propfind-big"), Entries);
        QVERIFY(server.port() > 0);
        const QUrl u = server.davUrl(QStringLiteral("/dir/"));
        ListJob *job = Qvfs::listDir(u);
        qint64 count = 0;
        connect(job, &ListJob::entries, this, [&](ListJob *, const EntryList &list) { count += list.size(); });
        auto done = run(job);
        QCOMPARE(done->error(), 0);
        QCOMPARE(count, qint64(Entries));
        QList<qint64> workers; // the server is a child too
        for (qint64 pid : ProcUtil::childPids()) {
            if (ProcUtil::readProcFile("/proc/" + QByteArray::number(pid) + "/comm").startsWith("qvfs-worker-htt"))
                workers.append(pid);
        }
        QCOMPARE(workers.size(), 1);
        const qint64 peakKb = ProcUtil::statusKb(workers.first(), "VmHWM:");
        qInfo("figure: the http worker's peak RSS after a %d-response PROPFIND: %lld KiB", Entries, peakKb);
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY2(peakKb < 32 * 1024, // DESIGN: worker RSS ≤ 32 MB
                qPrintable(QString::number(peakKb)));
    }

    void localFolderSwapped_data()
    {
        QTest::addColumn<bool>("merge");
        QTest::addColumn<bool>("newName");
        // cp -r -f webdav://…/tree/sub X/ with X/sub there already (a merge): X/sub is
        // swapped for a symlink just as the http worker opens it to write X/sub/file.
        QTest::newRow("a folder merged into") << true << false;
        // cp -r webdav://…/tree/sub X/: X itself is swapped for a symlink just as the
        // file worker opens it to make X/sub, after the job stated it.
        QTest::newRow("the destination folder") << false << false;
        // cp -r webdav://…/tree/sub X/new: the folder above a destination given by its
        // new name, swapped just as the file worker opens it to make X/new.
        QTest::newRow("the folder above a new name") << false << true;
    }
    void localFolderSwapped()
    {
        // Every write of a remote → local copy holds the folder it writes into to the
        // identity the job found (device, inode; opened with O_NOFOLLOW): the swapped-in
        // symlink is refused, and nothing lands where it points (/etc, in the attack).
        QFETCH(bool, merge);
        QFETCH(bool, newName);
        QVERIFY2(WorkerHold::haveStrace(), "strace is needed (scripts/setup.sh --test)");
        QVERIFY(settleWorkers()); // the http worker starts under strace below
        HostileServer server(QStringLiteral("dav-tree"), 10);
        QVERIFY(server.port() > 0);
        const QByteArray row = join(m_tmp.path(), merge ? "merge" : newName ? "newname" : "destination");
        const QByteArray x = join(row, "X");
        const QByteArray victim = join(row, "victim");
        QVERIFY(::mkdir(row.constData(), 0755) == 0);
        QVERIFY(::mkdir(x.constData(), 0755) == 0 && ::mkdir(victim.constData(), 0755) == 0);
        if (merge)
            QVERIFY(::mkdir(join(x, "sub").constData(), 0755) == 0);
        const QByteArray swapped = merge ? join(x, "sub") : x;
        if (merge) {
            // The file worker (merge, stat) runs as it is; only the http worker, which
            // writes the file, is started under strace.
            QCOMPARE(run(Qvfs::stat(fileUrl(x)))->error(), 0);
        }
        qputenv("QVFS_WORKER_PREFIX", WorkerHold::prefix("openat", 3000000, "1", { swapped }));
        const QUrl src = server.davUrl(QStringLiteral("/tree/sub"));
        CopyJob *job = newName ? Qvfs::copyAs(src, fileUrl(join(x, "new"))) : Qvfs::copy(src, fileUrl(x));
        job->setConflictPolicy(ConflictPolicy::Overwrite);
        job->setAutoDelete(false);
        std::unique_ptr<CopyJob> hold(job);
        const WorkerHold::Held held = WorkerHold::wait({ SYS_openat }, { swapped });
        qunsetenv("QVFS_WORKER_PREFIX");
        QVERIFY2(held.isValid(), "no worker opened the folder");
        QVERIFY(::rename(swapped.constData(), QByteArray(swapped + ".orig").constData()) == 0);
        QVERIFY(::symlink(victim.constData(), swapped.constData()) == 0);
        QVERIFY2(WorkerHold::stillHeld(held), "the swap came too late to prove anything");
        runToResult(job);
        QCOMPARE(job->error(), int(ErrSourceChanged));
        QCOMPARE(listNames(victim), QByteArrayList());
        removeTreeRaw(row);
    }

    void unsafeNameReported()
    {
        // A listing with "a%2FPWN" (a name with a slash): left out and reported, so the
        // listing and the copy end with ErrPartial naming it; the rest is there.
        HostileServer server(QStringLiteral("dav-tree"), 10);
        QVERIFY(server.port() > 0);
        const QUrl odd = server.davUrl(QStringLiteral("/tree/odd/"));
        ListJob *list = Qvfs::listDir(odd);
        QList<QUrl> leftOut;
        connect(list, &Job::leftOut, this, [&](Job *, const QUrl &u, int) { leftOut.append(u); });
        const Listing l = collect(list);
        QCOMPARE(l.error, int(ErrPartial));
        QCOMPARE(l.entries.keys(), QList<QByteArray> { "ok" });
        QCOMPARE(leftOut.size(), 1);
        QVERIFY2(leftOut.first().toString(QUrl::FullyEncoded).endsWith(QLatin1String("/tree/odd/a%2FPWN")),
            qPrintable(leftOut.first().toString()));

        const QByteArray dest = join(m_tmp.path(), "odd");
        auto copy = run(Qvfs::copyAs(odd, fileUrl(dest)));
        QCOMPARE(copy->error(), int(ErrPartial));
        QCOMPARE(copy->leftOutCount(), qint64(1));
        QCOMPARE(listNames(dest), QByteArrayList { "ok" });
        removeTreeRaw(dest);
    }

    void overlongNameLeftOut()
    {
        // A listed name longer than a local file name can be (300 bytes) is left out as
        // soon as it is listed (ErrNameTooLong), never planned; the rest is copied.
        HostileServer server(QStringLiteral("dav-tree"), 10);
        QVERIFY(server.port() > 0);
        const QUrl src = server.davUrl(QStringLiteral("/tree/long/"));
        const QByteArray dest = join(m_tmp.path(), "long");
        CopyJob *job = Qvfs::copyAs(src, fileUrl(dest));
        QList<int> why;
        connect(job, &Job::leftOut, this, [&](Job *, const QUrl &, int error) { why.append(error); });
        auto done = run(job);
        QCOMPARE(done->error(), int(ErrPartial));
        QCOMPARE(why, QList<int> { ErrNameTooLong });
        QCOMPARE(listNames(dest), QByteArrayList { "ok" });
        removeTreeRaw(dest);
    }

    void treeWithoutEnd()
    {
        // Every folder holds another: a recursive listing enters folders down to
        // MaxTreePathBytes (4096 bytes of path, 41 levels of 100-byte names here), lists
        // the next one without entering it and ends with ErrPartial naming it.
        HostileServer server(QStringLiteral("dav-deep"));
        QVERIFY(server.port() > 0);
        const QUrl deep = server.davUrl(QStringLiteral("/deep/"));
        ListJob *list = Qvfs::listRecursive(deep);
        QList<int> why;
        connect(list, &Job::leftOut, this, [&](Job *, const QUrl &, int error) { why.append(error); });
        const Listing l = collect(list);
        QCOMPARE(l.error, int(ErrPartial));
        QCOMPARE(why, QList<int> { ErrUrlTooLong });
        QCOMPARE(l.count, 4096 / 101 + 1);
        const int requests = server.requestCount();
        QVERIFY2(requests <= 4096 / 101 + 3, qPrintable(QString::number(requests)));
    }

    void planStreams()
    {
        // A copy of a remote tree writes while the tree is still being listed: the plan is
        // carried out as it arrives, never built whole first (a listing of 100,000 entries
        // took 29 s and 1.7 GB before anything was written). The tree without end answers
        // each PROPFIND 30 ms late; when the copy makes its third level of folders, most of
        // the listing's 42 PROPFINDs are still to come (a plan built whole first: all 44
        // requests, the two stats included, were answered before).
        const QByteArray countFile = join(m_tmp.path(), "requests");
        HostileServer server(QStringLiteral("dav-deep"), FileSize, countFile);
        QVERIFY(server.port() > 0);
        const QByteArray dest = join(m_tmp.path(), "deepcopy");
        CopyJob *job = Qvfs::copyAs(server.davUrl(QStringLiteral("/deep/")), fileUrl(dest));
        int folders = 0;
        int requestsAtThirdLevel = -1;
        connect(job, &CopyJob::createdFolder, this, [&](CopyJob *, const QUrl &) {
            if (++folders == 3)
                requestsAtThirdLevel = readRaw(countFile).toInt();
        });
        auto done = run(job);
        QVERIFY2(done->error() != 0, "a tree without end copied whole"); // its end is left out
        QVERIFY2(folders >= 3, qPrintable(done->errorString()));
        QVERIFY2(requestsAtThirdLevel > 0 && requestsAtThirdLevel <= 30, // of 44 (11 here)
            qPrintable(
                QStringLiteral("%1 requests answered when the third folder was made").arg(requestsAtThirdLevel)));
        removeTreeRaw(dest);
    }

    void passwordNotInCommandLine()
    {
        // `qvfs stat webdav://user:secret@…` while the server keeps it waiting: the
        // running client's /proc/PID/cmdline, readable by every user, shows no password.
        HostileServer server(QStringLiteral("silent"));
        QVERIFY(server.port() > 0);
        const QUrl u = server.davUrl(QStringLiteral("/dir/"), QStringLiteral("user:s3cr3t-pw"));
        QProcess client;
        client.start(QStringLiteral(QVFS_CLI_TEST_BIN_DIR "/qvfs"), { QStringLiteral("stat"), u.toString() });
        QVERIFY(client.waitForStarted());
        const QByteArray cmdline = "/proc/" + QByteArray::number(client.processId()) + "/cmdline";
        QByteArray seen;
        // Until the client itself runs (the launcher execs it) and has read its arguments.
        QVERIFY(QTest::qWaitFor(
            [&] {
                seen = ProcUtil::readProcFile(cmdline);
                return ProcUtil::readProcFile("/proc/" + QByteArray::number(client.processId()) + "/comm")
                           .startsWith("qvfs-client")
                    && seen.contains("***");
            },
            20000));
        QVERIFY2(!seen.contains("s3cr3t"), seen.constData());
        QVERIFY(seen.contains("user:"));
        client.kill();
        client.waitForFinished();
    }

    void wellBehavedServer()
    {
        // The control: the same copy and get from a server that keeps its word.
        HostileServer server(QStringLiteral("good"));
        QVERIFY(server.port() > 0);
        const QByteArray dest = join(m_tmp.path(), "good");
        auto job = run(Qvfs::copyAs(server.url(QStringLiteral("/file")), fileUrl(dest)));
        QCOMPARE(job->error(), 0);
        QCOMPARE(readRaw(dest), versionA());
        auto get = run(Qvfs::storedGet(server.url(QStringLiteral("/file"))));
        QCOMPARE(get->error(), 0);
        QCOMPARE(get->data(), versionA());
        QVERIFY(::unlink(dest.constData()) == 0);
    }

private:
    static QByteArrayList listNames(const QByteArray &dir)
    {
        QByteArrayList names;
        const QStringList list
            = QDir(QString::fromLocal8Bit(dir)).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        for (const QString &n : list)
            names.append(n.toLocal8Bit());
        return names;
    }

    FixtureDir m_tmp;
};

QTEST_GUILESS_MAIN(HttpHostileTest)
#include "httphostiletest.moc"
