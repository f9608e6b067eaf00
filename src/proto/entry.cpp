// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entry.h"
#include "entrycodec_p.h"

#include <QLoggingCategory>

#include <algorithm>

Q_LOGGING_CATEGORY(QVFS_PROTO, "qvfs.proto", QtWarningMsg)

namespace Qvfs
{

using Internal::EntryBatch;
using Internal::FieldValue;

Entry::Entry() noexcept = default;
Entry::Entry(const Entry &other) noexcept = default;
Entry::Entry(Entry &&other) noexcept = default;
Entry &Entry::operator=(const Entry &other) noexcept = default;
Entry &Entry::operator=(Entry &&other) noexcept = default;
Entry::~Entry() = default;

Entry::Entry(const EntryBatch *batch, quint32 index) noexcept
    : m_batch(batch)
    , m_index(index)
{ }

bool Entry::isEmpty() const noexcept
{
    return count() == 0;
}

int Entry::count() const noexcept
{
    return m_batch ? m_batch->keySetOf(m_index).count : 0;
}

bool Entry::contains(Field field) const noexcept
{
    return m_batch && m_batch->keySetOf(m_index).indexOf(field) >= 0;
}

QList<Field> Entry::fields() const
{
    QList<Field> out;
    if (!m_batch)
        return out;
    const Internal::KeySet &ks = m_batch->keySetOf(m_index);
    out.reserve(ks.count);
    for (int i = 0; i < ks.count; ++i)
        out.append(Field(ks.fields[size_t(i)]));
    return out;
}

qint64 Entry::number(Field field, qint64 defaultValue) const noexcept
{
    if (!m_batch || fieldType(field) != FieldType::Number)
        return defaultValue;
    const int slot = m_batch->keySetOf(m_index).indexOf(field);
    if (slot < 0)
        return defaultValue;
    const char *p = m_batch->valueAt(m_index, slot);
    Wire::Reader r(p, m_batch->payload.constData() + m_batch->payload.size());
    return r.svarint();
}

QByteArrayView Entry::bytes(Field field) const noexcept
{
    const FieldType t = fieldType(field);
    if (!m_batch || t == FieldType::Number)
        return {};
    const int slot = m_batch->keySetOf(m_index).indexOf(field);
    if (slot < 0)
        return {};
    return m_batch->stringAt(m_batch->valueAt(m_index, slot), t);
}

QString Entry::string(Field field) const
{
    const QByteArrayView b = bytes(field);
    return QString::fromUtf8(b.data(), b.size());
}

void Entry::detachWith(quint16 field, bool removeIt, bool isNumber, qint64 number, QByteArrayView str)
{
    std::vector<FieldValue> values = Internal::readFields(m_batch.data(), m_index);
    auto it = std::find_if(values.begin(), values.end(), [field](const FieldValue &v) { return v.field == field; });
    if (removeIt) {
        if (it == values.end())
            return;
        values.erase(it);
    } else {
        FieldValue v { field, isNumber ? number : 0, isNumber ? QByteArray() : str.toByteArray() };
        if (it != values.end())
            *it = std::move(v);
        else
            values.push_back(std::move(v));
    }
    if (values.empty()) {
        clear();
        return;
    }
    qsizetype bytes = 0;
    for (const FieldValue &v : values)
        bytes += v.str.size() + 12;
    const QExplicitlySharedDataPointer<EntryBatch> batch
        = bytes <= MaxEntryBytes ? Internal::makeBatch(values) : QExplicitlySharedDataPointer<EntryBatch>();
    if (!batch) {
        // Never a silently emptied entry: a caller that stored a megabyte in a name has a bug.
        Q_ASSERT_X(false, "Qvfs::Entry", "an entry larger than Entry::MaxEntryBytes");
        qCWarning(QVFS_PROTO) << "Entry: refusing to make an entry of" << bytes << "bytes (field" << field
                              << "); the entry is unchanged";
        return;
    }
    m_batch = QExplicitlySharedDataPointer<const EntryBatch>(batch.data());
    m_index = 0;
}

void Entry::setNumber(Field field, qint64 value)
{
    Q_ASSERT(fieldType(field) == FieldType::Number);
    if (fieldType(field) != FieldType::Number || !isValidField(field))
        return;
    detachWith(field, false, true, value, {});
}

void Entry::setString(Field field, QByteArrayView value)
{
    Q_ASSERT(fieldType(field) != FieldType::Number);
    if (fieldType(field) == FieldType::Number || !isValidField(field))
        return;
    detachWith(field, false, false, 0, value);
}

void Entry::remove(Field field)
{
    if (contains(field))
        detachWith(field, true, false, 0, {});
}

void Entry::clear() noexcept
{
    m_batch.reset();
    m_index = 0;
}

namespace
{

// Past the string value at \a p of type \a t: an atom reference is one varint, else
// (an atom given inline, or a string) length + bytes.
const char *pastString(const char *p, const char *end, FieldType t)
{
    Wire::Reader r(p, end);
    if (t == FieldType::Atom && r.varint() >= 2)
        return r.pos();
    Wire::Reader s(p, end);
    if (t == FieldType::Atom)
        s.varint();
    s.skipBytes();
    return s.pos();
}

} // namespace

bool Entry::operator==(const Entry &other) const
{
    if (m_batch == other.m_batch && m_index == other.m_index)
        return true;
    if (count() != other.count())
        return false;
    if (m_batch && other.m_batch) {
        // The usual case (a watch's upsert against the listed entry): the same fields in
        // the same order, compared value by value without building anything.
        const Internal::KeySet &a = m_batch->keySetOf(m_index);
        const Internal::KeySet &b = other.m_batch->keySetOf(other.m_index);
        if (std::equal(a.fields.begin(), a.fields.begin() + a.count, b.fields.begin())) {
            const char *pa = m_batch->valueAt(m_index, 0);
            const char *pb = other.m_batch->valueAt(other.m_index, 0);
            const char *ea = m_batch->payload.constData() + m_batch->payload.size();
            const char *eb = other.m_batch->payload.constData() + other.m_batch->payload.size();
            for (int i = 0; i < a.count; ++i) {
                const FieldType t = fieldType(a.fields[size_t(i)]);
                Wire::Reader ra(pa, ea), rb(pb, eb);
                if (t == FieldType::Number) {
                    if (ra.varint() != rb.varint())
                        return false;
                    pa = ra.pos();
                    pb = rb.pos();
                    continue;
                }
                if (m_batch->stringAt(pa, t) != other.m_batch->stringAt(pb, t))
                    return false;
                pa = pastString(pa, ea, t);
                pb = pastString(pb, eb, t);
            }
            return true;
        }
    }
    const std::vector<FieldValue> mine = Internal::readFields(m_batch.data(), m_index);
    for (const FieldValue &v : mine) {
        const Field f = Field(v.field);
        if (!other.contains(f))
            return false;
        if (fieldType(f) == FieldType::Number) {
            if (other.number(f) != v.number)
                return false;
        } else if (other.bytes(f) != QByteArrayView(v.str)) {
            return false;
        }
    }
    return true;
}

// ---------------------------------------------------------------- EntryList

EntryList::EntryList() noexcept = default;
EntryList::EntryList(const EntryList &other) = default;
EntryList::EntryList(EntryList &&other) noexcept = default;
EntryList &EntryList::operator=(const EntryList &other) = default;
EntryList &EntryList::operator=(EntryList &&other) noexcept = default;
EntryList::~EntryList() = default;

EntryList EntryList::fromBatch(const EntryBatch *batch)
{
    EntryList l;
    if (batch && !batch->offsets.isEmpty()) {
        l.m_segments.append(
            Segment { QExplicitlySharedDataPointer<const EntryBatch>(batch), 0, quint32(batch->offsets.size()), 0 });
        l.m_size = batch->offsets.size();
    }
    return l;
}

Entry EntryList::at(qsizetype i) const
{
    Q_ASSERT(i >= 0 && i < m_size);
    auto it = std::upper_bound(
        m_segments.cbegin(), m_segments.cend(), i, [](qsizetype v, const Segment &s) { return v < s.start; });
    --it;
    return Entry(it->batch.data(), it->first + quint32(i - it->start));
}

void EntryList::append(const Entry &entry)
{
    if (!m_segments.isEmpty()) {
        Segment &last = m_segments.last();
        if (last.batch.data() == entry.batch() && last.first + last.count == entry.index()) {
            ++last.count;
            ++m_size;
            return;
        }
    }
    m_segments.append(
        Segment { QExplicitlySharedDataPointer<const EntryBatch>(entry.batch()), entry.index(), 1, m_size });
    ++m_size;
}

void EntryList::append(const EntryList &other)
{
    m_segments.reserve(m_segments.size() + other.m_segments.size());
    for (const Segment &s : other.m_segments) {
        m_segments.append(Segment { s.batch, s.first, s.count, m_size });
        m_size += s.count;
    }
}

void EntryList::reserveSegments(qsizetype segments)
{
    m_segments.reserve(segments);
}

void EntryList::clear()
{
    m_segments.clear();
    m_size = 0;
}

Entry EntryList::const_iterator::operator*() const
{
    const Segment &s = m_list->m_segments.at(m_seg);
    return Entry(s.batch.data(), s.first + m_off);
}

EntryList::const_iterator &EntryList::const_iterator::operator++()
{
    if (++m_off >= m_list->m_segments.at(m_seg).count) {
        ++m_seg;
        m_off = 0;
    }
    return *this;
}

EntryList::const_iterator EntryList::begin() const
{
    const_iterator it;
    it.m_list = this;
    return it;
}

EntryList::const_iterator EntryList::end() const
{
    const_iterator it;
    it.m_list = this;
    it.m_seg = m_segments.size();
    return it;
}

} // namespace Qvfs
