// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entrysink_p.h"
#include "pollingwatch_p.h"
#include "watchserver_p.h"
#include "workerengine_p.h"

#include <climits>

namespace Qvfs
{

using namespace Internal;
using Wire::Msg;

WatchServer::WatchServer(WorkerBase *q, WorkerEngine &engine, EntryBatcher &entries, PollingWatch &polling)
    : q(q)
    , m_engine(engine)
    , m_entries(entries)
    , m_polling(polling)
{ }

void WatchServer::serve()
{
    const qint64 due = m_polling.nextDue(m_timerDue);
    const qint64 now = WorkerEngine::nowMs();
    const int timeout = due < 0 ? -1 : int(qBound(qint64(0), due - now, qint64(INT_MAX)));
    const bool readable = m_engine.waitBoth(m_fd, timeout);
    if (m_engine.appGone || m_engine.hasCommand())
        return; // a command first; the events wait in their queue
    endWatches();
    const qint64 after = WorkerEngine::nowMs();
    const bool timerDue = m_timerDue >= 0 && after >= m_timerDue;
    if (timerDue)
        m_timerDue = -1;
    if (readable || timerDue)
        q->watchEvent();
    m_polling.pollDue(after);
}

void WatchServer::endWatches()
{
    while (!m_ending.isEmpty()) {
        const quint32 id = *m_ending.cbegin();
        m_ending.remove(id);
        if (!m_live.remove(id))
            continue;
        q->unwatch(id);
        m_polling.stop(id);
        if (!m_engine.appGone) {
            QByteArray payload;
            MetaData().encode(payload);
            m_engine.sendTo(id, Msg::Finished, payload); // the acknowledgement
        }
    }
}

void WatchServer::listed(quint32 id)
{
    m_live.insert(id, m_startMode);
    WatchChanges c;
    c.kind = WatchChanges::Kind::Listed;
    c.mode = m_startMode;
    m_engine.sendTo(id, Msg::Changes, encodeChanges(c));
}

bool WatchServer::kill(quint32 id)
{
    if (!m_live.contains(id))
        return false;
    m_ending.insert(id);
    return true;
}

void WatchServer::unwatchAll()
{
    const QList<quint32> live = m_live.keys();
    for (quint32 id : live)
        q->unwatch(id);
    m_live.clear();
}

void WatchServer::setTimer(int ms)
{
    m_timerDue = ms < 0 ? -1 : WorkerEngine::nowMs() + ms;
}

QList<std::pair<QByteArray, QByteArray>> WatchServer::plainRenames(
    const QList<std::pair<QByteArray, QByteArray>> &renames, const QSet<QByteArray> &existing)
{
    QHash<QByteArray, int> uses;
    for (const auto &r : renames) {
        ++uses[r.first];
        ++uses[r.second];
    }
    QList<std::pair<QByteArray, QByteArray>> plain;
    for (const auto &r : renames) {
        if (uses.value(r.first) == 1 && uses.value(r.second) == 1 && !existing.contains(r.first)
            && existing.contains(r.second))
            plain.append(r);
    }
    return plain;
}

bool WatchServer::enterLive(quint32 id)
{
    Q_ASSERT(!m_inChanges && !m_inResync && !m_engine.current);
    if (!isWatching(id) || m_engine.appGone || m_engine.current)
        return false;
    m_engine.enterWatch(id);
    return true;
}

bool WatchServer::beginChanges(quint32 id)
{
    if (!enterLive(id))
        return false;
    m_inChanges = true;
    m_entriesBefore = m_entries.entriesSent();
    m_changes = WatchChanges();
    m_entries.start();
    return true;
}

void WatchServer::reportRemoved(QByteArrayView name)
{
    if (m_inChanges && !name.isEmpty())
        m_changes.removed.append(name.toByteArray());
}

void WatchServer::reportRenamed(QByteArrayView from, QByteArrayView to)
{
    if (m_inChanges && !from.isEmpty() && !to.isEmpty())
        m_changes.renamed.append({ from.toByteArray(), to.toByteArray() });
}

void WatchServer::endChanges()
{
    if (!m_inChanges)
        return;
    m_entries.flush(true);
    const bool any
        = m_entries.entriesSent() > m_entriesBefore || !m_changes.removed.isEmpty() || !m_changes.renamed.isEmpty();
    if (any && !m_engine.appGone) {
        m_changes.kind = WatchChanges::Kind::Commit;
        m_engine.send(Msg::Changes, encodeChanges(m_changes));
    }
    m_changes = WatchChanges();
    m_inChanges = false;
    m_engine.leaveWatch();
}

bool WatchServer::beginResync(quint32 id)
{
    if (!enterLive(id))
        return false;
    m_inResync = true;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Resync;
    m_engine.send(Msg::Changes, encodeChanges(c));
    m_entries.start();
    return true;
}

void WatchServer::endResync()
{
    if (!m_inResync)
        return;
    m_entries.flush(true);
    if (!m_engine.appGone) {
        WatchChanges c;
        c.kind = WatchChanges::Kind::Listed;
        c.mode = m_live.value(m_engine.current, WatchMode::Native);
        m_engine.send(Msg::Changes, encodeChanges(c));
    }
    m_inResync = false;
    m_engine.leaveWatch();
}

void WatchServer::gone(quint32 id)
{
    if (!isWatching(id) || m_engine.appGone)
        return;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Gone;
    m_engine.sendTo(id, Msg::Changes, encodeChanges(c));
    m_ending.insert(id); // unwatch() and the end of the request at the next turn
}

void WatchServer::moved(quint32 id, const QUrl &url)
{
    if (!isWatching(id) || m_engine.appGone)
        return;
    WatchChanges c;
    c.kind = WatchChanges::Kind::Moved;
    c.url = url;
    m_engine.sendTo(id, Msg::Changes, encodeChanges(c));
    m_polling.moved(id, url);
}

} // namespace Qvfs
