// SPDX-License-Identifier: LGPL-2.1-or-later
// The http(s)/WebDAV worker's engine (HttpClient, DavClient) against real servers on
// 127.0.0.1: nginx with dav-ext (also over TLS and HTTP/2) and apache2 with mod_dav_fs
// and Digest authentication, some requests through a relay that drops, cuts or stalls
// connections. Figures (throughput, memory, kill latency) are printed, never asserted
// as times.

#include "bigfile.h"
#include "davclient_p.h"
#include "error.h"
#include "httpclient_p.h"
#include "httpserverfixture.h"
#include "loopbackproxy.h"
#include "procutil.h"
#include "url.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QTcpServer>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <arpa/inet.h>
#include <atomic>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace Qvfs;
using namespace Qvfs::Http;
using Server = HttpServerFixture::Server;

namespace
{

constexpr qint64 MiB = 1024 * 1024;

// Deterministic content: any range of stream `seed` can be made without the rest.
quint64 mix(quint64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void fillPattern(char *out, qint64 offset, qint64 n, quint64 seed)
{
    for (qint64 i = 0; i < n;) {
        const qint64 pos = offset + i;
        const quint64 v = mix(seed * 0x100000001b3ULL ^ quint64(pos / 8));
        const int from = int(pos % 8);
        const int take = int(qMin<qint64>(8 - from, n - i));
        std::memcpy(out + i, reinterpret_cast<const char *>(&v) + from, size_t(take));
        i += take;
    }
}

QByteArray pattern(qint64 offset, qint64 n, quint64 seed)
{
    QByteArray b(n, Qt::Uninitialized);
    fillPattern(b.data(), offset, n, seed);
    return b;
}

QByteArray patternHash(qint64 size, quint64 seed)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    QByteArray buf;
    for (qint64 off = 0; off < size; off += 4 * MiB) {
        buf = pattern(off, qMin(4 * MiB, size - off), seed);
        h.addData(buf);
    }
    return h.result();
}

bool writePatternFile(const HttpServerFixture &fx, QByteArrayView rel, qint64 size, quint64 seed)
{
    const int fd = ::open(fx.path(rel).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    for (qint64 off = 0; off < size; off += 4 * MiB) {
        const QByteArray b = pattern(off, qMin(4 * MiB, size - off), seed);
        if (::write(fd, b.constData(), size_t(b.size())) != b.size()) {
            ::close(fd);
            return false;
        }
    }
    ::close(fd);
    fx.chownToServer(rel);
    return true;
}

// Resets VmHWM to the current RSS (Linux 4.0+), so a later VmHWM is this phase's peak.
void resetPeak()
{
    QFile f(QStringLiteral("/proc/self/clear_refs"));
    if (f.open(QIODevice::WriteOnly))
        f.write("5");
}

void setMtime(const HttpServerFixture &fx, QByteArrayView rel, qint64 t)
{
    const timespec ts[2] = { { time_t(t), 0 }, { time_t(t), 0 } };
    ::utimensat(AT_FDCWD, fx.path(rel).constData(), ts, AT_SYMLINK_NOFOLLOW);
}

QByteArray arg(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo).toEncoded();
}

QByteArray describe(const Result &r)
{
    return errorName(r.error) + " (" + r.arg1 + ", " + r.arg2 + ") HTTP " + QByteArray::number(r.httpStatus);
}

// A client with recording callbacks.
struct Harness
{
    HttpClient http;
    DavClient dav { &http };
    bool cancel = false;
    std::function<bool()> cancelWhen;
    QList<std::tuple<QUrl, QUrl, int>> redirects;
    QList<AuthQuestion> authQuestions;
    std::function<std::optional<Credentials>(const AuthQuestion &)> answer;
    QList<CertificateQuestion> certQuestions;
    TrustDecision trust = TrustDecision::Refuse;

    Harness()
    {
        HttpClient::Callbacks cb;
        cb.cancelled = [this] { return cancel || (cancelWhen && cancelWhen()); };
        cb.redirected = [this](const QUrl &from, const QUrl &to, int status) {
            redirects.append({ from, to, status });
        };
        cb.credentials = [this](const AuthQuestion &q) -> std::optional<Credentials> {
            authQuestions.append(q);
            if (answer)
                return answer(q);
            return std::nullopt;
        };
        cb.trust = [this](const CertificateQuestion &q) {
            certQuestions.append(q);
            return trust;
        };
        http.setCallbacks(cb);
    }
    void rightPassword()
    {
        answer = [](const AuthQuestion &) {
            return Credentials { HttpServerFixture::user(), HttpServerFixture::password() };
        };
    }
    // GET into memory
    Result get(const QUrl &url, QByteArray *out, qint64 offset = 0, ResourceInfo *info = nullptr)
    {
        HttpClient::GetHandler h;
        h.headers = [info](const ResourceInfo &i) {
            if (info)
                *info = i;
            return true;
        };
        h.data = [out](QByteArrayView chunk) {
            out->append(chunk);
            return true;
        };
        return http.get(url, offset, h);
    }
    Result put(const QUrl &url, const QByteArray &data, const DavClient::PutOptions &o = {},
        DavClient::PutOutcome *outcome = nullptr)
    {
        qsizetype pos = 0;
        return dav.put(
            url, data.size(),
            [&](QByteArray *chunk) {
                if (pos >= data.size())
                    return false;
                *chunk = data.mid(pos, 64 * 1024);
                pos += chunk->size();
                return true;
            },
            o, outcome);
    }
    QByteArrayList list(const QUrl &url, Result *r = nullptr)
    {
        QByteArrayList names;
        const Result res = dav.list(url, [&](const DavEntry &e) {
            names.append(e.name);
            return true;
        });
        if (r)
            *r = res;
        std::sort(names.begin(), names.end());
        return names;
    }
};

// Servers write a request's log line after its answer: wait until the log is quiet.
QByteArrayList linesSince(const HttpServerFixture &fx, qsizetype from)
{
    QByteArrayList lines = fx.accessLog();
    for (int i = 0; i < 20; ++i) {
        QThread::msleep(25);
        const QByteArrayList again = fx.accessLog();
        if (again.size() == lines.size())
            break;
        lines = again;
    }
    return lines.mid(from);
}

qsizetype logMark(const HttpServerFixture &fx)
{
    return linesSince(fx, 0).size();
}

int countMethod(const QByteArrayList &lines, QByteArrayView method)
{
    int n = 0;
    for (const QByteArray &l : lines) {
        if (l.contains(QByteArray(QByteArrayLiteral("\"") + method.toByteArray() + ' ')))
            ++n;
    }
    return n;
}

} // namespace

class HttpClientTest : public QObject
{
    Q_OBJECT

    std::unique_ptr<HttpServerFixture> m_nginx;
    std::unique_ptr<HttpServerFixture> m_apache;

    HttpServerFixture &fx(int server) { return server == 0 ? *m_nginx : *m_apache; }

    void serverRows()
    {
        QTest::addColumn<int>("server");
        QTest::newRow("nginx") << 0;
        QTest::newRow("apache") << 1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_nginx = std::make_unique<HttpServerFixture>(Server::Nginx);
        m_apache = std::make_unique<HttpServerFixture>(Server::Apache);
        QVERIFY2(m_nginx->start(), qPrintable(m_nginx->errorString()));
        QVERIFY2(m_apache->start(), qPrintable(m_apache->errorString()));
        for (HttpServerFixture *f : { m_nginx.get(), m_apache.get() }) {
            for (const char *d : { "auth", "forbidden", "small", "norange", "redir" })
                QVERIFY(f->makeDir(d));
            QVERIFY(f->writeFile("redir/a.txt", "redirected\n"));
            QVERIFY(f->writeFile("auth/secret.txt", "secret\n"));
            QVERIFY(f->writeFile("forbidden/x.txt", "no\n"));
        }
        qInfo("nginx on %d (https %d), apache on %d", m_nginx->port(), m_nginx->httpsPort(), m_apache->port());
    }

    void cleanupTestCase()
    {
        m_nginx.reset();
        m_apache.reset();
    }

    // ---- error mapping, per method ----

