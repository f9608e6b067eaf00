// SPDX-License-Identifier: LGPL-2.1-or-later
#include "s3xml_p.h"

#include <QDateTime>

namespace Qvfs::S3
{

XmlReader::XmlReader(Leaf leaf, End end)
    : m_leaf(std::move(leaf))
    , m_end(std::move(end))
{
    // (an S3 answer declares no entities, and none are expanded: no billion laughs)
    m_reader.setNamespaceProcessing(false);
}

bool XmlReader::addData(const QByteArray &chunk)
{
    if (m_stopped || m_done)
        return !m_stopped;
    m_reader.addData(chunk);
    while (!m_reader.atEnd()) {
        switch (m_reader.readNext()) {
        case QXmlStreamReader::StartElement:
            ++m_depth;
            m_text.resize(0); // keeps its capacity
            m_leafOpen = true;
            break;
        case QXmlStreamReader::Characters:
            if (m_leafOpen)
                m_text += m_reader.text();
            break;
        case QXmlStreamReader::EndElement: {
            const QStringView name = m_reader.name();
            if (m_leafOpen && m_leaf && !m_leaf(name, m_depth, m_text)) {
                m_stopped = true;
                return false;
            }
            m_leafOpen = false;
            if (m_end && !m_end(name, m_depth)) {
                m_stopped = true;
                return false;
            }
            --m_depth;
            break;
        }
        case QXmlStreamReader::EndDocument:
            m_done = true;
            return true;
        default:
            break;
        }
    }
    if (m_reader.hasError() && m_reader.error() != QXmlStreamReader::PrematureEndOfDocumentError)
        return false;
    return true;
}

bool XmlReader::atEnd() const
{
    return m_done;
}

QString XmlReader::errorString() const
{
    if (m_reader.hasError() && m_reader.error() != QXmlStreamReader::PrematureEndOfDocumentError)
        return m_reader.errorString();
    return m_done ? QString() : QStringLiteral("the document ended early");
}

std::optional<qint64> parseIsoTime(QStringView text)
{
    const QDateTime t = QDateTime::fromString(text.toString(), Qt::ISODateWithMs);
    if (!t.isValid())
        return std::nullopt;
    return t.toSecsSinceEpoch();
}

QByteArray decodeKey(QStringView text)
{
    // Spaces arrive as '+' (form encoding, as AWS sends them); a '+' of the key itself as %2B.
    QByteArray b = text.toLatin1();
    b.replace('+', ' ');
    return QByteArray::fromPercentEncoding(b);
}

QByteArray leafValue(const QByteArray &body, QStringView name)
{
    QByteArray value;
    bool found = false;
    XmlReader reader([&](QStringView n, int, QStringView text) {
        if (n != name)
            return true;
        value = text.toUtf8();
        found = true;
        return false;
    });
    reader.addData(body);
    return found ? value : QByteArray();
}

} // namespace Qvfs::S3
