// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FRAME_P_H
#define QVFS_FRAME_P_H

// Framing over a non-blocking socket fd, shared by the application and the workers.

#include "metadata.h"
#include "qvfsproto_export.h"
#include "wire_p.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

namespace Qvfs::Internal
{

/*! Splits incoming bytes into frames; never allocates by an unchecked length. */
class QVFSPROTO_EXPORT FrameReader
{
public:
    FrameReader();
    enum ReadResult { ReadSome, WouldBlock, Eof, Failed };
    /*! Reads what is available on \a fd (at most one read call). */
    ReadResult readFrom(int fd);
    enum NextResult { NeedMore, Got, Bad };
    /*! Takes the next whole frame out of the buffer. Bad: length out of bounds. */
    NextResult next(Wire::Header *header, QByteArray *payload);
    /*! Feeds bytes directly (tests and fuzzers). */
    void feed(QByteArrayView bytes);
    /*! Whether buffered bytes remain. */
    bool hasBuffered() const noexcept { return m_end > m_pos; }

private:
    void makeRoom(qsizetype need);
    QByteArray m_buf;
    qsizetype m_pos = 0;
    qsizetype m_end = 0;
};

/*! Queues outgoing frames and writes them without blocking. */
class QVFSPROTO_EXPORT FrameWriter
{
public:
    /*! Appends one frame. */
    void append(Wire::Msg type, quint32 requestId, QByteArrayView payload);
    /*! Appends a frame header; the caller appends \a length payload bytes with appendRaw(). */
    void appendHeader(Wire::Msg type, quint32 requestId, quint32 length);
    void appendRaw(QByteArrayView bytes) { m_buf.append(bytes.data(), bytes.size()); }
    /*! Writes as much as the socket takes. False on a write error (EPIPE...). */
    bool flushTo(int fd);
    /*! Bytes not yet written. */
    qsizetype pending() const noexcept { return m_buf.size() - m_pos; }
    /*! Bytes the buffer holds, written ones before pending() included (for tests). */
    qsizetype buffered() const noexcept { return m_buf.size(); }
    void clear()
    {
        m_buf.clear();
        m_pos = 0;
    }

private:
    QByteArray m_buf;
    qsizetype m_pos = 0;
};

// ---- message payloads ----

/*! Error: varint code, varint argc, argc byte strings (UTF-8). */
QVFSPROTO_EXPORT QByteArray encodeError(int code, const QList<QByteArray> &args);
QVFSPROTO_EXPORT bool decodeError(QByteArrayView payload, int *code, QStringList *args);

/*! Hello: varint version, options. */
QVFSPROTO_EXPORT QByteArray encodeHello(const MetaData &info);
QVFSPROTO_EXPORT bool decodeHello(QByteArrayView payload, quint32 *version, MetaData *info);

/*! Sets O_NONBLOCK on \a fd. */
QVFSPROTO_EXPORT bool setNonBlocking(int fd);

} // namespace Qvfs::Internal

#endif
