// SPDX-License-Identifier: LGPL-2.1-or-later
// stattest N PATH: N sequential stat jobs (each started after the previous result) in
// one application run, start-up and worker start included. With a folder, the files in
// it are stat'ed in turn. Prints: stats wall_ms per_second worker_starts.
#include <Qvfs/Job>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    QElapsedTimer clock;
    clock.start();
    if (argc < 3) {
        std::fprintf(stderr, "usage: stattest N PATH\n");
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
    Qvfs::prestartWorker(base);
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        Qvfs::StatJob *job = Qvfs::stat(urls.at(i % urls.size()), Qvfs::DetailBasic);
        if (!job->exec()) {
            if (!failed++)
                std::fprintf(stderr, "stattest: %s\n", qPrintable(job->errorString()));
        }
    }
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    std::printf("stats=%d wall_ms=%.1f per_second=%.0f worker_starts=%d\n", n, ms, n * 1000.0 / ms,
                Qvfs::workerStartCount());
    return failed ? 1 : 0;
}
