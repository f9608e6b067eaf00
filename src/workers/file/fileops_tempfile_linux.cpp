// SPDX-License-Identifier: LGPL-2.1-or-later
// Temporary files (fileops_tempfile_p.h): O_TMPFILE linked in through /proc/self/fd, or
// a named hidden .part file renamed into place.
#include "fileops_tempfile_p.h"

#include "error.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace Qvfs::FileOps
{

namespace
{

// linkat() of an O_TMPFILE file goes through /proc/self/fd (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH).
bool procFdAvailable()
{
    static const bool available = ::access("/proc/self/fd", X_OK) == 0;
    return available;
}

QByteArray randomLetters(int count)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char bytes[16];
    if (::getrandom(bytes, size_t(count), GRND_NONBLOCK) != count) {
        static unsigned counter = 0;
        struct timespec now;
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        unsigned long long seed
            = (unsigned long long)now.tv_nsec ^ ((unsigned long long)::getpid() << 32) ^ (++counter * 2654435761u);
        for (int i = 0; i < count; ++i) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            bytes[i] = (unsigned char)(seed >> 33);
        }
    }
    QByteArray result(count, Qt::Uninitialized);
    for (int i = 0; i < count; ++i)
        result[i] = letters[bytes[i] % (sizeof letters - 1)];
    return result;
}

} // namespace

QByteArray tempName(const QByteArray &name)
{
    static const QByteArray middle = QByteArrayLiteral(".qvfs-");
    static const QByteArray suffix = QByteArrayLiteral(".part");
    const qsizetype room = NameMax - 1 - middle.size() - 6 - suffix.size();
    return '.' + truncatedName(name, room) + middle + randomLetters(6) + suffix;
}

OpResult openTempFile(
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, bool allowTmpFile, TempFile *tmp)
{
    if (allowTmpFile && procFdAvailable()) {
        const int fd = ::openat(dstDirFd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (fd >= 0) {
            tmp->fd.reset(fd);
            return OpResult();
        }
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        const QByteArray name = tempName(dstName);
        const int fd = ::openat(dstDirFd, name.constData(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            tmp->fd.reset(fd);
            tmp->dirFd = dstDirFd;
            tmp->name = name;
            return OpResult();
        }
        if (errno != EEXIST)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    return makeError(ErrCannotWrite, dstPath);
}

OpResult commitTempFile(TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace)
{
    if (tmp->name.isEmpty()) {
        char procPath[64];
        std::snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", tmp->fd.get());
        if (!replace) {
            // fails with EEXIST if the name was taken meanwhile: nothing is overwritten
            if (::linkat(AT_FDCWD, procPath, dstDirFd, dstName.constData(), AT_SYMLINK_FOLLOW) != 0)
                return errnoResult(errno, Operation::Write, dstPath);
            return OpResult();
        }
        // give it a hidden unique name, then rename it over the destination
        for (int attempt = 0;; ++attempt) {
            const QByteArray name = tempName(dstName);
            if (::linkat(AT_FDCWD, procPath, dstDirFd, name.constData(), AT_SYMLINK_FOLLOW) == 0) {
                tmp->dirFd = dstDirFd;
                tmp->name = name;
                break;
            }
            if (errno != EEXIST || attempt == 100)
                return errnoResult(errno, Operation::Write, dstPath);
        }
    }
    // a named temporary: close first, some filesystems report write errors on close
    if (::close(tmp->fd.release()) != 0 && errno != EINTR)
        return errnoResult(errno, Operation::Write, dstPath);
    if (replace) {
        if (::renameat(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData()) != 0)
            return errnoResult(errno, Operation::Write, dstPath);
    } else if (::renameat2(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData(), RENAME_NOREPLACE) != 0) {
        if (errno != EINVAL && errno != ENOSYS)
            return errnoResult(errno, Operation::Write, dstPath);
        // no RENAME_NOREPLACE here: check, then rename (racy, but nothing better exists)
        struct stat st;
        if (::fstatat(dstDirFd, dstName.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            return makeError(ErrAlreadyExists, dstPath);
        if (::renameat(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData()) != 0)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    tmp->name.clear(); // committed
    return OpResult();
}

} // namespace Qvfs::FileOps
