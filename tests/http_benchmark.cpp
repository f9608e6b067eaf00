// SPDX-License-Identifier: LGPL-2.1-or-later
// http_benchmark [--runs N] [--size MIB] [--entries N] [--stats N] [--delay-ms N]
// [--only get,put,slow,list,stats,delay,merge]: the
// http(s)/WebDAV worker beside curl (and rclone) in one run, against a real nginx with
// dav-ext on 127.0.0.1 (autotests/testutil/httpserverfixture.h: TLS and HTTP/2 on its
// https port), each workload interleaved with its baseline, medians printed with the
// ratio and issue 11's bar. It never asserts a time.
//
// Figures:
//   get 100 MiB http → file and https → file (a CopyJob: copyToFile by the worker, a new
//     worker each run) beside `curl -o` (a new process each run)         [≤ 1.3× curl]
//   put 100 MiB → WebDAV (CopyJob file → webdav://: copyFromFile) beside `curl -T`,
//     with the worker's peak RSS                                          [≤ 1.3×; ≤ 32 MB]
//   get 100 MiB with the application reading at 10 MB/s: worker and application RSS
//                                                                         [≤ 32 MB each]
//   list a 10,000-entry collection keeping the entries (a new worker) beside
//     `curl -X PROPFIND -H 'Depth: 1'` and `rclone lsf`                   [≤ 1.5× curl + 50 ms; < rclone]
//   1,000 sequential stats (PROPFIND Depth 0, one warm worker) beside one curl run over
//     the 1,000 URLs, with the TCP connections each used (nginx's log)   [≤ 2× curl; ≤ 2 connections]
//   the get and list rows through tests/delayproxy (a 20 ms round trip), when it is
//     built beside this program                                           [≤ 1.5× curl]
//   a 200 MiB folder moved into a collection holding one of its name (a merge): MOVE file
//     by file on the server (each keeps its inode), nothing through the application [< 1 s]
//
// Needs nginx with libnginx-mod-http-dav-ext, openssl and curl (rclone optional;
// scripts/setup.sh --test); prints "http_benchmark: skipped: ..." and exits 0 without.
// Run by tests/http_bench.sh.
#include "benchutil.h"
#include "httpserverfixture.h"

#include <Qvfs/AskDelegate>
#include <Qvfs/CopyJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/Question>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace
{

constexpr qint64 MiB = 1024 * 1024;

struct Options
{
    int runs = 5;
    qint64 sizeMiB = 100;
    int entries = 10000;
    int stats = 1000;
    int delayMs = 10; // per direction: a 20 ms round trip
    QStringList only; // workloads to run (get, put, slow, list, stats, delay, merge); empty: all
    bool wants(const char *what) const { return only.isEmpty() || only.contains(QLatin1String(what)); }
};

using QvfsBench::median;
using QvfsBench::statusKb;

bool makeFile(const QByteArray &path, qint64 size)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    QByteArray block(int(MiB), Qt::Uninitialized);
    quint64 x = 88172645463325252ULL;
    bool ok = true;
    for (qint64 off = 0; ok && off < size; off += MiB) {
        for (qsizetype i = 0; i + 8 <= block.size(); i += 8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::memcpy(block.data() + i, &x, 8);
        }
        const qint64 n = qMin(MiB, size - off);
        ok = ::write(fd, block.constData(), size_t(n)) == n;
    }
    return ::close(fd) == 0 && ok;
}

QList<qint64> httpWorkers()
{
    return QvfsBench::children("/qvfs-worker-http");
}

// The largest VmHWM of the http workers now running (KiB).
qint64 workerPeakKb()
{
    qint64 peak = -1;
    for (qint64 pid : httpWorkers())
        peak = qMax(peak, statusKb(pid, "VmHWM:"));
    return peak;
}

void settle()
{
    for (int i = 0; i < 500; ++i) {
        Qvfs::shutdownIdleWorkers();
        QCoreApplication::processEvents();
        if (httpWorkers().isEmpty())
            return;
        QThread::msleep(10);
    }
}

