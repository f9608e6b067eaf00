// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entrysink_p.h"
#include "pollingwatch_p.h"
#include "watchserver_p.h"
#include "workerengine_p.h"

#include <cstring>

namespace Qvfs
{

// ---- the digest sink ----

void PollingDigest::hashBytes(const void *p, qsizetype n)
{
    const auto *b = static_cast<const unsigned char *>(p);
    for (qsizetype i = 0; i < n; ++i) {
        m_hash ^= b[i];
        m_hash *= 0x100000001b3ULL; // FNV-1a
    }
}

void PollingDigest::digestField(quint16 field, qint64 number, QByteArrayView str)
{
    hashBytes(&field, sizeof field);
    if (fieldType(field) == FieldType::Number) {
        hashBytes(&number, sizeof number);
    } else {
        const qint64 n = str.size();
        hashBytes(&n, sizeof n);
        hashBytes(str.data(), str.size());
        if (field == Name)
            m_name = str.toByteArray();
    }
    if (m_mode != Mode::SendChanged)
        return;
    // Kept to be encoded only if the entry turns out new or changed.
    m_heldFields.append(reinterpret_cast<const char *>(&field), sizeof field);
    if (fieldType(field) == FieldType::Number) {
        m_heldFields.append(reinterpret_cast<const char *>(&number), sizeof number);
    } else {
        const quint32 n = quint32(str.size());
        m_heldFields.append(reinterpret_cast<const char *>(&n), sizeof n);
        m_heldFields.append(str.data(), str.size());
    }
}

void PollingDigest::sendHeldEntry()
{
    m_batcher.beginEntry();
    const char *p = m_heldFields.constData();
    const char *end = p + m_heldFields.size();
    while (p < end) {
        quint16 field;
        std::memcpy(&field, p, sizeof field);
        p += sizeof field;
        if (fieldType(field) == FieldType::Number) {
            qint64 v;
            std::memcpy(&v, p, sizeof v);
            p += sizeof v;
            m_batcher.addNumber(field, v);
        } else {
            quint32 n;
            std::memcpy(&n, p, sizeof n);
            p += sizeof n;
            m_batcher.add(field, 0, QByteArrayView(p, n));
            p += n;
        }
    }
    m_batcher.endEntry();
}

void PollingDigest::beginEntry()
{
    m_hash = 0xcbf29ce484222325ULL;
    m_name.clear();
    m_heldFields.clear();
    if (m_mode == Mode::SendAll)
        m_batcher.beginEntry();
}

void PollingDigest::addNumber(quint16 field, qint64 value)
{
    digestField(field, value, {});
    if (m_mode == Mode::SendAll)
        m_batcher.addNumber(field, value);
}

void PollingDigest::addString(quint16 field, QByteArrayView value)
{
    digestField(field, 0, value);
    if (m_mode == Mode::SendAll)
        m_batcher.addString(field, value);
    else
        m_batcher.noteName(field, value); // whenFirstBatchSent() sees every name the hook gives
}

void PollingDigest::addAtom(quint16 field, QByteArrayView value)
{
    digestField(field, 0, value);
    if (m_mode == Mode::SendAll)
        m_batcher.addAtom(field, value);
}

void PollingDigest::endEntry()
{
    PolledFolder &folder = *m_folder;
    auto it = folder.digests.find(m_name);
    if (m_mode == Mode::SendChanged) {
        if (it != folder.digests.end() && it->hash == m_hash) {
            it->generation = folder.generation; // unchanged: nothing to send
            return;
        }
        sendHeldEntry();
    }
    if (it != folder.digests.end())
        *it = { m_hash, folder.generation };
    else
        folder.digests.insert(m_name, { m_hash, folder.generation });
    if (m_mode == Mode::SendAll)
        m_batcher.endEntry();
}

// ---- the polling watch ----

PollingWatch::PollingWatch(WorkerBase *q, WorkerEngine &engine, EntrySink &entries, WatchServer &watches)
    : q(q)
    , m_engine(engine)
    , m_entries(entries)
    , m_watches(watches)
    , m_digest(entries.batcher())
{ }

WorkerResult PollingWatch::watch(const WatchRequest &r)
{
    if (r.pollMs <= 0)
        return WorkerResult::fail(ErrUnsupportedAction, r.url);
    // Polling: the listing goes out as usual while its digest is kept; every pollMs the
    // folder is listed again and only what differs is sent.
    if (m_watches.startMode() == WatchMode::Native)
        m_watches.setStartMode(WatchMode::Polling);
    const quint32 id = m_engine.current;
    PolledFolder &folder = m_folders[id];
    folder = PolledFolder();
    folder.list.url = r.url;
    folder.list.details = r.details;
    folder.intervalMs = qMax(r.pollMs, 100);
    const WorkerResult res = list(folder, PollingDigest::Mode::SendAll);
    if (!res.ok()) {
        m_folders.remove(id);
        return res;
    }
    folder.dueMs = WorkerEngine::nowMs() + folder.intervalMs;
    return res;
}

void PollingWatch::moved(quint32 id, const QUrl &url)
{
    auto it = m_folders.find(id);
    if (it != m_folders.end())
        it->list.url = url;
}

qint64 PollingWatch::nextDue(qint64 due) const
{
    for (const PolledFolder &f : m_folders) {
        if (due < 0 || f.dueMs < due)
            due = f.dueMs;
    }
    return due;
}

void PollingWatch::pollDue(qint64 now)
{
    QList<quint32> due;
    for (auto it = m_folders.cbegin(); it != m_folders.cend(); ++it) {
        if (it->dueMs <= now && m_watches.isLive(it.key()))
            due.append(it.key());
    }
    for (quint32 id : std::as_const(due))
        poll(id);
}

WorkerResult PollingWatch::list(PolledFolder &folder, PollingDigest::Mode mode)
{
    m_digest.startListing(&folder, mode);
    m_entries.setDigest(&m_digest);
    const WorkerResult res = q->listDir(folder.list);
    m_entries.setDigest(nullptr);
    m_digest.startListing(nullptr, mode);
    return res;
}

void PollingWatch::poll(quint32 id)
{
    auto it = m_folders.find(id);
    if (it == m_folders.end() || !m_watches.beginChanges(id))
        return;
    PolledFolder &folder = *it;
    ++folder.generation;
    const WorkerResult res = list(folder, PollingDigest::Mode::SendChanged);
    if (res.ok() && !m_engine.killed) {
        for (auto d = folder.digests.begin(); d != folder.digests.end();) {
            if (d->generation != folder.generation) {
                m_watches.reportRemoved(d.key());
                d = folder.digests.erase(d);
            } else {
                ++d;
            }
        }
    }
    folder.dueMs = WorkerEngine::nowMs() + folder.intervalMs;
    m_watches.endChanges();
    if (!res.ok() && (res.code() == ErrDoesNotExist || res.code() == ErrIsNotDirectory))
        m_watches.gone(id);
}

} // namespace Qvfs
