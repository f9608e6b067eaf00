// SPDX-License-Identifier: LGPL-2.1-or-later
// The copy engine behind copy() (fileops.h).
#include "fileops.h"
#include "fileops_metadata_p.h"
#include "fileops_tempfile_p.h"
#include "fileops_testhook_p.h"
#include "fileops_tree_p.h"
#include "fileops_util_p.h"

#include "error.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>
#include <utility>

namespace Qvfs::FileOps
{

void (*testHook)(TestPoint point, int fd) = nullptr;

namespace
{

constexpr off_t CopyChunk = 16 * 1024 * 1024; // per copy_file_range() call
constexpr size_t BufferSize = 1024 * 1024; // per read()/write() in the fallback

// Whether the folder \a dirFd is \a dir or inside it (walking up through "..").
bool isInside(int dirFd, const struct stat &dir)
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

class CopyEngine
{
public:
    CopyEngine(const CopyOptions &options, Context &context)
        : m_options(options)
        , m_context(context)
        , m_policy(options.conflict)
        , m_umask(processUmask())
    { }

    OpResult run(const QList<QByteArray> &sources, const QByteArray &dest, bool destIsDirectory);

private:
    using Action = CopyAction; // Create, Replace, Merge or Skip once resolved

    bool fail(int code, const QByteArray &path, int err = 0)
    {
        if (m_result.ok())
            m_result = makeError(code, path, err);
        return false;
    }
    bool failErrno(int err, Operation op, const QByteArray &path) { return fail(errorFromErrno(err, op), path, err); }
    bool fail(const OpResult &r)
    {
        if (m_result.ok())
            m_result = r;
        return false;
    }
    bool checkCancel(const QByteArray &path)
    {
        if (m_context.isCancelled())
            return fail(ErrCancelled, path);
        return true;
    }
    void report() { m_context.progress(m_amounts.bytes, m_amounts.files, m_amounts.folders); }
    void recordCopied(const struct stat &st)
    {
        if (m_options.move)
            m_copied.insert({ st.st_dev, st.st_ino });
    }
    struct timespec *times(const struct stat &st)
    {
        m_times[0] = st.st_atim;
        m_times[1] = st.st_mtim;
        return m_times;
    }

    bool resolve(const struct stat &src, const QByteArray &srcPath, int dstDirFd, QByteArray *dstName,
        QByteArray *dstPath, Action *action, struct stat *existing);
    bool skip(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        const QByteArray &dstPath);
    bool takeOutOfTotals(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st);
    bool openSource(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int flags, bool goneIsFine, Fd *fd);
    bool copyEntry(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, QByteArray dstName, QByteArray dstPath);
    bool copyResolved(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, Action action, const struct stat *replaced);
    bool copyDirectory(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool create);
    bool copyFile(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, const struct stat *replaced);
    bool copyData(
        int in, int out, const struct stat &st, dev_t dstDev, const QByteArray &srcPath, const QByteArray &dstPath);
    bool copySparse(
        int in, int out, off_t size, const QByteArray &srcPath, const QByteArray &dstPath, off_t *copiedSize);
    bool copyToEnd(int in, int out, const QByteArray &srcPath, const QByteArray &dstPath);
    bool copyRange(int in, int out, off_t offset, off_t length, off_t expected, off_t *copied,
        const QByteArray &srcPath, const QByteArray &dstPath);
    bool copyNode(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace);
    bool openTemp(int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, TempFile *tmp);
    bool commitTemp(TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace);
    bool moveEntry(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
        int dstDirFd, QByteArray dstName, QByteArray dstPath);
    bool deleteCopied(int dirFd, const QByteArray &name, const QByteArray &path);

