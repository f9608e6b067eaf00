// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRMODELSORT_P_H
#define QVFS_DIRMODELSORT_P_H

// DirModel's sort keys: what a row sorts by, read out of its entry once, and the order
// of two keys (folders first, the column, then the natural order of names).

#include "dirmodel.h"

#include <Qvfs/Entry>

#include <QByteArrayView>
#include <QString>

#include <unordered_map>

namespace Qvfs::Internal
{

struct SortSpec
{
    int column = DirModel::NameColumn;
    Qt::SortOrder order = Qt::AscendingOrder;
    bool foldersFirst = true;
    bool operator==(const SortSpec &o) const
    {
        return column == o.column && order == o.order && foldersFirst == o.foldersFirst;
    }
    bool operator!=(const SortSpec &o) const { return !(*this == o); }
};

/*! An entry's sort key, read out of its batch once. */
struct Key
{
    QByteArrayView name;
    qint64 a = 0;
    qint64 b = 0;
    const QString *type = nullptr;
    bool dir = false;
};

/*! Type comments by MIME name, at stable addresses (keys point at them). */
using TypeComments = std::unordered_map<QString, QString>;

/*!
 * The MIME type of \a e as DirModel shows it, sorts it and sniffs it: mimeTypeOf()'s
 * rule (the file type, the worker's MimeType field, the name), with \a sniffed (what the
 * worker found in the content, when it was asked) before the name's guess.
 */
QString entryMimeType(const Entry &e, const QString &sniffed);
/*! The comment (the Type column's text) of \a mime, cached by MIME name in \a cache. */
const QString &typeComment(TypeComments &cache, const QString &mime);
/*! \a e's key under \a s; \a sniffed as for entryMimeType(). */
Key keyOf(const Entry &e, const SortSpec &s, TypeComments &types, const QString &sniffed = {});
/*! The order of two keys under \a s (0 only for the same name: a total order). */
int compareKeys(const Key &x, const Key &y, const SortSpec &s);

} // namespace Qvfs::Internal

#endif