// Trusts the fixture's self-signed certificate for the worker's life.
class TrustOnce : public Qvfs::AskDelegate
{
public:
    void ask(Qvfs::Question *q) override
    {
        if (q->kind() == Qvfs::QuestionKind::Certificate)
            q->answerTrust(Qvfs::Trust::Once);
        else
            q->refuse();
    }
};

// Wall milliseconds of \a program \a args (-1 when it failed).
double timeProcess(const QString &program, const QStringList &args, QByteArray *out = nullptr)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    QElapsedTimer t;
    t.start();
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return -1;
    p.closeWriteChannel();
    if (!p.waitForFinished(300000))
        return -1;
    const double ms = t.nsecsElapsed() / 1e6;
    if (out)
        *out = p.readAllStandardOutput();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        std::fprintf(
            stderr, "http_benchmark: %s failed: %s\n", qPrintable(program), p.readAllStandardError().constData());
        return -1;
    }
    return ms;
}

template<typename J>
bool runJob(J *job)
{
    job->setAutoDelete(false);
    job->exec();
    const bool ok = job->error() == 0;
    if (!ok)
        std::fprintf(stderr, "http_benchmark: job failed: %s\n", qPrintable(job->errorString()));
    delete job;
    return ok;
}

struct Row
{
    QString figure;
    QString qvfs;
    QString baseline;
    QString ratio;
    QString bar;
};

QString ms(double v)
{
    return v < 0 ? QStringLiteral("failed") : QString::number(v, 'f', 1) + QStringLiteral(" ms");
}

QString ratioText(double a, double b)
{
    return a > 0 && b > 0 ? QString::number(a / b, 'f', 2) + QStringLiteral("x") : QStringLiteral("n/a");
}

class Bench
{
public:
    explicit Bench(const Options &o)
        : m_o(o)
        , m_nginx(HttpServerFixture::Server::Nginx)
    { }

    int run();

private:
    bool prepare(QString *why);
    QUrl http(const QByteArray &path) const { return m_nginx.url(path); }
    QUrl https(const QByteArray &path) const { return m_nginx.httpsUrl(path); }
    QUrl dav(const QByteArray &path, quint16 port = 0) const
    {
        return QUrl::fromEncoded("webdav://127.0.0.1:" + QByteArray::number(port ? port : m_nginx.port()) + path);
    }
    QUrl viaProxy(const QByteArray &path) const
    {
        return QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(m_proxyPort) + path);
    }
    bool startProxy();

    // one measured run of each workload (ms, -1 on failure)
    double qvfsGet(const QUrl &url, qint64 *peakKb = nullptr);
    double curlGet(const QUrl &url);
    double qvfsPut(qint64 *peakKb);
    double curlPut();
    double qvfsList(const QUrl &url, qint64 *entries);
    double qvfsListWarm(const QUrl &url);
    double curlList(const QUrl &url);
    double rcloneList();
    double qvfsStats(int *connections);
    double curlStats(int *connections);
    void slowReader(qint64 *workerKb, qint64 *appKb, double *msOut);
    /*! The merge figure: \a ms of each run, how many were renames on the server, the most read here. */
    void mergeMove(QList<double> *ms, int *renamed, qint64 *throughApp);

    Options m_o;
    HttpServerFixture m_nginx;
    QTemporaryDir m_tmp { QStringLiteral("/dev/shm/qvfs-http-bench-XXXXXX") };
    QByteArray m_local;
    QByteArray m_bigLocal;
    QByteArray m_body;
    QString m_rclone;
    QString m_rcloneConfig;
    QProcess m_proxy;
    quint16 m_proxyPort = 0;
    TrustOnce m_trust;
    QList<Row> m_rows;
};

