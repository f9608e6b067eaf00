// SPDX-License-Identifier: LGPL-2.1-or-later
#include "workerinfo_p.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Qvfs::Internal
{

bool parseWorkerInfo(QByteArrayView json, const QString &scheme, ProtocolInfo *info, QString *exec, QString *error)
{
    *info = ProtocolInfo();
    QJsonParseError err;
    const QJsonDocument doc
        = QJsonDocument::fromJson(QByteArray::fromRawData(json.data(), qMin<qsizetype>(json.size(), 64 * 1024)), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = err.error != QJsonParseError::NoError ? err.errorString() : QStringLiteral("not an object");
        return false;
    }
    const QJsonObject o = doc.object();
    const QJsonArray protocols = o.value(QLatin1String("protocols")).toArray();
    for (qsizetype i = 0; i < protocols.size() && i < 64; ++i)
        info->protocols.append(protocols.at(i).toString());
    if (!info->protocols.contains(scheme)) {
        *error = QStringLiteral("does not serve %1").arg(scheme);
        return false;
    }
    const QJsonArray caps = o.value(QLatin1String("capabilities")).toArray();
    for (qsizetype i = 0; i < caps.size() && i < 64; ++i)
        info->capabilities.append(caps.at(i).toString());
    info->maxInstances = qBound(1, o.value(QLatin1String("maxInstances")).toInt(5), 100);
    info->maxInstancesPerHost = qBound(0, o.value(QLatin1String("maxInstancesPerHost")).toInt(0), 100);
    *exec = o.value(QLatin1String("exec")).toString();
    // A bare file name next to the JSON file: never a path elsewhere.
    if (exec->isEmpty() || exec->contains(QLatin1Char('/')) || *exec == QLatin1String("..")
        || *exec == QLatin1String(".")) {
        *error = QStringLiteral("no usable \"exec\"");
        return false;
    }
    info->name = scheme;
    info->workerId = *exec;
    return true;
}

} // namespace Qvfs::Internal
