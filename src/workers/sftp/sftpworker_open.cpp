// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the sftp worker (OpenRequest): one remote handle, READs at the
// offsets the application sends (each piece of up to 256 KiB asked for in one go, split
// into the server's read size), WRITEs at an offset, FSETSTAT for the size; the base
// class serves the application's requests in order and reuses one buffer.
#include "sftpworker.h"

#include "error.h"
#include "sftp_debug.h"
#include "sftppacket_p.h"
#include "url.h"

#include <QMimeDatabase>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

namespace
{
constexpr quint32 MimeSniffBytes = 16 * 1024; // what QMimeDatabase looks at
constexpr int SequentialReadAhead = 3; // pieces (of up to 256 KiB) asked for ahead of a reader in order
} // namespace

WorkerResult SftpWorker::openFile(const OpenRequest &request, OpenedFile *file)
{
    const QUrl &url = request.url;
    // A folder is no file to read at offsets, a fifo would block the server.
    QByteArray path;
    Attributes a;
    Result r;
    WorkerResult c = statBeforeOpen(url, &path, &a, &r);
    if (!c.ok())
        return c;
    const bool exists = r.ok();
    if (!exists && (r.error != ErrDoesNotExist || !request.create))
        return fail(r, url);
    if (exists) {
        if (request.exclusive)
            return WorkerResult::fail(ErrAlreadyExists, url);
        if (a.isDir())
            return WorkerResult::fail(ErrIsDirectory, url);
        if (a.has(Attributes::Permissions) && !a.isRegular())
            return WorkerResult::fail(ErrCannotRead, url);
    }

    quint32 flags = 0;
    if (request.read)
        flags |= Sftp::Packet::OpenRead;
    if (request.write)
        flags |= Sftp::Packet::OpenWrite;
    if (request.append)
        flags |= Sftp::Packet::OpenAppend;
    if (request.truncate && exists)
        flags |= Sftp::Packet::OpenTruncate;
    Attributes initial;
    if (!exists) {
        flags |= Sftp::Packet::OpenCreate;
        if (request.exclusive)
            flags |= Sftp::Packet::OpenExclusive;
        if (request.permissions >= 0)
            initial.setPermissions(quint32(request.permissions) & 07777);
    }
    QByteArray handle;
    r = m_session.open(path, flags, initial, &handle);
    if (!r.ok()) {
        // SFTP version 3 has no "already exists": OpenSSH says FAILURE to O_EXCL.
        Attributes now;
        if (request.exclusive && r.error != ErrCancelled && m_session.isConnected() && m_session.lstat(path, &now).ok())
            return WorkerResult::fail(ErrAlreadyExists, url);
        return fail(r, url);
    }
    // The server's umask applied to the permissions it was given: set them exactly.
    if (!exists && request.permissions >= 0) {
        Attributes mode;
        mode.setPermissions(quint32(request.permissions) & 07777);
        const Result m = m_session.fsetStat(handle, mode);
        if (!m.ok())
            qCDebug(QVFS_SFTP) << "setting the permissions of the new file failed:" << m.error << m.detail;
    }
    Attributes now;
    r = m_session.fstat(handle, &now);
    if (!r.ok()) {
        m_session.closeInBackground(handle);
        return fail(r, url);
    }
    m_openHandle = handle;
    m_openUrl = url;
    m_openWrite = request.write;
    file->size = now.signedSize();
    file->canSeek = true;
    // Opened with SSH_FXF_APPEND, OpenSSH's server writes at the end whatever the offset.
    file->canWrite = request.write && !request.append;
    file->canTruncate = request.write;
    file->canAppend = request.write;
    // The MIME type from the name and the first bytes, as get() reports it.
    QByteArray head;
    if (request.read && file->size > 0) {
        head.resize(qsizetype(qMin<qint64>(file->size, MimeSniffBytes)));
        quint32 got = 0;
        r = m_session.readAt(handle, 0, head.data(), quint32(head.size()), &got);
        if (!r.ok()) {
            (void)closeFile();
            return fail(r, url);
        }
        head.resize(got);
    }
    static const QMimeDatabase db;
    file->mimeType = db.mimeTypeForFileNameAndData(QString::fromUtf8(Url::fileName(url)), head).name();
    return WorkerResult::pass();
}

WorkerResult SftpWorker::readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead)
{
    quint32 got = 0;
    // Read in order, the next pieces are asked for ahead: the base class asks for one
    // piece at a time, which would leave the connection idle between them.
    const Result r
        = m_session.readAt(m_openHandle, quint64(offset), buffer, quint32(length), &got, SequentialReadAhead);
    if (!r.ok())
        return fail(r, m_openUrl);
    *bytesRead = got;
    return WorkerResult::pass();
}

WorkerResult SftpWorker::writeAt(qint64 offset, QByteArrayView data)
{
    if (data.isEmpty())
        return WorkerResult::pass();
    return fail(m_session.write(m_openHandle, quint64(offset), data), m_openUrl);
}

WorkerResult SftpWorker::append(QByteArrayView data, qint64 *offset)
{
    // Where the end is now; with SSH_FXF_APPEND the server writes there whatever offset it
    // is given, so another writer appending meanwhile makes this a guess (version 3 does
    // not say where a write landed).
    qint64 size = -1;
    const WorkerResult s = fileSize(&size);
    if (!s.ok())
        return s;
    *offset = size;
    return writeAt(size, data);
}

WorkerResult SftpWorker::truncate(qint64 length)
{
    Attributes a;
    a.flags = Attributes::Size;
    a.size = quint64(length);
    return fail(m_session.fsetStat(m_openHandle, a), m_openUrl);
}

WorkerResult SftpWorker::fileSize(qint64 *size)
{
    Attributes a;
    const Result r = m_session.fstat(m_openHandle, &a);
    if (!r.ok())
        return fail(r, m_openUrl);
    *size = a.signedSize();
    return WorkerResult::pass();
}

WorkerResult SftpWorker::closeFile()
{
    const QByteArray handle = m_openHandle;
    m_openHandle.clear();
    if (handle.isEmpty())
        return WorkerResult::pass();
    // After a kill (or for a file that was only read) nobody waits for the answer: the
    // server closes the handle in its turn, after whatever is still queued before it.
    if (!m_openWrite || wasKilled()) {
        m_session.closeInBackground(handle);
        return WorkerResult::pass();
    }
    // A failing close is a write that did not make it.
    return fail(m_session.close(handle), m_openUrl);
}

} // namespace Qvfs
