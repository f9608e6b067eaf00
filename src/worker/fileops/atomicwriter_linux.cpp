// SPDX-License-Identifier: LGPL-2.1-or-later
// AtomicWriter (fileops_base_p.h): the local destination rule for every worker that writes
// local files (LocalFileWriter wraps it). It needs only the helpers beside it.
#include "fileops_base_p.h"
#include "fileops_metadata_p.h"
#include "fileops_tempfile_p.h"
#include "fileops_util_p.h"

#include "error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

namespace Qvfs::FileOps
{

struct AtomicWriter::Private
{
    Fd dirFd; // declared before tmp: the temporary goes first
    TempFile tmp;
    QByteArray path;
    QByteArray name;
    bool isOpen = false;
    bool overwrite = false;
    int mode = -1; // set at commit when >= 0
    // the regular file being replaced: its owner, group and (with its mode) access ACL stay
    bool replacesFile = false;
    struct stat replaced = {};
    QByteArray replacedAcl; // its access ACL, when its permissions are kept
    bool setTime = false;
    struct timespec mtime = {};
};

AtomicWriter::AtomicWriter()
    : d(std::make_unique<Private>())
{ }

AtomicWriter::~AtomicWriter() = default;

void AtomicWriter::discard()
{
    d->tmp.fd.reset();
    if (!d->tmp.name.isEmpty()) {
        ::unlinkat(d->tmp.dirFd, d->tmp.name.constData(), 0);
        d->tmp.name.clear();
    }
    d->dirFd.reset();
    d->isOpen = false;
    d->setTime = false;
    d->replacesFile = false;
    d->replacedAcl.clear();
}

OpResult AtomicWriter::open(
    const QByteArray &path, bool overwrite, int permissions, bool allowTmpFile, const FileIdentity &expectedParent)
{
    discard();
    if (path.isEmpty() || hasNul(path))
        return makeError(ErrMalformedUrl, path);
    // A symlink at \a path is replaced, never written through (a link planted in a shared
    // folder must not redirect the write), as `cp -f` and `mv` do.
    const QByteArray target = stripTrailingSlashes(path);
    struct stat st;
    int parent = -1;
    const OpResult opened = openParent(target, expectedParent, &parent, &d->name);
    if (!opened.ok())
        return opened;
    d->dirFd.reset(parent);
    if (isDot(d->name))
        return makeError(ErrIsDirectory, path);
    d->path = target;
    d->overwrite = overwrite;
    d->mode = permissions >= 0 ? (permissions & 07777) : -1;
    if (::fstatat(d->dirFd.get(), d->name.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(st.st_mode))
            return makeError(ErrIsDirectory, target);
        if (!overwrite)
            return makeError(ErrAlreadyExists, target);
        if (S_ISREG(st.st_mode)) {
            d->replacesFile = true;
            d->replaced = st;
            if (d->mode < 0) {
                // its mode, and the ACL its group bits stand for
                d->mode = int(st.st_mode & 0777);
                d->replacedAcl = accessAcl(XattrFile::inFolder(d->dirFd.get(), d->name.constData()));
            }
        }
    } else if (errno != ENOENT) {
        return errnoResult(errno, Operation::Write, target);
    }
    // Owner-only while incomplete (a named .part must not be readable by others); the
    // final mode is set at commit: the asked one, the replaced file's, or 0666 less umask.
    if (d->mode < 0)
        d->mode = int(0666 & ~processUmask());
    const OpResult r = openTempFile(d->dirFd.get(), d->name, target, 0600, allowTmpFile, &d->tmp);
    if (!r.ok()) {
        discard();
        return r;
    }
    d->isOpen = true;
    return r;
}

OpResult AtomicWriter::write(QByteArrayView data)
{
    if (!d->isOpen)
        return makeError(ErrInternal, d->path);
    const char *p = data.data();
    qsizetype left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(d->tmp.fd.get(), p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errnoResult(errno, Operation::Write, d->path);
        }
        p += n;
        left -= n;
    }
    return OpResult();
}

int AtomicWriter::fd() const
{
    return d->isOpen ? d->tmp.fd.get() : -1;
}

void AtomicWriter::setModificationTime(qint64 seconds, qint64 nanoseconds)
{
    d->setTime = true;
    d->mtime.tv_sec = time_t(seconds);
    d->mtime.tv_nsec = long(nanoseconds);
}

OpResult AtomicWriter::commit()
{
    if (!d->isOpen)
        return makeError(ErrInternal, d->path);
    if (d->replacesFile) {
        struct stat st;
        if (::fstat(d->tmp.fd.get(), &st) == 0)
            keepOwner(d->tmp.fd.get(), d->dirFd.get(), d->replaced, &st);
    }
    // after the chown, which clears setuid and setgid
    if (d->mode >= 0)
        ::fchmod(d->tmp.fd.get(), mode_t(d->mode));
    if (!d->replacedAcl.isEmpty())
        setAccessAcl(XattrFile::ofFd(d->tmp.fd.get()), d->replacedAcl, mode_t(d->mode));
    if (d->setTime) {
        struct timespec times[2];
        times[0].tv_sec = 0;
        times[0].tv_nsec = UTIME_OMIT;
        times[1] = d->mtime;
        ::futimens(d->tmp.fd.get(), times);
    }
    const OpResult r = commitTempFile(&d->tmp, d->dirFd.get(), d->name, d->path, d->overwrite);
    discard();
    return r;
}

} // namespace Qvfs::FileOps
