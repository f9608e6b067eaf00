// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ENTRYCODEC_P_H
#define QVFS_ENTRYCODEC_P_H

// The listing batch: its storage in the application and its encoding on the wire.
//
// Payload of a Msg::Entries frame:
//   varint  entry count hint (clamped by the receiver to what the payload can hold)
//   records, each starting with a tag byte:
//     0         key set definition: u8 id (1..MaxKeySets), varint n (1..MaxFields),
//               n varint field ids (valid, no duplicates). Redefining an id replaces it
//               for later records (earlier batches keep the old one).
//     1..254    an entry whose key set is the tag; then one value per field, in order:
//               Number: zigzag varint
//               String: varint length + bytes
//               Atom:   varint v: 0 = inline (length + bytes, not interned)
//                                 1 = new atom (length + bytes), appended to the
//                                     request's atom table
//                                 v >= 2: atom number v - 2 of the table
//
// The application keeps the payload as it came and an offset per entry: decoding is one
// validating pass, and getters walk the few values of one entry.

#include "entry.h"
#include "qvfsproto_export.h"
#include "wire_p.h"

#include <QHash>
#include <QList>
#include <QSharedData>

#include <array>
#include <vector>

namespace Qvfs::Internal
{

constexpr int MaxKeySets = 254;
constexpr int MaxFields = 64;
constexpr int MaxAtoms = 65536;
constexpr qsizetype MaxAtomBytes = 8 * 1024 * 1024;
constexpr int MaxEncoderAtoms = 4096; // beyond this the encoder sends values inline

struct KeySet
{
    quint8 count = 0;
    std::array<quint16, MaxFields> fields {};
    int indexOf(quint16 f) const noexcept
    {
        for (int i = 0; i < count; ++i) {
            if (fields[size_t(i)] == f)
                return i;
        }
        return -1;
    }
};

/*! The key sets of one connection, indexed by id. Copy-on-write when redefined. */
class KeySetTable : public QSharedData
{
public:
    std::vector<KeySet> sets; // index = id; count 0 = undefined
    const KeySet *get(quint8 id) const noexcept { return id < sets.size() && sets[id].count ? &sets[id] : nullptr; }
};

/*! The interned strings of one request. Append-only. */
class AtomTable : public QSharedData
{
public:
    QList<QByteArray> atoms;
    qsizetype bytes = 0;
};

/*! One batch of entries as received: the payload bytes and an offset per entry. */
class QVFSPROTO_EXPORT EntryBatch : public QSharedData
{
public:
    QByteArray payload;
    QList<quint32> offsets; // position of each entry's tag byte in payload
    QExplicitlySharedDataPointer<KeySetTable> keySets;
    QExplicitlySharedDataPointer<AtomTable> atoms;

    const KeySet &keySetOf(quint32 index) const noexcept
    {
        return keySets->sets[quint8(payload.constData()[offsets[index]])];
    }
    /*! Position of the value of field \a slot of entry \a index. */
    const char *valueAt(quint32 index, int slot) const noexcept;
    /*! The bytes of string/atom value at \a p of a field of type \a t. */
    QByteArrayView stringAt(const char *p, FieldType t) const noexcept;
};

/*! Receives Entries payloads on one connection. */
class QVFSPROTO_EXPORT EntryDecoder
{
public:
    EntryDecoder();
    /*! Starts a new request: a fresh atom table. */
    void resetAtoms();
    /*!
     * Validates \a payload and makes a batch of it (it shares \a payload's bytes: no copy).
     * On malformed input returns null and
     * sets \a error to a short technical description.
     */
    QExplicitlySharedDataPointer<EntryBatch> decode(const QByteArray &payload, QByteArray *error);

private:
    QExplicitlySharedDataPointer<KeySetTable> m_keySets;
    QExplicitlySharedDataPointer<AtomTable> m_atoms;
};

/*!
 * Writes entries into a caller's buffer (a worker's outgoing frame). Key sets are
 * assigned per connection; atoms per request. Allocation-free once warmed up.
 */
class QVFSPROTO_EXPORT EntryEncoder
{
public:
    EntryEncoder();
    /*! Starts a new request: forgets the atoms (the receiver does the same). */
    void resetAtoms();
    /*! Writes the count hint that starts a payload. */
    void beginPayload(QByteArray &out, quint32 countHint);
    /*!
     * Key sets used since beginPayload(). A caller flushes before this nears
     * MaxKeySets, so a definition never has to replace one the payload uses.
     */
    int keySetsInPayload() const noexcept { return m_usedCount; }
    /*! Starts an entry appended to \a out. */
    void begin(QByteArray &out);
    /*! Inline: a listing adds about ten numbers per entry, each through two libraries. */
    void addNumber(quint16 field, qint64 value)
    {
        Q_ASSERT(fieldType(field) == FieldType::Number);
        Q_ASSERT(m_count < MaxFields);
        m_fields[size_t(m_count++)] = field;
        if (m_pos + 10 > m_limit)
            reserve(10);
        m_pos = Wire::putVarint(m_data + m_pos, Wire::zigzag(value)) - m_data;
    }
    void addString(quint16 field, QByteArrayView value);
    void addAtom(quint16 field, QByteArrayView value);
    /*! Adds \a value as what \a field's type says. */
    void add(quint16 field, qint64 number, QByteArrayView str);
    /*!
     * Finishes the entry (may insert a key set definition before it). An entry without
     * fields is dropped. Returns false, dropping the entry, when it has a new shape and
     * every key set is already used by this payload: flush the payload and encode the
     * entry again (callers that flush before keySetsInPayload() nears MaxKeySets never
     * see this).
     */
    [[nodiscard]] bool end();
    /*! Fields of the entry being built so far. */
    int fieldCount() const noexcept { return m_count; }

private:
    void reserve(qsizetype extra);
    void putVarint(quint64 v);
    void putBytes(QByteArrayView value);
    QByteArray *m_out = nullptr;
    char *m_data = nullptr; // m_out's bytes while an entry is built
    qsizetype m_start = 0; // the entry's tag byte
    qsizetype m_pos = 0; // write position
    qsizetype m_limit = 0; // end of the writable area
    int m_count = 0;
    std::array<quint16, MaxFields> m_fields {};
    std::vector<KeySet> m_sets; // index = id
    quint8 m_last = 0;
    quint8 m_nextEvict = 1;
    std::array<bool, 256> m_used {};
    int m_usedCount = 0;
    // atoms: a few recent values checked first, then a hash
    QList<QByteArray> m_atomValues;
    QHash<QByteArray, int> m_atomIndex;
    std::array<int, 4> m_recent { { -1, -1, -1, -1 } };
    int m_recentNext = 0;
    qsizetype m_atomBytes = 0;
};

/*! Encodes one entry made of \a fields (field, number, bytes) into a private batch. */
struct FieldValue
{
    quint16 field;
    qint64 number;
    QByteArray str;
};
QVFSPROTO_EXPORT QExplicitlySharedDataPointer<EntryBatch> makeBatch(const std::vector<FieldValue> &fields);
/*! Reads every field of entry \a index of \a batch. */
QVFSPROTO_EXPORT std::vector<FieldValue> readFields(const EntryBatch *batch, quint32 index);

} // namespace Qvfs::Internal

#endif
