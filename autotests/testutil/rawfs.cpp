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

Qvfs::FileType typeOf(mode_t m)
{
    return Qvfs::fileTypeFromMode(m);
}

} // namespace QvfsTest
