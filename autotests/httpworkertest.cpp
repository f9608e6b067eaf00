// SPDX-License-Identifier: LGPL-2.1-or-later
// The http(s)/WebDAV worker through the public jobs API and the real qvfs-worker-http,
// against real servers on 127.0.0.1 started here (testutil/httpserverfixture): nginx with
// dav-ext (also over TLS and HTTP/2) and apache2 with mod_dav_fs and Digest
// authentication. Operations and their errors, redirects, the certificate question,
// one password question for many jobs, a 10,000-entry folder, names, kills, 100 MB both
// ways byte for byte (and which copy strategy ran), and a slow reader. Figures are
// printed, never asserted as times. Certificates trusted "always" go to a temporary
// XDG_DATA_HOME, never the real home.

#include "bigfile.h"
#include "fixturedir.h"
#include "httpserverfixture.h"
#include "jobrunner.h"
#include "loopbackproxy.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/AskDelegate>
#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/MetaData>
#include <Qvfs/Protocol>
#include <Qvfs/Question>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;
using Server = HttpServerFixture::Server;

namespace
{

constexpr qint64 BigSize = 100 * MiB;

// Answers password and certificate questions as told, and counts them.
class Asker : public AskDelegate
{
public:
    void ask(Question *q) override
    {
        switch (q->kind()) {
        case QuestionKind::Password: {
            passwordQuestions.append(q->password());
            if (passwords.isEmpty()) {
                q->refuse();
                return;
            }
            const QPair<QString, QString> a = passwords.size() > 1 ? passwords.takeFirst() : passwords.first();
            q->answerPassword(a.first, a.second);
            return;
        }
        case QuestionKind::Certificate:
        case QuestionKind::HostKey:
            trustQuestions.append(q->trust());
            q->answerTrust(trust);
            return;
        default:
            break;
        }
        q->refuse();
    }

    QList<QPair<QString, QString>> passwords; // answered in order; the last one stays
    Trust trust = Trust::Refuse;
    QList<PasswordQuestion> passwordQuestions;
    QList<TrustQuestion> trustQuestions;
};

QUrl dav(const QUrl &http)
{
    QUrl u = http;
    u.setScheme(http.scheme() == QLatin1String("https") ? QStringLiteral("webdavs") : QStringLiteral("webdav"));
    return u;
}

// A file of \a size pseudo-random bytes (fast: a repeated 1 MiB block with the offset mixed in).
bool makeBigFile(const QByteArray &path, qint64 size, quint32 seed)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    QByteArray block = pseudoRandom(MiB, seed);
    bool ok = true;
    for (qint64 off = 0; ok && off < size; off += MiB) {
        std::memcpy(block.data(), &off, sizeof off); // every MiB differs
        const qint64 n = qMin(MiB, size - off);
        ok = ::write(fd, block.constData(), size_t(n)) == n;
    }
    return ::close(fd) == 0 && ok;
}

// The pids of this process's children running \a executable (a suffix of /proc/PID/exe).
QList<qint64> workers(const char *executable)
{
    return ProcUtil::childrenRunning(executable);
}

// The web servers run as this process's children: this ends the idle workers and waits
// until no worker process is left.
bool settle(int timeoutMs = 5000)
{
    return QvfsTest::settleWorkers({ "/qvfs-worker-http", "/qvfs-worker-file" }, timeoutMs);
}

// Bytes the file workers of this process read and wrote (/proc/PID/io rchar + wchar):
// a file worker that moved a big file's data took part in the copy (get -> put), one
// that only stated the source did not.
qint64 fileWorkerIo()
{
    qint64 sum = 0;
    for (qint64 pid : workers("/qvfs-worker-file")) {
        const QByteArray io = ProcUtil::readProcFile("/proc/" + QByteArray::number(pid) + "/io");
        for (const QByteArray &line : io.split('\n')) {
            if (line.startsWith("rchar:") || line.startsWith("wchar:"))
                sum += line.mid(6).trimmed().toLongLong();
        }
    }
    return sum;
}

// Names in the served folder \a rel that are temporaries of an upload.
QByteArrayList temporaries(const HttpServerFixture &fx, QByteArrayView rel)
{
    QByteArrayList out;
    for (const QByteArray &n : fx.entries(rel)) {
        if (n.contains(".qvfs-") && n.endsWith(".part"))
            out.append(n);
    }
    return out;
}

} // namespace

class HttpWorkerTest : public QObject
{
    Q_OBJECT

    std::unique_ptr<HttpServerFixture> m_nginx;
    std::unique_ptr<HttpServerFixture> m_apache;
    QTemporaryDir m_dataHome;
    std::unique_ptr<FixtureDir> m_local;

    HttpServerFixture &fx(int server) { return server == 0 ? *m_nginx : *m_apache; }
    // webdav://127.0.0.1:PORT/ENCODEDPATH on server \a server
    QUrl url(int server, const QByteArray &encodedPath) { return dav(fx(server).url(encodedPath)); }
    QByteArray local(const QByteArray &rel) const { return join(m_local->path(), rel); }
    QUrl localUrl(const QByteArray &rel) const { return fileUrl(local(rel)); }

