// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEJOB_P_H
#define QVFS_FILEJOB_P_H

#include "filejob.h"
#include "job_p.h"

#include <deque>

namespace Qvfs
{

class FileJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(FileJob)

    static FileJobPrivate *get(FileJob *job) { return job->d_func(); }
    static FileJob *create(FileJobPrivate *d) { return new FileJob(*d); }

    enum class State { Opening, Open, Closing };
    enum class Kind : quint8 { Read, Write, Truncate, Size };
    /*! A request of the application, from when it is made until it is answered. */
    struct Op
    {
        Kind kind = Kind::Read;
        bool append = false;
        quint32 id = 0;
        qint64 offset = 0; // read, write: where; truncate: the length
        qint64 length = 0; // read: asked for; write: the data's size
        qint64 done = 0; // read: bytes received; write: bytes acknowledged
        qint64 sent = 0; // write: bytes sent
        qint64 at = -1; // write: where the first piece went (an append's real offset)
        QByteArray data; // write
    };

    OpenRequest openRequest;
    QIODevice::OpenMode mode;
    State state = State::Opening;
    bool closeRequested = false;
    bool closeSent = false;
    OpenedFile file;
    qint64 size = -1;
    qint64 pos = 0;
    quint32 lastId = 0;
    std::deque<Op> ops; // made, not yet answered, in order
    size_t sending = 0; // ops[sending] is the first not sent in full
    qint64 writeInFlight = 0; // bytes sent and not acknowledged
    qint64 toWrite = 0; // bytes of writes not acknowledged (sent or not)

    /*! A write's bytes in flight at most: the worker's memory stays bounded. */
    static constexpr qint64 WriteWindow = 4 * 1024 * 1024;

    void start() override;
    void requestOpened(const OpenedFile &f) override;
    void requestFileData(quint32 op, qint64 offset, const QByteArray &data, bool last) override;
    void requestFileDone(const Internal::FileDone &done) override;
    void onFinished(const MetaData &results) override;
    void onFailed(int code, const QStringList &args) override;

    /*! Whether requests can still be made. */
    bool accepting() const { return !finished && !closeRequested; }
    quint32 nextId();
    quint32 enqueue(Op op);
    /*! Sends what may go out now, in order: writes within WriteWindow. */
    void sendPending();
    /*! The oldest request sent and unanswered, when it is \a id; else a protocol error. */
    Op *answered(quint32 id);
    void protocolError(const char *what);
    void growSize(qint64 end)
    {
        if (end > size)
            size = end;
    }

    /*!
     * For blocking adapters (FileDevice): starts the job now if it has not started, then
     * blocks up to \a msecs (-1: no limit but the worker's silence deadline) until the
     * worker says something or the job ends, handing what came to the signals first.
     * Without a worker yet (still queued) it runs a local event loop meanwhile. False
     * when nothing happened in time.
     */
    bool waitForProgress(int msecs);
};

} // namespace Qvfs

#endif
