// SPDX-License-Identifier: LGPL-2.1-or-later
// s3_benchmark [--runs N] [--size MIB] [--entries N]: the s3 worker beside rclone, measured
// in one run against a real Ceph radosgw on 127.0.0.1 (autotests/testutil/rgwfixture.h: a
// throwaway single-node cluster and user), the workloads interleaved with their baselines,
// medians printed. Never asserts a time.
//
// Figures (the s3 issue's bars in brackets):
//   list a 10,000-key prefix, kept: a new worker beside `rclone lsf` (a new process)
//     [≤ 1.0×], and the HEAD requests radosgw logged during the worker's listings [0]
//   put 256 MiB (CopyJob file → s3, multipart) beside `rclone copyto`  [≥ 1.0× throughput]
//     and the worker's peak RSS meanwhile [≤ 64 MB]
//   get 256 MiB (CopyJob s3 → file) beside `rclone cat` into a file   [≥ 1.0× throughput]
//   copy 256 MiB inside the endpoint (CopyJob s3 → s3: CopyObject) beside a get and a put
//     through the worker                                                [≤ 0.2×]
//   1,000 sequential stat jobs on a warm worker                          [≥ 1,000/s]
//     beside curl making the same 1,000 signed HEADs on one connection (the server's pace)
//
// rclone is configured through its environment only (RCLONE_CONFIG=/dev/null, a remote
// "qv" of type s3, provider Ceph, path-style), without any AWS_* variable (rclone 1.60 fails
// on AWS_CA_BUNDLE). Needs radosgw, the Ceph daemons and rclone (scripts/setup.sh --test);
// prints "s3_benchmark: skipped: ..." and exits 0 otherwise. Run by tests/s3_bench.sh.
#include "benchutil.h"
#include "bigfile.h"
#include "rgwfixture.h"
#include "s3keys.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTemporaryFile>

#include <cstdio>
#include <unistd.h>

namespace
{

using QvfsBench::children;
using QvfsBench::median;
using QvfsBench::peakRssKb;
using QvfsTest::RgwFixture;

constexpr const char *Bucket = "bench";

class Bench
{
public:
    explicit Bench(const QvfsBench::RemoteOptions &o)
        : m_o(o)
    { }
    ~Bench() { Qvfs::shutdownIdleWorkers(); }

    bool setUp(QString *why);
    void run();

private:
    QUrl url(const QByteArray &rel) const
    {
        QUrl root;
        root.setScheme(QStringLiteral("s3+http"));
        root.setUserName(QString::fromLatin1(m_rgw.accessKey()));
        root.setPassword(QString::fromLatin1(m_rgw.secretKey()));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(m_rgw.port());
        root.setPath(QStringLiteral("/") + QLatin1String(Bucket));
        return rel.isEmpty() ? root : Qvfs::Url::child(root, rel);
    }
    QByteArray localPath(const char *name) const { return m_localDir + '/' + name; }
    QUrl local(const char *name) const { return Qvfs::Url::fromLocalPath(localPath(name)); }
    void freshWorkers()
    {
        for (int i = 0; i < 500; ++i) {
            Qvfs::shutdownIdleWorkers();
            QCoreApplication::processEvents();
            if (children("/qvfs-worker-s3").isEmpty() && children("/qvfs-worker-file").isEmpty())
                break;
            ::usleep(10000);
        }
    }
    /*! rclone with \a args (output to \a out when given, else dropped); wall milliseconds, -1 on failure. */
    double rclone(const QStringList &args, const QString &out = QString());
    double timeJob(Qvfs::Job *job, const char *what) { return QvfsBench::timeJob(job, "s3_benchmark", what); }
    qint64 workerPeak() const
    {
        qint64 peak = -1;
        for (qint64 pid : children("/qvfs-worker-s3"))
            peak = qMax(peak, peakRssKb(pid));
        return peak;
    }
    /*! The access lines radosgw logged from \a mark on that start with \a method. */
    int requestsSince(qsizetype mark, const QByteArray &method)
    {
        ::usleep(1000000); // radosgw writes its log from a thread of its own
        int n = 0;
        for (const QByteArray &line : m_rgw.rgwLog().mid(mark).split('\n')) {
            if (line.contains("beast: ") && line.contains(QByteArray('"' + method + ' ')))
                ++n;
        }
        return n;
    }

