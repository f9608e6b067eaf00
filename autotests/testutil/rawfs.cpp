// SPDX-License-Identifier: LGPL-2.1-or-later
#include "rawfs.h"

#include <Qvfs/Url>

namespace QvfsTest
{

QUrl fileUrl(const QByteArray &path)
{
    return Qvfs::Url::fromLocalPath(path);
}

QString encoded(const QByteArray &path)
{
    return QString::fromLatin1(fileUrl(path).toEncoded());
}

QUrl sftpUrl(int port, const QByteArray &path, const QByteArray &user)
{
    QUrl root;
    root.setScheme(QStringLiteral("sftp"));
    if (!user.isEmpty())
        root.setUserName(QString::fromUtf8(user));
    root.setHost(QStringLiteral("127.0.0.1"));
    root.setPort(port);
    root.setPath(QStringLiteral("/"));
    return path.size() <= 1 ? root : Qvfs::Url::child(root, path.mid(1));
}

Qvfs::FileType typeOf(mode_t m)
{
    return Qvfs::fileTypeFromMode(m);
}

} // namespace QvfsTest
