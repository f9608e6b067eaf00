// SPDX-License-Identifier: LGPL-2.1-or-later
#include "workerenv.h"
#include "procutil.h"

#include <Qvfs/Job>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTest>

namespace QvfsTest
{

WorkerEnv::WorkerEnv(const char *name, const QByteArray &value)
    : m_name(name)
{
    Qvfs::shutdownIdleWorkers();
    if (!value.isEmpty())
        qputenv(name, value);
}

WorkerEnv::~WorkerEnv()
{
    qunsetenv(m_name);
    Qvfs::shutdownIdleWorkers();
}

bool settleWorkers(int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        Qvfs::shutdownIdleWorkers();
        QCoreApplication::processEvents();
        if (ProcUtil::childPids().isEmpty())
            return true;
        if (t.elapsed() > timeoutMs)
            return false;
        QTest::qWait(10);
    }
}

bool settleWorkers(std::initializer_list<const char *> executables, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        Qvfs::shutdownIdleWorkers();
        QCoreApplication::processEvents();
        bool left = false;
        for (const char *exe : executables)
            left = left || !ProcUtil::childrenRunning(exe).isEmpty();
        if (!left)
            return true;
        if (t.elapsed() > timeoutMs)
            return false;
        QTest::qWait(10);
    }
}

} // namespace QvfsTest
