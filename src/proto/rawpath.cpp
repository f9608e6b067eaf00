// SPDX-License-Identifier: LGPL-2.1-or-later
#include "rawpath_p.h"

namespace Qvfs::Internal
{

QByteArray stripTrailingSlashes(const QByteArray &path)
{
    qsizetype size = path.size();
    while (size > 1 && path.at(size - 1) == '/')
        --size;
    return path.left(size);
}

QByteArray joinPath(const QByteArray &dir, const QByteArray &name)
{
    if (dir.isEmpty())
        return name;
    QByteArray result;
    result.reserve(dir.size() + 1 + name.size());
    result += dir;
    if (!dir.endsWith('/'))
        result += '/';
    result += name;
    return result;
}

void splitPath(const QByteArray &path, QByteArray *dir, QByteArray *name)
{
    const QByteArray p = stripTrailingSlashes(path);
    const qsizetype slash = p.lastIndexOf('/');
    if (slash < 0) {
        *dir = QByteArrayLiteral(".");
        *name = p;
    } else if (slash == 0) {
        *dir = QByteArrayLiteral("/");
        *name = p.mid(1);
    } else {
        *dir = p.left(slash);
        *name = p.mid(slash + 1);
    }
}

QByteArray parentPath(const QByteArray &path)
{
    QByteArray dir, name;
    splitPath(path, &dir, &name);
    return dir;
}

bool isSameOrBelow(QByteArrayView path, QByteArrayView folder)
{
    return path == folder || (path.startsWith(folder) && (folder.endsWith('/') || path.at(folder.size()) == '/'));
}

} // namespace Qvfs::Internal
