// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash:/ worker: restoring entries to where they were trashed from, through the
// copy contract's conflict rules (FileOps::copy() as a move: a rename on one filesystem).
#include "fileopcontext_p.h"
#include "trashworker.h"
#include "url.h"
#include "url_p.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs
{

using FileOps::OpResult;

namespace
{
/*!
 * The context of one entry's restore: questions name the trash:/ entry (not the local
 * path inside the trash), and what happened to the entry itself is kept.
 */
class RestoreContext : public OpContext
{
public:
    RestoreContext(FileWorker *w, QByteArray source, QUrl sourceUrl)
        : OpContext(w)
        , m_worker(w)
        , m_source(std::move(source))
        , m_sourceUrl(std::move(sourceUrl))
    { }
    void item(CopyItemEvent event, const QByteArray &source, const QByteArray &destination) override
    {
        if (source == m_source) {
            topEvent = event;
            topDestination = destination;
        }
    }
    ConflictAction askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) override
    {
        const QUrl from = src == m_source ? m_sourceUrl : Url::fromLocalPath(src);
        const ConflictAnswer a = m_worker->askConflict(ConflictQuestion { from, Url::fromLocalPath(dst) });
        *applyToAll = a.applyToAll;
        return a.answered ? a.action : ConflictAction::Cancel;
    }
    CopyItemEvent topEvent = CopyItemEvent::Copying;
    QByteArray topDestination;

private:
    FileWorker *m_worker;
    QByteArray m_source;
    QUrl m_sourceUrl;
};
} // namespace

OpResult TrashWorker::restoreOne(const QUrl &url, ConflictPolicy policy, bool *skipped, QUrl *to)
{
    Where w;
    if (const int err = locate(url, &w))
        return FileOps::makeError(err, {});
    if (!w.trash || !w.rest.isEmpty())
        return FileOps::makeError(ErrUnsupportedAction, {}); // entries go back whole
    Trash::Info info;
    if (!readInfo(*w.trash, w.fileId, &info, nullptr))
        return FileOps::makeError(ErrDoesNotExist, {});
    // A Path from another program is input: it must name one place, not climb out of it.
    const QByteArray original = w.trash->originalPath(info.path);
    if (!original.startsWith('/')
        || Url::Detail::cleanAbsolutePath(original) != FileOps::stripTrailingSlashes(original))
        return FileOps::makeError(ErrMalformedUrl, {});
    QByteArray parent;
    QByteArray name;
    FileOps::splitPath(original, &parent, &name);
    if (!parent.isEmpty()) {
        const OpResult made = FileOps::mkdir(parent, -1, true);
        if (!made.ok())
            return made;
    }
    const QByteArray source = w.localPath();
    RestoreContext ctx(this, source, url);
    FileOps::CopyOptions options;
    options.conflict = policy;
    options.move = true;
    options.countFirst = false;
    OpResult r = FileOps::copy({ source }, original, false, options, ctx);
    ctx.finish();
    if (!r.ok()) {
        if (r.path.startsWith("/proc/self/fd/"))
            r.path.clear(); // inside the trash: the error names the entry
        return r;
    }
    *to = Url::fromLocalPath(ctx.topDestination.isEmpty() ? original : ctx.topDestination);
    if (ctx.topEvent == CopyItemEvent::Skipped) {
        *skipped = true;
        return {};
    }
    // Moved (renamed, or copied and deleted): the info goes too. A folder merged only in
    // part (entries skipped) still has what stayed: it remains in the trash, complete.
    struct stat st;
    if (::fstatat(w.trash->files.get(), w.fileId.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        return {};
    const QByteArray infoName = w.fileId + Trash::InfoSuffix.toByteArray();
    ::unlinkat(w.trash->info.get(), infoName.constData(), 0);
    Trash::SizeCache sizes;
    sizes.load(w.trash->fd.get());
    sizes.remove(w.fileId);
    sizes.save(w.trash->fd.get());
    return {};
}

WorkerResult TrashWorker::trash(const TrashRequest &request)
{
    if (request.action != TrashRequest::Action::Restore)
        return WorkerResult::fail(ErrUnsupportedAction, request.urls.value(0));
    refresh();
    return forEachEntry(request,
        [&](const QUrl &url, QUrl *to, bool *skipped) { return restoreOne(url, request.conflict, skipped, to); });
}

} // namespace Qvfs