    const CopyOptions m_options;
    Context &m_context;
    ConflictPolicy m_policy;
    const mode_t m_umask;
    OpResult m_result;
    // Processed, skipped and (countFirst) the totals, whose bytes lose what is skipped. A
    // top-level source of a move on the destination's filesystem counts as one entry
    // (m_countedAsOne): what is inside was never counted.
    CopyAmounts m_amounts;
    bool m_haveTotals = false;
    QByteArray m_countedAsOne;
    int m_depth = 0; // folders entered below a source: an entry gone there is skipped, a source gone is an error
    bool m_inNewFolder = false; // copying into a folder this copy created
    struct timespec m_times[2];
    std::unique_ptr<char[]> m_buffer;
    bool m_useCopyRange = true; // for the current file
    std::pair<dev_t, dev_t> m_devices; // (source, destination) filesystems of the current file
    std::set<std::pair<dev_t, dev_t>> m_noClone; // (source, destination) filesystems without FICLONE
    std::set<std::pair<dev_t, dev_t>> m_noCopyRange; // ... without copy_file_range
    // move: the sources copied from another filesystem, deleted at the very end
    std::set<std::pair<dev_t, ino_t>> m_copied;
    struct PendingDelete
    {
        QByteArray path;
        bool tree; // a copied tree (delete what was copied); false: a merged folder (rmdir if empty)
    };
    QList<PendingDelete> m_pendingDeletes;
};

OpResult CopyEngine::run(const QList<QByteArray> &sources, const QByteArray &dest, bool destIsDirectory)
{
    if (sources.isEmpty())
        return m_result;
    if (!destIsDirectory && sources.size() != 1) {
        OpResult r = makeError(ErrInternal, dest);
        r.detail = QByteArrayLiteral("copying several sources needs a destination folder");
        return r;
    }
    if (dest.isEmpty() || hasNul(dest))
        return makeError(ErrMalformedUrl, dest);

    QByteArray dstDir = dest;
    QByteArray dstBaseName;
    if (!destIsDirectory) {
        splitPath(dest, &dstDir, &dstBaseName);
        if (isDot(dstBaseName))
            return makeError(ErrAlreadyExists, dest);
    }
    Fd dstDirFd(::open(dstDir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dstDirFd.valid())
        return errnoResult(errno, Operation::Write, dstDir);
    struct stat dstDirSt;
    if (::fstat(dstDirFd.get(), &dstDirSt) != 0)
        return errnoResult(errno, Operation::Write, dstDir);

    struct Item
    {
        QByteArray path;
        QByteArray dstName;
        QByteArray dstPath;
        struct stat st;
    };
    QList<Item> items;
    items.reserve(sources.size());
    // Check every source before anything is written
    for (const QByteArray &source : sources) {
        Item item;
        item.path = stripTrailingSlashes(source);
        if (item.path.isEmpty() || hasNul(item.path))
            return makeError(ErrMalformedUrl, source);
        QByteArray dir;
        QByteArray name;
        splitPath(item.path, &dir, &name);
        if (::fstatat(AT_FDCWD, item.path.constData(), &item.st, AT_SYMLINK_NOFOLLOW) != 0)
            return errnoResult(errno, Operation::Read, item.path);
        if (S_ISDIR(item.st.st_mode) && isInside(dstDirFd.get(), item.st))
            return makeError(ErrCycle, item.path);
        if (isDot(name))
            return makeError(ErrMalformedUrl, source);
        item.dstName = destIsDirectory ? name : dstBaseName;
        item.dstPath = destIsDirectory ? joinPath(dest, name) : stripTrailingSlashes(dest);
        items.append(item);
    }

    if (m_options.countFirst) {
        Counts totals;
        for (const Item &item : std::as_const(items)) {
            if (m_options.move && item.st.st_dev == dstDirSt.st_dev) {
                // most likely a rename: one entry
                ++(S_ISDIR(item.st.st_mode) ? totals.dirs : totals.files);
                continue;
            }
            if (S_ISDIR(item.st.st_mode)) {
                ++totals.dirs;
                OpResult ignored;
                if (!countInside(
                        AT_FDCWD, item.path.constData(), item.path, totals, m_context, false, false, &ignored)) {
                    if (ignored.error == ErrCancelled)
                        return ignored;
                }
            } else {
                ++totals.files;
                if (S_ISREG(item.st.st_mode))
                    totals.bytes += item.st.st_size;
            }
        }
        m_context.setTotals(totals.bytes, totals.files, totals.dirs);
        m_amounts.totalBytes = totals.bytes;
        m_amounts.totalFiles = totals.files;
        m_amounts.totalFolders = totals.dirs;
        m_haveTotals = true;
    }

    for (const Item &item : std::as_const(items)) {
        m_countedAsOne = m_options.move && item.st.st_dev == dstDirSt.st_dev ? item.path : QByteArray();
        const bool ok = m_options.move
            ? moveEntry(AT_FDCWD, item.path, item.path, item.st, dstDirFd.get(), item.dstName, item.dstPath)
            : copyEntry(AT_FDCWD, item.path, item.path, item.st, dstDirFd.get(), item.dstName, item.dstPath);
        if (!ok)
            return m_result;
    }

    // move: every copy succeeded, now the copied sources go
    for (const PendingDelete &pending : std::as_const(m_pendingDeletes)) {
        if (pending.tree) {
            if (!deleteCopied(AT_FDCWD, pending.path, pending.path))
                return m_result;
        } else if (::unlinkat(AT_FDCWD, pending.path.constData(), AT_REMOVEDIR) != 0 && errno != ENOTEMPTY
            && errno != EEXIST && errno != ENOENT) {
            failErrno(errno, Operation::Delete, pending.path);
            return m_result;
        }
    }
    return m_result;
}

// What to do with \a src at \a dstName in \a dstDirFd; \a existing receives the stat of
// what is there (for Replace).
bool CopyEngine::resolve(const struct stat &src, const QByteArray &srcPath, int dstDirFd, QByteArray *dstName,
    QByteArray *dstPath, Action *action, struct stat *existing)
{
    struct stat &dst = *existing;
    CopyTarget target = CopyTarget::Absent;
    if (::fstatat(dstDirFd, dstName->constData(), &dst, AT_SYMLINK_NOFOLLOW) == 0)
        target = S_ISDIR(dst.st_mode) ? CopyTarget::Folder : CopyTarget::Other;
    else if (errno != ENOENT)
        return failErrno(errno, Operation::Write, *dstPath);
    const bool isDir = S_ISDIR(src.st_mode);
    const bool identical = target != CopyTarget::Absent && sameFile(src, dst);
    const CopyDecision d = decideCopyAsking(&m_policy, isDir, target, identical, [&] {
        ConflictAnswer a;
        a.action = m_context.askConflict(srcPath, *dstPath, &a.applyToAll);
        a.answered = true; // the context says Cancel when nobody answered
        return a;
    });
    switch (d.action) {
    case CopyAction::Rename: {
        int err = 0;
        const QByteArray name = firstFreeName(*dstName, isDir, [&](const QByteArray &candidate) {
            struct stat st;
            if (::fstatat(dstDirFd, candidate.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0)
                return NameProbe::Taken;
            err = errno;
            return err == ENOENT ? NameProbe::Free : NameProbe::Failed;
        });
        if (name.isEmpty())
            return err != 0 && err != ENOENT ? failErrno(err, Operation::Write, *dstPath)
                                             : fail(ErrAlreadyExists, *dstPath);
        *dstPath = dstPath->left(dstPath->size() - dstName->size()) + name;
        *dstName = name;
        *action = Action::Create;
        return true;
    }
    case CopyAction::Fail:
        return fail(d.error, *dstPath);
    case CopyAction::Ask:
        return fail(ErrInternal, *dstPath); // never from decideCopyAsking()
    case CopyAction::Create:
    case CopyAction::Replace:
    case CopyAction::Merge:
    case CopyAction::Skip:
        break;
    }
    *action = d.action;
    return true;
}

bool CopyEngine::copyEntry(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int dstDirFd, QByteArray dstName, QByteArray dstPath)
{
    if (!checkCancel(srcPath))
        return false;
    // In a folder this copy has just made nothing can be in the way but what another
    // process (of this user: it is not writable by others yet) adds meanwhile, and that
    // is never overwritten: the entry is made without replacing (ErrAlreadyExists).
    Action action = Action::Create;
    struct stat existing;
    if (!m_inNewFolder && !resolve(st, srcPath, dstDirFd, &dstName, &dstPath, &action, &existing))
        return false;
    return copyResolved(srcDirFd, srcName, srcPath, st, dstDirFd, dstName, dstPath, action,
        action == Action::Replace ? &existing : nullptr);
}

// \a replaced: the stat of the destination being replaced (Action::Replace), else null.
bool CopyEngine::copyResolved(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, Action action, const struct stat *replaced)
{
    if (action == Action::Skip)
        return skip(srcDirFd, srcName, srcPath, st, dstPath);
    if (S_ISDIR(st.st_mode))
        return copyDirectory(srcDirFd, srcName, srcPath, st, dstDirFd, dstName, dstPath, action != Action::Merge);
    if (S_ISREG(st.st_mode))
        return copyFile(srcDirFd, srcName, srcPath, st, dstDirFd, dstName, dstPath, replaced);
    return copyNode(srcDirFd, srcName, srcPath, st, dstDirFd, dstName, dstPath, replaced != nullptr);
}

// An entry left alone: counted apart, and out of the totals (a folder with its content).
bool CopyEngine::skip(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    const QByteArray &dstPath)
{
    m_context.item(CopyItemEvent::Skipped, srcPath, dstPath);
    m_context.skipped(++m_amounts.skipped);
    return takeOutOfTotals(srcDirFd, srcName, srcPath, st);
}

// Opens the entry \a srcName to copy it. One inside the tree that cannot be opened
// (EACCES) is asked about through the context: left out (and out of the totals, so the
// percentage still reaches 100), tried again, or the end of the copy; with \a goneIsFine one
// deleted since it was listed is passed over. False ends the copy (m_result says why);
// true with \a fd invalid goes on without the entry. A source itself, or any other error,
// ends the copy.
bool CopyEngine::openSource(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int flags, bool goneIsFine, Fd *fd)
{
    for (;;) {
        *fd = Fd(::openat(srcDirFd, srcName.constData(), flags | O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (fd->valid())
            return true;
        const int err = errno;
        if (err == ENOENT && goneIsFine && m_depth > 0)
            return true; // deleted since it was listed: like an entry gone before the listing
        const int code = errorFromErrno(err, Operation::Read);
        if (m_depth == 0 || code != ErrAccessDenied)
            return failErrno(err, Operation::Read, srcPath);
        switch (m_context.unreadable(srcPath, code)) {
        case UnreadableAction::Retry:
            continue;
        case UnreadableAction::Cancel:
            return fail(ErrCancelled, srcPath);
        case UnreadableAction::Skip:
            return takeOutOfTotals(srcDirFd, srcName, srcPath, st);
        }
    }
}

// The bytes of an entry left alone leave the byte total (a folder's with what it holds);
// the file and folder totals stay as counted (CopyAmounts::leaveOut()).
bool CopyEngine::takeOutOfTotals(
    int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st)
{
    // A move's renamed tree was counted as one entry, without bytes.
    if (!m_haveTotals || !m_countedAsOne.isEmpty())
        return true;
    Counts out;
    if (S_ISDIR(st.st_mode)) {
        OpResult ignored; // counted as the totals were: what cannot be read was not counted either
        countInside(srcDirFd, srcName.constData(), srcPath, out, m_context, false, false, &ignored);
        if (ignored.error == ErrCancelled)
            return fail(ignored);
    } else if (S_ISREG(st.st_mode)) {
        out.bytes = st.st_size;
    }
    m_amounts.leaveOut(out.bytes);
    m_context.setTotals(m_amounts.totalBytes, m_amounts.totalFiles, m_amounts.totalFolders);
    return true;
}

bool CopyEngine::copyDirectory(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath,
    const struct stat &st, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool create)
{
    Fd srcFd;
    if (!openSource(srcDirFd, srcName, srcPath, st, O_DIRECTORY, false, &srcFd) || !srcFd.valid())
        return m_result.ok(); // left out, or the end of the copy
    struct stat current;
    if (::fstat(srcFd.get(), &current) != 0)
        return failErrno(errno, Operation::Read, srcPath);
    if (!sameFile(current, st))
        return fail(ErrSourceChanged, srcPath);
    const XattrFile source = XattrFile::ofFd(srcFd.get());
    const QByteArray attributes = create ? source.names() : QByteArray();
    // the rwx bits without the ACL's mask as group bits (modeWithoutAcl())
    const mode_t plainMode = modeWithoutAcl(source, attributes, st.st_mode);
    DirStream dir(std::move(srcFd));
    if (!dir.valid())
        return failErrno(errno, Operation::Read, srcPath);

    // Created without group/other write, so nobody writes into it meanwhile, and with the
    // owner's rwx, so a read-only source folder can still be filled; the exact mode comes
    // at the end. A worker killed meanwhile leaves a folder readable as its source was.
    const mode_t interim = (plainMode & 0777 & ~mode_t(S_IWGRP | S_IWOTH)) | S_IRWXU;
    if (create && ::mkdirat(dstDirFd, dstName.constData(), interim) != 0)
        return failErrno(errno, Operation::Write, dstPath);
    Fd dstFd(::openat(dstDirFd, dstName.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dstFd.valid())
        return failErrno(errno, Operation::Write, dstPath);
    if (create)
        m_context.item(CopyItemEvent::CreatedFolder, srcPath, dstPath);

    bool ok = true;
    const bool wasInNewFolder = std::exchange(m_inNewFolder, create);
    ++m_depth;
    while (struct dirent *e = dir.next()) {
        const QByteArray name(e->d_name);
        struct stat childSt;
        if (::fstatat(dir.fd(), e->d_name, &childSt, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) // deleted meanwhile
                continue;
            ok = failErrno(errno, Operation::Read, joinPath(srcPath, name));
            break;
        }
        ok = copyEntry(dir.fd(), name, joinPath(srcPath, name), childSt, dstFd.get(), name, joinPath(dstPath, name));
        if (!ok)
            break;
    }
    if (ok && errno != 0)
        ok = failErrno(errno, Operation::Read, srcPath);
    --m_depth;
    m_inNewFolder = wasInNewFolder;

    if (create) {
        // also after an error, so no folder stays owner-only; best effort. The ACLs (access
        // and default) come last: they are what the mode's group bits stand for, and the
        // entries copied inside got their own.
        const mode_t mode = m_options.preserve ? (st.st_mode & 07777) : (plainMode & 0777 & ~m_umask);
        ::fchmod(dstFd.get(), mode);
        if (!attributes.isEmpty())
            copyAttributes(source, XattrFile::ofFd(dstFd.get()), attributes, m_options.preserve, true, mode);
        if (m_options.preserve)
            ::futimens(dstFd.get(), times(st));
    }
    if (!ok)
        return false;
    ++m_amounts.folders;
    recordCopied(st);
    report();
    return true;
}

bool CopyEngine::openTemp(
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, TempFile *tmp)
{
    const OpResult r = openTempFile(dstDirFd, dstName, dstPath, mode, m_options.allowTmpFile, tmp);
    return r.ok() ? true : fail(r);
}

bool CopyEngine::commitTemp(
    TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace)
{
    const OpResult r = commitTempFile(tmp, dstDirFd, dstName, dstPath, replace);
    return r.ok() ? true : fail(r);
}

bool CopyEngine::copyFile(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, const struct stat *replaced)
{
    Fd in;
    if (!openSource(srcDirFd, srcName, srcPath, st, O_NOCTTY, true, &in) || !in.valid())
        return m_result.ok(); // left out or gone, or the end of the copy
    struct stat cur;
    if (::fstat(in.get(), &cur) != 0)
        return failErrno(errno, Operation::Read, srcPath);
    if (!S_ISREG(cur.st_mode) || !sameFile(cur, st))
        return fail(ErrSourceChanged, srcPath);
    m_context.item(CopyItemEvent::Copying, srcPath, dstPath);

    // one flistxattr: most files have no attributes, and then nothing more is asked
    const XattrFile source = XattrFile::ofFd(in.get());
    const QByteArray attributes = source.names();
    TempFile tmp;
    const mode_t createMode = m_options.preserve ? 0600 : (modeWithoutAcl(source, attributes, cur.st_mode) & 0777);
    if (!openTemp(dstDirFd, dstName, dstPath, createMode, &tmp))
        return false;
    struct stat tmpSt;
    if (::fstat(tmp.fd.get(), &tmpSt) != 0)
        return failErrno(errno, Operation::Write, dstPath);
    if (!copyData(in.get(), tmp.fd.get(), cur, tmpSt.st_dev, srcPath, dstPath))
        return false;
    // a copy replacing a file keeps its owner (a move brings its own, as a rename would)
    if (replaced && S_ISREG(replaced->st_mode) && !m_options.move)
        keepOwner(tmp.fd.get(), dstDirFd, *replaced, &tmpSt);
    mode_t mode = createMode & ~m_umask;
    if (m_options.preserve) {
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
            source, XattrFile::ofFd(tmp.fd.get()), attributes, m_options.preserve, tmpSt.st_uid == cur.st_uid, mode);
    }
    if (m_options.preserve)
        ::futimens(tmp.fd.get(), times(cur));
    if (!checkCancel(srcPath))
        return false;
    if (!commitTemp(&tmp, dstDirFd, dstName, dstPath, replaced != nullptr))
        return false;
    ++m_amounts.files;
    recordCopied(cur);
    m_context.item(CopyItemEvent::Copied, srcPath, dstPath);
    report();
    return true;
}

bool CopyEngine::copyData(
    int in, int out, const struct stat &st, dev_t dstDev, const QByteArray &srcPath, const QByteArray &dstPath)
{
    const off_t size = st.st_size;
    const std::pair<dev_t, dev_t> devices(st.st_dev, dstDev);
    const qint64 bytesBefore = m_amounts.bytes;
    m_devices = devices;
    m_useCopyRange = m_noCopyRange.count(devices) == 0;

    if (sizeUnknown(in, st)) {
        // /proc, /sys...: st_size says nothing (0, or 4096 for any sysfs file); read to the end
        if (!copyToEnd(in, out, srcPath, dstPath))
            return false;
        m_amounts.bytes = bytesBefore + size; // what the totals counted for it
        report();
        return true;
    }

    if (size > 0 && m_noClone.count(devices) == 0) {
        if (::ioctl(out, FICLONE, in) == 0) {
            struct stat now;
            if (::fstat(in, &now) != 0)
                return failErrno(errno, Operation::Read, srcPath);
            if (now.st_size < size)
                return fail(ErrSourceChanged, srcPath);
            m_amounts.bytes = bytesBefore + now.st_size;
            report();
            return true;
        }
        if (errno == EOPNOTSUPP || errno == EXDEV || errno == EINVAL || errno == ENOTTY || errno == ENOSYS)
            m_noClone.insert(devices);
    }

    if (size > 0 && off_t(st.st_blocks) * 512 < size) {
        // sparse: copy the data extents only (copy_file_range would fill the holes)
        off_t copiedSize = -1;
        if (!copySparse(in, out, size, srcPath, dstPath, &copiedSize))
            return false;
        if (copiedSize >= 0) {
            m_amounts.bytes = bytesBefore + copiedSize;
            report();
            return true;
        }
        m_amounts.bytes = bytesBefore; // no SEEK_DATA here: the whole file after all
    }

    // whole file, to the end
    off_t copied = 0;
    if (!copyRange(in, out, 0, -1, size, &copied, srcPath, dstPath))
        return false;
    if (copied < size)
        return fail(ErrSourceChanged, srcPath);
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
bool CopyEngine::copySparse(
    int in, int out, off_t size, const QByteArray &srcPath, const QByteArray &dstPath, off_t *copiedSize)
{
    constexpr int MaxRounds = 100; // a file growing faster than it is copied: an error in the end
    off_t pos = 0;
    for (int round = 0;; ++round) {
        for (;;) {
            const off_t data = ::lseek(in, pos, SEEK_DATA);
            if (data < 0) {
                if (errno == ENXIO) // no data after pos
                    break;
                if (errno == EINVAL && pos == 0 && round == 0)
                    return true; // no SEEK_DATA on this filesystem
                return failErrno(errno, Operation::Read, srcPath);
            }
            const off_t hole = ::lseek(in, data, SEEK_HOLE);
            if (hole < 0)
                return failErrno(errno, Operation::Read, srcPath);
            off_t copied = 0;
            if (!copyRange(in, out, data, hole - data, hole - data, &copied, srcPath, dstPath))
                return false;
            if (copied < hole - data)
                return fail(ErrSourceChanged, srcPath);
            pos = hole;
        }
        if (testHook)
            testHook(TestPoint::SparseScanned, in);
        struct stat now;
        if (::fstat(in, &now) != 0)
            return failErrno(errno, Operation::Read, srcPath);
        if (now.st_size < std::max(size, pos))
            return fail(ErrSourceChanged, srcPath); // shrank
        if (::lseek(in, pos, SEEK_DATA) >= 0) {
            if (round == MaxRounds)
                return fail(ErrSourceChanged, srcPath);
            continue; // grew: data after pos now
        }
        if (errno != ENXIO)
            return failErrno(errno, Operation::Read, srcPath);
        // [pos, now.st_size) was a hole after the size was read; unless it shrank since
        struct stat after;
        if (::fstat(in, &after) != 0)
            return failErrno(errno, Operation::Read, srcPath);
        if (after.st_size < now.st_size)
            return fail(ErrSourceChanged, srcPath);
        if (::ftruncate(out, now.st_size) != 0)
            return failErrno(errno, Operation::Write, dstPath);
        *copiedSize = now.st_size;
        return true;
    }
}

// Copies \a in from where it is to its end with read()/write(), for pseudo files whose
// size means nothing (copy_file_range and positional reads are not for them).
bool CopyEngine::copyToEnd(int in, int out, const QByteArray &srcPath, const QByteArray &dstPath)
{
    if (!m_buffer)
        m_buffer.reset(new char[BufferSize]);
    for (;;) {
        if (!checkCancel(srcPath))
            return false;
        const ssize_t n = ::read(in, m_buffer.get(), BufferSize);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return failErrno(errno, Operation::Read, srcPath);
        }
        if (n == 0)
            return true;
        for (ssize_t written = 0; written < n;) {
            const ssize_t w = ::write(out, m_buffer.get() + written, size_t(n - written));
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                return failErrno(errno, Operation::Write, dstPath);
            }
            written += w;
        }
    }
}

// Copies \a length bytes (-1: up to the end) at \a offset from \a in to the same offset
// in \a out; \a expected is how much should come, to tell a broken copy_file_range from
// the real end.
bool CopyEngine::copyRange(int in, int out, off_t offset, off_t length, off_t expected, off_t *copied,
    const QByteArray &srcPath, const QByteArray &dstPath)
{
    off_t inOffset = offset;
    off_t outOffset = offset;
    while (length != 0) {
        if (!checkCancel(srcPath))
            return false;
        const off_t want = length < 0 ? CopyChunk : std::min(length, CopyChunk);
        ssize_t n;
        if (m_useCopyRange) {
            n = ::copy_file_range(in, &inOffset, out, &outOffset, size_t(want), 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
                    return failErrno(errno, Operation::Write, dstPath);
                if (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS)
                    m_noCopyRange.insert(m_devices);
                // read()/write() take over and, if the error is real, tell which side has it
                m_useCopyRange = false;
                continue;
            }
            if (n == 0 && *copied < expected) {
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
                return failErrno(errno, Operation::Read, srcPath);
            for (ssize_t written = 0; written < n;) {
                const ssize_t w = ::pwrite(out, m_buffer.get() + written, size_t(n - written), outOffset + written);
                if (w < 0) {
                    if (errno == EINTR)
                        continue;
                    return failErrno(errno, Operation::Write, dstPath);
                }
                written += w;
            }
            inOffset += n;
            outOffset += n;
        }
        if (n == 0)
            break; // end of the source
        *copied += n;
        if (length > 0)
            length -= n;
        m_amounts.bytes += n;
        report();
    }
    return true;
}

// Symlinks, fifos, sockets and device nodes.
bool CopyEngine::copyNode(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace)
{
    m_context.item(CopyItemEvent::Copying, srcPath, dstPath);
    QByteArray target;
    if (S_ISLNK(st.st_mode)) {
        qsizetype capacity = st.st_size > 0 ? qsizetype(st.st_size) + 1 : 256;
        for (;;) {
            target.resize(capacity);
            const ssize_t n = ::readlinkat(srcDirFd, srcName.constData(), target.data(), size_t(capacity));
            if (n < 0)
                return failErrno(errno, Operation::Read, srcPath);
            if (n < capacity) {
                target.truncate(n);
                break;
            }
            capacity *= 2;
        }
    }
    // A fifo or device node may carry attributes and ACLs (a symlink none worth a call).
    const XattrFile source = XattrFile::inFolder(srcDirFd, srcName.constData());
    const QByteArray attributes = S_ISLNK(st.st_mode) ? QByteArray() : source.names();
    const mode_t plainMode = modeWithoutAcl(source, attributes, st.st_mode);
    // made under its final name, or under a hidden one then renamed over the destination
    if (replace)
        removeStaleTemporaries(dstDirFd);
    QByteArray name = replace ? tempName(dstName) : dstName;
    for (int attempt = 0;; ++attempt) {
        const int r = S_ISLNK(st.st_mode)
            ? ::symlinkat(target.constData(), dstDirFd, name.constData())
            : ::mknodat(dstDirFd, name.constData(), (st.st_mode & S_IFMT) | (plainMode & 0777), st.st_rdev);
        if (r == 0)
            break;
        if (errno != EEXIST || !replace || attempt == 100)
            return failErrno(errno, Operation::Write, dstPath);
        name = tempName(dstName);
    }
    const mode_t mode = st.st_mode & 07777 & ~(S_ISUID | S_ISGID);
    if (m_options.preserve && !S_ISLNK(st.st_mode))
        ::fchmodat(dstDirFd, name.constData(), mode, 0);
    if (!attributes.isEmpty()) {
        copyAttributes(
            source, XattrFile::inFolder(dstDirFd, name.constData()), attributes, m_options.preserve, false, mode);
    }
    if (m_options.preserve)
        ::utimensat(dstDirFd, name.constData(), times(st), AT_SYMLINK_NOFOLLOW);
    if (replace && ::renameat(dstDirFd, name.constData(), dstDirFd, dstName.constData()) != 0) {
        const int err = errno;
        ::unlinkat(dstDirFd, name.constData(), 0);
        return failErrno(err, Operation::Write, dstPath);
    }
    ++m_amounts.files;
    recordCopied(st);
    m_context.item(CopyItemEvent::Copied, srcPath, dstPath);
    report();
    return true;
}

bool CopyEngine::moveEntry(int srcDirFd, const QByteArray &srcName, const QByteArray &srcPath, const struct stat &st,
    int dstDirFd, QByteArray dstName, QByteArray dstPath)
{
    if (!checkCancel(srcPath))
        return false;
    Action action;
    struct stat existing;
    if (!resolve(st, srcPath, dstDirFd, &dstName, &dstPath, &action, &existing))
        return false;
    int r = 0;
    switch (action) {
    case Action::Skip:
        return skip(srcDirFd, srcName, srcPath, st, dstPath);
    case Action::Merge: {
        Fd srcFd(::openat(srcDirFd, srcName.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!srcFd.valid())
            return failErrno(errno, Operation::Read, srcPath);
        Fd dstFd(::openat(dstDirFd, dstName.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!dstFd.valid())
            return failErrno(errno, Operation::Write, dstPath);
        DirStream dir(std::move(srcFd));
        if (!dir.valid())
            return failErrno(errno, Operation::Read, srcPath);
        // renaming entries out while reading: collect the names first
        QList<QByteArray> names;
        while (struct dirent *e = dir.next())
            names.append(QByteArray(e->d_name));
        if (errno != 0)
            return failErrno(errno, Operation::Read, srcPath);
        for (const QByteArray &name : std::as_const(names)) {
            struct stat childSt;
            if (::fstatat(dir.fd(), name.constData(), &childSt, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT)
                    continue;
                return failErrno(errno, Operation::Read, joinPath(srcPath, name));
            }
            if (!moveEntry(
                    dir.fd(), name, joinPath(srcPath, name), childSt, dstFd.get(), name, joinPath(dstPath, name)))
                return false;
        }
        m_pendingDeletes.append({ srcPath, false }); // after its copied children, if any
        ++m_amounts.folders;
        report();
        return true;
    }
    case Action::Create:
        r = ::renameat2(srcDirFd, srcName.constData(), dstDirFd, dstName.constData(), RENAME_NOREPLACE);
        if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // no RENAME_NOREPLACE on this filesystem
            struct stat dst;
            if (::fstatat(dstDirFd, dstName.constData(), &dst, AT_SYMLINK_NOFOLLOW) == 0)
                return fail(ErrAlreadyExists, dstPath);
            r = ::renameat(srcDirFd, srcName.constData(), dstDirFd, dstName.constData());
        }
        break;
    case Action::Replace:
        r = ::renameat(srcDirFd, srcName.constData(), dstDirFd, dstName.constData());
        break;
    case Action::Rename:
    case Action::Ask:
    case Action::Fail:
        return fail(ErrInternal, dstPath); // resolve() gives none of these
    }
    if (r == 0) {
        ++(S_ISDIR(st.st_mode) ? m_amounts.folders : m_amounts.files);
        m_context.item(CopyItemEvent::Moved, srcPath, dstPath);
        report();
        return true;
    }
    if (errno != EXDEV) {
        if (errno == ENOENT)
            return failErrno(errno, Operation::Read, srcPath);
        return failErrno(errno, Operation::Write, dstPath);
    }
    // another filesystem: copy now, delete the source once everything succeeded
    if (!copyResolved(srcDirFd, srcName, srcPath, st, dstDirFd, dstName, dstPath, action,
            action == Action::Replace ? &existing : nullptr))
        return false;
    m_pendingDeletes.append({ srcPath, true });
    return true;
}

// Deletes what of the tree (dirFd, name) was copied by a move: non-folders recorded in
// m_copied, and folders recorded there once empty.
bool CopyEngine::deleteCopied(int dirFd, const QByteArray &name, const QByteArray &path)
{
    struct stat st;
    if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? true : failErrno(errno, Operation::Delete, path);
    const bool copied = m_copied.count({ st.st_dev, st.st_ino }) != 0;
    if (!S_ISDIR(st.st_mode)) {
        if (copied && ::unlinkat(dirFd, name.constData(), 0) != 0 && errno != ENOENT)
            return failErrno(errno, Operation::Delete, path);
        return true;
    }
    Fd fd(::openat(dirFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() && !copied && (errno == EACCES || errno == EPERM))
        return true; // left out of the copy as unreadable: it stays, with what it holds
    if (!fd.valid())
        return failErrno(errno, Operation::Delete, path);
    DirStream dir(std::move(fd));
    if (!dir.valid())
        return failErrno(errno, Operation::Delete, path);
    QList<QByteArray> names;
    while (struct dirent *e = dir.next())
        names.append(QByteArray(e->d_name));
    if (errno != 0)
        return failErrno(errno, Operation::Read, path);
    for (const QByteArray &child : std::as_const(names)) {
        if (!deleteCopied(dir.fd(), child, joinPath(path, child)))
            return false;
    }
    if (copied && ::unlinkat(dirFd, name.constData(), AT_REMOVEDIR) != 0 && errno != ENOTEMPTY && errno != EEXIST
        && errno != ENOENT)
        return failErrno(errno, Operation::Delete, path);
    return true;
}

} // namespace

OpResult copy(const QList<QByteArray> &sources, const QByteArray &dest, bool destIsDirectory,
    const CopyOptions &options, Context &context)
{
    CopyEngine engine(options, context);
    return engine.run(sources, dest, destIsDirectory);
}

} // namespace Qvfs::FileOps
