// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the file worker: walking a tree of folders by descriptors, for trees of any
// depth and any RLIMIT_NOFILE, never through a symlink swapped in meanwhile. Used by
// remove(), directorySize(), the counting of copy() and the recursive listing.
#ifndef QVFS_FILEOPS_WALK_P_H
#define QVFS_FILEOPS_WALK_P_H

#include "fileops_util_p.h"

#include <QByteArray>
#include <QList>

#include <dirent.h>
#include <sys/types.h>

#include <cstddef>

namespace Qvfs::FileOps
{

// Reads the entries of one folder with getdents64, in a buffer reused from folder to
// folder (no allocation per folder).
class DirReader
{
public:
    // Starts reading the folder \a fd, which stays the caller's. A descriptor already read
    // from needs \a rewind.
    void start(int fd, bool rewind = false);
    // The next entry other than "." and "..": null at the end (errno is then 0) or on an
    // error (errno set).
    struct dirent64 *next();

private:
    int m_fd = -1;
    size_t m_pos = 0;
    size_t m_end = 0;
    alignas(struct dirent64) char m_buffer[32 * 1024];
};

// A depth-first walk of the folders under a root folder, by descriptors: a subfolder is
// opened relative to its parent's descriptor, one component at a time, without following
// a symlink (unless asked), so a folder swapped for a link is never entered, and no path
// grows with the depth (PATH_MAX does not limit it).
//
// At most MaxOpenLevels descriptors are held, however deep the tree: the descriptors of
// the shallowest levels are closed as the walk goes deeper (their device and inode are
// kept), and reopened on the way back up through "..", checked to be the very folder
// entered before; a folder moved meanwhile is reopened by name from the root and checked
// again at each level.
//
// The caller lists the current folder (fd()), queues the subfolders it wants entered
// (queue()), and moves on with enterNext() while something is queued, else leave().
class FolderWalk
{
public:
    static constexpr int MaxOpenLevels = 16;

    // Walks under \a root, an O_RDONLY | O_DIRECTORY descriptor (taken over). With
    // \a follow, queued names are entered through symlinks too.
    FolderWalk(Fd root, bool follow);
    ~FolderWalk();
    FolderWalk(const FolderWalk &) = delete;
    FolderWalk &operator=(const FolderWalk &) = delete;

    // The current folder's descriptor (O_RDONLY | O_DIRECTORY), open while it is current.
    int fd() const { return m_levels.last().fd; }
    // The current folder's path relative to the root: empty for the root, else "a/b".
    const QByteArray &path() const { return m_path; }
    // 0 for the root.
    qsizetype depth() const { return m_levels.size() - 1; }

    // Queues \a name (\a size bytes), a subfolder of the current folder, for enterNext().
    void queue(const char *name, size_t size);
    bool hasQueued() const { return m_levels.last().queued > 0; }

    // Enters the folder queued last in the current one. Returns false with errno set when
    // it cannot be opened (gone, not a folder, a symlink now, unreadable): the current
    // folder stays, and \a failedName (may be null) receives the name that was tried.
    bool enterNext(QByteArray *failedName);

    // Leaves the current folder (never the root) for its parent; \a leftName (may be
    // null) receives the name of the folder left, and \a abandoned how many queued
    // folders were dropped without being entered. Returns false when the parent (or more
    // above it) was moved away meanwhile and could not be found again as the same folder:
    // those levels are dropped too (their queued folders counted in \a abandoned), and the
    // current folder is the deepest ancestor that is still the same (at worst the root).
    bool leave(QByteArray *leftName, qsizetype *abandoned);

private:
    struct Level
    {
        int fd = -1;
        dev_t dev = 0; // recorded when its descriptor is closed
        ino_t ino = 0;
        qsizetype pathEnd = 0; // the end of its name in m_path
        qsizetype queueStart = 0; // where its queued names start in m_queue
        qsizetype queued = 0;
    };

    // Closes the descriptor of the shallowest open level below the root (after noting its
    // identity) while more than MaxOpenLevels are open.
    void closeShallowest();
    // Reopens level \a index (closed) by name from the root; see leave().
    bool reopenFromRoot(qsizetype index, qsizetype *abandoned);
    // The name of level \a index (> 0) in m_path.
    QByteArray nameOf(qsizetype index) const;
    bool isLevel(int fd, const Level &level) const;

    QList<Level> m_levels;
    QByteArray m_path;
    QByteArray m_queue; // queued names, each ended by a NUL byte, deepest level's last
    qsizetype m_firstOpen = 1; // levels [1, m_firstOpen) are closed, the others open
    bool m_follow = false;
};

} // namespace Qvfs::FileOps

#endif
