// SPDX-License-Identifier: LGPL-2.1-or-later
#include "jobrunner.h"

#include <QTimer>

namespace QvfsTest
{

void runToResult(Qvfs::Job *job, int timeoutMs)
{
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, job, [job, timeoutMs] {
        if (job->kill(Qvfs::Job::EmitResult))
            qWarning("%s did not end within %d ms: killed", job->metaObject()->className(), timeoutMs);
    });
    timer.start(timeoutMs);
    job->exec();
}

Listing collect(Qvfs::ListJob *job, int timeoutMs)
{
    Listing l;
    job->setAutoDelete(false);
    QObject::connect(job, &Qvfs::ListJob::entries, job, [&l](Qvfs::ListJob *, const Qvfs::EntryList &list) {
        for (const Qvfs::Entry &e : list) {
            l.entries.insert(e.name().toByteArray(), e);
            ++l.count;
        }
    });
    runToResult(job, timeoutMs);
    l.error = job->error();
    l.errorString = job->errorString();
    l.errorArgs = job->errorArgs();
    delete job;
    return l;
}

} // namespace QvfsTest