bool Bench::prepare(QString *why)
{
    if (!m_tmp.isValid()) {
        *why = QStringLiteral("no folder in /dev/shm");
        return false;
    }
    if (QStandardPaths::findExecutable(QStringLiteral("curl")).isEmpty()) {
        *why = QStringLiteral("curl is not installed (scripts/setup.sh --test)");
        return false;
    }
    if (!m_nginx.start()) {
        *why = m_nginx.errorString();
        return false;
    }
    // the worker records nothing in the real home
    qputenv("XDG_DATA_HOME", QFile::encodeName(m_tmp.path() + QStringLiteral("/data")));
    m_local = QFile::encodeName(m_tmp.path());
    m_bigLocal = m_local + "/big.bin";
    if (!makeFile(m_bigLocal, m_o.sizeMiB * MiB) || !makeFile(m_nginx.path("big.bin"), m_o.sizeMiB * MiB)
        || !m_nginx.makeDir("list") || !m_nginx.makeDir("up")) {
        *why = QStringLiteral("cannot make the data sets");
        return false;
    }
    for (int i = 0; i < m_o.entries; ++i) {
        if (!m_nginx.writeFile(QByteArray("list/entry-" + QByteArray::number(i)), QByteArray(i % 100, 'x'))) {
            *why = QStringLiteral("cannot make the listing");
            return false;
        }
    }
    m_body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><D:propfind xmlns:D=\"DAV:\"><D:prop><D:resourcetype/>"
             "<D:getcontentlength/><D:getlastmodified/><D:getcontenttype/><D:getetag/></D:prop></D:propfind>";
    m_rclone = QStandardPaths::findExecutable(QStringLiteral("rclone"));
    m_rcloneConfig = m_tmp.path() + QStringLiteral("/rclone.conf");
    QFile(m_rcloneConfig).open(QIODevice::WriteOnly);
    return true;
}

bool Bench::startProxy()
{
    const QString program = QCoreApplication::applicationDirPath() + QStringLiteral("/delayproxy");
    if (!QFile::exists(program))
        return false;
    m_proxy.setProgram(program);
    m_proxy.setArguments({ QStringLiteral("--to"), QString::number(m_nginx.port()), QStringLiteral("--delay-ms"),
        QString::number(m_o.delayMs) });
    m_proxy.start();
    if (!m_proxy.waitForStarted(5000) || !m_proxy.waitForReadyRead(5000))
        return false;
    const QByteArray line = m_proxy.readLine().trimmed();
    if (!line.startsWith("port "))
        return false;
    m_proxyPort = quint16(line.mid(5).toUInt());
    return m_proxyPort != 0;
}

double Bench::qvfsGet(const QUrl &url, qint64 *peakKb)
{
    settle();
    const QByteArray dst = m_local + "/got.bin";
    ::unlink(dst.constData());
    QElapsedTimer t;
    t.start();
    Qvfs::CopyJob *job = Qvfs::copyAs(url, Qvfs::Url::fromLocalPath(dst));
    job->setAskDelegate(&m_trust);
    job->setAutoDelete(false);
    job->exec();
    const double wall = t.nsecsElapsed() / 1e6;
    const bool ok = job->error() == 0;
    if (!ok)
        std::fprintf(stderr, "http_benchmark: get failed: %s\n", qPrintable(job->errorString()));
    delete job;
    if (peakKb)
        *peakKb = workerPeakKb();
    ::unlink(dst.constData());
    return ok ? wall : -1;
}

double Bench::curlGet(const QUrl &url)
{
    const QByteArray dst = m_local + "/curl.bin";
    QStringList args { QStringLiteral("-s"), QStringLiteral("-f"), QStringLiteral("-o"), QFile::decodeName(dst) };
    if (url.scheme() == QLatin1String("https"))
        args << QStringLiteral("--cacert") << m_nginx.caFile();
    args << url.toString();
    const double r = timeProcess(QStringLiteral("curl"), args);
    ::unlink(dst.constData());
    return r;
}

double Bench::qvfsPut(qint64 *peakKb)
{
    settle();
    ::unlink(m_nginx.path("up/q.bin").constData());
    QElapsedTimer t;
    t.start();
    const bool ok = runJob(Qvfs::copyAs(Qvfs::Url::fromLocalPath(m_bigLocal), dav("/up/q.bin")));
    const double wall = t.nsecsElapsed() / 1e6;
    *peakKb = workerPeakKb();
    return ok ? wall : -1;
}

