// SPDX-License-Identifier: LGPL-2.1-or-later
// Helper of faulttest: an application that dies in the middle of a copy.
//
//   faultapp SRC DESTDIR
//
// Starts Qvfs::copy(SRC, DESTDIR). Once the first bytes are reported it prints
//   worker <pid>      for each child process it has (the copying worker)
//   started
// and carries on until faulttest SIGKILLs it. Should the copy end first it prints
//   result <code>
// and exits. Paths are taken as raw bytes (never through QCoreApplication::arguments()).

#include <Qvfs/CopyJob>
#include <Qvfs/Job>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QDir>
#include <QFile>

#include "procutil.h"

#include <cstdio>
#include <unistd.h>

namespace
{
} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: faultapp SRC DESTDIR\n");
        return 2;
    }
    const QByteArray src(argv[1]);
    const QByteArray dest(argv[2]);
    QCoreApplication app(argc, argv);
    Qvfs::CopyJob *job = Qvfs::copy(Qvfs::Url::fromLocalPath(src), Qvfs::Url::fromLocalPath(dest));
    bool announced = false;
    QObject::connect(
        job, &Qvfs::Job::processedAmountChanged, &app, [&announced](Qvfs::Job *, Qvfs::Job::Unit unit, qint64 amount) {
            if (announced || unit != Qvfs::Job::Bytes || amount <= 0)
                return;
            announced = true;
            for (qint64 pid : ProcUtil::childPids())
                std::printf("worker %lld\n", static_cast<long long>(pid));
            std::printf("started\n");
            std::fflush(stdout);
        });
    QObject::connect(job, &Qvfs::Job::result, &app, [](Qvfs::Job *j) {
        std::printf("result %d\n", j->error());
        std::fflush(stdout);
        QCoreApplication::exit(j->error() ? 1 : 0);
    });
    return app.exec();
}
