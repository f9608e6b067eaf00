// SPDX-License-Identifier: LGPL-2.1-or-later
// smb_benchmark [--runs N] [--size MIB] [--entries N] [--delay-ms N]: the smb worker beside
// Samba's own `smbclient`, measured in one run against a real smbd on 127.0.0.1
// (autotests/testutil/smbdfixture.h: a throwaway server, share and user), the workloads
// interleaved with their baselines, medians printed. Never asserts a time.
//
// Figures (the smb issue's bars in brackets):
//   list 10,000 entries, kept: a new worker (connect, log in, list) beside smbclient
//     -c 'ls' (a new process: connect, log in, list)                     [≤ 1.2×]
//   get 256 MiB → file (CopyJob smb → file) beside smbclient -c get,
//     on loopback [≤ 1.1×] and through tests/delayproxy's 20 ms round trip [≤ 1.25×]
//   put 256 MiB (CopyJob file → smb) beside smbclient -c put              [≤ 1.25×]
//   copy 256 MiB inside the share (CopyJob smb → smb: the server copies) beside a get
//     and a put through the client                                        [≤ 0.3×]
//   1,000 sequential stat jobs on a warm worker                            [≥ 2,000/s]
//   the smb worker's peak RSS (VmHWM) during the puts [≤ 48 MB], and during the gets
//
// Needs smbd and smbclient (scripts/setup.sh --test); prints "smb_benchmark: skipped:
// ..." and exits 0 otherwise. Run by tests/smb_bench.sh.
#include "benchutil.h"
#include "bigfile.h"
#include "smbdfixture.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <libsmbclient.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace
{

using QvfsBench::bytesRead;
using QvfsBench::children;
using QvfsBench::median;
using QvfsBench::peakRssKb;
using QvfsTest::SmbdFixture;

using Options = QvfsBench::RemoteOptions;

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
    QUrl url(const QByteArray &rel, int port) const
    {
        QUrl root;
        root.setScheme(QStringLiteral("smb"));
        root.setUserName(QString::fromUtf8(m_smbd.user()));
        root.setPassword(QString::fromUtf8(m_smbd.password()));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(port);
        root.setPath(QStringLiteral("/share/"));
        return rel.isEmpty() ? root : Qvfs::Url::child(root, rel);
    }
    QUrl local(const char *name) const { return Qvfs::Url::fromLocalPath(QByteArray(m_localDir + '/' + name)); }
    /*! Ends the idle workers: the next one connects and logs in anew. */
    void freshWorkers()
    {
        for (int i = 0; i < 500; ++i) {
            Qvfs::shutdownIdleWorkers();
            QCoreApplication::processEvents();
            if (children("/qvfs-worker-smb").isEmpty() && children("/qvfs-worker-file").isEmpty())
                break;
            ::usleep(10000);
        }
    }
    /*! smbclient with \a commands on the share through \a port; wall milliseconds, -1 on failure. */
    double smbclient(const QByteArray &commands, int port);
    /*!
     * 1,000 smbc_stat() of \a rel on one warm libsmbclient connection, in this process:
     * what the library itself manages, the stats' baseline. Stats a second; -1 on failure.
     */
    double libraryStats(const QByteArray &rel);
    /*! Runs \a job; wall milliseconds, -1 (and a message) on failure. */
    double timeJob(Qvfs::Job *job, const char *what);
    qint64 workerPeak() const
    {
        qint64 peak = -1;
        for (qint64 pid : children("/qvfs-worker-smb"))
            peak = qMax(peak, peakRssKb(pid));
        return peak;
    }
    void removeShared(const char *name) { ::unlink(QByteArray(m_smbd.sharePath() + '/' + name).constData()); }
    void removeLocal(const char *name) { ::unlink(QByteArray(m_localDir + '/' + name).constData()); }

    Options m_o;
    SmbdFixture m_smbd;
    QProcess m_proxy;
    int m_proxyPort = 0;
    std::unique_ptr<QTemporaryDir> m_local;
    QByteArray m_localDir;
    QByteArray m_authFile;
};

