// SPDX-License-Identifier: LGPL-2.1-or-later
#include "partuploads_p.h"

#include "error.h"

#include <QThread>

namespace Qvfs::S3
{

PartUploads::PartUploads(
    const Client &like, const Location &at, const QByteArray &uploadId, int inFlight, std::function<bool()> keepGoing)
    : m_like(like)
    , m_at(at)
    , m_uploadId(uploadId)
    , m_inFlight(qMax(1, inFlight))
    , m_keepGoing(std::move(keepGoing))
{
    for (int i = 0; i < m_inFlight; ++i) {
        m_threads.append(QThread::create([this] { work(); }));
        m_threads.last()->start();
    }
}

PartUploads::~PartUploads()
{
    {
        QMutexLocker lock(&m_mutex);
        m_closed = true;
        if (!m_finished)
            m_cancelled.storeRelaxed(1); // given up before finish(): nothing more goes up
        m_queue.clear();
        m_changed.wakeAll();
    }
    for (QThread *t : std::as_const(m_threads)) {
        t->wait();
        delete t;
    }
}

void PartUploads::work()
{
    Http::HttpClient http; // in this thread: its connections are its own
    Http::HttpClient::Callbacks cb;
    cb.cancelled = [this] { return m_cancelled.loadRelaxed() != 0; };
    http.setCallbacks(cb);
    Client client(&http);
    client.configureLike(m_like);
    for (;;) {
        Part part;
        {
            QMutexLocker lock(&m_mutex);
            while (m_queue.isEmpty() && !m_closed)
                m_changed.wait(&m_mutex);
            if (m_queue.isEmpty())
                return;
            part = m_queue.takeFirst();
            ++m_busy;
        }
        QByteArray etag;
        const Result r = m_cancelled.loadRelaxed() ? Result::fail(ErrCancelled)
                                                   : client.uploadPart(m_at, m_uploadId, part.number, part.data, &etag);
        part.data = QByteArray(); // freed before the next is taken
        QMutexLocker lock(&m_mutex);
        --m_busy;
        if (r.ok()) {
            if (m_etags.size() < part.number)
                m_etags.resize(part.number);
            m_etags[part.number - 1] = etag;
        } else if (m_failure.ok()) {
            m_failure = r;
            m_cancelled.storeRelaxed(1); // the others stop too
        }
        m_changed.wakeAll();
    }
}

bool PartUploads::waitFor(const std::function<bool()> &ready)
{
    for (;;) {
        {
            QMutexLocker lock(&m_mutex);
            if (!m_failure.ok() || m_cancelled.loadRelaxed())
                return false;
            if (ready())
                return true;
            m_changed.wait(&m_mutex, 50);
            if (!m_failure.ok())
                return false;
            if (ready())
                return true;
        }
        if (m_keepGoing && !m_keepGoing()) {
            QMutexLocker lock(&m_mutex);
            m_cancelled.storeRelaxed(1);
            if (m_failure.ok())
                m_failure = Result::fail(ErrCancelled);
            return false;
        }
    }
}

bool PartUploads::submit(int number, const QByteArray &data)
{
    if (!waitFor([this] { return m_queue.size() + m_busy < m_inFlight; }))
        return false;
    QMutexLocker lock(&m_mutex);
    m_queue.append(Part { number, data });
    m_changed.wakeAll();
    return true;
}

Result PartUploads::finish(QList<QByteArray> *etags)
{
    waitFor([this] { return m_queue.isEmpty() && m_busy == 0; });
    QMutexLocker lock(&m_mutex);
    m_finished = true;
    if (!m_failure.ok())
        return m_failure;
    *etags = m_etags;
    return Result::pass();
}

} // namespace Qvfs::S3
