// SPDX-License-Identifier: LGPL-2.1-or-later
// The operations of fileops.h on one entry: mkdir(), rename(), symlink(), chmod(),
// setModificationTime(), and opening one entry checked against an identity.
#include "fileops.h"
#include "fileops_util_p.h"

#include "error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

namespace Qvfs::FileOps
{

namespace
{

// Gives the folder just created, (dirFd, name), exactly \a mode and notes its identity,
// on a descriptor opened without following a symlink: a symlink swapped in is never changed.
OpResult finishCreated(int dirFd, const QByteArray &name, const QByteArray &path, int mode, FileIdentity *created)
{
    if (mode < 0 && !created)
        return OpResult();
    bool pathOnly = false;
    Fd fd(::openat(dirFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() && errno == EACCES) {
        // a mode its owner may not read: O_PATH, and the mode through /proc
        fd.reset(::openat(dirFd, name.constData(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        pathOnly = true;
    }
    if (!fd.valid())
        return makeError(ErrSourceChanged, path, errno); // moved away or replaced at once
    if (mode >= 0) {
        const mode_t bits = mode_t(mode) & 07777;
        if (pathOnly)
            ::fchmodat(AT_FDCWD, fdPath(fd.get()).constData(), bits, 0);
        else
            ::fchmod(fd.get(), bits);
    }
    if (created)
        *created = identityOf(fd.get());
    return OpResult();
}

} // namespace

FileIdentity identityOf(int fd)
{
    FileIdentity id;
    struct statx st;
    if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO, &st) == 0) {
        // as the listing reports it (filelister_linux.cpp)
        id.device = qint64(makedev(st.stx_dev_major, st.stx_dev_minor));
        id.inode = qint64(st.stx_ino);
    }
    return id;
}

OpResult openEntry(const QByteArray &path, int flags, const FileIdentity &expected, int *fd, struct stat *st)
{
    *fd = -1;
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    QByteArray dir, name;
    splitPath(path, &dir, &name);
    if (isDot(name) && !name.isEmpty())
        return makeError(ErrMalformedUrl, path);
    Fd parent(::open(dir.constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent.valid())
        return errnoResult(errno, Operation::Read, path);
    // The root has no name in a parent; it is never a symlink.
    Fd entry(::openat(parent.get(), name.isEmpty() ? "." : name.constData(), flags | O_NOFOLLOW | O_CLOEXEC));
    if (!entry.valid()) {
        const int err = errno;
        if (expected.isValid() && (err == ELOOP || err == ENOTDIR || err == ENXIO))
            return makeError(ErrSourceChanged, path, err); // a symlink (or a socket) there now
        return errnoResult(err, Operation::Read, path);
    }
    if (::fstat(entry.get(), st) != 0)
        return errnoResult(errno, Operation::Read, path);
    if (expected.isValid() && identityOf(entry.get()) != expected)
        return makeError(ErrSourceChanged, path);
    *fd = entry.release();
    return OpResult();
}

OpResult mkdir(
    const QByteArray &path, int mode, bool parents, FileIdentity *created, const FileIdentity &expectedParent)
{
    if (created)
        *created = FileIdentity();
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    const QByteArray p = stripTrailingSlashes(path);
    const mode_t createMode = mode < 0 ? 0777 : mode_t(mode) & 0777;
    if (!parents) {
        QByteArray name;
        int raw = -1;
        // A missing parent is what does not exist: openParent() names it, not the new folder.
        const OpResult opened = openParent(p, expectedParent, &raw, &name);
        if (!opened.ok())
            return opened;
        Fd parent(raw);
        if (isDot(name) && !name.isEmpty())
            return makeError(ErrMalformedUrl, path);
        if (::mkdirat(parent.get(), name.isEmpty() ? "." : name.constData(), createMode) != 0)
            return errnoResult(errno, Operation::Write, p);
        return finishCreated(parent.get(), name, p, mode, created);
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
        if (::mkdirat(current.get(), part.constData(), isLast ? createMode : 0777) == 0) {
            if (isLast)
                return finishCreated(current.get(), part, prefix, mode, created);
        } else if (errno != EEXIST) {
            return errnoResult(errno, Operation::Write, prefix);
        }
        // follows symlinks to folders, as mkdir -p does
        Fd next(::openat(current.get(), part.constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!next.valid()) {
            if (errno == ENOTDIR)
                return makeError(isLast ? ErrAlreadyExists : ErrIsNotDirectory, prefix, ENOTDIR);
            return errnoResult(errno, Operation::Write, prefix);
        }
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

OpResult symlink(const QByteArray &target, const QByteArray &linkPath, const FileIdentity &expectedParent)
{
    if (hasNul(target))
        return makeError(ErrMalformedUrl, target);
    if (linkPath.isEmpty() || hasNul(linkPath))
        return makeError(ErrMalformedUrl, linkPath);
    if (!expectedParent.isValid()) {
        if (::symlinkat(target.constData(), AT_FDCWD, linkPath.constData()) != 0)
            return errnoResult(errno, Operation::Write, linkPath);
        return OpResult();
    }
    int raw = -1;
    QByteArray name;
    const OpResult opened = openParent(linkPath, expectedParent, &raw, &name);
    if (!opened.ok())
        return opened;
    Fd parent(raw);
    if (::symlinkat(target.constData(), parent.get(), name.constData()) != 0)
        return errnoResult(errno, Operation::Write, linkPath);
    return OpResult();
}

namespace
{

// Changes the entry open at \a fd (O_PATH; \a st its stat) with \a byPath on its /proc
// path. Without /proc, a folder or file is opened again for reading (\a p, checked against
// \a expected again) and changed with \a byFd on that descriptor. Errors name \a path.
template<typename ByPath, typename ByFd>
OpResult changeOpened(const Fd &fd, const struct stat &st, const QByteArray &p, const QByteArray &path,
    const FileIdentity &expected, ByPath byPath, ByFd byFd)
{
    if (byPath(fdPath(fd.get()).constData()) == 0)
        return OpResult();
    if (errno != ENOENT || (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)))
        return errnoResult(errno, Operation::Write, path);
    int raw = -1;
    struct stat again;
    const OpResult r = openEntry(p, O_RDONLY | O_NONBLOCK | O_NOCTTY, expected, &raw, &again);
    if (!r.ok())
        return r;
    const Fd readable(raw);
    if (byFd(readable.get()) != 0)
        return errnoResult(errno, Operation::Write, path);
    return OpResult();
}

} // namespace

OpResult chmod(const QByteArray &path, int mode, const FileIdentity &expected)
{
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    const mode_t bits = mode_t(mode) & 07777;
    if (!expected.isValid()) {
        if (::fchmodat(AT_FDCWD, path.constData(), bits, 0) != 0)
            return errnoResult(errno, Operation::Write, path);
        return OpResult();
    }
    // O_PATH: a folder or file its owner may not read can still be changed.
    int raw = -1;
    struct stat st;
    const OpResult r = openEntry(stripTrailingSlashes(path), O_PATH, expected, &raw, &st);
    if (!r.ok())
        return r;
    Fd fd(raw);
    if (S_ISLNK(st.st_mode))
        return makeError(ErrUnsupportedAction, path); // a link has no permissions of its own
    return changeOpened(
        fd, st, stripTrailingSlashes(path), path, expected,
        [bits](const char *procPath) { return ::fchmodat(AT_FDCWD, procPath, bits, 0); },
        [bits](int readable) { return ::fchmod(readable, bits); });
}

OpResult setModificationTime(const QByteArray &path, qint64 seconds, qint64 nanoseconds, const FileIdentity &expected)
{
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    // The access time untouched; a link's own time, never its target's.
    const timespec times[2] = { { 0, UTIME_OMIT }, { time_t(seconds), long(nanoseconds) } };
    if (!expected.isValid()) {
        if (::utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW) != 0)
            return errnoResult(errno, Operation::Write, path);
        return OpResult();
    }
    const QByteArray p = stripTrailingSlashes(path);
    int raw = -1;
    struct stat st;
    const OpResult r = openEntry(p, O_PATH, expected, &raw, &st);
    if (!r.ok())
        return r;
    Fd fd(raw);
    if (S_ISLNK(st.st_mode)) {
        // No call sets a link's time through a descriptor: by its name, still not followed.
        if (::utimensat(AT_FDCWD, p.constData(), times, AT_SYMLINK_NOFOLLOW) != 0)
            return errnoResult(errno, Operation::Write, path);
        return OpResult();
    }
    return changeOpened(
        fd, st, p, path, expected, [&times](const char *procPath) { return ::utimensat(AT_FDCWD, procPath, times, 0); },
        [&times](int readable) { return ::futimens(readable, times); });
}

} // namespace Qvfs::FileOps
