// SPDX-License-Identifier: LGPL-2.1-or-later
// The record (Entry, EntryList), its wire codec (EntryEncoder/EntryDecoder) and the
// options block (MetaData): round trips, sharing, copy-on-write and hostile input.
#include "entry.h"
#include "entrycodec_p.h"
#include "metadata.h"
#include "wire_p.h"

#include "testutil/wirebytes.h"

#include <QProcess>
#include <QTest>

#include <cstdio>
#include <cstdlib>

#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <vector>

Q_DECLARE_METATYPE(Qvfs::MetaData)

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

using BatchPtr = QExplicitlySharedDataPointer<const EntryBatch>;

// Takes the result of EntryDecoder::decode() as a read-only handle, the way the
// application keeps it.
BatchPtr hold(const QExplicitlySharedDataPointer<EntryBatch> &batch)
{
    return BatchPtr(batch);
}

BatchPtr decodeOk(EntryDecoder &dec, const QByteArray &payload)
{
    QByteArray error;
    const BatchPtr b = hold(dec.decode(payload, &error));
    if (!b)
        qWarning("decode failed: %s", error.constData());
    return b;
}

/*! Builds payloads by hand, byte by byte. */
using Bytes = QvfsTest::WireBytes;

// A shortcut for the fields of one entry.
using Values = std::vector<FieldValue>;

FieldValue num(quint16 f, qint64 v)
{
    return FieldValue { f, v, {} };
}
FieldValue str(quint16 f, QByteArrayView s)
{
    return FieldValue { f, 0, s.toByteArray() };
}

void encodeEntry(EntryEncoder &enc, QByteArray &out, const Values &values)
{
    enc.begin(out);
    for (const FieldValue &v : values)
        enc.add(v.field, v.number, v.str);
    QVERIFY(enc.end());
}

bool sameValues(const Values &a, const Values &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].field != b[i].field || a[i].str != b[i].str)
            return false;
        if (fieldType(a[i].field) == FieldType::Number && a[i].number != b[i].number)
            return false;
    }
    return true;
}

// Checks every getter of \a e against \a expected (in order).
bool entryMatches(const Entry &e, const Values &expected)
{
    if (e.count() != int(expected.size()) || e.isEmpty() != expected.empty())
        return false;
    const QList<Field> fields = e.fields();
    for (size_t i = 0; i < expected.size(); ++i) {
        const FieldValue &v = expected[i];
        const Field f = Field(v.field);
        if (fields.at(qsizetype(i)) != f || !e.contains(f))
            return false;
        if (fieldType(f) == FieldType::Number) {
            if (e.number(f, 12345) != v.number || !e.bytes(f).isNull())
                return false;
        } else {
            const QByteArrayView b = e.bytes(f);
            if (b.isNull() || b != QByteArrayView(v.str) || e.number(f, 12345) != 12345)
                return false;
        }
    }
    if (e.batch() && !sameValues(readFields(e.batch(), e.index()), expected))
        return false;
    return true;
}

/*! An independent reading of a payload: counts key set definitions and entries. */
struct Walk
{
    int definitions = 0;
    int entries = 0;
    QList<int> tags; // key set id of each entry
    bool ok = true;
};

Walk walk(const QByteArray &payload, std::map<int, std::vector<quint16>> &sets)
{
    Walk w;
    Wire::Reader r(payload);
    r.varint();
    while (r.ok() && !r.atEnd()) {
        const quint8 tag = r.byte();
        if (tag == 0) {
            const quint8 id = r.byte();
            const quint64 n = r.varint(MaxFields);
            std::vector<quint16> fs;
            for (quint64 i = 0; i < n; ++i)
                fs.push_back(quint16(r.varint(0xffff)));
            sets[id] = fs;
            ++w.definitions;
            continue;
        }
        const auto it = sets.find(tag);
        if (it == sets.end()) {
            w.ok = false;
            return w;
        }
        ++w.entries;
        w.tags.append(tag);
        for (quint16 f : it->second) {
            switch (fieldType(f)) {
            case FieldType::Number:
                r.varint();
                break;
            case FieldType::String:
                r.skipBytes();
                break;
            case FieldType::Atom:
                if (r.varint() < 2)
                    r.skipBytes();
                break;
            }
        }
    }
    w.ok = w.ok && r.ok();
    return w;
}

int occurrences(const QByteArray &hay, QByteArrayView needle)
{
    int n = 0;
    for (qsizetype i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1))
        ++n;
    return n;
}

// A listing shaped like `ls -l` output.
Values fileValues(int i)
{
    char name[16];
    std::snprintf(name, sizeof name, "file%06d", i);
    return Values { str(Name, name), num(Type, 1), num(Mode, 0644), num(Size, i * 37), num(MTime, 1700000000 + i),
        num(MTimeNs, (i * 7919) % 1000000000), num(NLink, 1), num(Uid, 1000), num(Gid, 1000), str(User, "bob"),
        str(Group, i % 2 ? QByteArrayView("users") : QByteArrayView("staff")) };
}

} // namespace

class EntryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oversizedStringRefusedLoudly();
    // round trips
    void numbers_data();
    void numbers();
    void numberWireBytes_data();
    void numberWireBytes();
    void strings_data();
    void strings();
    void names_data();
    void names();
    void atoms();
    void atomsInline();
    void atomsAcrossPayloadsAndRequests();
    void everyField();
    void goldenPayload();
    // key sets
    void sharedKeySet();
    void severalShapes();
    void keySetRedefinitionAcrossBatches();
    void keySetRedefinitionByHand();
    // copy-on-write
    void detachOnWrite();
    void buildFromEmpty();
    void equality_data();
    void equality();
    // EntryList
    void entryList();
    void entryListSegments();
    // reserve hints
    void reserveHint_data();
    void reserveHint();
    // ownership and encoder robustness
    void decodedBatchIsFreed();
    void detachedEntryIsFreed();
    void encodeIntoBufferWithFreeSpaceAtBegin();
    void emptyEntryKeepsPayloadValid();
    void keySetsInPayload();
    // hostile input
    void hostile_data();
    void hostile();
    void acceptedEdges_data();
    void acceptedEdges();
    void truncatedEverywhere();
    void corruptedEverywhere();
    void tooManyAtoms();
    // MetaData
    void metaDataRoundTrip_data();
    void metaDataRoundTrip();
    void metaDataApi();
    void metaDataMalformed_data();
    void metaDataMalformed();
    void metaDataTruncated();
};

// ------------------------------------------------------------------ round trips

void EntryTest::numbers_data()
{
    QTest::addColumn<qint64>("value");
    const qint64 rows[] = { 0, 1, -1, 63, -64, 64, -65, 127, 128, 300, -300, 0644, 1700000000, -1700000000,
        qint64(std::numeric_limits<qint32>::max()), qint64(std::numeric_limits<qint32>::min()), qint64(1) << 53,
        -(qint64(1) << 53), std::numeric_limits<qint64>::max() - 1, std::numeric_limits<qint64>::max(),
        std::numeric_limits<qint64>::min() + 1, std::numeric_limits<qint64>::min() };
    for (qint64 v : rows)
        QTest::addRow("%lld", static_cast<long long>(v)) << v;
}

void EntryTest::numbers()
{
    QFETCH(qint64, value);
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 2);
    // alone, and between other fields (the getters walk over earlier values)
    encodeEntry(enc, payload, { num(Size, value) });
    const Values mixed { str(Name, "x"), num(MTime, value), str(User, "root"), num(Size, value),
        num(ExtraNumber, ~value) };
    encodeEntry(enc, payload, mixed);

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), 2);
    const Entry e0(b.data(), 0);
    QCOMPARE(e0.number(Size), value);
    QCOMPARE(e0.size(), value);
    QCOMPARE(e0.number(MTime, 77), qint64(77)); // absent: the default
    QVERIFY(entryMatches(e0, { num(Size, value) }));
    const Entry e1(b.data(), 1);
    QVERIFY(entryMatches(e1, mixed));
    QCOMPARE(e1.number(ExtraNumber), ~value);
}

void EntryTest::numberWireBytes_data()
{
    QTest::addColumn<qint64>("value");
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("0") << qint64(0) << QByteArray("\x00", 1);
    QTest::newRow("-1") << qint64(-1) << QByteArray("\x01");
    QTest::newRow("1") << qint64(1) << QByteArray("\x02");
    QTest::newRow("-64") << qint64(-64) << QByteArray("\x7f");
    QTest::newRow("64") << qint64(64) << QByteArray("\x80\x01");
    QTest::newRow("0644") << qint64(0644) << QByteArray("\xc8\x06");
    QTest::newRow("max") << std::numeric_limits<qint64>::max()
                         << QByteArray("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01");
    QTest::newRow("min") << std::numeric_limits<qint64>::min()
                         << QByteArray("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
}

void EntryTest::numberWireBytes()
{
    QFETCH(qint64, value);
    QFETCH(QByteArray, wire);
    // Numbers travel as zigzag varints (DESIGN.md, "Wire format").
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 1);
    encodeEntry(enc, payload, { num(Size, value) });
    const QByteArray expected = Bytes().v(1).def(1, { Size }).b(1).raw(wire).m;
    QCOMPARE(payload.toHex(), expected.toHex());

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, expected);
    QVERIFY(b);
    QCOMPARE(Entry(b.data(), 0).number(Size), value);
}

