// SPDX-License-Identifier: LGPL-2.1-or-later
#include "certificatepins_p.h"
#include "http_debug.h"
#include "httpclient_p.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace Qvfs::Http
{

namespace
{
constexpr qint64 MaxFileBytes = 1024 * 1024;

bool isHex(QByteArrayView s)
{
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return !s.isEmpty();
}
} // namespace

QString CertificatePins::filePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/qvfs/trusted-certificates");
}

void CertificatePins::load(HttpClient *client)
{
    QFile f(filePath());
    if (!f.open(QIODevice::ReadOnly))
        return;
    const QByteArray all = f.read(MaxFileBytes);
    int pins = 0;
    for (const QByteArray &line : all.split('\n')) {
        const QList<QByteArray> parts = line.simplified().split(' ');
        if (parts.size() != 5 || parts.at(0) != "pin")
            continue;
        bool ok = false;
        const int port = parts.at(2).toInt(&ok);
        if (!ok || port <= 0 || port > 65535 || parts.at(3).size() != 64 || !isHex(parts.at(3)))
            continue;
        QList<QSslError::SslError> errors;
        for (const QByteArray &e : parts.at(4).split(',')) {
            const int code = e.toInt(&ok);
            if (ok && code > 0)
                errors.append(QSslError::SslError(code));
        }
        if (errors.isEmpty())
            continue;
        client->pinCertificate(QString::fromUtf8(parts.at(1)), port, parts.at(3).toLower(), errors);
        ++pins;
    }
    qCDebug(QVFS_HTTP) << pins << "pinned certificates from" << f.fileName();
}

bool CertificatePins::store(const QString &host, int port, const QByteArray &sha256Hex, const QList<QSslError> &errors)
{
    const QString path = filePath();
    QDir().mkpath(QFileInfo(path).absolutePath());
    QByteArray codes;
    for (const QSslError &e : errors) {
        if (!codes.isEmpty())
            codes += ',';
        codes += QByteArray::number(int(e.error()));
    }
    if (codes.isEmpty() || host.contains(QLatin1Char(' ')) || host.contains(QLatin1Char('\n')))
        return false;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Append))
        return false;
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QByteArray line = "pin " + host.toUtf8().toLower() + ' ' + QByteArray::number(port) + ' '
        + sha256Hex.toLower() + ' ' + codes + '\n';
    return f.write(line) == line.size() && f.flush();
}

} // namespace Qvfs::Http
