// SPDX-License-Identifier: LGPL-2.1-or-later
// Worker descriptions (qvfs-worker-*.json) on arbitrary bytes: whatever the file says, the
// parser returns cleanly, limits stay in range, and an accepted "exec" is a bare name.
#include "fuzz_common.h"
#include "workerinfo_p.h"

using namespace Qvfs::Internal;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView json(reinterpret_cast<const char *>(data), qsizetype(size));
    const QStringList schemes = workerSchemes(json);
    QVFS_FUZZ_CHECK(schemes.size() <= 64 * 65);
    for (const char *scheme : { "file", "sftp", "dav", "" }) {
        ProtocolInfo info;
        QString exec, error;
        if (parseWorkerInfo(json, QString::fromLatin1(scheme), &info, &exec, &error)) {
            QVFS_FUZZ_CHECK(!exec.isEmpty() && !exec.contains(QLatin1Char('/')));
            QVFS_FUZZ_CHECK(info.maxInstances >= 1 && info.maxInstances <= 100);
            QVFS_FUZZ_CHECK(info.maxInstancesPerHost >= 0 && info.maxInstancesPerHost <= 100);
            QVFS_FUZZ_CHECK(info.protocols.contains(info.name));
            QVFS_FUZZ_CHECK(info.name == QLatin1String(scheme) || info.aliases.contains(QLatin1String(scheme)));
            QVFS_FUZZ_CHECK(info.defaultPort == -1 || (info.defaultPort >= 1 && info.defaultPort <= 65535));
            QVFS_FUZZ_CHECK(schemes.contains(QLatin1String(scheme)));
        } else {
            QVFS_FUZZ_CHECK(!error.isEmpty());
        }
    }
    return 0;
}
