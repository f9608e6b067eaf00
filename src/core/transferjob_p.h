// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TRANSFERJOB_P_H
#define QVFS_TRANSFERJOB_P_H

#include "changenotifier_p.h"
#include "entry.h"
#include "entrycodec_p.h"
#include "job_p.h"
#include "keys_p.h"
#include "transferjob.h"

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
    Entry resultEntry; // a put's file, when a lister wanted it

    void start() override
    {
        if (isPut) {
            if (put.size >= 0)
                setTotal(Job::Bytes, put.size);
            request.set(put);
            Internal::requestResultEntry(request.command());
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
    void requestEntries(Internal::EntryBatch *batch) override
    {
        if (isPut && !batch->offsets.isEmpty())
            resultEntry = Entry(batch, 0);
    }
    void onFinished(const MetaData &) override
    {
        if (!isPut)
            announceMime();
        else
            Internal::publishResult(request.command(), resultEntry); // listers follow without listing
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

} // namespace Qvfs

#endif
