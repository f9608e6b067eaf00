// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "filetransfer_p.h"
#include "simplejob_p.h"
#include "transferjob_p.h"
#include "url.h"

namespace Qvfs::Internal
{

namespace
{
// The get pauses above this much unsent data (several files may be in flight).
constexpr qsizetype MaxBuffered = 2 * 1024 * 1024;
} // namespace

FileTransfer::FileTransfer(const Spec &spec, Route route, AskDelegate *delegate, QObject *parent)
    : QObject(parent)
    , m_spec(spec)
    , m_route(route)
    , m_delegate(delegate)
{ }

FileTransfer::~FileTransfer()
{
    kill();
}

void FileTransfer::start()
{
    if (m_route == Route::Stream) {
        startStream();
        return;
    }
    SimpleJob *job = SimpleJobPrivate::createCommand(toWire(m_spec, m_route == Route::ToFile));
    job->setAskDelegate(m_delegate);
    if (m_suspended)
        job->suspend();
    m_job = job;
    connect(job, &Job::processedAmountChanged, this, [this](Job *, Job::Unit unit, qint64 amount) {
        if (unit == Job::Bytes)
            Q_EMIT progressed(amount);
    });
    connect(job, &Job::result, this, [this, job] { finish(job->error(), job->errorArgs()); });
}

void FileTransfer::startStream()
{
    TransferJobPrivate *gd = TransferJobPrivate::make(m_spec.source, false, false);
    gd->get.expected = m_spec.expected;
    TransferJob *g = TransferJobPrivate::create(gd);
    TransferJobPrivate *pd = TransferJobPrivate::make(m_spec.destination, true, false);
    pd->put.permissions = m_spec.permissions;
    pd->put.overwrite = m_spec.overwrite;
    pd->put.expectedParent = m_spec.expectedParent;
    TransferJob *p = TransferJobPrivate::create(pd);
    g->setAskDelegate(m_delegate);
    p->setAskDelegate(m_delegate);
    p->setAsyncDataEnabled(true);
    if (m_spec.size >= 0)
        p->setTotalSize(m_spec.size);
    if (m_spec.mtime >= 0)
        p->setModificationTime(m_spec.mtime, m_spec.mtimeNs);
    if (m_suspended) {
        g->suspend();
        p->suspend();
    }
    m_get = g;
    m_put = p;
    connect(g, &TransferJob::data, this, [this](TransferJob *, const QByteArray &chunk) {
        m_received += chunk.size();
        m_buffer.append(chunk);
        if (m_buffer.size() > MaxBuffered && m_get)
            m_get->suspend();
        feedPut();
    });
    connect(g, &Job::result, this, [this, g] {
        if (g->error()) {
            finish(g->error(), g->errorArgs()); // kills the put: the destination stays as it was
            return;
        }
        if (m_spec.size >= 0 && m_received != m_spec.size && !Url::isLocalFile(m_spec.source)) {
            // Another size than the job found: a broken body the server's framing did
            // not show (a chunked reply cut short), or the file changed meanwhile. The
            // put is never completed: the destination stays as it was.
            finish(ErrSourceChanged, { QString::fromUtf8(m_spec.source.toEncoded()) });
            return;
        }
        m_getDone = true;
        feedPut();
    });
    connect(p, &TransferJob::dataReq, this, [this](TransferJob *, QByteArray &) {
        m_putWaiting = true;
        feedPut();
    });
    connect(p, &Job::result, this, [this, p] { finish(p->error(), p->errorArgs()); });
}

void FileTransfer::feedPut()
{
    if (!m_putWaiting || !m_put || (m_buffer.isEmpty() && !m_getDone))
        return;
    m_putWaiting = false;
    const QByteArray chunk = m_buffer.left(Wire::MaxPayload);
    m_buffer.remove(0, chunk.size());
    m_sent += chunk.size();
    m_put->sendAsyncData(chunk); // empty when the source is done
    if (m_get && m_get->isSuspended() && !m_suspended && m_buffer.size() < MaxBuffered / 2)
        m_get->resume();
    if (!chunk.isEmpty())
        Q_EMIT progressed(m_sent); // last: whoever listens may kill this transfer
}

void FileTransfer::setSuspended(bool suspended)
{
    m_suspended = suspended;
    for (Job *j : { m_job.data(), static_cast<Job *>(m_get.data()), static_cast<Job *>(m_put.data()) }) {
        if (j)
            suspended ? j->suspend() : j->resume();
    }
}

void FileTransfer::kill()
{
    m_done = true;
    for (Job *j : { m_job.data(), static_cast<Job *>(m_get.data()), static_cast<Job *>(m_put.data()) }) {
        if (j) {
            j->disconnect(this);
            j->kill(Job::Quietly);
        }
    }
    m_job = nullptr;
    m_get = nullptr;
    m_put = nullptr;
}

void FileTransfer::finish(int error, const QStringList &args)
{
    // A stream ends with its put's result, or with a failed get (which kills the put).
    if (m_done)
        return;
    kill();
    Q_EMIT finished(error, args);
}

} // namespace Qvfs::Internal