    QvfsBench::RemoteOptions m_o;
    RgwFixture m_rgw;
    std::unique_ptr<QTemporaryDir> m_local;
    QByteArray m_localDir;
    QString m_rclone;
};

double Bench::rclone(const QStringList &args, const QString &out)
{
    QProcess p;
    QProcessEnvironment env;
    for (const char *keep : { "PATH", "HOME", "TMPDIR" }) {
        if (qEnvironmentVariableIsSet(keep))
            env.insert(QLatin1String(keep), qEnvironmentVariable(keep));
    }
    env.insert(QStringLiteral("RCLONE_CONFIG"), QStringLiteral("/dev/null"));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_TYPE"), QStringLiteral("s3"));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_PROVIDER"), QStringLiteral("Ceph"));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_ENDPOINT"), QString::fromLatin1(m_rgw.endpoint()));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_ACCESS_KEY_ID"), QString::fromLatin1(m_rgw.accessKey()));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_SECRET_ACCESS_KEY"), QString::fromLatin1(m_rgw.secretKey()));
    env.insert(QStringLiteral("RCLONE_CONFIG_QV_FORCE_PATH_STYLE"), QStringLiteral("true"));
    p.setProcessEnvironment(env);
    p.setStandardOutputFile(out.isEmpty() ? QStringLiteral("/dev/null") : out);
    QElapsedTimer t;
    t.start();
    p.start(m_rclone, args);
    if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        std::fprintf(stderr, "s3_benchmark: rclone %s failed: %s\n", qPrintable(args.join(u' ')),
            p.readAllStandardError().constData());
        return -1;
    }
    return double(t.nsecsElapsed()) / 1e6;
}

bool Bench::setUp(QString *why)
{
    m_rclone = QStandardPaths::findExecutable(QStringLiteral("rclone"));
    if (m_rclone.isEmpty()) {
        *why = QStringLiteral("rclone is missing (scripts/setup.sh --test installs it)");
        return false;
    }
    if (!RgwFixture::available(why) || !m_rgw.start(why))
        return false;
    m_local = std::make_unique<QTemporaryDir>();
    m_localDir = QFile::encodeName(m_local->path());
    if (m_rgw.curl("PUT", QByteArray("/") + Bucket) != 200) {
        *why = QStringLiteral("cannot make the bucket");
        return false;
    }
    QUrl bucket = url({});
    bucket.setUserInfo(QString());
    QElapsedTimer made;
    made.start();
    const int failed = QvfsTest::putObjectsInParallel(
        bucket, m_rgw.accessKey(), m_rgw.secretKey(), m_o.entries,
        [](int i) -> QByteArray { return "many/f" + QByteArray::number(i).rightJustified(5, '0') + ".txt"; },
        [](int i) -> QByteArray { return QByteArray::number(i); });
    if (failed) {
        *why = QStringLiteral("%1 of the keys could not be made").arg(failed);
        return false;
    }
    std::fprintf(stderr, "s3_benchmark: %d keys made in %.1f s\n", m_o.entries, double(made.elapsed()) / 1000);
    if (!QvfsTest::makeRandomFile(localPath("big.bin"), m_o.sizeMiB * 1024 * 1024, 256)) {
        *why = QStringLiteral("cannot make the local file");
        return false;
    }
    return true;
}