void EntryTest::strings_data()
{
    QTest::addColumn<int>("field");
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("empty name") << int(Name) << QByteArray("");
    QTest::newRow("a") << int(Name) << QByteArray("a");
    QTest::newRow("utf8") << int(DisplayName) << QByteArray("Caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    QTest::newRow("nul inside") << int(LinkTarget) << QByteArray("a\0b", 3);
    QTest::newRow("127 bytes") << int(LinkTarget) << QByteArray(127, 'q');
    QTest::newRow("128 bytes") << int(LinkTarget) << QByteArray(128, 'q');
    QTest::newRow("16383 bytes") << int(LocalPath) << QByteArray(16383, 'r');
    QTest::newRow("16384 bytes") << int(LocalPath) << QByteArray(16384, 'r');
    QTest::newRow("70000 bytes") << int(TargetUrl) << QByteArray(70000, 's');
    QTest::newRow("extra string") << int(ExtraString) << QByteArray("etag-123");
    QTest::newRow("last extra string") << int(ExtraString + 63) << QByteArray("x");
}

void EntryTest::strings()
{
    QFETCH(int, field);
    QFETCH(QByteArray, value);
    const Field f = Field(field);
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 2);
    encodeEntry(enc, payload, { str(f, value) });
    encodeEntry(enc, payload, { num(Type, 2), str(f, value), num(Size, 9) });

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    const Entry e0(b.data(), 0);
    QVERIFY(e0.contains(f));
    QCOMPARE(e0.bytes(f).toByteArray(), value);
    QVERIFY(!e0.bytes(f).isNull()); // present, even when empty
    QCOMPARE(e0.string(f), QString::fromUtf8(value));
    QVERIFY(e0.bytes(f == Name ? DisplayName : Name).isNull()); // absent: a null view
    const Entry e1(b.data(), 1);
    QVERIFY(entryMatches(e1, { num(Type, 2), str(f, value), num(Size, 9) }));
    QVERIFY(e1.isDir());
    // The view points into the batch: no copy was made.
    const QByteArrayView view = e1.bytes(f);
    QVERIFY(view.data() >= b->payload.constData() && view.data() <= b->payload.constData() + b->payload.size());
}

void EntryTest::names_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("latin1") << QByteArray("caf\xe9");
    QTest::newRow("lone ff") << QByteArray("\xff");
    QTest::newRow("bad continuation") << QByteArray("\xc3\x28");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80");
    QTest::newRow("truncated sequence") << QByteArray("abc\xe2\x82");
    QByteArray all;
    for (int i = 0; i < 255; ++i)
        all += char(1 + i % 255);
    QTest::newRow("255 bytes, every value") << all;
    QTest::newRow("255 x ff") << QByteArray(255, '\xff');
    QByteArray mixed;
    for (int i = 0; i < 255; ++i)
        mixed += char(0x80 + (i % 0x80));
    QTest::newRow("255 bytes not utf8") << mixed;
    QTest::newRow("255 ascii") << QByteArray(255, 'n');
}

void EntryTest::names()
{
    QFETCH(QByteArray, name);
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 1);
    encodeEntry(enc, payload, { str(Name, name), num(Size, 1), str(User, name) });
    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    Entry e(b.data(), 0);
    QCOMPARE(e.name().toByteArray(), name);
    QCOMPARE(e.name().size(), name.size());
    QCOMPARE(e.bytes(User).toByteArray(), name);
    QCOMPARE(readFields(b.data(), 0).at(0).str, name);
    // through a detach (the entry is re-encoded) the bytes stay exact
    Entry copy = e;
    copy.setNumber(Size, 2);
    QCOMPARE(copy.name().toByteArray(), name);
    QCOMPARE(copy.bytes(User).toByteArray(), name);
    QCOMPARE(e.name().toByteArray(), name);
    // and setString stores the bytes as given
    Entry other;
    other.setString(Name, name);
    QCOMPARE(other.name().toByteArray(), name);
    QVERIFY(other == Entry(makeBatch({ str(Name, name) }).data(), 0));
}

void EntryTest::atoms()
{
    const QList<QByteArray> users { "root", "root", "bob", "root", "alice", "carol", "dave", "erin", "root", "bob", "",
        "\xff\xfe", "", "frank", "bob" };
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, quint32(users.size()));
    for (const QByteArray &u : users)
        encodeEntry(enc, payload, { str(Name, "n"), str(User, u), str(Group, u == "root" ? "wheel" : "users") });
    // Each distinct value is sent once.
    QCOMPARE(occurrences(payload, "root"), 1);
    QCOMPARE(occurrences(payload, "bob"), 1);
    QCOMPARE(occurrences(payload, "users"), 1);
    QCOMPARE(occurrences(payload, "wheel"), 1);

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), users.size());
    QCOMPARE(b->atoms->atoms.size(), 11); // 9 users (incl. "" and \xff\xfe), 2 groups
    for (qsizetype i = 0; i < users.size(); ++i) {
        const Entry e(b.data(), quint32(i));
        QCOMPARE(e.bytes(User).toByteArray(), users.at(i));
        QVERIFY(!e.bytes(User).isNull());
        QCOMPARE(e.bytes(Group).toByteArray(), QByteArray(users.at(i) == "root" ? "wheel" : "users"));
        QCOMPARE(e.string(User), QString::fromUtf8(users.at(i)));
    }
    // Interned: references to one value are the same bytes in memory.
    QCOMPARE(static_cast<const void *>(Entry(b.data(), 1).bytes(User).data()),
        static_cast<const void *>(Entry(b.data(), 8).bytes(User).data()));

    // Hand-made: inline (0), new (1), references (>= 2) in one batch.
    const QByteArray hand = Bytes()
                                .v(4)
                                .def(1, { User, Group })
                                .b(1)
                                .v(0)
                                .s("inline")
                                .v(1)
                                .s("first")
                                .b(1)
                                .v(2)
                                .v(1)
                                .s("second")
                                .b(1)
                                .v(3)
                                .v(2)
                                .b(1)
                                .v(1)
                                .s("")
                                .v(4)
                                .m;
    EntryDecoder dec2;
    const BatchPtr h = decodeOk(dec2, hand);
    QVERIFY(h);
    QCOMPARE(h->offsets.size(), 4);
    QVERIFY(entryMatches(Entry(h.data(), 0), { str(User, "inline"), str(Group, "first") }));
    QVERIFY(entryMatches(Entry(h.data(), 1), { str(User, "first"), str(Group, "second") }));
    QVERIFY(entryMatches(Entry(h.data(), 2), { str(User, "second"), str(Group, "first") }));
    QVERIFY(entryMatches(Entry(h.data(), 3), { str(User, ""), str(Group, "") }));
    QCOMPARE(h->atoms->atoms.size(), 3); // the inline value is not interned
}

void EntryTest::atomsInline()
{
    // Past MaxEncoderAtoms distinct values the encoder sends values inline.
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, MaxEncoderAtoms + 10);
    for (int i = 0; i < MaxEncoderAtoms + 10; ++i)
        encodeEntry(enc, payload, { str(MimeType, QByteArray("type/x-" + QByteArray::number(i))) });
    // and a value seen before is still a reference
    encodeEntry(enc, payload, { str(MimeType, "type/x-7") });
    encodeEntry(enc, payload, { str(MimeType, QByteArray("type/x-" + QByteArray::number(MaxEncoderAtoms + 3))) });

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), MaxEncoderAtoms + 12);
    QCOMPARE(b->atoms->atoms.size(), MaxEncoderAtoms);
    for (int i = 0; i < MaxEncoderAtoms + 10; ++i)
        QCOMPARE(
            Entry(b.data(), quint32(i)).bytes(MimeType).toByteArray(), QByteArray("type/x-" + QByteArray::number(i)));
    QCOMPARE(Entry(b.data(), MaxEncoderAtoms + 10).bytes(MimeType).toByteArray(), QByteArray("type/x-7"));
    QCOMPARE(Entry(b.data(), MaxEncoderAtoms + 11).bytes(MimeType).toByteArray(),
        QByteArray("type/x-" + QByteArray::number(MaxEncoderAtoms + 3)));
    // the inline values: marker 0
    const char *p = b->valueAt(MaxEncoderAtoms + 1, 0);
    QCOMPARE(int(*p), 0);
    p = b->valueAt(MaxEncoderAtoms + 10, 0);
    QVERIFY(quint8(*p) >= 2);
}

void EntryTest::atomsAcrossPayloadsAndRequests()
{
    EntryEncoder enc;
    EntryDecoder dec;
    QByteArray p1, p2, p3;
    enc.beginPayload(p1, 1);
    encodeEntry(enc, p1, { str(User, "root") });
    enc.beginPayload(p2, 1);
    encodeEntry(enc, p2, { str(User, "root") }); // a reference to the atom of p1
    QCOMPARE(occurrences(p2, "root"), 0);
    const BatchPtr b1 = decodeOk(dec, p1);
    const BatchPtr b2 = decodeOk(dec, p2);
    QVERIFY(b1 && b2);
    QCOMPARE(Entry(b2.data(), 0).bytes(User).toByteArray(), QByteArray("root"));

    // A new request: both sides forget the atoms; old batches keep theirs.
    enc.resetAtoms();
    dec.resetAtoms();
    enc.beginPayload(p3, 1);
    encodeEntry(enc, p3, { str(User, "bob") });
    encodeEntry(enc, p3, { str(User, "root") });
    QCOMPARE(occurrences(p3, "root"), 1);
    const BatchPtr b3 = decodeOk(dec, p3);
    QVERIFY(b3);
    QCOMPARE(Entry(b3.data(), 0).bytes(User).toByteArray(), QByteArray("bob"));
    QCOMPARE(Entry(b3.data(), 1).bytes(User).toByteArray(), QByteArray("root"));
    QCOMPARE(Entry(b1.data(), 0).bytes(User).toByteArray(), QByteArray("root"));
    QCOMPARE(Entry(b2.data(), 0).bytes(User).toByteArray(), QByteArray("root"));

    // After a reset a reference to an atom of the previous request is refused.
    EntryDecoder dec2;
    QVERIFY(decodeOk(dec2, p1));
    dec2.resetAtoms();
    QByteArray error;
    QVERIFY(!hold(dec2.decode(p2, &error)));
    QVERIFY(error.contains("atom"));
}

