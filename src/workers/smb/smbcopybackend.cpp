// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies and moves inside one SMB server: the SMB primitives under the worker library's
// TreeCopy, which decides everything else. A file is copied by the server itself (SMB2
// copychunk through smbc_splice: no data through the worker or the application) into a
// temporary name renamed into place; a move is a rename.
#include "smbworker.h"

#include "copyrules.h"
#include "error.h"
#include "fileops_base_p.h"
#include "smb_debug.h"
#include "treecopy.h"
#include "url.h"

#include <QRandomGenerator>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>

namespace Qvfs
{

using FileOps::Operation;

/*! The primitives of a copy on one SMB server; the URL is the address. */
class SmbCopyBackend final : public CopyBackend
{
public:
    explicit SmbCopyBackend(SmbWorker *worker)
        : w(worker)
    { }

    WorkerResult begin(const CopyRequest &request) override
    {
        m_preserve = request.preserve;
        for (const QUrl &u : request.sources) {
            if (!isSameServer(u, request.destination, 445))
                return WorkerResult::fail(ErrUnsupportedAction, u);
        }
        return w->ensureContext();
    }
    WorkerResult place(const QUrl &url, CopyPlace *out) override
    {
        if (SmbWorker::isHostRoot(url) || SmbWorker::isHostRoot(Url::parent(url)))
            return WorkerResult::fail(ErrAccessDenied, url); // shares are the server's
        out->url = url;
        return WorkerResult::pass();
    }
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool) override
    {
        struct stat st;
        const WorkerResult r = w->statEntry(place.url, &st); // SMB has no links of its own
        if (!r.ok())
            return r;
        out->place = place;
        out->name = Url::fileName(place.url);
        out->type = S_ISDIR(st.st_mode) ? CopyEntry::Type::Folder : CopyEntry::Type::File;
        out->size = out->isFolder() ? -1 : qint64(st.st_size);
        out->mtime = st.st_mtim.tv_sec;
        out->atime = st.st_atim.tv_sec;
        return WorkerResult::pass();
    }
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override
    {
        out->clear();
        return w->readFolder(folder.place.url, [&](const SmbWorker::DirEntry &e) {
            CopyEntry c;
            c.place = child(folder.place, e.name);
            c.name = e.name;
            c.type = e.isFolder ? CopyEntry::Type::Folder : CopyEntry::Type::File;
            c.size = e.isFolder ? -1 : e.size;
            c.mtime = e.mtime.tv_sec;
            c.atime = e.atime.tv_sec;
            out->append(c);
            return true;
        });
    }
    bool isSame(const CopyEntry &a, const CopyEntry &b) override
    {
        return a.place.url.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword)
            == b.place.url.adjusted(QUrl::StripTrailingSlash | QUrl::RemovePassword);
    }
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override
    {
        QString f = folder.place.url.path();
        while (f.endsWith(u'/'))
            f.chop(1);
        return target.url.path().startsWith(f + u'/');
    }
    WorkerResult makeFolder(const CopyEntry &, const CopyPlace &dst) override
    {
        return call(dst.url, Operation::Write,
            [&](SMBCCTX *ctx) { return smbc_getFunctionMkdir(ctx)(ctx, w->lib(dst.url).constData(), 0755); });
    }
    void finishFolder(const CopyEntry &source, const CopyPlace &dst) override
    {
        if (m_preserve && source.mtime > 0)
            (void)setTimes(dst.url, source);
    }
    WorkerResult copyFile(const CopyEntry &source, const CopyPlace &dst, bool replace,
        const std::function<void(qint64)> &progress) override;
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &, bool) override
    {
        return WorkerResult::fail(ErrCannotRead, source.place.url); // never listed
    }
    WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) override
    {
        // Another share is another tree: ErrUnsupportedAction (EXDEV), copied instead.
        return w->renameEntry(source.place.url, dst.url, replace);
    }
    WorkerResult remove(const CopyEntry &entry) override
    {
        const QByteArray target = w->lib(entry.place.url);
        return call(entry.place.url, Operation::Delete, [&](SMBCCTX *ctx) {
            return entry.isFolder() ? smbc_getFunctionRmdir(ctx)(ctx, target.constData())
                                    : smbc_getFunctionUnlink(ctx)(ctx, target.constData());
        });
    }

