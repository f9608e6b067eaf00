// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies between the server and local files done by the worker itself, so the bytes
// never pass through the application: copyToFile (down into a local file, with the
// guarantees of a local copy from the worker library's LocalFileWriter) and copyFromFile
// (a local file up to the server, through the engine's temporary-name upload).
#include "sftpworker.h"

#include "error.h"
#include "fileops_util_p.h"
#include "localfilewriter.h"
#include "sftppacket_p.h"
#include "url.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

WorkerResult SftpWorker::copyToFile(const FileCopyRequest &request)
{
    const QUrl &source = request.source;
    const QUrl &destination = request.destination;
    const QByteArray localPath = Url::localPath(destination);
    if (localPath.isEmpty() || !Url::isLocalFile(destination))
        return WorkerResult::fail(ErrUnsupportedAction, destination);

    QByteArray path;
    Attributes a;
    WorkerResult c = statForReading(source, request.expected, &path, &a);
    if (!c.ok())
        return c;

    // The local side first: a destination in the way is known before a byte is read.
    LocalFileWriter writer; // its destructor drops the file on any way out but commit()
    c = writer.open(localPath, request.overwrite, request.permissions, request.expectedParent);
    if (!c.ok())
        return c;
    QByteArray handle;
    Result r = m_session.open(path, Sftp::Packet::OpenRead, Attributes(), &handle);
    if (!r.ok())
        return fail(r, source);
    const qint64 size = a.signedSize();
    if (size >= 0)
        setTotals(size, 1, -1);
    WorkerResult written = WorkerResult::pass();
    qint64 done = 0;
    r = m_session.download(
        handle, 0,
        [&](QByteArrayView chunk) -> int {
            written = writer.write(chunk);
            if (!written.ok())
                return written.code();
            done += chunk.size();
            setProcessed(done);
            return wasKilled() ? int(ErrCancelled) : 0;
        },
        {}, nullptr, size);
    m_session.closeInBackground(handle);
    if (!written.ok())
        return written; // the local side (a full disk ...), naming the destination
    if (!r.ok())
        return fail(r, source);
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled, source);
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    c = writer.commit();
    if (!c.ok())
        return c;
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult SftpWorker::copyFromFile(const FileCopyRequest &request)
{
    const QUrl &source = request.source;
    const QUrl &destination = request.destination;
    const QByteArray localPath = Url::localPath(source);
    if (localPath.isEmpty() || !Url::isLocalFile(source))
        return WorkerResult::fail(ErrUnsupportedAction, source);

    // The very file the job listed: never through a symlink, and the same identity.
    WorkerResult opened = WorkerResult::pass();
    const FileOps::Fd in(LocalFileWriter::openSource(localPath, request.expected, &opened));
    if (!in.valid())
        return opened;
    struct stat st;
    if (::fstat(in.get(), &st) != 0)
        return WorkerResult::fail(ErrCannotRead, source);

    QByteArray path;
    WorkerResult c = connectedPath(destination, &path);
    if (!c.ok())
        return c;
    bool timesKept = false;
    const Session::PutOptions o = putOptions(request.overwrite, request.permissions, request.mtime, &timesKept);
    setTotals(qint64(st.st_size), 1, -1);
    bool readFailed = false;
    const Result r = m_session.put(
        path, o,
        [&](char *buffer, qint64 capacity) -> qint64 {
            if (wasKilled())
                return -qint64(ErrCancelled);
            for (;;) {
                const ssize_t n = ::read(in.get(), buffer, size_t(capacity));
                if (n >= 0)
                    return n;
                if (errno == EINTR)
                    continue;
                readFailed = true;
                return -qint64(ErrCannotRead);
            }
        },
        [this](quint64 bytes) { setProcessed(qint64(bytes)); });
    if (readFailed)
        return WorkerResult::fail(ErrCannotRead, source);
    if (!r.ok())
        return fail(r, destination);
    if (request.mtime >= 0)
        setResult(ResultKey::TimesKept, timesKept ? 1 : 0);
    setProcessed(qint64(st.st_size), 1);
    return WorkerResult::pass();
}

} // namespace Qvfs