void EntryTest::everyField()
{
    Values all;
    const quint16 numbers[] = { Type, Mode, Size, MTime, MTimeNs, ATime, ATimeNs, BTime, BTimeNs, Uid, Gid, Inode,
        Device, NLink, Hidden, Blocks, ExtraNumber, ExtraNumber + 63 };
    qint64 v = -5;
    for (quint16 f : numbers)
        all.push_back(num(f, v *= -3));
    const quint16 strings[] = { Name, LinkTarget, LocalPath, DisplayName, TargetUrl, ExtraString, ExtraString + 63 };
    for (quint16 f : strings)
        all.push_back(str(f, QByteArray("s" + QByteArray::number(f))));
    const quint16 atomFields[] = { User, Group, MimeType, ExtraAtom, ExtraAtom + 63 };
    for (quint16 f : atomFields)
        all.push_back(str(f, QByteArray("a" + QByteArray::number(f))));
    for (const FieldValue &fv : all)
        QVERIFY(isValidField(fv.field));
    QCOMPARE(int(all.size()), 30);

    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 1);
    encodeEntry(enc, payload, all);
    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QVERIFY(entryMatches(Entry(b.data(), 0), all));

    // The largest key set: MaxFields fields.
    Values many;
    for (int i = 0; i < MaxFields; ++i)
        many.push_back(i % 2 ? num(quint16(ExtraNumber + i / 2), i) : str(quint16(ExtraString + i / 2), "v"));
    QByteArray p2;
    enc.beginPayload(p2, 1);
    encodeEntry(enc, p2, many);
    const BatchPtr b2 = decodeOk(dec, p2);
    QVERIFY(b2);
    QVERIFY(entryMatches(Entry(b2.data(), 0), many));
}

void EntryTest::goldenPayload()
{
    // The exact bytes of DESIGN.md's wire format for two entries of one shape.
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 2);
    encodeEntry(enc, payload, { str(Name, "a"), num(Size, 5), str(User, "root") });
    encodeEntry(enc, payload, { str(Name, "bc"), num(Size, -1), str(User, "root") });
    const QByteArray expected("\x02" // count hint
                              "\x00\x01\x03\x81\x02\x03\x81\x04" // key set 1: Name, Size, User
                              "\x01\x01"
                              "a\x0a\x01\x04"
                              "root" // entry: new atom
                              "\x01\x02"
                              "bc\x01\x02", // entry: atom reference 0
        25);
    QCOMPARE(payload.toHex(' '), expected.toHex(' '));
}

// ------------------------------------------------------------------ key sets

void EntryTest::sharedKeySet()
{
    const int n = 1000;
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, n);
    for (int i = 0; i < n; ++i)
        encodeEntry(enc, payload, fileValues(i));
    QCOMPARE(enc.keySetsInPayload(), 1);

    std::map<int, std::vector<quint16>> sets;
    const Walk w = walk(payload, sets);
    QVERIFY(w.ok);
    QCOMPARE(w.definitions, 1);
    QCOMPARE(w.entries, n);
    // one definition of 11 fields: 0, id, count, 11 field ids (Name/User/Group take 2 bytes)
    const int definitionBytes = 3 + 8 + 3 * 2;
    qsizetype valueBytes = 0;
    for (int i = 0; i < n; ++i) {
        for (const FieldValue &v : fileValues(i)) {
            char tmp[10];
            if (fieldType(v.field) == FieldType::Number)
                valueBytes += Wire::putVarint(tmp, Wire::zigzag(v.number)) - tmp;
            else if (fieldType(v.field) == FieldType::String)
                valueBytes += 1 + v.str.size();
        }
    }
    // atoms: the first "bob", "staff", "users" are new (1 + len + bytes), the rest refs
    const qsizetype atomBytes = (2 + 3) + (2 + 5) + (2 + 5) + qsizetype(2 * n - 3);
    QCOMPARE(payload.size(), 2 /* hint 1000 */ + definitionBytes + n /* tags */ + valueBytes + atomBytes);
    QVERIFY2(payload.size() / n <= 40, QByteArray::number(payload.size() / double(n)).constData());

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), n);
    const KeySet *shared = &b->keySetOf(0);
    for (int i = 0; i < n; ++i) {
        QCOMPARE(&b->keySetOf(quint32(i)), shared);
        if (i % 97 == 0)
            QVERIFY(entryMatches(Entry(b.data(), quint32(i)), fileValues(i)));
    }
    QCOMPARE(int(shared->count), 11);
}

void EntryTest::severalShapes()
{
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 30);
    std::vector<Values> expected;
    for (int i = 0; i < 30; ++i) {
        Values v;
        switch (i % 3) {
        case 0: // a folder: no size
            v = { str(Name, QByteArray("d" + QByteArray::number(i))), num(Type, 2), num(Mode, 0755) };
            break;
        case 1: // a file
            v = { str(Name, QByteArray("f" + QByteArray::number(i))), num(Type, 1), num(Mode, 0644), num(Size, i) };
            break;
        default: // a symlink
            v = { str(Name, QByteArray("l" + QByteArray::number(i))), num(Type, 3), num(Mode, 0777),
                str(LinkTarget, "target") };
            break;
        }
        encodeEntry(enc, payload, v);
        expected.push_back(v);
    }
    QCOMPARE(enc.keySetsInPayload(), 3);
    std::map<int, std::vector<quint16>> sets;
    const Walk w = walk(payload, sets);
    QVERIFY(w.ok);
    QCOMPARE(w.definitions, 3);
    QCOMPARE(w.entries, 30);

    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), 30);
    for (int i = 0; i < 30; ++i) {
        const Entry e(b.data(), quint32(i));
        QVERIFY2(entryMatches(e, expected[size_t(i)]), QByteArray::number(i).constData());
        QCOMPARE(&b->keySetOf(quint32(i)), &b->keySetOf(quint32(i % 3)));
        if (i % 3)
            QVERIFY(&b->keySetOf(quint32(i)) != &b->keySetOf(0));
    }
    QVERIFY(&b->keySetOf(1) != &b->keySetOf(2));
    QCOMPARE(Entry(b.data(), 0).size(), qint64(-1));
    QVERIFY(Entry(b.data(), 0).isDir());
    QVERIFY(Entry(b.data(), 2).isLink());
    QCOMPARE(Entry(b.data(), 4).size(), qint64(4));
}

void EntryTest::keySetRedefinitionAcrossBatches()
{
    // 600 distinct shapes over 6 payloads: more than MaxKeySets, so the encoder replaces
    // old definitions; every batch already decoded must keep reading its own.
    auto shape = [](int s) {
        Values v { str(Name, QByteArray("s" + QByteArray::number(s))) };
        const quint16 optional[] = { Type, Mode, Size, MTime, MTimeNs, NLink, Uid, Gid, Inode, Device };
        for (int bit = 0; bit < 10; ++bit) {
            if (s & (1 << bit))
                v.push_back(num(optional[bit], s * 10 + bit));
        }
        v.push_back(str(User, QByteArray("u" + QByteArray::number(s % 5))));
        return v;
    };
    EntryEncoder enc;
    EntryDecoder dec;
    std::vector<BatchPtr> batches;
    std::vector<std::vector<int>> shapesOf;
    std::map<int, std::set<std::vector<quint16>>> shapesById;
    const int perPayload = 100;
    for (int p = 0; p < 6; ++p) {
        QByteArray payload;
        enc.beginPayload(payload, 2 * perPayload);
        std::vector<int> shapes;
        for (int k = 0; k < perPayload; ++k) {
            const int s = p * perPayload + k;
            encodeEntry(enc, payload, shape(s));
            encodeEntry(enc, payload, shape(s)); // a second of the same shape: no new definition
            shapes.push_back(s);
            shapes.push_back(s);
        }
        QCOMPARE(enc.keySetsInPayload(), perPayload);
        std::map<int, std::vector<quint16>> sets;
        // (the walker only needs this payload's definitions: each shape is new)
        const Walk w = walk(payload, sets);
        QVERIFY(w.ok);
        QCOMPARE(w.definitions, perPayload);
        QCOMPARE(w.entries, 2 * perPayload);
        for (const auto &[id, fields] : sets)
            shapesById[id].insert(fields);
        const BatchPtr b = decodeOk(dec, payload);
        QVERIFY(b);
        batches.push_back(b);
        shapesOf.push_back(shapes);
    }
    // Some ids were redefined.
    int redefined = 0;
    for (const auto &[id, set] : shapesById) {
        QVERIFY(id >= 1 && id <= MaxKeySets);
        if (set.size() > 1)
            ++redefined;
    }
    QVERIFY(redefined > 0);
    // Every batch reads as it was sent.
    for (size_t p = 0; p < batches.size(); ++p) {
        for (size_t i = 0; i < shapesOf[p].size(); ++i) {
            const Entry e(batches[p].data(), quint32(i));
            QVERIFY2(entryMatches(e, shape(shapesOf[p][i])),
                QByteArray("batch " + QByteArray::number(qulonglong(p)) + " entry " + QByteArray::number(qulonglong(i)))
                    .constData());
        }
    }
}

