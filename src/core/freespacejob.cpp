// SPDX-License-Identifier: LGPL-2.1-or-later
#include "freespacejob.h"
#include "job_p.h"
#include "keys_p.h"

namespace Qvfs
{

class FreeSpaceJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(FreeSpaceJob)
    static FreeSpaceJob *create(const QUrl &url)
    {
        auto *d = new FreeSpaceJobPrivate;
        d->request.set(FreeSpaceRequest { url });
        return new FreeSpaceJob(*d);
    }
    /*! A figure of the result; -1 when the worker did not send it (or sent nonsense). */
    qint64 figure(const char *key) const
    {
        const qint64 v = meta.isNumber(key) ? meta.number(key) : -1;
        return v >= 0 ? v : -1;
    }
};

FreeSpaceJob::FreeSpaceJob(FreeSpaceJobPrivate &dd)
    : Job(dd)
{ }

QUrl FreeSpaceJob::url() const
{
    return d_func()->request.url();
}

qint64 FreeSpaceJob::total() const
{
    return d_func()->figure(Internal::Keys::SpaceTotal);
}

qint64 FreeSpaceJob::free() const
{
    return d_func()->figure(Internal::Keys::SpaceFree);
}

qint64 FreeSpaceJob::available() const
{
    return d_func()->figure(Internal::Keys::SpaceAvailable);
}

qint64 FreeSpaceJob::used() const
{
    Q_D(const FreeSpaceJob);
    const qint64 reported = d->figure(Internal::Keys::SpaceUsed);
    if (reported >= 0)
        return reported;
    const qint64 t = total();
    const qint64 f = free();
    return t >= 0 && f >= 0 && f <= t ? t - f : -1;
}

FreeSpaceJob *freeSpace(const QUrl &url)
{
    return FreeSpaceJobPrivate::create(url);
}

} // namespace Qvfs
