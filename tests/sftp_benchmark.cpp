// SPDX-License-Identifier: LGPL-2.1-or-later
// sftp_benchmark [--runs N] [--size MIB] [--entries N] [--delay-ms N]: the sftp worker
// beside OpenSSH's own `sftp -b`, measured in one run against a real sshd on 127.0.0.1
// (autotests/testutil/sshdfixture.h: a throwaway server, key, agent and ssh_config), the
// workloads interleaved with their baselines, medians printed. Never asserts a time.
//
// Figures (issue 12's bars in brackets):
//   cold list of 10,000 entries: a new worker, connect + authenticate + list, beside
//     `sftp -b` running "ls -l" (a new process: connect + authenticate + list)  [≤ 1.2×]
//   warm re-list in the same worker                                   [≤ 0.3× the cold list]
//   download and upload of 100 MiB (CopyJob sftp→file and file→sftp, connection included)
//     beside `sftp -b` get / put, on loopback                          [≤ 1.2×]
//     and through tests/delayproxy with a 20 ms round trip              [≤ 1.3×]
//   1,000 sequential stat jobs on a warm worker                        [≥ 3,000/s]
//   the sftp worker's peak RSS (VmHWM) during the transfers             [≤ 48 MB]
//   a 200 MiB folder moved into a folder holding one of its name: renamed on the server,
//     file by file (each keeps its inode), nothing through the application  [< 1 s]
// Which copy strategy ran (by the sftp worker itself, or get → put through the
// application: told by the bytes this process read) is printed with the transfers.
//
// Needs root (sshd's privilege separation) and openssh-server/-client; prints
// "sftp_benchmark: skipped: ..." and exits 0 otherwise. Run by tests/sftp_bench.sh.
#include "benchutil.h"
#include "bigfile.h"
#include "sshdfixture.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/Protocol>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

constexpr int MergeFiles = 20; // the merge figure's folder: 20 files of 10 MiB
constexpr qint64 MergeFileBytes = 10 * 1024 * 1024;

using Options = QvfsBench::RemoteOptions;

using QvfsBench::bytesRead;
using QvfsBench::children;
using QvfsBench::median;
using QvfsBench::peakRssKb;

class Bench
{
public:
    explicit Bench(const Options &o)
        : m_o(o)
    { }
    ~Bench()
    {
        Qvfs::shutdownIdleWorkers();
        m_proxy.closeWriteChannel(); // the proxy ends with its standard input
        if (!m_proxy.waitForFinished(2000))
            m_proxy.kill();
        m_proxy.waitForFinished(1000);
    }

    bool setUp(QString *why);
    void run();

private:
    QUrl url(const QByteArray &path, int port) const
    {
        QUrl root;
        root.setScheme(QStringLiteral("sftp"));
        root.setUserName(QStringLiteral("root"));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(port);
        root.setPath(QStringLiteral("/"));
        return Qvfs::Url::child(root, path.mid(1));
    }
    /*! Ends the idle workers; the next ones connect and authenticate anew (no master). */
    void freshConnections()
    {
        for (int i = 0; i < 500; ++i) {
            Qvfs::shutdownIdleWorkers();
            QCoreApplication::processEvents();
            if (children("/qvfs-worker-sftp").isEmpty() && children("/qvfs-worker-file").isEmpty())
                break;
            ::usleep(10000);
        }
        qputenv("XDG_RUNTIME_DIR", m_sshd.newRuntimeDir());
    }
    /*! `sftp -b` with \a batch through \a port; wall milliseconds, -1 on failure. */
    double sftp(const QByteArray &batch, int port);
    /*! Runs \a job; wall milliseconds, -1 (and a message) on failure. */
    double timeJob(Qvfs::Job *job, const char *what);
    /*! The sftp workers' peak RSS so far (the largest), in KiB. */
    qint64 workerPeak() const
    {
        qint64 peak = -1;
        for (qint64 pid : children("/qvfs-worker-sftp"))
            peak = qMax(peak, peakRssKb(pid));
        return peak;
    }

    Options m_o;
    SshdFixture m_sshd;
    QByteArray m_config;
    QProcess m_proxy;
    int m_proxyPort = 0;
    std::unique_ptr<QTemporaryDir> m_local;
    QByteArray m_localDir;
};

