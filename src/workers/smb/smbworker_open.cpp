// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the smb worker (OpenRequest): one open file of the context, read and
// written at the offsets the application sends (lseek, then read or write), cut with
// ftruncate; the base class serves the application's requests in order.
#include "smbworker.h"

#include "error.h"
#include "fileops_base_p.h"
#include "url.h"

#include <QMimeDatabase>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace Qvfs
{

using FileOps::Operation;

WorkerResult SmbWorker::openFile(const OpenRequest &request, OpenedFile *file)
{
    const QUrl &url = request.url;
    struct stat st;
    WorkerResult r = statEntry(url, &st);
    const bool exists = r.ok();
    if (!exists && (r.code() != ErrDoesNotExist || !request.create || !request.write))
        return r;
    if (exists) {
        if (request.create && request.exclusive)
            return WorkerResult::fail(ErrAlreadyExists, url);
        if (S_ISDIR(st.st_mode))
            return WorkerResult::fail(ErrIsDirectory, url);
    }
    int flags = request.write ? (request.read ? O_RDWR : O_WRONLY) : O_RDONLY;
    if (request.write && request.truncate)
        flags |= O_TRUNC;
    if (request.write && request.create)
        flags |= request.exclusive ? (O_CREAT | O_EXCL) : O_CREAT;
    r = openRemote(url, flags, &m_open);
    if (!r.ok())
        return r;
    m_openUrl = url;
    m_openAppend = request.append;
    file->size = exists && !(request.write && request.truncate) ? qint64(st.st_size) : 0;
    file->canSeek = true;
    file->canWrite = request.write && !request.append;
    file->canTruncate = request.write;
    file->canAppend = request.write;
    static const QMimeDatabase db;
    file->mimeType = db.mimeTypeForFile(QString::fromUtf8(Url::fileName(url)), QMimeDatabase::MatchExtension).name();
    return WorkerResult::pass();
}

WorkerResult SmbWorker::seekOpen(qint64 offset, int whence, qint64 *at)
{
    SMBCCTX *ctx = m_ctx.get();
    const off_t pos = smbc_getFunctionLseek(ctx)(ctx, m_open, off_t(offset), whence);
    if (pos < 0)
        return fail(errno, m_openUrl, int(Operation::Read));
    if (at)
        *at = qint64(pos);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead)
{
    WorkerResult r = seekOpen(offset, SEEK_SET, nullptr);
    if (!r.ok())
        return r;
    SMBCCTX *ctx = m_ctx.get();
    const ssize_t n = smbc_getFunctionRead(ctx)(ctx, m_open, buffer, size_t(length));
    if (n < 0)
        return fail(errno, m_openUrl, int(Operation::Read));
    *bytesRead = n;
    return WorkerResult::pass();
}

WorkerResult SmbWorker::writeAll(QByteArrayView data)
{
    if (!m_ctx.writeAll(m_open, data.data(), data.size()))
        return fail(errno, m_openUrl, int(Operation::Write));
    return WorkerResult::pass();
}

WorkerResult SmbWorker::writeAt(qint64 offset, QByteArrayView data)
{
    if (m_openAppend)
        return WorkerResult::fail(ErrUnsupportedAction, m_openUrl); // every write goes to the end
    const WorkerResult r = seekOpen(offset, SEEK_SET, nullptr);
    return r.ok() ? writeAll(data) : r;
}

WorkerResult SmbWorker::append(QByteArrayView data, qint64 *offset)
{
    const WorkerResult r = seekOpen(0, SEEK_END, offset);
    return r.ok() ? writeAll(data) : r;
}

WorkerResult SmbWorker::truncate(qint64 length)
{
    SMBCCTX *ctx = m_ctx.get();
    if (smbc_getFunctionFtruncate(ctx)(ctx, m_open, off_t(length)) != 0)
        return fail(errno, m_openUrl, int(Operation::Write));
    return WorkerResult::pass();
}

WorkerResult SmbWorker::fileSize(qint64 *size)
{
    SMBCCTX *ctx = m_ctx.get();
    struct stat st;
    if (smbc_getFunctionFstat(ctx)(ctx, m_open, &st) != 0)
        return fail(errno, m_openUrl, int(Operation::Read));
    *size = qint64(st.st_size);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::closeFile()
{
    if (!m_open)
        return WorkerResult::pass();
    SMBCCTX *ctx = m_ctx.get();
    SMBCFILE *f = std::exchange(m_open, nullptr);
    if (smbc_getFunctionClose(ctx)(ctx, f) != 0)
        return fail(errno, m_openUrl, int(Operation::Write));
    return WorkerResult::pass();
}

} // namespace Qvfs
