// SPDX-License-Identifier: LGPL-2.1-or-later
// The hooks of the file:// worker.
#include "fileworker.h"

#include "fileentryinfo_p.h"
#include "fileworker_debug.h"
#include "url.h"

#include <QMimeDatabase>
#include <QSet>

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace Qvfs
{

namespace
{

FileType fileTypeOf(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return FileType::Regular;
    case S_IFDIR:
        return FileType::Directory;
    case S_IFLNK:
        return FileType::Symlink;
    case S_IFCHR:
        return FileType::CharDevice;
    case S_IFBLK:
        return FileType::BlockDevice;
    case S_IFIFO:
        return FileType::Fifo;
    case S_IFSOCK:
        return FileType::Socket;
    default:
        return FileType::Unknown;
    }
}

unsigned statxMask(Details details)
{
    unsigned mask = STATX_TYPE;
    if (details & DetailBasic)
        mask |= STATX_MODE | STATX_SIZE;
    if (details & DetailTime)
        mask |= STATX_MTIME;
    if (details & DetailAllTimes)
        mask |= STATX_ATIME | STATX_BTIME;
    if (details & DetailUser)
        mask |= STATX_UID | STATX_GID;
    if (details & DetailInode)
        mask |= STATX_INO | STATX_NLINK | STATX_BLOCKS;
    return mask;
}

} // namespace

namespace
{
class OpContext : public FileOps::Context
{
public:
    explicit OpContext(FileWorker *w)
        : m_w(w)
    { }
    bool isCancelled() override { return m_w->wasKilled(); }
    void setTotals(qint64 bytes, qint64 files, qint64 dirs) override { m_w->setTotals(bytes, files, dirs); }
    void progress(qint64 bytes, qint64 files, qint64 dirs) override { m_w->setProcessed(bytes, files, dirs); }
    FileOps::Answer askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) override
    {
        const ConflictAnswer a
            = m_w->askConflict(ConflictQuestion { Url::fromLocalPath(src), Url::fromLocalPath(dst) });
        *applyToAll = a.applyToAll;
        m_unanswered = !a.answered;
        if (!a.answered)
            return FileOps::Answer::Cancel;
        switch (a.action) {
        case ConflictAction::Overwrite:
            return FileOps::Answer::Overwrite;
        case ConflictAction::Skip:
            return FileOps::Answer::Skip;
        case ConflictAction::Rename:
            return FileOps::Answer::Rename;
        case ConflictAction::Cancel:
            break;
        }
        return FileOps::Answer::Cancel;
    }
    bool unanswered() const { return m_unanswered; }

private:
    FileWorker *m_w;
    bool m_unanswered = false;
};

FileOps::Conflict conflictPolicy(ConflictPolicy policy)
{
    switch (policy) {
    case ConflictPolicy::Overwrite:
        return FileOps::Conflict::Overwrite;
    case ConflictPolicy::Skip:
        return FileOps::Conflict::Skip;
    case ConflictPolicy::Rename:
        return FileOps::Conflict::Rename;
    case ConflictPolicy::Ask:
        return FileOps::Conflict::Ask;
    case ConflictPolicy::Fail:
        break;
    }
    return FileOps::Conflict::Fail;
}
} // namespace

WorkerResult FileWorker::fail(const FileOps::OpResult &r, const QUrl &fallback)
{
    if (r.error == ErrInternal)
        return WorkerResult::fail(r.error, r.detail + " (" + r.path + ')');
    if (!r.path.isEmpty())
        return WorkerResult::fail(r.error, Url::fromLocalPath(r.path));
    return WorkerResult::fail(r.error, fallback);
}

