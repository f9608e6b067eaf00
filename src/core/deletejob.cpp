// SPDX-License-Identifier: LGPL-2.1-or-later
#include "deletejob.h"
#include "job_p.h"

namespace Qvfs
{

class DeleteJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(DeleteJob)
    QList<QUrl> urls;
    int next = 0;
    qint64 removed = 0;

    static DeleteJob *create(const QList<QUrl> &urls)
    {
        auto *d = new DeleteJobPrivate;
        d->urls = urls;
        return new DeleteJob(*d);
    }
    void start() override { startNext(); }
    void startNext()
    {
        if (next >= urls.size()) {
            emitResult();
            return;
        }
        request = Internal::Request();
        meta.remove("removed");
        request.command = Wire::Command::Delete;
        request.urls = { urls.at(next) };
        request.options.setNumber("recursive", 1);
        submit(request);
    }
    void onFinished(const MetaData &results) override
    {
        Q_Q(DeleteJob);
        removed += results.number("removed");
        setProcessed(Job::Files, removed);
        Q_EMIT q->deleted(q, urls.at(next));
        ++next;
        startNext();
    }
    void onFailed(int code, const QStringList &args) override
    {
        // The worker reports what it removed before the error.
        removed += meta.number("removed");
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

DeleteJob *del(const QList<QUrl> &urls)
{
    return DeleteJobPrivate::create(urls);
}

DeleteJob *del(const QUrl &url)
{
    return del(QList<QUrl> { url });
}

} // namespace Qvfs
