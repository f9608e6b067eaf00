// SPDX-License-Identifier: LGPL-2.1-or-later
// Listings and stat of the file:// worker: dirfd-relative statx asking only for what the
// details need.
#include "fileworker.h"

#include "fileentryinfo_p.h"
#include "fileops_walk_p.h"
#include "fileworker_debug.h"
#include "url.h"

#include <QPair>
#include <QSet>
#include <QString>

#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace Qvfs
{

unsigned FileWorker::statxMask(Details details)
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

void FileWorker::addEntry(QByteArrayView name, int dirfd, const char *path, const struct statx &st, Details details,
    bool hidden, const QByteArrayView *linkTarget)
{
    beginEntry();
    addEntryFields(name, dirfd, path, st, details, hidden, linkTarget);
    endEntry();
}

void FileWorker::addEntryFields(QByteArrayView name, int dirfd, const char *path, const struct statx &st,
    Details details, bool hidden, const QByteArrayView *linkTarget, qint64 size)
{
    addString(Name, name);
    const FileType type = fileTypeFromMode(st.stx_mode);
    addNumber(Type, qint64(type));
    if (details & DetailBasic) {
        addNumber(Mode, st.stx_mode & 07777);
        addNumber(Size, size >= 0 ? size : qint64(st.stx_size));
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
}

// What a listing needs from folder to folder.
struct FileWorker::ListState
{
    QUrl url;
    Details details;
    unsigned mask = 0;
    bool needStat = false;
    bool recursive = false;
    bool follow = false;
    qsizetype rootSize = 0; // bytes of the root's path
    FileOps::FolderWalk *walk = nullptr; // recursive listings only
    QSet<QPair<quint64, quint64>> visited; // (dev, ino) of folders entered, when following links
    FileOps::DirReader reader;
    QByteArray name; // reused for "prefix/name"
    qint64 skipped = 0;
    uint sinceCheck = 0;
};

namespace
{
// The mode bits of a d_type value (the type only).
unsigned modeOfDirentType(unsigned char type)
{
    static const unsigned dtToMode[]
        = { 0, S_IFIFO, S_IFCHR, 0, S_IFDIR, 0, S_IFBLK, 0, S_IFREG, 0, S_IFLNK, 0, S_IFSOCK, 0, 0, 0 };
    return type < 16 ? dtToMode[type] : 0;
}
} // namespace

WorkerResult FileWorker::listFolder(int fd, const QByteArray &prefix, ListState &s)
{
    const Details details = s.details;
    const QSet<QByteArray> hiddenNames
        = (details & DetailHiddenFile) ? FileEntryInfo::readHiddenFile(fd) : QSet<QByteArray>();
    // "prefix/" once per folder; each name is appended to it in place.
    qsizetype base = 0;
    if (!prefix.isEmpty()) {
        s.name.truncate(0);
        s.name.append(prefix).append('/');
        base = s.name.size();
    }
    s.reader.start(fd);
    while (struct dirent64 *de = s.reader.next()) {
        const char *n = de->d_name;
        struct statx st;
        std::memset(&st, 0, sizeof st);
        bool incomplete = false;
        if (s.needStat || s.recursive) {
            if (statx(fd, n, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, s.mask, &st) != 0) {
                if (errno == ENOENT)
                    continue; // vanished meanwhile
                // Listed with what the folder itself says (name and type), and marked, as
                // ls shows "??????????".
                qCDebug(QVFS_WORKER_FILE) << "cannot stat" << n << strerror(errno);
                incomplete = true;
                st.stx_mode = modeOfDirentType(de->d_type);
            }
        } else {
            // Names only: the type from the directory entry, no system call per file.
            st.stx_mode = modeOfDirentType(de->d_type);
        }
        const qsizetype nameLen = qsizetype(std::strlen(n));
        const bool hidden
            = n[0] == '.' || (!hiddenNames.isEmpty() && hiddenNames.contains(QByteArray::fromRawData(n, nameLen)));
        if (!prefix.isEmpty()) {
            s.name.truncate(base);
            s.name.append(n, nameLen);
        }
        const QByteArrayView name = prefix.isEmpty() ? QByteArrayView(n, nameLen) : QByteArrayView(s.name);
        if (incomplete) {
            beginEntry();
            addString(Name, name);
            addNumber(Type, qint64(fileTypeFromMode(st.stx_mode)));
            if (hidden)
                addNumber(Hidden, 1);
            addNumber(Incomplete, 1);
            endEntry();
        } else {
            addEntry(name, fd, n, st, details, hidden);
        }
        if (s.recursive) {
            bool descend = S_ISDIR(st.stx_mode);
            if (s.follow && (descend || S_ISLNK(st.stx_mode))) {
                struct stat target;
                descend = fstatat(fd, n, &target, 0) == 0 && S_ISDIR(target.st_mode)
                    && !s.visited.contains({ quint64(target.st_dev), quint64(target.st_ino) });
            }
            if (descend) {
                // Every entry's path must stay usable (within PATH_MAX): a folder that
                // leaves no room for a child's name is listed, not entered.
                if (s.rootSize + 1 + name.size() + 1 + NAME_MAX >= PATH_MAX) {
                    qCDebug(QVFS_WORKER_FILE) << "not entering, path too long:" << name;
                    ++s.skipped;
                } else {
                    s.walk->queue(n, size_t(nameLen));
                }
            }
        }
        if ((++s.sinceCheck & 63) == 0 && wasKilled())
            return WorkerResult::fail(ErrCancelled);
    }
    if (errno != 0)
        return WorkerResult::fail(errnoError(errno), Url::child(s.url, prefix));
    return WorkerResult::pass();
}

WorkerResult FileWorker::listDir(const ListRequest &request)
{
    const QUrl &url = request.url;
    const QByteArray root = pathOf(url);
    if (root.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    ListState s;
    s.url = url;
    s.details = request.details;
    s.recursive = request.recursive;
    s.follow = request.followSymlinks;
    s.mask = statxMask(s.details);
    s.needStat = s.details & (DetailBasic | DetailTime | DetailUser | DetailInode | DetailAllTimes);
    s.rootSize = root.size();
    s.name.reserve(4096);

    FileOps::Fd rootFd(open(root.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!rootFd.valid())
        return WorkerResult::fail(errnoError(errno), url);
    if (!s.recursive) {
        const WorkerResult r = listFolder(rootFd.get(), QByteArray(), s);
        if (r.ok() && wasKilled())
            return WorkerResult::fail(ErrCancelled);
        return r;
    }
    if (s.follow) {
        struct stat st;
        if (fstat(rootFd.get(), &st) == 0)
            s.visited.insert({ quint64(st.st_dev), quint64(st.st_ino) });
    }
    // Folder by folder, each opened relative to its parent's descriptor without
    // following a symlink swapped in (fileops_walk_p.h): any depth, few descriptors.
    FileOps::FolderWalk walk(std::move(rootFd), s.follow);
    s.walk = &walk;
    WorkerResult result = listFolder(walk.fd(), QByteArray(), s);
    QByteArray failed;
    while (result.ok()) {
        if (wasKilled()) {
            result = WorkerResult::fail(ErrCancelled);
            break;
        }
        if (walk.hasQueued()) {
            if (!walk.enterNext(&failed)) {
                // Unreadable, or gone or replaced meanwhile: listed, not entered.
                qCDebug(QVFS_WORKER_FILE) << "not entering" << walk.path() << failed << strerror(errno);
                ++s.skipped;
                continue;
            }
            if (s.follow) {
                // Each folder once, also when a link to it was swapped in after the check.
                struct stat st;
                if (fstat(walk.fd(), &st) != 0 || s.visited.contains({ quint64(st.st_dev), quint64(st.st_ino) })) {
                    qsizetype abandoned = 0;
                    walk.leave(nullptr, &abandoned);
                    continue;
                }
                s.visited.insert({ quint64(st.st_dev), quint64(st.st_ino) });
            }
            const WorkerResult r = listFolder(walk.fd(), walk.path(), s);
            if (!r.ok()) {
                if (r.code() == ErrCancelled) {
                    result = r;
                    break;
                }
                // A folder that fails while being read: what it gave is listed; skipped.
                qCDebug(QVFS_WORKER_FILE) << "cannot read" << walk.path();
                ++s.skipped;
            }
            continue;
        }
        if (walk.depth() == 0)
            break;
        qsizetype abandoned = 0;
        if (!walk.leave(nullptr, &abandoned))
            qCDebug(QVFS_WORKER_FILE) << "a folder moved away while it was listed, under" << walk.path();
        s.skipped += abandoned;
    }
    if (s.skipped)
        setResult(ResultKey::SkippedFolders, s.skipped);
    return result;
}

WorkerResult FileWorker::stat(const StatRequest &request)
{
    const QUrl &url = request.url;
    const Details details = request.details;
    const QByteArray path = pathOf(url);
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
        // The target's description with the link's name and target; a dangling link or a
        // loop fails, like stat -L.
        struct statx target;
        if (statx(AT_FDCWD, path.constData(), AT_NO_AUTOMOUNT, statxMask(details) | STATX_TYPE, &target) != 0)
            return WorkerResult::fail(errnoError(errno), url);
        const ssize_t n = readlink(path.constData(), m_linkBuf.data(), size_t(m_linkBuf.size()));
        const QByteArrayView link(m_linkBuf.constData(), n >= 0 ? n : 0);
        addEntry(name, AT_FDCWD, path.constData(), target, details, hidden, &link);
        return WorkerResult::pass();
    }
    addEntry(name, AT_FDCWD, path.constData(), st, details, hidden);
    return WorkerResult::pass();
}

} // namespace Qvfs
