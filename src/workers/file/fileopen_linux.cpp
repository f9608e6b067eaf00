// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the file:// worker (OpenRequest): one descriptor, pread/pwrite/
// ftruncate at the offsets the application sends; the base class does the rest.
#include "fileworker.h"

#include "fileentryinfo_p.h"
#include "url.h"

#include <QMimeDatabase>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs
{

namespace
{
constexpr qsizetype MimeSniffBytes = 16 * 1024; // what QMimeDatabase looks at
} // namespace

WorkerResult FileWorker::keepRegularFile(int fd, const struct stat &st, const QUrl &url)
{
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return WorkerResult::fail(S_ISDIR(st.st_mode) ? int(ErrIsDirectory) : int(ErrCannotRead), url);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return WorkerResult::pass();
}

WorkerResult FileWorker::openFile(const OpenRequest &request, OpenedFile *file)
{
    const QUrl &url = request.url;
    const QByteArray path = Url::localPath(url);
    int flags = O_CLOEXEC | O_NOCTTY;
    if (request.write)
        flags |= request.read ? O_RDWR : O_WRONLY;
    else
        flags |= O_RDONLY;
    if (request.append)
        flags |= O_APPEND;
    // O_NONBLOCK: opening a fifo must not wait for its other end (it is refused below).
    // The last component is followed when it is a symlink, as open(2) does: an application
    // opening a URL expects a link to lead to its file.
    int fd = -1;
    bool created = false;
    if (request.create) {
        const mode_t mode = request.permissions >= 0 ? mode_t(request.permissions) : 0666;
        fd = ::open(path.constData(), flags | O_NONBLOCK | O_CREAT | O_EXCL, mode);
        created = fd >= 0;
        if (fd < 0 && errno == EEXIST && !request.exclusive)
            fd = ::open(path.constData(), flags | O_NONBLOCK);
    } else {
        fd = ::open(path.constData(), flags | O_NONBLOCK);
        if (fd >= 0 && request.exclusive) {
            ::close(fd);
            return WorkerResult::fail(ErrAlreadyExists, url);
        }
    }
    if (fd < 0)
        return WorkerResult::fail(
            errnoError(errno, request.write ? FileOps::Operation::Write : FileOps::Operation::Read), url);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return WorkerResult::fail(errnoError(err), url);
    }
    // Only regular files have offsets to read at.
    if (const WorkerResult kept = keepRegularFile(fd, st, url); !kept.ok())
        return kept;
    // Truncated only now that it is known to be a regular file; created files get their
    // permission bits exactly, whatever the umask.
    if (request.truncate && st.st_size > 0) {
        if (::ftruncate(fd, 0) != 0) {
            const int err = errno;
            ::close(fd);
            return WorkerResult::fail(errnoError(err, FileOps::Operation::Write), url);
        }
        st.st_size = 0;
    }
    if (created && request.permissions >= 0)
        ::fchmod(fd, mode_t(request.permissions));

    m_openFd = fd;
    m_openWrite = request.write;
    file->size = st.st_size;
    file->canSeek = true;
    // With O_APPEND every write goes to the end (pwrite too, on Linux): no writes at offsets.
    file->canWrite = request.write && !request.append;
    file->canTruncate = request.write;
    file->canAppend = request.write;
    // The MIME type from the name and the first bytes, as get() reports it.
    QByteArray head;
    if (request.read && st.st_size > 0) {
        head.resize(qMin<qint64>(st.st_size, MimeSniffBytes));
        const ssize_t n = ::pread(fd, head.data(), size_t(head.size()), 0);
        head.resize(n > 0 ? qsizetype(n) : 0);
    }
    const QString name = QString::fromLocal8Bit(Url::fileName(url));
    file->mimeType = FileEntryInfo::mimeDatabase().mimeTypeForFileNameAndData(name, head).name();
    return WorkerResult::pass();
}

WorkerResult FileWorker::readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead)
{
    for (;;) {
        const ssize_t n = ::pread(m_openFd, buffer, size_t(length), off_t(offset));
        if (n >= 0) {
            *bytesRead = n;
            return WorkerResult::pass();
        }
        if (errno != EINTR)
            return WorkerResult::fail(errnoError(errno, FileOps::Operation::Read));
    }
}

WorkerResult FileWorker::writeAt(qint64 offset, QByteArrayView data)
{
    while (!data.isEmpty()) {
        const ssize_t n = ::pwrite(m_openFd, data.data(), size_t(data.size()), off_t(offset));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write));
        }
        data = data.sliced(n);
        offset += n;
    }
    return WorkerResult::pass();
}

WorkerResult FileWorker::append(QByteArrayView data, qint64 *offset)
{
    const bool appendMode = ::fcntl(m_openFd, F_GETFL) & O_APPEND;
    if (!appendMode) {
        // Opened without O_APPEND: at the size as it is now.
        struct stat st;
        if (::fstat(m_openFd, &st) != 0)
            return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write));
        *offset = st.st_size;
        return writeAt(st.st_size, data);
    }
    // O_APPEND: each write() lands at the end atomically and leaves the descriptor's
    // offset behind what it wrote, which tells where that was.
    *offset = -1;
    while (!data.isEmpty()) {
        const ssize_t n = ::write(m_openFd, data.data(), size_t(data.size()));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write));
        }
        if (*offset < 0) {
            const off_t end = ::lseek(m_openFd, 0, SEEK_CUR);
            *offset = end >= n ? qint64(end - n) : -1;
        }
        data = data.sliced(n);
    }
    return WorkerResult::pass();
}

WorkerResult FileWorker::truncate(qint64 length)
{
    while (::ftruncate(m_openFd, off_t(length)) != 0) {
        if (errno != EINTR)
            return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write));
    }
    return WorkerResult::pass();
}

WorkerResult FileWorker::fileSize(qint64 *size)
{
    struct stat st;
    if (::fstat(m_openFd, &st) != 0)
        return WorkerResult::fail(errnoError(errno));
    *size = st.st_size;
    return WorkerResult::pass();
}

WorkerResult FileWorker::closeFile()
{
    const int fd = m_openFd;
    m_openFd = -1;
    if (fd < 0)
        return WorkerResult::pass();
    // Not retried on EINTR: the descriptor is gone either way on Linux. A failure here is
    // a write that did not make it (NFS reports them at close).
    if (::close(fd) != 0 && errno != EINTR && m_openWrite)
        return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write));
    return WorkerResult::pass();
}

} // namespace Qvfs
