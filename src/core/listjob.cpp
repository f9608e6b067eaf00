// SPDX-License-Identifier: LGPL-2.1-or-later
#include "listjob.h"
#include "entrycodec_p.h"
#include "job_p.h"

namespace Qvfs
{

class ListJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(ListJob)
    qint64 count = 0;

    void requestEntries(Internal::EntryBatch *batch) override
    {
        Q_Q(ListJob);
        const EntryList list = EntryList::fromBatch(batch);
        count += list.size();
        Q_EMIT q->entries(q, list);
    }

    static ListJob *create(const QUrl &url, Details details, bool recursive, ListJob::ListFlags flags)
    {
        auto *d = new ListJobPrivate;
        d->request.set(ListRequest { url, details, recursive, bool(flags & ListJob::FollowSymlinks) });
        return new ListJob(*d);
    }
};

ListJob::ListJob(ListJobPrivate &dd)
    : Job(dd)
{ }

QUrl ListJob::url() const
{
    return d_func()->request.url();
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