bool Bench::setUp(QString *why)
{
    if (!SshdFixture::available(why) || !m_sshd.start(why))
        return false;
    m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    qputenv("HOME", m_sshd.dir());
    qputenv("QVFS_SSH_CONFIG", m_config);
    qputenv("SSH_AUTH_SOCK", m_sshd.agentSocket());
    qputenv("XDG_RUNTIME_DIR", m_sshd.newRuntimeDir());

    // The delay proxy, and its port in known_hosts as the same server.
    m_proxy.setProgram(QCoreApplication::applicationDirPath() + QStringLiteral("/delayproxy"));
    m_proxy.setArguments({ QStringLiteral("--to"), QString::number(m_sshd.port()), QStringLiteral("--delay-ms"),
        QString::number(m_o.delayMs) });
    m_proxy.start();
    if (!m_proxy.waitForStarted(5000) || !m_proxy.waitForReadyRead(5000)) {
        *why = QStringLiteral("delayproxy did not start");
        return false;
    }
    const QByteArray portLine = m_proxy.readLine().trimmed();
    m_proxyPort = portLine.startsWith("port ") ? portLine.mid(5).toInt() : 0;
    QFile known(QString::fromLocal8Bit(m_sshd.knownHostsPath()));
    if (!known.open(QIODevice::ReadWrite) || m_proxyPort <= 0) {
        *why = QStringLiteral("cannot set up the proxy");
        return false;
    }
    QByteArray line = known.readAll().trimmed();
    line = "[127.0.0.1]:" + QByteArray::number(m_proxyPort) + line.mid(line.indexOf(' ')) + '\n';
    known.write(line);
    known.close();

    // The data: a folder of entries and a big file on the server, a big file here.
    const QByteArray many = m_sshd.dataDir() + "/many";
    ::mkdir(many.constData(), 0755);
    for (int i = 0; i < m_o.entries; ++i) {
        const int fd = ::open(
            QByteArray(many + "/entry-" + QByteArray::number(i)).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            *why = QStringLiteral("cannot make the entries");
            return false;
        }
        ::close(fd);
    }
    m_local = std::make_unique<QTemporaryDir>(
        QString::fromLatin1(SshdFixture::baseDir()) + QStringLiteral("/qvfs-sftp-bench-XXXXXX"));
    m_localDir = QFile::encodeName(m_local->path());
    if (!QvfsTest::makeRandomFile(m_sshd.dataDir() + "/big", m_o.sizeMiB * 1024 * 1024, 12)
        || !QvfsTest::makeRandomFile(m_localDir + "/up.bin", m_o.sizeMiB * 1024 * 1024, 12)) {
        *why = QStringLiteral("cannot make the big files");
        return false;
    }
    return true;
}

double Bench::sftp(const QByteArray &batch, int port)
{
    const QByteArray batchFile = m_localDir + "/batch";
    QFile f(QString::fromLocal8Bit(batchFile));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return -1;
    f.write(batch);
    f.close();
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setProcessChannelMode(QProcess::SeparateChannels);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral("sftp"),
        { QStringLiteral("-F"), QString::fromLocal8Bit(m_config), QStringLiteral("-P"), QString::number(port),
            QStringLiteral("-b"), QString::fromLocal8Bit(batchFile), QStringLiteral("root@127.0.0.1") });
    if (!p.waitForFinished(300000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        std::fprintf(stderr, "sftp_benchmark: sftp -b failed: %s\n", p.readAllStandardError().constData());
        return -1;
    }
    return double(t.nsecsElapsed()) / 1e6;
}

double Bench::timeJob(Qvfs::Job *job, const char *what)
{
    return QvfsBench::timeJob(job, "sftp_benchmark", what);
}

