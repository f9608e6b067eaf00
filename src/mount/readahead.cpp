// SPDX-License-Identifier: LGPL-2.1-or-later
#include "readahead_p.h"

#include <Qvfs/FileJob>

#include <sys/uio.h>

namespace Mount
{

ReadAhead::ReadAhead(qint64 chunk, int window)
    : m_chunk(chunk)
    , m_window(window)
{ }

ReadAhead::~ReadAhead() = default;

bool ReadAhead::holds(qint64 off, size_t size) const
{
    if (m_chunks.isEmpty() || off < m_chunks.first().off)
        return false;
    const qint64 end = off + qint64(size);
    for (const Chunk &c : m_chunks) {
        if (c.end() >= end || (c.endsFile() && c.end() > off))
            return true; // covered, or the file ends inside the chunks
    }
    return false;
}

bool ReadAhead::ready(const Pending &w) const
{
    const qint64 end = w.off + qint64(w.size);
    for (const Chunk &c : m_chunks) {
        if (c.end() <= w.off)
            continue;
        if (c.endsFile())
            return true;
        if (c.off + c.have < qMin(end, c.end()))
            return false; // pieces come in order: the rest is not in either
        if (c.end() >= end)
            return true;
    }
    return false;
}

void ReadAhead::answer(const Pending &w)
{
    constexpr int MaxIov = 64;
    iovec iov[MaxIov];
    int n = 0;
    const qint64 end = w.off + qint64(w.size);
    for (const Chunk &c : m_chunks) {
        if (c.end() <= w.off)
            continue;
        if (c.off >= end)
            break;
        qint64 at = c.off;
        for (const QByteArray &piece : c.pieces) {
            const qint64 from = qMax(w.off, at) - at;
            const qint64 to = qMin<qint64>(end - at, piece.size());
            if (to > from && n < MaxIov) {
                iov[n].iov_base = const_cast<char *>(piece.constData() + from);
                iov[n].iov_len = size_t(to - from);
                ++n;
            }
            at += piece.size();
        }
        if (c.endsFile())
            break;
    }
    fuse_reply_iov(w.req, iov, n);
}

bool ReadAhead::read(Qvfs::FileJob *job, fuse_req_t req, qint64 off, size_t size)
{
    m_streak = off == m_next ? m_streak + 1 : 0;
    m_next = off + qint64(size);
    if (m_streak >= 2)
        fillAhead(job, off);
    if (!holds(off, size))
        return false;
    const Pending w { req, off, size };
    if (ready(w))
        answer(w);
    else
        m_waiting.append(w);
    dropBehind(off);
    return true;
}

void ReadAhead::fillAhead(Qvfs::FileJob *job, qint64 off)
{
    // Chunks follow the reader from where its run in order is, contiguous.
    if (!m_chunks.isEmpty() && (off < m_chunks.first().off || off > m_chunks.last().end())) {
        if (!m_waiting.isEmpty())
            return; // (reads not in order while some wait: let them be answered first)
        m_chunks.clear();
    }
    qint64 start = m_chunks.isEmpty() ? off : m_chunks.last().end();
    if (!m_chunks.isEmpty() && m_chunks.last().endsFile())
        return;
    const qint64 limit = off + m_window * m_chunk;
    while (start < limit && (m_size < 0 || start < m_size)) {
        Chunk c;
        c.off = start;
        c.len = m_chunk;
        c.id = job->readAt(start, m_chunk);
        if (!c.id)
            return;
        m_chunks.append(c);
        start += m_chunk;
    }
}

void ReadAhead::dropBehind(qint64 off)
{
    // What the reader passed a chunk ago is not read again (or read on its own).
    while (m_chunks.size() > 1) {
        const Chunk &c = m_chunks.first();
        if (c.end() + m_chunk > off || !c.arrived)
            break;
        for (const Pending &w : std::as_const(m_waiting)) {
            if (w.off < c.end())
                return;
        }
        m_chunks.removeFirst();
    }
}

bool ReadAhead::arrived(quint32 id, const QByteArray &data)
{
    // A read comes in pieces, in order; an empty one ends it short (the end of the file).
    for (Chunk &c : m_chunks) {
        if (c.id != id || c.arrived)
            continue;
        if (!data.isEmpty())
            c.pieces.append(data);
        c.have += data.size();
        c.arrived = data.isEmpty() || c.have >= c.len;
        for (qsizetype i = 0; i < m_waiting.size();) {
            if (ready(m_waiting.at(i))) {
                answer(m_waiting.at(i));
                m_waiting.removeAt(i);
            } else {
                ++i;
            }
        }
        return true;
    }
    return false;
}

QList<ReadAhead::Pending> ReadAhead::takeWaiting()
{
    const QList<Pending> out = std::exchange(m_waiting, {});
    m_chunks.clear();
    m_streak = 0;
    return out;
}

void ReadAhead::fail(int error)
{
    for (const Pending &w : std::as_const(m_waiting))
        fuse_reply_err(w.req, error);
    m_waiting.clear();
    m_chunks.clear();
}

} // namespace Mount
