// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keys_p.h"
#include "request_p.h"
#include "scheduler_p.h"
#include "workerprocess_p.h"

namespace Qvfs::Internal
{

RequestClient::~RequestClient() = default;
void RequestClient::requestEntries(EntryBatch *) { }
void RequestClient::requestData(const QByteArray &) { }
void RequestClient::requestDataWanted() { }
void RequestClient::requestProgress(const Progress &) { }
void RequestClient::requestMetaData(const MetaData &) { }
void RequestClient::requestQuestion(const MetaData &) { }
void RequestClient::requestRedirection(const QUrl &) { }
void RequestClient::requestItem(CopyItemEvent, const QUrl &, const QUrl &) { }
void RequestClient::requestLeftOut(const QUrl &, int) { }
void RequestClient::requestChanges(const WatchChanges &) { }
void RequestClient::requestOpened(const OpenedFile &) { }
void RequestClient::requestFileData(quint32, qint64, const QByteArray &, bool) { }
void RequestClient::requestFileDone(const FileDone &) { }
void RequestClient::requestAlive() { }

Request::Request(RequestClient *client)
    : m_client(client)
{ }

Request::~Request()
{
    cancel();
}

void Request::start()
{
    m_active = true;
    Scheduler::instance()->submit(this);
}

void Request::cancel()
{
    if (!m_active)
        return;
    m_active = false;
    // After the application object is gone there is no scheduler left to tell.
    if (Scheduler::exists())
        Scheduler::instance()->cancel(this);
}

void Request::setSuspended(bool suspended)
{
    m_suspended = suspended; // a request still queued starts suspended
    if (m_active && m_worker && !m_worker->isMultiplexed()) {
        m_worker->sendControl(m_id, suspended ? Wire::Msg::Suspend : Wire::Msg::Resume);
        m_worker->setReading(!suspended);
    }
}

void Request::sendControl(Wire::Msg type, QByteArrayView payload)
{
    if (m_active && m_worker)
        m_worker->sendControl(m_id, type, payload);
}

void Request::sendData(QByteArrayView data)
{
    // Bounded frames: the worker asks again for more.
    for (qsizetype pos = 0; pos < data.size(); pos += Wire::MaxPayload)
        sendControl(Wire::Msg::PutData, data.sliced(pos, qMin<qsizetype>(Wire::MaxPayload, data.size() - pos)));
}

void Request::endData()
{
    sendControl(Wire::Msg::PutEnd, {});
}

void Request::answer(qint64 questionId, const MetaData &answer)
{
    MetaData a = answer;
    a.setNumber(Keys::QuestionId, questionId);
    QByteArray payload;
    a.encode(payload);
    sendControl(Wire::Msg::Answer, payload);
}

void Request::fileRead(quint32 op, qint64 offset, qint64 length)
{
    if (m_active && m_worker)
        m_worker->sendFileOperation(Wire::Msg::FileRead, encodeFileRead(FileOperation { op, offset, length }));
}

void Request::fileWrite(quint32 op, qint64 offset, QByteArrayView data)
{
    Q_ASSERT(data.size() <= Wire::FileChunk);
    if (m_active && m_worker)
        m_worker->sendFileOperation(
            Wire::Msg::FileWrite, data, fileWriteTrailer(FileOperation { op, offset, data.size() }));
}

void Request::fileTruncate(quint32 op, qint64 length)
{
    if (m_active && m_worker)
        m_worker->sendFileOperation(Wire::Msg::FileTruncate, encodeFileTruncate(FileOperation { op, length, 0 }));
}

void Request::fileSize(quint32 op)
{
    if (m_active && m_worker)
        m_worker->sendFileOperation(Wire::Msg::FileSize, encodeFileSize(FileOperation { op, 0, 0 }));
}

void Request::fileClose()
{
    if (m_active && m_worker)
        m_worker->sendFileOperation(Wire::Msg::FileClose, {});
}

bool Request::waitForWorker(int msecs)
{
    return m_active && m_worker && m_worker->waitForFrames(msecs);
}

} // namespace Qvfs::Internal
