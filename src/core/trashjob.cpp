// SPDX-License-Identifier: LGPL-2.1-or-later
#include "trashjob.h"
#include "changenotifier.h"
#include "deletejob.h"
#include "error.h"
#include "job_p.h"

namespace Qvfs
{

class TrashJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(TrashJob)
    TrashRequest trash;
    QList<QUrl> movedFrom;
    QList<QUrl> movedTo;

    static TrashJob *create(TrashRequest r)
    {
        auto *d = new TrashJobPrivate;
        d->trash = std::move(r);
        return new TrashJob(*d);
    }
    void start() override
    {
        // One worker does them all: every URL must be of its scheme.
        const bool restore = trash.action == TrashRequest::Action::Restore;
        for (const QUrl &url : std::as_const(trash.urls)) {
            const bool ok = restore ? url.scheme() == QLatin1String("trash") : url.isLocalFile();
            if (!ok) {
                emitResult(ErrUnsupportedAction, { url.toString() });
                return;
            }
        }
        if (trash.urls.isEmpty()) {
            emitResult();
            return;
        }
        setTotal(Job::Files, trash.urls.size());
        trash.reportItems = true; // the job's own list of what went where needs them
        request.set(trash);
        JobPrivate::start();
    }
    void requestItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) override
    {
        Q_Q(TrashJob);
        if (event == CopyItemEvent::Moved) {
            movedFrom.append(source);
            movedTo.append(destination);
            Q_EMIT q->moved(q, source, destination);
        } else if (event == CopyItemEvent::Skipped) {
            Q_EMIT q->skipped(q, source, destination);
        }
    }
    void publish()
    {
        // Listers of the folders concerned follow without listing anything.
        if (movedFrom.isEmpty())
            return;
        ChangeNotifier::instance()->publishRemoved(movedFrom);
        ChangeNotifier::instance()->publishChanged(movedTo);
    }
    void onFinished(const MetaData &results) override
    {
        publish();
        JobPrivate::onFinished(results);
    }
    void onFailed(int code, const QStringList &args) override
    {
        publish(); // what moved before the error did move
        JobPrivate::onFailed(code, args);
    }
};

TrashJob::TrashJob(TrashJobPrivate &dd)
    : Job(dd)
{ }

bool TrashJob::isRestore() const
{
    return d_func()->trash.action == TrashRequest::Action::Restore;
}

QList<QUrl> TrashJob::urls() const
{
    return d_func()->trash.urls;
}

TrashJob *trash(const QList<QUrl> &urls)
{
    TrashRequest r;
    r.action = TrashRequest::Action::Trash;
    r.urls = urls;
    return TrashJobPrivate::create(std::move(r));
}

TrashJob *trash(const QUrl &url)
{
    return trash(QList<QUrl> { url });
}

TrashJob *restoreFromTrash(const QList<QUrl> &trashUrls, ConflictPolicy conflict)
{
    TrashRequest r;
    r.action = TrashRequest::Action::Restore;
    r.urls = trashUrls;
    r.conflict = conflict;
    return TrashJobPrivate::create(std::move(r));
}

DeleteJob *emptyTrash()
{
    return del(QUrl(QStringLiteral("trash:/")));
}

} // namespace Qvfs
