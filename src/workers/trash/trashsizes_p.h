// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRASHSIZES_P_H
#define QVFS_TRASHSIZES_P_H

// The directorysizes cache of a trash (Trash specification 1.0): one line per trashed
// folder, "<bytes> <mtime of its .trashinfo> <percent-encoded name>", so that a listing
// of the trash need not walk every trashed folder again. Internal.

#include <QByteArray>
#include <QHash>

namespace Qvfs::Trash
{

class SizeCache
{
public:
    /*! Reads the cache of the trash folder \a trashFd (missing or unreadable: empty). */
    void load(int trashFd);
    /*!
     * The size of the trashed folder \a name whose .trashinfo was last modified at \a
     * infoMtime (seconds); -1 when the cache has none for that time. Accepts the lines KIO
     * writes too (milliseconds).
     */
    qint64 size(const QByteArray &name, qint64 infoMtime) const;
    void set(const QByteArray &name, qint64 infoMtime, qint64 bytes);
    void remove(const QByteArray &name);
    /*! Keeps only the names in \a names (the folders listed). */
    void retain(const QHash<QByteArray, bool> &names);
    /*!
     * Writes the cache back when it changed: a temporary in the trash folder renamed
     * over the old file, so that a reader never sees it half written.
     */
    void save(int trashFd);

private:
    struct Line
    {
        qint64 bytes = 0;
        qint64 mtime = 0;
    };
    QHash<QByteArray, Line> m_lines;
    bool m_dirty = false;
};

} // namespace Qvfs::Trash

#endif
