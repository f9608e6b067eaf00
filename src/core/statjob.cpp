// SPDX-License-Identifier: LGPL-2.1-or-later
#include "statjob.h"
#include "error.h"
#include "job_p.h"

namespace Qvfs
{

class StatJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(StatJob)
    Entry entry;

    void onEntries(Internal::EntryBatch *batch) override
    {
        if (!batch->offsets.isEmpty())
            entry = Entry(batch, 0);
    }
    static StatJob *create(const QUrl &url, Details details)
    {
        auto *d = new StatJobPrivate;
        d->request.command = Wire::Command::Stat;
        d->request.urls = { url };
        d->request.options.setNumber("details", qint64(uint(details)));
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
    return d_func()->request.urls.value(0);
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
