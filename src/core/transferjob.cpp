// SPDX-License-Identifier: LGPL-2.1-or-later
#include "transferjob_p.h"

namespace Qvfs
{

TransferJob::TransferJob(TransferJobPrivate &dd)
    : Job(dd)
{ }

QUrl TransferJob::url() const
{
    return d_func()->get.url;
}

QString TransferJob::mimeType() const
{
    return d_func()->mimeType;
}

bool TransferJob::isPut() const
{
    return d_func()->isPut;
}

void TransferJob::setAsyncDataEnabled(bool enabled)
{
    d_func()->async = enabled;
}

void TransferJob::sendAsyncData(const QByteArray &data)
{
    d_func()->sendChunk(data);
}

void TransferJob::setModificationTime(qint64 seconds, qint64 nanoseconds)
{
    Q_D(TransferJob);
    d->put.mtime = seconds;
    d->put.mtimeNs = nanoseconds;
}

void TransferJob::setTotalSize(qint64 bytes)
{
    d_func()->put.size = bytes;
}

StoredTransferJob::StoredTransferJob(TransferJobPrivate &dd)
    : TransferJob(dd)
{ }

QByteArray StoredTransferJob::data() const
{
    return static_cast<const TransferJobPrivate *>(d_ptr.get())->storedData;
}

static void setPutOptions(PutRequest &put, int permissions, PutFlags flags)
{
    put.permissions = permissions;
    put.overwrite = flags & PutOverwrite;
}

TransferJob *get(const QUrl &url, qint64 offset)
{
    TransferJobPrivate *d = TransferJobPrivate::make(url, false, false);
    d->get.offset = qMax<qint64>(0, offset);
    return TransferJobPrivate::create(d);
}

TransferJob *put(const QUrl &url, int permissions, PutFlags flags)
{
    TransferJobPrivate *d = TransferJobPrivate::make(url, true, false);
    setPutOptions(d->put, permissions, flags);
    return TransferJobPrivate::create(d);
}

StoredTransferJob *storedGet(const QUrl &url)
{
    return TransferJobPrivate::createStored(TransferJobPrivate::make(url, false, true));
}

StoredTransferJob *storedPut(const QByteArray &data, const QUrl &url, int permissions, PutFlags flags)
{
    TransferJobPrivate *d = TransferJobPrivate::make(url, true, true);
    d->storedData = data;
    d->put.size = data.size();
    setPutOptions(d->put, permissions, flags);
    return TransferJobPrivate::createStored(d);
}

} // namespace Qvfs
