// SPDX-License-Identifier: LGPL-2.1-or-later
#include "deletejob.h"
#include "changenotifier_p.h"
#include "entry.h"
#include "job_p.h"
#include "keys_p.h"

namespace Qvfs
{

class DeleteJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(DeleteJob)
    QList<QUrl> urls;
    DeleteRequest::Scope scope = DeleteRequest::Scope::Tree;
    int next = 0;
    qint64 removed = 0;

    static DeleteJob *create(const QList<QUrl> &urls, DeleteScope scope)
    {
        auto *d = new DeleteJobPrivate;
        d->urls = urls;
        d->scope = scope == DeleteScope::Tree    ? DeleteRequest::Scope::Tree
            : scope == DeleteScope::EmptyFolders ? DeleteRequest::Scope::Entry
                                                 : DeleteRequest::Scope::NotFolder;
        return new DeleteJob(*d);
    }
    void start() override { startNext(); }
    void startNext()
    {
        if (next >= urls.size()) {
            emitResult();
            return;
        }
        meta.remove(Internal::Keys::Removed);
        request.set(DeleteRequest { urls.at(next), scope });
        request.start();
    }
    void onFinished(const MetaData &results) override
    {
        Q_Q(DeleteJob);
        removed += results.number(Internal::Keys::Removed);
        setProcessed(Job::Files, removed);
        Internal::publishResult(request.command(), {}); // listers of its folder follow
        Q_EMIT q->deleted(q, urls.at(next));
        ++next;
        startNext();
    }
    void onFailed(int code, const QStringList &args) override
    {
        // The worker reports what it removed before the error.
        removed += meta.number(Internal::Keys::Removed);
        setProcessed(Job::Files, removed);
        emitResult(code, args);
    }
};

DeleteJob::DeleteJob(DeleteJobPrivate &dd)
    : Job(dd)
{ }

QList<QUrl> DeleteJob::urls() const
{
    return d_func()->urls;
}

qint64 DeleteJob::removedCount() const
{
    return d_func()->removed;
}

DeleteJob *del(const QList<QUrl> &urls, DeleteScope scope)
{
    return DeleteJobPrivate::create(urls, scope);
}

DeleteJob *del(const QUrl &url, DeleteScope scope)
{
    return del(QList<QUrl> { url }, scope);
}

} // namespace Qvfs