bool Bench::setUp(QString *why)
{
    // The share and the local files on tmpfs when there is room (the fixture's folder is
    // made under TMPDIR): disk writeback would make the figures noise.
    struct statfs fs;
    if (::statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC
        && quint64(fs.f_bavail) * quint64(fs.f_bsize) >= quint64(m_o.sizeMiB) * 6 * 1024 * 1024)
        qputenv("TMPDIR", "/dev/shm");
    if (!SmbdFixture::available(why) || !m_smbd.start(why))
        return false;
    qputenv("QVFS_SMB_CONF", m_smbd.configPath()); // the client settings of the fixture, not the machine's
    m_proxy.setProgram(QCoreApplication::applicationDirPath() + QStringLiteral("/delayproxy"));
    m_proxy.setArguments({ QStringLiteral("--to"), QString::number(m_smbd.port()), QStringLiteral("--delay-ms"),
        QString::number(m_o.delayMs) });
    m_proxy.start();
    if (!m_proxy.waitForStarted(5000) || !m_proxy.waitForReadyRead(5000)) {
        *why = QStringLiteral("delayproxy did not start");
        return false;
    }
    const QByteArray portLine = m_proxy.readLine().trimmed();
    m_proxyPort = portLine.startsWith("port ") ? portLine.mid(5).toInt() : 0;
    if (m_proxyPort <= 0) {
        *why = QStringLiteral("cannot set up the proxy");
        return false;
    }
    m_local = std::make_unique<QTemporaryDir>();
    m_localDir = QFile::encodeName(m_local->path());
    // smbclient reads the credentials from a file: never on its command line.
    m_authFile = m_localDir + "/auth";
    QFile auth(QString::fromLocal8Bit(m_authFile));
    if (!auth.open(QIODevice::WriteOnly)
        || auth.write("username = " + m_smbd.user() + "\npassword = " + m_smbd.password() + '\n') < 0) {
        *why = QStringLiteral("cannot write the credentials file");
        return false;
    }
    auth.close();

    // The data, behind the server's back: a folder of entries and a big file on the
    // share, a big file here.
    const QByteArray many = m_smbd.sharePath() + "/many";
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
    if (!QvfsTest::makeRandomFile(m_smbd.sharePath() + "/big", m_o.sizeMiB * 1024 * 1024, 12)
        || !QvfsTest::makeRandomFile(m_localDir + "/up.bin", m_o.sizeMiB * 1024 * 1024, 13)
        || !m_smbd.handOver(m_smbd.sharePath())) {
        *why = QStringLiteral("cannot make the data");
        return false;
    }
    return true;
}

double Bench::smbclient(const QByteArray &commands, int port)
{
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setWorkingDirectory(QString::fromLocal8Bit(m_localDir));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), QString::fromLocal8Bit(m_smbd.dir()));
    p.setProcessEnvironment(env);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral("smbclient"),
        { QStringLiteral("-s"), QString::fromLocal8Bit(m_smbd.configPath()), QStringLiteral("-p"),
            QString::number(port), QStringLiteral("-A"), QString::fromLocal8Bit(m_authFile),
            QStringLiteral("//127.0.0.1/share"), QStringLiteral("-c"), QString::fromLocal8Bit(commands) });
    if (!p.waitForFinished(300000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        std::fprintf(stderr, "smb_benchmark: smbclient failed: %s\n", p.readAllStandardError().constData());
        return -1;
    }
    return double(t.nsecsElapsed()) / 1e6;
}

namespace
{
QByteArray g_user, g_password;
void benchAuth(SMBCCTX *, const char *, const char *, char *, int, char *un, int unlen, char *pw, int pwlen)
{
    std::snprintf(un, size_t(unlen), "%s", g_user.constData());
    std::snprintf(pw, size_t(pwlen), "%s", g_password.constData());
}
} // namespace