    void statusMapping_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("error");
        QTest::addColumn<QByteArray>("arg");
        const auto m = [](Method x) { return int(x); };
        const QByteArray url = "http://h/d/f";
        const QByteArray dest = "http://h/e/g";
        QTest::newRow("GET 404") << m(Method::Get) << 404 << int(ErrDoesNotExist) << url;
        QTest::newRow("GET 401") << m(Method::Get) << 401 << int(ErrCannotAuthenticate) << url;
        QTest::newRow("GET 403 is not 'does not exist'") << m(Method::Get) << 403 << int(ErrAccessDenied) << url;
        QTest::newRow("GET 410") << m(Method::Get) << 410 << int(ErrDoesNotExist) << url;
        QTest::newRow("GET 418") << m(Method::Get) << 418 << int(ErrCannotRead) << url;
        QTest::newRow("GET 405") << m(Method::Get) << 405 << int(ErrUnsupportedAction) << url;
        QTest::newRow("GET 500") << m(Method::Get) << 500 << int(ErrServerError) << url;
        QTest::newRow("PROPFIND 403") << m(Method::Propfind) << 403 << int(ErrAccessDenied) << url;
        QTest::newRow("MKCOL 405") << m(Method::Mkcol) << 405 << int(ErrAlreadyExists) << url;
        QTest::newRow("MKCOL 409") << m(Method::Mkcol) << 409 << int(ErrDoesNotExist) << QByteArray("http://h/d/");
        QTest::newRow("MKCOL 507") << m(Method::Mkcol) << 507 << int(ErrDiskFull) << url;
        QTest::newRow("PUT 409") << m(Method::Put) << 409 << int(ErrDoesNotExist) << QByteArray("http://h/d/");
        QTest::newRow("PUT 413") << m(Method::Put) << 413 << int(ErrFileTooLarge) << url;
        QTest::newRow("PUT 507") << m(Method::Put) << 507 << int(ErrDiskFull) << url;
        QTest::newRow("PUT 423") << m(Method::Put) << 423 << int(ErrLocked) << url;
        QTest::newRow("PUT 405") << m(Method::Put) << 405 << int(ErrUnsupportedAction) << url;
        QTest::newRow("PUT 400") << m(Method::Put) << 400 << int(ErrCannotWrite) << url;
        QTest::newRow("PUT 414") << m(Method::Put) << 414 << int(ErrNameTooLong) << url;
        QTest::newRow("DELETE 423") << m(Method::Delete) << 423 << int(ErrLocked) << url;
        QTest::newRow("DELETE 409") << m(Method::Delete) << 409 << int(ErrCannotDelete) << url;
        QTest::newRow("DELETE 400") << m(Method::Delete) << 400 << int(ErrCannotDelete) << url;
        QTest::newRow("MOVE 412") << m(Method::Move) << 412 << int(ErrAlreadyExists) << dest;
        QTest::newRow("MOVE 409") << m(Method::Move) << 409 << int(ErrDoesNotExist) << QByteArray("http://h/e/");
        QTest::newRow("MOVE 404") << m(Method::Move) << 404 << int(ErrDoesNotExist) << url;
        QTest::newRow("MOVE 502") << m(Method::Move) << 502 << int(ErrUnsupportedAction) << dest;
        QTest::newRow("MOVE 507") << m(Method::Move) << 507 << int(ErrDiskFull) << dest;
        QTest::newRow("MOVE 400") << m(Method::Move) << 400 << int(ErrCannotRename) << dest;
        QTest::newRow("COPY 412") << m(Method::Copy) << 412 << int(ErrAlreadyExists) << dest;
        QTest::newRow("COPY 403") << m(Method::Copy) << 403 << int(ErrAccessDenied) << url;
        QTest::newRow("COPY 201") << m(Method::Copy) << 201 << int(NoError) << QByteArray();
        QTest::newRow("COPY 204") << m(Method::Copy) << 204 << int(NoError) << QByteArray();
    }
    void statusMapping()
    {
        QFETCH(int, method);
        QFETCH(int, status);
        QFETCH(int, error);
        QFETCH(QByteArray, arg);
        const Result r = statusResult(Method(method), status, QUrl(QStringLiteral("http://h/d/f")),
            QUrl(QStringLiteral("http://h/e/g")), "Reason");
        QCOMPARE(errorName(r.error), errorName(error));
        QCOMPARE(r.arg1, arg);
        QCOMPARE(r.httpStatus, status);
    }

    // ---- http(s) ----

    void headStat_data() { serverRows(); }
    void headStat()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("head"));
        QVERIFY(f.writeFile("head/a.txt", "hello world\n"));
        setMtime(f, "head/a.txt", 1234567890);
        Harness h;
        ResourceInfo info;
        Result r = h.http.head(f.url("/head/a.txt"), &info);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(info.size, 12);
        QCOMPARE(info.mtime, std::optional<qint64>(1234567890));
        QCOMPARE(info.contentType, QByteArray("text/plain"));
        QVERIFY(!info.etag.isEmpty());
        QVERIFY(info.acceptsRanges);

        r = h.http.head(f.url("/head/missing"), &info);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        QCOMPARE(r.arg1, arg(f.url("/head/missing")));
        r = h.http.head(f.url("/forbidden/x.txt"), &info);
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        r = h.http.head(f.url("/auth/secret.txt"), &info);
        QCOMPARE(errorName(r.error), errorName(ErrCannotAuthenticate));
        QCOMPARE(h.authQuestions.size(), 1); // asked, got no answer
    }

    void getSmall_data() { serverRows(); }
    void getSmall()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("get"));
        QVERIFY(f.writeFile("get/a.txt", "hello world\n"));
        QVERIFY(f.writeFile("norange/a.txt", "hello world\n"));
        Harness h;
        QByteArray data;
        ResourceInfo info;
        Result r = h.get(f.url("/get/a.txt"), &data, 0, &info);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(data, QByteArray("hello world\n"));
        QCOMPARE(info.size, 12);
        data.clear();
        r = h.get(f.url("/get/a.txt"), &data, 6, &info);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(r.httpStatus, 206);
        QCOMPARE(data, QByteArray("world\n"));
        QCOMPARE(info.size, 12); // the whole resource's size
        data.clear();
        r = h.get(f.url("/get/a.txt"), &data, 12);
        QVERIFY2(r.ok(), describe(r).constData()); // nothing after the end
        QVERIFY(data.isEmpty());
        r = h.get(f.url("/norange/a.txt"), &data, 6);
        QCOMPARE(errorName(r.error), errorName(ErrUnsupportedAction));
        QVERIFY(data.isEmpty());
        r = h.get(f.url("/get/missing"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        r = h.get(f.url("/forbidden/x.txt"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        QVERIFY(data.isEmpty());
    }

    void bigTransfer_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<bool>("tls");
        QTest::newRow("nginx http") << 0 << false;
        QTest::newRow("nginx https") << 0 << true;
        QTest::newRow("apache http") << 1 << false;
    }
    // 100 MB down and up, byte for byte; the upload never held whole. Timed with a sink
    // and a source that cost nothing, curl beside (figures printed, not asserted).
    void bigTransfer()
    {
        QFETCH(int, server);
        QFETCH(bool, tls);
        HttpServerFixture &f = fx(server);
        const qint64 size = 100 * 1000 * 1000;
        const quint64 seed = 7 + quint64(tls);
        QVERIFY(f.makeDir("big"));
        QVERIFY(writePatternFile(f, "big/down.bin", size, seed));
        const QByteArray expected = patternHash(size, seed);
        const auto url = [&](const QByteArray &p) { return tls ? f.httpsUrl(p) : f.url(p); };
        const auto curl = [&](const QStringList &args) {
            QProcess p;
            QElapsedTimer ct;
            ct.start();
            QStringList all { QStringLiteral("-s"), QStringLiteral("-f") };
            if (tls)
                all << QStringLiteral("--cacert") << f.caFile();
            p.start(QStringLiteral("curl"), all + args);
            return p.waitForFinished(120000) && p.exitCode() == 0 ? ct.elapsed() : qint64(-1);
        };
        Harness h;
        if (tls)
            QVERIFY(h.http.addCaCertificates(f.caFile()));

        // timed
        qint64 got = 0;
        HttpClient::GetHandler count;
        count.data = [&](QByteArrayView c) {
            got += c.size();
            return true;
        };
        QElapsedTimer t;
        t.start();
        Result r = h.http.get(url("/big/down.bin"), 0, count);
        const qint64 getMs = t.elapsed();
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(got, size);
        const qint64 curlGetMs = curl(
            { QStringLiteral("-o"), QStringLiteral("/dev/null"), QString::fromUtf8(url("/big/down.bin").toEncoded()) });
        // byte for byte
        QCryptographicHash hash(QCryptographicHash::Sha256);
        HttpClient::GetHandler verify;
        verify.data = [&](QByteArrayView c) {
            hash.addData(c);
            return true;
        };
        r = h.http.get(url("/big/down.bin"), 0, verify);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(hash.result(), expected);

        // up: a source handing out 256 KiB chunks of a ready block (timed), then the real pattern
        const QByteArray block = pattern(0, 256 * 1024, seed);
        const auto upload = [&](const QByteArray &path, bool real, qint64 *peakKb) {
            qint64 pos = 0;
            qint64 pulls = 0;
            return h.dav.put(
                url(path), size,
                [&, real](QByteArray *chunk) {
                    if (pos >= size)
                        return false;
                    const qint64 n = qMin<qint64>(block.size(), size - pos);
                    *chunk = real ? pattern(pos, n, seed) : block.left(n);
                    pos += n;
                    if (peakKb && ++pulls % 64 == 0)
                        *peakKb = qMax(*peakKb, ProcUtil::statusKb(0, "VmRSS:"));
                    return true;
                },
                DavClient::PutOptions());
        };
        const qint64 before = ProcUtil::statusKb(0, "VmRSS:");
        qint64 peakDuring = before;
        resetPeak();
        t.restart();
        r = upload("/big/timed.bin", false, &peakDuring);
        const qint64 putMs = t.elapsed();
        const qint64 peak = qMax(ProcUtil::statusKb(0, "VmHWM:"), peakDuring);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(QFileInfo(QFile::decodeName(f.path("big/timed.bin"))).size(), size);
        const qint64 curlPutMs = curl({ QStringLiteral("-T"), QFile::decodeName(f.path("big/down.bin")),
            QString::fromUtf8(url("/big/curl.bin").toEncoded()) });
        r = upload("/big/up.bin", true, nullptr);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(QvfsTest::sha256Of(f.path("big/up.bin")), expected);
        // the bodies went over the client's own socket, not through Qt's 16 KiB pieces
        // (and so did the stats before them over http)
        QVERIFY(h.http.directSends() >= 2);
        QCOMPARE(f.entries("big"), QByteArrayList({ "curl.bin", "down.bin", "timed.bin", "up.bin" }));
        qInfo("%s: get 100 MB %lld ms (curl %lld ms), put 100 MB %lld ms (curl -T %lld ms); "
              "RSS %lld KiB before the put, peak %lld KiB during it (+%lld KiB)",
            QTest::currentDataTag(), getMs, curlGetMs, putMs, curlPutMs, before, peak, peak - before);
        // whole-body buffering would add 100 MB; chunks and socket buffers are a few MB
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY(peak - before < 32 * 1024);
        for (const char *n : { "big/down.bin", "big/timed.bin", "big/curl.bin", "big/up.bin" })
            ::unlink(f.path(n).constData());
    }

    void slowReader_data() { bigTransfer_data(); }
    // A reader at 20 MB/s: the server waits, memory stays flat.
    void slowReader()
    {
        QFETCH(int, server);
        QFETCH(bool, tls);
        HttpServerFixture &f = fx(server);
        const qint64 size = 40 * 1000 * 1000;
        QVERIFY(f.makeDir("slow"));
        QVERIFY(writePatternFile(f, "slow/file.bin", size, 3));
        Harness h;
        if (tls)
            QVERIFY(h.http.addCaCertificates(f.caFile()));
        const qint64 before = ProcUtil::statusKb(0, "VmRSS:");
        resetPeak();
        QCryptographicHash hash(QCryptographicHash::Sha256);
        qint64 got = 0;
        QElapsedTimer t;
        t.start();
        HttpClient::GetHandler gh;
        gh.data = [&](QByteArrayView c) {
            hash.addData(c);
            got += c.size();
            const qint64 due = got / 20000; // ms at 20 MB/s
            if (due > t.elapsed())
                std::this_thread::sleep_for(std::chrono::milliseconds(due - t.elapsed()));
            return true;
        };
        const Result r = h.http.get(tls ? f.httpsUrl("/slow/file.bin") : f.url("/slow/file.bin"), 0, gh);
        const qint64 peak = ProcUtil::statusKb(0, "VmHWM:");
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(got, size);
        QCOMPARE(hash.result(), patternHash(size, 3));
        qInfo("%s: 40 MB read at 20 MB/s in %lld ms; RSS %lld KiB before, peak %lld KiB (+%lld KiB)",
            QTest::currentDataTag(), qint64(t.elapsed()), before, peak, peak - before);
        // without backpressure the reply would hold most of the 40 MB
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY(peak - before < 12 * 1024);
        ::unlink(f.path("slow/file.bin").constData());
    }

    // ---- resume ----

    void resume_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<QByteArray>("dir");
        QTest::addColumn<qint64>("dropAt");
        QTest::addColumn<bool>("changeFile");
        QTest::addColumn<int>("error");
        QTest::addColumn<int>("gets");
        QTest::addColumn<bool>("direct");
        for (int s : { 0, 1 }) {
            const QByteArray n = s == 0 ? "nginx " : "apache ";
            QTest::newRow(QByteArray(n + "drop mid-way: continued").constData())
                << s << QByteArray("resume") << 5 * MiB << false << int(NoError) << 2 << false;
            QTest::newRow(QByteArray(n + "drop, file changed: refused").constData())
                << s << QByteArray("resume") << 2 * MiB << true << int(ErrSourceChanged) << 2 << false;
            // (Qt itself sends a GET again when the headers were cut: how often is its business)
            QTest::newRow(QByteArray(n + "drop before any data: restarted").constData())
                << s << QByteArray("resume") << qint64(100) << false << int(NoError) << -2 << false;
            QTest::newRow(QByteArray(n + "drop, server ignores Range: refused").constData())
                << s << QByteArray("norange") << 2 * MiB << false << int(ErrSourceChanged) << 2 << false;
        }
        // The same rules on the client's own socket (an https download's path, here over
        // plain http so that the relay can cut it): Apache sends Last-Modified and a weak
        // ETag (If-Range: the date), nginx a strong ETag.
        for (int s : { 0, 1 }) {
            const QByteArray n = s == 0 ? "nginx direct: " : "apache direct: ";
            QTest::newRow(QByteArray(n + "drop mid-way: continued").constData())
                << s << QByteArray("resume") << 5 * MiB << false << int(NoError) << 2 << true;
            QTest::newRow(QByteArray(n + "drop, file changed: refused").constData())
                << s << QByteArray("resume") << 2 * MiB << true << int(ErrSourceChanged) << 2 << true;
        }
        QTest::newRow("nginx direct: drop before any data: restarted")
            << 0 << QByteArray("resume") << qint64(100) << false << int(NoError) << 2 << true;
        QTest::newRow("nginx direct: drop, server ignores Range: refused")
            << 0 << QByteArray("norange") << 2 * MiB << false << int(ErrSourceChanged) << 2 << true;
    }
    void resume()
    {
        QFETCH(int, server);
        QFETCH(QByteArray, dir);
        QFETCH(qint64, dropAt);
        QFETCH(bool, changeFile);
        QFETCH(int, error);
        QFETCH(int, gets); // -n: at least n
        QFETCH(bool, direct);
        HttpServerFixture &f = fx(server);
        const qint64 size = 20 * MiB;
        QVERIFY(f.makeDir(dir));
        const QByteArray rel = QByteArray(dir + "/file.bin");
        QVERIFY(writePatternFile(f, rel, size, 11));
        setMtime(f, rel, 1600000000);
        LoopbackProxy proxy(f.port());
        QVERIFY(proxy.start());
        proxy.dropAfter(dropAt);
        Harness h;
        h.http.setDirectHttpGets(direct);
        QCryptographicHash hash(QCryptographicHash::Sha256);
        qint64 got = 0;
        bool changed = false;
        HttpClient::GetHandler gh;
        gh.data = [&](QByteArrayView c) {
            hash.addData(c);
            got += c.size();
            if (changeFile && !changed) {
                // same size, other bytes and time: a new ETag and Last-Modified
                changed = writePatternFile(f, rel, size, 12);
                setMtime(f, rel, 1700000000);
            }
            return true;
        };
        const qsizetype logFrom = logMark(f);
        const Result r = h.http.get(proxy.url("/" + rel), 0, gh);
        QCOMPARE(errorName(r.error), errorName(error));
        if (error == NoError) {
            QCOMPARE(got, size);
            QCOMPARE(hash.result(), patternHash(size, 11));
        }
        const QByteArrayList lines = linesSince(f, logFrom);
        const int seen = countMethod(lines, "GET");
        QVERIFY2(gets < 0 ? seen >= -gets : seen == gets, lines.join('\n').constData());
        if (dropAt > 1000 && error == NoError)
            QVERIFY2(lines.constLast().contains("\" 206 "), lines.constLast().constData());
        QCOMPARE(h.http.directSends() > 0, direct);
    }

    // ---- redirects ----

    void redirects_data() { serverRows(); }
    void redirects()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        Harness h;
        QByteArray data;
        Result r = h.get(f.url("/r/same/redir/a.txt"), &data);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(data, QByteArray("redirected\n"));
        QCOMPARE(h.redirects.size(), 1);
        QCOMPARE(std::get<0>(h.redirects.at(0)), f.url("/r/same/redir/a.txt"));
        QCOMPARE(std::get<1>(h.redirects.at(0)), f.url("/redir/a.txt"));
        QCOMPARE(std::get<2>(h.redirects.at(0)), 302);

        h.redirects.clear();
        ResourceInfo info;
        r = h.http.head(f.url("/r/perm/redir/a.txt"), &info);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(info.url, f.url("/redir/a.txt"));
        QCOMPARE(std::get<2>(h.redirects.value(0)), 301);

        h.redirects.clear();
        DavEntry e;
        r = h.dav.stat(f.url("/r/307/redir/a.txt"), &e);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(e.size, 11);
        QCOMPARE(std::get<2>(h.redirects.value(0)), 307);

        // to another origin
        h.redirects.clear();
        data.clear();
        r = h.get(f.url("/r/other/redir/a.txt"), &data);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(data, QByteArray("redirected\n"));
        QCOMPARE(std::get<1>(h.redirects.value(0)), f.otherUrl("/redir/a.txt"));

        // a loop ends
        h.redirects.clear();
        r = h.get(f.url("/r/loop/x"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrServerError));
        QVERIFY(r.arg2.contains("too many redirects"));
        QCOMPARE(h.redirects.size(), h.http.maxRedirects());

        // a write is not sent to another server
        const qsizetype otherFrom = logMark(f);
        HttpClient::Request mv;
        mv.method = "DELETE";
        mv.url = f.url("/r/other/redir/a.txt");
        mv.write = true;
        HttpClient::Response resp;
        r = h.http.send(mv, &resp);
        QCOMPARE(errorName(r.error), errorName(ErrServerError));
        QVERIFY(r.arg2.contains("another server"));
        QCOMPARE(countMethod(linesSince(f, otherFrom), "DELETE"), 1); // the redirected one only
        QVERIFY(f.exists("redir/a.txt"));
    }

    void noDowngrade()
    {
        HttpServerFixture &f = *m_nginx;
        Harness h;
        QVERIFY(h.http.addCaCertificates(f.caFile()));
        const qsizetype from = logMark(f);
        QByteArray data;
        const Result r = h.get(f.httpsUrl("/r/down/redir/a.txt"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrServerError));
        QVERIFY2(r.arg2.contains("https"), r.arg2.constData());
        QVERIFY(data.isEmpty());
        QVERIFY(h.redirects.isEmpty());
        const QByteArrayList lines = linesSince(f, from);
        QCOMPARE(lines.size(), 1); // nothing went to the http port
    }

    // Credentials belong to one origin: a redirect elsewhere takes none along.
    void credentialsStayHome_data() { serverRows(); }
    void credentialsStayHome()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        Harness h;
        h.rightPassword();
        QByteArray data;
        Result r = h.get(f.url("/auth/secret.txt"), &data);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(h.authQuestions.size(), 1);
        const qsizetype from = logMark(f);
        data.clear();
        r = h.get(f.url("/auth/away/redir/a.txt"), &data);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(data, QByteArray("redirected\n"));
        const QByteArrayList lines = linesSince(f, from);
        QCOMPARE(lines.size(), 2);
        const QByteArray port = ' ' + QByteArray::number(f.port()) + ' ';
        const QByteArray other = ' ' + QByteArray::number(f.otherPort()) + ' ';
        // the test can fail: the first server did get credentials with the request
        QVERIFY2(lines.at(0).contains(port) && !lines.at(0).contains("auth=-"), lines.at(0).constData());
        QVERIFY2(lines.at(1).contains(other) && lines.at(1).endsWith("auth=-"), lines.at(1).constData());
        QCOMPARE(h.authQuestions.size(), 1);
    }

    // ---- authentication ----

    void auth_data() { serverRows(); }
    void auth()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("auth/ops"));
        QVERIFY(f.writeFile("auth/ops/f.txt", "data"));

        // one question for many requests
        {
            Harness h;
            h.rightPassword();
            QByteArray data;
            for (int i = 0; i < 5; ++i) {
                data.clear();
                const Result r = h.get(f.url("/auth/ops/f.txt"), &data);
                QVERIFY2(r.ok(), describe(r).constData());
            }
            QCOMPARE(data, QByteArray("data"));
            DavEntry e;
            Result r = h.dav.stat(f.url("/auth/ops/f.txt"), &e);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(h.list(f.url("/auth/ops/")), QByteArrayList({ "f.txt" }));
            r = h.put(f.url("/auth/ops/g.txt"), "put");
            QVERIFY2(r.ok(), describe(r).constData());
            r = h.dav.mkcol(f.url("/auth/ops/sub"));
            QVERIFY2(r.ok(), describe(r).constData());
            r = h.dav.move(f.url("/auth/ops/g.txt"), f.url("/auth/ops/sub/g.txt"), false);
            QVERIFY2(r.ok(), describe(r).constData());
            r = h.dav.remove(f.url("/auth/ops/sub"), true);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(h.authQuestions.size(), 1);
            QCOMPARE(h.authQuestions.at(0).realm, HttpServerFixture::realm());
            QVERIFY(!h.authQuestions.at(0).previousFailed);
            QCOMPARE(h.authQuestions.at(0).url.userName(), QString());
        }
        // wrong, then right
        {
            Harness h;
            h.answer = [&h](const AuthQuestion &) {
                if (h.authQuestions.size() == 1)
                    return Credentials { HttpServerFixture::user(), QStringLiteral("wrong") };
                return Credentials { HttpServerFixture::user(), HttpServerFixture::password() };
            };
            QByteArray data;
            const Result r = h.get(f.url("/auth/ops/f.txt"), &data);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(h.authQuestions.size(), 2);
            QVERIFY(h.authQuestions.at(1).previousFailed);
            QCOMPARE(h.authQuestions.at(1).user, HttpServerFixture::user());
        }
        // always wrong: a few questions, then "cannot authenticate", no password in sight
        {
            Harness h;
            h.answer = [](const AuthQuestion &) {
                return Credentials { HttpServerFixture::user(), QStringLiteral("hunter2") };
            };
            QByteArray data;
            const Result r = h.get(f.url("/auth/ops/f.txt"), &data);
            QCOMPARE(errorName(r.error), errorName(ErrCannotAuthenticate));
            QVERIFY(h.authQuestions.size() >= 1 && h.authQuestions.size() <= 3);
            QVERIFY(!QByteArray(r.arg1 + r.arg2).contains("hunter2"));
            QVERIFY(data.isEmpty());
        }
        // no answer
        {
            Harness h;
            DavEntry e;
            const Result r = h.dav.stat(f.url("/auth/ops/f.txt"), &e);
            QCOMPARE(errorName(r.error), errorName(ErrCannotAuthenticate));
            QCOMPARE(h.authQuestions.size(), 1);
        }
        // credentials in the URL: no question; never in an error's arguments
        {
            Harness h;
            QUrl u = f.url("/auth/ops/f.txt");
            u.setUserName(HttpServerFixture::user());
            u.setPassword(HttpServerFixture::password());
            QByteArray data;
            Result r = h.get(u, &data);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(data, QByteArray("data"));
            QVERIFY(h.authQuestions.isEmpty());
            u.setPath(QStringLiteral("/auth/ops/missing"));
            r = h.get(u, &data);
            QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
            QVERIFY(!r.arg1.contains(HttpServerFixture::password().toUtf8()));
            QVERIFY(!r.arg1.contains("alice@"));
        }
    }

    // Debug logging on, every path that handles a password: it never appears.
    void passwordsNotLogged()
    {
        static QByteArrayList messages;
        messages.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("qvfs.worker.http.debug=true"));
        const QtMessageHandler old = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext &, const QString &m) { messages.append(m.toUtf8()); });
        for (int s : { 0, 1 }) {
            HttpServerFixture &f = fx(s);
            Harness h;
            h.answer = [&h](const AuthQuestion &) {
                if (h.authQuestions.size() == 1)
                    return Credentials { HttpServerFixture::user(), QStringLiteral("wrongpass") };
                return Credentials { HttpServerFixture::user(), HttpServerFixture::password() };
            };
            QByteArray data;
            Result r = h.get(f.url("/auth/secret.txt"), &data);
            QVERIFY(r.ok());
            QUrl u = f.url("/auth/nothere");
            u.setUserName(QStringLiteral("bob"));
            u.setPassword(QStringLiteral("urlpass"));
            Harness h2;
            r = h2.get(u, &data);
            QVERIFY(!r.ok());
        }
        qInstallMessageHandler(old);
        QLoggingCategory::setFilterRules(QStringLiteral("qvfs.worker.http.debug=false"));
        QVERIFY(!messages.isEmpty()); // the logging was on
        for (const QByteArray &m : std::as_const(messages)) {
            for (const QByteArray &secret : { QByteArray("s3cret"), QByteArray("wrongpass"), QByteArray("urlpass") })
                QVERIFY2(!m.contains(secret), m.constData());
        }
    }

    // Digest on a new connection: a bodiless write is refused with 401 and sent again
    // with credentials (not a double write: the first was not carried out); a put
    // settles authentication before its body.
    void digestWrites()
    {
        HttpServerFixture &f = *m_apache;
        QVERIFY(f.makeDir("auth/digest"));
        Harness h;
        h.rightPassword();
        const qsizetype from = logMark(f);
        Result r = h.dav.mkcol(f.url("/auth/digest/new"));
        QVERIFY2(r.ok(), describe(r).constData());
        QByteArrayList lines = linesSince(f, from);
        QCOMPARE(countMethod(lines, "MKCOL"), 2);
        QVERIFY2(lines.at(0).contains("\" 401 ") && lines.at(1).contains("\" 201 "), lines.join('\n').constData());

        Harness h2;
        h2.rightPassword();
        const qsizetype from2 = logMark(f);
        r = h2.put(f.url("/auth/digest/file.bin"), pattern(0, 3 * MiB, 5));
        lines = linesSince(f, from2);
        QVERIFY2(r.ok(), QByteArray(describe(r) + '\n' + lines.join('\n')).constData());
        QCOMPARE(f.readFile("auth/digest/file.bin"), pattern(0, 3 * MiB, 5));
        QCOMPARE(countMethod(lines, "PUT"), 1);
        QCOMPARE(h2.authQuestions.size(), 1);
    }

    // A write as the first request on connections Qt made fresh (over https the
    // HTTP/1.1 set beside the HTTP/2 one of the stats): Qt would answer the 401 from its
    // own cache out of sight and then fail the write, unsent; an OPTIONS takes the 401.
    void writeOnFreshConnection()
    {
        HttpServerFixture &f = *m_nginx;
        QVERIFY(f.makeDir("auth/fresh"));
        QVERIFY(f.writeFile("auth/fresh/f", "x"));
        Harness h;
        QVERIFY(h.http.addCaCertificates(f.caFile()));
        h.rightPassword();
        DavEntry e;
        Result r = h.dav.stat(f.httpsUrl("/auth/fresh/f"), &e);
        QVERIFY2(r.ok(), describe(r).constData());
        const qsizetype from = logMark(f);
        r = h.dav.remove(f.httpsUrl("/auth/fresh/f"), false, DavClient::Kind::File);
        QVERIFY2(r.ok(), describe(r).constData());
        const QByteArrayList lines = linesSince(f, from);
        QCOMPARE(countMethod(lines, "DELETE"), 1);
        QVERIFY2(lines.value(0).contains("\"OPTIONS /auth/fresh/f HTTP/1.1\" 401"), lines.join('\n').constData());
        QVERIFY(!f.exists("auth/fresh/f"));
        QCOMPARE(h.authQuestions.size(), 1);
    }

    // ---- TLS ----

    void tls()
    {
        HttpServerFixture &f = *m_nginx;
        QVERIFY(f.writeFile("tls.txt", "tls\n"));
        const QUrl url = f.httpsUrl("/tls.txt");
        QFile pem(f.caFile());
        QVERIFY(pem.open(QIODevice::ReadOnly));
        const QSslCertificate cert(&pem, QSsl::Pem);
        const QByteArray digest = cert.digest(QCryptographicHash::Sha256).toHex();
        QByteArray data;
        {
            // refused: the error names the certificate's problem
            Harness h;
            const Result r = h.get(url, &data);
            QCOMPARE(errorName(r.error), errorName(ErrUntrustedCertificate));
            QCOMPARE(r.arg1, "127.0.0.1:" + QByteArray::number(f.httpsPort()));
            QVERIFY2(r.arg2.contains("self signed") || r.arg2.contains("self-signed"), r.arg2.constData());
            QCOMPARE(h.certQuestions.size(), 1);
            QCOMPARE(h.certQuestions.at(0).sha256, digest);
            QVERIFY(data.isEmpty());
        }
        {
            // trusted once: asked once for the client's life, HTTP/2 and HTTP/1.1 connections alike
            Harness h;
            h.trust = TrustDecision::Once;
            Result r = h.get(url, &data);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(data, QByteArray("tls\n"));
            QCOMPARE(h.http.directSends(), 1); // the download asked on its own socket
            ResourceInfo info;
            r = h.http.head(url, &info);
            QVERIFY2(r.ok(), describe(r).constData());
            DavEntry e;
            r = h.dav.stat(url, &e);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(h.certQuestions.size(), 1);
        }
        {
            // a configured CA: no question
            Harness h;
            QVERIFY(h.http.addCaCertificates(f.caFile()));
            data.clear();
            const Result r = h.get(url, &data);
            QVERIFY2(r.ok(), describe(r).constData());
            QVERIFY(h.certQuestions.isEmpty());
        }
        {
            // a stored pin: no question
            Harness h;
            h.http.pinCertificate(
                QStringLiteral("127.0.0.1"), f.httpsPort(), digest, { QSslError::SelfSignedCertificate });
            data.clear();
            const Result r = h.get(url, &data);
            QVERIFY2(r.ok(), describe(r).constData());
            QVERIFY(h.certQuestions.isEmpty());
        }
        {
            // a pin for another certificate does not count
            Harness h;
            h.http.pinCertificate(
                QStringLiteral("127.0.0.1"), f.httpsPort(), QByteArray(64, 'a'), { QSslError::SelfSignedCertificate });
            const Result r = h.get(url, &data);
            QCOMPARE(errorName(r.error), errorName(ErrUntrustedCertificate));
        }
    }

    // HTTP/2 where offered for small requests, HTTP/1.1 for streamed bodies; one
    // manager reuses its connections. Downloads over https go on the client's own
    // connection, kept for the next one.
    void connections()
    {
        HttpServerFixture &f = *m_nginx;
        QVERIFY(f.makeDir("conn"));
        QVERIFY(f.writeFile("conn/a.txt", "a"));
        for (bool tls : { false, true }) {
            Harness h;
            QVERIFY(h.http.addCaCertificates(f.caFile()));
            const auto url = [&](const QByteArray &p) { return tls ? f.httpsUrl(p) : f.url(p); };
            const qsizetype from = logMark(f);
            for (int i = 0; i < 200; ++i) {
                DavEntry e;
                Result r = h.dav.stat(url("/conn/a.txt"), &e);
                QVERIFY2(r.ok(), describe(r).constData());
                ResourceInfo info;
                r = h.http.head(url("/conn/a.txt"), &info);
                QVERIFY2(r.ok(), describe(r).constData());
            }
            QByteArray data;
            QVERIFY(h.get(url("/conn/a.txt"), &data).ok());
            QVERIFY(h.get(url("/conn/a.txt"), &data).ok());
            QCOMPARE(data, QByteArray("aa"));
            QVERIFY(!h.list(url("/conn/")).isEmpty());
            const QByteArrayList lines = linesSince(f, from);
            QCOMPARE(lines.size(), 403);
            QSet<QByteArray> conns;
            for (const QByteArray &l : lines)
                conns.insert(l.left(l.indexOf(' ')));
            qInfo("%s: 400 stats, two gets and a listing over %d connection(s)", tls ? "https" : "http",
                int(conns.size()));
            QVERIFY(conns.size() <= (tls ? 3 : 2));
            if (tls) {
                QVERIFY2(lines.at(0).contains("PROPFIND /conn/a.txt HTTP/2.0"), lines.at(0).constData());
                QVERIFY2(lines.at(1).contains("HEAD /conn/a.txt HTTP/2.0"), lines.at(1).constData());
                QVERIFY2(lines.at(400).contains("GET /conn/a.txt HTTP/1.1"), lines.at(400).constData());
                QVERIFY2(lines.at(401).contains("GET /conn/a.txt HTTP/1.1"), lines.at(401).constData());
                // the second download on the first one's connection
                QCOMPARE(
                    lines.at(401).left(lines.at(401).indexOf(' ')), lines.at(400).left(lines.at(400).indexOf(' ')));
                QCOMPARE(h.http.directSends(), 2);
                QVERIFY2(lines.at(402).contains("PROPFIND /conn/ HTTP/1.1"), lines.at(402).constData());
            }
        }
    }

    // ---- transport errors ----

    void transportErrors()
    {
        Harness h;
        h.http.setTransferTimeout(300);
        QByteArray data;
        // refused
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 closed = probe.serverPort();
        probe.close();
        Result r = h.get(QUrl(QStringLiteral("http://127.0.0.1:%1/x").arg(closed)), &data);
        QCOMPARE(errorName(r.error), errorName(ErrConnectionFailed));
        QCOMPARE(r.arg1, "127.0.0.1:" + QByteArray::number(closed));
        // DNS
        r = h.get(QUrl(QStringLiteral("http://nonexistent.invalid/x")), &data);
        QCOMPARE(errorName(r.error), errorName(ErrHostNotFound));
        QCOMPARE(r.arg1, QByteArray("nonexistent.invalid"));
        // no answer at all
        LoopbackProxy proxy(m_nginx->port());
        QVERIFY(proxy.start());
        proxy.setStalled(true);
        r = h.get(proxy.url("/redir/a.txt"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrServerTimedOut));
        QCOMPARE(r.arg1, arg(proxy.url("/redir/a.txt")));
        DavEntry e;
        r = h.dav.stat(proxy.url("/redir/a.txt"), &e);
        QCOMPARE(errorName(r.error), errorName(ErrServerTimedOut));
        proxy.setStalled(false);
        // an answer that stops half-way (not resumed: a stall is no drop)
        QVERIFY(m_nginx->makeDir("stall"));
        QVERIFY(writePatternFile(*m_nginx, "stall/f.bin", 4 * MiB, 1));
        proxy.stallAfter(MiB);
        data.clear();
        r = h.get(proxy.url("/stall/f.bin"), &data);
        QCOMPARE(errorName(r.error), errorName(ErrServerTimedOut));
        QVERIFY(data.size() < 4 * MiB);
        // unsupported scheme, no host
        r = h.get(QUrl(QStringLiteral("ftp://127.0.0.1/x")), &data);
        QCOMPARE(errorName(r.error), errorName(ErrUnsupportedProtocol));
    }

    // A server that answers an upload with a success before taking its body: the
    // server's fault (ErrServerError naming it), never reported as a source that ran long.
    void earlyAnswerToUpload()
    {
        QProcess server;
        server.start(QStringLiteral("python3"),
            { QStringLiteral("-c"),
                QStringLiteral("import socket\n"
                               "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
                               "print(s.getsockname()[1], flush=True)\n"
                               "c, _ = s.accept(); head = b''\n"
                               "while b'\\r\\n\\r\\n' not in head: head += c.recv(65536)\n"
                               "c.sendall(b'HTTP/1.1 201 Created\\r\\nContent-Length: 0\\r\\n\\r\\n')\n"
                               "try:\n"
                               "    while c.recv(65536): pass\n"
                               "except OSError: pass\n") });
        QVERIFY(server.waitForReadyRead(10000));
        const int port = server.readLine().trimmed().toInt();
        QVERIFY(port > 0);
        Harness h;
        const QUrl u(QStringLiteral("http://127.0.0.1:%1/up.bin").arg(port));
        qint64 left = 4 * MiB;
        const Result r = h.dav.upload(
            u, left,
            [&](QByteArray *chunk) {
                if (left <= 0)
                    return false;
                *chunk = QByteArray(int(qMin<qint64>(left, 256 * 1024)), 'u');
                left -= chunk->size();
                return true;
            },
            std::nullopt, nullptr);
        QCOMPARE(errorName(r.error), errorName(ErrServerError));
        QCOMPARE(r.arg1, arg(u));
        QVERIFY2(r.arg2.contains("before the whole body was sent"), r.arg2.constData());
        server.kill();
        server.waitForFinished();
    }

    // ---- kill ----

    void killGet_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<bool>("tls");
        QTest::newRow("nginx") << 0 << false;
        QTest::newRow("apache") << 1 << false;
        QTest::newRow("nginx https (own socket)") << 0 << true;
    }
    void killGet()
    {
        QFETCH(int, server);
        QFETCH(bool, tls);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("kill"));
        QVERIFY(writePatternFile(f, "kill/f.bin", 30 * MiB, 2));
        Harness h;
        if (tls)
            QVERIFY(h.http.addCaCertificates(f.caFile()));
        QElapsedTimer since;
        qint64 got = 0;
        HttpClient::GetHandler gh;
        gh.data = [&](QByteArrayView c) {
            got += c.size();
            if (got >= 2 * MiB && !h.cancel) {
                h.cancel = true;
                since.start();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1)); // a reader slower than loopback
            return true;
        };
        const Result r = h.http.get(tls ? f.httpsUrl("/kill/f.bin") : f.url("/kill/f.bin"), 0, gh);
        QCOMPARE(errorName(r.error), errorName(ErrCancelled));
        QVERIFY(got < 30 * MiB);
        QVERIFY(since.elapsed() < 1000);
        QCOMPARE(h.http.directSends() > 0, tls);
        qInfo("%s: get killed after %lld bytes; returned %lld ms after the kill", QTest::currentDataTag(), got,
            qint64(since.elapsed()));
    }

    // A kill while the server says nothing at all.
    void killStalled()
    {
        LoopbackProxy proxy(m_nginx->port());
        QVERIFY(proxy.start());
        proxy.setStalled(true);
        Harness h;
        QElapsedTimer since;
        QTimer::singleShot(200, [&] {
            h.cancel = true;
            since.start();
        });
        DavEntry e;
        const Result r = h.dav.stat(proxy.url("/redir/a.txt"), &e);
        QCOMPARE(errorName(r.error), errorName(ErrCancelled));
        qInfo("a stalled PROPFIND returned %lld ms after the kill", qint64(since.elapsed()));
    }

    void killPut_data() { serverRows(); }
    void killPut()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("killput"));
        QVERIFY(f.writeFile("killput/dest.bin", "old contents"));
        Harness h;
        const qint64 size = 100 * 1000 * 1000;
        qint64 pos = 0;
        QElapsedTimer since;
        DavClient::PutOptions o;
        o.overwrite = true;
        const Result r = h.dav.put(
            f.url("/killput/dest.bin"), size,
            [&](QByteArray *chunk) {
                if (pos >= 10 * MiB && !h.cancel) {
                    h.cancel = true;
                    since.start();
                }
                if (pos >= size)
                    return false;
                *chunk = pattern(pos, 256 * 1024, 4);
                pos += chunk->size();
                std::this_thread::sleep_for(std::chrono::microseconds(500));
                return true;
            },
            o);
        const qint64 latency = since.elapsed();
        QCOMPARE(errorName(r.error), errorName(ErrCancelled));
        qInfo("%s: put killed after %lld bytes pulled; returned %lld ms after the kill (clean-up included)",
            QTest::currentDataTag(), pos, latency);
        // nothing left: the destination untouched, no temporary, no half body in the server
        QTRY_COMPARE_WITH_TIMEOUT(f.entries("killput"), QByteArrayList({ "dest.bin" }), 5000);
        QCOMPARE(f.readFile("killput/dest.bin"), QByteArray("old contents"));
        if (!f.bodyTempDir().isEmpty())
            QTRY_VERIFY_WITH_TIMEOUT(QDir(QFile::decodeName(f.bodyTempDir())).isEmpty(), 5000);
    }

    // ---- WebDAV ----

    void davStat_data() { serverRows(); }
    // Stats on plain http share one kept-alive connection of the client's own; one the
    // server closed while idle (its keep-alive timeout) is replaced, the stat sent again.
    void directStatsKeepAlive()
    {
        const QByteArray body = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response>"
                                "<D:href>/k/f</D:href><D:propstat><D:prop><D:getcontentlength>7</D:getcontentlength>"
                                "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
                                "</D:multistatus>";
        const QByteArray answer = "HTTP/1.1 207 Multi-Status\r\nContent-Length: " + QByteArray::number(body.size())
            + "\r\nContent-Type: application/xml\r\n\r\n" + body;
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(listener >= 0);
        sockaddr_in a {};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        QVERIFY(::bind(listener, reinterpret_cast<sockaddr *>(&a), len) == 0 && ::listen(listener, 4) == 0);
        QVERIFY(::getsockname(listener, reinterpret_cast<sockaddr *>(&a), &len) == 0);
        std::atomic<int> connections { 0 };
        std::atomic<int> requests { 0 };
        // answers two requests on its first connection and closes it, then one per connection
        std::thread server([&] {
            for (int c = 0; c < 2; ++c) {
                const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd < 0)
                    return;
                ++connections;
                QByteArray in;
                char buf[4096];
                for (int answered = 0; answered < (c == 0 ? 2 : 1);) {
                    const qsizetype end = in.indexOf("\r\n\r\n");
                    if (end >= 0 && in.size() >= end + 4 + propfindRequestBody().size()) {
                        in.remove(0, end + 4 + propfindRequestBody().size());
                        ++requests;
                        ++answered;
                        if (::write(fd, answer.constData(), size_t(answer.size())) != answer.size())
                            break;
                        continue;
                    }
                    const ssize_t n = ::read(fd, buf, sizeof buf);
                    if (n <= 0)
                        break;
                    in.append(buf, n);
                }
                ::close(fd);
            }
        });
        Harness h;
        const QByteArray base = "http://127.0.0.1:" + QByteArray::number(ntohs(a.sin_port));
        for (int i = 0; i < 3; ++i) {
            DavEntry e;
            const Result r = h.dav.stat(QUrl::fromEncoded(base + "/k/f"), &e);
            QVERIFY2(r.ok(), describe(r).constData());
            QCOMPARE(e.size, 7);
            if (i == 1)
                QThread::msleep(100); // the server closes the first connection meanwhile (no event loop notices)
        }
        ::shutdown(listener, SHUT_RDWR);
        server.join();
        ::close(listener);
        QCOMPARE(requests.load(), 3);
        QCOMPARE(connections.load(), 2);
        // the third one twice, on the closed connection and on a new one (or once, if the
        // socket had seen the close already)
        QVERIFY(h.http.directSends() == 3 || h.http.directSends() == 4);
    }

    void davStat()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("stat/sub"));
        QVERIFY(f.writeFile("stat/f.txt", "12345"));
        setMtime(f, "stat/f.txt", 1500000000);
        Harness h;
        DavEntry e;
        Result r = h.dav.stat(f.url("/stat/f.txt"), &e);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(e.name, QByteArray("f.txt"));
        QCOMPARE(e.size, 5);
        QVERIFY(!e.isCollection);
        QCOMPARE(e.mtime, std::optional<qint64>(1500000000));
        r = h.dav.stat(f.url("/stat/sub/"), &e);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(e.name, QByteArray("sub"));
        QVERIFY(e.isCollection);
        QCOMPARE(e.contentType, QByteArray("inode/directory"));
        r = h.dav.stat(f.url("/stat/sub"), &e); // without the slash (apache: a 301, followed)
        QVERIFY2(r.ok(), describe(r).constData());
        QVERIFY(e.isCollection);
        r = h.dav.stat(QUrl::fromEncoded("webdav://127.0.0.1:" + QByteArray::number(f.port()) + "/stat/f.txt"), &e);
        QVERIFY2(r.ok(), describe(r).constData());
        r = h.dav.stat(f.url("/stat/missing"), &e);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        QCOMPARE(r.arg1, arg(f.url("/stat/missing")));
        r = h.dav.stat(f.url("/forbidden/x.txt"), &e);
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        r = h.dav.stat(f.url("/auth/secret.txt"), &e);
        QCOMPARE(errorName(r.error), errorName(ErrCannotAuthenticate));
    }

    void davList_data() { serverRows(); }
    void davList()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("list/sub"));
        QVERIFY(f.writeFile("list/a.txt", "a"));
        QVERIFY(f.writeFile("list/b.png", "bb"));
        Harness h;
        QList<DavEntry> entries;
        Result r = h.dav.list(f.url("/list"), [&](const DavEntry &e) {
            entries.append(e);
            return true;
        });
        QVERIFY2(r.ok(), describe(r).constData());
        std::sort(entries.begin(), entries.end(), [](const DavEntry &a, const DavEntry &b) { return a.name < b.name; });
        QCOMPARE(entries.size(), 3);
        QCOMPARE(entries.at(0).name, QByteArray("a.txt"));
        QCOMPARE(entries.at(0).size, 1);
        QCOMPARE(entries.at(1).name, QByteArray("b.png"));
        QCOMPARE(entries.at(1).size, 2);
        QCOMPARE(entries.at(2).name, QByteArray("sub"));
        QVERIFY(entries.at(2).isCollection);
        QVERIFY(entries.at(0).mtime.has_value());
        // nginx sends no content type: the name tells
        const QByteArray type = entries.at(1).contentType.isEmpty() ? DavClient::guessMimeType(entries.at(1).name)
                                                                    : entries.at(1).contentType;
        QCOMPARE(type, QByteArray("image/png"));
        h.list(f.url("/list/a.txt"), &r);
        QCOMPARE(errorName(r.error), errorName(ErrIsNotDirectory));
        h.list(f.url("/list/missing/"), &r);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        h.list(f.url("/forbidden/"), &r);
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        int seen = 0;
        r = h.dav.list(f.url("/list/"), [&](const DavEntry &) { return ++seen < 1; });
        QVERIFY2(r.ok(), describe(r).constData()); // stopped by the caller: not an error
        QCOMPARE(seen, 1);
    }

    void guessMime()
    {
        QCOMPARE(DavClient::guessMimeType("a.txt"), QByteArray("text/plain"));
        QCOMPARE(DavClient::guessMimeType("x\xff.png"), QByteArray("image/png"));
        QCOMPARE(DavClient::guessMimeType("noext"), QByteArray("application/octet-stream"));
    }

    void davMkcol_data() { serverRows(); }
    void davMkcol()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("mk"));
        QVERIFY(f.writeFile("mk/file", "x"));
        Harness h;
        Result r = h.dav.mkcol(f.url("/mk/new"));
        QVERIFY2(r.ok(), describe(r).constData());
        QVERIFY(f.entries("mk/new").isEmpty() && f.exists("mk/new"));
        r = h.dav.mkcol(f.url("/mk/new/"));
        QCOMPARE(errorName(r.error), errorName(ErrAlreadyExists));
        QCOMPARE(r.arg1, arg(f.url("/mk/new")));
        r = h.dav.mkcol(f.url("/mk/file"));
        QCOMPARE(errorName(r.error), errorName(ErrAlreadyExists));
        r = h.dav.mkcol(f.url("/mk/nope/sub"));
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        QCOMPARE(r.arg1, arg(f.url("/mk/nope/"))); // the missing parent, not the new folder
        QVERIFY(!f.exists("mk/nope"));
        r = h.dav.mkcol(f.url("/forbidden/new"));
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
    }

    void davRemove_data() { serverRows(); }
    void davRemove()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("rm/tree/deep/er"));
        QVERIFY(f.makeDir("rm/empty"));
        QVERIFY(f.writeFile("rm/f", "x"));
        QVERIFY(f.writeFile("rm/tree/a", "x"));
        QVERIFY(f.writeFile("rm/tree/deep/er/b", "x"));
        Harness h;
        const qsizetype from = logMark(f);
        Result r = h.dav.remove(f.url("/rm/tree"), false);
        QCOMPARE(errorName(r.error), errorName(ErrDirectoryNotEmpty));
        QVERIFY(f.exists("rm/tree/a"));
        r = h.dav.remove(f.url("/rm/tree"), true);
        QVERIFY2(r.ok(), describe(r).constData());
        QVERIFY(!f.exists("rm/tree"));
        QCOMPARE(countMethod(linesSince(f, from), "DELETE"), 1); // one request for the tree
        r = h.dav.remove(f.url("/rm/empty/"), false);
        QVERIFY2(r.ok(), describe(r).constData());
        r = h.dav.remove(f.url("/rm/f"), false, DavClient::Kind::File);
        QVERIFY2(r.ok(), describe(r).constData());
        QVERIFY(f.entries("rm").isEmpty());
        r = h.dav.remove(f.url("/rm/f"), false);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        r = h.dav.remove(f.url("/rm/f"), false, DavClient::Kind::File);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        r = h.dav.remove(f.url("/forbidden/x.txt"), false, DavClient::Kind::File);
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        QVERIFY(f.exists("forbidden/x.txt"));
    }

    void davMoveCopy_data() { serverRows(); }
    void davMoveCopy()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("mv/tree/sub"));
        QVERIFY(f.makeDir("mv/into"));
        QVERIFY(f.writeFile("mv/a", "A"));
        QVERIFY(f.writeFile("mv/b", "B"));
        QVERIFY(f.writeFile("mv/tree/sub/t", "T"));
        Harness h;
        Result r = h.dav.move(f.url("/mv/a"), f.url("/mv/b"), false);
        QCOMPARE(errorName(r.error), errorName(ErrAlreadyExists));
        QCOMPARE(r.arg1, arg(f.url("/mv/b")));
        QCOMPARE(f.readFile("mv/a"), QByteArray("A"));
        QCOMPARE(f.readFile("mv/b"), QByteArray("B"));
        r = h.dav.copy(f.url("/mv/a"), f.url("/mv/b"), false);
        QCOMPARE(errorName(r.error), errorName(ErrAlreadyExists));
        r = h.dav.copy(f.url("/mv/a"), f.url("/mv/c"), false);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("mv/c"), QByteArray("A"));
        r = h.dav.move(f.url("/mv/a"), f.url("/mv/b"), true);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("mv/b"), QByteArray("A"));
        QVERIFY(!f.exists("mv/a"));
        r = h.dav.move(f.url("/mv/b"), f.url("/mv/b/"), false);
        QCOMPARE(errorName(r.error), errorName(ErrIdenticalFiles));
        r = h.dav.move(f.url("/mv/missing"), f.url("/mv/z"), false);
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        QCOMPARE(r.arg1, arg(f.url("/mv/missing")));
        r = h.dav.copy(f.url("/mv/tree"), f.url("/mv/treecopy"), false);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("mv/treecopy/sub/t"), QByteArray("T"));
        r = h.dav.move(f.url("/mv/tree"), f.url("/mv/tree/sub/x"), false);
        QCOMPARE(errorName(r.error), errorName(ErrCycle));
        r = h.dav.move(f.url("/mv/tree"), f.url("/mv/into/tree"), false);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("mv/into/tree/sub/t"), QByteArray("T"));
        QVERIFY(!f.exists("mv/tree"));
        r = h.dav.move(f.url("/mv/c"), f.url("/mv/nope/c"), false);
        if (server == 0) {
            // nginx creates the missing folder on MOVE
            QVERIFY2(r.ok(), describe(r).constData());
        } else {
            QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
            QCOMPARE(r.arg1, arg(f.url("/mv/nope/")));
            QCOMPARE(f.readFile("mv/c"), QByteArray("A"));
        }
        r = h.dav.move(f.url("/mv/b"), f.otherUrl("/mv/b2"), false);
        QCOMPARE(errorName(r.error), errorName(ErrUnsupportedAction)); // another origin: not in one request
    }

    void davPut_data() { serverRows(); }
    void davPut()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("put/sub"));
        QVERIFY(f.writeFile("put/file", "old"));
        Harness h;
        Result r = h.put(f.url("/put/new.bin"), pattern(0, 300000, 1));
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("put/new.bin"), pattern(0, 300000, 1));
        r = h.put(f.url("/put/empty"), QByteArray());
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("put/empty"), QByteArray());
        r = h.put(f.url("/put/file"), "new");
        QCOMPARE(errorName(r.error), errorName(ErrAlreadyExists));
        QCOMPARE(r.arg1, arg(f.url("/put/file")));
        QCOMPARE(f.readFile("put/file"), QByteArray("old"));
        DavClient::PutOptions over;
        over.overwrite = true;
        r = h.put(f.url("/put/file"), "new", over);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.readFile("put/file"), QByteArray("new"));
        r = h.put(f.url("/put/sub"), "x", over);
        QCOMPARE(errorName(r.error), errorName(ErrIsDirectory));
        r = h.put(f.url("/put/nope/x"), "x");
        QCOMPARE(errorName(r.error), errorName(ErrDoesNotExist));
        QCOMPARE(r.arg1, arg(f.url("/put/nope/")));
        r = h.put(f.url("/put/file/x"), "x");
        QCOMPARE(errorName(r.error), errorName(ErrIsNotDirectory));
        r = h.put(f.url("/small/big"), pattern(0, 4096, 1));
        if (server == 1 && r.error == ErrConnectionFailed) {
            // Apache answers 413 and closes while the body is still being sent; Qt 6.4
            // drops an answer that arrives in that state (sometimes): what is known is said
            QVERIFY2(r.arg2.contains("during the upload"), r.arg2.constData());
        } else {
            QCOMPARE(errorName(r.error), errorName(ErrFileTooLarge));
            QCOMPARE(r.arg1, arg(f.url("/small/big")));
        }
        QVERIFY(f.entries("small").isEmpty());
        r = h.put(f.url("/forbidden/y"), "y");
        QCOMPARE(errorName(r.error), errorName(ErrAccessDenied));
        // a source that gives less or more than announced
        qsizetype calls = 0;
        r = h.dav.put(f.url("/put/short"), 2000,
            [&](QByteArray *chunk) {
                if (calls++)
                    return false;
                *chunk = QByteArray(1000, 's');
                return true;
            },
            {});
        QCOMPARE(errorName(r.error), errorName(ErrCannotWrite));
        calls = 0;
        r = h.dav.put(f.url("/put/long"), 2000,
            [&](QByteArray *chunk) {
                if (calls++ > 2)
                    return false;
                *chunk = QByteArray(1000, 'l');
                return true;
            },
            {});
        QCOMPARE(errorName(r.error), errorName(ErrCannotWrite));
        r = h.dav.put(f.url("/put/unknown"), -1, [](QByteArray *) { return false; }, {});
        QCOMPARE(errorName(r.error), errorName(ErrUnsupportedAction));
        // nothing left behind by any of these
        QCOMPARE(f.entries("put"), QByteArrayList({ "empty", "file", "new.bin", "sub" }));
        // modification time: nginx takes it from Date, apache keeps none
        DavClient::PutOptions timed;
        timed.mtime = 1000000000;
        DavClient::PutOutcome outcome;
        r = h.put(f.url("/put/timed"), "t", timed, &outcome);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(outcome.url, f.url("/put/timed"));
        QCOMPARE(outcome.mtimeKept, server == 0);
        QCOMPARE(f.mtime("put/timed") == 1000000000, server == 0);
    }

    void davLocked()
    {
        HttpServerFixture &f = *m_apache;
        QVERIFY(f.makeDir("lock"));
        QVERIFY(f.writeFile("lock/f", "locked"));
        Harness h;
        HttpClient::Request lock;
        lock.method = "LOCK";
        lock.url = f.url("/lock/f");
        lock.headers = { { "Content-Type", "application/xml" }, { "Timeout", "Second-600" } };
        lock.body = "<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
                    "<D:locktype><D:write/></D:locktype><D:owner>someone else</D:owner></D:lockinfo>";
        HttpClient::Response resp;
        Result r = h.http.send(lock, &resp);
        QVERIFY2(r.ok() && resp.status == 200, QByteArray(describe(r) + resp.body).constData());
        DavClient::PutOptions over;
        over.overwrite = true;
        r = h.put(f.url("/lock/f"), "mine", over);
        QCOMPARE(errorName(r.error), errorName(ErrLocked));
        QCOMPARE(r.arg1, arg(f.url("/lock/f")));
        QCOMPARE(f.readFile("lock/f"), QByteArray("locked"));
        QCOMPARE(f.entries("lock"), QByteArrayList({ "f" }));
        r = h.dav.remove(f.url("/lock/f"), false);
        QCOMPARE(errorName(r.error), errorName(ErrLocked));
        r = h.dav.move(f.url("/lock/f"), f.url("/lock/g"), false);
        QCOMPARE(errorName(r.error), errorName(ErrLocked));
        QVERIFY(f.exists("lock/f"));
    }

    // 10,000 members: entries reach the caller while the body is still arriving.
    void bigListing_data() { serverRows(); }
    void bigListing()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("many"));
        for (int i = 0; i < 10000; ++i)
            QVERIFY(f.writeFile(QByteArray("many/file-" + QByteArray::number(i).rightJustified(5, '0') + ".txt"), "x"));
        Harness h;
        h.list(f.url("/many/")); // warm the connection and the server's cache
        QSet<QByteArray> names;
        DavClient::ListStats stats;
        QElapsedTimer t;
        t.start();
        qint64 firstMs = -1;
        const Result r = h.dav.list(
            f.url("/many/"),
            [&](const DavEntry &e) {
                if (firstMs < 0)
                    firstMs = t.elapsed();
                names.insert(e.name);
                return true;
            },
            &stats);
        const qint64 ms = t.elapsed();
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(names.size(), 10000);
        qint64 curlMs = -1;
        {
            QProcess curl;
            QElapsedTimer ct;
            ct.start();
            curl.start(QStringLiteral("curl"),
                { QStringLiteral("-s"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-X"),
                    QStringLiteral("PROPFIND"), QStringLiteral("-H"), QStringLiteral("Depth: 1"),
                    QStringLiteral("--data-binary"), QString::fromUtf8(propfindRequestBody()),
                    QString::fromUtf8(f.url("/many/").toEncoded()) });
            if (curl.waitForFinished(60000) && curl.exitCode() == 0)
                curlMs = ct.elapsed();
        }
        QVERIFY(names.contains("file-09999.txt"));
        QCOMPARE(stats.entries, 10000);
        qInfo("%s: 10,000 entries in %lld ms (first after %lld ms; curl PROPFIND %lld ms), %lld body bytes in "
              "%lld pieces, the first entry after %lld bytes",
            QTest::currentDataTag(), ms, firstMs, curlMs, stats.bytes, stats.chunks, stats.bytesAtFirstEntry);
        QVERIFY(stats.chunks > 1);
        QVERIFY(stats.bytesAtFirstEntry < stats.bytes / 2);
    }

    // A name that is not UTF-8, byte for byte: put, list, stat, get, move, copy, delete.
    void nonUtf8Name_data() { serverRows(); }
    void nonUtf8Name()
    {
        QFETCH(int, server);
        HttpServerFixture &f = fx(server);
        QVERIFY(f.makeDir("u8"));
        const QByteArray name("n\xff\xfe-\xc3\xa4 %.bin");
        const QUrl dir = f.url("/u8/");
        const QUrl url = Url::child(dir, name);
        QVERIFY(url.isValid());
        Harness h;
        Result r = h.put(url, "payload");
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.entries("u8"), QByteArrayList({ name }));
        QCOMPARE(h.list(dir), QByteArrayList({ name }));
        DavEntry e;
        r = h.dav.stat(url, &e);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(e.name, name);
        QCOMPARE(e.size, 7);
        QByteArray data;
        r = h.get(url, &data);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(data, QByteArray("payload"));
        const QByteArray other("m\xff.bin");
        r = h.dav.move(url, Url::child(dir, other), false);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.entries("u8"), QByteArrayList({ other }));
        r = h.dav.copy(Url::child(dir, other), url, false);
        QVERIFY2(r.ok(), describe(r).constData());
        QCOMPARE(f.entries("u8"), QByteArrayList({ other, name }));
        r = h.dav.remove(url, false);
        QVERIFY2(r.ok(), describe(r).constData());
        r = h.dav.remove(Url::child(dir, other), false);
        QVERIFY2(r.ok(), describe(r).constData());
        QVERIFY(f.entries("u8").isEmpty());
    }

    // ---- writes are never sent twice ----

    void noDoubleWrites_data()
    {
        QTest::addColumn<int>("server");
        QTest::addColumn<QByteArray>("method");
        for (int s : { 0, 1 }) {
            for (const char *m : { "MOVE", "COPY", "DELETE", "PUT", "MKCOL" })
                QTest::newRow(QByteArray((s == 0 ? "nginx " : "apache ") + QByteArray(m)).constData())
                    << s << QByteArray(m);
        }
    }
    void noDoubleWrites()
    {
        QFETCH(int, server);
        QFETCH(QByteArray, method);
        HttpServerFixture &f = fx(server);
        const QByteArray dir = "twice-" + method;
        QVERIFY(f.makeDir(dir));
        QVERIFY(f.writeFile(QByteArray(dir + "/src"), "source"));
        LoopbackProxy proxy(f.port());
        QVERIFY(proxy.start());
        Harness h;
        // warm: the write goes on a kept-alive connection, as it would in a worker
        DavEntry e;
        QVERIFY(h.dav.stat(proxy.url("/" + dir + "/src"), &e).ok());
        proxy.swallowResponse(method);
        const qsizetype from = logMark(f);
        const QUrl src = proxy.url("/" + dir + "/src");
        const QUrl dst = proxy.url("/" + dir + "/dst");
        Result r;
        if (method == "MOVE")
            r = h.dav.move(src, dst, false, DavClient::Kind::File);
        else if (method == "COPY")
            r = h.dav.copy(src, dst, false, DavClient::Kind::File);
        else if (method == "DELETE")
            r = h.dav.remove(src, false, DavClient::Kind::File);
        else if (method == "PUT")
            r = h.put(dst, pattern(0, 200000, 9));
        else
            r = h.dav.mkcol(dst);
        QCOMPARE(errorName(r.error), errorName(ErrConnectionFailed));
        QVERIFY2(r.arg2.contains(method == "PUT" ? "nothing was written" : "not sent again"), r.arg2.constData());
        const QByteArrayList lines = linesSince(f, from);
        QVERIFY2(countMethod(lines, method) == 1, lines.join('\n').constData());
        qInfo("%s: the server saw %s", QTest::currentDataTag(), lines.join(" | ").constData());
        // what the server did (once) stays done; a put's temporary is cleaned up
        if (method == "PUT")
            QCOMPARE(f.entries(dir), QByteArrayList({ "src" }));
        else if (method == "MOVE")
            QCOMPARE(f.entries(dir), QByteArrayList({ "dst" }));
        else if (method == "COPY" || method == "MKCOL")
            QCOMPARE(f.entries(dir), QByteArrayList({ "dst", "src" }));
        else
            QVERIFY(f.entries(dir).isEmpty());
    }

    // The hazard the previous test guards against is real: plain Qt 6.4 sends it twice.
    void qtResendsWrites()
    {
        HttpServerFixture &f = *m_nginx;
        QVERIFY(f.makeDir("qtresend"));
        QVERIFY(f.writeFile("qtresend/a", "a"));
        LoopbackProxy proxy(f.port());
        QVERIFY(proxy.start());
        QNetworkAccessManager nam;
        const auto run = [&](const QByteArray &verb, const QUrl &url, const QByteArray &dest) {
            QNetworkRequest req(url);
            if (!dest.isEmpty())
                req.setRawHeader("Destination", dest);
            QNetworkReply *reply = nam.sendCustomRequest(req, verb);
            QEventLoop loop;
            connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
            loop.exec();
            delete reply;
        };
        run("PROPFIND", proxy.url("/qtresend/a"), QByteArray()); // a kept-alive connection
        proxy.swallowResponse("MOVE");
        const qsizetype from = logMark(f);
        run("MOVE", proxy.url("/qtresend/a"), proxy.url("/qtresend/b").toEncoded());
        const int moves = countMethod(linesSince(f, from), "MOVE");
        qInfo("Qt %s without the guard: the server saw %d MOVE(s)", qVersion(), moves);
#if QT_VERSION < QT_VERSION_CHECK(6, 5, 0)
        QCOMPARE(moves, 2);
#endif
    }
};

QTEST_GUILESS_MAIN(HttpClientTest)
#include "httpclienttest.moc"