void EntryTest::keySetRedefinitionByHand()
{
    EntryDecoder dec;
    const BatchPtr a = decodeOk(dec, Bytes().v(1).def(1, { Size }).b(1).z(42).m);
    QVERIFY(a);
    // Redefined by a later batch: the earlier batch is intact.
    const BatchPtr b = decodeOk(dec, Bytes().v(1).def(1, { Name, MTime }).b(1).s("x").z(7).m);
    QVERIFY(b);
    QVERIFY(entryMatches(Entry(a.data(), 0), { num(Size, 42) }));
    QVERIFY(entryMatches(Entry(b.data(), 0), { str(Name, "x"), num(MTime, 7) }));
    // A later batch may use the definition without repeating it.
    const BatchPtr c = decodeOk(dec, Bytes().v(1).b(1).s("y").z(8).m);
    QVERIFY(c);
    QVERIFY(entryMatches(Entry(c.data(), 0), { str(Name, "y"), num(MTime, 8) }));
    // Defined twice before use in one batch: the last one counts.
    const BatchPtr d = decodeOk(dec, Bytes().v(1).def(2, { Size }).def(2, { Mode }).b(2).z(0644).m);
    QVERIFY(d);
    QVERIFY(entryMatches(Entry(d.data(), 0), { num(Mode, 0644) }));
    QVERIFY(entryMatches(Entry(b.data(), 0), { str(Name, "x"), num(MTime, 7) }));
    // Redefined after use within one batch: refused (its earlier entries would change).
    QByteArray error;
    QVERIFY(!hold(dec.decode(Bytes().v(2).b(1).s("z").z(9).def(1, { Size }).b(1).z(1).m, &error)));
    QVERIFY(!error.isEmpty());
    // Redefinition within a batch of an id used by an earlier batch only: fine.
    const BatchPtr e = decodeOk(dec, Bytes().v(1).def(1, { Uid }).b(1).z(1000).m);
    QVERIFY(e);
    QVERIFY(entryMatches(Entry(e.data(), 0), { num(Uid, 1000) }));
    QVERIFY(entryMatches(Entry(c.data(), 0), { str(Name, "y"), num(MTime, 8) }));
    QVERIFY(entryMatches(Entry(a.data(), 0), { num(Size, 42) }));
}

// ------------------------------------------------------------------ copy-on-write

void EntryTest::detachOnWrite()
{
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 3);
    for (int i = 0; i < 3; ++i)
        encodeEntry(enc, payload, fileValues(i));
    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    const EntryList list = EntryList::fromBatch(b.data());
    const QByteArray payloadBefore = b->payload;

    Entry e = list.at(1);
    QCOMPARE(e.batch(), b.data());
    Entry untouchedCopy = e;

    e.setNumber(Size, 4242);
    QVERIFY(e.batch() != b.data());
    QCOMPARE(e.size(), qint64(4242));
    Values expected = fileValues(1);
    expected[3].number = 4242; // Size keeps its place
    QVERIFY(entryMatches(e, expected));
    for (int i = 0; i < 3; ++i)
        QVERIFY(entryMatches(list.at(i), fileValues(i)));
    QVERIFY(entryMatches(untouchedCopy, fileValues(1)));
    QCOMPARE(untouchedCopy.batch(), b.data());

    // a new field is appended
    e.setString(LinkTarget, "somewhere");
    expected.push_back(str(LinkTarget, "somewhere"));
    QVERIFY(entryMatches(e, expected));
    // replace a string and an atom
    e.setString(Name, "renamed");
    e.setString(User, "mallory");
    expected[0].str = "renamed";
    expected[9].str = "mallory";
    QVERIFY(entryMatches(e, expected));
    QVERIFY(entryMatches(list.at(1), fileValues(1)));
    QCOMPARE(list.at(2).bytes(User).toByteArray(), QByteArray("bob"));

    // a copy of a detached entry detaches again on write
    Entry e2 = e;
    e2.setNumber(Size, 1);
    QCOMPARE(e.size(), qint64(4242));
    QCOMPARE(e2.size(), qint64(1));

    // remove
    Entry r = list.at(0);
    const EntryBatch *before = r.batch();
    r.remove(Inode); // absent: nothing happens, no detach
    QCOMPARE(r.batch(), before);
    r.remove(Size);
    QVERIFY(!r.contains(Size));
    QCOMPARE(r.size(), qint64(-1));
    QCOMPARE(r.count(), 10);
    QVERIFY(list.at(0).contains(Size));
    QCOMPARE(list.at(0).size(), qint64(0));
    for (Field f : r.fields())
        r.remove(f);
    QVERIFY(r.isEmpty());
    QCOMPARE(r.count(), 0);
    QVERIFY(r.name().isNull());
    QVERIFY(entryMatches(list.at(0), fileValues(0)));

    // clear
    Entry c = list.at(2);
    c.clear();
    QVERIFY(c.isEmpty());
    QVERIFY(entryMatches(list.at(2), fileValues(2)));
    QCOMPARE(b->payload, payloadBefore);
    QVERIFY(b->payload.constData() == payloadBefore.constData()); // never written to

    // setters refuse a field of the wrong type / an invalid id (release builds ignore)
    Entry bad = list.at(0);
    bad.setString(Field(0x180), "x"); // low byte >= 0x80: invalid
    QVERIFY(!bad.contains(Field(0x180)));
    QCOMPARE(bad.batch(), b.data());
}

void EntryTest::buildFromEmpty()
{
    Entry e;
    QVERIFY(e.isEmpty());
    QCOMPARE(e.count(), 0);
    QVERIFY(e.fields().isEmpty());
    QVERIFY(!e.contains(Name));
    QCOMPARE(e.number(Size), qint64(-1));
    QCOMPARE(e.number(Size, 5), qint64(5));
    QVERIFY(e.bytes(Name).isNull());
    QVERIFY(e.string(Name).isEmpty());
    QCOMPARE(e.type(), FileType::Unknown);
    QVERIFY(!e.isDir());
    QVERIFY(!e.isLink());
    QCOMPARE(e.size(), qint64(-1));
    QVERIFY(e.batch() == nullptr);
    e.remove(Name); // nothing to remove
    QVERIFY(e.isEmpty());

    e.setString(Name, "hello");
    e.setNumber(Type, int(FileType::Directory));
    e.setNumber(MTime, std::numeric_limits<qint64>::min());
    e.setString(User, "root");
    e.setString(Group, "root");
    e.setNumber(Type, int(FileType::Symlink)); // replaced in place
    QVERIFY(entryMatches(e,
        { str(Name, "hello"), num(Type, 3), num(MTime, std::numeric_limits<qint64>::min()), str(User, "root"),
            str(Group, "root") }));
    QVERIFY(e.isLink());
    QCOMPARE(e.string(Name), QStringLiteral("hello"));
    QVERIFY(e.batch() != nullptr);
    QCOMPARE(e.index(), 0u);

    // copy, move, assign
    Entry copy(e);
    QVERIFY(copy == e);
    Entry moved(std::move(copy));
    QVERIFY(moved == e);
    Entry assigned;
    assigned = moved;
    QVERIFY(assigned == e);
    assigned = Entry();
    QVERIFY(assigned.isEmpty());

    // an empty string is a present field
    Entry s;
    s.setString(DisplayName, "");
    QVERIFY(s.contains(DisplayName));
    QCOMPARE(s.count(), 1);
    QVERIFY(!s.bytes(DisplayName).isNull());
    QVERIFY(s.bytes(DisplayName).isEmpty());

    // QVariant round trip (the type is declared a metatype)
    const QVariant v = QVariant::fromValue(e);
    QVERIFY(v.value<Entry>() == e);
}

void EntryTest::equality_data()
{
    QTest::addColumn<Entry>("a");
    QTest::addColumn<Entry>("b");
    QTest::addColumn<bool>("equal");

    auto make = [](const Values &v) {
        Entry e;
        for (const FieldValue &f : v) {
            if (fieldType(f.field) == FieldType::Number)
                e.setNumber(Field(f.field), f.number);
            else
                e.setString(Field(f.field), f.str);
        }
        return e;
    };
    // Two entries of one decoded batch, and an entry decoded in another batch.
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 2);
    encodeEntry(enc, payload, fileValues(1));
    encodeEntry(enc, payload, fileValues(2));
    EntryDecoder dec;
    const EntryList list = EntryList::fromBatch(dec.decode(payload, nullptr).data());
    QByteArray p2;
    enc.beginPayload(p2, 1);
    encodeEntry(enc, p2, fileValues(1));
    const EntryList list2 = EntryList::fromBatch(dec.decode(p2, nullptr).data());

    const Entry file = make({ str(Name, "f"), num(Size, 1), str(User, "root") });
    QTest::newRow("empty == empty") << Entry() << Entry() << true;
    QTest::newRow("empty != one field") << Entry() << make({ num(Size, 1) }) << false;
    QTest::newRow("same handle") << file << file << true;
    QTest::newRow("same values") << file << make({ str(Name, "f"), num(Size, 1), str(User, "root") }) << true;
    QTest::newRow("other order") << file << make({ str(User, "root"), num(Size, 1), str(Name, "f") }) << true;
    QTest::newRow("other number") << file << make({ str(Name, "f"), num(Size, 2), str(User, "root") }) << false;
    QTest::newRow("other string") << file << make({ str(Name, "g"), num(Size, 1), str(User, "root") }) << false;
    QTest::newRow("other atom") << file << make({ str(Name, "f"), num(Size, 1), str(User, "bob") }) << false;
    QTest::newRow("extra field") << file << make({ str(Name, "f"), num(Size, 1), str(User, "root"), num(Mode, 1) })
                                 << false;
    QTest::newRow("missing field") << file << make({ str(Name, "f"), num(Size, 1) }) << false;
    QTest::newRow("other field same value") << make({ num(Size, 1) }) << make({ num(Mode, 1) }) << false;
    QTest::newRow("string vs atom") << make({ str(DisplayName, "x") }) << make({ str(MimeType, "x") }) << false;
    QTest::newRow("empty string vs other empty string") << make({ str(Name, "") }) << make({ str(Name, "") }) << true;
    QTest::newRow("-1 size vs no size") << make({ num(Size, -1) }) << make({ num(Mode, -1) }) << false;
    QTest::newRow("decoded vs built") << list.at(0) << make(fileValues(1)) << true;
    QTest::newRow("decoded twice") << list.at(0) << list2.at(0) << true;
    QTest::newRow("neighbours") << list.at(0) << list.at(1) << false;
    QTest::newRow("non-utf8 names") << make({ str(Name, "\xff") }) << make({ str(Name, "\xfe") }) << false;
}

