// SPDX-License-Identifier: LGPL-2.1-or-later
// Listing batches from a hostile worker: each piece of the input is one Entries payload
// on one connection (the decoder keeps key sets and atoms between payloads; a piece's
// flag starts a new request first). Every field of every entry is read through the
// Entry getters and readFields(); batches decoded earlier must read the same after later
// payloads redefined key sets.
#include "entry.h"
#include "entrycodec_p.h"
#include "fuzz_common.h"

#include <vector>

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

struct Kept
{
    QExplicitlySharedDataPointer<EntryBatch> batch;
    std::vector<std::vector<FieldValue>> values;
};

bool same(const std::vector<FieldValue> &a, const std::vector<FieldValue> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].field != b[i].field || a[i].number != b[i].number || a[i].str != b[i].str)
            return false;
    }
    return true;
}

std::vector<FieldValue> readEverything(const Entry &e)
{
    std::vector<FieldValue> out;
    const QList<Field> fields = e.fields();
    QVFS_FUZZ_CHECK(fields.size() == e.count());
    QVFS_FUZZ_CHECK(e.isEmpty() == fields.isEmpty());
    for (Field f : fields) {
        QVFS_FUZZ_CHECK(isValidField(f));
        QVFS_FUZZ_CHECK(e.contains(f));
        FieldValue v { quint16(f), 0, {} };
        if (fieldType(f) == FieldType::Number) {
            v.number = e.number(f);
            QVFS_FUZZ_CHECK(e.bytes(f).isNull());
        } else {
            const QByteArrayView b = e.bytes(f);
            QVFS_FUZZ_CHECK(!b.isNull());
            v.str = b.toByteArray();
            (void)e.string(f);
        }
        out.push_back(std::move(v));
    }
    (void)e.name();
    (void)e.type();
    (void)e.size();
    (void)e.isDir();
    (void)e.isLink();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    EntryDecoder dec;
    std::vector<Kept> kept;
    QvfsFuzz::Pieces pieces(data, size);
    QByteArrayView piece;
    bool newRequest = false;
    while (pieces.next(&piece, &newRequest)) {
        if (newRequest)
            dec.resetAtoms();
        const QByteArray payload(piece.data(), piece.size()); // exactly these bytes: overreads show
        QByteArray error;
        QExplicitlySharedDataPointer<EntryBatch> batch = dec.decode(payload, &error);
        if (!batch) {
            QVFS_FUZZ_CHECK(!error.isEmpty());
            continue;
        }
        // Never trust the count hint: a lying one reserves at most half the payload.
        QVFS_FUZZ_CHECK(batch->offsets.size() <= payload.size() / 2);
        Wire::Reader hintReader(payload);
        if (hintReader.varint() >= quint64(batch->offsets.size()))
            QVFS_FUZZ_CHECK(batch->offsets.capacity() <= payload.size() / 2 + 2);
        Kept k { batch, {} };
        const EntryList list = EntryList::fromBatch(batch.data());
        QVFS_FUZZ_CHECK(list.size() == batch->offsets.size());
        qsizetype i = 0;
        for (const Entry &e : list) {
            std::vector<FieldValue> values = readEverything(e);
            QVFS_FUZZ_CHECK(same(values, readFields(batch.data(), quint32(i))));
            QVFS_FUZZ_CHECK(e == list.at(i));
            if (i < 4) {
                // copy-on-write: a changed copy leaves the original alone; a rebuilt
                // entry (encoded again) equals the original
                Entry copy = e;
                copy.setNumber(Size, 12345);
                QVFS_FUZZ_CHECK(copy.number(Size) == 12345);
                QVFS_FUZZ_CHECK(same(readEverything(e), values));
                if (!values.empty()) {
                    const QExplicitlySharedDataPointer<EntryBatch> rebuilt = makeBatch(values);
                    QVFS_FUZZ_CHECK(rebuilt);
                    QVFS_FUZZ_CHECK(Entry(rebuilt.data(), 0) == e);
                }
            }
            k.values.push_back(std::move(values));
            ++i;
        }
        kept.push_back(std::move(k));
    }
    // Earlier batches are intact after everything that followed.
    for (const Kept &k : kept) {
        for (size_t i = 0; i < k.values.size(); ++i)
            QVFS_FUZZ_CHECK(same(readEverything(Entry(k.batch.data(), quint32(i))), k.values[i]));
    }
    return 0;
}