double Bench::libraryStats(const QByteArray &rel)
{
    g_user = m_smbd.user();
    g_password = m_smbd.password();
    const QByteArray home = qgetenv("HOME");
    qputenv("HOME", m_smbd.dir()); // the fixture's client settings, as smbclient gets them
    SMBCCTX *ctx = smbc_new_context();
    smbc_setFunctionAuthDataWithContext(ctx, &benchAuth);
    smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
    smbc_setOptionUseKerberos(ctx, 0);
    smbc_setOptionFallbackAfterKerberos(ctx, 1);
    const bool ready = smbc_init_context(ctx) != nullptr;
    qputenv("HOME", home);
    if (!ready) {
        smbc_free_context(ctx, 1);
        return -1;
    }
    smbc_setConfiguration(ctx, m_smbd.configPath().constData());
    smbc_setPort(ctx, quint16(m_smbd.port()));
    const QByteArray target = "smb://127.0.0.1/share/" + rel;
    struct stat st;
    double rate = -1;
    if (smbc_getFunctionStat(ctx)(ctx, target.constData(), &st) == 0) {
        QElapsedTimer t;
        t.start();
        int ok = 0;
        for (int i = 0; i < 1000; ++i)
            ok += smbc_getFunctionStat(ctx)(ctx, target.constData(), &st) == 0 ? 1 : 0;
        rate = ok == 1000 ? 1000.0 * 1e9 / double(t.nsecsElapsed()) : -1;
    }
    smbc_free_context(ctx, 1);
    return rate;
}

double Bench::timeJob(Qvfs::Job *job, const char *what)
{
    return QvfsBench::timeJob(job, "smb_benchmark", what);
}

