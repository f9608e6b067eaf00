// SPDX-License-Identifier: LGPL-2.1-or-later
#include "openfileserver_p.h"
#include "workerengine_p.h"

namespace Qvfs
{

using namespace Internal;
using Wire::Msg;

OpenFileServer::OpenFileServer(WorkerBase *q, WorkerEngine &engine)
    : q(q)
    , m_engine(engine)
{ }

void OpenFileServer::receive(Msg type, quint32 requestId, QByteArray &&payload)
{
    if (!m_serving || requestId != m_engine.current)
        return;
    Operation o { type, {}, {} };
    bool ok = true;
    if (o.type == Msg::FileWrite) {
        ok = decodeFileWrite(&payload, &o.op);
        o.data = std::move(payload);
    } else if (o.type != Msg::FileClose) {
        ok = decodeFileOperation(o.type, payload, &o.op);
    }
    if (!ok)
        m_malformed = true;
    else
        m_operations.push_back(std::move(o));
}

WorkerResult OpenFileServer::serve(const OpenRequest &request)
{
    OpenedFile file;
    WorkerResult res = q->openFile(request, &file);
    if (!res.ok())
        return res;
    m_serving = true;
    m_malformed = false;
    m_engine.send(Msg::FileOpened, encodeOpened(file));
    res = serveOperations();
    m_serving = false;
    m_operations.clear();
    WorkerResult closed = q->closeFile();
    if (res.ok() && !m_engine.killed)
        res = std::move(closed);
    // An operation's hook may not know the URL: the error names it.
    if (!res.ok() && res.args().isEmpty())
        return WorkerResult::fail(res.code(), request.url);
    return res;
}

WorkerResult OpenFileServer::serveOperations()
{
    const qint64 spinUs = spinMicroseconds();
    bool replied = false;
    for (;;) {
        if (m_engine.killed)
            return WorkerResult::fail(ErrCancelled);
        if (m_malformed)
            return WorkerResult::fail(ErrProtocolError, QByteArrayLiteral("malformed file operation"));
        if (m_operations.empty()) {
            // The next operation often follows the answer within microseconds (a reader
            // going through a file): stay awake briefly instead of sleeping.
            if (replied && m_engine.conn.spinUntilReadable(spinUs))
                m_engine.pump(0);
            replied = false;
            if (m_operations.empty() && !m_engine.killed && !m_malformed)
                m_engine.pump(-1);
            continue;
        }
        const Operation o = std::move(m_operations.front());
        m_operations.pop_front();
        replied = true;
        WorkerResult res = WorkerResult::pass();
        switch (o.type) {
        case Msg::FileClose:
            return WorkerResult::pass();
        case Msg::FileRead:
            res = serveRead(o.op);
            break;
        case Msg::FileWrite:
            if (o.op.offset < 0) {
                qint64 at = -1;
                res = q->append(o.data, &at);
                if (res.ok())
                    sendDone(o.op.op, at, o.data.size());
            } else {
                res = q->writeAt(o.op.offset, o.data);
                if (res.ok())
                    sendDone(o.op.op, o.op.offset, o.data.size());
            }
            break;
        case Msg::FileTruncate:
            res = q->truncate(o.op.offset);
            if (res.ok())
                sendDone(o.op.op, o.op.offset, o.op.offset);
            break;
        case Msg::FileSize: {
            qint64 size = -1;
            res = q->fileSize(&size);
            if (res.ok())
                sendDone(o.op.op, 0, size);
            break;
        }
        default:
            break;
        }
        if (!res.ok())
            return res;
    }
}

WorkerResult OpenFileServer::serveRead(const FileOperation &o)
{
    qint64 offset = o.offset;
    qint64 left = qBound(qint64(0), o.length, Wire::MaxFileRead);
    if (left == 0) {
        sendData(o.op, offset, {}, true);
        return WorkerResult::pass();
    }
    if (m_buffer.size() < Wire::FileChunk)
        m_buffer = QByteArray(Wire::FileChunk, Qt::Uninitialized);
    while (left > 0) {
        const qint64 want = qMin(left, Wire::FileChunk);
        qint64 got = 0;
        WorkerResult res = q->readAt(offset, m_buffer.data(), want, &got);
        if (!res.ok())
            return res;
        if (got < 0 || got > want)
            return WorkerResult::fail(ErrInternal, QByteArrayLiteral("readAt() reported more than it was asked for"));
        if (got == 0) {
            sendData(o.op, offset, {}, true); // the end of the file
            return WorkerResult::pass();
        }
        left -= got;
        sendData(o.op, offset, QByteArrayView(m_buffer.constData(), got), left == 0);
        offset += got;
        if (left > 0)
            m_engine.pump(0); // a kill
        if (m_engine.killed)
            return WorkerResult::fail(ErrCancelled);
    }
    return WorkerResult::pass();
}

void OpenFileServer::sendData(quint32 op, qint64 offset, QByteArrayView data, bool last)
{
    char trailer[Wire::FileDataTrailer];
    putFileDataTrailer(trailer, op, offset, last);
    m_engine.conn.sendHeader(Msg::FileData, m_engine.current, quint32(data.size() + Wire::FileDataTrailer));
    m_engine.conn.sendRaw(data);
    m_engine.conn.sendRaw(QByteArrayView(trailer, Wire::FileDataTrailer));
    m_engine.afterAppend();
}

void OpenFileServer::sendDone(quint32 op, qint64 offset, qint64 value)
{
    m_engine.send(Msg::FileDone, encodeFileDone(FileDone { op, offset, value }));
}

} // namespace Qvfs
