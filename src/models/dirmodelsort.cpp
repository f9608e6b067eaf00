// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dirmodelsort_p.h"
#include "naturalcompare.h"

#include <Qvfs/MimeTypes>

#include <QMimeDatabase>

namespace Qvfs::Internal
{

QString entryMimeType(const Entry &e, const QString &sniffed)
{
    if (sniffed.isEmpty() || e.contains(MimeType) || !mimeTypeForFileType(e.type()).isEmpty())
        return mimeTypeOf(e);
    return sniffed;
}

// The Type column's text, so the sort agrees with what the column shows.
const QString &typeComment(TypeComments &cache, const QString &mime)
{
    auto it = cache.find(mime);
    if (it == cache.end()) {
        static thread_local QMimeDatabase db;
        it = cache.emplace(mime, db.mimeTypeForName(mime).comment()).first;
    }
    return it->second;
}

Key keyOf(const Entry &e, const SortSpec &s, TypeComments &types, const QString &sniffed)
{
    Key k;
    k.name = e.name();
    k.dir = e.isDir();
    switch (s.column) {
    case DirModel::SizeColumn:
        // A folder's own size (its inode's) is not what the column shows: folders go by
        // name, before the files when mixed with them (as Dolphin sorts them).
        k.a = e.isDir() ? -1 : e.size();
        break;
    case DirModel::ModifiedColumn:
        k.a = e.number(MTime, 0);
        k.b = e.number(MTimeNs, 0);
        break;
    case DirModel::TypeColumn:
        k.type = &typeComment(types, entryMimeType(e, sniffed));
        break;
    default:
        break;
    }
    return k;
}

int compareKeys(const Key &x, const Key &y, const SortSpec &s)
{
    if (s.foldersFirst && x.dir != y.dir)
        return x.dir ? -1 : 1; // whatever the order
    int c = 0;
    switch (s.column) {
    case DirModel::SizeColumn:
        c = x.a < y.a ? -1 : x.a > y.a ? 1 : 0;
        break;
    case DirModel::ModifiedColumn:
        c = x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0;
        break;
    case DirModel::TypeColumn:
        c = x.type->compare(*y.type, Qt::CaseInsensitive);
        break;
    default:
        break;
    }
    if (!c)
        c = naturalCompare(x.name, y.name); // 0 only for the same name: a total order
    return s.order == Qt::AscendingOrder ? c : -c;
}

} // namespace Qvfs::Internal