void Bench::run()
{
    const int direct = m_smbd.port();
    QList<double> list, clientList, stats, libStats, inside, clientInside;
    struct Transfer
    {
        QList<double> down, up, clientDown, clientUp;
    };
    Transfer loop, proxy;
    qint64 rssUp = -1, rssDown = -1;
    qint64 insideThroughApp = -1;
    for (int r = 0; r < m_o.runs; ++r) {
        const bool clientFirst = r % 2; // interleaved, alternating who goes first
        // ---- listing: a new worker, kept entries
        const auto clientLs = [&] { clientList << smbclient("cd many; ls", direct); };
        if (clientFirst)
            clientLs();
        freshWorkers();
        int count = 0;
        Qvfs::ListJob *job = Qvfs::listDir(url("many", direct));
        Qvfs::EntryList kept;
        QObject::connect(job, &Qvfs::ListJob::entries, [&](Qvfs::ListJob *, const Qvfs::EntryList &e) {
            count += int(e.size());
            kept += e;
        });
        list << timeJob(job, "list");
        if (count != m_o.entries)
            std::fprintf(stderr, "smb_benchmark: listed %d entries, not %d\n", count, m_o.entries);
        if (!clientFirst)
            clientLs();
        // ---- stats, warm worker
        {
            const QUrl u = url("big", direct);
            if (Qvfs::stat(u, Qvfs::DetailBasic)->exec()) {
                QElapsedTimer t;
                t.start();
                int ok = 0;
                for (int i = 0; i < 1000; ++i)
                    ok += Qvfs::stat(u, Qvfs::DetailBasic)->exec() ? 1 : 0;
                stats << (ok == 1000 ? 1000.0 * 1e9 / double(t.nsecsElapsed()) : -1);
            }
            libStats << libraryStats("big");
        }
        // ---- transfers, on loopback and through the proxy
        for (Transfer *tr : { &loop, &proxy }) {
            const int port = tr == &loop ? direct : m_proxyPort;
            const auto qvfsDown = [&] {
                freshWorkers();
                tr->down << timeJob(Qvfs::copyAs(url("big", port), local("down")), "get");
                rssDown = qMax(rssDown, workerPeak());
                removeLocal("down");
            };
            const auto qvfsUp = [&] {
                freshWorkers();
                tr->up << timeJob(Qvfs::copyAs(local("up.bin"), url("up", port)), "put");
                rssUp = qMax(rssUp, workerPeak());
                removeShared("up");
            };
            const auto clientDown = [&] {
                tr->clientDown << smbclient("get big down-client", port);
                removeLocal("down-client");
            };
            const auto clientUp = [&] {
                tr->clientUp << smbclient("put up.bin up-client", port);
                removeShared("up-client");
            };
            if (clientFirst) {
                clientDown();
                qvfsDown();
                clientUp();
                qvfsUp();
            } else {
                qvfsDown();
                clientDown();
                qvfsUp();
                clientUp();
            }
        }
        // ---- a copy inside the share, beside a get and a put through the client
        {
            const auto qvfsCopy = [&] {
                freshWorkers();
                const qint64 before = bytesRead();
                inside << timeJob(Qvfs::copyAs(url("big", direct), url("copy", direct)), "copy inside the share");
                insideThroughApp = bytesRead() - before;
                removeShared("copy");
            };
            const auto clientCopy = [&] {
                const double down = smbclient("get big through", direct);
                const double up = smbclient("put through copy-client", direct);
                clientInside << (down > 0 && up > 0 ? down + up : -1);
                removeLocal("through");
                removeShared("copy-client");
            };
            if (clientFirst) {
                clientCopy();
                qvfsCopy();
            } else {
                qvfsCopy();
                clientCopy();
            }
        }
        std::fprintf(stderr, "smb_benchmark: run %d of %d done\n", r + 1, m_o.runs);
    }
    freshWorkers();

    std::printf("smb benchmark: %d runs, medians; %d entries, %lld MiB, proxy %d ms each way (%d ms round trip)\n",
        m_o.runs, m_o.entries, m_o.sizeMiB, m_o.delayMs, 2 * m_o.delayMs);
    std::printf("copy inside the share: %lld bytes read by the application (%s)\n", insideThroughApp,
        insideThroughApp >= 0 && insideThroughApp < m_o.sizeMiB * 1024 * 1024 ? "the server copied"
                                                                              : "through the application");
    std::printf("%-44s %10s %12s %7s  %s\n", "figure", "qvfs", "smbclient", "ratio", "bar");
    const auto row = [](const char *name, double q, double s, double bar) {
        const double ratio = s > 0 && q > 0 ? q / s : -1;
        std::printf("%-44s %7.0f ms %9.0f ms %6.2fx  <= %.2fx %s\n", name, q, s, ratio, bar,
            ratio < 0          ? "n/a"
                : ratio <= bar ? "met"
                               : "NOT met");
    };
    row("list 10,000 entries (new worker), kept", median(list), median(clientList), 1.2);
    row("get, loopback", median(loop.down), median(loop.clientDown), 1.1);
    row("get, 20 ms round trip", median(proxy.down), median(proxy.clientDown), 1.25);
    row("put, loopback", median(loop.up), median(loop.clientUp), 1.25);
    row("put, 20 ms round trip", median(proxy.up), median(proxy.clientUp), 1.25);
    row("copy inside the share (vs get + put)", median(inside), median(clientInside), 0.3);
    const double perSecond = median(stats);
    std::printf("%-44s %7.0f /s %12s %7s  >= 2000/s %s\n", "1,000 sequential stats, warm", perSecond, "-", "",
        perSecond >= 2000 ? "met" : "NOT met");
    std::printf("%-44s %7.0f /s %12s %7s  (libsmbclient alone: 3 round trips a stat)\n",
        "  1,000 smbc_stat() on one warm connection", median(libStats), "-", "");
    std::printf("%-44s %7.1f MB %12s %7s  <= 48 MB %s\n", "smb worker peak RSS during the puts", double(rssUp) / 1024.0,
        "-", "", rssUp > 0 && rssUp <= 48 * 1024 ? "met" : "NOT met");
    std::printf("%-44s %7.1f MB %12s %7s  (8 MiB chunks, three connections)\n", "smb worker peak RSS during the gets",
        double(rssDown) / 1024.0, "-", "");
    const double mib = double(m_o.sizeMiB);
    std::printf("throughput MB/s: loopback get %.0f (smbclient %.0f), put %.0f (%.0f); proxy get %.0f (%.0f), put "
                "%.0f (%.0f)\n",
        mib * 1000 / median(loop.down), mib * 1000 / median(loop.clientDown), mib * 1000 / median(loop.up),
        mib * 1000 / median(loop.clientUp), mib * 1000 / median(proxy.down), mib * 1000 / median(proxy.clientDown),
        mib * 1000 / median(proxy.up), mib * 1000 / median(proxy.clientUp));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options o;
    o.runs = 3;
    o.sizeMiB = 256;
    if (!QvfsBench::parseRemoteOptions(argc, argv, "smb_benchmark", &o))
        return 2;
    Bench bench(o);
    QString why;
    if (!bench.setUp(&why)) {
        std::printf("smb_benchmark: skipped: %s\n", qPrintable(why));
        return 0;
    }
    bench.run();
    return 0;
}
