// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mimetypes.h"

#include "entry.h"

#include <QHash>
#include <QMimeDatabase>

#include <iterator>

namespace Qvfs
{

QString mimeTypeForFileType(FileType type)
{
    // By FileType's value: regular files (and unknown types) have none of their own.
    static constexpr const char *inodeTypes[] = { nullptr, nullptr, "inode/directory", "inode/symlink",
        "inode/chardevice", "inode/blockdevice", "inode/fifo", "inode/socket" };
    static_assert(std::size(inodeTypes) == size_t(FileType::Socket) + 1);
    const auto i = size_t(type);
    return i < std::size(inodeTypes) && inodeTypes[i] ? QString::fromLatin1(inodeTypes[i]) : QString();
}

QMimeType mimeTypeForFileName(QByteArrayView name)
{
    thread_local QHash<QByteArray, QMimeType> cache;
    thread_local QMimeDatabase *db = nullptr;
    if (!db)
        db = new QMimeDatabase; // its data is shared and loaded once per process
    const qsizetype dot = name.lastIndexOf('.');
    const bool byExtension = dot > 0 && dot + 1 < name.size() && name.size() - dot <= 16;
    const QByteArray key = byExtension ? ("*." + name.sliced(dot + 1).toByteArray().toLower()) : name.toByteArray();
    const auto it = cache.constFind(key);
    if (it != cache.constEnd())
        return *it;
    if (cache.size() > 4096)
        cache.clear();
    const QMimeType t = db->mimeTypeForFile(QString::fromUtf8(name.data(), name.size()), QMimeDatabase::MatchExtension);
    cache.insert(key, t);
    return t;
}

QString mimeTypeOf(FileType type, QByteArrayView name)
{
    const QString byType = mimeTypeForFileType(type);
    return byType.isEmpty() ? mimeTypeForFileName(name).name() : byType;
}

QString mimeTypeOf(const Entry &entry)
{
    if (entry.contains(MimeType) && mimeTypeForFileType(entry.type()).isEmpty())
        return entry.string(MimeType);
    return mimeTypeOf(entry.type(), entry.name());
}

} // namespace Qvfs
