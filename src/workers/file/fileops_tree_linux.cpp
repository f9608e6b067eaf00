// SPDX-License-Identifier: LGPL-2.1-or-later
// Walks of whole trees: remove(), directorySize() and the counting of fileops_tree_p.h,
// by folder descriptors (fileops_walk_p.h): any depth, a bounded number of descriptors.
#include "fileops_tree_p.h"
#include "fileops_util_p.h"
#include "fileops_walk_p.h"

#include "error.h"

#include <QHash>
#include <QSet>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace Qvfs::FileOps
{

namespace
{

// \a root, the walk's current folder and \a name joined: the path an error names.
QByteArray pathIn(const QByteArray &root, const FolderWalk &walk, const QByteArray &name = QByteArray())
{
    QByteArray p = joinPath(root, walk.path());
    return name.isEmpty() ? p : joinPath(p, name);
}

// Reads the entries of the walk's current folder with \a reader and gives each to \a visit,
// which returns false to stop (having set *error); stops with ErrCancelled once the context
// is cancelled. Returns false when stopped; otherwise errno says whether reading failed.
template<typename Visit>
bool visitEntries(
    FolderWalk &walk, DirReader &reader, const QByteArray &path, Context &context, OpResult *error, Visit visit)
{
    reader.start(walk.fd());
    while (struct dirent64 *e = reader.next()) {
        if (context.isCancelled()) {
            *error = makeError(ErrCancelled, pathIn(path, walk));
            return false;
        }
        if (!visit(e))
            return false;
    }
    return true;
}

// Deletes what is inside the folder \a fd (taken over), never following symlinks.
bool removeInside(Fd fd, const QByteArray &path, Context &context, Counts &counts, OpResult *error)
{
    FolderWalk walk(std::move(fd), false);
    DirReader reader;
    QHash<QByteArray, int> retries; // folders found not empty after their content went
    QByteArray name;
    bool entered = true;
    for (;;) {
        if (entered) {
            entered = false;
            const bool read = visitEntries(walk, reader, path, context, error, [&](struct dirent64 *e) {
                bool isDir = e->d_type == DT_DIR;
                if (e->d_type == DT_UNKNOWN) {
                    struct stat st;
                    if (::fstatat(walk.fd(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                        if (errno == ENOENT)
                            return true;
                        *error = errnoResult(errno, Operation::Delete, pathIn(path, walk, e->d_name));
                        return false;
                    }
                    isDir = S_ISDIR(st.st_mode);
                }
                if (!isDir) {
                    if (::unlinkat(walk.fd(), e->d_name, 0) == 0) {
                        ++counts.files;
                        context.progress(0, counts.files, counts.dirs);
                        return true;
                    }
                    if (errno == ENOENT)
                        return true;
                    if (errno != EISDIR) {
                        *error = errnoResult(errno, Operation::Delete, pathIn(path, walk, e->d_name));
                        return false;
                    }
                    // a folder now
                }
                walk.queue(e->d_name, std::strlen(e->d_name));
                return true;
            });
            if (!read)
                return false;
            if (errno != 0) {
                *error = errnoResult(errno, Operation::Read, pathIn(path, walk));
                return false;
            }
        }
        if (walk.hasQueued()) {
            if (walk.enterNext(&name)) {
                entered = true;
                continue;
            }
            const int err = errno;
            if (err == ENOENT)
                continue;
            if (err == ELOOP || err == ENOTDIR) {
                // Not a folder any more (a link or a file swapped in): deleted as what it is.
                if (::unlinkat(walk.fd(), name.constData(), 0) == 0) {
                    ++counts.files;
                    context.progress(0, counts.files, counts.dirs);
                    continue;
                }
                if (errno == ENOENT)
                    continue;
            }
            *error = errnoResult(err, Operation::Delete, pathIn(path, walk, name));
            return false;
        }
        if (walk.depth() == 0)
            return true;
        qsizetype abandoned = 0;
        if (!walk.leave(&name, &abandoned)) {
            // A folder above was moved away meanwhile: the rest is not ours to find by name.
            *error = makeError(ErrCannotDelete, pathIn(path, walk));
            return false;
        }
        if (::unlinkat(walk.fd(), name.constData(), AT_REMOVEDIR) == 0) {
            ++counts.dirs;
            context.progress(0, counts.files, counts.dirs);
            continue;
        }
        const int err = errno;
        if (err == ENOENT)
            continue;
        if (err == ENOTEMPTY || err == EEXIST) {
            // Something appeared meanwhile (or a filesystem skipped an entry): once more.
            int &tries = retries[pathIn(QByteArray(), walk, name)];
            if (++tries < 3) {
                walk.queue(name.constData(), size_t(name.size()));
                continue;
            }
        }
        *error = errnoResult(err == EEXIST ? ENOTEMPTY : err, Operation::Delete, pathIn(path, walk, name));
        return false;
    }
}

// Deletes the folder (parentFd, name) and everything inside, never following symlinks.
bool removeTree(
    int parentFd, const QByteArray &name, const QByteArray &path, Context &context, Counts &counts, OpResult *error)
{
    for (int pass = 0;; ++pass) {
        Fd fd(::openat(parentFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!fd.valid()) {
            *error = errnoResult(errno, Operation::Delete, path);
            return false;
        }
        struct stat st;
        struct stat root;
        if (::fstat(fd.get(), &st) == 0 && ::stat("/", &root) == 0 && sameFile(root, st)) {
            *error = makeError(ErrAccessDenied, path);
            return false;
        }
        if (!removeInside(std::move(fd), path, context, counts, error))
            return false;
        if (::unlinkat(parentFd, name.constData(), AT_REMOVEDIR) == 0) {
            ++counts.dirs;
            context.progress(0, counts.files, counts.dirs);
            return true;
        }
        if ((errno != ENOTEMPTY && errno != EEXIST) || pass == 2)
            break;
    }
    *error = errnoResult(errno == EEXIST ? ENOTEMPTY : errno, Operation::Delete, path);
    return false;
}

// countInside() with the choice to count the bytes of a hard-linked file once.
bool countTree(int dirFd, const char *name, const QByteArray &path, Counts &counts, Context &context, bool strict,
    bool report, bool inodesOnce, OpResult *error)
{
    Fd fd(::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
        if (!strict)
            return true;
        *error = errnoResult(errno, Operation::Read, path);
        return false;
    }
    FolderWalk walk(std::move(fd), false);
    DirReader reader;
    QSet<QPair<dev_t, ino_t>> linked; // regular files with more than one name, seen once
    QByteArray failed;
    bool entered = true;
    for (;;) {
        if (entered) {
            entered = false;
            const bool read = visitEntries(walk, reader, path, context, error, [&](struct dirent64 *e) {
                unsigned char type = e->d_type;
                if (type == DT_REG || type == DT_UNKNOWN) {
                    struct stat st;
                    if (::fstatat(walk.fd(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                        if (errno == ENOENT || !strict)
                            return true;
                        *error = errnoResult(errno, Operation::Read, pathIn(path, walk, e->d_name));
                        return false;
                    }
                    type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
                    if (type == DT_REG
                        && (!inodesOnce || st.st_nlink < 2 || !linked.contains({ st.st_dev, st.st_ino }))) {
                        counts.bytes += st.st_size;
                        if (inodesOnce && st.st_nlink > 1)
                            linked.insert({ st.st_dev, st.st_ino });
                    }
                }
                if (type == DT_DIR) {
                    ++counts.dirs;
                    walk.queue(e->d_name, std::strlen(e->d_name));
                } else {
                    ++counts.files;
                }
                return true;
            });
            if (!read)
                return false;
            if (errno != 0 && strict) {
                *error = errnoResult(errno, Operation::Read, pathIn(path, walk));
                return false;
            }
            if (report)
                context.progress(counts.bytes, counts.files, counts.dirs);
        }
        if (walk.hasQueued()) {
            if (walk.enterNext(&failed)) {
                entered = true;
                continue;
            }
            if (!strict)
                continue;
            *error = errnoResult(errno, Operation::Read, pathIn(path, walk, failed));
            return false;
        }
        if (walk.depth() == 0)
            return true;
        qsizetype abandoned = 0;
        if (!walk.leave(nullptr, &abandoned) && strict) {
            // A folder above was moved away meanwhile: what is left of it is elsewhere now.
            *error = makeError(ErrCannotRead, pathIn(path, walk));
            return false;
        }
    }
}

} // namespace

bool countInside(int dirFd, const char *name, const QByteArray &path, Counts &counts, Context &context, bool strict,
    bool report, OpResult *error)
{
    return countTree(dirFd, name, path, counts, context, strict, report, false, error);
}

OpResult remove(const QByteArray &path, RemoveScope scope, Context &context, qint64 *removedCount)
{
    if (removedCount)
        *removedCount = 0;
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    const QByteArray p = stripTrailingSlashes(path);
    QByteArray dir, name;
    splitPath(p, &dir, &name);
    if (name.isEmpty())
        return makeError(ErrAccessDenied, p); // the root
    if (isDot(name))
        return makeError(ErrMalformedUrl, path);
    // The parent by its path (symlinks in it followed, as usual); the entry itself is
    // never followed, and what it is decides nothing before the call that deletes it.
    Fd parent(::open(dir.constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent.valid())
        return errnoResult(errno, Operation::Delete, p);
    const auto removed = [&](bool folder) {
        if (removedCount)
            *removedCount = 1;
        context.progress(0, folder ? 0 : 1, folder ? 1 : 0);
        return OpResult();
    };
    if (scope != RemoveScope::Tree) {
        // unlink() never removes a folder: what it is is decided by the call that deletes it.
        if (::unlinkat(parent.get(), name.constData(), 0) == 0)
            return removed(false);
        if (errno != EISDIR || scope == RemoveScope::NotFolder)
            return errnoResult(errno, Operation::Delete, p);
        if (::unlinkat(parent.get(), name.constData(), AT_REMOVEDIR) != 0)
            return errnoResult(errno == EEXIST ? ENOTEMPTY : errno, Operation::Delete, p);
        return removed(true);
    }
    struct stat st;
    if (::fstatat(parent.get(), name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoResult(errno, Operation::Delete, p);
    if (!S_ISDIR(st.st_mode)) {
        if (::unlinkat(parent.get(), name.constData(), 0) == 0)
            return removed(false);
        if (errno != EISDIR)
            return errnoResult(errno, Operation::Delete, p);
        // a folder swapped in: deleted as a tree
    }
    Counts counts;
    OpResult error;
    removeTree(parent.get(), name, p, context, counts, &error);
    if (removedCount)
        *removedCount = counts.files + counts.dirs;
    return error;
}

OpResult remove(const QByteArray &path, bool recursive, Context &context, qint64 *removedCount)
{
    return remove(path, recursive ? RemoveScope::Tree : RemoveScope::Entry, context, removedCount);
}

OpResult directorySize(const QByteArray &path, Context &context, qint64 *bytes, qint64 *files, qint64 *dirs)
{
    Counts counts;
    OpResult result;
    const QByteArray p = stripTrailingSlashes(path);
    struct stat st;
    if (path.isEmpty() || hasNul(path)) {
        result = makeError(ErrMalformedUrl, path);
    } else if (::fstatat(AT_FDCWD, p.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        result = errnoResult(errno, Operation::Read, p);
    } else if (!S_ISDIR(st.st_mode)) {
        counts.files = 1;
        counts.bytes = S_ISREG(st.st_mode) ? st.st_size : 0;
    } else {
        countTree(AT_FDCWD, p.constData(), p, counts, context, true, true, true, &result);
    }
    if (bytes)
        *bytes = counts.bytes;
    if (files)
        *files = counts.files;
    if (dirs)
        *dirs = counts.dirs;
    return result;
}

} // namespace Qvfs::FileOps
