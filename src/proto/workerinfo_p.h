// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERINFO_P_H
#define QVFS_WORKERINFO_P_H

// What a worker's JSON file declares, and its parser (foreign input: fuzzed). Internal.

#include "qvfsproto_export.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>

namespace Qvfs::Internal
{

struct ProtocolInfo
{
    QString name; // the scheme asked for
    QString executable; // absolute path
    QString workerId; // the executable's file name: workers are shared per executable
    QStringList protocols;
    QStringList capabilities;
    int maxInstances = 5;
    int maxInstancesPerHost = 0; // 0 = maxInstances
    bool isValid() const { return !executable.isEmpty(); }
};

/*!
 * Parses a worker description (at most 64 KiB are read) for \a scheme. On success the
 * result has protocols, capabilities and limits (clamped to sane ranges), and \a exec
 * is the executable's bare file name (no '/'). Returns false, with \a error set, when the
 * JSON is malformed, does not serve \a scheme, or names no usable executable.
 */
QVFSPROTO_EXPORT bool parseWorkerInfo(QByteArrayView json, const QString &scheme, ProtocolInfo *info, QString *exec, QString *error);

} // namespace Qvfs::Internal

#endif
