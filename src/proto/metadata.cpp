// SPDX-License-Identifier: LGPL-2.1-or-later
#include "metadata.h"
#include "wire_p.h"

namespace Qvfs
{

const MetaData::Item *MetaData::find(QByteArrayView key) const noexcept
{
    for (const Item &i : m_items) {
        if (QByteArrayView(i.key) == key)
            return &i;
    }
    return nullptr;
}

MetaData::Item &MetaData::slot(QByteArrayView key)
{
    for (Item &i : m_items) {
        if (QByteArrayView(i.key) == key)
            return i;
    }
    Q_ASSERT(key.size() <= MaxKeyLength);
    m_items.append(Item { key.toByteArray(), {}, 0, false });
    return m_items.last();
}

bool MetaData::contains(QByteArrayView key) const noexcept
{
    return find(key) != nullptr;
}

bool MetaData::isNumber(QByteArrayView key) const noexcept
{
    const Item *i = find(key);
    return i && i->isNumber;
}

qint64 MetaData::number(QByteArrayView key, qint64 defaultValue) const noexcept
{
    const Item *i = find(key);
    return i && i->isNumber ? i->number : defaultValue;
}

QByteArray MetaData::bytes(QByteArrayView key) const
{
    const Item *i = find(key);
    return i && !i->isNumber ? i->bytes : QByteArray();
}

QString MetaData::string(QByteArrayView key) const
{
    return QString::fromUtf8(bytes(key));
}

void MetaData::setNumber(QByteArrayView key, qint64 value)
{
    Item &i = slot(key);
    i.isNumber = true;
    i.number = value;
    i.bytes.clear();
}

void MetaData::setBytes(QByteArrayView key, QByteArrayView value)
{
    Item &i = slot(key);
    i.isNumber = false;
    i.number = 0;
    i.bytes = value.toByteArray();
}

void MetaData::remove(QByteArrayView key)
{
    m_items.removeIf([key](const Item &i) { return QByteArrayView(i.key) == key; });
}

QList<QByteArray> MetaData::keys() const
{
    QList<QByteArray> out;
    out.reserve(m_items.size());
    for (const Item &i : m_items)
        out.append(i.key);
    return out;
}

void MetaData::merge(const MetaData &other)
{
    for (const Item &i : other.m_items) {
        if (i.isNumber)
            setNumber(i.key, i.number);
        else
            setBytes(i.key, i.bytes);
    }
}

void MetaData::encode(QByteArray &out) const
{
    Wire::appendVarint(out, quint64(m_items.size()));
    for (const Item &i : m_items) {
        Wire::appendBytes(out, i.key);
        if (i.isNumber) {
            out.append(char(0));
            Wire::appendVarint(out, Wire::zigzag(i.number));
        } else {
            out.append(char(1));
            Wire::appendBytes(out, i.bytes);
        }
    }
}

bool MetaData::decode(QByteArrayView data, qsizetype *consumed)
{
    m_items.clear();
    Wire::Reader r(data);
    const quint64 n = r.varint(MaxItems);
    for (quint64 k = 0; r.ok() && k < n; ++k) {
        const QByteArrayView key = r.bytes(MaxKeyLength);
        const quint8 type = r.byte();
        if (!r.ok() || key.isEmpty() || find(key))
            break;
        if (type == 0) {
            const qint64 v = r.svarint();
            if (r.ok())
                m_items.append(Item { key.toByteArray(), {}, v, true });
        } else if (type == 1) {
            const QByteArrayView v = r.bytes();
            if (r.ok())
                m_items.append(Item { key.toByteArray(), v.toByteArray(), 0, false });
        } else {
            r.fail();
        }
    }
    if (!r.ok() || m_items.size() != qsizetype(n)) {
        m_items.clear();
        return false;
    }
    if (consumed)
        *consumed = data.size() - r.remaining();
    return true;
}

bool MetaData::operator==(const MetaData &o) const
{
    return m_items == o.m_items;
}

} // namespace Qvfs