void EntryTest::equality()
{
    QFETCH(Entry, a);
    QFETCH(Entry, b);
    QFETCH(bool, equal);
    QCOMPARE(a == b, equal);
    QCOMPARE(b == a, equal);
    QCOMPARE(a != b, !equal);
    QVERIFY(a == a);
}

// ------------------------------------------------------------------ EntryList

void EntryTest::entryList()
{
    EntryEncoder enc;
    EntryDecoder dec;
    QByteArray p1, p2;
    enc.beginPayload(p1, 10);
    for (int i = 0; i < 10; ++i)
        encodeEntry(enc, p1, fileValues(i));
    enc.beginPayload(p2, 5);
    for (int i = 10; i < 15; ++i)
        encodeEntry(enc, p2, fileValues(i));
    const BatchPtr b1 = decodeOk(dec, p1);
    const BatchPtr b2 = decodeOk(dec, p2);
    QVERIFY(b1 && b2);

    EntryList empty;
    QVERIFY(empty.isEmpty());
    QCOMPARE(empty.size(), 0);
    QVERIFY(empty.begin() == empty.end());
    QVERIFY(EntryList::fromBatch(nullptr).isEmpty());
    QVERIFY(EntryList::fromBatch(decodeOk(dec, Bytes().v(0).m).data()).isEmpty());

    EntryList l = EntryList::fromBatch(b1.data());
    QCOMPARE(l.size(), 10);
    QCOMPARE(l.count(), 10);
    l += EntryList::fromBatch(b2.data());
    QCOMPARE(l.size(), 15);
    for (int i = 0; i < 15; ++i)
        QVERIFY(entryMatches(l.at(i), fileValues(i)));
    QVERIFY(entryMatches(l.first(), fileValues(0)));
    QVERIFY(entryMatches(l.last(), fileValues(14)));
    QVERIFY(entryMatches(l[7], fileValues(7)));
    int i = 0;
    for (const Entry &e : l)
        QVERIFY(entryMatches(e, fileValues(i++)));
    QCOMPARE(i, 15);
    auto it = l.cbegin();
    QVERIFY(entryMatches(*it++, fileValues(0)));
    QVERIFY(entryMatches(*it, fileValues(1)));
    QVERIFY(it != l.cend());

    // Entry by entry, out of order, with detached and empty entries.
    EntryList m;
    std::vector<Values> expected;
    const int order[] = { 3, 4, 5, 12, 13, 0, 14, 9 };
    for (int k : order) {
        m.append(l.at(k));
        expected.push_back(fileValues(k));
    }
    Entry own;
    own.setString(Name, "own");
    m << own << Entry();
    expected.push_back({ str(Name, "own") });
    expected.push_back({});
    QCOMPARE(m.size(), qsizetype(expected.size()));
    for (qsizetype k = 0; k < m.size(); ++k)
        QVERIFY(entryMatches(m.at(k), expected[size_t(k)]));
    i = 0;
    for (const Entry &e : m)
        QVERIFY(entryMatches(e, expected[size_t(i++)]));
    QCOMPARE(i, int(expected.size()));

    // copies are independent
    EntryList copy = m;
    copy.append(l);
    QCOMPARE(copy.size(), m.size() + 15);
    QCOMPARE(m.size(), qsizetype(expected.size()));
    QVERIFY(entryMatches(copy.at(m.size() + 14), fileValues(14)));
    EntryList moved = std::move(copy);
    QCOMPARE(moved.size(), m.size() + 15);
    moved.clear();
    QVERIFY(moved.isEmpty());
    QVERIFY(moved.begin() == moved.end());
    moved.append(m);
    QCOMPARE(moved.size(), m.size());

    // appending a list to itself
    EntryList self = EntryList::fromBatch(b1.data());
    self.append(self);
    QCOMPARE(self.size(), 20);
    for (int k = 0; k < 20; ++k)
        QVERIFY(entryMatches(self.at(k), fileValues(k % 10)));

    // the list keeps its batches alive
    EntryList kept;
    {
        EntryDecoder d2;
        QByteArray p3;
        EntryEncoder e2;
        e2.beginPayload(p3, 2);
        encodeEntry(e2, p3, fileValues(20));
        encodeEntry(e2, p3, fileValues(21));
        kept = EntryList::fromBatch(decodeOk(d2, p3).data());
    }
    QVERIFY(entryMatches(kept.at(1), fileValues(21)));
    QVariant v = QVariant::fromValue(kept);
    QCOMPARE(v.value<EntryList>().size(), 2);
}

void EntryTest::entryListSegments()
{
    // Many batches of different sizes, indexed at every position (binary search over
    // segments) and iterated.
    EntryEncoder enc;
    EntryDecoder dec;
    EntryList l;
    l.reserveSegments(40);
    int total = 0;
    for (int s = 0; s < 40; ++s) {
        QByteArray p;
        const int n = 1 + (s * 7) % 13;
        enc.beginPayload(p, quint32(n));
        for (int k = 0; k < n; ++k)
            encodeEntry(enc, p, fileValues(total + k));
        const BatchPtr b = decodeOk(dec, p);
        QVERIFY(b);
        if (s % 2) {
            l.append(EntryList::fromBatch(b.data()));
        } else {
            for (int k = 0; k < n; ++k)
                l.append(Entry(b.data(), quint32(k)));
        }
        total += n;
    }
    QCOMPARE(l.size(), total);
    for (int k = 0; k < total; ++k)
        QVERIFY2(entryMatches(l.at(k), fileValues(k)), QByteArray::number(k).constData());
    int k = 0;
    for (auto it = l.begin(); it != l.end(); ++it)
        QVERIFY(entryMatches(*it, fileValues(k++)));
    QCOMPARE(k, total);
}

// ------------------------------------------------------------------ reserve hints

void EntryTest::reserveHint_data()
{
    QTest::addColumn<quint64>("hint");
    QTest::addColumn<int>("entries");
    QTest::newRow("honest 3") << quint64(3) << 3;
    QTest::newRow("honest 1000") << quint64(1000) << 1000;
    QTest::newRow("zero hint") << quint64(0) << 100;
    QTest::newRow("low hint") << quint64(10) << 100;
    QTest::newRow("lying 32768 for 3") << quint64(32768) << 3;
    QTest::newRow("lying 1M for 1") << quint64(1000000) << 1;
    QTest::newRow("lying 2^32 for 5") << (quint64(1) << 32) << 5;
    QTest::newRow("lying max for 20") << std::numeric_limits<quint64>::max() << 20;
    QTest::newRow("lying max, no entries") << std::numeric_limits<quint64>::max() << 0;
}

void EntryTest::reserveHint()
{
    QFETCH(quint64, hint);
    QFETCH(int, entries);
    // Small entries (3 bytes each) so the payload/2 clamp matters.
    QByteArray payload = Bytes().v(hint).def(1, { Size, Type }).m;
    for (int i = 0; i < entries; ++i)
        payload += Bytes().b(1).z(i % 60).z(1).m;
    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), entries);
    const qsizetype cap = b->offsets.capacity();
    const QByteArray what("capacity " + QByteArray::number(cap) + " payload " + QByteArray::number(payload.size()));
    if (hint > quint64(entries)) {
        // Never trust a peer's count: at most half the payload (an entry takes >= 2 bytes).
        QVERIFY2(cap <= payload.size() / 2 + 2, what.constData());
    } else if (hint == quint64(entries) && entries > 0) {
        // An honest hint is reserved once: no growth, no slack.
        QVERIFY2(cap >= entries && cap < entries + 8, what.constData());
    }
    for (int i = 0; i < entries; i += 17)
        QCOMPARE(Entry(b.data(), quint32(i)).size(), qint64(i % 60));

    // The same payload inside a large buffer is still clamped by what it holds: a small
    // listing never gets a large allocation.
    if (entries <= 5) {
        QVERIFY(cap * qsizetype(sizeof(quint32)) <= 256);
    }
}

// ------------------------------------------------------------------ ownership, encoder

void EntryTest::decodedBatchIsFreed()
{
    // When the last handle to a decoded batch goes, the batch (and its payload) must go.
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 2);
    encodeEntry(enc, payload, fileValues(1));
    encodeEntry(enc, payload, fileValues(2));
    QVERIFY(payload.isDetached());
    EntryDecoder dec;
    {
        QByteArray error;
        const QExplicitlySharedDataPointer<EntryBatch> batch = dec.decode(payload, &error);
        QVERIFY(batch);
        QVERIFY(!payload.isDetached()); // the batch shares the bytes (no copy)
        QCOMPARE(batch->ref.loadRelaxed(), 1);
        const EntryList list = EntryList::fromBatch(batch.data());
        const Entry e = list.at(1);
        QCOMPARE(batch->ref.loadRelaxed(), 3);
    }
    QVERIFY2(payload.isDetached(), "the decoded batch leaked (reference count off by one)");
}

