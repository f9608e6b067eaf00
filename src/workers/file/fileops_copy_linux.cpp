// SPDX-License-Identifier: LGPL-2.1-or-later
// copy() of fileops.h: the worker library's TreeCopy over the local primitives
// (LocalCopyBackend), reporting to a FileOps::Context in raw paths.
#include "fileops.h"
#include "localcopybackend_p.h"

#include "error.h"
#include "treecopy.h"
#include "url.h"

namespace Qvfs::FileOps
{

namespace
{

/*! A Context's side of a TreeCopy: raw paths where the copy speaks of URLs. */
class ContextObserver final : public CopyObserver
{
public:
    explicit ContextObserver(Context &context)
        : c(context)
    { }
    void setTotals(qint64 bytes, qint64 files, qint64 folders) override { c.setTotals(bytes, files, folders); }
    void setProcessed(qint64 bytes, qint64 files, qint64 folders) override { c.progress(bytes, files, folders); }
    void setSkipped(qint64 count) override { c.skipped(count); }
    void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) override
    {
        c.item(event, Url::localPath(source), Url::localPath(destination));
    }
    ConflictAnswer askConflict(const ConflictQuestion &question) override
    {
        ConflictAnswer a;
        a.action = c.askConflict(Url::localPath(question.source), Url::localPath(question.destination), &a.applyToAll);
        a.answered = true; // a Context says Cancel when nobody answered
        return a;
    }
    bool wasKilled() override { return c.isCancelled(); }
    UnreadableAnswer askUnreadable(const UnreadableQuestion &question) override
    {
        // Context::unreadable() also reports what it leaves out (leftOut() stays quiet).
        UnreadableAnswer a;
        a.action = c.unreadable(Url::localPath(question.url), question.error);
        a.answered = true;
        return a;
    }

private:
    Context &c;
};

OpResult opResultOf(const WorkerResult &r)
{
    OpResult out;
    out.error = r.code();
    if (r.ok())
        return out;
    const QByteArray first = r.args().value(0);
    if (r.code() == ErrInternal) {
        out.detail = first;
        return out;
    }
    const QUrl url = QUrl::fromEncoded(first, QUrl::StrictMode);
    out.path = Url::isLocalFile(url) ? Url::localPath(url) : first;
    out.detail = r.args().value(1);
    return out;
}

} // namespace

OpResult copy(const QList<QByteArray> &sources, const QByteArray &dest, bool destIsDirectory,
    const CopyOptions &options, Context &context)
{
    if (sources.isEmpty())
        return OpResult();
    if (!destIsDirectory && sources.size() != 1) {
        OpResult r = makeError(ErrInternal, dest);
        r.detail = QByteArrayLiteral("copying several sources needs a destination folder");
        return r;
    }
    const auto urlOf = [](const QByteArray &path) {
        return path.startsWith('/') && !hasNul(path) ? Url::fromLocalPath(path) : QUrl();
    };
    CopyRequest request;
    for (const QByteArray &source : sources) {
        request.sources.append(urlOf(source));
        if (!request.sources.last().isValid())
            return makeError(ErrMalformedUrl, source);
    }
    request.destination = urlOf(dest);
    if (!request.destination.isValid())
        return makeError(ErrMalformedUrl, dest);
    request.target = destIsDirectory ? CopyRequest::Target::Into : CopyRequest::Target::As;
    request.conflict = options.conflict;
    request.preserve = options.preserve;
    request.move = options.move;
    request.countFirst = options.countFirst;
    request.reportItems = true; // Context::item() hears of every entry
    LocalCopyBackend backend([&context] { return context.isCancelled(); }, options.allowTmpFile);
    ContextObserver observer(context);
    return opResultOf(TreeCopy(observer, backend, request).run());
}

} // namespace Qvfs::FileOps
