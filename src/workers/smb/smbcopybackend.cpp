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
        struct timeval times[2];
        if (timesToKeep(source, times)) {
            SMBCCTX *ctx = w->m_ctx.get();
            (void)smbc_getFunctionUtimes(ctx)(ctx, w->lib(dst.url).constData(), times); // best effort
        }
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
    /*! The access and modification times a copy of \a source gets into \a times; false: none to keep. */
    bool timesToKeep(const CopyEntry &source, struct timeval times[2]) const
    {
        if (!m_preserve || source.mtime <= 0)
            return false;
        times[0] = { time_t(qMax<qint64>(source.atime, source.mtime)), 0 };
        times[1] = { time_t(source.mtime), 0 };
        return true;
    }

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

WorkerResult SmbCopyBackend::copyFile(
    const CopyEntry &source, const CopyPlace &dst, bool replace, const std::function<void(qint64)> &progress)
{
    SMBCCTX *ctx = w->m_ctx.get();
    const QUrl &from = source.place.url;
    Smb::File in(ctx);
    WorkerResult r = w->openRemote(from, O_RDONLY, &in.handle());
    if (!r.ok())
        return r;
    struct timeval times[2];
    return w->writeReplacing(
        dst.url, replace, timesToKeep(source, times) ? times : nullptr, nullptr, [&](SMBCFILE *out, const QUrl &) {
            // The server copies: SMB2 copychunk, no data through here. A server that cannot
            // (or another server's share) gets the bytes through the worker instead.
            SpliceState state { w, &progress };
            const qint64 size = qMax<qint64>(source.size, 0);
            const off_t copied
                = size > 0 ? smbc_getFunctionSplice(ctx)(ctx, in.handle(), out, off_t(size), &spliced, &state) : 0;
            if (state.killed)
                return WorkerResult::fail(ErrCancelled, from);
            if (copied >= size)
                return WorkerResult::pass();
            qCDebug(QVFS_SMB) << "no server-side copy for" << from << std::strerror(errno) << ": through the worker";
            const off_t at = copied > 0 ? copied : 0;
            if (smbc_getFunctionLseek(ctx)(ctx, in.handle(), at, SEEK_SET) < 0
                || smbc_getFunctionLseek(ctx)(ctx, out, at, SEEK_SET) < 0)
                return w->fail(errno, from, int(Operation::Read));
            qint64 done = qint64(at);
            return w->readToEnd(in.handle(), from, -1, -1, [&](QByteArrayView piece) {
                if (!w->m_ctx.writeAll(out, piece.data(), piece.size()))
                    return w->fail(errno, dst.url, int(Operation::Write));
                done += piece.size();
                progress(done);
                return WorkerResult::pass();
            });
        });
}

WorkerResult SmbWorker::copy(const CopyRequest &request)
{
    SmbCopyBackend backend(this);
    return TreeCopy(*this, backend, request).run();
}

} // namespace Qvfs
