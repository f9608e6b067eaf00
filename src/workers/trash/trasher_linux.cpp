// SPDX-License-Identifier: LGPL-2.1-or-later
#include "trasher_p.h"

#include "error.h"
#include "fileops_tempfile_p.h"
#include "trashinfo_p.h"

#include <fcntl.h>
#include <stdio.h> // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace Qvfs::Trash
{

using FileOps::Fd;
using FileOps::OpResult;

namespace
{
/*! The canonical path of the open folder \a fd: what it is, not what a path said it was. */
QByteArray pathOfFd(int fd)
{
    const QByteArray link = FileOps::fdPath(fd);
    QByteArray buf(PATH_MAX, Qt::Uninitialized);
    const ssize_t n = ::readlink(link.constData(), buf.data(), size_t(buf.size()));
    if (n <= 0 || n >= buf.size() || buf.at(0) != '/')
        return {};
    buf.truncate(n);
    return buf;
}

int renameNoReplace(int fromDir, const char *from, int toDir, const char *to)
{
    if (::renameat2(fromDir, from, toDir, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    // A filesystem without RENAME_NOREPLACE: the name was checked free just before.
    struct stat st;
    if (::fstatat(toDir, to, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        errno = EEXIST;
        return -1;
    }
    return ::renameat(fromDir, from, toDir, to);
}
} // namespace

QByteArray candidateName(const QByteArray &base, int n)
{
    const qsizetype dot = base.indexOf('.');
    QByteArray stem = dot < 0 ? base : base.left(dot);
    QByteArray rest = dot < 0 ? QByteArray() : base.mid(dot);
    const QByteArray counter = n > 1 ? '.' + QByteArray::number(n) : QByteArray();
    const qsizetype room = NAME_MAX - InfoSuffix.size();
    if (stem.size() + counter.size() + rest.size() > room) {
        // Keep the counter and as much of the end (the extension) as fits, cut between
        // characters (never inside a UTF-8 sequence).
        if (rest.size() > room / 2)
            rest = rest.right(room / 2);
        qsizetype keep = room - rest.size() - counter.size();
        while (keep > 0 && keep < stem.size() && (uchar(stem.at(keep)) & 0xc0) == 0x80)
            --keep;
        stem.truncate(keep);
    }
    return stem + counter + rest;
}

OpResult Trasher::trash(const QByteArray &givenPath, QByteArray *entryName)
{
    const QByteArray path = FileOps::stripTrailingSlashes(givenPath);
    QByteArray parent;
    QByteArray name;
    FileOps::splitPath(path, &parent, &name);
    if (FileOps::isDot(name) || path == "/")
        return FileOps::makeError(ErrAccessDenied, givenPath);
    // The folder is opened once; where it really is comes from that descriptor, so the
    // path recorded and the entry renamed are of the same folder whatever is swapped.
    Fd parentFd(::open(parent.isEmpty() ? "/" : parent.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!parentFd.valid())
        return FileOps::errnoResult(errno, FileOps::Operation::Write, givenPath);
    const QByteArray realParent = pathOfFd(parentFd.get());
    if (realParent.isEmpty())
        return FileOps::makeError(ErrNoTrash, givenPath); // a folder no path leads to
    if (::fstatat(parentFd.get(), name.constData(), &st, AT_SYMLINK_NOFOLLOW) < 0)
        return FileOps::errnoResult(errno, FileOps::Operation::Write, givenPath);
    const QByteArray realPath = FileOps::joinPath(realParent == "/" ? QByteArray() : realParent, name);

    auto it = m_trashes.find(st.st_dev);
    if (it == m_trashes.end()) {
        Folder found;
        const OpResult r = trashFor(realPath, st.st_dev, &found);
        if (!r.ok())
            return FileOps::makeError(r.error, givenPath);
        it = m_trashes.emplace(st.st_dev, std::move(found)).first;
    }
    Folder &folder = it->second;
    if (Internal::isSameOrBelow(realPath, folder.path) || Internal::isSameOrBelow(folder.path, realPath))
        return FileOps::makeError(ErrCycle, givenPath);

    const QByteArray info
        = formatInfo(folder.infoPathFor(realPath), now.isValid() ? now : QDateTime::currentDateTime());
    // The info file, complete, gets its name in one step (linkat of an O_TMPFILE file fails
    // when the name is taken); where O_TMPFILE is missing, an O_EXCL file is written in place.
    Fd tmp(::openat(folder.info.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
    if (tmp.valid() && !FileOps::writeAll(tmp.get(), info))
        return FileOps::errnoResult(errno, FileOps::Operation::Write, folder.path + "/info");
    for (int n = 1; n < 10000; ++n) {
        const QByteArray candidate = candidateName(name, n);
        const QByteArray infoName = candidate + InfoSuffix.toByteArray();
        struct stat taken;
        if (::fstatat(folder.files.get(), candidate.constData(), &taken, AT_SYMLINK_NOFOLLOW) == 0)
            continue; // an entry without its info (another program's leftover): not ours to reuse
        if (tmp.valid()) {
            if (FileOps::linkTmpFile(tmp.get(), folder.info.get(), infoName.constData()) < 0) {
                if (errno == EEXIST)
                    continue;
                if (errno == ENOENT) // no /proc: write in place
                    tmp.reset();
                else
                    return FileOps::errnoResult(errno, FileOps::Operation::Write, folder.path + "/info");
            }
        }
        if (!tmp.valid()) {
            Fd f(::openat(
                folder.info.get(), infoName.constData(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
            if (!f.valid() && errno == EEXIST)
                continue;
            if (!f.valid() || !FileOps::writeAll(f.get(), info)) {
                const int err = errno;
                if (f.valid())
                    ::unlinkat(folder.info.get(), infoName.constData(), 0);
                return FileOps::errnoResult(err, FileOps::Operation::Write, folder.path + "/info");
            }
        }
        if (renameNoReplace(parentFd.get(), name.constData(), folder.files.get(), candidate.constData()) < 0) {
            const int err = errno;
            ::unlinkat(folder.info.get(), infoName.constData(), 0);
            if (err == EEXIST)
                continue; // files/ got that name meanwhile
            if (err == EXDEV)
                return FileOps::makeError(ErrNoTrash, givenPath, err);
            return FileOps::errnoResult(err, FileOps::Operation::Delete, givenPath);
        }
        *entryName = folder.id + '-' + candidate;
        return {};
    }
    return FileOps::makeError(ErrAlreadyExists, givenPath);
}

} // namespace Qvfs::Trash