void EntryTest::detachedEntryIsFreed()
{
    Entry e;
    e.setNumber(Size, 1);
    QVERIFY(e.batch());
    QCOMPARE(e.batch()->ref.loadRelaxed(), 1); // only this handle
    Entry f = e;
    QCOMPARE(e.batch()->ref.loadRelaxed(), 2);
    f.setNumber(Size, 2);
    QCOMPARE(e.batch()->ref.loadRelaxed(), 1);
    QCOMPARE(f.batch()->ref.loadRelaxed(), 1);
}

void EntryTest::encodeIntoBufferWithFreeSpaceAtBegin()
{
    // A reused buffer from which the sent prefix was removed has free space in front:
    // QByteArray::capacity() counts it, so "capacity() - size()" overstates the room at
    // the end. The encoder must still produce exact bytes (and never write past the end).
    QByteArray out;
    out.reserve(200);
    out.append(QByteArray(150, 'x'));
    out.remove(0, 145);
    if (out.data_ptr().freeSpaceAtBegin() == 0)
        QSKIP("this Qt does not keep free space at the beginning");
    const qsizetype prefix = out.size();
    EntryEncoder enc;
    enc.beginPayload(out, 1);
    enc.begin(out);
    Values expected;
    int f = 1;
    // Fill to exactly the end of the allocation with 10-byte and 1-byte numbers (they
    // stay inside the null terminator's room of the allocation), then one 2-byte number.
    while (out.data_ptr().freeSpaceAtEnd() >= 10 && f < Blocks) {
        expected.push_back(num(quint16(f), std::numeric_limits<qint64>::min()));
        enc.addNumber(quint16(f++), std::numeric_limits<qint64>::min());
    }
    while (out.data_ptr().freeSpaceAtEnd() > 0 && f < Blocks) {
        expected.push_back(num(quint16(f), 0));
        enc.addNumber(quint16(f++), 0);
    }
    expected.push_back(num(Blocks, 100)); // zigzag 200: two bytes
    enc.addNumber(Blocks, 100);
    QVERIFY(enc.end());

    const QByteArray payload = out.mid(prefix);
    EntryDecoder dec;
    QByteArray error;
    const BatchPtr b = hold(dec.decode(payload, &error));
    QVERIFY2(b, error.constData());
    QCOMPARE(b->offsets.size(), 1);
    QVERIFY(entryMatches(Entry(b.data(), 0), expected));
}

void EntryTest::emptyEntryKeepsPayloadValid()
{
    // A worker that begins and ends an entry without adding a field must not make the
    // whole batch undecodable (an empty key set is not valid on the wire).
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 4);
    encodeEntry(enc, payload, fileValues(1));
    encodeEntry(enc, payload, {});
    encodeEntry(enc, payload, {});
    encodeEntry(enc, payload, fileValues(2));
    EntryDecoder dec;
    QByteArray error;
    const BatchPtr b = hold(dec.decode(payload, &error));
    QVERIFY2(b, error.constData());
    // Either dropped or kept as empty entries; the others read back intact.
    std::vector<Values> nonEmpty;
    for (qsizetype i = 0; i < b->offsets.size(); ++i) {
        const Entry e(b.data(), quint32(i));
        if (!e.isEmpty())
            nonEmpty.push_back(readFields(b.data(), quint32(i)));
    }
    QCOMPARE(int(nonEmpty.size()), 2);
    QVERIFY(sameValues(nonEmpty[0], fileValues(1)));
    QVERIFY(sameValues(nonEmpty[1], fileValues(2)));
}

void EntryTest::keySetsInPayload()
{
    EntryEncoder enc;
    QByteArray payload;
    enc.beginPayload(payload, 0);
    QCOMPARE(enc.keySetsInPayload(), 0);
    encodeEntry(enc, payload, { num(Size, 1) });
    encodeEntry(enc, payload, { num(Size, 2) });
    QCOMPARE(enc.keySetsInPayload(), 1);
    enc.begin(payload);
    enc.addNumber(Mode, 1);
    enc.addString(Name, "x");
    QCOMPARE(enc.fieldCount(), 2);
    QVERIFY(enc.end());
    QCOMPARE(enc.keySetsInPayload(), 2);
    encodeEntry(enc, payload, { num(Size, 3) });
    QCOMPARE(enc.keySetsInPayload(), 2);
    // a new payload starts counting again; known shapes are not redefined
    QByteArray p2;
    enc.beginPayload(p2, 1);
    QCOMPARE(enc.keySetsInPayload(), 0);
    encodeEntry(enc, p2, { num(Size, 3) });
    QCOMPARE(enc.keySetsInPayload(), 1);
    std::map<int, std::vector<quint16>> sets;
    QCOMPARE(walk(payload, sets).definitions, 2);
    QCOMPARE(walk(p2, sets).definitions, 0);
}

// ------------------------------------------------------------------ hostile input

void EntryTest::hostile_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<QByteArray>("error"); // a word the error must contain

    const QByteArray ff9(9, '\xff');
    QTest::newRow("empty") << QByteArray() << QByteArray("truncated");
    QTest::newRow("hint: unfinished varint") << QByteArray("\x80\x80", 2) << QByteArray("truncated");
    QTest::newRow("hint: 11-byte varint") << QByteArray(11, '\x80') << QByteArray("truncated");
    QTest::newRow("hint: more than 64 bits") << QByteArray(ff9 + '\x02') << QByteArray("truncated");
    QTest::newRow("def: id 0") << Bytes().v(1).def(0, { Size }).b(0).m << QByteArray("key set");
    QTest::newRow("def: id 255") << Bytes().v(1).def(255, { Size }).b(255).z(1).m << QByteArray("key set");
    QTest::newRow("def: no fields") << Bytes().v(1).def(1, {}).b(1).m << QByteArray("key set");
    QTest::newRow("def: 65 fields") << [] {
        Bytes b;
        b.v(1).b(0).b(1).v(65);
        for (int i = 0; i < 65; ++i)
            b.v(quint64(ExtraNumber + (i % 63) + (i / 63) * 0x100));
        return b.m;
    }() << QByteArray("key set");
    QTest::newRow("def: huge count") << Bytes().v(1).b(0).b(1).v(std::numeric_limits<quint64>::max()).m
                                     << QByteArray("key set");
    QTest::newRow("def: missing id") << Bytes().v(1).b(0).m << QByteArray("key set");
    QTest::newRow("def: missing count") << Bytes().v(1).b(0).b(1).m << QByteArray("key set");
    QTest::newRow("def: fewer fields than said")
        << Bytes().v(1).b(0).b(1).v(3).v(Size).v(Mode).m << QByteArray("field");
    QTest::newRow("def: field 0") << Bytes().v(1).def(1, { 0 }).m << QByteArray("field");
    QTest::newRow("def: field 0x80") << Bytes().v(1).def(1, { 0x80 }).m << QByteArray("field");
    QTest::newRow("def: field 0x1ff") << Bytes().v(1).def(1, { 0x1ff }).m << QByteArray("field");
    QTest::newRow("def: field 0x300") << Bytes().v(1).def(1, { 0x300 }).m << QByteArray("field");
    QTest::newRow("def: field 0x100") << Bytes().v(1).def(1, { 0x100 }).m << QByteArray("field");
    QTest::newRow("def: field wraps to a valid id") << Bytes().v(1).def(1, { 0x10000 | Name }).m << QByteArray("field");
    QTest::newRow("def: field 2^64-1") << Bytes().v(1).def(1, { std::numeric_limits<quint64>::max() }).m
                                       << QByteArray("field");
    QTest::newRow("def: duplicate field") << Bytes().v(1).def(1, { Size, Mode, Size }).m << QByteArray("field");
    QTest::newRow("def: duplicate string field") << Bytes().v(1).def(1, { Name, Name }).m << QByteArray("field");
    QTest::newRow("def: overlong field varint")
        << Bytes().v(1).b(0).b(1).v(1).raw(QByteArray(11, '\x81')).m << QByteArray("field");
    QTest::newRow("unknown key set") << Bytes().v(1).b(5).z(1).m << QByteArray("unknown key set");
    QTest::newRow("unknown key set 255") << Bytes().v(1).b(255).z(1).m << QByteArray("unknown key set");
    QTest::newRow("unknown key set after a good entry")
        << Bytes().v(2).def(1, { Size }).b(1).z(1).b(2).z(1).m << QByteArray("unknown key set");
    QTest::newRow("entry without values") << Bytes().v(1).def(1, { Size }).b(1).m << QByteArray("truncated");
    QTest::newRow("entry: missing second value")
        << Bytes().v(1).def(1, { Size, Mode }).b(1).z(1).m << QByteArray("truncated");
    QTest::newRow("number: unfinished varint")
        << Bytes().v(1).def(1, { Size }).b(1).b(0x80).m << QByteArray("truncated");
    QTest::newRow("number: 11-byte varint")
        << Bytes().v(1).def(1, { Size }).b(1).raw(QByteArray(10, '\x80')).b(0).m << QByteArray("truncated");
    QTest::newRow("number: 65 bits") << Bytes().v(1).def(1, { Size }).b(1).raw(ff9).b(2).m << QByteArray("truncated");
    QTest::newRow("string: lying length")
        << Bytes().v(1).def(1, { Name }).b(1).v(100).raw("abc").m << QByteArray("truncated");
    QTest::newRow("string: length one too many")
        << Bytes().v(1).def(1, { Name }).b(1).v(4).raw("abc").m << QByteArray("truncated");
    QTest::newRow("string: length 2^63") << Bytes().v(1).def(1, { Name }).b(1).v(quint64(1) << 63).raw("abc").m
                                         << QByteArray("truncated");
    QTest::newRow("string: length 2^64-1")
        << Bytes().v(1).def(1, { Name }).b(1).v(~quint64(0)).raw("abc").m << QByteArray("truncated");
    QTest::newRow("string: length wraps a pointer")
        << Bytes().v(1).def(1, { Name }).b(1).v(~quint64(0) - 2).raw("abc").m << QByteArray("truncated");
    QTest::newRow("atom: ref with empty table") << Bytes().v(1).def(1, { User }).b(1).v(2).m << QByteArray("atom");
    QTest::newRow("atom: ref one past the end")
        << Bytes().v(2).def(1, { User }).b(1).v(1).s("a").b(1).v(3).m << QByteArray("atom");
    QTest::newRow("atom: ref 2^64-1") << Bytes().v(1).def(1, { User }).b(1).v(~quint64(0)).m << QByteArray("atom");
    QTest::newRow("atom: ref before definition in the entry")
        << Bytes().v(1).def(1, { User, Group }).b(1).v(2).v(1).s("x").m << QByteArray("atom");
    QTest::newRow("atom: new, lying length")
        << Bytes().v(1).def(1, { User }).b(1).v(1).v(50).raw("ab").m << QByteArray("truncated");
    QTest::newRow("atom: inline, lying length")
        << Bytes().v(1).def(1, { User }).b(1).v(0).v(50).raw("ab").m << QByteArray("truncated");
    QTest::newRow("atom: missing marker")
        << Bytes().v(1).def(1, { Name, User }).b(1).s("n").m << QByteArray("truncated");
    QTest::newRow("atom: overlong marker")
        << Bytes().v(1).def(1, { User }).b(1).raw(QByteArray(11, '\x80')).m << QByteArray("truncated");
    QTest::newRow("redefined after use") << Bytes().v(2).def(1, { Size }).b(1).z(1).def(1, { Mode }).b(1).z(2).m
                                         << QByteArray("key set");
    QTest::newRow("definition of id 0 after entries")
        << Bytes().v(1).def(1, { Size }).b(1).z(1).b(0).m << QByteArray("key set");
}

