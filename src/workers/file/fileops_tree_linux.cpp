// SPDX-License-Identifier: LGPL-2.1-or-later
// Walks of whole trees: remove(), directorySize() and the counting of fileops_tree_p.h.
#include "fileops_tree_p.h"
#include "fileops_util_p.h"

#include "error.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace Qvfs::FileOps
{

namespace
{

// Deletes the folder (dirFd, name) and everything inside, never following symlinks.
bool removeTree(
    int dirFd, const QByteArray &name, const QByteArray &path, Context &context, Counts &counts, OpResult *error)
{
    Fd fd(::openat(dirFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
        *error = errnoResult(errno, Operation::Delete, path);
        return false;
    }
    DirStream dir(std::move(fd));
    if (!dir.valid()) {
        *error = errnoResult(errno, Operation::Delete, path);
        return false;
    }
    // Entries deleted while reading are fine on Linux filesystems; a second pass catches
    // any a filesystem might have skipped.
    for (int pass = 0; pass < 3; ++pass) {
        if (pass > 0)
            dir.rewind();
        while (struct dirent *e = dir.next()) {
            if (context.isCancelled()) {
                *error = makeError(ErrCancelled, path);
                return false;
            }
            bool isDir = e->d_type == DT_DIR;
            if (e->d_type == DT_UNKNOWN) {
                struct stat st;
                if (::fstatat(dir.fd(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                    if (errno == ENOENT)
                        continue;
                    *error = errnoResult(errno, Operation::Delete, joinPath(path, QByteArray(e->d_name)));
                    return false;
                }
                isDir = S_ISDIR(st.st_mode);
            }
            if (isDir) {
                const QByteArray child(e->d_name);
                if (!removeTree(dir.fd(), child, joinPath(path, child), context, counts, error))
                    return false;
                continue;
            }
            if (::unlinkat(dir.fd(), e->d_name, 0) != 0) {
                if (errno == ENOENT)
                    continue;
                *error = errnoResult(errno, Operation::Delete, joinPath(path, QByteArray(e->d_name)));
                return false;
            }
            ++counts.files;
            context.progress(0, counts.files, counts.dirs);
        }
        if (errno != 0) {
            *error = errnoResult(errno, Operation::Read, path);
            return false;
        }
        if (::unlinkat(dirFd, name.constData(), AT_REMOVEDIR) == 0) {
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

} // namespace

bool countInside(int dirFd, const char *name, const QByteArray &path, Counts &counts, Context &context, bool strict,
    bool report, OpResult *error)
{
    Fd fd(::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
        if (!strict)
            return true;
        *error = errnoResult(errno, Operation::Read, path);
        return false;
    }
    DirStream dir(std::move(fd));
    if (!dir.valid()) {
        if (!strict)
            return true;
        *error = errnoResult(errno, Operation::Read, path);
        return false;
    }
    while (struct dirent *e = dir.next()) {
        if (context.isCancelled()) {
            *error = makeError(ErrCancelled, path);
            return false;
        }
        unsigned char type = e->d_type;
        struct stat st;
        if (type == DT_REG || type == DT_UNKNOWN) {
            if (::fstatat(dir.fd(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT || !strict)
                    continue;
                *error = errnoResult(errno, Operation::Read, joinPath(path, QByteArray(e->d_name)));
                return false;
            }
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
            if (type == DT_REG)
                counts.bytes += st.st_size;
        }
        if (type == DT_DIR) {
            ++counts.dirs;
            if (!countInside(
                    dir.fd(), e->d_name, joinPath(path, QByteArray(e->d_name)), counts, context, strict, report, error))
                return false;
        } else {
            ++counts.files;
        }
    }
    if (errno != 0 && strict) {
        *error = errnoResult(errno, Operation::Read, path);
        return false;
    }
    if (report)
        context.progress(counts.bytes, counts.files, counts.dirs);
    return true;
}

OpResult remove(const QByteArray &path, bool recursive, Context &context, qint64 *removedCount)
{
    if (removedCount)
        *removedCount = 0;
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    const QByteArray p = stripTrailingSlashes(path);
    struct stat st;
    if (::fstatat(AT_FDCWD, p.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoResult(errno, Operation::Delete, p);
    if (!S_ISDIR(st.st_mode)) {
        if (::unlinkat(AT_FDCWD, p.constData(), 0) != 0)
            return errnoResult(errno, Operation::Delete, p);
        if (removedCount)
            *removedCount = 1;
        context.progress(0, 1, 0);
        return OpResult();
    }
    if (!recursive) {
        if (::unlinkat(AT_FDCWD, p.constData(), AT_REMOVEDIR) != 0)
            return errnoResult(errno == EEXIST ? ENOTEMPTY : errno, Operation::Delete, p);
        if (removedCount)
            *removedCount = 1;
        context.progress(0, 0, 1);
        return OpResult();
    }
    struct stat root;
    if (::stat("/", &root) == 0 && sameFile(root, st))
        return makeError(ErrAccessDenied, p);
    Counts counts;
    OpResult error;
    removeTree(AT_FDCWD, p, p, context, counts, &error);
    if (removedCount)
        *removedCount = counts.files + counts.dirs;
    return error;
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
        countInside(AT_FDCWD, p.constData(), p, counts, context, true, true, &result);
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
