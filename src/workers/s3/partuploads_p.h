// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_PARTUPLOADS_P_H
#define QVFS_PARTUPLOADS_P_H

#include "s3client_p.h"

#include <QAtomicInt>
#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QWaitCondition>

#include <functional>
#include <memory>

class QThread;

namespace Qvfs::S3
{

/*!
 * The parts of one multipart upload going up a few at a time: each uploader thread has a
 * client of its own (an HttpClient, so a connection of its own, made in that thread) set up
 * like the worker's, and takes the next part submitted. What is held is bounded: submit()
 * waits while \a inFlight parts are queued or going up, so at most that many parts (and
 * the one the caller is filling) are in memory.
 *
 * The caller's thread stays the worker's: it fills parts from the application, and its
 * \a keepGoing callback (the kill check and heartbeat) is called at least every 50 ms
 * while submit() or finish() wait; false cancels every part going up. The first failure
 * stops the other uploads too; finish() returns it.
 */
class PartUploads
{
public:
    PartUploads(const Client &like, const Location &at, const QByteArray &uploadId, int inFlight,
        std::function<bool()> keepGoing);
    ~PartUploads();
    PartUploads(const PartUploads &) = delete;
    PartUploads &operator=(const PartUploads &) = delete;

    /*! Queues \a data as part \a number (from 1, in order); false once something failed or was cancelled. */
    bool submit(int number, const QByteArray &data);
    /*! Waits for every part; the parts' ETags (in order) in \a etags, or the first failure. */
    Result finish(QList<QByteArray> *etags);

private:
    struct Part
    {
        int number = 0;
        QByteArray data;
    };
    void work(); // an uploader thread's loop
    /*! Waits (calling keepGoing) until \a ready holds with the mutex held; false when cancelled. */
    bool waitFor(const std::function<bool()> &ready);

    const Client &m_like;
    Location m_at;
    QByteArray m_uploadId;
    int m_inFlight;
    std::function<bool()> m_keepGoing;
    QList<QThread *> m_threads;

    QMutex m_mutex;
    QWaitCondition m_changed;
    QList<Part> m_queue;
    int m_busy = 0; // parts being uploaded
    bool m_closed = false; // no more parts: threads end when the queue is empty
    bool m_finished = false; // finish() waited for every part
    QAtomicInt m_cancelled; // read by the uploaders' clients between their ticks
    Result m_failure = Result::pass();
    QList<QByteArray> m_etags; // by part number - 1
};

} // namespace Qvfs::S3

#endif