void Bench::run()
{
    const QByteArray many = m_sshd.dataDir() + "/many";
    const QByteArray big = m_sshd.dataDir() + "/big";
    const int direct = m_sshd.port();
    QList<double> coldList, warmList, sftpList, stats;
    struct Transfer
    {
        QList<double> down, up, sftpDown, sftpUp;
        QList<double> warmDown, warmUp; // again at once on the connected workers
        qint64 downRss = -1, upRss = -1; // the sftp worker's peak, KiB
    };
    Transfer loop, proxy;
    qint64 rss = -1;
    qint64 downThroughApp = 0, upThroughApp = 0; // bytes this process read during the last transfer
    const auto removeLocal = [this](const char *name) { ::unlink(QByteArray(m_localDir + '/' + name).constData()); };
    const auto removeRemote
        = [this](const char *name) { ::unlink(QByteArray(m_sshd.dataDir() + '/' + name).constData()); };

    for (int r = 0; r < m_o.runs; ++r) {
        const bool sftpFirst = r % 2; // interleaved, alternating who goes first
        // ---- listing
        if (sftpFirst)
            sftpList << sftp("ls -l " + many + '\n', direct);
        freshConnections();
        int count = 0;
        Qvfs::ListJob *list = Qvfs::listDir(url(many, direct));
        QObject::connect(list, &Qvfs::ListJob::entries,
            [&count](Qvfs::ListJob *, const Qvfs::EntryList &e) { count += int(e.size()); });
        coldList << timeJob(list, "cold list");
        Qvfs::ListJob *again = Qvfs::listDir(url(many, direct));
        warmList << timeJob(again, "warm list");
        if (count != m_o.entries)
            std::fprintf(stderr, "sftp_benchmark: listed %d entries, not %d\n", count, m_o.entries);
        if (!sftpFirst)
            sftpList << sftp("ls -l " + many + '\n', direct);
        // ---- stats, warm worker
        {
            const QUrl u = url(big, direct);
            if (Qvfs::stat(u, Qvfs::DetailBasic)->exec()) {
                QElapsedTimer t;
                t.start();
                int ok = 0;
                for (int i = 0; i < 1000; ++i)
                    ok += Qvfs::stat(u, Qvfs::DetailBasic)->exec() ? 1 : 0;
                const double ms = double(t.nsecsElapsed()) / 1e6;
                stats << (ok == 1000 ? 1000.0 * 1000.0 / ms : -1);
            }
        }
        // ---- transfers, on loopback and through the proxy
        for (Transfer *tr : { &loop, &proxy }) {
            const int port = tr == &loop ? direct : m_proxyPort;
            const auto qvfsDown = [&] {
                freshConnections();
                const qint64 readBefore = bytesRead();
                tr->down << timeJob(
                    Qvfs::copyAs(url(big, port), Qvfs::Url::fromLocalPath(QByteArray(m_localDir + "/down"))),
                    "download");
                tr->downRss = qMax(tr->downRss, workerPeak());
                rss = qMax(rss, tr->downRss);
                downThroughApp = bytesRead() - readBefore;
                removeLocal("down");
                tr->warmDown << timeJob(
                    Qvfs::copyAs(url(big, port), Qvfs::Url::fromLocalPath(QByteArray(m_localDir + "/down"))),
                    "warm download");
                removeLocal("down");
            };
            const auto qvfsUp = [&] {
                freshConnections();
                const qint64 readBefore = bytesRead();
                tr->up << timeJob(Qvfs::copyAs(Qvfs::Url::fromLocalPath(QByteArray(m_localDir + "/up.bin")),
                                      url(m_sshd.dataDir() + "/up", port)),
                    "upload");
                tr->upRss = qMax(tr->upRss, workerPeak());
                rss = qMax(rss, tr->upRss);
                upThroughApp = bytesRead() - readBefore;
                removeRemote("up");
                tr->warmUp << timeJob(Qvfs::copyAs(Qvfs::Url::fromLocalPath(QByteArray(m_localDir + "/up.bin")),
                                          url(m_sshd.dataDir() + "/up", port)),
                    "warm upload");
                removeRemote("up");
            };
            const auto sftpDown = [&] {
                tr->sftpDown << sftp("get " + big + ' ' + m_localDir + "/down-sftp\n", port);
                removeLocal("down-sftp");
            };
            const auto sftpUp = [&] {
                tr->sftpUp << sftp("put " + m_localDir + "/up.bin " + m_sshd.dataDir() + "/up-sftp\n", port);
                removeRemote("up-sftp");
            };
            if (sftpFirst) {
                sftpDown();
                qvfsDown();
                sftpUp();
                qvfsUp();
            } else {
                qvfsDown();
                sftpDown();
                qvfsUp();
                sftpUp();
            }
        }
        std::fprintf(stderr, "sftp_benchmark: run %d of %d done\n", r + 1, m_o.runs);
    }
    // ---- a 200 MiB folder moved into a folder holding one of the same name (a merge)
    QList<double> merge;
    qint64 mergeThroughApp = 0;
    int mergeRenamed = 0;
    QvfsBench::MergeTree mergeTree;
    const QByteArray mergeRoot = m_sshd.dataDir() + "/merge";
    if (mergeTree.make(mergeRoot, MergeFiles, MergeFileBytes)) {
        for (int r = 0; r < m_o.runs; ++r) {
            const qint64 readBefore = bytesRead();
            merge << timeJob(
                Qvfs::move(url(mergeRoot + "/tree", direct), url(mergeRoot + "/dst", direct)), "merge move");
            mergeThroughApp = qMax(mergeThroughApp, bytesRead() - readBefore);
            mergeRenamed += mergeTree.mergedByRename() ? 1 : 0;
            if (!mergeTree.putBack())
                break;
        }
    }
    freshConnections();

    const qint64 size = m_o.sizeMiB * 1024 * 1024;
    const auto strategy = [size](qint64 throughApp) {
        return throughApp >= size ? "get → put through the application" : "by the sftp worker itself";
    };
    const double cold = median(coldList), warm = median(warmList), base = median(sftpList);
    std::printf("sftp benchmark: %d runs, medians; %d entries, %lld MiB, proxy %d ms each way (%d ms round trip)\n",
        m_o.runs, m_o.entries, m_o.sizeMiB, m_o.delayMs, 2 * m_o.delayMs);
    std::printf("download: %s; upload: %s\n", strategy(downThroughApp), strategy(upThroughApp));
    std::printf("%-44s %10s %10s %7s  %s\n", "figure", "qvfs", "sftp -b", "ratio", "bar");
    const auto row = [](const char *name, double q, double s, double bar) {
        const double ratio = s > 0 && q > 0 ? q / s : -1;
        std::printf("%-44s %8.0f ms %7.0f ms %6.2fx  <= %.1fx %s\n", name, q, s, ratio, bar,
            ratio < 0          ? "n/a"
                : ratio <= bar ? "met"
                               : "NOT met");
    };
    row("cold list (worker start, connect, auth, list)", cold, base, 1.2);
    std::printf("%-44s %8.0f ms %10s %6.2fx  <= 0.3x of cold %s\n", "warm re-list (same worker)", warm, "-",
        cold > 0 ? warm / cold : -1, cold > 0 && warm / cold <= 0.3 ? "met" : "NOT met");
    row("download, loopback", median(loop.down), median(loop.sftpDown), 1.2);
    row("upload, loopback", median(loop.up), median(loop.sftpUp), 1.2);
    row("download, 20 ms round trip", median(proxy.down), median(proxy.sftpDown), 1.3);
    row("upload, 20 ms round trip", median(proxy.up), median(proxy.sftpUp), 1.3);
    const double perSecond = median(stats);
    std::printf("%-44s %8.0f /s %10s %7s  >= 3000/s %s\n", "1,000 sequential stats, warm", perSecond, "-", "",
        perSecond >= 3000 ? "met" : "NOT met");
    std::printf("%-44s %8.1f MB %10s %7s  <= 48 MB %s\n", "sftp worker peak RSS during the transfers",
        double(rss) / 1024.0, "-", "", rss > 0 && rss <= 48 * 1024 ? "met" : "NOT met");
    std::printf("sftp worker peak RSS, MB: loopback down %.1f, up %.1f; proxy down %.1f, up %.1f\n",
        double(loop.downRss) / 1024, double(loop.upRss) / 1024, double(proxy.downRss) / 1024,
        double(proxy.upRss) / 1024);
    std::printf("warm transfers (connected worker), ms: loopback down %.0f, up %.0f; proxy down %.0f, up %.0f\n",
        median(loop.warmDown), median(loop.warmUp), median(proxy.warmDown), median(proxy.warmUp));
    std::printf("%-44s %8.0f ms %10s %7s  < 1000 ms, no data moved %s\n", "move 200 MiB folder into one of its name",
        median(merge), "-", "",
        median(merge) >= 0 && median(merge) < 1000 && mergeRenamed == merge.size() ? "met" : "NOT met");
    std::printf("  merge moves renamed on the server (every file kept its inode): %d of %d; read by the application: "
                "%lld bytes at most\n",
        mergeRenamed, int(merge.size()), mergeThroughApp);
    const double mib = double(m_o.sizeMiB);
    std::printf("throughput MB/s: loopback down %.0f (sftp %.0f), up %.0f (sftp %.0f); proxy down %.0f (sftp %.0f), "
                "up %.0f (sftp %.0f)\n",
        mib * 1000 / median(loop.down), mib * 1000 / median(loop.sftpDown), mib * 1000 / median(loop.up),
        mib * 1000 / median(loop.sftpUp), mib * 1000 / median(proxy.down), mib * 1000 / median(proxy.sftpDown),
        mib * 1000 / median(proxy.up), mib * 1000 / median(proxy.sftpUp));
    // One line for scripts.
    std::printf("cold_list_ms=%.0f sftp_list_ms=%.0f warm_list_ms=%.0f down_ms=%.0f sftp_down_ms=%.0f up_ms=%.0f "
                "sftp_up_ms=%.0f proxy_down_ms=%.0f proxy_sftp_down_ms=%.0f proxy_up_ms=%.0f proxy_sftp_up_ms=%.0f "
                "stats_per_s=%.0f worker_peak_rss_kb=%lld\n",
        cold, base, warm, median(loop.down), median(loop.sftpDown), median(loop.up), median(loop.sftpUp),
        median(proxy.down), median(proxy.sftpDown), median(proxy.up), median(proxy.sftpUp), perSecond, rss);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options o;
    o.runs = 5;
    o.sizeMiB = 100;
    if (!QvfsBench::parseRemoteOptions(argc, argv, "sftp_benchmark", &o))
        return 2;
    Bench bench(o);
    QString why;
    if (!bench.setUp(&why)) {
        std::printf("sftp_benchmark: skipped: %s\n", qPrintable(why));
        return 0;
    }
    bench.run();
    return 0;
}