double Bench::curlPut()
{
    ::unlink(m_nginx.path("up/c.bin").constData());
    return timeProcess(QStringLiteral("curl"),
        { QStringLiteral("-s"), QStringLiteral("-f"), QStringLiteral("-T"), QFile::decodeName(m_bigLocal),
            http("/up/c.bin").toString() });
}

double Bench::qvfsList(const QUrl &url, qint64 *entries)
{
    settle();
    QList<Qvfs::Entry> kept;
    kept.reserve(m_o.entries);
    QElapsedTimer t;
    t.start();
    Qvfs::ListJob *job = Qvfs::listDir(url);
    QObject::connect(job, &Qvfs::ListJob::entries, job, [&kept](Qvfs::ListJob *, const Qvfs::EntryList &list) {
        for (const Qvfs::Entry &e : list)
            kept.append(e);
    });
    const bool ok = runJob(job);
    const double wall = t.nsecsElapsed() / 1e6;
    *entries = kept.size();
    return ok ? wall : -1;
}

double Bench::qvfsListWarm(const QUrl &url)
{
    // no settle(): the worker of the listing before takes it
    qint64 n = 0;
    QList<Qvfs::Entry> kept;
    QElapsedTimer t;
    t.start();
    Qvfs::ListJob *job = Qvfs::listDir(url);
    QObject::connect(job, &Qvfs::ListJob::entries, job, [&kept](Qvfs::ListJob *, const Qvfs::EntryList &list) {
        for (const Qvfs::Entry &e : list)
            kept.append(e);
    });
    const bool ok = runJob(job);
    n = kept.size();
    return ok && n > 0 ? t.nsecsElapsed() / 1e6 : -1;
}

double Bench::curlList(const QUrl &url)
{
    return timeProcess(QStringLiteral("curl"),
        { QStringLiteral("-s"), QStringLiteral("-f"), QStringLiteral("-o"), QStringLiteral("/dev/null"),
            QStringLiteral("-X"), QStringLiteral("PROPFIND"), QStringLiteral("-H"), QStringLiteral("Depth: 1"),
            QStringLiteral("-H"), QStringLiteral("Content-Type: application/xml"), QStringLiteral("--data-binary"),
            QString::fromLatin1(m_body), url.toString() });
}

double Bench::rcloneList()
{
    if (m_rclone.isEmpty())
        return -1;
    return timeProcess(m_rclone,
        { QStringLiteral("--config"), m_rcloneConfig, QStringLiteral("lsf"), QStringLiteral("--webdav-url"),
            http("/").toString(), QStringLiteral(":webdav:list") });
}

int connectionsSince(const HttpServerFixture &fx, qsizetype from)
{
    QThread::msleep(100); // the last lines follow the answers
    QSet<QByteArray> seen;
    for (const QByteArray &l : fx.accessLog().mid(from))
        seen.insert(l.left(l.indexOf(' ')));
    return int(seen.size());
}

double Bench::qvfsStats(int *connections)
{
    // a warm worker: one stat first, not counted
    if (!runJob(Qvfs::stat(dav("/list/entry-0"))))
        return -1;
    const qsizetype mark = m_nginx.accessLog().size();
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < m_o.stats; ++i) {
        if (!runJob(Qvfs::stat(dav("/list/entry-" + QByteArray::number(i % m_o.entries)))))
            return -1;
    }
    const double wall = t.nsecsElapsed() / 1e6;
    *connections = connectionsSince(m_nginx, mark);
    return wall;
}

