// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h: owners of fds and directory streams, raw-path
// helpers and the OpResult makers that its parts share.
#ifndef QVFS_FILEOPS_UTIL_P_H
#define QVFS_FILEOPS_UTIL_P_H

#include "fileops_base_p.h"
#include "rawpath_p.h"
#include "requests.h"
#include "umask_p.h" // processUmask()

#include <QByteArray>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <utility>

namespace Qvfs::FileOps
{

constexpr int NameMax = NAME_MAX;

// Owns a file descriptor.
class QVFSWORKER_EXPORT Fd
{
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    { }
    ~Fd() { reset(); }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd(Fd &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    { }
    Fd &operator=(Fd &&other) noexcept
    {
        reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release() { return std::exchange(m_fd, -1); }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd;
};

// Owns a directory stream made from a directory fd (taking the fd over).
class QVFSWORKER_EXPORT DirStream
{
public:
    explicit DirStream(Fd &&fd)
    {
        m_dir = ::fdopendir(fd.get());
        if (m_dir)
            fd.release();
    }
    ~DirStream()
    {
        if (m_dir)
            ::closedir(m_dir);
    }
    DirStream(const DirStream &) = delete;
    DirStream &operator=(const DirStream &) = delete;
    bool valid() const { return m_dir != nullptr; }
    int fd() const { return ::dirfd(m_dir); }
    void rewind() { ::rewinddir(m_dir); }
    // The next entry other than "." and "..", or null at the end (errno is then 0) or on error.
    struct dirent *next()
    {
        for (;;) {
            errno = 0;
            struct dirent *e = ::readdir(m_dir);
            if (!e)
                return nullptr;
            const char *n = e->d_name;
            if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
                continue;
            return e;
        }
    }

private:
    DIR *m_dir = nullptr;
};

// The text of the errno \a err (strerror_r: safe in any thread).
QVFSWORKER_EXPORT QByteArray errnoText(int err);
// "\a what: " and the text of the errno \a err.
QVFSWORKER_EXPORT QByteArray errnoText(const char *what, int err);
// An OpResult with the error \a code for \a path, and the text of \a err unless 0.
QVFSWORKER_EXPORT OpResult makeError(int code, const QByteArray &path, int err = 0);
/*!
 * Opens the folder \a path lies in (read-only) and gives \a path's last component in \a
 * name. With a valid \a expected the folder is opened without following a symlink at its
 * last component and must be that very folder (device and inode): ErrSourceChanged names
 * \a path otherwise — a folder a copy created, swapped meanwhile, must not redirect the
 * copy's writes.
 */
QVFSWORKER_EXPORT OpResult openParent(
    const QByteArray &path, const Qvfs::FileIdentity &expected, int *dirFd, QByteArray *name);
// The OpResult of the errno \a err met during \a op on \a path.
QVFSWORKER_EXPORT OpResult errnoResult(int err, Operation op, const QByteArray &path);
QVFSWORKER_EXPORT bool hasNul(const QByteArray &path);
// The raw-path rules of Qvfs::Proto (rawpath_p.h), by the names the engine uses.
using Internal::joinPath;
using Internal::splitPath;
using Internal::stripTrailingSlashes;
// Whether \a a and \a b are the same file (device and inode).
QVFSWORKER_EXPORT bool sameFile(const struct stat &a, const struct stat &b);
// "/proc/self/fd/N" (and "/N/name" with \a name): the very file or folder \a fd was opened
// on, for calls that take a path, resolved through the descriptor (no component swapped).
QVFSWORKER_EXPORT QByteArray fdPath(int fd, QByteArrayView name = {});
// Writes all of \a data to \a fd (at its offset, again after EINTR); false on failure (errno set).
QVFSWORKER_EXPORT bool writeAll(int fd, QByteArrayView data);
// Whether \a name is empty, "." or "..".
QVFSWORKER_EXPORT bool isDot(const QByteArray &name);

} // namespace Qvfs::FileOps

#endif