void FileWorker::addEntry(QByteArrayView name, int dirfd, const char *path, const struct statx &st, Details details,
    bool hidden, const QByteArrayView *linkTarget)
{
    beginEntry();
    addString(Name, name);
    const FileType type = fileTypeOf(st.stx_mode);
    addNumber(Type, qint64(type));
    if (details & DetailBasic) {
        addNumber(Mode, st.stx_mode & 07777);
        addNumber(Size, qint64(st.stx_size));
    }
    if (details & DetailTime) {
        addNumber(MTime, st.stx_mtime.tv_sec);
        addNumber(MTimeNs, st.stx_mtime.tv_nsec);
    }
    if (details & DetailAllTimes) {
        addNumber(ATime, st.stx_atime.tv_sec);
        addNumber(ATimeNs, st.stx_atime.tv_nsec);
        if (st.stx_mask & STATX_BTIME) {
            addNumber(BTime, st.stx_btime.tv_sec);
            addNumber(BTimeNs, st.stx_btime.tv_nsec);
        }
    }
    if (details & DetailUser) {
        addNumber(Uid, st.stx_uid);
        addNumber(Gid, st.stx_gid);
        addAtom(User, m_users.get(st.stx_uid));
        addAtom(Group, m_groups.get(st.stx_gid));
    }
    if (details & DetailInode) {
        addNumber(Inode, qint64(st.stx_ino));
        addNumber(Device, qint64(makedev(st.stx_dev_major, st.stx_dev_minor)));
        addNumber(NLink, st.stx_nlink);
        addNumber(Blocks, qint64(st.stx_blocks));
    }
    if (linkTarget) {
        addString(LinkTarget, *linkTarget);
    } else if (type == FileType::Symlink && (details & DetailBasic)) {
        const ssize_t n = readlinkat(dirfd, path, m_linkBuf.data(), size_t(m_linkBuf.size()));
        if (n >= 0)
            addString(LinkTarget, QByteArrayView(m_linkBuf.constData(), n));
    }
    if (details & DetailMimeType) {
        QString mime;
        if (type == FileType::Directory)
            mime = QStringLiteral("inode/directory");
        else if (type == FileType::Symlink)
            mime = QStringLiteral("inode/symlink");
        else
            mime = FileEntryInfo::mimeTypeOf(dirfd, path, name, type);
        addAtom(MimeType, mime.toUtf8());
    }
    if (hidden)
        addNumber(Hidden, 1);
    endEntry();
}

