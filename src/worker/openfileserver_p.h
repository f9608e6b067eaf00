// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_OPENFILESERVER_P_H
#define QVFS_OPENFILESERVER_P_H

// An open file (OpenRequest) served to the application: positional reads and writes
// after WorkerBase::openFile(). Internal.

#include "requests_p.h"
#include "workerbase.h"

#include <QByteArray>

#include <deque>

namespace Qvfs
{

class WorkerEngine;

/*!
 * Serves an OpenRequest: openFile(), then the application's operations (read, write,
 * append, truncate, size) one at a time in the order they were sent, through the hooks
 * readAt(), writeAt(), append(), truncate() and fileSize(), until the application closes
 * the file or the request is killed; then closeFile(). The operations arrive while a hook
 * runs, too (the engine hands them over with receive()), and wait in a queue.
 *
 * Reads go through one buffer, reused for the life of the process, in pieces of at most
 * Wire::FileChunk, so that a hook is never asked for more than that whatever the
 * application asked for.
 */
class OpenFileServer
{
public:
    OpenFileServer(WorkerBase *q, WorkerEngine &engine);

    /*!
     * An operation frame of \a type for the request \a requestId: queued when it is for the
     * file being served; one sent just before a kill, or for a file that failed, is dropped.
     */
    void receive(Wire::Msg type, quint32 requestId, QByteArray &&payload);
    /*! Runs \a request until the file is closed; its result is the request's. */
    WorkerResult serve(const OpenRequest &request);

private:
    struct Operation
    {
        Wire::Msg type;
        Internal::FileOperation op;
        QByteArray data; // a write's data (the frame's own buffer)
    };

    WorkerResult serveOperations();
    WorkerResult serveRead(const Internal::FileOperation &o);
    void sendData(quint32 op, qint64 offset, QByteArrayView data, bool last);
    void sendDone(quint32 op, qint64 offset, qint64 value);

    WorkerBase *q;
    WorkerEngine &m_engine;
    std::deque<Operation> m_operations;
    bool m_serving = false;
    bool m_malformed = false; // an operation could not be decoded: the request fails
    QByteArray m_buffer; // one reused buffer for every read
};

} // namespace Qvfs

#endif
