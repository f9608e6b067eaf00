// SPDX-License-Identifier: LGPL-2.1-or-later
#include "transferjob.h"
#include "job_p.h"
#include "keys_p.h"

namespace Qvfs
{

class TransferJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(TransferJob)
    bool stored = false;
    bool isPut = false;
    bool mimeEmitted = false;
    bool async = false;
    GetRequest get;
    PutRequest put;
    QString mimeType;
    QByteArray storedData;
    qsizetype storedPos = 0;

    void start() override
    {
        if (isPut) {
            if (put.size >= 0)
                setTotal(Job::Bytes, put.size);
            request.set(put);
        } else {
            request.set(get);
        }
        request.start();
    }
    void announceMime()
    {
        Q_Q(TransferJob);
        if (mimeEmitted)
            return;
        mimeEmitted = true;
        if (mimeType.isEmpty())
            mimeType = meta.string(Internal::Keys::MimeType);
        Q_EMIT q->mimeTypeFound(q, mimeType);
    }
    void requestMetaData(const MetaData &m) override
    {
        JobPrivate::requestMetaData(m);
        if (!isPut && meta.contains(Internal::Keys::MimeType))
            announceMime();
    }
    void requestData(const QByteArray &data) override
    {
        Q_Q(TransferJob);
        announceMime();
        if (stored)
            storedData.append(data);
        else
            Q_EMIT q->data(q, data);
    }
    void requestDataWanted() override
    {
        Q_Q(TransferJob);
        QByteArray chunk;
        if (stored) {
            chunk = storedData.mid(storedPos, 256 * 1024);
            storedPos += chunk.size();
        } else {
            Q_EMIT q->dataReq(q, chunk);
            if (async)
                return; // sendAsyncData() answers
        }
        sendChunk(chunk);
    }
    void sendChunk(const QByteArray &chunk)
    {
        if (finished)
            return; // killed meanwhile
        if (chunk.isEmpty())
            request.endData();
        else
            request.sendData(chunk);
    }
    void onFinished(const MetaData &) override
    {
        if (!isPut)
            announceMime();
        emitResult();
    }
    static TransferJobPrivate *make(const QUrl &url, bool isPut, bool stored)
    {
        auto *d = new TransferJobPrivate;
        d->get.url = url;
        d->put.url = url;
        d->isPut = isPut;
        d->stored = stored;
        return d;
    }
    static TransferJob *create(TransferJobPrivate *d) { return new TransferJob(*d); }
    static StoredTransferJob *createStored(TransferJobPrivate *d) { return new StoredTransferJob(*d); }
};

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
