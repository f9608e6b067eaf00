// SPDX-License-Identifier: LGPL-2.1-or-later
// The shared helpers of the engine (fileops_util_p.h) and the errno mapping of fileops.h.
#include "fileops_util_p.h"

#include "error.h"

#include <fcntl.h>

#include <cstdlib>
#include <cstring>

namespace Qvfs::FileOps
{

QByteArray errnoText(int err)
{
    char buffer[256];
    // GNU strerror_r (g++ always defines _GNU_SOURCE): returns the text, maybe not in buffer
    return QByteArray(::strerror_r(err, buffer, sizeof buffer));
}

QByteArray errnoText(const char *what, int err)
{
    return QByteArray(what) + ": " + errnoText(err);
}

OpResult makeError(int code, const QByteArray &path, int err)
{
    OpResult result;
    result.error = code;
    result.path = path;
    if (err != 0)
        result.detail = errnoText(err);
    return result;
}

OpResult errnoResult(int err, Operation op, const QByteArray &path)
{
    return makeError(errorFromErrno(err, op), path, err);
}

bool hasNul(const QByteArray &path)
{
    return path.contains('\0');
}

bool sameFile(const struct stat &a, const struct stat &b)
{
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

QByteArray fdPath(int fd, QByteArrayView name)
{
    QByteArray p = "/proc/self/fd/" + QByteArray::number(fd);
    if (!name.isEmpty())
        p += '/' + name.toByteArray();
    return p;
}

bool writeAll(int fd, QByteArrayView data)
{
    while (!data.isEmpty()) {
        const ssize_t n = ::write(fd, data.data(), size_t(data.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data = data.sliced(n);
    }
    return true;
}

bool isDot(const QByteArray &name)
{
    return name.isEmpty() || name == QByteArrayLiteral(".") || name == QByteArrayLiteral("..");
}

OpResult openParent(const QByteArray &path, const FileIdentity &expected, int *dirFd, QByteArray *name)
{
    *dirFd = -1;
    QByteArray dir;
    splitPath(stripTrailingSlashes(path), &dir, name);
    const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (expected.isValid() ? O_NOFOLLOW : 0);
    Fd fd(::open(dir.constData(), flags));
    if (!fd.valid()) {
        const int err = errno;
        if (expected.isValid() && (err == ELOOP || err == ENOTDIR))
            return makeError(ErrSourceChanged, path); // a symlink (or a file) where the folder was
        return errnoResult(err, Operation::Write, err == ENOENT ? dir : path);
    }
    if (expected.isValid()) {
        struct stat st;
        if (::fstat(fd.get(), &st) != 0)
            return errnoResult(errno, Operation::Write, path);
        if (qint64(st.st_ino) != expected.inode || qint64(st.st_dev) != expected.device)
            return makeError(ErrSourceChanged, path);
    }
    *dirFd = fd.release();
    return OpResult();
}

int errorFromErrno(int err, Operation op)
{
    switch (err) {
    case 0:
        return NoError;
    case ENOENT:
        return ErrDoesNotExist;
    case EACCES:
    case EPERM:
        return ErrAccessDenied;
    case ENOSPC:
    case EDQUOT:
        return ErrDiskFull;
    case EFBIG:
        return ErrFileTooLarge;
    case EEXIST:
        return ErrAlreadyExists;
    case EISDIR:
        return ErrIsDirectory;
    case ENOTDIR:
        return ErrIsNotDirectory;
    case ENOTEMPTY:
        return ErrDirectoryNotEmpty;
    case ENAMETOOLONG:
        return ErrNameTooLong;
    case ELOOP:
        return ErrSymlinkLoop;
    case EROFS:
        return ErrReadOnlyFilesystem;
    case EXDEV:
        return ErrUnsupportedAction;
    case ECANCELED:
        return ErrCancelled;
    case EIO:
    case EBUSY:
    case ETXTBSY:
        switch (op) {
        case Operation::Read:
            return ErrCannotRead;
        case Operation::Write:
            return ErrCannotWrite;
        case Operation::Delete:
            return ErrCannotDelete;
        }
        break;
    default:
        break;
    }
    return ErrInternal;
}

} // namespace Qvfs::FileOps
