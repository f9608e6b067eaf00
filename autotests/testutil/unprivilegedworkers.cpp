// SPDX-License-Identifier: LGPL-2.1-or-later
#include "unprivilegedworkers.h"
#include "procutil.h"

#include <unistd.h>

namespace QvfsTest
{

UnprivilegedWorkers::UnprivilegedWorkers()
    : WorkerEnv("QVFS_WORKER_PREFIX", dropsPrivileges() ? prefix() : QByteArray())
{ }

bool UnprivilegedWorkers::dropsPrivileges()
{
    return ::geteuid() == 0;
}

QByteArray UnprivilegedWorkers::prefix()
{
    return QByteArrayLiteral("setpriv --reuid=65534 --regid=65534 --clear-groups");
}

bool UnprivilegedWorkers::allWorkersUnprivileged()
{
    const QList<qint64> pids = ProcUtil::childPids();
    if (pids.isEmpty())
        return false;
    for (qint64 pid : pids) {
        if (ProcUtil::realUid(pid) != NobodyId)
            return false;
    }
    return true;
}

} // namespace QvfsTest
