// SPDX-License-Identifier: LGPL-2.1-or-later
#include "listjob.h"
#include "job_p.h"

namespace Qvfs
{

class ListJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(ListJob)
    qint64 count = 0;

    void onEntries(Internal::EntryBatch *batch) override
    {
        Q_Q(ListJob);
        const EntryList list = EntryList::fromBatch(batch);
        count += list.size();
        Q_EMIT q->entries(q, list);
    }

    static ListJob *create(const QUrl &url, Details details, bool recursive, ListJob::ListFlags flags)
    {
        auto *d = new ListJobPrivate;
        d->request.command = recursive ? Wire::Command::ListRecursive : Wire::Command::ListDir;
        d->request.urls = { url };
        d->request.options.setNumber("details", qint64(uint(details)));
        if (flags & ListJob::FollowSymlinks)
            d->request.options.setNumber("follow-symlinks", 1);
        return new ListJob(*d);
    }
};

ListJob::ListJob(ListJobPrivate &dd)
    : Job(dd)
{ }

QUrl ListJob::url() const
{
    return d_func()->request.urls.value(0);
}

qint64 ListJob::entryCount() const
{
    return d_func()->count;
}

ListJob *listDir(const QUrl &url, Details details)
{
    return ListJobPrivate::create(url, details, false, ListJob::NoFlags);
}

ListJob *listRecursive(const QUrl &url, Details details, ListJob::ListFlags flags)
{
    return ListJobPrivate::create(url, details, true, flags);
}

} // namespace Qvfs