WorkerResult FileWorker::listDir(const ListRequest &request)
{
    const QUrl &url = request.url;
    const Details details = request.details;
    const bool recursive = request.recursive;
    const QByteArray root = Url::localPath(url);
    if (root.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    const bool follow = request.followSymlinks;
    const unsigned mask = statxMask(details);
    const bool needStat = details & (DetailBasic | DetailTime | DetailUser | DetailInode | DetailAllTimes);

    const int rootFd = open(root.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootFd < 0)
        return WorkerResult::fail(errnoError(errno), url);
    // Folders still to list are kept as paths relative to the root, opened only when
    // their turn comes: one descriptor at a time, however wide the tree.
    QList<QByteArray> todo { QByteArray() };
    QSet<QPair<quint64, quint64>> visited; // (dev, ino) of folders entered, when following links
    if (follow) {
        struct stat st;
        if (fstat(rootFd, &st) == 0)
            visited.insert({ quint64(st.st_dev), quint64(st.st_ino) });
    }
    QByteArray name;
    name.reserve(4096);
    uint sinceCheck = 0;
    qint64 skipped = 0;
    WorkerResult result = WorkerResult::pass();
    while (!todo.isEmpty() && result.ok()) {
        const QByteArray prefix = todo.takeLast();
        const int fd = prefix.isEmpty()
            ? fcntl(rootFd, F_DUPFD_CLOEXEC, 0)
            : openat(rootFd, prefix.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
        if (fd < 0) {
            const int err = errno;
            if (err == EACCES || err == ENOENT || err == ELOOP || err == ENOTDIR) {
                // Unreadable, or gone or replaced meanwhile: listed, not entered.
                qCDebug(QVFS_WORKER_FILE) << "not entering" << prefix << strerror(err);
                ++skipped;
                continue;
            }
            result = WorkerResult::fail(errnoError(err), Url::child(url, prefix));
            break;
        }
        DIR *dir = fdopendir(fd);
        if (!dir) {
            ::close(fd);
            result = WorkerResult::fail(errnoError(errno), Url::child(url, prefix));
            break;
        }
        const QSet<QByteArray> hiddenNames
            = (details & DetailHiddenFile) ? FileEntryInfo::readHiddenFile(fd) : QSet<QByteArray>();
        while (dirent *de = readdir(dir)) {
            const char *n = de->d_name;
            if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
                continue;
            struct statx st;
            std::memset(&st, 0, sizeof st);
            if (needStat || recursive) {
                if (statx(fd, n, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, mask, &st) != 0) {
                    // Vanished meanwhile (or, rarely, unreadable: then it is left out).
                    if (errno != ENOENT)
                        qCDebug(QVFS_WORKER_FILE) << "cannot stat" << n << strerror(errno);
                    continue;
                }
            } else {
                // Names only: the type from the directory entry, no system call per file.
                static const unsigned dtToMode[]
                    = { 0, S_IFIFO, S_IFCHR, 0, S_IFDIR, 0, S_IFBLK, 0, S_IFREG, 0, S_IFLNK, 0, S_IFSOCK, 0, 0, 0 };
                st.stx_mode = de->d_type < 16 ? dtToMode[de->d_type] : 0;
            }
            const qsizetype nameLen = qsizetype(std::strlen(n));
            const bool hidden
                = n[0] == '.' || (!hiddenNames.isEmpty() && hiddenNames.contains(QByteArray::fromRawData(n, nameLen)));
            if (prefix.isEmpty()) {
                addEntry(QByteArrayView(n, nameLen), fd, n, st, details, hidden);
            } else {
                name = prefix;
                name.append('/').append(n, nameLen);
                addEntry(name, fd, n, st, details, hidden);
            }
            if (recursive) {
                bool descend = S_ISDIR(st.stx_mode);
                if (follow && (descend || S_ISLNK(st.stx_mode))) {
                    struct stat target;
                    descend = fstatat(fd, n, &target, 0) == 0 && S_ISDIR(target.st_mode)
                        && !visited.contains({ quint64(target.st_dev), quint64(target.st_ino) });
                    if (descend)
                        visited.insert({ quint64(target.st_dev), quint64(target.st_ino) });
                }
                if (descend) {
                    QByteArray sub = prefix;
                    if (!sub.isEmpty())
                        sub.append('/');
                    sub.append(n, nameLen);
                    todo.append(sub);
                }
            }
            if ((++sinceCheck & 63) == 0 && wasKilled())
                break;
        }
        closedir(dir);
        if (wasKilled())
            result = WorkerResult::fail(ErrCancelled);
    }
    ::close(rootFd);
    if (skipped)
        setResult(SkippedFolders, skipped);
    return result;
}

WorkerResult FileWorker::stat(const StatRequest &request)
{
    const QUrl &url = request.url;
    const Details details = request.details;
    const QByteArray path = Url::localPath(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    struct statx st;
    if (statx(AT_FDCWD, path.constData(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, statxMask(details) | STATX_TYPE, &st)
        != 0)
        return WorkerResult::fail(errnoError(errno), url);
    QByteArray name = Url::fileName(url);
    if (name.isEmpty())
        name = QByteArrayLiteral("/");
    const bool hidden = name.startsWith('.') && name != "/";
    if ((details & DetailResolveSymlink) && S_ISLNK(st.stx_mode)) {
        struct statx target;
        if (statx(AT_FDCWD, path.constData(), AT_NO_AUTOMOUNT, statxMask(details) | STATX_TYPE, &target) == 0) {
            // The target's description with the link's name and target.
            const ssize_t n = readlink(path.constData(), m_linkBuf.data(), size_t(m_linkBuf.size()));
            const QByteArrayView link(m_linkBuf.constData(), n >= 0 ? n : 0);
            addEntry(name, AT_FDCWD, path.constData(), target, details, hidden, &link);
            return WorkerResult::pass();
        }
    }
    addEntry(name, AT_FDCWD, path.constData(), st, details, hidden);
    return WorkerResult::pass();
}

WorkerResult FileWorker::mkdir(const MkdirRequest &request)
{
    const FileOps::OpResult r = FileOps::mkdir(Url::localPath(request.url), request.permissions, request.parents);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::del(const DeleteRequest &request)
{
    OpContext ctx(this);
    qint64 removed = 0;
    const FileOps::OpResult r
        = FileOps::remove(Url::localPath(request.url), request.scope == DeleteRequest::Scope::Tree, ctx, &removed);
    setResult(Removed, removed);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::rename(const RenameRequest &request)
{
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    const FileOps::OpResult r
        = FileOps::rename(Url::localPath(request.source), Url::localPath(request.destination), request.overwrite);
    return r.ok() ? WorkerResult::pass() : fail(r, request.source);
}

WorkerResult FileWorker::copy(const CopyRequest &request)
{
    const QList<QUrl> &sources = request.sources;
    const QUrl &dest = request.destination;
    if (!Url::isLocalFile(dest))
        return WorkerResult::fail(ErrUnsupportedAction, dest);
    QList<QByteArray> paths;
    paths.reserve(sources.size());
    for (const QUrl &u : sources) {
        if (!Url::isLocalFile(u))
            return WorkerResult::fail(ErrUnsupportedAction, u);
        paths.append(Url::localPath(u));
    }
    FileOps::CopyOptions o;
    o.conflict = conflictPolicy(request.conflict);
    o.preserve = request.preserve;
    o.move = request.move;
    o.countFirst = request.countFirst;
    OpContext ctx(this);
    const QByteArray destPath = Url::localPath(dest);
    bool into = request.target == CopyRequest::Target::Into;
    if (request.target == CopyRequest::Target::IntoIfFolder) {
        struct stat st;
        into = ::stat(destPath.constData(), &st) == 0 && S_ISDIR(st.st_mode);
    }
    const FileOps::OpResult r = FileOps::copy(paths, destPath, into, o, ctx);
    if (r.error == ErrCancelled && ctx.unanswered())
        return WorkerResult::fail(
            ErrNotAnswered, r.path.isEmpty() ? dest.toEncoded() : Url::fromLocalPath(r.path).toEncoded());
    return r.ok() ? WorkerResult::pass() : fail(r, dest);
}

WorkerResult FileWorker::get(const GetRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray path = Url::localPath(url);
    // O_NONBLOCK: opening a fifo must not wait for a writer; only regular files are read.
    const int fd = open(path.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return WorkerResult::fail(errnoError(errno), url);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return WorkerResult::fail(errnoError(err), url);
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
    const QByteArray path = Url::localPath(url);
    const bool overwrite = request.overwrite;
    const int permissions = request.permissions;
    FileOps::AtomicWriter writer;
    FileOps::OpResult r = writer.open(path, overwrite, permissions);
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
    const FileOps::OpResult r = FileOps::symlink(request.target, Url::localPath(request.link));
    return r.ok() ? WorkerResult::pass() : fail(r, request.link);
}

WorkerResult FileWorker::chmod(const ChmodRequest &request)
{
    const FileOps::OpResult r = FileOps::chmod(Url::localPath(request.url), request.permissions);
    return r.ok() ? WorkerResult::pass() : fail(r, request.url);
}

WorkerResult FileWorker::directorySize(const DirectorySizeRequest &request)
{
    const QUrl &url = request.url;
    OpContext ctx(this);
    qint64 bytes = 0, files = 0, dirs = 0;
    const FileOps::OpResult r = FileOps::directorySize(Url::localPath(url), ctx, &bytes, &files, &dirs);
    setResult(Bytes, bytes);
    setResult(Files, files);
    setResult(Folders, dirs);
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult FileWorker::setModificationTime(const SetTimeRequest &request)
{
    const QUrl &url = request.url;
    const qint64 seconds = request.seconds;
    const qint64 nanoseconds = request.nanoseconds;
    const QByteArray path = Url::localPath(url);
    // Access time untouched; the link itself, not its target.
    const timespec times[2] = { { 0, UTIME_OMIT }, { time_t(seconds), long(nanoseconds) } };
    if (utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW) != 0)
        return WorkerResult::fail(errnoError(errno, FileOps::Operation::Write), url);
    return WorkerResult::pass();
}

} // namespace Qvfs
