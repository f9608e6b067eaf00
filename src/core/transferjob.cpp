// SPDX-License-Identifier: LGPL-2.1-or-later
#include "transferjob.h"
#include "job_p.h"

namespace Qvfs
{

class TransferJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(TransferJob)
    bool stored = false;
    bool put = false;
    bool mimeEmitted = false;
    bool async = false;
    QString mimeType;
    QByteArray storedData;
    qsizetype storedPos = 0;
    qint64 bytesDone = 0;

    void announceMime()
    {
        Q_Q(TransferJob);
        if (mimeEmitted)
            return;
        mimeEmitted = true;
        if (mimeType.isEmpty())
            mimeType = meta.string("mimetype");
        Q_EMIT q->mimeTypeFound(q, mimeType);
    }

    void requestMessage(Wire::Msg type, const QByteArray &payload) override
    {
        JobPrivate::requestMessage(type, payload);
        if (type == Wire::Msg::MetaData && meta.contains("mimetype") && !put)
            announceMime();
    }

    void onData(const QByteArray &data) override
    {
        Q_Q(TransferJob);
        announceMime();
        bytesDone += data.size();
        if (stored)
            storedData.append(data);
        else
            Q_EMIT q->data(q, data);
    }

    void onDataRequest() override
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
        if (finished || !request.worker)
            return; // killed meanwhile
        if (chunk.isEmpty()) {
            request.worker->sendControl(Wire::Msg::PutEnd);
            return;
        }
        // Bounded chunks: the worker asks again for more.
        for (qsizetype pos = 0; pos < chunk.size(); pos += Wire::MaxPayload)
            request.worker->sendControl(Wire::Msg::PutData, chunk.mid(pos, Wire::MaxPayload));
    }

    void onFinished(const MetaData &) override
    {
        if (!put)
            announceMime();
        emitResult();
    }

    static TransferJobPrivate *make(Wire::Command cmd, const QUrl &url, bool stored)
    {
        auto *d = new TransferJobPrivate;
        d->request.command = cmd;
        d->request.urls = { url };
        d->put = cmd == Wire::Command::Put;
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
    return d_func()->request.urls.value(0);
}

QString TransferJob::mimeType() const
{
    return d_func()->mimeType;
}

bool TransferJob::isPut() const
{
    return d_func()->put;
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
    d->request.options.setNumber("mtime", seconds);
    d->request.options.setNumber("mtime-ns", nanoseconds);
}

StoredTransferJob::StoredTransferJob(TransferJobPrivate &dd)
    : TransferJob(dd)
{ }

QByteArray StoredTransferJob::data() const
{
    return static_cast<const TransferJobPrivate *>(d_ptr.get())->storedData;
}

static void setPutOptions(MetaData &o, int permissions, PutFlags flags)
{
    o.setNumber("permissions", permissions);
    o.setNumber("overwrite", (flags & PutOverwrite) ? 1 : 0);
}

TransferJob *get(const QUrl &url, qint64 offset)
{
    TransferJobPrivate *d = TransferJobPrivate::make(Wire::Command::Get, url, false);
    if (offset > 0)
        d->request.options.setNumber("offset", offset);
    return TransferJobPrivate::create(d);
}

TransferJob *put(const QUrl &url, int permissions, PutFlags flags)
{
    TransferJobPrivate *d = TransferJobPrivate::make(Wire::Command::Put, url, false);
    setPutOptions(d->request.options, permissions, flags);
    return TransferJobPrivate::create(d);
}

StoredTransferJob *storedGet(const QUrl &url)
{
    return TransferJobPrivate::createStored(TransferJobPrivate::make(Wire::Command::Get, url, true));
}

StoredTransferJob *storedPut(const QByteArray &data, const QUrl &url, int permissions, PutFlags flags)
{
    TransferJobPrivate *d = TransferJobPrivate::make(Wire::Command::Put, url, true);
    d->storedData = data;
    setPutOptions(d->request.options, permissions, flags);
    return TransferJobPrivate::createStored(d);
}

} // namespace Qvfs
