// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ENTRYSINK_P_H
#define QVFS_ENTRYSINK_P_H

// Where the entries a hook builds (WorkerBase::beginEntry() ... endEntry()) go: into the
// Entries frames of the running request (EntryBatcher), or, while the default polling
// watch lists a folder, into its digest (PollingDigest, pollingwatch_p.h). Internal.

#include "entrycodec_p.h"
#include "pollingwatch_p.h"
#include "workerengine_p.h"

#include <QByteArray>
#include <QList>

#include <functional>

namespace Qvfs
{

/*!
 * The batching sink, the normal case: encodes each entry into the Entries frame being
 * built, and sends the frame when it is big or old enough. The first frame of a request
 * is small, so that the application shows the first rows at once; later ones are large,
 * one write for many entries.
 *
 * The entry calls are inline down to the encoder's: a listing makes about ten of them per
 * entry, and the file worker's listing allocates nothing per entry.
 */
class EntryBatcher
{
public:
    explicit EntryBatcher(WorkerEngine &engine)
        : m_engine(engine)
    { }

    /*! A request starts: nothing pending, no first-batch hook, no bytes counted. */
    void beginRequest();
    /*! Starts an Entries frame (a listing, a stat, a watch's batch of changes). */
    void start();
    /*!
     * Sends the pending entries. \a last: the request's final message follows at once,
     * so both go out in one write (one wake-up of the application per stat, not two).
     */
    void flush(bool last = false);

    void beginEntry()
    {
        // The first entry of a batch of another request than the last one sent: the atoms
        // start afresh, exactly when the application's decoder starts them afresh.
        if (m_count == 0 && m_lastEntriesId != m_engine.current) {
            m_encoder.resetAtoms();
            m_lastEntriesId = m_engine.current;
        }
        m_encoder.begin(m_batch);
    }
    void addNumber(quint16 field, qint64 value) { m_encoder.addNumber(field, value); }
    void addString(quint16 field, QByteArrayView value)
    {
        noteName(field, value);
        m_encoder.addString(field, value);
    }
    void addAtom(quint16 field, QByteArrayView value) { m_encoder.addAtom(field, value); }
    /*! Adds \a field as its type says (an entry the polling digest held back). */
    void add(quint16 field, qint64 number, QByteArrayView str) { m_encoder.add(field, number, str); }
    /*! Finishes the entry, and sends the frame by size and time. */
    void endEntry()
    {
        // Never fails: the batch is flushed long before it could use every key set.
        const bool encoded = m_encoder.end();
        Q_ASSERT(encoded);
        if (!encoded)
            return;
        ++m_count;
        const qsizetype limit = m_firstSent ? BatchBytes : FirstBatchBytes;
        bool flushNow = m_batch.size() >= limit || m_encoder.keySetsInPayload() >= Internal::MaxKeySets - 16;
        if (!flushNow && (m_count & 63) == 0)
            flushNow = WorkerEngine::nowMs() - m_startMs >= BatchMaxMs;
        if (flushNow) {
            flush();
            start();
        }
    }
    /*! Keeps a Name for whenFirstBatchSent()'s hook while one waits. */
    void noteName(quint16 field, QByteArrayView value)
    {
        if (field == Name && m_firstBatchHook)
            m_firstBatchNames.append(value.toByteArray());
    }

    /*! WorkerBase::whenFirstBatchSent(). */
    void whenFirstBatchSent(std::function<void(const QList<QByteArray> &)> hook);
    bool hasFirstBatchHook() const { return bool(m_firstBatchHook); }
    /*! Runs the hook of whenFirstBatchSent(), if one waits, with the names noted so far. */
    void runFirstBatchHook();

    /*! Bytes of the Entries frames sent for the running request. */
    qint64 wireBytes() const { return m_wireBytes; }
    /*! Entries sent on this connection so far: a watch's batch of changes counts its own. */
    qint64 entriesSent() const { return m_entriesSent; }

private:
    static constexpr qsizetype FirstBatchBytes = 4 * 1024; // the first entries reach the app fast
    static constexpr qsizetype BatchBytes = 60 * 1024;
    static constexpr qint64 BatchMaxMs = 100;

    WorkerEngine &m_engine;
    Internal::EntryEncoder m_encoder;
    QByteArray m_batch;
    int m_count = 0;
    int m_lastCount = 0; // entries of the last frame sent: the count hint of the next
    qint64 m_startMs = 0;
    bool m_firstSent = false;
    qint64 m_wireBytes = 0; // Entries frames sent for the running request
    qint64 m_entriesSent = 0;
    quint32 m_lastEntriesId = 0; // request id of the last Entries frame: atoms restart with another
    std::function<void(const QList<QByteArray> &)> m_firstBatchHook;
    QList<QByteArray> m_firstBatchNames;
};

/*!
 * The receiver of WorkerBase's entry API: the batcher, or while the default polling watch
 * lists a folder, its digest (setDigest()), which decides per entry whether it goes out.
 *
 * Two concrete sinks and a pointer that is null but while polling, rather than an
 * interface with virtual calls: a listing adds about ten fields per entry, and a virtual
 * call per field would cost the hot path. Each call tests the pointer, as predictable a
 * branch as there is, and goes on inline into the batcher.
 */
class EntrySink
{
public:
    explicit EntrySink(WorkerEngine &engine)
        : m_batcher(engine)
    { }

    EntryBatcher &batcher() { return m_batcher; }
    /*! Sends the entries to \a digest from now on; nullptr: to the batcher again. */
    void setDigest(PollingDigest *digest) { m_digest = digest; }

    void beginEntry()
    {
        if (Q_UNLIKELY(m_digest))
            m_digest->beginEntry();
        else
            m_batcher.beginEntry();
    }
    void addNumber(quint16 field, qint64 value)
    {
        if (Q_UNLIKELY(m_digest))
            m_digest->addNumber(field, value);
        else
            m_batcher.addNumber(field, value);
    }
    void addString(quint16 field, QByteArrayView value)
    {
        if (Q_UNLIKELY(m_digest))
            m_digest->addString(field, value);
        else
            m_batcher.addString(field, value);
    }
    void addAtom(quint16 field, QByteArrayView value)
    {
        if (Q_UNLIKELY(m_digest))
            m_digest->addAtom(field, value);
        else
            m_batcher.addAtom(field, value);
    }
    void endEntry()
    {
        if (Q_UNLIKELY(m_digest))
            m_digest->endEntry();
        else
            m_batcher.endEntry();
    }

private:
    EntryBatcher m_batcher;
    PollingDigest *m_digest = nullptr;
};

} // namespace Qvfs

#endif
