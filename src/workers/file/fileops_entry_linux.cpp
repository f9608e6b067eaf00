// SPDX-License-Identifier: LGPL-2.1-or-later
// The operations of fileops.h on one entry: mkdir(), rename(), symlink(), chmod().
#include "fileops.h"
#include "fileops_util_p.h"

#include "error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

namespace Qvfs::FileOps
{

OpResult mkdir(const QByteArray &path, int mode, bool parents)
{
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    const QByteArray p = stripTrailingSlashes(path);
    const mode_t createMode = mode < 0 ? 0777 : mode_t(mode) & 0777;
    if (!parents) {
        if (::mkdirat(AT_FDCWD, p.constData(), createMode) != 0) {
            const int err = errno;
            // A missing parent is what does not exist: name it, not the new folder.
            if (err == ENOENT && p.lastIndexOf('/') > 0)
                return errnoResult(err, Operation::Write, p.left(p.lastIndexOf('/')));
            return errnoResult(err, Operation::Write, p);
        }
        if (mode >= 0)
            ::fchmodat(AT_FDCWD, p.constData(), mode_t(mode) & 07777, 0);
        return OpResult();
    }
    Fd current(::open(p.startsWith('/') ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!current.valid())
        return errnoResult(errno, Operation::Write, p);
    const QList<QByteArray> parts = p.split('/');
    qsizetype last = parts.size() - 1;
    while (last >= 0 && parts.at(last).isEmpty())
        --last;
    qsizetype end = 0; // of the current prefix in p
    for (qsizetype i = 0; i <= last; ++i) {
        const QByteArray &part = parts.at(i);
        end += part.size() + (i > 0 ? 1 : 0);
        if (part.isEmpty())
            continue;
        const QByteArray prefix = p.left(end);
        const bool isLast = i == last;
        bool created = false;
        if (::mkdirat(current.get(), part.constData(), isLast ? createMode : 0777) == 0)
            created = true;
        else if (errno != EEXIST)
            return errnoResult(errno, Operation::Write, prefix);
        // follows symlinks to folders, as mkdir -p does
        Fd next(::openat(current.get(), part.constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!next.valid()) {
            if (errno == ENOTDIR)
                return makeError(isLast ? ErrAlreadyExists : ErrIsNotDirectory, prefix, ENOTDIR);
            return errnoResult(errno, Operation::Write, prefix);
        }
        if (isLast && created && mode >= 0)
            ::fchmodat(current.get(), part.constData(), mode_t(mode) & 07777, 0);
        current = std::move(next);
    }
    return OpResult();
}

OpResult rename(const QByteArray &from, const QByteArray &to, bool overwrite)
{
    if (from.isEmpty() || hasNul(from))
        return makeError(ErrMalformedUrl, from);
    if (to.isEmpty() || hasNul(to))
        return makeError(ErrMalformedUrl, to);
    const QByteArray src = stripTrailingSlashes(from);
    const QByteArray dst = stripTrailingSlashes(to);
    struct stat srcSt;
    struct stat dstSt;
    if (::fstatat(AT_FDCWD, src.constData(), &srcSt, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoResult(errno, Operation::Read, src);
    if (::fstatat(AT_FDCWD, dst.constData(), &dstSt, AT_SYMLINK_NOFOLLOW) == 0) {
        if (sameFile(srcSt, dstSt))
            return makeError(ErrIdenticalFiles, dst);
        if (!overwrite)
            return makeError(ErrAlreadyExists, dst);
    }
    int r;
    if (overwrite) {
        r = ::renameat(AT_FDCWD, src.constData(), AT_FDCWD, dst.constData());
    } else {
        r = ::renameat2(AT_FDCWD, src.constData(), AT_FDCWD, dst.constData(), RENAME_NOREPLACE);
        if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // no RENAME_NOREPLACE on this filesystem (or a folder into itself: renameat says so again)
            if (::fstatat(AT_FDCWD, dst.constData(), &dstSt, AT_SYMLINK_NOFOLLOW) == 0)
                return makeError(ErrAlreadyExists, dst);
            r = ::renameat(AT_FDCWD, src.constData(), AT_FDCWD, dst.constData());
        }
    }
    if (r == 0)
        return OpResult();
    const int err = errno;
    switch (err) {
    case EINVAL:
        return makeError(ErrCycle, src, err);
    case EXDEV:
        return makeError(ErrUnsupportedAction, src, err);
    case EEXIST:
    case ENOTEMPTY:
        return makeError(overwrite ? ErrDirectoryNotEmpty : ErrAlreadyExists, dst, err);
    default:
        return errnoResult(err, Operation::Write, dst);
    }
}

OpResult symlink(const QByteArray &target, const QByteArray &linkPath)
{
    if (hasNul(target))
        return makeError(ErrMalformedUrl, target);
    if (linkPath.isEmpty() || hasNul(linkPath))
        return makeError(ErrMalformedUrl, linkPath);
    if (::symlinkat(target.constData(), AT_FDCWD, linkPath.constData()) != 0)
        return errnoResult(errno, Operation::Write, linkPath);
    return OpResult();
}

OpResult chmod(const QByteArray &path, int mode)
{
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    if (::fchmodat(AT_FDCWD, path.constData(), mode_t(mode) & 07777, 0) != 0)
        return errnoResult(errno, Operation::Write, path);
    return OpResult();
}

} // namespace Qvfs::FileOps
