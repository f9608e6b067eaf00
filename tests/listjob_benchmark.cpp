// SPDX-License-Identifier: LGPL-2.1-or-later
// listjob_benchmark: lists a folder with ListJob the way a file manager does, keeping every
// entry, and prints one line of figures for tests/bench.sh:
//   entries wall_ms (from main, worker start included) first_batch_ms app_peak_rss_kb
//   worker_peak_rss_kb worker_cpu_ms app_allocs_per_entry app_heap_bytes_per_entry
//   worker_allocs_per_entry (with --worker-allocs) wire_bytes_per_entry
#include "alloccount.h"
#include "procutil.h"

#include <Qvfs/ListJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

namespace
{

struct ProcFigures
{
    qint64 peakRssKb = -1;
    qint64 cpuMs = -1;
};

ProcFigures procFigures(qint64 pid)
{
    ProcFigures r;
    const QByteArray status = ProcUtil::readProcFile(QByteArray("/proc/" + QByteArray::number(pid) + "/status"));
    for (const QByteArray &line : status.split('\n')) {
        if (line.startsWith("VmHWM:"))
            r.peakRssKb = line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    const qint64 ticks = ProcUtil::cpuTicks(pid);
    if (ticks >= 0)
        r.cpuMs = ticks * 1000 / sysconf(_SC_CLK_TCK);
    return r;
}

struct RunResult
{
    qint64 entries = 0;
    double firstBatchMs = -1;
    double doneMs = 0;
    qint64 wireBytes = 0;
    int error = 0;
    QString errorString;
};

RunResult listOnce(
    const QUrl &url, bool recursive, Qvfs::Details details, Qvfs::EntryList *keep, const QElapsedTimer &clock)
{
    RunResult r;
    Qvfs::ListJob *job = recursive ? Qvfs::listRecursive(url, details) : Qvfs::listDir(url, details);
    job->setAutoDelete(false);
    QObject::connect(job, &Qvfs::ListJob::entries, job, [&](Qvfs::ListJob *, const Qvfs::EntryList &list) {
        if (r.firstBatchMs < 0)
            r.firstBatchMs = double(clock.nsecsElapsed()) / 1e6;
        r.entries += list.size();
        if (keep)
            keep->append(list);
    });
    job->exec();
    r.doneMs = double(clock.nsecsElapsed()) / 1e6;
    r.error = job->error();
    r.errorString = job->errorString();
    r.wireBytes = job->metaData().number("wire-bytes");
    delete job;
    return r;
}

qint64 readCount(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return f.readAll().trimmed().toLongLong();
}

} // namespace

int main(int argc, char **argv)
{
    QElapsedTimer clock;
    clock.start();
    bool recursive = false;
    bool workerAllocs = false;
    Qvfs::Details details = Qvfs::DetailsFull;
    QByteArray target;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--recursive")) {
            recursive = true;
        } else if (!std::strcmp(argv[i], "--worker-allocs")) {
            workerAllocs = true;
        } else if (!std::strcmp(argv[i], "--details") && i + 1 < argc) {
            ++i;
            details = !std::strcmp(argv[i], "basic") ? Qvfs::Details(Qvfs::DetailBasic) : Qvfs::DetailsFull;
        } else {
            target = argv[i];
        }
    }
    if (target.isEmpty()) {
        std::fprintf(stderr, "usage: listjob_benchmark [--recursive] [--details basic|full] [--worker-allocs] URL|PATH\n");
        return 2;
    }
    char cwd[4096];
    const QUrl url = Qvfs::Url::fromUserInput(target, getcwd(cwd, sizeof cwd) ? QByteArrayView(cwd) : "/");

    // With --worker-allocs every worker runs under a counting LD_PRELOAD library; an empty
    // listing by its own worker gives the fixed cost to subtract.
    QTemporaryDir tmp;
    const QString countFile = tmp.path() + QStringLiteral("/allocs");
    if (workerAllocs) {
        qputenv("QVFS_WORKER_PREFIX",
            QByteArray("env LD_PRELOAD=" QVFS_ALLOC_PRELOAD " QVFS_ALLOC_OUT=") + QFile::encodeName(countFile));
    }
    QCoreApplication app(argc, argv);
    Qvfs::prestartWorker(url);

    qint64 emptyAllocs = -1;
    if (workerAllocs) {
        const QString empty = tmp.path() + QStringLiteral("/empty");
        QDir().mkpath(empty);
        listOnce(Qvfs::Url::fromLocalPath(QFile::encodeName(empty)), recursive, details, nullptr, clock);
        Qvfs::shutdownIdleWorkers();
        emptyAllocs = readCount(countFile);
        clock.restart();
    }

    const AllocCount::Snapshot before = AllocCount::now();
    Qvfs::EntryList kept;
    kept.reserveSegments(1024);
    const RunResult r = listOnce(url, recursive, details, &kept, clock);
    const AllocCount::Snapshot after = AllocCount::now();
    if (r.error) {
        std::fprintf(stderr, "listjob_benchmark: %s\n", qPrintable(r.errorString));
        return 1;
    }
    ProcFigures worker;
    for (qint64 pid : ProcUtil::childPids()) {
        const ProcFigures f = procFigures(pid);
        worker.peakRssKb = qMax(worker.peakRssKb, f.peakRssKb);
        worker.cpuMs = qMax<qint64>(0, worker.cpuMs) + f.cpuMs;
    }
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    qint64 workerAllocCount = -1;
    if (workerAllocs) {
        Qvfs::shutdownIdleWorkers();
        workerAllocCount = readCount(countFile);
    }
    const double n = double(qMax<qint64>(r.entries, 1));
    std::printf("entries=%lld wall_ms=%.1f first_batch_ms=%.2f app_peak_rss_kb=%ld worker_peak_rss_kb=%lld "
                "worker_cpu_ms=%lld app_allocs_per_entry=%.4f app_heap_bytes_per_entry=%.1f",
        (long long)r.entries, r.doneMs, r.firstBatchMs, ru.ru_maxrss, (long long)worker.peakRssKb,
        (long long)worker.cpuMs, double(after.calls - before.calls) / n, double(after.inUse - before.inUse) / n);
    if (workerAllocCount >= 0 && emptyAllocs >= 0)
        std::printf(" worker_allocs_per_entry=%.4f", double(workerAllocCount - emptyAllocs) / n);
    std::printf(" wire_bytes_per_entry=%.1f\n", double(r.wireBytes) / n);
    // Keep the entries alive until here, as a file manager would.
    return kept.size() == r.entries ? 0 : 1;
}
