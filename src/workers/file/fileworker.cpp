// SPDX-License-Identifier: LGPL-2.1-or-later
// The hooks of the file:// worker but listings and stat (filelister_linux.cpp); most hand
// over to fileops.h.
#include "fileworker.h"
#include "localcopybackend_p.h"
#include "treecopy.h"

#include "fileentryinfo_p.h"
#include "fileopcontext_p.h"
#include "trasher_p.h"
#include "url.h"

#include <QMimeDatabase>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace Qvfs
{

QByteArray FileWorker::pathOf(const QUrl &url)
{
    return FileOps::localPathOf(url);
}

void FileWorker::warmUp()
{
    // Loading the name service (nsswitch.conf, passwd, group) took ~0.1 ms of the first
    // stat; most files an application asks about are its user's.
    m_users.get(::geteuid());
    m_groups.get(::getegid());
}

WorkerResult FileWorker::fail(const FileOps::OpResult &r, const QUrl &fallback)
{
    if (r.error == ErrInternal)
        return WorkerResult::fail(r.error, r.detail + " (" + r.path + ')');
    if (!r.path.isEmpty())
        return WorkerResult::fail(r.error, Url::fromLocalPath(r.path));
    return WorkerResult::fail(r.error, fallback);
}

WorkerResult FileWorker::mkdir(const MkdirRequest &request)
{
    const QByteArray path = pathOf(request.url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.url);
    FileIdentity created;
    const FileOps::OpResult r
        = FileOps::mkdir(path, request.permissions, request.parents, &created, request.expectedParent);
    if (!r.ok())
        return fail(r, request.url);
    if (created.isValid()) {
        // What the application names when it changes this folder later (ChmodRequest::expected).
        setResult(ResultKey::Device, created.device);
        setResult(ResultKey::Inode, created.inode);
    }
    return WorkerResult::pass();
}

WorkerResult FileWorker::del(const DeleteRequest &request)
{
    const QByteArray path = pathOf(request.url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.url);
    FileOps::RemoveScope scope = FileOps::RemoveScope::Tree;
    switch (request.scope) {
    case DeleteRequest::Scope::Tree:
        break;
    case DeleteRequest::Scope::Entry:
        scope = FileOps::RemoveScope::Entry;
        break;
    case DeleteRequest::Scope::NotFolder:
        scope = FileOps::RemoveScope::NotFolder;
        break;
    }
    OpContext ctx(this);
    qint64 removed = 0;
    const FileOps::OpResult r = FileOps::remove(path, scope, ctx, &removed);
    setResult(ResultKey::Removed, removed);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::rename(const RenameRequest &request)
{
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    const QByteArray from = pathOf(request.source);
    if (from.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.source);
    const QByteArray to = pathOf(request.destination);
    if (to.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.destination);
    const FileOps::OpResult r = FileOps::rename(from, to, request.overwrite);
    return r.ok() ? WorkerResult::pass() : fail(r, request.source);
}

WorkerResult FileWorker::copy(const CopyRequest &request)
{
    // The copy contract (TreeCopy) over the local primitives, on descriptors.
    FileOps::LocalCopyBackend backend([this] { return wasKilled(); });
    return TreeCopy(*this, backend, request).run();
}

WorkerResult FileWorker::get(const GetRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = pathOf(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    // O_NONBLOCK: opening a fifo must not wait for a writer; only regular files are read.
    constexpr int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    struct stat st;
    int fd = -1;
    if (request.expected.isValid()) {
        // That very file (a copy reads what it listed): never through a symlink swapped in.
        const FileOps::OpResult r = FileOps::openEntry(path, flags, request.expected, &fd, &st);
        if (!r.ok())
            return fail(r, url);
    } else {
        fd = open(path.constData(), flags);
        if (fd < 0)
            return WorkerResult::fail(errnoError(errno), url);
        if (fstat(fd, &st) != 0) {
            const int err = errno;
            ::close(fd);
            return WorkerResult::fail(errnoError(err), url);
        }
    }
    if (!S_ISREG(st.st_mode)) {
        // A folder, fifo, device or socket: not readable as a file.
        ::close(fd);
        return WorkerResult::fail(S_ISDIR(st.st_mode) ? int(ErrIsDirectory) : int(ErrCannotRead), url);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const qint64 offset = request.offset;
    if (offset > 0 && lseek(fd, offset, SEEK_SET) < 0) {
        ::close(fd);
        return WorkerResult::fail(ErrCannotRead, url);
    }
    QByteArray buf(256 * 1024, Qt::Uninitialized);
    ssize_t n = read(fd, buf.data(), size_t(buf.size()));
    if (n < 0) {
        const int err = errno;
        ::close(fd);
        return WorkerResult::fail(errnoError(err), url);
    }
    {
        // The MIME type goes out before any data: from the name and the first bytes.
        const QMimeDatabase &db = FileEntryInfo::mimeDatabase();
        const QString name = QString::fromLocal8Bit(Url::fileName(url));
        mimeType(db.mimeTypeForFileNameAndData(name, QByteArray::fromRawData(buf.constData(), n > 0 ? n : 0)).name());
    }
    setTotals(qint64(st.st_size) - qMax<qint64>(offset, 0), 1, -1);
    qint64 done = 0;
    while (n > 0) {
        data(QByteArrayView(buf.constData(), n));
        done += n;
        setProcessed(done);
        if (wasKilled())
            break;
        n = read(fd, buf.data(), size_t(buf.size()));
    }
    const int err = errno;
    ::close(fd);
    if (n < 0)
        return WorkerResult::fail(errnoError(err), url);
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult FileWorker::put(const PutRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = pathOf(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    const bool overwrite = request.overwrite;
    const int permissions = request.permissions;
    FileOps::AtomicWriter writer;
    FileOps::OpResult r = writer.open(path, overwrite, permissions, true, request.expectedParent);
    if (!r.ok())
        return fail(r, url);
    QByteArray chunk;
    qint64 done = 0;
    while (readData(&chunk)) {
        r = writer.write(chunk);
        if (!r.ok())
            return fail(r, url); // the writer's destructor discards the temporary
        done += chunk.size();
        setProcessed(done);
    }
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled, url);
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    r = writer.commit();
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult FileWorker::symlink(const SymlinkRequest &request)
{
    const QByteArray path = pathOf(request.link);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.link);
    const FileOps::OpResult r = FileOps::symlink(request.target, path, request.expectedParent);
    return r.ok() ? WorkerResult::pass() : fail(r, request.link);
}

WorkerResult FileWorker::chmod(const ChmodRequest &request)
{
    const QByteArray path = pathOf(request.url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.url);
    const FileOps::OpResult r = FileOps::chmod(path, request.permissions, request.expected);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::directorySize(const DirectorySizeRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = pathOf(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    OpContext ctx(this);
    qint64 bytes = 0, files = 0, dirs = 0;
    const FileOps::OpResult r = FileOps::directorySize(path, ctx, &bytes, &files, &dirs);
    setResult(ResultKey::Bytes, bytes);
    setResult(ResultKey::Files, files);
    setResult(ResultKey::Folders, dirs);
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult FileWorker::forEachEntry(const TrashRequest &request, const EntryMove &move)
{
    const qint64 total = request.urls.size();
    setTotals(-1, total);
    qint64 done = 0;
    bool skipAllDenied = false;
    for (const QUrl &url : request.urls) {
        if (wasKilled())
            return WorkerResult::fail(ErrCancelled, url);
        QUrl to;
        bool skipped = false;
        FileOps::OpResult r = move(url, &to, &skipped);
        // One that may not be moved among several: skip it, try again, or stop, as asked.
        while (!r.ok() && r.error == ErrAccessDenied && total > 1 && !skipAllDenied) {
            const UnreadableAnswer a = askUnreadable(UnreadableQuestion { url, r.error });
            if (a.action == UnreadableAction::Cancel)
                return WorkerResult::fail(ErrCancelled, url);
            if (a.action == UnreadableAction::Skip) {
                skipAllDenied = a.applyToAll;
                break;
            }
            r = move(url, &to, &skipped);
        }
        if (!r.ok()) {
            if (total == 1 || r.error == ErrCancelled)
                return fail(r, url);
            leftOut(r.path.isEmpty() ? url : Url::fromLocalPath(r.path), r.error); // the others still go
            continue;
        }
        setProcessed(0, ++done);
        reportItem(skipped ? CopyItemEvent::Skipped : CopyItemEvent::Moved, url, to);
    }
    return WorkerResult::pass();
}

WorkerResult FileWorker::trash(const TrashRequest &request)
{
    if (request.action != TrashRequest::Action::Trash)
        return WorkerResult::fail(ErrUnsupportedAction, request.urls.value(0));
    Trash::Trasher trasher;
    return forEachEntry(request, [&](const QUrl &url, QUrl *to, bool *) {
        const QByteArray path = pathOf(url);
        if (path.isEmpty())
            return FileOps::OpResult { ErrMalformedUrl, {}, {} };
        QByteArray name;
        const FileOps::OpResult r = trasher.trash(path, &name);
        *to = Url::child(QUrl(QStringLiteral("trash:/")), name);
        return r;
    });
}

WorkerResult FileWorker::freeSpace(const FreeSpaceRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = pathOf(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    // The filesystem of what the path names, a symlink's target's as df(1) has it (a
    // dangling link is ErrDoesNotExist).
    struct statvfs st;
    int rc;
    do {
        rc = ::statvfs(path.constData(), &st);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        const int err = errno;
        if (err == ENOSYS || err == EOPNOTSUPP)
            return WorkerResult::fail(ErrUnsupportedAction, url);
        const int code = errnoError(err);
        if (code == ErrInternal)
            return WorkerResult::fail(code, QByteArray("statvfs: ") + strerror(err) + " (" + path + ')');
        return WorkerResult::fail(code, url);
    }
    // f_frsize is the unit of the block counts; a filesystem that leaves it 0 counts in f_bsize.
    setFreeSpace(st.f_frsize ? st.f_frsize : st.f_bsize, st.f_blocks, st.f_bfree, st.f_bavail);
    return WorkerResult::pass();
}

WorkerResult FileWorker::setModificationTime(const SetTimeRequest &request)
{
    const QByteArray path = pathOf(request.url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.url);
    const FileOps::OpResult r
        = FileOps::setModificationTime(path, request.seconds, request.nanoseconds, request.expected);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

} // namespace Qvfs
