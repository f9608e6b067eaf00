// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp worker's transfers (get, put) and single operations, and the walks of whole
// trees (delete, directory size).
#include "sftpworker.h"

#include "error.h"
#include "rawpath_p.h"
#include "sftppacket_p.h"
#include "url.h"

#include <QMimeDatabase>

#include <cstring>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

using Internal::joinPath;
using Internal::parentPath;

// ---------------------------------------------------------------- walks

SftpWorker::Result SftpWorker::readFolder(const QByteArray &path, QList<std::pair<QByteArray, Attributes>> *entries)
{
    entries->clear();
    int sinceCheck = 0;
    return m_session.listDir(path, 0, [&](const Session::DirEntry &e) {
        if (!Url::isSafeName(e.name)) {
            leftOutUnsafeName(urlOf(path), e.name);
            return 0;
        }
        entries->append({ e.name.toByteArray(), e.attrs });
        if ((++sinceCheck & 255) == 0 && wasKilled())
            return int(ErrCancelled);
        return 0;
    });
}

SftpWorker::Result SftpWorker::countTree(const QByteArray &path, TreeCounts *counts, bool report)
{
    QList<QByteArray> todo { path };
    QList<std::pair<QByteArray, Attributes>> entries;
    while (!todo.isEmpty()) {
        const QByteArray dir = todo.takeLast();
        const Result r = readFolder(dir, &entries);
        if (!r.ok())
            return r;
        for (const auto &[name, attrs] : std::as_const(entries)) {
            if (attrs.isDir()) {
                ++counts->folders;
                todo.append(joinPath(dir, name));
            } else {
                ++counts->files;
                counts->bytes = Sftp::addBytes(counts->bytes, attrs.bytesForTotals());
            }
        }
        if (report)
            setProcessed(counts->bytes, counts->files, counts->folders);
        if (wasKilled()) {
            Result cancelled;
            cancelled.error = ErrCancelled;
            return cancelled;
        }
    }
    return {};
}

SftpWorker::Result SftpWorker::removeTree(const QByteArray &path, qint64 *removed)
{
    // Depth first; a folder is removed once what it held is gone. Symlinks are removed,
    // never followed.
    struct Pending
    {
        QByteArray path;
        bool listed;
    };
    QList<Pending> stack { { path, false } };
    QList<std::pair<QByteArray, Attributes>> entries;
    while (!stack.isEmpty()) {
        if (wasKilled()) {
            Result cancelled;
            cancelled.error = ErrCancelled;
            cancelled.path = stack.constLast().path;
            return cancelled;
        }
        Pending &top = stack.last();
        if (top.listed) {
            const Result r = m_session.rmdir(top.path);
            if (!r.ok() && r.error != ErrDoesNotExist)
                return r;
            ++*removed;
            setProcessed(0, -1, *removed);
            stack.removeLast();
            continue;
        }
        top.listed = true;
        const QByteArray dir = top.path;
        Result r = readFolder(dir, &entries);
        if (!r.ok())
            return r;
        for (const auto &[name, attrs] : std::as_const(entries)) {
            const QByteArray child = joinPath(dir, name);
            if (attrs.isDir()) {
                stack.append({ child, false });
                continue;
            }
            r = m_session.remove(child);
            if (!r.ok() && r.error != ErrDoesNotExist) // gone meanwhile: fine
                return r;
            ++*removed;
            if (wasKilled())
                break;
        }
    }
    return {};
}

// ---------------------------------------------------------------- get and put

Session::PutOptions SftpWorker::putOptions(bool overwrite, int permissions, qint64 mtime, bool *timesKept)
{
    Session::PutOptions o;
    o.overwrite = overwrite;
    if (permissions >= 0)
        o.permissions = quint32(permissions) & 07777;
    if (mtime >= 0) {
        o.mtime = mtime;
        o.timesKept = timesKept;
    }
    return o;
}

