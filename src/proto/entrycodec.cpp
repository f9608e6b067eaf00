// SPDX-License-Identifier: LGPL-2.1-or-later
#include "entrycodec_p.h"

#include <algorithm>
#include <cstring>

namespace Qvfs::Internal
{

using Wire::Reader;

// ---------------------------------------------------------------- EntryBatch

static const char *skipValue(const char *p, FieldType t) noexcept
{
    // The payload was validated when it was decoded: no bounds checks here.
    auto skipVarint = [](const char *q) {
        while (quint8(*q) & 0x80)
            ++q;
        return q + 1;
    };
    auto readVarint = [](const char *&q) {
        quint64 v = 0;
        int shift = 0;
        while (quint8(*q) & 0x80) {
            v |= quint64(quint8(*q++) & 0x7f) << shift;
            shift += 7;
        }
        v |= quint64(quint8(*q++)) << shift;
        return v;
    };
    switch (t) {
    case FieldType::Number:
        return skipVarint(p);
    case FieldType::String: {
        const quint64 n = readVarint(p);
        return p + n;
    }
    case FieldType::Atom: {
        const quint64 v = readVarint(p);
        if (v >= 2)
            return p;
        const quint64 n = readVarint(p);
        return p + n;
    }
    }
    return p;
}

const char *EntryBatch::valueAt(quint32 index, int slot) const noexcept
{
    const char *p = payload.constData() + offsets[index];
    const KeySet &ks = keySets->sets[quint8(*p)];
    ++p;
    for (int i = 0; i < slot; ++i)
        p = skipValue(p, fieldType(ks.fields[size_t(i)]));
    return p;
}

QByteArrayView EntryBatch::stringAt(const char *p, FieldType t) const noexcept
{
    Reader r(p, payload.constData() + payload.size());
    if (t == FieldType::Atom) {
        const quint64 v = r.varint();
        if (v >= 2) {
            const QByteArray &a = atoms->atoms.at(qsizetype(v - 2));
            return QByteArrayView(a.constData(), a.size());
        }
    }
    return r.bytes();
}

// ---------------------------------------------------------------- EntryDecoder

EntryDecoder::EntryDecoder()
    : m_keySets(new KeySetTable)
    , m_atoms(new AtomTable)
{ }

void EntryDecoder::resetAtoms()
{
    if (!m_atoms->atoms.isEmpty())
        m_atoms = new AtomTable;
}

QExplicitlySharedDataPointer<EntryBatch> EntryDecoder::decode(const QByteArray &payload, QByteArray *error)
{
    Reader r(QByteArrayView(payload.constData(), payload.size()));
    const quint64 hint = r.varint();
    if (!r.ok()) {
        *error = QByteArrayLiteral("truncated entry batch");
        return {};
    }
    // Never trust a peer's count: an entry takes at least two bytes (tag and one value).
    const qsizetype reserveCount = qsizetype(std::min<quint64>(hint, quint64(r.remaining() / 2)));

    QExplicitlySharedDataPointer<EntryBatch> batch(new EntryBatch);
    batch->offsets.reserve(reserveCount);
    std::array<bool, 256> used {}; // key set ids referenced by this batch
    const char *base = payload.constData();
    while (!r.atEnd()) {
        const quint8 tag = r.byte();
        if (tag == 0) {
            const quint8 id = r.byte();
            const quint64 n = r.varint();
            if (!r.ok() || id == 0 || id > MaxKeySets || n == 0 || n > MaxFields) {
                *error = QByteArrayLiteral("bad key set definition");
                return {};
            }
            KeySet ks;
            ks.count = quint8(n);
            for (quint64 i = 0; i < n; ++i) {
                const quint64 f = r.varint();
                if (!r.ok() || f > 0xffff || !isValidField(quint16(f)) || ks.indexOf(quint16(f)) >= 0) {
                    *error = QByteArrayLiteral("bad field id in key set");
                    return {};
                }
                ks.fields[size_t(i)] = quint16(f);
            }
            if (used[id]) {
                *error = QByteArrayLiteral("key set redefined within a batch");
                return {};
            }
            m_keySets.detach(); // earlier batches keep the table they were decoded with
            if (m_keySets->sets.size() <= id)
                m_keySets->sets.resize(size_t(id) + 1);
            m_keySets->sets[id] = ks;
            continue;
        }
        const KeySet *ks = m_keySets->get(tag);
        if (!ks) {
            *error = QByteArrayLiteral("entry refers to an unknown key set");
            return {};
        }
        used[tag] = true;
        const quint32 offset = quint32(r.pos() - 1 - base);
        for (int i = 0; i < ks->count; ++i) {
            switch (fieldType(ks->fields[size_t(i)])) {
            case FieldType::Number:
                r.varint();
                break;
            case FieldType::String:
                r.skipBytes();
                break;
            case FieldType::Atom: {
                const quint64 v = r.varint();
                if (v == 0) {
                    r.skipBytes();
                } else if (v == 1) {
                    const QByteArrayView a = r.bytes();
                    if (!r.ok())
                        break;
                    if (m_atoms->atoms.size() >= MaxAtoms || m_atoms->bytes + a.size() > MaxAtomBytes) {
                        *error = QByteArrayLiteral("too many atoms");
                        return {};
                    }
                    m_atoms->atoms.append(a.toByteArray());
                    m_atoms->bytes += a.size();
                } else if (v - 2 >= quint64(m_atoms->atoms.size())) {
                    *error = QByteArrayLiteral("entry refers to an unknown atom");
                    return {};
                }
                break;
            }
            }
        }
        if (!r.ok()) {
            *error = QByteArrayLiteral("truncated entry");
            return {};
        }
        batch->offsets.append(offset);
    }
    batch->payload = payload;
    batch->keySets = m_keySets;
    batch->atoms = m_atoms;
    return batch;
}

// ---------------------------------------------------------------- EntryEncoder

EntryEncoder::EntryEncoder()
{
    m_sets.resize(MaxKeySets + 1);
}

void EntryEncoder::resetAtoms()
{
    m_atomValues.clear();
    m_atomIndex.clear();
    m_recent.fill(-1);
    m_atomBytes = 0;
}

void EntryEncoder::beginPayload(QByteArray &out, quint32 countHint)
{
    Wire::appendVarint(out, countHint);
    m_used.fill(false);
    m_usedCount = 0;
}

// While an entry is built, the output array is extended by a slack area and written
// through a raw cursor; end() trims it back. Two resize calls per entry instead of one
// per field.
void EntryEncoder::reserve(qsizetype extra)
{
    if (m_pos + extra <= m_limit)
        return;
    qsizetype want = std::max(m_pos + extra + 256, m_out->capacity());
    if (want > m_out->capacity())
        want = std::max(want, m_out->capacity() * 2); // geometric: a reused buffer stops growing
    m_out->reserve(want);
    m_out->resize(want);
    m_data = m_out->data();
    m_limit = want;
}

void EntryEncoder::begin(QByteArray &out)
{
    m_out = &out;
    m_start = out.size();
    m_pos = m_start;
    m_limit = m_start;
    m_count = 0;
    reserve(320);
    m_data[m_pos++] = 0; // the key set id, known at end()
}

void EntryEncoder::putVarint(quint64 v)
{
    m_pos = Wire::putVarint(m_data + m_pos, v) - m_data;
}

void EntryEncoder::putBytes(QByteArrayView value)
{
    reserve(10 + value.size());
    putVarint(quint64(value.size()));
    std::memcpy(m_data + m_pos, value.data(), size_t(value.size()));
    m_pos += value.size();
}

void EntryEncoder::addString(quint16 field, QByteArrayView value)
{
    Q_ASSERT(fieldType(field) == FieldType::String);
    Q_ASSERT(m_count < MaxFields);
    m_fields[size_t(m_count++)] = field;
    putBytes(value);
}

void EntryEncoder::addAtom(quint16 field, QByteArrayView value)
{
    Q_ASSERT(fieldType(field) == FieldType::Atom);
    Q_ASSERT(m_count < MaxFields);
    m_fields[size_t(m_count++)] = field;
    reserve(20 + value.size());
    // Sizes first, then the bytes: owner and group names repeat entry after entry, and
    // QByteArrayView's == goes through an out-of-line comparison for each candidate.
    const size_t size = size_t(value.size());
    for (int idx : m_recent) {
        if (idx < 0)
            continue;
        const QByteArray &known = m_atomValues.at(idx);
        if (size_t(known.size()) == size && (size == 0 || std::memcmp(known.constData(), value.data(), size) == 0)) {
            putVarint(quint64(idx) + 2);
            return;
        }
    }
    const auto it = m_atomIndex.constFind(QByteArray::fromRawData(value.data(), value.size()));
    int idx = -1;
    if (it != m_atomIndex.constEnd()) {
        idx = it.value();
        putVarint(quint64(idx) + 2);
    } else if (m_atomValues.size() < MaxEncoderAtoms && m_atomBytes + value.size() <= MaxAtomBytes / 2) {
        idx = int(m_atomValues.size());
        m_atomValues.append(value.toByteArray());
        m_atomIndex.insert(m_atomValues.last(), idx);
        m_atomBytes += value.size();
        putVarint(1);
        putBytes(value);
    } else {
        putVarint(0);
        putBytes(value);
        return;
    }
    m_recent[size_t(m_recentNext)] = idx;
    m_recentNext = (m_recentNext + 1) % int(m_recent.size());
}

void EntryEncoder::add(quint16 field, qint64 number, QByteArrayView str)
{
    switch (fieldType(field)) {
    case FieldType::Number:
        addNumber(field, number);
        break;
    case FieldType::String:
        addString(field, str);
        break;
    case FieldType::Atom:
        addAtom(field, str);
        break;
    }
}

bool EntryEncoder::end()
{
    Q_ASSERT(m_out);
    if (m_count == 0) {
        // An entry without fields is not sent (a key set has at least one field).
        m_out->resize(m_start);
        m_out = nullptr;
        return true;
    }
    auto same = [this](const KeySet &ks) {
        return ks.count == m_count && std::equal(m_fields.begin(), m_fields.begin() + m_count, ks.fields.begin());
    };
    quint8 id = 0;
    if (m_last && same(m_sets[m_last])) {
        id = m_last;
    } else {
        for (int i = 1; i <= MaxKeySets; ++i) {
            if (m_sets[size_t(i)].count == 0)
                break;
            if (same(m_sets[size_t(i)])) {
                id = quint8(i);
                break;
            }
        }
        if (!id) {
            // A new shape: define it in front of the entry. When the table is full the
            // oldest definition is replaced (the receiver keeps old batches intact).
            for (int i = 1; i <= MaxKeySets; ++i) {
                if (m_sets[size_t(i)].count == 0) {
                    id = quint8(i);
                    break;
                }
            }
            for (int tries = 0; !id && tries < MaxKeySets; ++tries) {
                // Never replace one this payload already uses (see the decoder).
                if (!m_used[m_nextEvict])
                    id = m_nextEvict;
                m_nextEvict = quint8(m_nextEvict % MaxKeySets + 1);
            }
            if (!id) {
                // Every key set is used by this payload: the caller must flush first.
                m_out->resize(m_start);
                m_out = nullptr;
                return false;
            }
            KeySet &ks = m_sets[id];
            ks.count = quint8(m_count);
            std::copy(m_fields.begin(), m_fields.begin() + m_count, ks.fields.begin());
            char def[2 + 10 + 3 * MaxFields];
            char *p = def;
            *p++ = 0;
            *p++ = char(id);
            p = Wire::putVarint(p, quint64(m_count));
            for (int i = 0; i < m_count; ++i)
                p = Wire::putVarint(p, m_fields[size_t(i)]);
            const qsizetype defLen = p - def;
            reserve(defLen);
            std::memmove(m_data + m_start + defLen, m_data + m_start, size_t(m_pos - m_start));
            std::memcpy(m_data + m_start, def, size_t(defLen));
            m_start += defLen;
            m_pos += defLen;
        }
    }
    m_last = id;
    if (!m_used[id]) {
        m_used[id] = true;
        ++m_usedCount;
    }
    m_data[m_start] = char(id);
    m_out->resize(m_pos); // trims the slack; keeps the capacity
    m_out = nullptr;
    return true;
}

// ---------------------------------------------------------------- single entries

QExplicitlySharedDataPointer<EntryBatch> makeBatch(const std::vector<FieldValue> &fields)
{
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 1);
    enc.begin(payload);
    for (const FieldValue &f : fields) {
        if (fieldType(f.field) == FieldType::Atom) {
            // A private batch has no shared atom table: store the value inline.
            enc.addAtom(f.field, f.str); // first use of a value defines it: fine either way
        } else {
            enc.add(f.field, f.number, f.str);
        }
    }
    if (!enc.end() || fields.empty())
        return {};
    EntryDecoder dec;
    QByteArray error;
    QExplicitlySharedDataPointer<EntryBatch> b = dec.decode(payload, &error);
    Q_ASSERT(b);
    return b;
}

std::vector<FieldValue> readFields(const EntryBatch *batch, quint32 index)
{
    std::vector<FieldValue> out;
    if (!batch)
        return out;
    const KeySet &ks = batch->keySetOf(index);
    out.reserve(ks.count);
    const char *p = batch->payload.constData() + batch->offsets[index] + 1;
    for (int i = 0; i < ks.count; ++i) {
        const quint16 f = ks.fields[size_t(i)];
        const FieldType t = fieldType(f);
        FieldValue v { f, 0, {} };
        if (t == FieldType::Number) {
            Reader r(p, batch->payload.constData() + batch->payload.size());
            v.number = r.svarint();
        } else {
            v.str = batch->stringAt(p, t).toByteArray();
        }
        out.push_back(std::move(v));
        p = skipValue(p, t);
    }
    return out;
}

} // namespace Qvfs::Internal
