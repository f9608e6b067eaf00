// SPDX-License-Identifier: LGPL-2.1-or-later
#include "localfilewriter.h"
#include "fileops_base_p.h"
#include "fileops_util_p.h"
#include "url.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace Qvfs
{

namespace
{
WorkerResult resultOf(const FileOps::OpResult &r, const QByteArray &fallback)
{
    if (r.ok())
        return WorkerResult::pass();
    if (r.error == ErrInternal)
        return WorkerResult::fail(r.error, r.detail + " (" + (r.path.isEmpty() ? fallback : r.path) + ')');
    return WorkerResult::fail(r.error, Url::fromLocalPath(r.path.isEmpty() ? fallback : r.path));
}
} // namespace

struct LocalFileWriter::Private
{
    FileOps::AtomicWriter writer;
    QByteArray path;
};

LocalFileWriter::LocalFileWriter()
    : d(new Private)
{ }

LocalFileWriter::~LocalFileWriter() = default;

WorkerResult LocalFileWriter::open(
    const QByteArray &path, bool overwrite, int permissions, const FileIdentity &expectedParent)
{
    d->path = path;
    return resultOf(d->writer.open(path, overwrite, permissions, true, expectedParent), path);
}

WorkerResult LocalFileWriter::write(QByteArrayView data)
{
    return resultOf(d->writer.write(data), d->path);
}

int LocalFileWriter::fd() const
{
    return d->writer.fd();
}

void LocalFileWriter::setModificationTime(qint64 seconds, qint64 nanoseconds)
{
    d->writer.setModificationTime(seconds, nanoseconds);
}

WorkerResult LocalFileWriter::commit()
{
    return resultOf(d->writer.commit(), d->path);
}

void LocalFileWriter::discard()
{
    d->writer.discard();
}

int LocalFileWriter::openSource(const QByteArray &path, const FileIdentity &expected, WorkerResult *error)
{
    const QUrl url = Url::fromLocalPath(path);
    // O_NONBLOCK: opening a fifo must not wait for a writer; only regular files are read.
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) {
        const int err = errno;
        // A symlink where the listing saw a file: the entry was swapped.
        *error = WorkerResult::fail(err == ELOOP && expected.isValid()
                ? int(ErrSourceChanged)
                : FileOps::errorFromErrno(err, FileOps::Operation::Read),
            url);
        return -1;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        *error = WorkerResult::fail(FileOps::errorFromErrno(errno, FileOps::Operation::Read), url);
        ::close(fd);
        return -1;
    }
    int code = 0;
    if (expected.isValid() && (qint64(st.st_ino) != expected.inode || qint64(st.st_dev) != expected.device))
        code = ErrSourceChanged;
    else if (S_ISDIR(st.st_mode))
        code = ErrIsDirectory;
    else if (!S_ISREG(st.st_mode))
        code = ErrCannotRead;
    if (code) {
        *error = WorkerResult::fail(code, url);
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

} // namespace Qvfs