WorkerResult SftpWorker::get(const GetRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    Attributes a;
    const WorkerResult c = statForReading(url, request.expected, &path, &a);
    if (!c.ok())
        return c;
    QByteArray handle;
    Result r = m_session.open(path, Sftp::Packet::OpenRead, Attributes(), &handle);
    if (!r.ok())
        return fail(r, url);
    const quint64 offset = quint64(qMax<qint64>(request.offset, 0));
    const qint64 size = a.signedSize();
    if (size >= 0)
        setTotals(qMax<qint64>(size - qint64(offset), 0), 1, -1);
    const QString name = QString::fromUtf8(Url::fileName(url));
    bool typed = false;
    const auto sendType = [&](QByteArrayView first) {
        typed = true;
        static const QMimeDatabase db;
        mimeType(db.mimeTypeForFileNameAndData(name, QByteArray::fromRawData(first.data(), first.size())).name());
    };
    qint64 done = 0;
    r = m_session.download(
        handle, offset,
        [&](QByteArrayView chunk) -> int {
            if (!typed)
                sendType(chunk);
            data(chunk); // blocks while the application is slow: memory stays bounded
            done += chunk.size();
            setProcessed(done);
            return wasKilled() ? int(ErrCancelled) : 0;
        },
        {}, nullptr, size >= 0 ? qMax<qint64>(size - qint64(offset), 0) : -1);
    // Nobody waits for a read-only handle's close (the server runs requests in order).
    m_session.closeInBackground(handle);
    if (!r.ok())
        return fail(r, url);
    if (!typed)
        sendType({});
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult SftpWorker::put(const PutRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    WorkerResult c = connectedPath(url, &path);
    if (!c.ok())
        return c;
    bool timesKept = false;
    const Session::PutOptions o = putOptions(request.overwrite, request.permissions, request.mtime, &timesKept);
    if (request.size >= 0)
        setTotals(request.size, 1, -1);
    QByteArray chunk;
    qsizetype used = 0;
    bool killed = false;
    const Result r = m_session.put(
        path, o,
        [&](char *buffer, qint64 capacity) -> qint64 {
            if (used == chunk.size()) {
                used = 0;
                if (!readData(&chunk)) {
                    chunk.clear();
                    killed = wasKilled();
                    return killed ? -qint64(ErrCancelled) : 0;
                }
            }
            const qint64 n = qMin<qint64>(capacity, chunk.size() - used);
            std::memcpy(buffer, chunk.constData() + used, size_t(n));
            used += n;
            return n;
        },
        [this](quint64 bytes) { setProcessed(qint64(bytes)); });
    if (!r.ok())
        return fail(r, url);
    if (request.mtime >= 0)
        setResult(ResultKey::TimesKept, timesKept ? 1 : 0);
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- single operations

WorkerResult SftpWorker::mkdir(const MkdirRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    WorkerResult c = connectedPath(url, &path);
    if (!c.ok())
        return c;
    const int mode = request.permissions >= 0 ? (request.permissions & 07777) : -1;
    Result r = m_session.mkdir(path, mode);
    if (r.ok())
        return WorkerResult::pass();
    if (!request.parents)
        return fail(r, url);
    if (r.error == ErrAlreadyExists) {
        // `mkdir -p`: a folder (or a link to one) is fine, anything else is in the way.
        Attributes a;
        if (m_session.stat(path, &a).ok() && a.isDir())
            return WorkerResult::pass();
        return WorkerResult::fail(ErrAlreadyExists, url);
    }
    if (r.error != ErrDoesNotExist)
        return fail(r, url);
    // Walk up to the deepest folder that exists, then make the rest.
    QList<QByteArray> missing { path };
    QByteArray p = parentPath(path);
    for (;;) {
        Attributes a;
        r = m_session.stat(p, &a);
        if (r.ok()) {
            if (!a.isDir())
                return WorkerResult::fail(ErrAlreadyExists, urlOf(p));
            break;
        }
        if (r.error != ErrDoesNotExist || p == "/")
            return fail(r, urlOf(p));
        missing.prepend(p);
        p = parentPath(p);
    }
    for (const QByteArray &m : std::as_const(missing)) {
        r = m_session.mkdir(m, m == path ? mode : -1);
        if (!r.ok() && r.error != ErrAlreadyExists) // made by someone else meanwhile: fine
            return fail(r, urlOf(m));
    }
    return WorkerResult::pass();
}

WorkerResult SftpWorker::del(const DeleteRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    Attributes a;
    const WorkerResult c = connectedLstat(url, &path, &a);
    if (!c.ok())
        return c;
    Result r;
    qint64 removed = 0;
    if (!a.isDir()) {
        r = m_session.remove(path);
        if (r.ok()) {
            removed = 1;
            setProcessed(0, 1, -1);
        }
    } else if (request.scope == DeleteRequest::Scope::NotFolder) {
        return WorkerResult::fail(ErrIsDirectory, url);
    } else if (request.scope == DeleteRequest::Scope::Entry) {
        r = m_session.rmdir(path);
        if (r.ok())
            removed = 1;
    } else {
        if (path == "/")
            return WorkerResult::fail(ErrAccessDenied, url);
        r = removeTree(path, &removed);
    }
    setResult(ResultKey::Removed, removed);
    return fail(r, url);
}

WorkerResult SftpWorker::rename(const RenameRequest &request)
{
    const QUrl &from = request.source;
    const QUrl &to = request.destination;
    if (to.scheme() != from.scheme() || to.host() != from.host() || to.port() != from.port()
        || to.userName() != from.userName())
        return WorkerResult::fail(ErrUnsupportedAction, to);
    WorkerResult c = ensureConnected();
    if (!c.ok())
        return c;
    QByteArray src, dst;
    c = serverPath(from, &src);
    if (c.ok())
        c = serverPath(to, &dst);
    if (!c.ok())
        return c;
    if (src == dst)
        return WorkerResult::fail(ErrIdenticalFiles, to);
    // Atomic replacement by posix-rename@openssh.com where the server offers it.
    return fail(m_session.rename(src, dst, request.overwrite), from);
}

WorkerResult SftpWorker::symlink(const SymlinkRequest &request)
{
    QByteArray path;
    WorkerResult c = connectedPath(request.link, &path);
    if (!c.ok())
        return c;
    if (request.target.isEmpty() || request.target.contains('\0'))
        return WorkerResult::fail(ErrMalformedUrl, request.target);
    return fail(m_session.symlink(request.target, path), request.link);
}

WorkerResult SftpWorker::chmod(const ChmodRequest &request)
{
    QByteArray path;
    WorkerResult c = connectedPath(request.url, &path);
    if (!c.ok())
        return c;
    if (request.expected.isValid()) {
        // No identity in SFTP; at least never through a symlink swapped in.
        Attributes a;
        const Result r = m_session.lstat(path, &a);
        if (!r.ok())
            return fail(r, request.url);
        if (a.isSymLink())
            return WorkerResult::fail(ErrSourceChanged, request.url);
    }
    return fail(m_session.setPermissions(path, quint32(request.permissions) & 07777), request.url);
}

WorkerResult SftpWorker::setModificationTime(const SetTimeRequest &request)
{
    // Version 3 sets both times at once: the access time is read first, to stay as it was.
    QByteArray path;
    Attributes current;
    const WorkerResult c = connectedLstat(request.url, &path, &current);
    if (!c.ok())
        return c;
    Attributes a;
    const quint32 mtime = quint32(qBound<qint64>(0, request.seconds, qint64(UINT32_MAX)));
    a.setTimes(current.has(Attributes::AccessModTime) ? current.atime : mtime, mtime);
    if (current.isSymLink()) {
        // The link's own time (lsetstat@openssh.com); SETSTAT would set its target's.
        return fail(m_session.lsetStat(path, a), request.url);
    }
    return fail(m_session.setStat(path, a), request.url);
}

WorkerResult SftpWorker::directorySize(const DirectorySizeRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    Attributes a;
    const WorkerResult c = connectedLstat(url, &path, &a);
    if (!c.ok())
        return c;
    Result r;
    TreeCounts counts;
    if (!a.isDir()) {
        counts.files = 1;
        counts.bytes = a.bytesForTotals();
    } else {
        r = countTree(path, &counts, true);
    }
    setResult(ResultKey::Bytes, counts.bytes);
    setResult(ResultKey::Files, counts.files);
    setResult(ResultKey::Folders, counts.folders);
    return fail(r, url);
}

WorkerResult SftpWorker::freeSpace(const FreeSpaceRequest &request)
{
    const QUrl &url = request.url;
    QByteArray path;
    WorkerResult c = connectedPath(url, &path);
    if (!c.ok())
        return c;
    // statvfs@openssh.com; a server without it: ErrUnsupportedAction naming the URL.
    Sftp::StatVfs vfs;
    const Result r = m_session.statVfs(path, &vfs);
    if (!r.ok())
        return fail(r, url);
    // f_frsize is the unit of the counts (0 from some servers: then f_bsize).
    setFreeSpace(vfs.fragmentSize ? vfs.fragmentSize : vfs.blockSize, vfs.blocks, vfs.blocksFree, vfs.blocksAvailable);
    return WorkerResult::pass();
}

} // namespace Qvfs
