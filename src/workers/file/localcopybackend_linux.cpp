// SPDX-License-Identifier: LGPL-2.1-or-later
// The file worker's copy primitives under TreeCopy: one entry at a time, on descriptors.
#include "localcopybackend_p.h"

#include "fileops.h"
#include "fileops_metadata_p.h"
#include "fileops_tempfile_p.h"
#include "fileops_testhook_p.h"

#include "error.h"
#include "rawpath_p.h"
#include "url.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace Qvfs::FileOps
{

void (*testHook)(TestPoint point, int fd) = nullptr;

namespace
{

constexpr off_t CopyChunk = 16 * 1024 * 1024; // per copy_file_range() call
constexpr size_t BufferSize = 1024 * 1024; // per read()/write() in the fallback

/*! An open folder places are resolved against (CopyPlace::folder). */
struct FolderHandle final : CopyHandle
{
    explicit FolderHandle(Fd &&f)
        : fd(std::move(f))
    { }
    Fd fd;
};

/*! What list() and stat() found (CopyEntry::native): the entry's stat, for identity and copying. */
struct LocalEntry final : CopyHandle
{
    struct stat st;
};

const struct stat *statOf(const CopyEntry &e)
{
    return e.native ? &static_cast<const LocalEntry *>(e.native.get())->st : nullptr;
}

int folderFd(const CopyPlace &p)
{
    return p.folder ? static_cast<const FolderHandle *>(p.folder.get())->fd.get() : -1;
}

QByteArray lastSegment(const QByteArray &path)
{
    return path.mid(path.lastIndexOf('/') + 1);
}

// The folder \a place is in, by path (to name it in an error).
CopyPlace folderOf(const CopyPlace &place)
{
    CopyPlace p;
    p.address = Internal::parentPath(place.address);
    return p;
}

CopyEntry entryOf(const CopyPlace &place, const QByteArray &name, const struct stat &st)
{
    CopyEntry e;
    e.place = place;
    e.name = name;
    e.type = S_ISDIR(st.st_mode) ? CopyEntry::Type::Folder
        : S_ISLNK(st.st_mode)    ? CopyEntry::Type::Link
        : S_ISREG(st.st_mode)    ? CopyEntry::Type::File
                                 : CopyEntry::Type::Special;
    e.size = S_ISREG(st.st_mode) ? qint64(st.st_size) : 0; // what the byte totals count
    e.permissions = int(st.st_mode & 07777);
    e.atime = st.st_atim.tv_sec;
    e.mtime = st.st_mtim.tv_sec;
    auto native = std::make_shared<LocalEntry>();
    native->st = st;
    e.native = std::move(native);
    return e;
}

// Whether the folder \a dirFd is \a dir or inside it (walking up through "..").
bool isInsideFolder(int dirFd, const struct stat &dir)
{
    Fd current(::openat(dirFd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct stat cs;
    if (!current.valid() || ::fstat(current.get(), &cs) != 0)
        return false;
    for (int depth = 0; depth < 65536; ++depth) {
        if (sameFile(cs, dir))
            return true;
        Fd parent(::openat(current.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
        struct stat ps;
        if (!parent.valid() || ::fstat(parent.get(), &ps) != 0 || sameFile(ps, cs))
            return false;
        current = std::move(parent);
        cs = ps;
    }
    return false;
}

} // namespace

QByteArray localPathOf(const QUrl &url)
{
    // Url::localPath() is empty for another scheme or host and for a NUL byte.
    const QByteArray path = Url::localPath(url);
    if (!path.startsWith('/'))
        return QByteArray();
    // A dot segment would make the path name another entry than the URL seems to (the
    // parent of "x/%2E%2E" is not "x"'s): refused, never resolved.
    for (qsizetype start = 1; start <= path.size();) {
        qsizetype end = path.indexOf('/', start);
        if (end < 0)
            end = path.size();
        const qsizetype size = end - start;
        if (size > 0 && size <= 2 && path.at(start) == '.' && (size == 1 || path.at(start + 1) == '.'))
            return QByteArray();
        start = end + 1;
    }
    return path;
}

LocalCopyBackend::LocalCopyBackend(std::function<bool()> cancelled, bool allowTmpFile)
    : m_cancelled(std::move(cancelled))
    , m_allowTmpFile(allowTmpFile)
    , m_umask(processUmask())
    , m_euid(::geteuid())
{ }

LocalCopyBackend::~LocalCopyBackend() = default;

WorkerResult LocalCopyBackend::begin(const CopyRequest &request)
{
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, request.destination);
    for (const QUrl &u : request.sources) {
        if (!Url::isLocalFile(u))
            return WorkerResult::fail(ErrUnsupportedAction, u);
    }
    m_preserve = request.preserve;
    m_move = request.move;
    return WorkerResult::pass();
}

QUrl LocalCopyBackend::url(const CopyPlace &place)
{
    return place.url.isEmpty() ? Url::fromLocalPath(place.address) : place.url;
}

WorkerResult LocalCopyBackend::place(const QUrl &url, CopyPlace *out)
{
    const QByteArray path = localPathOf(url);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, url);
    out->url = url;
    out->address = stripTrailingSlashes(path);
    out->folder.reset();
    return WorkerResult::pass();
}

CopyPlace LocalCopyBackend::child(const CopyPlace &folder, const QByteArray &name)
{
    CopyPlace p;
    p.address = Internal::joinPath(folder.address, name);
    p.folder = folder.folder;
    return p;
}

CopyPlace LocalCopyBackend::sibling(const CopyPlace &place, const QByteArray &name)
{
    CopyPlace p;
    p.address = Internal::joinPath(Internal::parentPath(place.address), name);
    p.folder = place.folder;
    return p;
}

bool LocalCopyBackend::resolve(const CopyPlace &place, At *at, bool realFolder)
{
    at->name = lastSegment(place.address);
    const int fd = folderFd(place);
    if (fd >= 0) {
        at->dirFd = fd;
        return true;
    }
    if (!realFolder) {
        at->dirFd = AT_FDCWD;
        at->name = place.address;
        return true;
    }
    at->owned = Fd(::open(Internal::parentPath(place.address).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    at->dirFd = at->owned.get();
    return at->owned.valid();
}

WorkerResult LocalCopyBackend::failOn(int code, const CopyPlace &place, int err)
{
    return WorkerResult::fail(code, url(place).toEncoded(), err ? QByteArray(::strerror(err)) : QByteArray());
}

WorkerResult LocalCopyBackend::failErrno(int err, Operation op, const CopyPlace &place)
{
    return failOn(errorFromErrno(err, op), place, err);
}

WorkerResult LocalCopyBackend::failedOp(const OpResult &r, const CopyPlace &place)
{
    const QUrl u = r.path.isEmpty() || r.path == place.address ? url(place) : Url::fromLocalPath(r.path);
    return WorkerResult::fail(r.error, u.toEncoded(), r.detail);
}

struct timespec *LocalCopyBackend::times(const struct stat &st)
{
    m_times[0] = st.st_atim;
    m_times[1] = st.st_mtim;
    return m_times;
}

WorkerResult LocalCopyBackend::stat(const CopyPlace &place, CopyEntry *out, bool follow)
{
    At at;
    if (!resolve(place, &at))
        return failErrno(errno, Operation::Read, place);
    struct stat st;
    if (::fstatat(at.dirFd, at.name.constData(), &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
        return failErrno(errno, Operation::Read, place);
    *out = entryOf(place, lastSegment(place.address), st);
    return WorkerResult::pass();
}

WorkerResult LocalCopyBackend::list(const CopyEntry &folder, QList<CopyEntry> *out)
{
    At at;
    if (!resolve(folder.place, &at))
        return failErrno(errno, Operation::Read, folder.place);
    Fd fd(::openat(at.dirFd, at.name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
        const int err = errno;
        if (err == ELOOP || err == ENOTDIR) // a folder when it was looked at
            return failOn(ErrSourceChanged, folder.place);
        return failErrno(err, Operation::Read, folder.place);
    }
    struct stat current;
    if (::fstat(fd.get(), &current) != 0)
        return failErrno(errno, Operation::Read, folder.place);
    if (const struct stat *seen = statOf(folder); seen && !sameFile(current, *seen))
        return failOn(ErrSourceChanged, folder.place);
    Fd readFd(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    DirStream dir(std::move(readFd));
    if (!dir.valid())
        return failErrno(errno, Operation::Read, folder.place);
    const auto handle = std::make_shared<FolderHandle>(std::move(fd));
    CopyPlace inside;
    inside.address = folder.place.address;
    inside.folder = handle;
    out->clear();
    while (struct dirent *e = dir.next()) {
        struct stat st;
        if (::fstatat(dir.fd(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            const int err = errno;
            if (err == ENOENT) // deleted meanwhile
                continue;
            // A folder whose names can be read but not looked at (no search permission)
            // cannot be read as a whole.
            return err == EACCES ? failErrno(err, Operation::Read, folder.place)
                                 : failErrno(err, Operation::Read, child(inside, QByteArray(e->d_name)));
        }
        const QByteArray name(e->d_name);
        out->append(entryOf(child(inside, name), name, st));
    }
    if (errno != 0)
        return failErrno(errno, Operation::Read, folder.place);
    return WorkerResult::pass();
}

bool LocalCopyBackend::isSame(const CopyEntry &a, const CopyEntry &b)
{
    const struct stat *sa = statOf(a);
    const struct stat *sb = statOf(b);
    return sa && sb && sameFile(*sa, *sb);
}

bool LocalCopyBackend::isInside(const CopyEntry &folder, const CopyPlace &target)
{
    const struct stat *dir = statOf(folder);
    At at;
    return dir && resolve(target, &at, true) && isInsideFolder(at.dirFd, *dir);
}

bool LocalCopyBackend::renamesWhole(const CopyEntry &source, const CopyPlace &dst)
{
    const struct stat *st = statOf(source);
    At at;
    struct stat dir;
    return st && resolve(dst, &at, true) && ::fstat(at.dirFd, &dir) == 0 && dir.st_dev == st->st_dev;
}

WorkerResult LocalCopyBackend::enter(const CopyPlace &folder, const CopyEntry *expected, CopyPlace *inside)
{
    At at;
    if (!resolve(folder, &at))
        return failErrno(errno, Operation::Write, folder);
    // The destination as the user named it may be a link to a folder (cp follows it);
    // anything below is never followed.
    const int noFollow = folderFd(folder) >= 0 || !expected ? O_NOFOLLOW : 0;
    Fd fd(::openat(at.dirFd, at.name.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | noFollow));
    if (!fd.valid()) {
        const int err = errno;
        if (err == ELOOP || (err == ENOTDIR && expected && expected->isFolder()))
            return failOn(ErrSourceChanged, folder); // swapped for a link or a file
        return failErrno(err, Operation::Write, folder);
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0)
        return failErrno(errno, Operation::Write, folder);
    if (expected) {
        if (const struct stat *seen = statOf(*expected); seen && !sameFile(st, *seen))
            return failOn(ErrSourceChanged, folder);
    } else {
        // Just made by makeFolder(): ours, unless another user swapped theirs in.
        if (st.st_uid != m_euid)
            return failOn(ErrSourceChanged, folder);
        m_made.insert(folder.address, { st.st_dev, st.st_ino });
    }
    inside->url = folder.url;
    inside->address = folder.address;
    inside->folder = std::make_shared<FolderHandle>(std::move(fd));
    return WorkerResult::pass();
}

WorkerResult LocalCopyBackend::makeFolder(const CopyEntry &source, const CopyPlace &dst)
{
    const struct stat *st = statOf(source);
    mode_t plainMode = st ? st->st_mode : mode_t(0755);
    At src;
    if (st && resolve(source.place, &src)) {
        // the rwx bits without the ACL's mask as group bits (modeWithoutAcl())
        Fd fd(::openat(src.dirFd, src.name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (fd.valid()) {
            const XattrFile attrs = XattrFile::ofFd(fd.get());
            plainMode = modeWithoutAcl(attrs, attrs.names(), st->st_mode);
        }
    }
    // Made without group/other write, so nobody writes into it meanwhile, and with the
    // owner's rwx, so a read-only source folder can still be filled; the exact mode comes
    // when it is finished. A worker killed meanwhile leaves it readable as its source was.
    const mode_t interim = (plainMode & 0777 & ~mode_t(S_IWGRP | S_IWOTH)) | S_IRWXU;
    At at;
    if (!resolve(dst, &at) || ::mkdirat(at.dirFd, at.name.constData(), interim) != 0)
        return failErrno(errno, Operation::Write, dst);
    return WorkerResult::pass();
}

void LocalCopyBackend::finishFolder(const CopyEntry &source, const CopyPlace &dst)
{
    // Best effort, and only on the very folder this copy made.
    const auto made = m_made.constFind(dst.address);
    const struct stat *st = statOf(source);
    if (made == m_made.constEnd() || !st)
        return;
    Fd out(::open(dst.address.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat now;
    if (!out.valid() || ::fstat(out.get(), &now) != 0 || now.st_dev != made->first || now.st_ino != made->second)
        return;
    Fd in(::open(source.place.address.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat srcNow;
    if (in.valid() && (::fstat(in.get(), &srcNow) != 0 || !sameFile(srcNow, *st)))
        in.reset();
    const XattrFile attrs = XattrFile::ofFd(in.get());
    const QByteArray names = in.valid() ? attrs.names() : QByteArray();
    const mode_t plainMode = in.valid() ? modeWithoutAcl(attrs, names, st->st_mode) : st->st_mode;
    // The ACLs (access and default) come last: they are what the mode's group bits stand
    // for, and the entries copied inside got their own.
    const mode_t mode = m_preserve ? (st->st_mode & 07777) : (plainMode & 0777 & ~m_umask);
    ::fchmod(out.get(), mode);
    if (!names.isEmpty())
        copyAttributes(attrs, XattrFile::ofFd(out.get()), names, m_preserve, true, mode);
    if (m_preserve)
        ::futimens(out.get(), times(*st));
}

WorkerResult LocalCopyBackend::copyFile(
    const CopyEntry &source, const CopyPlace &dst, bool replace, const std::function<void(qint64)> &progress)
{
    const struct stat *seen = statOf(source);
    At src;
    if (!seen || !resolve(source.place, &src))
        return failErrno(errno, Operation::Read, source.place);
    Fd in(::openat(src.dirFd, src.name.constData(), O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    if (!in.valid()) {
        const int err = errno;
        return err == ELOOP ? failOn(ErrSourceChanged, source.place) : failErrno(err, Operation::Read, source.place);
    }
    struct stat cur;
    if (::fstat(in.get(), &cur) != 0)
        return failErrno(errno, Operation::Read, source.place);
    if (!S_ISREG(cur.st_mode) || !sameFile(cur, *seen))
        return failOn(ErrSourceChanged, source.place);

    // one flistxattr: most files have no attributes, and then nothing more is asked
    const XattrFile attrsIn = XattrFile::ofFd(in.get());
    const QByteArray attributes = attrsIn.names();
    At at;
    if (!resolve(dst, &at, true))
        return failErrno(errno, Operation::Write, folderOf(dst));
    TempFile tmp;
    const mode_t createMode = m_preserve ? 0600 : (modeWithoutAcl(attrsIn, attributes, cur.st_mode) & 0777);
    OpResult r = openTempFile(at.dirFd, at.name, dst.address, createMode, m_allowTmpFile, &tmp);
    if (!r.ok())
        return failedOp(r, dst);
    struct stat tmpSt;
    if (::fstat(tmp.fd.get(), &tmpSt) != 0)
        return failErrno(errno, Operation::Write, dst);
    qint64 copied = 0;
    WorkerResult error = WorkerResult::pass();
    if (!copyData(in.get(), tmp.fd.get(), cur, tmpSt.st_dev, &copied, source.place, dst, progress, &error))
        return error;
    // a copy replacing a file keeps its owner (a move brings its own, as a rename would)
    struct stat replaced;
    if (replace && !m_move && ::fstatat(at.dirFd, at.name.constData(), &replaced, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISREG(replaced.st_mode))
        keepOwner(tmp.fd.get(), at.dirFd, replaced, &tmpSt);
    mode_t mode = createMode & ~m_umask;
    if (m_preserve) {
        mode = cur.st_mode & 07777;
        // never hand out a setuid/setgid file under another owner than the source's
        if (tmpSt.st_uid != cur.st_uid)
            mode &= ~S_ISUID;
        if (tmpSt.st_gid != cur.st_gid)
            mode &= ~S_ISGID;
        ::fchmod(tmp.fd.get(), mode);
    }
    if (!attributes.isEmpty()) {
        copyAttributes(
            attrsIn, XattrFile::ofFd(tmp.fd.get()), attributes, m_preserve, tmpSt.st_uid == cur.st_uid, mode);
    }
    if (m_preserve)
        ::futimens(tmp.fd.get(), times(cur));
    if (m_cancelled && m_cancelled())
        return failOn(ErrCancelled, source.place);
    r = commitTempFile(&tmp, at.dirFd, at.name, dst.address, replace);
    return r.ok() ? WorkerResult::pass() : failedOp(r, dst);
}

bool LocalCopyBackend::copyData(int in, int out, const struct stat &st, dev_t dstDev, qint64 *copied,
    const CopyPlace &src, const CopyPlace &dst, const std::function<void(qint64)> &progress, WorkerResult *error)
{
    const off_t size = st.st_size;
    const std::pair<dev_t, dev_t> devices(st.st_dev, dstDev);
    m_devices = devices;
    m_useCopyRange = m_noCopyRange.count(devices) == 0;

    if (sizeUnknown(in, st)) // /proc, /sys...: st_size says nothing (0, or 4096 for any sysfs file)
        return copyToEnd(in, out, src, dst, error);

    if (size > 0 && m_noClone.count(devices) == 0) {
        if (::ioctl(out, FICLONE, in) == 0) {
            struct stat now;
            if (::fstat(in, &now) != 0) {
                *error = failErrno(errno, Operation::Read, src);
                return false;
            }
            if (now.st_size < size) {
                *error = failOn(ErrSourceChanged, src);
                return false;
            }
            *copied = now.st_size;
            progress(*copied);
            return true;
        }
        if (errno == EOPNOTSUPP || errno == EXDEV || errno == EINVAL || errno == ENOTTY || errno == ENOSYS)
            m_noClone.insert(devices);
    }

    if (size > 0 && off_t(st.st_blocks) * 512 < size) {
        // sparse: copy the data extents only (copy_file_range would fill the holes)
        off_t copiedSize = -1;
        if (!copySparse(in, out, size, &copiedSize, copied, src, dst, progress, error))
            return false;
        if (copiedSize >= 0) {
            *copied = copiedSize; // with the holes
            progress(*copied);
            return true;
        }
        *copied = 0; // no SEEK_DATA here: the whole file after all
    }

    // whole file, to the end
    off_t done = 0;
    if (!copyRange(in, out, 0, -1, size, &done, copied, src, dst, progress, error))
        return false;
    if (done < size) {
        *error = failOn(ErrSourceChanged, src);
        return false;
    }
    return true;
}

// Copies the data extents of the sparse file \a in (\a size bytes when opened) found by
// SEEK_DATA/SEEK_HOLE, then gives \a out the size of \a in. \a *copiedSize receives that
// size, or stays -1 where seeking for data is not supported (nothing was copied then).
//
// The copy is the file as it was at one moment, or ErrSourceChanged: when SEEK_DATA finds
// no more data, the size read next may already include data written meanwhile (a file
// growing while it is copied). Truncating the copy to that size would give it a tail of
// zeros where the source has data, so SEEK_DATA looks again once the size is known: no
// data after what was copied means the rest is a hole of the file at that size; new data
// is copied in another round.
bool LocalCopyBackend::copySparse(int in, int out, off_t size, off_t *copiedSize, qint64 *copied, const CopyPlace &src,
    const CopyPlace &dst, const std::function<void(qint64)> &progress, WorkerResult *error)
{
    constexpr int MaxRounds = 100; // a file growing faster than it is copied: an error in the end
    const auto failed = [error](const WorkerResult &r) {
        *error = r;
        return false;
    };
    off_t pos = 0;
    for (int round = 0;; ++round) {
        for (;;) {
            const off_t data = ::lseek(in, pos, SEEK_DATA);
            if (data < 0) {
                if (errno == ENXIO) // no data after pos
                    break;
                if (errno == EINVAL && pos == 0 && round == 0)
                    return true; // no SEEK_DATA on this filesystem
                return failed(failErrno(errno, Operation::Read, src));
            }
            const off_t hole = ::lseek(in, data, SEEK_HOLE);
            if (hole < 0)
                return failed(failErrno(errno, Operation::Read, src));
            off_t done = 0;
            if (!copyRange(in, out, data, hole - data, hole - data, &done, copied, src, dst, progress, error))
                return false;
            if (done < hole - data)
                return failed(failOn(ErrSourceChanged, src));
            pos = hole;
        }
        if (testHook)
            testHook(TestPoint::SparseScanned, in);
        struct stat now;
        if (::fstat(in, &now) != 0)
            return failed(failErrno(errno, Operation::Read, src));
        if (now.st_size < std::max(size, pos))
            return failed(failOn(ErrSourceChanged, src)); // shrank
        if (::lseek(in, pos, SEEK_DATA) >= 0) {
            if (round == MaxRounds)
                return failed(failOn(ErrSourceChanged, src));
            continue; // grew: data after pos now
        }
        if (errno != ENXIO)
            return failed(failErrno(errno, Operation::Read, src));
        // [pos, now.st_size) was a hole after the size was read; unless it shrank since
        struct stat after;
        if (::fstat(in, &after) != 0)
            return failed(failErrno(errno, Operation::Read, src));
        if (after.st_size < now.st_size)
            return failed(failOn(ErrSourceChanged, src));
        if (::ftruncate(out, now.st_size) != 0)
            return failed(failErrno(errno, Operation::Write, dst));
        *copiedSize = now.st_size;
        return true;
    }
}

// Copies \a in from where it is to its end with read()/write(), for pseudo files whose
// size means nothing (copy_file_range and positional reads are not for them).
bool LocalCopyBackend::copyToEnd(int in, int out, const CopyPlace &src, const CopyPlace &dst, WorkerResult *error)
{
    if (!m_buffer)
        m_buffer.reset(new char[BufferSize]);
    for (;;) {
        if (m_cancelled && m_cancelled()) {
            *error = failOn(ErrCancelled, src);
            return false;
        }
        const ssize_t n = ::read(in, m_buffer.get(), BufferSize);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *error = failErrno(errno, Operation::Read, src);
            return false;
        }
        if (n == 0)
            return true;
        if (!writeAll(out, QByteArrayView(m_buffer.get(), n))) {
            *error = failErrno(errno, Operation::Write, dst);
            return false;
        }
        // not reported: the totals counted such a file as its st_size, whatever it holds
    }
}

// Copies \a length bytes (-1: up to the end) at \a offset from \a in to the same offset
// in \a out; \a expected is how much should come, to tell a broken copy_file_range from
// the real end. \a *done counts this range, \a *copied the whole file.
bool LocalCopyBackend::copyRange(int in, int out, off_t offset, off_t length, off_t expected, off_t *done,
    qint64 *copied, const CopyPlace &src, const CopyPlace &dst, const std::function<void(qint64)> &progress,
    WorkerResult *error)
{
    const auto failed = [error](const WorkerResult &r) {
        *error = r;
        return false;
    };
    off_t inOffset = offset;
    off_t outOffset = offset;
    while (length != 0) {
        if (m_cancelled && m_cancelled())
            return failed(failOn(ErrCancelled, src));
        const off_t want = length < 0 ? CopyChunk : std::min(length, CopyChunk);
        ssize_t n;
        if (m_useCopyRange) {
            n = ::copy_file_range(in, &inOffset, out, &outOffset, size_t(want), 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
                    return failed(failErrno(errno, Operation::Write, dst));
                if (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS)
                    m_noCopyRange.insert(m_devices);
                // read()/write() take over and, if the error is real, tell which side has it
                m_useCopyRange = false;
                continue;
            }
            if (n == 0 && *done < expected) {
                // either the source shrank or copy_file_range does not work on it: read() will tell
                m_useCopyRange = false;
                continue;
            }
        } else {
            if (!m_buffer)
                m_buffer.reset(new char[BufferSize]);
            const size_t chunk = size_t(std::min<off_t>(want, off_t(BufferSize)));
            do {
                n = ::pread(in, m_buffer.get(), chunk, inOffset);
            } while (n < 0 && errno == EINTR);
            if (n < 0)
                return failed(failErrno(errno, Operation::Read, src));
            for (ssize_t written = 0; written < n;) {
                const ssize_t w = ::pwrite(out, m_buffer.get() + written, size_t(n - written), outOffset + written);
                if (w < 0) {
                    if (errno == EINTR)
                        continue;
                    return failed(failErrno(errno, Operation::Write, dst));
                }
                written += w;
            }
            inOffset += n;
            outOffset += n;
        }
        if (n == 0)
            break; // end of the source
        *done += n;
        if (length > 0)
            length -= n;
        *copied += n;
        progress(*copied);
    }
    return true;
}

WorkerResult LocalCopyBackend::copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace)
{
    return copyNode(source, dst, replace);
}

WorkerResult LocalCopyBackend::copySpecial(const CopyEntry &source, const CopyPlace &dst, bool replace)
{
    return copyNode(source, dst, replace);
}

// Symlinks, fifos, sockets and device nodes.
WorkerResult LocalCopyBackend::copyNode(const CopyEntry &source, const CopyPlace &dst, bool replace)
{
    const struct stat *st = statOf(source);
    At src;
    if (!st || !resolve(source.place, &src))
        return failErrno(errno, Operation::Read, source.place);
    struct stat now;
    if (::fstatat(src.dirFd, src.name.constData(), &now, AT_SYMLINK_NOFOLLOW) != 0)
        return failErrno(errno, Operation::Read, source.place);
    if (!sameFile(now, *st) || (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT))
        return failOn(ErrSourceChanged, source.place);
    QByteArray target;
    if (S_ISLNK(st->st_mode)) {
        qsizetype capacity = st->st_size > 0 ? qsizetype(st->st_size) + 1 : 256;
        for (;;) {
            target.resize(capacity);
            const ssize_t n = ::readlinkat(src.dirFd, src.name.constData(), target.data(), size_t(capacity));
            if (n < 0)
                return failErrno(errno, Operation::Read, source.place);
            if (n < capacity) {
                target.truncate(n);
                break;
            }
            capacity *= 2;
        }
    }
    // A fifo or device node may carry attributes and ACLs (a symlink none worth a call).
    const XattrFile attrsIn = XattrFile::inFolder(src.dirFd, src.name.constData());
    const QByteArray attributes = S_ISLNK(st->st_mode) ? QByteArray() : attrsIn.names();
    const mode_t plainMode = modeWithoutAcl(attrsIn, attributes, st->st_mode);
    At at;
    if (!resolve(dst, &at, true))
        return failErrno(errno, Operation::Write, folderOf(dst));
    const int dirFd = at.dirFd;
    const QByteArray &dstName = at.name;
    // made under its final name, or under a hidden one then renamed over the destination
    if (replace)
        removeStaleTemporaries(dirFd);
    QByteArray name = replace ? tempName(dstName) : dstName;
    for (int attempt = 0;; ++attempt) {
        const int r = S_ISLNK(st->st_mode)
            ? ::symlinkat(target.constData(), dirFd, name.constData())
            : ::mknodat(dirFd, name.constData(), (st->st_mode & S_IFMT) | (plainMode & 0777), st->st_rdev);
        if (r == 0)
            break;
        if (errno != EEXIST || !replace || attempt == 100)
            return failErrno(errno, Operation::Write, dst);
        name = tempName(dstName);
    }
    const mode_t mode = st->st_mode & 07777 & ~(S_ISUID | S_ISGID);
    if (m_preserve && !S_ISLNK(st->st_mode))
        ::fchmodat(dirFd, name.constData(), mode, 0);
    if (!attributes.isEmpty()) {
        copyAttributes(attrsIn, XattrFile::inFolder(dirFd, name.constData()), attributes, m_preserve, false, mode);
    }
    if (m_preserve)
        ::utimensat(dirFd, name.constData(), times(*st), AT_SYMLINK_NOFOLLOW);
    if (replace && ::renameat(dirFd, name.constData(), dirFd, dstName.constData()) != 0) {
        const int err = errno;
        ::unlinkat(dirFd, name.constData(), 0);
        return failErrno(err, Operation::Write, dst);
    }
    return WorkerResult::pass();
}

WorkerResult LocalCopyBackend::rename(const CopyEntry &source, const CopyPlace &dst, bool replace)
{
    At from;
    At to;
    if (!resolve(source.place, &from))
        return failErrno(errno, Operation::Read, source.place);
    if (!resolve(dst, &to))
        return failErrno(errno, Operation::Write, dst);
    int r;
    if (replace) {
        r = ::renameat(from.dirFd, from.name.constData(), to.dirFd, to.name.constData());
    } else {
        r = ::renameat2(from.dirFd, from.name.constData(), to.dirFd, to.name.constData(), RENAME_NOREPLACE);
        if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // no RENAME_NOREPLACE on this filesystem
            struct stat there;
            if (::fstatat(to.dirFd, to.name.constData(), &there, AT_SYMLINK_NOFOLLOW) == 0)
                return failOn(ErrAlreadyExists, dst);
            r = ::renameat(from.dirFd, from.name.constData(), to.dirFd, to.name.constData());
        }
    }
    if (r == 0)
        return WorkerResult::pass();
    const int err = errno;
    if (err == EXDEV)
        return WorkerResult::fail(ErrUnsupportedAction); // another filesystem: copied instead
    if (err == ENOENT)
        return failErrno(err, Operation::Read, source.place);
    return failErrno(err, Operation::Write, dst);
}

WorkerResult LocalCopyBackend::remove(const CopyEntry &entry)
{
    // Only what was copied: an entry put there since is another one, and stays.
    const struct stat *st = statOf(entry);
    struct stat now;
    At at;
    if (!st || !resolve(entry.place, &at))
        return failErrno(errno, Operation::Delete, entry.place);
    if (::fstatat(at.dirFd, at.name.constData(), &now, AT_SYMLINK_NOFOLLOW) != 0)
        return failErrno(errno, Operation::Delete, entry.place);
    if (!sameFile(now, *st))
        return WorkerResult::pass();
    if (::unlinkat(at.dirFd, at.name.constData(), S_ISDIR(now.st_mode) ? AT_REMOVEDIR : 0) == 0)
        return WorkerResult::pass();
    const int err = errno;
    if (err == ENOTEMPTY || err == EEXIST) // something in it was left alone
        return failOn(ErrDirectoryNotEmpty, entry.place);
    return failErrno(err, Operation::Delete, entry.place);
}

} // namespace Qvfs::FileOps