void Bench::run()
{
    QList<double> list, rcloneList, up, rcloneUp, down, rcloneDown, inside, throughWorker, stats, curlStats;
    int heads = 0;
    qint64 rssUp = -1;
    const QString remote = QStringLiteral("qv:") + QLatin1String(Bucket);
    for (int r = 0; r < m_o.runs; ++r) {
        // list, kept: a new worker each time, as rclone is a new process
        freshWorkers();
        const qsizetype mark = m_rgw.rgwLog().size();
        int count = 0;
        Qvfs::ListJob *job = Qvfs::listDir(url("many"));
        QObject::connect(job, &Qvfs::ListJob::entries, job,
            [&count](Qvfs::ListJob *, const Qvfs::EntryList &l) { count += int(l.size()); });
        list.append(timeJob(job, "list"));
        heads += requestsSince(mark, "HEAD");
        if (count != m_o.entries)
            std::fprintf(stderr, "s3_benchmark: listed %d entries, not %d\n", count, m_o.entries);
        rcloneList.append(rclone({ QStringLiteral("lsf"), remote + QStringLiteral("/many/") }));

        // put
        freshWorkers();
        // new names each run: rclone skips a copy onto an identical object
        const QByteArray upName = "up-" + QByteArray::number(r) + ".bin";
        up.append(timeJob(Qvfs::copyAs(local("big.bin"), url(upName)), "put"));
        rssUp = qMax(rssUp, workerPeak());
        rcloneUp.append(rclone({ QStringLiteral("copyto"), QString::fromLocal8Bit(localPath("big.bin")),
            remote + QStringLiteral("/up-rclone-%1.bin").arg(r) }));

        // get
        ::unlink(localPath("down.bin").constData());
        down.append(timeJob(Qvfs::copyAs(url(upName), local("down.bin")), "get"));
        ::unlink(localPath("down.bin").constData());
        rcloneDown.append(rclone({ QStringLiteral("cat"), remote + QStringLiteral("/up-rclone-%1.bin").arg(r) },
            QString::fromLocal8Bit(localPath("down.bin"))));
        ::unlink(localPath("down.bin").constData());

        // copy inside the endpoint, beside a get and a put through the worker
        const QByteArray name = "copy-" + QByteArray::number(r) + ".bin";
        inside.append(timeJob(Qvfs::copyAs(url(upName), url(name)), "copy inside"));
        throughWorker.append(down.constLast() + up.constLast());

        // stats on a warm worker
        (void)timeJob(Qvfs::stat(url(upName)), "warm-up stat");
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < 1000; ++i) {
            if (timeJob(Qvfs::stat(url(upName)), "stat") < 0)
                break;
        }
        stats.append(1000.0 * 1000.0 / double(t.elapsed()));
        // the server's own pace beside it: curl, one process, the same 1,000 signed HEADs
        // on one kept-alive connection (the URL given here and 999 more from a file)
        QTemporaryFile more;
        if (more.open()) {
            const QByteArray line = "url = \"" + m_rgw.endpoint() + '/' + Bucket + '/' + upName + "\"\n";
            for (int i = 1; i < 1000; ++i)
                more.write(line);
            more.flush();
            t.restart();
            if (m_rgw.curl("HEAD", QByteArray("/") + Bucket + '/' + upName, nullptr, {},
                    { QStringLiteral("-I"), QStringLiteral("-K"), more.fileName() })
                == 200)
                curlStats.append(1000.0 * 1000.0 / double(t.elapsed()));
        }
        std::fprintf(stderr, "s3_benchmark: run %d of %d done\n", r + 1, m_o.runs);
    }
    const double mib = double(m_o.sizeMiB);
    std::printf("s3 benchmark: %d runs, medians; %d keys, %lld MiB, radosgw (memstore) on 127.0.0.1\n", m_o.runs,
        m_o.entries, m_o.sizeMiB);
    std::printf("%-44s %10s %12s %7s  %s\n", "figure", "qvfs", "baseline", "ratio", "bar");
    // Times side by side; the ratio is ours over theirs for times, theirs over ours (our
    // throughput over theirs) for transfers.
    enum class Bar { TimeAtMost, ThroughputAtLeast };
    const auto row = [](const char *name, double ours, double theirs, double bar, Bar kind) {
        const bool time = kind == Bar::TimeAtMost;
        const double ratio = ours > 0 && theirs > 0 ? (time ? ours / theirs : theirs / ours) : -1;
        const bool met = time ? ratio <= bar : ratio >= bar;
        std::printf("%-44s %7.0f ms %9.0f ms %6.2fx  %s %.2fx %s\n", name, ours, theirs, ratio, time ? "<=" : ">=", bar,
            ratio < 0 ? "n/a"
                : met ? "met"
                      : "MISSED");
    };
    row("list 10,000 keys (new worker), kept", median(list), median(rcloneList), 1.0, Bar::TimeAtMost);
    std::printf("%-44s %10d %12s %7s  == 0 %s\n", "HEAD requests during the listings", heads, "-", "",
        heads == 0 ? "met" : "MISSED");
    row("put 256 MiB multipart (throughput ratio)", median(up), median(rcloneUp), 1.0, Bar::ThroughputAtLeast);
    std::printf("%-44s %7.1f MB %12s %7s  <= 64 MB %s\n", "s3 worker peak RSS during the puts", double(rssUp) / 1024.0,
        "-", "", rssUp > 0 && rssUp <= 64 * 1024 ? "met" : "MISSED");
    row("get 256 MiB (throughput ratio)", median(down), median(rcloneDown), 1.0, Bar::ThroughputAtLeast);
    row("copy inside the endpoint (vs get + put)", median(inside), median(throughWorker), 0.2, Bar::TimeAtMost);
    const double perSecond = median(stats);
    const double curlPerSecond = curlStats.isEmpty() ? -1 : median(curlStats);
    std::printf("%-44s %7.0f /s %9.0f /s %6.2fx  >= 1000/s %s\n", "1,000 sequential stats, warm (vs curl)", perSecond,
        curlPerSecond, curlPerSecond > 0 ? perSecond / curlPerSecond : -1, perSecond >= 1000 ? "met" : "MISSED");
    std::printf("throughput MB/s: put %.0f (rclone %.0f), get %.0f (rclone %.0f)\n", mib * 1000 / median(up),
        mib * 1000 / median(rcloneUp), mib * 1000 / median(down), mib * 1000 / median(rcloneDown));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QvfsBench::RemoteOptions o;
    o.runs = 3;
    o.sizeMiB = 256;
    if (!QvfsBench::parseRemoteOptions(argc, argv, "s3_benchmark", &o))
        return 2;
    Bench bench(o);
    QString why;
    if (!bench.setUp(&why)) {
        std::printf("s3_benchmark: skipped: %s\n", qPrintable(why));
        return 0;
    }
    bench.run();
    return 0;
}
