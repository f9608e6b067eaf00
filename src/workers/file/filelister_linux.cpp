// SPDX-License-Identifier: LGPL-2.1-or-later
// Listings and stat of the file:// worker: dirfd-relative statx asking only for what the
// details need.
#include "fileworker.h"

#include "fileentryinfo_p.h"
#include "fileworker_debug.h"
#include "url.h"

#include <QPair>
#include <QSet>
#include <QString>

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
        setResult(ResultKey::SkippedFolders, skipped);
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

} // namespace Qvfs
