// SPDX-License-Identifier: LGPL-2.1-or-later
// File jobs within each host's worker limit. A FileJob keeps its worker while it is open,
// and a host has only so many (sftp: 5): a program holding six files open at once (sort -m,
// paste) would wait forever for the sixth, and with it every lookup on that host. So the
// mount keeps at most one worker fewer than the limit in file jobs (one stays for stats and
// listings), and when more files are read at once, the least recently used one that has
// nothing in flight is closed and opened again at its next read (a file changed meanwhile
// is then read as it is now, as after the server-side change of an open file).
#include "mountfs_p.h"

#include <Qvfs/Protocol>
#include <Qvfs/UrlIdentity>

namespace Mount
{

namespace
{

int budget(const QUrl &url)
{
    return qMax(1, Qvfs::Protocol::find(url.scheme()).maxWorkersPerHost() - 1);
}

} // namespace

void MountFs::needJob(FileHandle *h)
{
    if (h->host.isEmpty())
        h->host = Qvfs::Url::schedulerKey(h->url);
    int &open = m_jobsPerHost[h->host];
    if (open >= budget(h->url) && !parkIdle(h->host)) {
        if (!h->waitingSlot) {
            h->waitingSlot = true;
            m_waitingSlots.append(h);
        }
        return;
    }
    ++m_jobsPerHost[h->host];
    h->holdsSlot = true;
    startReading(h, h->url);
    issueQueued(h);
}

void MountFs::issueQueued(FileHandle *h)
{
    const QList<FileHandle::Read> queued = std::exchange(h->queued, {});
    for (const FileHandle::Read &r : queued) {
        if (!h->ahead.read(h->job, r.req, r.off, r.size))
            readFromServer(h, r.req, r.off, r.size);
    }
}

void MountFs::jobGone(FileHandle *h)
{
    if (!h->holdsSlot)
        return;
    h->holdsSlot = false;
    --m_jobsPerHost[h->host];
    serveWaiting(h->host);
}

bool MountFs::parkIdle(const QString &host)
{
    FileHandle *oldest = nullptr;
    for (auto it = m_files.cbegin(); it != m_files.cend(); ++it) {
        FileHandle *v = it.key();
        if (v->holdsSlot && v->host == host && v->job && v->opened && !v->openReq && v->reads.isEmpty()
            && !v->ahead.hasWaiting() && (!oldest || v->lastUse < oldest->lastUse))
            oldest = v;
    }
    if (!oldest)
        return false;
    oldest->job->disconnect(this);
    oldest->job->close(); // its worker is free once the reads made ahead are answered
    oldest->job = nullptr;
    oldest->ahead.takeWaiting(); // (nothing waits: its chunks go)
    oldest->holdsSlot = false;
    --m_jobsPerHost[host];
    return true;
}

void MountFs::serveWaiting(const QString &host)
{
    for (qsizetype i = 0; i < m_waitingSlots.size();) {
        FileHandle *h = m_waitingSlots.at(i);
        if (h->host != host) {
            ++i;
            continue;
        }
        if (m_jobsPerHost.value(host) >= budget(h->url) && !parkIdle(host))
            return; // all busy: the next read that ends tries again
        m_waitingSlots.removeAt(i);
        h->waitingSlot = false;
        needJob(h);
    }
}

} // namespace Mount
