// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies between the server and local files done by the worker itself, so the bytes
// never pass through the application: copyFromFile (a local file up to the server).
#include "sftpworker.h"

#include "error.h"
#include "sftp_debug.h"
#include "url.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs
{

using Sftp::Session;

namespace
{

int localError(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return ErrDoesNotExist;
    case EACCES:
    case EPERM:
        return ErrAccessDenied;
    case EISDIR:
        return ErrIsDirectory;
    case ELOOP:
        return ErrSymlinkLoop;
    case ENAMETOOLONG:
        return ErrNameTooLong;
    default:
        return ErrCannotRead;
    }
}

/*! A file descriptor closed at the end of the scope. */
struct LocalFd
{
    int fd = -1;
    ~LocalFd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

WorkerResult SftpWorker::copyFromFile(const FileCopyRequest &request)
{
    const QUrl &source = request.source;
    const QUrl &destination = request.destination;
    const QByteArray localPath = Url::localPath(source);
    if (localPath.isEmpty() || !Url::isLocalFile(source))
        return WorkerResult::fail(ErrUnsupportedAction, source);

    // The very file the job listed: never through a symlink, and the same identity.
    LocalFd in;
    in.fd = ::open(localPath.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (in.fd < 0) {
        const int err = errno;
        if (err == ELOOP && request.expected.isValid())
            return WorkerResult::fail(ErrSourceChanged, source);
        return WorkerResult::fail(localError(err), source);
    }
    struct stat st;
    if (::fstat(in.fd, &st) != 0)
        return WorkerResult::fail(localError(errno), source);
    if (request.expected.isValid()
        && (qint64(st.st_dev) != request.expected.device || qint64(st.st_ino) != request.expected.inode))
        return WorkerResult::fail(ErrSourceChanged, source);
    if (S_ISDIR(st.st_mode))
        return WorkerResult::fail(ErrIsDirectory, source);
    if (!S_ISREG(st.st_mode))
        return WorkerResult::fail(ErrCannotRead, source); // a fifo or device: not copied as a file
    ::fcntl(in.fd, F_SETFL, ::fcntl(in.fd, F_GETFL) & ~O_NONBLOCK);

    WorkerResult c = ensureConnected();
    if (!c.ok())
        return c;
    QByteArray path;
    c = serverPath(destination, &path);
    if (!c.ok())
        return c;
    Session::PutOptions o;
    o.overwrite = request.overwrite;
    if (request.permissions >= 0)
        o.permissions = quint32(request.permissions) & 07777;
    bool timesKept = false;
    if (request.mtime >= 0) {
        o.mtime = request.mtime;
        o.timesKept = &timesKept;
    }
    setTotals(qint64(st.st_size), 1, -1);
    int readError = 0;
    const Result r = m_session.put(
        path, o,
        [&](char *buffer, qint64 capacity) -> qint64 {
            if (wasKilled())
                return -qint64(ErrCancelled);
            for (;;) {
                const ssize_t n = ::read(in.fd, buffer, size_t(capacity));
                if (n >= 0)
                    return n;
                if (errno == EINTR)
                    continue;
                readError = errno;
                return -qint64(ErrCannotRead);
            }
        },
        [this](quint64 bytes) { setProcessed(qint64(bytes)); });
    if (readError)
        return WorkerResult::fail(localError(readError), source);
    if (!r.ok())
        return fail(r, destination);
    if (request.mtime >= 0)
        setResult(ResultKey::TimesKept, timesKept ? 1 : 0);
    setProcessed(qint64(st.st_size), 1);
    return WorkerResult::pass();
}

} // namespace Qvfs
