// SPDX-License-Identifier: LGPL-2.1-or-later
#include "genericpath.h"
#include "rawpath.h"

#include <QCoreApplication>
#include <QFile>

namespace QvfsTest
{

bool describeFileWorkerWithoutCopy(const QByteArray &dir)
{
    const QByteArray worker = join(QFile::encodeName(QCoreApplication::applicationDirPath()), "qvfs-worker-file");
    if (!existsRaw(worker) || (!existsRaw(dir) && !mkdirRaw(dir)))
        return false;
    return symlinkRaw(worker, join(dir, "qvfs-worker-file"))
        && writeRaw(join(dir, "qvfs-worker-file.json"),
            "{\"exec\": \"qvfs-worker-file\", \"protocols\": {\"file\": {\"capabilities\": [\"list\", \"stat\", "
            "\"read\", \"write\", \"delete\", \"mkdir\", \"rename\", \"symlink\", \"chmod\", \"size\", \"settime\"], "
            "\"names\": \"bytes\"}}, \"maxInstances\": 5, \"maxInstancesPerHost\": 5}\n",
            0644);
}

} // namespace QvfsTest
