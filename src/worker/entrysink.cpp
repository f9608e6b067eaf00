// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entrysink_p.h"

namespace Qvfs
{

using Wire::Msg;

void EntryBatcher::beginRequest()
{
    // Atoms restart with each run of Entries frames of another request (beginEntry()),
    // as the application's decoder does: watches of one process interleave.
    m_batch.resize(0);
    m_count = 0;
    m_lastCount = 0;
    m_firstSent = false;
    m_firstBatchHook = {};
    m_firstBatchNames.clear();
    m_wireBytes = 0;
}

void EntryBatcher::start()
{
    m_batch.resize(0); // a batch that got no entry left its count hint behind
    m_encoder.beginPayload(m_batch, quint32(m_lastCount));
    m_count = 0;
    m_startMs = WorkerEngine::nowMs();
}

void EntryBatcher::flush(bool last)
{
    if (m_count == 0)
        return;
    m_wireBytes += Wire::HeaderSize + m_batch.size();
    m_entriesSent += m_count;
    m_engine.conn.sendHeader(Msg::Entries, m_engine.current, quint32(m_batch.size()));
    m_engine.conn.sendRaw(m_batch);
    m_batch.resize(0);
    m_lastCount = m_count;
    m_count = 0;
    m_firstSent = true;
    if (m_firstBatchHook) {
        m_engine.conn.flush(); // the first rows are on their way before the hook's work
        runFirstBatchHook();
    }
    if (last)
        return;
    m_engine.afterAppend();
    m_engine.pump(0); // read a kill or suspend that arrived meanwhile
    m_engine.waitWhileSuspended();
}

void EntryBatcher::whenFirstBatchSent(std::function<void(const QList<QByteArray> &)> hook)
{
    m_firstBatchHook = std::move(hook);
    m_firstBatchNames.clear();
}

void EntryBatcher::runFirstBatchHook()
{
    if (!m_firstBatchHook)
        return;
    const auto hook = std::exchange(m_firstBatchHook, {});
    hook(std::exchange(m_firstBatchNames, {}));
}

} // namespace Qvfs