private:
    WorkerResult call(const QUrl &url, Operation op, const std::function<int(SMBCCTX *)> &fn)
    {
        return w->run(url, int(op), [&] { return fn(w->m_ctx.get()); });
    }
    int setTimes(const QUrl &url, const CopyEntry &source)
    {
        SMBCCTX *ctx = w->m_ctx.get();
        struct timeval tv[2] = { { time_t(qMax<qint64>(source.atime, source.mtime)), 0 }, { time_t(source.mtime), 0 } };
        return smbc_getFunctionUtimes(ctx)(ctx, w->lib(url).constData(), tv);
    }
    /*! Copies what is left of \a in to \a out through the worker: where the server cannot splice. */
    WorkerResult copyThrough(SMBCFILE *in, SMBCFILE *out, qint64 done, const QUrl &from, const QUrl &to,
        const std::function<void(qint64)> &progress);

    /*! What smbc_splice()'s callback reports to. */
    struct SpliceState
    {
        SmbWorker *worker;
        const std::function<void(qint64)> *progress;
        bool killed = false;
    };
    /*! smbc_splice()'s callback: progress; false (a kill) stops the copy. */
    static int spliced(off_t n, void *priv);

    SmbWorker *w;
    bool m_preserve = true;
};

int SmbCopyBackend::spliced(off_t n, void *priv)
{
    auto *s = static_cast<SpliceState *>(priv);
    (*s->progress)(qint64(n));
    if (s->worker->wasKilled()) {
        s->killed = true;
        return 0; // stops the copy
    }
    return 1; // goes on
}

WorkerResult SmbCopyBackend::copyThrough(SMBCFILE *in, SMBCFILE *out, qint64 done, const QUrl &from, const QUrl &to,
    const std::function<void(qint64)> &progress)
{
    SMBCCTX *ctx = w->m_ctx.get();
    QByteArray buffer(8 * 1024 * 1024, Qt::Uninitialized);
    for (;;) {
        const ssize_t n = smbc_getFunctionRead(ctx)(ctx, in, buffer.data(), size_t(buffer.size()));
        if (n < 0)
            return w->fail(errno, from, int(Operation::Read));
        if (n == 0)
            return WorkerResult::pass();
        if (!w->m_ctx.writeAll(out, buffer.constData(), n))
            return w->fail(errno, to, int(Operation::Write));
        done += n;
        progress(done);
        if (w->wasKilled())
            return WorkerResult::fail(ErrCancelled, from);
    }
}

WorkerResult SmbCopyBackend::copyFile(
    const CopyEntry &source, const CopyPlace &dst, bool replace, const std::function<void(qint64)> &progress)
{
    SMBCCTX *ctx = w->m_ctx.get();
    const QUrl &from = source.place.url;
    SMBCFILE *in = nullptr;
    WorkerResult r = call(from, Operation::Read, [&](SMBCCTX *c) {
        in = smbc_getFunctionOpen(c)(c, w->lib(from).constData(), O_RDONLY, 0);
        return in ? 0 : -1;
    });
    if (!r.ok())
        return r;
    const QByteArray tag = QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    const QUrl temp = sibling(dst, temporaryNameFor(Url::fileName(dst.url), tag)).url;
    SMBCFILE *out = nullptr;
    r = call(dst.url, Operation::Write, [&](SMBCCTX *c) {
        out = smbc_getFunctionOpen(c)(c, w->lib(temp).constData(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        return out ? 0 : -1;
    });
    if (!r.ok()) {
        smbc_getFunctionClose(ctx)(ctx, in);
        return r;
    }
    // The server copies: SMB2 copychunk, no data through here. A server that cannot (or
    // another server's share) gets the bytes through the worker instead.
    SpliceState state { w, &progress };
    const qint64 size = qMax<qint64>(source.size, 0);
    const off_t copied = size > 0 ? smbc_getFunctionSplice(ctx)(ctx, in, out, off_t(size), &spliced, &state) : 0;
    if (state.killed) {
        r = WorkerResult::fail(ErrCancelled, from);
    } else if (copied < 0 || copied < size) {
        const int err = errno;
        qCDebug(QVFS_SMB) << "no server-side copy for" << from << std::strerror(err) << ": through the worker";
        const off_t at = copied > 0 ? copied : 0;
        if (smbc_getFunctionLseek(ctx)(ctx, in, at, SEEK_SET) < 0
            || smbc_getFunctionLseek(ctx)(ctx, out, at, SEEK_SET) < 0)
            r = w->fail(errno, from, int(Operation::Read));
        else
            r = copyThrough(in, out, qint64(at), from, dst.url, progress);
    }
    smbc_getFunctionClose(ctx)(ctx, in);
    if (smbc_getFunctionClose(ctx)(ctx, out) != 0 && r.ok())
        r = w->fail(errno, dst.url, int(Operation::Write));
    if (r.ok() && m_preserve && source.mtime > 0)
        (void)setTimes(temp, source);
    if (r.ok())
        r = w->renameEntry(temp, dst.url, replace);
    if (!r.ok())
        smbc_getFunctionUnlink(ctx)(ctx, w->lib(temp).constData());
    return r;
}

WorkerResult SmbWorker::copy(const CopyRequest &request)
{
    SmbCopyBackend backend(this);
    return TreeCopy(*this, backend, request).run();
}

} // namespace Qvfs