double Bench::curlStats(int *connections)
{
    QStringList args { QStringLiteral("-s"), QStringLiteral("-f"), QStringLiteral("-X"), QStringLiteral("PROPFIND"),
        QStringLiteral("-H"), QStringLiteral("Depth: 0"), QStringLiteral("-H"),
        QStringLiteral("Content-Type: application/xml"), QStringLiteral("--data-binary"), QString::fromLatin1(m_body) };
    for (int i = 0; i < m_o.stats; ++i) {
        args << QStringLiteral("-o") << QStringLiteral("/dev/null")
             << http("/list/entry-" + QByteArray::number(i % m_o.entries)).toString();
    }
    const qsizetype mark = m_nginx.accessLog().size();
    const double r = timeProcess(QStringLiteral("curl"), args);
    *connections = connectionsSince(m_nginx, mark);
    return r;
}

void Bench::slowReader(qint64 *workerKb, qint64 *appKb, double *msOut)
{
    settle();
    QFile clear(QStringLiteral("/proc/self/clear_refs"));
    if (clear.open(QIODevice::WriteOnly))
        clear.write("5"); // VmHWM from now on
    clear.close();
    const qint64 appBefore = statusKb(::getpid(), "VmRSS:");
    Qvfs::TransferJob *job = Qvfs::get(dav("/big.bin"));
    job->setAutoDelete(false);
    qint64 received = 0;
    QElapsedTimer clock;
    clock.start();
    QObject::connect(job, &Qvfs::TransferJob::data, job, [&](Qvfs::TransferJob *j, const QByteArray &d) {
        received += d.size();
        const qint64 dueMs = received / (10 * 1000); // 10 MB/s
        if (dueMs > clock.elapsed() + 20) {
            j->suspend();
            QTimer::singleShot(int(dueMs - clock.elapsed()), j, [j] { j->resume(); });
        }
    });
    job->exec();
    *msOut = job->error() == 0 && received == m_o.sizeMiB * MiB ? clock.nsecsElapsed() / 1e6 : -1;
    delete job;
    *workerKb = workerPeakKb();
    *appKb = statusKb(::getpid(), "VmHWM:") - appBefore;
}

void Bench::mergeMove(QList<double> *ms, int *renamed, qint64 *throughApp)
{
    QvfsBench::MergeTree tree;
    if (!tree.make(m_nginx.path("merge"), 20, 10 * MiB)) {
        std::fprintf(stderr, "http_benchmark: cannot make the merge tree\n");
        return;
    }
    for (int r = 0; r < m_o.runs; ++r) {
        m_nginx.chownToServer("merge"); // the server deletes the moved folder
        settle();
        const qint64 before = QvfsBench::bytesRead();
        *ms << QvfsBench::timeJob(Qvfs::move(dav("/merge/tree"), dav("/merge/dst")), "http_benchmark", "merge move");
        *throughApp = qMax(*throughApp, QvfsBench::bytesRead() - before);
        *renamed += tree.mergedByRename() ? 1 : 0;
        if (!tree.putBack())
            return;
    }
}

