// SPDX-License-Identifier: LGPL-2.1-or-later
// The encoder driven the way a worker drives it, by a script in the input: entries of
// arbitrary shapes (no field twice in one entry), numbers, strings and atoms of any
// bytes, flushes, new requests, and output buffers in the states a reused buffer can be
// in (fresh, reused, shared with a copy, with free space in front). Every payload must
// decode to exactly what was encoded. The worker's contract is kept: a payload is
// flushed before it uses MaxKeySets - 16 key sets.
//
// QVFS_FUZZ_NO_EMPTY_ENTRIES=1 in the environment: never end an entry without fields.
#include "entry.h"
#include "entrycodec_p.h"
#include "fuzz_common.h"

#include <vector>

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

const quint16 fieldIds[] = { Type, Mode, Size, MTime, MTimeNs, Uid, Gid, NLink, Inode, ExtraNumber, ExtraNumber + 63,
    Name, LinkTarget, DisplayName, ExtraString, ExtraString + 63, User, Group, MimeType, ExtraAtom, ExtraAtom + 63 };
constexpr int fieldIdCount = int(sizeof fieldIds / sizeof fieldIds[0]);

const char *const dictionary[] = { "", "root", "bob", "users", "text/plain", "file000001", "\xff\xfe", "a" };

class Script
{
public:
    Script(const uint8_t *data, size_t size)
        : m_p(data)
        , m_end(data + size)
    { }
    bool atEnd() const { return m_p == m_end; }
    uint8_t byte() { return m_p == m_end ? 0 : *m_p++; }
    qint64 number()
    {
        const int n = byte() % 10;
        quint64 v = 0;
        for (int i = 0; i < n; ++i)
            v = (v << 8) | byte();
        if (n == 9)
            v = ~v; // reach the top bits too
        return qint64(v);
    }
    QByteArray bytes()
    {
        const uint8_t sel = byte();
        if (sel < 0xc0)
            return QByteArray(dictionary[sel % (sizeof dictionary / sizeof dictionary[0])]);
        const qsizetype n = std::min<qsizetype>(qsizetype(sel - 0xc0) * 5, m_end - m_p);
        QByteArray b(reinterpret_cast<const char *>(m_p), n);
        m_p += n;
        return b;
    }

private:
    const uint8_t *m_p;
    const uint8_t *m_end;
};

bool sameNonEmpty(const std::vector<std::vector<FieldValue>> &expected, const EntryBatch *batch)
{
    std::vector<const std::vector<FieldValue> *> want;
    for (const auto &v : expected) {
        if (!v.empty())
            want.push_back(&v);
    }
    size_t w = 0;
    for (qsizetype i = 0; i < batch->offsets.size(); ++i) {
        const Entry e(batch, quint32(i));
        if (e.isEmpty())
            continue; // an empty entry may be kept or dropped
        if (w >= want.size())
            return false;
        const std::vector<FieldValue> &exp = *want[w++];
        if (e.count() != int(exp.size()))
            return false;
        const std::vector<FieldValue> got = readFields(batch, quint32(i));
        for (size_t k = 0; k < exp.size(); ++k) {
            if (got[k].field != exp[k].field)
                return false;
            if (fieldType(exp[k].field) == FieldType::Number) {
                if (got[k].number != exp[k].number || e.number(Field(exp[k].field)) != exp[k].number)
                    return false;
            } else if (got[k].str != exp[k].str || e.bytes(Field(exp[k].field)) != QByteArrayView(exp[k].str)) {
                return false;
            }
        }
    }
    return w == want.size();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const bool noEmpty = qEnvironmentVariableIntValue("QVFS_FUZZ_NO_EMPTY_ENTRIES") != 0;
    Script s(data, size);
    EntryEncoder enc;
    EntryDecoder dec;
    QByteArray buffer;
    QByteArray holder; // a copy that shares the buffer
    qsizetype start = 0;
    std::vector<std::vector<FieldValue>> expected;
    std::vector<QExplicitlySharedDataPointer<EntryBatch>> batches;
    std::vector<std::vector<std::vector<FieldValue>>> batchValues;

    auto beginPayload = [&](uint8_t how) {
        switch (how % 4) {
        case 0: // fresh
            buffer = QByteArray();
            break;
        case 1: // reused
            buffer.resize(0);
            break;
        case 2: { // free space in front: a sent prefix removed
            buffer.resize(0);
            buffer.append(QByteArray(64 + how, 'p'));
            buffer.remove(0, 60);
            break;
        }
        case 3: // shared with a copy that is kept
            holder = buffer;
            break;
        }
        start = buffer.size();
        enc.beginPayload(buffer, quint32(how));
        expected.clear();
    };
    auto flush = [&] {
        const QByteArray payload(buffer.constData() + start, buffer.size() - start);
        QByteArray error;
        QExplicitlySharedDataPointer<EntryBatch> b = dec.decode(payload, &error);
        if (!b)
            QvfsFuzz::fail(error.constData());
        QVFS_FUZZ_CHECK(sameNonEmpty(expected, b.data()));
        std::vector<std::vector<FieldValue>> values;
        for (qsizetype i = 0; i < b->offsets.size(); ++i)
            values.push_back(readFields(b.data(), quint32(i)));
        batches.push_back(b);
        batchValues.push_back(std::move(values));
    };

    beginPayload(s.byte());
    while (!s.atEnd()) {
        const uint8_t op = s.byte();
        if (op >= 0xf0) {
            flush();
            if (op >= 0xf8) { // a new request
                enc.resetAtoms();
                dec.resetAtoms();
            }
            beginPayload(s.byte());
            continue;
        }
        int n = op % 13;
        if (n == 0 && noEmpty)
            n = 1;
        enc.begin(buffer);
        std::vector<FieldValue> entry;
        bool used[fieldIdCount] = {};
        for (int k = 0; k < n; ++k) {
            const int sel = s.byte() % fieldIdCount;
            if (used[sel])
                continue; // a field appears once per entry
            used[sel] = true;
            const quint16 f = fieldIds[sel];
            FieldValue v { f, 0, {} };
            if (fieldType(f) == FieldType::Number)
                v.number = s.number();
            else
                v.str = s.bytes();
            enc.add(f, v.number, v.str);
            entry.push_back(std::move(v));
        }
        QVFS_FUZZ_CHECK(enc.fieldCount() == int(entry.size()));
        if (entry.empty() && noEmpty) {
            enc.addNumber(Size, 0);
            entry.push_back(FieldValue { Size, 0, {} });
        }
        QVFS_FUZZ_CHECK(enc.end()); // flushed below long before every key set is used
        if (!entry.empty()) // an entry without fields is not sent
            expected.push_back(std::move(entry));
        if (enc.keySetsInPayload() >= MaxKeySets - 16 || buffer.size() - start > 256 * 1024) {
            flush();
            beginPayload(s.byte());
        }
    }
    flush();
    // earlier batches are intact
    for (size_t b = 0; b < batches.size(); ++b) {
        for (size_t i = 0; i < batchValues[b].size(); ++i) {
            const std::vector<FieldValue> now = readFields(batches[b].data(), quint32(i));
            const std::vector<FieldValue> &then = batchValues[b][i];
            QVFS_FUZZ_CHECK(now.size() == then.size());
            for (size_t k = 0; k < now.size(); ++k)
                QVFS_FUZZ_CHECK(
                    now[k].field == then[k].field && now[k].number == then[k].number && now[k].str == then[k].str);
        }
    }
    return 0;
}
