// SPDX-License-Identifier: LGPL-2.1-or-later
#include "uploaddevice_p.h"

#include <QElapsedTimer>

#include <cstring>

namespace Qvfs::Http
{

UploadDevice::UploadDevice(const QByteArray &body, QObject *parent)
    : QIODevice(parent)
    , m_chunk(body)
    , m_size(body.size())
    , m_sourceEnded(true)
{
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
}

UploadDevice::UploadDevice(qint64 size, Pull pull, QObject *parent)
    : QIODevice(parent)
    , m_pull(std::move(pull))
    , m_size(size)
{
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
}

UploadDevice::~UploadDevice() = default;

bool UploadDevice::reset()
{
    m_resetRefused = true;
    return false;
}

qint64 UploadDevice::bytesAvailable() const
{
    // What is left to send: Qt's byte device wrapper asks before reading.
    return m_size - m_delivered;
}

bool UploadDevice::atEnd() const
{
    return m_delivered >= m_size || m_short;
}

qint64 UploadDevice::readData(char *data, qint64 maxlen)
{
    if (m_delivered >= m_size || m_short)
        return -1;
    while (m_pos >= m_chunk.size()) {
        QElapsedTimer waited;
        waited.start();
        const bool pulled = !m_sourceEnded && m_pull && m_pull(&m_chunk);
        if (waited.elapsed() >= SourceWaitMs)
            Q_EMIT waitedForSource();
        if (!pulled) {
            m_sourceEnded = true;
            m_chunk.clear();
            m_pos = 0;
            m_short = true;
            return -1;
        }
        m_pos = 0;
    }
    qint64 n = qMin<qint64>(maxlen, m_chunk.size() - m_pos);
    if (n > m_size - m_delivered) {
        n = m_size - m_delivered;
        m_long = true;
    }
    std::memcpy(data, m_chunk.constData() + m_pos, size_t(n));
    m_pos += n;
    m_delivered += n;
    if (m_pos >= m_chunk.size()) {
        m_chunk.clear();
        m_pos = 0;
    }
    return n;
}

qint64 UploadDevice::writeData(const char *, qint64)
{
    return -1;
}

bool UploadDevice::checkEnd()
{
    if (m_pos < m_chunk.size() && m_delivered >= m_size)
        m_long = true;
    if (!m_long && !m_short && !m_sourceEnded && m_pull) {
        QByteArray more;
        if (m_pull(&more) && !more.isEmpty())
            m_long = true;
        m_sourceEnded = true;
    }
    return !m_long && !m_short;
}

} // namespace Qvfs::Http