int Bench::run()
{
    QString why;
    if (!prepare(&why)) {
        std::printf("http_benchmark: skipped: %s\n", qPrintable(why));
        return 0;
    }
    const bool proxy = startProxy();
    std::printf("http_benchmark: nginx on 127.0.0.1 (%d, https %d), %d runs, %lld MiB, %d entries, %d stats%s\n",
        m_nginx.port(), m_nginx.httpsPort(), m_o.runs, m_o.sizeMiB, m_o.entries, m_o.stats,
        proxy ? qPrintable(QStringLiteral(", delayproxy %1 ms each way").arg(m_o.delayMs)) : ", no delayproxy");
    std::fflush(stdout);

    QList<double> listWarm;
    QList<double> getHttp, curlHttp, getHttps, curlHttps, put, curlT, list, curlL, rcl, getProxy, curlProxy, listProxy,
        curlListProxy;
    qint64 peakGet = -1, peakPut = -1, entries = 0;
    for (int r = 0; r < m_o.runs; ++r) {
        // interleaved, and the order flips every run
        const bool qvfsFirst = r % 2 == 0;
        auto pair = [&](QList<double> &a, const std::function<double()> &fa, QList<double> &b,
                        const std::function<double()> &fb) {
            if (qvfsFirst) {
                a << fa();
                b << fb();
            } else {
                b << fb();
                a << fa();
            }
        };
        qint64 pk = -1;
        if (m_o.wants("get")) {
            pair(
                getHttp, [&] { return qvfsGet(http("/big.bin"), &pk); }, curlHttp,
                [&] { return curlGet(http("/big.bin")); });
            peakGet = qMax(peakGet, pk);
            pair(
                getHttps, [&] { return qvfsGet(https("/big.bin"), &pk); }, curlHttps,
                [&] { return curlGet(https("/big.bin")); });
            peakGet = qMax(peakGet, pk);
        }
        if (m_o.wants("put")) {
            pair(
                put, [&] { return qvfsPut(&pk); }, curlT, [&] { return curlPut(); });
            peakPut = qMax(peakPut, pk);
        }
        if (m_o.wants("list")) {
            pair(
                list, [&] { return qvfsList(dav("/list"), &entries); }, curlL,
                [&] { return curlList(http("/list/")); });
            rcl << rcloneList();
            // the same listing again on the worker of the first: what start-up costs
            listWarm << qvfsListWarm(dav("/list"));
        }
        if (proxy && m_o.wants("delay")) {
            pair(
                getProxy, [&] { return qvfsGet(viaProxy("/big.bin")); }, curlProxy,
                [&] { return curlGet(viaProxy("/big.bin")); });
            pair(
                listProxy, [&] { return qvfsList(dav("/list", m_proxyPort), &entries); }, curlListProxy,
                [&] { return curlList(viaProxy("/list/")); });
        }
        std::fprintf(stderr, "http_benchmark: run %d of %d done\n", r + 1, m_o.runs);
    }
    settle();
    QList<double> stats, curlS;
    int statConnections = 0, curlConnections = 0;
    for (int r = 0; r < (m_o.wants("stats") ? 3 : 0); ++r) {
        stats << qvfsStats(&statConnections);
        curlS << curlStats(&curlConnections);
    }
    qint64 slowWorkerKb = -1, slowAppKb = -1;
    double slowMs = -1;
    if (m_o.wants("slow"))
        slowReader(&slowWorkerKb, &slowAppKb, &slowMs);
    QList<double> merge;
    int mergeRenamed = 0;
    qint64 mergeThroughApp = 0;
    if (m_o.wants("merge"))
        mergeMove(&merge, &mergeRenamed, &mergeThroughApp);
    settle();

    const QString mib = QString::number(m_o.sizeMiB) + QStringLiteral(" MiB");
    auto add = [&](const QString &figure, double q, double b, const QString &baseName, const QString &bar) {
        m_rows.append(Row { figure, ms(q), baseName + QLatin1Char(' ') + ms(b), ratioText(q, b), bar });
    };
    add(QStringLiteral("get ") + mib + QStringLiteral(" http -> file"), median(getHttp), median(curlHttp),
        QStringLiteral("curl -o"), QStringLiteral("<= 1.3x"));
    add(QStringLiteral("get ") + mib + QStringLiteral(" https -> file"), median(getHttps), median(curlHttps),
        QStringLiteral("curl -o"), QStringLiteral("<= 1.3x"));
    m_rows.append(Row { QStringLiteral("worker peak RSS during the gets"),
        QString::number(peakGet / 1024.0, 'f', 1) + QStringLiteral(" MB"), QString(), QString(),
        QStringLiteral("<= 32 MB") });
    add(QStringLiteral("put ") + mib + QStringLiteral(" -> WebDAV"), median(put), median(curlT),
        QStringLiteral("curl -T"), QStringLiteral("<= 1.3x"));
    m_rows.append(Row { QStringLiteral("worker peak RSS during the put"),
        QString::number(peakPut / 1024.0, 'f', 1) + QStringLiteral(" MB"), QString(), QString(),
        QStringLiteral("<= 32 MB") });
    m_rows.append(Row { QStringLiteral("get ") + mib + QStringLiteral(", app reading at 10 MB/s"),
        ms(slowMs) + QStringLiteral(", worker ") + QString::number(slowWorkerKb / 1024.0, 'f', 1)
            + QStringLiteral(" MB, app +") + QString::number(slowAppKb / 1024.0, 'f', 1) + QStringLiteral(" MB"),
        QString(), QString(), QStringLiteral("<= 32 MB each") });
    const double l = median(list), c = median(curlL), rc = median(rcl);
    add(QStringLiteral("list %1 entries (kept: %2)").arg(m_o.entries).arg(entries), l, c,
        QStringLiteral("curl PROPFIND"), QStringLiteral("<= 1.5x curl + 50 ms"));
    m_rows.last().ratio += QStringLiteral(" (bar: ") + ms(1.5 * c + 50) + QLatin1Char(')');
    m_rows.append(Row { QStringLiteral("  same list"), ms(l), QStringLiteral("rclone lsf ") + ms(rc), ratioText(l, rc),
        QStringLiteral("< 1x rclone") });
    m_rows.append(Row { QStringLiteral("  same list, warm worker"), ms(median(listWarm)),
        QStringLiteral("curl PROPFIND ") + ms(c), ratioText(median(listWarm), c), QString() });
    add(QStringLiteral("%1 sequential stats").arg(m_o.stats), median(stats), median(curlS), QStringLiteral("curl"),
        QStringLiteral("<= 2x; <= 2 conn."));
    m_rows.last().qvfs += QStringLiteral(", %1 conn.").arg(statConnections);
    m_rows.last().baseline += QStringLiteral(", %1 conn.").arg(curlConnections);
    if (proxy && m_o.wants("delay")) {
        add(QStringLiteral("get ") + mib + QStringLiteral(" http, 20 ms RTT"), median(getProxy), median(curlProxy),
            QStringLiteral("curl -o"), QStringLiteral("<= 1.5x"));
        add(QStringLiteral("list %1, 20 ms RTT").arg(m_o.entries), median(listProxy), median(curlListProxy),
            QStringLiteral("curl PROPFIND"), QStringLiteral("<= 1.5x"));
    } else if (m_o.wants("delay")) {
        m_rows.append(Row { QStringLiteral("get and list through a 20 ms RTT"), QStringLiteral("not run"),
            QStringLiteral("(tests/delayproxy is not built)"), QString(), QStringLiteral("<= 1.5x") });
    }
    if (m_o.wants("merge")) {
        m_rows.append(Row { QStringLiteral("move 200 MiB folder into one of its name"), ms(median(merge)),
            QStringLiteral("%1 of %2 renamed on the server").arg(mergeRenamed).arg(merge.size()),
            QStringLiteral("%1 bytes read here").arg(mergeThroughApp), QStringLiteral("< 1000 ms, no data moved") });
    }
    std::printf("\n%-40s %-34s %-30s %-26s %s\n", "figure", "qvfs (median)", "baseline (median)", "ratio", "bar");
    for (const Row &r : std::as_const(m_rows)) {
        std::printf("%-40s %-34s %-30s %-26s %s\n", qPrintable(r.figure), qPrintable(r.qvfs), qPrintable(r.baseline),
            qPrintable(r.ratio), qPrintable(r.bar));
    }
    if (proxy) {
        m_proxy.closeWriteChannel();
        m_proxy.terminate();
        m_proxy.waitForFinished(3000);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options o;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        const QString &a = args.at(i);
        const int v = args.at(i + 1).toInt();
        if (a == QLatin1String("--runs"))
            o.runs = qMax(1, v);
        else if (a == QLatin1String("--size"))
            o.sizeMiB = qMax(1, v);
        else if (a == QLatin1String("--entries"))
            o.entries = qMax(1, v);
        else if (a == QLatin1String("--stats"))
            o.stats = qMax(1, v);
        else if (a == QLatin1String("--delay-ms"))
            o.delayMs = qMax(0, v);
        else if (a == QLatin1String("--only"))
            o.only = args.at(i + 1).split(QLatin1Char(','));
    }
    Bench bench(o);
    return bench.run();
}
