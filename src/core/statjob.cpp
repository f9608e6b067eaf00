// SPDX-License-Identifier: LGPL-2.1-or-later
#include "statjob.h"
#include "entrycodec_p.h"
#include "error.h"
#include "job_p.h"

namespace Qvfs
{

class StatJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(StatJob)
    Entry entry;

    void requestEntries(Internal::EntryBatch *batch) override
    {
        if (!batch->offsets.isEmpty())
            entry = Entry(batch, 0);
    }
    static StatJob *create(const QUrl &url, Details details)
    {
        auto *d = new StatJobPrivate;
        d->request.set(StatRequest { url, details });
        return new StatJob(*d);
    }
    void onFinished(const MetaData &) override
    {
        if (entry.isEmpty())
            emitResult(ErrProtocolError, { QStringLiteral("stat without an entry") });
        else
            emitResult();
    }
};

StatJob::StatJob(StatJobPrivate &dd)
    : Job(dd)
{ }

QUrl StatJob::url() const
{
    return d_func()->request.url();
}

Entry StatJob::statResult() const
{
    return d_func()->entry;
}

StatJob *stat(const QUrl &url, Details details)
{
    return StatJobPrivate::create(url, details);
}

} // namespace Qvfs