    void serverRows()
    {
        QTest::addColumn<int>("server");
        QTest::newRow("nginx") << 0;
        QTest::newRow("apache") << 1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dataHome.isValid());
        // certificates trusted "always" are recorded here, never in the real home
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_dataHome.path()));
        m_nginx = std::make_unique<HttpServerFixture>(Server::Nginx);
        m_apache = std::make_unique<HttpServerFixture>(Server::Apache);
        QVERIFY2(m_nginx->start(), qPrintable(m_nginx->errorString()));
        QVERIFY2(m_apache->start(), qPrintable(m_apache->errorString()));
        for (HttpServerFixture *f : { m_nginx.get(), m_apache.get() }) {
            for (const char *d : { "auth", "forbidden", "small", "t" })
                QVERIFY(f->makeDir(d));
            QVERIFY(f->writeFile("auth/secret.txt", "secret\n"));
            QVERIFY(f->writeFile("forbidden/x.txt", "no\n"));
        }
        qInfo("nginx on %d (https %d), apache on %d", m_nginx->port(), m_nginx->httpsPort(), m_apache->port());
    }

    void cleanupTestCase()
    {
        QVERIFY(settle());
        m_nginx.reset();
        m_apache.reset();
    }

    void init()
    {
        m_local = std::make_unique<FixtureDir>(QByteArrayLiteral("/dev/shm"));
        if (!m_local->isValid())
            m_local = std::make_unique<FixtureDir>();
        QVERIFY(m_local->isValid());
        for (HttpServerFixture *f : { m_nginx.get(), m_apache.get() }) {
            removeTreeRaw(f->path("t"));
            QVERIFY(f->makeDir("t"));
        }
    }

    void cleanup()
    {
        QVERIFY2(settle(), "workers still running after the test");
        m_local.reset();
    }

    // ------------------------------------------------------------ read side

    void statAndGet_data() { serverRows(); }
    void statAndGet()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.writeFile("t/hello.txt", "hello, world\n"));
        QVERIFY(f.makeDir("t/sub"));
        // WebDAV: PROPFIND Depth 0
        auto s = run(Qvfs::stat(url(server, "/t/hello.txt"), DetailsDefault | DetailMimeType));
        QVERIFY2(s->error() == 0, qPrintable(s->errorString()));
        QCOMPARE(s->statResult().name(), QByteArrayView("hello.txt"));
        QCOMPARE(s->statResult().type(), FileType::Regular);
        QCOMPARE(s->statResult().size(), qint64(13));
        QCOMPARE(s->statResult().number(MTime), f.mtime("t/hello.txt"));
        QCOMPARE(s->statResult().bytes(MimeType), QByteArrayView("text/plain"));
        auto d = run(Qvfs::stat(url(server, "/t/sub"), DetailsDefault | DetailMimeType));
        QCOMPARE(d->error(), 0);
        QCOMPARE(d->statResult().type(), FileType::Directory);
        // http: HEAD
        auto h = run(Qvfs::stat(f.url("/t/hello.txt"), DetailsDefault | DetailMimeType));
        QVERIFY2(h->error() == 0, qPrintable(h->errorString()));
        QCOMPARE(h->statResult().size(), qint64(13));
        QCOMPARE(h->statResult().number(MTime), f.mtime("t/hello.txt"));
        QCOMPARE(h->statResult().bytes(MimeType), QByteArrayView("text/plain"));
        // get: the MIME type comes before the data
        for (const QUrl &u : { url(server, "/t/hello.txt"), f.url("/t/hello.txt") }) {
            TransferJob *g = Qvfs::get(u);
            QString typeAtFirstData;
            bool typeSeen = false;
            QByteArray received;
            connect(g, &TransferJob::mimeTypeFound, this, [&](TransferJob *, const QString &) { typeSeen = true; });
            connect(g, &TransferJob::data, this, [&](TransferJob *j, const QByteArray &b) {
                if (typeAtFirstData.isEmpty())
                    typeAtFirstData = typeSeen ? j->mimeType() : QStringLiteral("none");
                received += b;
            });
            auto j = run(g);
            QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
            QCOMPARE(received, QByteArray("hello, world\n"));
            QCOMPARE(typeAtFirstData, QStringLiteral("text/plain"));
        }
        // get from an offset
        auto part = run(Qvfs::storedGet(url(server, "/t/hello.txt")));
        QCOMPARE(part->error(), 0);
        TransferJob *offsetJob = Qvfs::get(url(server, "/t/hello.txt"), 7);
        QByteArray tail;
        connect(offsetJob, &TransferJob::data, this, [&tail](TransferJob *, const QByteArray &b) { tail += b; });
        QCOMPARE(run(offsetJob)->error(), 0);
        QCOMPARE(tail, QByteArray("world\n"));
    }

    void readErrors_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<QByteArray>("operation"); // stat, get, list, statHttp, getHttp
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<int>("error");
        for (int s : { 0, 1 }) {
            const QByteArray n = s == 0 ? "nginx: " : "apache: ";
            auto row = [&](const char *name) -> QTestData & { return QTest::newRow(QByteArray(n + name).constData()); };
            row("stat missing") << s << QByteArray("stat") << QByteArray("/t/missing") << int(ErrDoesNotExist);
            row("stat forbidden") << s << QByteArray("stat") << QByteArray("/forbidden/x.txt") << int(ErrAccessDenied);
            row("get missing") << s << QByteArray("get") << QByteArray("/t/missing") << int(ErrDoesNotExist);
            row("get forbidden") << s << QByteArray("get") << QByteArray("/forbidden/x.txt") << int(ErrAccessDenied);
            row("get a folder") << s << QByteArray("get") << QByteArray("/t/sub") << int(ErrIsDirectory);
            row("list missing") << s << QByteArray("list") << QByteArray("/t/missing") << int(ErrDoesNotExist);
            row("list a file") << s << QByteArray("list") << QByteArray("/t/f") << int(ErrIsNotDirectory);
            row("list forbidden") << s << QByteArray("list") << QByteArray("/forbidden") << int(ErrAccessDenied);
            row("http stat missing") << s << QByteArray("statHttp") << QByteArray("/t/missing") << int(ErrDoesNotExist);
            row("http get forbidden") << s << QByteArray("getHttp") << QByteArray("/forbidden/x.txt")
                                      << int(ErrAccessDenied);
            row("http list") << s << QByteArray("listHttp") << QByteArray("/t/") << int(ErrUnsupportedAction);
        }
    }
    void readErrors()
    {
        QFETCH(int, server);
        QFETCH(QByteArray, operation);
        QFETCH(QByteArray, path);
        QFETCH(int, error);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("t/sub"));
        QVERIFY(f.writeFile("t/f", "f"));
        const QUrl u = operation.endsWith("Http") ? f.url(path) : url(server, path);
        int got = -1;
        QString text;
        if (operation.startsWith("stat")) {
            auto j = run(Qvfs::stat(u));
            got = j->error();
            text = j->errorString();
        } else if (operation.startsWith("get")) {
            auto j = run(Qvfs::storedGet(u));
            got = j->error();
            text = j->errorString();
            QVERIFY(j->data().isEmpty());
        } else {
            const Listing l = collect(Qvfs::listDir(u));
            got = l.error;
            text = l.errorString;
        }
        QVERIFY2(got == error, qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(errorName(got)), text)));
    }

    void freeSpace_data() { serverRows(); }
    void freeSpace()
    {
        // RFC 4331's quota properties, asked for by a Depth 0 PROPFIND. Neither nginx's
        // dav-ext nor Apache's mod_dav_fs has them (nginx sends none, Apache a 404
        // propstat): the worker says it cannot tell, naming the URL. What a server with
        // quotas sends is propfindparsertest's (quota).
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("t/q"));
        QVERIFY(Protocol::find(QStringLiteral("webdav")).hasCapability(Protocol::FreeSpace));
        QVERIFY(Protocol::find(QStringLiteral("dav")).hasCapability(Protocol::FreeSpace));
        QVERIFY(!Protocol::find(QStringLiteral("http")).hasCapability(Protocol::FreeSpace));
        QVERIFY(!Protocol::find(QStringLiteral("https")).hasCapability(Protocol::FreeSpace));
        const int before = f.requestCount("PROPFIND", "/t/q/");
        const QUrl u = url(server, "/t/q/");
        auto j = run(Qvfs::freeSpace(u));
        QVERIFY2(j->error() == int(ErrUnsupportedAction), qPrintable(j->errorString()));
        QCOMPARE(j->errorArgs().value(0), u.toString(QUrl::FullyEncoded));
        QCOMPARE(j->total(), qint64(-1));
        QCOMPARE(j->available(), qint64(-1));
        // the server was asked, once (Apache logs a request after it answered: waited for)
        QTRY_COMPARE_WITH_TIMEOUT(f.requestCount("PROPFIND", "/t/q/"), before + 1, 5000);
        // A missing URL is that, not "unsupported".
        j = run(Qvfs::freeSpace(url(server, "/t/missing")));
        QVERIFY2(j->error() == int(ErrDoesNotExist), qPrintable(j->errorString()));
        QCOMPARE(j->errorArgs().value(0), url(server, "/t/missing").toString(QUrl::FullyEncoded));
        // Plain http: refused by the application (http's description has no "freeSpace").
        const QUrl h = f.url("/t/q/");
        j = run(Qvfs::freeSpace(h));
        QCOMPARE(j->error(), int(ErrUnsupportedAction));
        QCOMPARE(j->errorArgs().value(0), h.toString());
        QCOMPARE(f.requestCount("PROPFIND", "/t/q/"), before + 1);
    }

    void listDetails_data() { serverRows(); }
    void listDetails()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.writeFile("t/a.txt", "alpha"));
        QVERIFY(f.writeFile("t/.hidden", "h"));
        QVERIFY(f.makeDir("t/sub/deeper"));
        QVERIFY(f.writeFile("t/sub/b.png", "bb"));
        QVERIFY(f.writeFile("t/sub/deeper/c", ""));
        const Listing flat = collect(Qvfs::listDir(url(server, "/t"), DetailsDefault | DetailMimeType));
        QCOMPARE(flat.error, 0);
        // nginx's dav-ext module leaves every name starting with '.' out of its listings
        const bool dots = server == 1;
        QCOMPARE(flat.entries.keys(),
            dots ? (QList<QByteArray> { ".hidden", "a.txt", "sub" }) : (QList<QByteArray> { "a.txt", "sub" }));
        QCOMPARE(flat.entries.value("a.txt").size(), qint64(5));
        QCOMPARE(flat.entries.value("a.txt").number(MTime), f.mtime("t/a.txt"));
        QCOMPARE(flat.entries.value("a.txt").bytes(MimeType), QByteArrayView("text/plain"));
        QCOMPARE(flat.entries.value("sub").type(), FileType::Directory);
        QCOMPARE(flat.entries.value("sub").bytes(MimeType), QByteArrayView("inode/directory"));
        if (dots)
            QCOMPARE(flat.entries.value(".hidden").number(Hidden), qint64(1));
        auto hidden = run(Qvfs::stat(url(server, "/t/.hidden")));
        QCOMPARE(hidden->error(), 0);
        QCOMPARE(hidden->statResult().number(Hidden), qint64(1));
        const Listing rec = collect(Qvfs::listRecursive(url(server, "/t"), DetailBasic));
        QCOMPARE(rec.error, 0);
        QList<QByteArray> all { "a.txt", "sub", "sub/b.png", "sub/deeper", "sub/deeper/c" };
        if (dots)
            all.prepend(".hidden");
        QCOMPARE(rec.entries.keys(), all);
        QCOMPARE(rec.count, all.size());
        QCOMPARE(rec.entries.value("sub/b.png").size(), qint64(2));
    }

    void bigFolder_data() { serverRows(); }
    void bigFolder()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("t/big"));
        for (int i = 0; i < 10000; ++i)
            QVERIFY(f.writeFile(QByteArray("t/big/file-" + QByteArray::number(i)), QByteArray(i % 7, 'x')));
        QElapsedTimer t;
        t.start();
        ListJob *job = Qvfs::listDir(url(server, "/t/big"));
        qint64 firstMs = -1;
        int batches = 0;
        connect(job, &ListJob::entries, this, [&] {
            if (firstMs < 0)
                firstMs = t.elapsed();
            ++batches;
        });
        const Listing l = collect(job);
        const qint64 ms = t.elapsed();
        QCOMPARE(l.error, 0);
        QCOMPARE(l.count, 10000);
        QCOMPARE(l.entries.size(), 10000);
        QCOMPARE(l.entries.value("file-9999").size(), qint64(9999 % 7));
        qInfo("figure: %s, 10,000 entries listed in %lld ms in %d batches, the first after %lld ms",
            f.name().constData(), ms, batches, firstMs);
        // A worker sends a listing in batches (the worker library flushes the first at 4 KiB,
        // then at 60 KiB or every 100 ms), so that the first entries reach the application
        // early: 10,000 of them are far more than one.
        QVERIFY2(batches > 1, "the entries came in batches");
    }

    // ------------------------------------------------------------ writes

    void writeOperations_data() { serverRows(); }
    void writeOperations()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        // mkdir, mkpath
        QCOMPARE(run(Qvfs::mkdir(url(server, "/t/new")))->error(), 0);
        QVERIFY(S_ISDIR(lstatRaw(f.path("t/new")).st_mode));
        QCOMPARE(run(Qvfs::mkdir(url(server, "/t/new")))->error(), int(ErrAlreadyExists));
        QCOMPARE(run(Qvfs::mkdir(url(server, "/t/nodir/new")))->error(), int(ErrDoesNotExist));
        QCOMPARE(run(Qvfs::mkpath(url(server, "/t/a/b/c")))->error(), 0);
        QVERIFY(S_ISDIR(lstatRaw(f.path("t/a/b/c")).st_mode));
        QCOMPARE(run(Qvfs::mkpath(url(server, "/t/a/b")))->error(), 0);
        QCOMPARE(run(Qvfs::mkdir(url(server, "/forbidden/new")))->error(), int(ErrAccessDenied));
        // put: new, exists, overwrite, into a missing folder, too large, forbidden
        QCOMPARE(run(Qvfs::storedPut("one", url(server, "/t/p.txt")))->error(), 0);
        QCOMPARE(f.readFile("t/p.txt"), QByteArray("one"));
        QCOMPARE(run(Qvfs::storedPut("two", url(server, "/t/p.txt")))->error(), int(ErrAlreadyExists));
        QCOMPARE(f.readFile("t/p.txt"), QByteArray("one"));
        QCOMPARE(run(Qvfs::storedPut("two", url(server, "/t/p.txt"), -1, PutOverwrite))->error(), 0);
        QCOMPARE(f.readFile("t/p.txt"), QByteArray("two"));
        QCOMPARE(run(Qvfs::storedPut("x", url(server, "/t/nodir/p.txt")))->error(), int(ErrDoesNotExist));
        QCOMPARE(run(Qvfs::storedPut("x", url(server, "/t/a")))->error(), int(ErrIsDirectory));
        // Apache answers 413 and closes while the body is still going; Qt 6.4 then often
        // loses the answer: a connection error saying nothing was written (docs/webdav.md)
        const int tooLarge = run(Qvfs::storedPut(QByteArray(4096, 'x'), url(server, "/small/big")))->error();
        QVERIFY2(tooLarge == ErrFileTooLarge || (server == 1 && tooLarge == ErrConnectionFailed),
            errorName(tooLarge).constData());
        QVERIFY(!f.exists("small/big"));
        QCOMPARE(run(Qvfs::storedPut("x", url(server, "/forbidden/p")))->error(), int(ErrAccessDenied));
        QCOMPARE(temporaries(f, "t"), QByteArrayList());
        QCOMPARE(temporaries(f, "small"), QByteArrayList());
        // rename (MOVE)
        QCOMPARE(run(Qvfs::rename(url(server, "/t/p.txt"), url(server, "/t/q.txt")))->error(), 0);
        QVERIFY(!f.exists("t/p.txt"));
        QCOMPARE(f.readFile("t/q.txt"), QByteArray("two"));
        QVERIFY(f.writeFile("t/other", "other"));
        QCOMPARE(run(Qvfs::rename(url(server, "/t/q.txt"), url(server, "/t/other")))->error(), int(ErrAlreadyExists));
        QCOMPARE(run(Qvfs::rename(url(server, "/t/q.txt"), url(server, "/t/other"), true))->error(), 0);
        QCOMPARE(f.readFile("t/other"), QByteArray("two"));
        QCOMPARE(run(Qvfs::rename(url(server, "/t/other"), url(server, "/t/a"), true))->error(), int(ErrIsDirectory));
        QCOMPARE(run(Qvfs::rename(url(server, "/t/missing"), url(server, "/t/x")))->error(), int(ErrDoesNotExist));
        QCOMPARE(run(Qvfs::rename(url(server, "/t/a"), url(server, "/t/a2")))->error(), 0);
        QVERIFY(S_ISDIR(lstatRaw(f.path("t/a2/b/c")).st_mode));
        // copy inside the server: one COPY request
        const int copiesBefore = f.requestCount("COPY", "/t/other");
        QCOMPARE(run(Qvfs::copyAs(url(server, "/t/other"), url(server, "/t/copied")))->error(), 0);
        QCOMPARE(f.readFile("t/copied"), QByteArray("two"));
        QTRY_COMPARE(f.requestCount("COPY", "/t/other"), copiesBefore + 1); // the log line follows the answer
        QCOMPARE(run(Qvfs::copyAs(url(server, "/t/a2"), url(server, "/t/a3")))->error(), 0);
        QVERIFY(S_ISDIR(lstatRaw(f.path("t/a3/b/c")).st_mode));
        QCOMPARE(run(Qvfs::copyAs(url(server, "/t/a2"), url(server, "/t/a2/b/inside")))->error(), int(ErrCycle));
        // delete: a tree in one request, an empty folder, a file, scopes
        QCOMPARE(run(Qvfs::del(url(server, "/t/a3"), DeleteScope::NoFolders))->error(), int(ErrIsDirectory));
        QCOMPARE(run(Qvfs::del(url(server, "/t/a3"), DeleteScope::EmptyFolders))->error(), int(ErrDirectoryNotEmpty));
        QVERIFY(f.exists("t/a3/b/c"));
        const int deletesBefore = f.accessLog().size();
        QCOMPARE(run(Qvfs::del(url(server, "/t/a3")))->error(), 0);
        QVERIFY(!f.exists("t/a3"));
        auto deletes = [&] {
            int n = 0;
            for (const QByteArray &line : f.accessLog().mid(deletesBefore))
                n += line.contains("\"DELETE ") ? 1 : 0;
            return n;
        };
        QTRY_COMPARE(deletes(), 1);
        QTest::qWait(100);
        QCOMPARE(deletes(), 1);
        QCOMPARE(run(Qvfs::del(url(server, "/t/a2/b/c"), DeleteScope::EmptyFolders))->error(), 0);
        QCOMPARE(run(Qvfs::del(url(server, "/t/copied"), DeleteScope::NoFolders))->error(), 0);
        QVERIFY(!f.exists("t/copied"));
        QCOMPARE(run(Qvfs::del(url(server, "/t/missing")))->error(), int(ErrDoesNotExist));
        QCOMPARE(run(Qvfs::del(url(server, "/forbidden/x.txt")))->error(), int(ErrAccessDenied));
        QVERIFY(f.exists("forbidden/x.txt"));
    }

    void mtimeKept_data() { serverRows(); }
    void mtimeKept()
    {
        // nginx keeps a PUT's Date; Apache keeps neither Date nor X-OC-Mtime: the copy
        // says which (the file's time after it), and nothing fails.
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(writeRaw(local("old"), "old file"));
        QVERIFY(setTimes(local("old"), 1000000000, 0));
        auto j = run(Qvfs::copyAs(localUrl("old"), url(server, "/t/old")));
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        const bool kept = f.mtime("t/old") == 1000000000;
        QCOMPARE(kept, server == 0);
        // and a put says so in its result ("times-kept")
        TransferJob *put = Qvfs::storedPut("timed", url(server, "/t/timed"));
        put->setModificationTime(1100000000);
        auto p = run(put);
        QCOMPARE(p->error(), 0);
        QVERIFY(p->metaData().isNumber("times-kept"));
        QCOMPARE(p->metaData().number("times-kept"), server == 0 ? 1 : 0);
        QCOMPARE(f.mtime("t/timed") == 1100000000, server == 0);
        qInfo("%s keeps the modification time of an upload: %s", f.name().constData(), kept ? "yes" : "no");
    }

    void resume_data() { serverRows(); }
    void resume()
    {
        // The connection drops after 5 MB: the same job goes on from there (a 206 at
        // exactly that byte, If-Range), and the application gets every byte once.
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(makeBigFile(f.path("t/r.bin"), 20 * MiB, 5));
        f.chownToServer("t/r.bin");
        // Apache's validators of a file changed within the last second are weak, and
        // then nothing may be resumed (rightly so): an older file
        QVERIFY(setTimes(f.path("t/r.bin"), 1700000000, 0));
        QVERIFY(f.makeDir("norange"));
        QVERIFY(f.writeFile("norange/n", "0123456789"));
        LoopbackProxy proxy(f.port());
        QVERIFY(proxy.start());
        proxy.dropAfter(5 * MiB);
        QUrl u = dav(proxy.url("/t/r.bin"));
        TransferJob *job = Qvfs::get(u);
        QCryptographicHash h(QCryptographicHash::Sha256);
        qint64 received = 0;
        connect(job, &TransferJob::data, this, [&](TransferJob *, const QByteArray &d) {
            h.addData(d);
            received += d.size();
        });
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(received, 20 * MiB);
        QCOMPARE(h.result(), sha256Of(f.path("t/r.bin")));
        int ranges = 0;
        for (const QByteArray &line : proxy.requests())
            ranges += line.startsWith("GET /t/r.bin") ? 1 : 0;
        QCOMPARE(ranges, 2); // the first request and the one that resumed
        // an explicit offset the server ignores (no ranges there): refused, not spliced
        TransferJob *offset = Qvfs::get(url(server, "/norange/n"), 4);
        QByteArray got;
        connect(offset, &TransferJob::data, this, [&got](TransferJob *, const QByteArray &d) { got += d; });
        QCOMPARE(run(offset)->error(), int(ErrUnsupportedAction));
        QVERIFY(got.isEmpty());
    }

    void locked()
    {
        // Apache keeps WebDAV locks (DavLockDB): a file locked by someone else is
        // ErrLocked for a replacing upload, a delete and a rename, and stays as it was.
        HttpServerFixture &f = *m_apache;
        QVERIFY(f.writeFile("t/locked", "locked"));
        QProcess curl;
        curl.start(QStringLiteral("curl"),
            { QStringLiteral("-s"), QStringLiteral("-f"), QStringLiteral("-o"), QStringLiteral("/dev/null"),
                QStringLiteral("-X"), QStringLiteral("LOCK"), QStringLiteral("-H"),
                QStringLiteral("Timeout: Second-600"), QStringLiteral("-H"),
                QStringLiteral("Content-Type: application/xml"), QStringLiteral("--data-binary"),
                QStringLiteral("<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/>"
                               "</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>someone else</D:owner>"
                               "</D:lockinfo>"),
                f.url("/t/locked").toString() });
        QVERIFY(curl.waitForFinished(30000));
        QCOMPARE(curl.exitCode(), 0);
        auto put = run(Qvfs::storedPut("mine", url(1, "/t/locked"), -1, PutOverwrite));
        QCOMPARE(put->error(), int(ErrLocked));
        QVERIFY2(put->errorString().contains(QLatin1String("/t/locked")), qPrintable(put->errorString()));
        QCOMPARE(run(Qvfs::del(url(1, "/t/locked")))->error(), int(ErrLocked));
        QCOMPARE(run(Qvfs::rename(url(1, "/t/locked"), url(1, "/t/moved")))->error(), int(ErrLocked));
        QCOMPARE(f.readFile("t/locked"), QByteArray("locked"));
        QCOMPARE(f.entries("t"), QByteArrayList { "locked" }); // no temporary left
    }

    void transportErrors()
    {
        // a refused connection, a name that does not resolve, a server that never
        // answers: three different errors
        quint16 closedPort = 0;
        {
            QTcpServer s;
            QVERIFY(s.listen(QHostAddress::LocalHost, 0));
            closedPort = s.serverPort();
        }
        auto refused = run(Qvfs::stat(QUrl(QStringLiteral("webdav://127.0.0.1:%1/x").arg(closedPort))));
        QCOMPARE(refused->error(), int(ErrConnectionFailed));
        auto dns = run(Qvfs::storedGet(QUrl(QStringLiteral("http://no-such-host.invalid/x"))));
        QCOMPARE(dns->error(), int(ErrHostNotFound));
        QVERIFY(settle());
        qputenv("QVFS_HTTP_TIMEOUT_MS", "1500");
        QTcpServer silent; // accepts, reads, never answers
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        QList<QTcpSocket *> held;
        connect(&silent, &QTcpServer::newConnection, this, [&] {
            while (QTcpSocket *c = silent.nextPendingConnection())
                held.append(c);
        });
        auto timedOut = run(Qvfs::stat(QUrl(QStringLiteral("webdav://127.0.0.1:%1/x").arg(silent.serverPort()))));
        qunsetenv("QVFS_HTTP_TIMEOUT_MS");
        QCOMPARE(timedOut->error(), int(ErrServerTimedOut));
        QVERIFY(!held.isEmpty());
        QVERIFY(settle());
    }

    // ------------------------------------------------------------ names

    void names_data() { serverRows(); }
    void names()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        // a UTF-8 name end to end: in, list, stat, get, out, delete
        const QByteArray name = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac #1 100%.txt";
        QVERIFY(writeRaw(local(name), "utf-8 named"));
        QVERIFY(mkdirRaw(local("out")));
        auto in = run(Qvfs::copy(localUrl(name), url(server, "/t/")));
        QVERIFY2(in->error() == 0, qPrintable(in->errorString()));
        QCOMPARE(f.entries("t"), QByteArrayList { name });
        const Listing l = collect(Qvfs::listDir(url(server, "/t")));
        QCOMPARE(l.entries.keys(), QList<QByteArray> { name });
        const QUrl remote = Url::child(url(server, "/t"), name);
        auto s = run(Qvfs::stat(remote));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().name(), QByteArrayView(name));
        QCOMPARE(run(Qvfs::storedGet(remote))->data(), QByteArray("utf-8 named"));
        auto out = run(Qvfs::copy(remote, localUrl("out")));
        QVERIFY2(out->error() == 0, qPrintable(out->errorString()));
        QCOMPARE(readRaw(join(local("out"), name)), QByteArray("utf-8 named"));
        QCOMPARE(run(Qvfs::del(remote))->error(), 0);
        QCOMPARE(f.entries("t"), QByteArrayList());
        // valid UTF-8 all the same: a name that starts with a byte order mark (which a round
        // trip through QString drops) goes
        const QByteArray bom = "\xef\xbb\xbf"
                               "bom.txt";
        QVERIFY(writeRaw(local(bom), "bom"));
        auto withBom = run(Qvfs::copy(localUrl(bom), url(server, "/t/")));
        QVERIFY2(withBom->error() == 0, qPrintable(withBom->errorString()));
        QCOMPARE(f.entries("t"), QByteArrayList { bom });
        QCOMPARE(run(Qvfs::del(Url::child(url(server, "/t"), bom)))->error(), 0);
        // a name that is not UTF-8 cannot go to WebDAV ("names": "utf8"): refused, nothing sent
        const QByteArray bad = "bad \xff\xfe name";
        QVERIFY(writeRaw(local(bad), "latin"));
        const qsizetype logBefore = f.accessLog().size();
        auto refused = run(Qvfs::copy(localUrl(bad), url(server, "/t/")));
        QCOMPARE(refused->error(), int(ErrUnsafeName));
        QCOMPARE(f.entries("t"), QByteArrayList());
        for (const QByteArray &line : f.accessLog().mid(logBefore))
            QVERIFY2(!line.contains("\"PUT "), line.constData());
    }

    // ------------------------------------------------------------ redirects

    void redirects_data() { serverRows(); }
    void redirects()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.writeFile("t/r.txt", "redirected\n"));
        struct Case
        {
            QUrl from;
            QUrl to;
        };
        const QList<Case> cases {
            { url(server, "/r/same/t/r.txt"), url(server, "/t/r.txt") },
            { url(server, "/r/perm/t/r.txt"), url(server, "/t/r.txt") },
            { f.url("/r/same/t/r.txt"), f.url("/t/r.txt") },
            { f.url("/r/307/t/r.txt"), f.url("/t/r.txt") },
            { url(server, "/r/other/t/r.txt"), dav(f.otherUrl("/t/r.txt")) },
            { f.url("/r/other/t/r.txt"), f.otherUrl("/t/r.txt") },
        };
        for (const Case &c : cases) {
            StoredTransferJob *g = Qvfs::storedGet(c.from);
            QList<QUrl> reported;
            connect(g, &Job::redirection, this, [&reported](Job *, const QUrl &u) { reported.append(u); });
            auto j = run(g);
            QVERIFY2(j->error() == 0, qPrintable(c.from.toString() + QLatin1Char(' ') + j->errorString()));
            QCOMPARE(j->data(), QByteArray("redirected\n"));
            QCOMPARE(reported, QList<QUrl> { c.to });
        }
        // a loop ends with an error
        auto loop = run(Qvfs::storedGet(url(server, "/r/loop/x")));
        QCOMPARE(loop->error(), int(ErrServerError));
    }

    void noDowngrade()
    {
        // https → http is refused, also for a read
        Asker asker;
        asker.trust = Trust::Once;
        StoredTransferJob *g = Qvfs::storedGet(m_nginx->httpsUrl("/r/down/t/x"));
        g->setAskDelegate(&asker);
        QList<QUrl> reported;
        connect(g, &Job::redirection, this, [&reported](Job *, const QUrl &u) { reported.append(u); });
        auto j = run(g);
        QCOMPARE(j->error(), int(ErrServerError));
        QVERIFY2(j->errorString().contains(QLatin1String("https")), qPrintable(j->errorString()));
        QVERIFY(reported.isEmpty());
    }

    // ------------------------------------------------------------ trust and credentials

    void certificates()
    {
        QVERIFY(m_nginx->writeFile("t/tls.txt", "over tls\n"));
        const QUrl u = m_nginx->httpsUrl("/t/tls.txt");
        const QUrl d = dav(u);
        const QString pins = m_dataHome.path() + QStringLiteral("/qvfs/trusted-certificates");
        QFile::remove(pins);
        // refused by default (no delegate), and by a delegate that refuses
        auto none = run(Qvfs::storedGet(u));
        QCOMPARE(none->error(), int(ErrUntrustedCertificate));
        QVERIFY2(none->errorString().contains(QLatin1String("self-signed"), Qt::CaseInsensitive),
            qPrintable(none->errorString())); // the certificate's problem is named
        {
            Asker refuse;
            StoredTransferJob *j = Qvfs::storedGet(d);
            j->setAskDelegate(&refuse);
            QCOMPARE(run(j)->error(), int(ErrUntrustedCertificate));
            QCOMPARE(refuse.trustQuestions.size(), 1);
            const TrustQuestion q = refuse.trustQuestions.first();
            QCOMPARE(q.kind, QuestionKind::Certificate);
            QCOMPARE(q.host, QStringLiteral("127.0.0.1:%1").arg(m_nginx->httpsPort()));
            QVERIFY2(q.fingerprint.startsWith(QLatin1String("SHA256:")) && q.fingerprint.size() == 7 + 64,
                qPrintable(q.fingerprint));
            QVERIFY2(!q.detail.isEmpty(), "the question says what is wrong");
        }
        QVERIFY(settle());
        // once: this worker trusts it, a fresh worker asks again
        {
            Asker once;
            once.trust = Trust::Once;
            for (int i = 0; i < 3; ++i) {
                StoredTransferJob *j = Qvfs::storedGet(u);
                j->setAskDelegate(&once);
                auto r = run(j);
                QVERIFY2(r->error() == 0, qPrintable(r->errorString()));
                QCOMPARE(r->data(), QByteArray("over tls\n"));
            }
            QCOMPARE(once.trustQuestions.size(), 1);
            QVERIFY(settle());
            StoredTransferJob *j = Qvfs::storedGet(u);
            j->setAskDelegate(&once);
            QCOMPARE(run(j)->error(), 0);
            QCOMPARE(once.trustQuestions.size(), 2);
            QVERIFY(!QFile::exists(pins));
        }
        QVERIFY(settle());
        // always: recorded, and a fresh worker does not ask
        {
            Asker always;
            always.trust = Trust::Always;
            StoredTransferJob *j = Qvfs::storedGet(d);
            j->setAskDelegate(&always);
            QCOMPARE(run(j)->error(), 0);
            QCOMPARE(always.trustQuestions.size(), 1);
            QVERIFY(QFile::exists(pins));
            QVERIFY(settle());
            Asker nobody;
            for (const QUrl &v : { u, d }) {
                StoredTransferJob *again = Qvfs::storedGet(v);
                again->setAskDelegate(&nobody);
                auto r = run(again);
                QVERIFY2(r->error() == 0, qPrintable(r->errorString()));
            }
            auto s = run(Qvfs::stat(d)); // no delegate at all
            QCOMPARE(s->error(), 0);
            QCOMPARE(nobody.trustQuestions.size(), 0);
        }
        QVERIFY(settle());
        // Another application (the qvfs client, with the same XDG_DATA_HOME) finds the
        // pin: no question, no --yes. (This application's own cache of "always" answers
        // would hide a missing pin here.)
        auto qvfsCat = [&] {
            QProcess p;
            p.start(QStringLiteral(QVFS_CLI_TEST_BIN_DIR "/qvfs"), { QStringLiteral("cat"), u.toString() });
            p.closeWriteChannel();
            if (!p.waitForFinished(60000))
                return QPair<int, QByteArray>(-1, QByteArray());
            return QPair<int, QByteArray>(p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError());
        };
        QCOMPARE(qvfsCat(), (QPair<int, QByteArray>(0, "over tls\n")));
        QVERIFY(QFile::remove(pins));
        QCOMPARE(qvfsCat().first, 1); // refused without the pin
    }

    void passwordInUrl_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<bool>("webdav");
        QTest::newRow("nginx, http://user:pass@") << 0 << false;
        QTest::newRow("nginx, webdav://user:pass@") << 0 << true;
        QTest::newRow("apache, http://user:pass@") << 1 << false;
        QTest::newRow("apache, webdav://user:pass@") << 1 << true;
    }
    void passwordInUrl()
    {
        // The URL's password is used whatever the scheme (webdav:// used to drop it: the
        // WebDAV layer sends URLs without user information), and nobody is asked.
        QFETCH(int, server);
        QFETCH(bool, webdav);
        // (before credentials(), whose answers the application's cache keeps)
        QVERIFY(settle()); // no worker that knows the password from an earlier row
        QUrl u = webdav ? url(server, "/auth/secret.txt") : fx(server).url("/auth/secret.txt");
        u.setUserName(HttpServerFixture::user());
        u.setPassword(HttpServerFixture::password());
        Asker nobody;
        StoredTransferJob *job = Qvfs::storedGet(u);
        job->setAskDelegate(&nobody);
        auto r = run(job);
        QVERIFY2(r->error() == 0, qPrintable(r->errorString()));
        QCOMPARE(r->data(), QByteArray("secret\n"));
        QCOMPARE(nobody.passwordQuestions.size(), 0);
    }

    void credentials_data() { serverRows(); }
    void credentials()
    {
        // Basic (nginx) and Digest (apache): a wrong password is asked again, then the
        // application's cache answers every later job and worker: one question (plus the
        // retry) for many jobs.
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("auth/t"));
        Asker asker;
        asker.passwords = { { HttpServerFixture::user(), QStringLiteral("wrong-password") },
            { HttpServerFixture::user(), HttpServerFixture::password() } };
        StoredTransferJob *first = Qvfs::storedGet(url(server, "/auth/secret.txt"));
        first->setAskDelegate(&asker);
        auto r = run(first);
        QVERIFY2(r->error() == 0, qPrintable(r->errorString()));
        QCOMPARE(r->data(), QByteArray("secret\n"));
        QCOMPARE(asker.passwordQuestions.size(), 2);
        QVERIFY(!asker.passwordQuestions.at(0).retry);
        QVERIFY(asker.passwordQuestions.at(1).retry);
        QCOMPARE(asker.passwordQuestions.at(0).realm, HttpServerFixture::realm());
        QVERIFY(settle());
        // many jobs at once (several workers), reads and writes
        QList<Job *> jobs;
        for (int i = 0; i < 6; ++i) {
            Job *j = i % 2 ? static_cast<Job *>(Qvfs::storedGet(url(server, "/auth/secret.txt")))
                           : static_cast<Job *>(Qvfs::storedPut(
                               "written " + QByteArray::number(i), url(server, "/auth/t/w" + QByteArray::number(i))));
            j->setAskDelegate(&asker);
            j->setAutoDelete(false);
            jobs.append(j);
        }
        for (Job *j : std::as_const(jobs)) {
            runToResult(j);
            QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
            QVERIFY(!j->errorString().contains(HttpServerFixture::password()));
        }
        qDeleteAll(jobs);
        QCOMPARE(asker.passwordQuestions.size(), 2);
        QCOMPARE(f.readFile("auth/t/w4"), QByteArray("written 4"));
        // the wrong password never shows in an error
        Asker wrong;
        wrong.passwords = { { QStringLiteral("mallory"), QStringLiteral("not-the-password") } };
        QUrl withUser = url(server, "/auth/secret.txt");
        withUser.setUserName(QStringLiteral("mallory"));
        StoredTransferJob *badJob = Qvfs::storedGet(withUser);
        badJob->setAskDelegate(&wrong);
        auto failed = run(badJob);
        QCOMPARE(failed->error(), int(ErrCannotAuthenticate));
        QVERIFY(!failed->errorString().contains(QLatin1String("not-the-password")));
    }

    // ------------------------------------------------------------ kills and big transfers

    void killMidTransfer_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<QByteArray>("operation");
        for (int s : { 0, 1 }) {
            for (const char *op : { "copy in", "put", "copy out" })
                QTest::newRow(QByteArray((s ? "apache: " : "nginx: ") + QByteArray(op)).constData())
                    << s << QByteArray(op);
        }
    }
    void killMidTransfer()
    {
        QFETCH(int, server);
        QFETCH(QByteArray, operation);
        HttpServerFixture &f = fx(server);
        Job *job = nullptr;
        QVERIFY(mkdirRaw(local("out")));
        if (operation == "copy in") {
            QVERIFY(makeBigFile(local("big"), BigSize, 1));
            job = Qvfs::copyAs(localUrl("big"), url(server, "/t/big"));
        } else if (operation == "put") {
            TransferJob *put = Qvfs::put(url(server, "/t/big"));
            connect(put, &TransferJob::dataReq, this, [](TransferJob *, QByteArray &data) {
                data = QByteArray(256 * 1024, 'k'); // never ends by itself
            });
            job = put;
        } else {
            QVERIFY(makeBigFile(f.path("t/big"), BigSize, 2));
            f.chownToServer("t/big");
            job = Qvfs::copyAs(url(server, "/t/big"), localUrl("out/big"));
        }
        job->setAutoDelete(false);
        std::unique_ptr<Job> hold(job);
        bool killed = false;
        qint64 bytesAtKill = -1;
        QElapsedTimer sinceKill;
        connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
            if (unit == Job::Bytes && amount > 0 && !killed) {
                killed = true;
                bytesAtKill = amount;
                sinceKill.start();
                job->kill(Job::EmitResult);
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(killed, 60000);
        QCOMPARE(job->error(), int(ErrCancelled));
        // (a copy may finish in the worker while the kill is on its way: then it is whole,
        // and this row proves nothing; the first progress comes long before the end)
        QVERIFY2(bytesAtKill < BigSize / 2, QByteArray::number(bytesAtKill).constData());
        QVERIFY2(settle(5000), "the worker did not stop after the kill");
        qInfo("figure: %s %s killed, every worker gone %lld ms later", f.name().constData(), operation.constData(),
            sinceKill.elapsed());
        if (operation == "copy out") {
            QVERIFY2(namesIn(local("out")).isEmpty(), QByteArrayList(namesIn(local("out"))).join(' ').constData());
            QCOMPARE(f.entries("t"), QByteArrayList { "big" });
        } else {
            // nothing on the server: no destination, no temporary
            QCOMPARE(f.entries("t"), QByteArrayList());
        }
    }

    void slowApplication_data() { serverRows(); }
    void slowApplication()
    {
        // An upload the application feeds slower than the transfer timeout goes at the
        // application's pace: the time waiting for it is not a server gone silent.
        QFETCH(int, server);
        WorkerEnv timeout("QVFS_HTTP_TIMEOUT_MS", "1000");
        const QByteArray first(64 * 1024, 'a');
        const QByteArray second(64 * 1024, 'b');
        TransferJob *put = Qvfs::put(url(server, "/t/slow"));
        put->setTotalSize(first.size() + second.size());
        put->setAsyncDataEnabled(true);
        int asked = 0;
        connect(put, &TransferJob::dataReq, this, [&](TransferJob *job, QByteArray &) {
            ++asked;
            if (asked == 1)
                job->sendAsyncData(first);
            else if (asked == 2) // the application takes its time: longer than the timeout
                QTimer::singleShot(2500, job, [job, second] { job->sendAsyncData(second); });
            else
                job->sendAsyncData(QByteArray());
        });
        auto done = run(put);
        QVERIFY2(done->error() == 0, qPrintable(done->errorString()));
        QCOMPARE(fx(server).readFile("t/slow"), first + second);
    }

    void bigTransfers_data() { serverRows(); }
    void bigTransfers()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        const QByteArray src = local("src");
        QVERIFY(makeBigFile(src, BigSize, 42));
        const QByteArray srcHash = sha256Of(src);
        const Protocol webdav = Protocol::find(QStringLiteral("webdav"));
        // file → WebDAV
        QVERIFY(settle());
        int starts = workerStartCount();
        QElapsedTimer t;
        t.start();
        auto up = run(Qvfs::copyAs(fileUrl(src), url(server, "/t/up")));
        const qint64 upMs = t.elapsed();
        QVERIFY2(up->error() == 0, qPrintable(up->errorString()));
        const bool upByFileWorker = fileWorkerIo() > BigSize / 2;
        const int upStarts = workerStartCount() - starts;
        QCOMPARE(sha256Of(f.path("t/up")), srcHash);
        QCOMPARE(up->processedAmount(Job::Bytes), BigSize);
        QCOMPARE(temporaries(f, "t"), QByteArrayList());
        // WebDAV → file
        QVERIFY(settle());
        starts = workerStartCount();
        t.restart();
        auto down = run(Qvfs::copyAs(url(server, "/t/up"), localUrl("down")));
        const qint64 downMs = t.elapsed();
        QVERIFY2(down->error() == 0, qPrintable(down->errorString()));
        const bool downByFileWorker = fileWorkerIo() > BigSize / 2;
        const int downStarts = workerStartCount() - starts;
        QCOMPARE(sha256Of(local("down")), srcHash);
        QList<QByteArray> leftovers;
        findTemporaries(m_local->path(), &leftovers);
        QCOMPARE(leftovers, QList<QByteArray>());
        auto strategy = [](bool fileWorker) {
            return fileWorker ? "get -> put through the application" : "by the http worker itself";
        };
        qInfo("figure: %s 100 MiB file -> webdav %lld ms (%s, %d worker start(s)); webdav -> file %lld ms (%s, %d "
              "worker start(s))",
            f.name().constData(), upMs, strategy(upByFileWorker), upStarts, downMs, strategy(downByFileWorker),
            downStarts);
        // what the worker's description declares decides the strategy
        QCOMPARE(upByFileWorker, !webdav.hasCapability(Protocol::CopyFromFile));
        QCOMPARE(downByFileWorker, !webdav.hasCapability(Protocol::CopyToFile));
        // and a plain http get streamed into a file
        t.restart();
        auto httpDown = run(Qvfs::copyAs(f.url("/t/up"), localUrl("down2")));
        const qint64 httpMs = t.elapsed();
        QVERIFY2(httpDown->error() == 0, qPrintable(httpDown->errorString()));
        QCOMPARE(sha256Of(local("down2")), srcHash);
        qInfo("figure: %s 100 MiB http -> file %lld ms", f.name().constData(), httpMs);
    }

    void slowReader()
    {
        // The application reads 100 MB at about 10 MB/s: the worker waits (the server
        // waits for it), its memory stays flat.
        QVERIFY(makeBigFile(m_nginx->path("t/slow"), BigSize, 7));
        m_nginx->chownToServer("t/slow");
        QVERIFY(settle());
        TransferJob *job = Qvfs::get(url(0, "/t/slow"));
        job->setAutoDelete(false);
        std::unique_ptr<TransferJob> hold(job);
        QCryptographicHash h(QCryptographicHash::Sha256);
        qint64 received = 0;
        qint64 peakWorkerKb = 0;
        qint64 workerPid = -1;
        QElapsedTimer clock;
        clock.start();
        connect(job, &TransferJob::data, this, [&](TransferJob *j, const QByteArray &d) {
            h.addData(d);
            received += d.size();
            if (workerPid < 0) {
                const QList<qint64> w = workers("/qvfs-worker-http");
                if (!w.isEmpty())
                    workerPid = w.first();
            }
            if (workerPid > 0)
                peakWorkerKb = qMax(peakWorkerKb, ProcUtil::statusKb(workerPid, "VmRSS:"));
            // 10 MB/s: pause until the clock catches up with what was read
            const qint64 dueMs = received / (10 * 1000);
            if (dueMs > clock.elapsed() + 20) {
                j->suspend();
                QTimer::singleShot(int(dueMs - clock.elapsed()), j, [j] { j->resume(); });
            }
        });
        runToResult(job, 180000);
        QCOMPARE(job->error(), 0);
        QCOMPARE(received, BigSize);
        QCOMPARE(h.result(), sha256Of(m_nginx->path("t/slow")));
        const qint64 hwm = workerPid > 0 ? ProcUtil::statusKb(workerPid, "VmHWM:") : -1;
        qInfo("figure: slow reader, 100 MiB at 10 MB/s in %lld ms; worker RSS peak %lld KiB (VmHWM %lld KiB)",
            clock.elapsed(), peakWorkerKb, hwm);
        QVERIFY(peakWorkerKb > 0);
        // issue 11's bar; it once grew by the whole transfer (the socket's write buffer)
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY2(hwm < 32 * 1024, "the worker's memory grew with the transfer");
    }

    void connectionsReused()
    {
        // one worker, one connection for many requests (HTTP/1.1 keep-alive)
        QVERIFY(m_nginx->writeFile("t/c", "c"));
        QVERIFY(settle());
        const qsizetype mark = m_nginx->accessLog().size();
        for (int i = 0; i < 200; ++i)
            QCOMPARE(run(Qvfs::stat(url(0, "/t/c")))->error(), 0);
        QSet<QByteArray> connections;
        for (const QByteArray &l : m_nginx->accessLog().mid(mark))
            connections.insert(l.left(l.indexOf(' ')));
        qInfo("figure: 200 sequential stats on %lld connection(s)", qint64(connections.size()));
        QVERIFY2(connections.size() <= 2, QByteArray::number(connections.size()).constData());
    }
};

QTEST_GUILESS_MAIN(HttpWorkerTest)

#include "httpworkertest.moc"