void EntryTest::hostile()
{
    QFETCH(QByteArray, payload);
    QFETCH(QByteArray, error);
    EntryDecoder dec;
    QByteArray message;
    const BatchPtr b = hold(dec.decode(payload, &message));
    QVERIFY(!b);
    QVERIFY(!message.isEmpty());
    QVERIFY2(message.contains(error), message.constData());
    // The decoder stays usable afterwards.
    const BatchPtr ok = decodeOk(dec, Bytes().v(1).def(7, { Name }).b(7).s("fine").m);
    QVERIFY(ok);
    QCOMPARE(Entry(ok.data(), 0).name().toByteArray(), QByteArray("fine"));
}

void EntryTest::acceptedEdges_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::addColumn<int>("entries");
    QTest::newRow("hint only") << Bytes().v(0).m << 0;
    QTest::newRow("definitions only") << Bytes().v(0).def(1, { Size }).def(2, { Name }).m << 0;
    QTest::newRow("id 254") << Bytes().v(1).def(254, { Size }).b(254).z(1).m << 1;
    QTest::newRow("64 fields") << [] {
        Bytes b;
        b.v(1).b(0).b(1).v(64);
        for (int i = 0; i < 64; ++i)
            b.v(quint64(i < 63 ? ExtraNumber + i : Size));
        b.b(1);
        for (int i = 0; i < 64; ++i)
            b.z(i);
        return b.m;
    }() << 1;
    QTest::newRow("padded varints") << Bytes().v(1).def(1, { Size }).b(1).raw(QByteArray("\x82\x80\x80\x00", 4)).m << 1;
    QTest::newRow("10-byte varint, top bit 1")
        << Bytes().v(1).def(1, { Size }).b(1).raw(QByteArray(9, '\xff')).b(1).m << 1;
    QTest::newRow("padded field id") << Bytes().v(1).b(0).b(1).v(1).raw(QByteArray("\x83\x80\x00", 3)).b(1).z(3).m << 1;
    QTest::newRow("atom defined then referenced")
        << Bytes().v(2).def(1, { User, Group }).b(1).v(1).s("a").v(2).b(1).v(2).v(2).m << 2;
    QTest::newRow("empty strings") << Bytes().v(1).def(1, { Name, User }).b(1).s("").v(1).s("").m << 1;
    QTest::newRow("huge hint, one entry") << Bytes().v(~quint64(0)).def(1, { Size }).b(1).z(1).m << 1;
}

void EntryTest::acceptedEdges()
{
    QFETCH(QByteArray, payload);
    QFETCH(int, entries);
    EntryDecoder dec;
    const BatchPtr b = decodeOk(dec, payload);
    QVERIFY(b);
    QCOMPARE(b->offsets.size(), entries);
    for (int i = 0; i < entries; ++i) {
        const Entry e(b.data(), quint32(i));
        const std::vector<FieldValue> values = readFields(b.data(), quint32(i));
        QCOMPARE(int(values.size()), e.count());
        for (const FieldValue &v : values) {
            if (fieldType(v.field) == FieldType::Number)
                QCOMPARE(e.number(Field(v.field)), v.number);
            else
                QCOMPARE(e.bytes(Field(v.field)).toByteArray(), v.str);
        }
    }
}

namespace
{
// A payload with every kind of record: two key sets, numbers of every length, strings,
// atoms new / referenced / inline.
QByteArray richPayload(EntryEncoder &enc, int from)
{
    QByteArray p;
    enc.beginPayload(p, 6);
    for (int i = from; i < from + 3; ++i)
        encodeEntry(enc, p, fileValues(i));
    encodeEntry(
        enc, p, { str(Name, "link\xff"), num(Type, 3), str(LinkTarget, "../t"), str(MimeType, "inode/symlink") });
    encodeEntry(enc, p, { num(Size, std::numeric_limits<qint64>::min()), str(User, "root") });
    encodeEntry(enc, p, fileValues(from + 3));
    return p;
}
} // namespace

void EntryTest::truncatedEverywhere()
{
    EntryEncoder enc;
    const QByteArray first = richPayload(enc, 0);
    const QByteArray second = richPayload(enc, 10); // uses key sets and atoms of the first
    std::vector<std::vector<Values>> full(2);
    {
        EntryDecoder dec;
        const BatchPtr b1 = decodeOk(dec, first);
        const BatchPtr b2 = decodeOk(dec, second);
        QVERIFY(b1 && b2);
        for (qsizetype i = 0; i < b1->offsets.size(); ++i)
            full[0].push_back(readFields(b1.data(), quint32(i)));
        for (qsizetype i = 0; i < b2->offsets.size(); ++i)
            full[1].push_back(readFields(b2.data(), quint32(i)));
    }
    int accepted = 0, refused = 0;
    for (int which = 0; which < 2; ++which) {
        const QByteArray &payload = which ? second : first;
        for (qsizetype cut = 0; cut < payload.size(); ++cut) {
            EntryDecoder dec;
            if (which)
                QVERIFY(decodeOk(dec, first));
            // a copy of exactly the prefix, so a read past its end is a real overread
            const QByteArray prefix(payload.constData(), cut);
            QByteArray error;
            const BatchPtr b = hold(dec.decode(prefix, &error));
            if (!b) {
                QVERIFY(!error.isEmpty());
                ++refused;
                continue;
            }
            // A cut at a record boundary is a shorter valid batch: a prefix of the entries.
            ++accepted;
            QVERIFY(b->offsets.size() <= qsizetype(full[size_t(which)].size()));
            for (qsizetype i = 0; i < b->offsets.size(); ++i)
                QVERIFY(sameValues(readFields(b.data(), quint32(i)), full[size_t(which)][size_t(i)]));
        }
    }
    QVERIFY(refused > accepted);
}

void EntryTest::corruptedEverywhere()
{
    // Every byte replaced by a few values: decode either refuses or gives entries whose
    // every getter works (a crash here is a bug; run under ASan for overreads).
    EntryEncoder enc;
    const QByteArray first = richPayload(enc, 0);
    const QByteArray second = richPayload(enc, 10);
    const char replacements[] = { '\x00', '\x01', '\x02', '\x7f', '\x80', '\xff', '\x40' };
    int accepted = 0;
    for (int which = 0; which < 2; ++which) {
        const QByteArray &payload = which ? second : first;
        for (qsizetype pos = 0; pos < payload.size(); ++pos) {
            for (char r : replacements) {
                QByteArray bad(payload.constData(), payload.size());
                bad[pos] = r;
                EntryDecoder dec;
                if (which)
                    QVERIFY(decodeOk(dec, first));
                QByteArray error;
                const BatchPtr b = hold(dec.decode(bad, &error));
                if (!b) {
                    QVERIFY(!error.isEmpty());
                    continue;
                }
                ++accepted;
                for (qsizetype i = 0; i < b->offsets.size(); ++i) {
                    const Entry e(b.data(), quint32(i));
                    for (Field f : e.fields()) {
                        if (fieldType(f) == FieldType::Number)
                            (void)e.number(f);
                        else
                            QVERIFY(e.bytes(f).size() <= bad.size() || fieldType(f) == FieldType::Atom);
                    }
                    QCOMPARE(int(readFields(b.data(), quint32(i)).size()), e.count());
                }
            }
        }
    }
    QVERIFY(accepted > 0);
}

