// SPDX-License-Identifier: LGPL-2.1-or-later
// stat_benchmark N PATH: N sequential stat jobs (each started after the previous result) in
// one application run, start-up and worker start included. With a folder, the files in
// it are stat'ed in turn. Prints: stats wall_ms per_second worker_starts, and the cost of
// starting the worker (worker_spawn_ms: fork and exec; the first job then waits for its
// hello: first_job_ms) beside the round trip of a
// trivial job on the warm worker (warm_roundtrip_us, the median of the others).
#include <Qvfs/Job>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    QElapsedTimer clock;
    clock.start();
    if (argc < 3) {
        std::fprintf(stderr, "usage: stat_benchmark N PATH\n");
        return 2;
    }
    const int n = std::atoi(argv[1]);
    char cwd[4096];
    const QUrl base = Qvfs::Url::fromUserInput(argv[2], getcwd(cwd, sizeof cwd) ? QByteArrayView(cwd) : "/");
    QList<QUrl> urls;
    if (DIR *d = opendir(argv[2])) {
        while (dirent *de = readdir(d)) {
            if (de->d_name[0] != '.')
                urls.append(Qvfs::Url::child(base, de->d_name));
        }
        closedir(d);
    }
    if (urls.isEmpty())
        urls.append(base);
    QCoreApplication app(argc, argv);
    const qint64 spawnStart = clock.nsecsElapsed();
    Qvfs::prestartWorker(base);
    const double spawnMs = double(clock.nsecsElapsed() - spawnStart) / 1e6;
    int failed = 0;
    QList<qint64> jobNs;
    jobNs.reserve(n);
    const double appReadyMs = double(clock.nsecsElapsed()) / 1e6;
    for (int i = 0; i < n; ++i) {
        const qint64 t0 = clock.nsecsElapsed();
        Qvfs::StatJob *job = Qvfs::stat(urls.at(i % urls.size()), Qvfs::DetailBasic);
        if (!job->exec()) {
            if (!failed++)
                std::fprintf(stderr, "stat_benchmark: %s\n", qPrintable(job->errorString()));
        }
        jobNs.append(clock.nsecsElapsed() - t0);
    }
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    const double firstMs = jobNs.isEmpty() ? 0 : double(jobNs.first()) / 1e6;
    QList<qint64> warm = jobNs.mid(1);
    std::sort(warm.begin(), warm.end());
    const double warmUs = warm.isEmpty() ? 0 : double(warm.at(warm.size() / 2)) / 1e3;
    std::printf("stats=%d wall_ms=%.1f per_second=%.0f worker_starts=%d app_ready_ms=%.1f worker_spawn_ms=%.2f "
                "first_job_ms=%.2f warm_roundtrip_us=%.1f\n",
        n, ms, n * 1000.0 / ms, Qvfs::workerStartCount(), appReadyMs, spawnMs, firstMs, warmUs);
    return failed ? 1 : 0;
}
