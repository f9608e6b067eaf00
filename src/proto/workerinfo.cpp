// SPDX-License-Identifier: LGPL-2.1-or-later
#include "workerinfo_p.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Qvfs::Internal
{

namespace
{
constexpr qsizetype MaxJson = 64 * 1024;
constexpr int MaxListItems = 64;
constexpr int MaxNameLength = 64;

QJsonObject parse(QByteArrayView json, QString *error)
{
    QJsonParseError err;
    const QJsonDocument doc
        = QJsonDocument::fromJson(QByteArray::fromRawData(json.data(), qMin<qsizetype>(json.size(), MaxJson)), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = err.error != QJsonParseError::NoError ? err.errorString() : QStringLiteral("not an object");
        return QJsonObject();
    }
    return doc.object();
}

QStringList names(const QJsonValue &v)
{
    QStringList out;
    const QJsonArray a = v.toArray();
    for (qsizetype i = 0; i < a.size() && i < MaxListItems; ++i) {
        const QString s = a.at(i).toString();
        if (!s.isEmpty() && s.size() <= MaxNameLength && !out.contains(s))
            out.append(s);
    }
    return out;
}

// scheme -> its own settings object (empty for the list form)
QList<QPair<QString, QJsonObject>> protocolsOf(const QJsonObject &o)
{
    QList<QPair<QString, QJsonObject>> out;
    const QJsonValue p = o.value(QLatin1String("protocols"));
    if (p.isArray()) {
        const QStringList list = names(p);
        for (const QString &s : list)
            out.append({ s, QJsonObject() });
    } else if (p.isObject()) {
        const QJsonObject po = p.toObject();
        for (auto it = po.begin(); it != po.end() && out.size() < MaxListItems; ++it) {
            if (!it.key().isEmpty() && it.key().size() <= MaxNameLength)
                out.append({ it.key(), it.value().toObject() });
        }
    }
    return out;
}

// A setting of the protocol, else the description's top-level default.
QJsonValue setting(const QJsonObject &own, const QJsonObject &top, const char *key)
{
    const QLatin1String k(key);
    return own.contains(k) ? own.value(k) : top.value(k);
}
} // namespace

bool parseWorkerInfo(QByteArrayView json, const QString &scheme, ProtocolInfo *info, QString *exec, QString *error)
{
    *info = ProtocolInfo();
    const QJsonObject o = parse(json, error);
    if (o.isEmpty()) {
        if (error->isEmpty())
            *error = QStringLiteral("empty description");
        return false;
    }
    const QList<QPair<QString, QJsonObject>> protocols = protocolsOf(o);
    const QPair<QString, QJsonObject> *mine = nullptr;
    for (const auto &p : protocols) {
        info->protocols.append(p.first);
        if (p.first == scheme || names(setting(p.second, o, "aliases")).contains(scheme))
            mine = mine ? mine : &p;
    }
    if (!mine || scheme.isEmpty()) {
        *error = QStringLiteral("does not serve %1").arg(scheme);
        return false;
    }
    info->name = mine->first;
    info->capabilities = names(setting(mine->second, o, "capabilities"));
    info->aliases = names(setting(mine->second, o, "aliases"));
    info->aliases.removeAll(info->name);
    const int port = setting(mine->second, o, "defaultPort").toInt(-1);
    info->defaultPort = port >= 1 && port <= 65535 ? port : -1;
    info->utf8Names = setting(mine->second, o, "names").toString() == QLatin1String("utf8");
    info->maxInstances = qBound(1, o.value(QLatin1String("maxInstances")).toInt(5), 100);
    info->maxInstancesPerHost = qBound(0, o.value(QLatin1String("maxInstancesPerHost")).toInt(0), 100);
    *exec = o.value(QLatin1String("exec")).toString();
    // A bare file name next to the JSON file: never a path elsewhere.
    if (exec->isEmpty() || exec->contains(QLatin1Char('/')) || *exec == QLatin1String("..")
        || *exec == QLatin1String(".")) {
        *error = QStringLiteral("no usable \"exec\"");
        return false;
    }
    info->workerId = *exec;
    return true;
}

QStringList workerSchemes(QByteArrayView json)
{
    const QJsonObject o = parse(json, nullptr);
    QStringList out;
    const QList<QPair<QString, QJsonObject>> protocols = protocolsOf(o);
    for (const auto &p : protocols) {
        out.append(p.first);
        out += names(setting(p.second, o, "aliases"));
    }
    return out;
}

} // namespace Qvfs::Internal