void EntryTest::tooManyAtoms()
{
    // MaxAtoms new atoms per request at most.
    Bytes b;
    b.v(MaxAtoms + 1).def(1, { User });
    for (int i = 0; i <= MaxAtoms; ++i)
        b.b(1).v(1).s("");
    EntryDecoder dec;
    QByteArray error;
    QVERIFY(!hold(dec.decode(b.m, &error)));
    QVERIFY2(error.contains("atom"), error.constData());

    // Exactly MaxAtoms is fine, and references to the last one work.
    Bytes ok;
    ok.v(MaxAtoms).def(1, { User });
    for (int i = 0; i < MaxAtoms; ++i)
        ok.b(1).v(1).s(QByteArray::number(i));
    ok.b(1).v(MaxAtoms - 1 + 2);
    EntryDecoder dec2;
    const BatchPtr good = decodeOk(dec2, ok.m);
    QVERIFY(good);
    QCOMPARE(good->offsets.size(), MaxAtoms + 1);
    QCOMPARE(Entry(good.data(), MaxAtoms).bytes(User).toByteArray(), QByteArray::number(MaxAtoms - 1));

    // MaxAtomBytes per request, across batches.
    EntryDecoder dec3;
    const QByteArray big(1024 * 1024, 'a');
    int refusedAt = -1;
    for (int i = 0; i < 10 && refusedAt < 0; ++i) {
        QByteArray p = Bytes().v(1).def(1, { User }).b(1).v(1).s(big).m;
        QByteArray err;
        if (!hold(dec3.decode(p, &err)))
            refusedAt = i;
    }
    QCOMPARE(refusedAt, int(MaxAtomBytes / big.size()));
}

// ------------------------------------------------------------------ MetaData

void EntryTest::metaDataRoundTrip_data()
{
    QTest::addColumn<MetaData>("meta");
    QTest::newRow("empty") << MetaData();
    MetaData a;
    a.setNumber("details", 0x1f);
    a.setNumber("min", std::numeric_limits<qint64>::min());
    a.setNumber("max", std::numeric_limits<qint64>::max());
    a.setNumber("neg", -1);
    a.setBytes("mimetype", "text/plain");
    a.setBytes("empty", "");
    a.setBytes("binary", QByteArray("\x00\xff\x80", 3));
    a.setString("text", QStringLiteral("Grüße €"));
    QTest::newRow("mixed") << a;
    MetaData longKey;
    longKey.setBytes(QByteArray(MetaData::MaxKeyLength, 'k'), QByteArray(100000, 'v'));
    QTest::newRow("longest key, long value") << longKey;
    MetaData many;
    for (int i = 0; i < MetaData::MaxItems; ++i)
        many.setNumber(QByteArray("k" + QByteArray::number(i)), i);
    QTest::newRow("MaxItems") << many;
}

void EntryTest::metaDataRoundTrip()
{
    QFETCH(MetaData, meta);
    QByteArray wire("prefix");
    meta.encode(wire);
    wire += "tail";
    MetaData back;
    back.setNumber("stale", 1); // decode replaces everything
    qsizetype used = -1;
    QVERIFY(back.decode(QByteArrayView(wire).sliced(6), &used));
    QCOMPARE(used, wire.size() - 6 - 4);
    QVERIFY(back == meta);
    QCOMPARE(back.keys(), meta.keys());
    QCOMPARE(back.size(), meta.size());
    for (const QByteArray &k : meta.keys()) {
        QCOMPARE(back.isNumber(k), meta.isNumber(k));
        QCOMPARE(back.number(k), meta.number(k));
        QCOMPARE(back.bytes(k), meta.bytes(k));
    }
    QVERIFY(!back.contains("stale"));
    // without the consumed pointer, trailing bytes are allowed too (the caller checks)
    MetaData again;
    QVERIFY(again.decode(QByteArrayView(wire).sliced(6)));
    QVERIFY(again == meta);
}

void EntryTest::metaDataApi()
{
    MetaData m;
    QVERIFY(m.isEmpty());
    QCOMPARE(m.number("x", 7), qint64(7));
    QVERIFY(m.bytes("x").isEmpty());
    m.setNumber("a", 1);
    m.setBytes("b", "two");
    m.setString("c", QStringLiteral("drei"));
    QCOMPARE(m.size(), 3);
    QVERIFY(m.isNumber("a"));
    QVERIFY(!m.isNumber("b"));
    QVERIFY(!m.isNumber("zz"));
    QCOMPARE(m.number("b", -3), qint64(-3)); // not a number: the default
    QVERIFY(m.bytes("a").isEmpty()); // a number: no bytes
    QCOMPARE(m.string("c"), QStringLiteral("drei"));
    m.setBytes("a", "now bytes"); // replaces, keeps its place
    QCOMPARE(m.keys(), (QList<QByteArray> { "a", "b", "c" }));
    QVERIFY(!m.isNumber("a"));
    QCOMPARE(m.bytes("a"), QByteArray("now bytes"));
    m.remove("b");
    m.remove("nothing");
    QCOMPARE(m.keys(), (QList<QByteArray> { "a", "c" }));
    MetaData other;
    other.setNumber("c", 3);
    other.setNumber("d", 4);
    m.merge(other);
    QCOMPARE(m.keys(), (QList<QByteArray> { "a", "c", "d" }));
    QCOMPARE(m.number("c"), qint64(3));
    QVERIFY(m != other);
    MetaData copy = m;
    QVERIFY(copy == m);
    copy.setNumber("d", 5);
    QVERIFY(copy != m);
}

void EntryTest::metaDataMalformed_data()
{
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("count only") << Bytes().v(1).m;
    QTest::newRow("too many items") << Bytes().v(MetaData::MaxItems + 1).m;
    QTest::newRow("huge count") << Bytes().v(~quint64(0)).m;
    QTest::newRow("empty key") << Bytes().v(1).s("").b(0).z(1).m;
    QTest::newRow("key too long") << Bytes().v(1).s(QByteArray(MetaData::MaxKeyLength + 1, 'k')).b(0).z(1).m;
    QTest::newRow("key lying length") << Bytes().v(1).v(10).raw("abc").m;
    QTest::newRow("missing type") << Bytes().v(1).s("k").m;
    QTest::newRow("bad type 2") << Bytes().v(1).s("k").b(2).z(1).m;
    QTest::newRow("bad type ff") << Bytes().v(1).s("k").b(0xff).m;
    QTest::newRow("missing number") << Bytes().v(1).s("k").b(0).m;
    QTest::newRow("overlong number") << Bytes().v(1).s("k").b(0).raw(QByteArray(11, '\xff')).m;
    QTest::newRow("value lying length") << Bytes().v(1).s("k").b(1).v(100).raw("abc").m;
    QTest::newRow("value length 2^64-1") << Bytes().v(1).s("k").b(1).v(~quint64(0)).m;
    QTest::newRow("duplicate key") << Bytes().v(2).s("k").b(0).z(1).s("k").b(1).s("x").m;
    QTest::newRow("fewer items than said") << Bytes().v(3).s("a").b(0).z(1).s("b").b(0).z(2).m;
}

void EntryTest::metaDataMalformed()
{
    QFETCH(QByteArray, wire);
    MetaData m;
    m.setNumber("stale", 1);
    qsizetype used = -1;
    QVERIFY(!m.decode(wire, &used));
    QVERIFY(m.isEmpty()); // nothing half-decoded is left
    QCOMPARE(used, qsizetype(-1));
}

void EntryTest::metaDataTruncated()
{
    MetaData a;
    a.setNumber("offset", 123456789);
    a.setBytes("url", "sftp://host/p\xff");
    a.setNumber("neg", std::numeric_limits<qint64>::min());
    a.setBytes("e", "");
    QByteArray wire;
    a.encode(wire);
    for (qsizetype cut = 0; cut < wire.size(); ++cut) {
        MetaData m;
        QVERIFY2(!m.decode(QByteArray(wire.constData(), cut)), QByteArray::number(cut).constData());
        QVERIFY(m.isEmpty());
    }
    MetaData m;
    QVERIFY(m.decode(wire));
    QVERIFY(m == a);
}

void EntryTest::oversizedStringRefusedLoudly()
{
    // Run in a child: a debug build asserts (aborts), a release build warns and keeps the
    // entry as it was; never an entry silently emptied.
    if (qEnvironmentVariableIsSet("QVFS_ENTRYTEST_OVERSIZE")) {
        Entry e;
        e.setString(Name, "kept");
        e.setNumber(Size, 7);
        e.setString(Name, QByteArray(Entry::MaxEntryBytes + 1, 'x'));
        const bool kept = e.name() == QByteArrayView("kept") && e.size() == 7;
        std::fprintf(stdout, kept ? "KEPT\n" : "CHANGED\n");
        std::fflush(stdout);
        std::_Exit(kept ? 0 : 1);
    }
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QVFS_ENTRYTEST_OVERSIZE"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), { QStringLiteral("oversizedStringRefusedLoudly") });
    QVERIFY(child.waitForFinished(30000));
    const QByteArray out = child.readAllStandardOutput() + child.readAllStandardError();
#ifdef QT_NO_DEBUG
    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QVERIFY2(out.contains("\nKEPT\n") && !out.contains("CHANGED"), out.constData());
    QVERIFY2(out.contains("refusing to make an entry"), out.constData());
#else
    QVERIFY2(child.exitStatus() == QProcess::CrashExit || child.exitCode() != 0, out.constData());
    QVERIFY2(out.contains("MaxEntryBytes"), out.constData());
#endif
}

QTEST_GUILESS_MAIN(EntryTest)

#include "entrytest.moc"
