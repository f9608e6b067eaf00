// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_p.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace Qvfs::Internal
{

static constexpr qsizetype ReadChunk = 256 * 1024;

FrameReader::FrameReader() = default;

void FrameReader::makeRoom(qsizetype need)
{
    if (m_pos > 0 && m_buf.size() - m_end < need) {
        // Compact: move the unread tail to the front.
        std::memmove(m_buf.data(), m_buf.constData() + m_pos, size_t(m_end - m_pos));
        m_end -= m_pos;
        m_pos = 0;
    }
    if (m_buf.size() - m_end < need)
        m_buf.resize(m_end + need);
}

FrameReader::ReadResult FrameReader::readFrom(int fd)
{
    makeRoom(ReadChunk);
    for (;;) {
        const ssize_t n = ::read(fd, m_buf.data() + m_end, size_t(m_buf.size() - m_end));
        if (n > 0) {
            m_end += n;
            return ReadSome;
        }
        if (n == 0)
            return Eof;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return WouldBlock;
        return Failed;
    }
}

void FrameReader::feed(QByteArrayView bytes)
{
    makeRoom(bytes.size());
    std::memcpy(m_buf.data() + m_end, bytes.data(), size_t(bytes.size()));
    m_end += bytes.size();
}

FrameReader::NextResult FrameReader::next(Wire::Header *header, QByteArray *payload)
{
    if (m_end - m_pos < Wire::HeaderSize)
        return NeedMore;
    const Wire::Header h = Wire::getHeader(m_buf.constData() + m_pos);
    if (h.length > Wire::MaxPayload)
        return Bad;
    if (m_end - m_pos < Wire::HeaderSize + qsizetype(h.length)) {
        // Make sure the whole frame fits once it arrives (bounded by MaxPayload).
        makeRoom(Wire::HeaderSize + qsizetype(h.length) - (m_end - m_pos));
        return NeedMore;
    }
    *header = h;
    *payload = QByteArray(m_buf.constData() + m_pos + Wire::HeaderSize, qsizetype(h.length));
    m_pos += Wire::HeaderSize + qsizetype(h.length);
    if (m_pos == m_end)
        m_pos = m_end = 0;
    return Got;
}

void FrameWriter::appendHeader(Wire::Msg type, quint32 requestId, quint32 length)
{
    if (m_pos > 0 && m_pos == m_buf.size()) {
        m_buf.resize(0); // keeps capacity
        m_pos = 0;
    } else if (m_pos >= 256 * 1024 && m_pos >= m_buf.size() - m_pos) {
        // A peer that reads slowly but steadily never lets the buffer drain: drop what was
        // written (moving at most as many bytes as were dropped), or the buffer would
        // grow by everything ever sent.
        m_buf.remove(0, m_pos);
        m_pos = 0;
    }
    char h[Wire::HeaderSize];
    Wire::putHeader(h, Wire::Header { length, quint16(type), 0, requestId });
    m_buf.append(h, Wire::HeaderSize);
}

void FrameWriter::append(Wire::Msg type, quint32 requestId, QByteArrayView payload)
{
    appendHeader(type, requestId, quint32(payload.size()));
    m_buf.append(payload.data(), payload.size());
}

bool FrameWriter::flushTo(int fd)
{
    while (m_pos < m_buf.size()) {
        const ssize_t n = ::send(fd, m_buf.constData() + m_pos, size_t(m_buf.size() - m_pos), MSG_NOSIGNAL);
        if (n > 0) {
            m_pos += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN)) {
            // A stream that never drains completely (a long get to a reader that keeps
            // up just barely) must not keep every byte already written: drop the written
            // part once it is at least as large as what is left (amortised O(1)).
            if (m_pos >= 256 * 1024 && m_pos >= m_buf.size() - m_pos) {
                m_buf.remove(0, m_pos);
                m_pos = 0;
            }
            return true;
        }
        return false;
    }
    m_buf.resize(0);
    m_pos = 0;
    return true;
}

QByteArray encodeError(int code, const QList<QByteArray> &args)
{
    QByteArray out;
    Wire::appendVarint(out, quint64(code));
    Wire::appendVarint(out, quint64(args.size()));
    for (const QByteArray &a : args)
        Wire::appendBytes(out, a);
    return out;
}

bool decodeError(QByteArrayView payload, int *code, QStringList *args)
{
    Wire::Reader r(payload);
    *code = int(r.varint(1u << 20));
    const quint64 n = r.varint(16);
    args->clear();
    for (quint64 i = 0; i < n && r.ok(); ++i) {
        const QByteArrayView a = r.bytes(64 * 1024);
        if (r.ok())
            args->append(QString::fromUtf8(a.data(), a.size()));
    }
    return r.ok() && r.atEnd() && *code != 0;
}

QByteArray encodeHello(const MetaData &info)
{
    QByteArray out;
    Wire::appendVarint(out, Wire::ProtocolVersion);
    info.encode(out);
    return out;
}

bool decodeHello(QByteArrayView payload, quint32 *version, MetaData *info)
{
    Wire::Reader r(payload);
    *version = quint32(r.varint(0xffffffffu));
    if (!r.ok())
        return false;
    qsizetype used = 0;
    return info->decode(QByteArrayView(r.pos(), r.remaining()), &used) && used == r.remaining();
}

bool setNonBlocking(int fd)
{
    const int fl = ::fcntl(fd, F_GETFL);
    return fl >= 0 && ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

} // namespace Qvfs::Internal
