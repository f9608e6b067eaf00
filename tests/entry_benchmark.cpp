// SPDX-License-Identifier: LGPL-2.1-or-later
// entry_benchmark: the cost of one listing's entries on the wire and in the application,
// for Qvfs's batch codec and for two naive baselines measured in the same run:
//   (a) a QHash<uint, QVariant> per entry, streamed with QDataStream;
//   (b) a KIO-like std::vector<{QString, qint64, uint}> per entry, streamed like KIO
//       (4-byte count; per field a 4-byte id and an 8-byte number, or a QString as a
//       4-byte length and UTF-16).
// Entries are shaped like `ls -l` output: Name ("file000123"), Type, Mode, Size, MTime,
// MTimeNs, NLink, Uid, Gid, User and Group. The app side keeps every decoded entry.
//
// Usage: entry_benchmark [--quick] [--strict] [--entries N]
//   --quick   10,000 entries (ctest)
//   --strict  exit 1 if a bar on bytes or allocations is not met (times never fail)
//
// Allocations are counted by interposing the malloc family (Qt's containers call malloc
// directly) and the global operator new/delete; heap bytes are malloc_usable_size().
#include "entry.h"
#include "entrycodec_p.h"

#include <QByteArray>
#include <QDataStream>
#include <QElapsedTimer>
#include <QHash>
#include <QIODevice>
#include <QList>
#include <QString>
#include <QVariant>
#include <QtEndian>

#include "alloccount.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <new>
#include <vector>

// Allocations are counted by tests/alloccount.cpp (the malloc family, interposed).
namespace
{
struct Counters
{
    unsigned long long calls;
    long long inUse;
};
Counters counters()
{
    const AllocCount::Snapshot s = AllocCount::now();
    return Counters { s.calls, s.inUse };
}
} // namespace

// ------------------------------------------------------------------ the data

using namespace Qvfs;
using Qvfs::Internal::EntryBatch;
using Qvfs::Internal::EntryDecoder;
using Qvfs::Internal::EntryEncoder;

namespace
{

constexpr qsizetype BatchBytes = 60 * 1024; // what the worker flushes at

struct Source
{
    char name[11]; // "file000123" + NUL
    qint64 type, mode, size, mtime, mtimeNs, nlink, uid, gid;
    int user, group; // index into the names below
};
const char *const userNames[] = { "bob", "alice", "root" };
const char *const groupNames[] = { "users", "staff", "wheel" };

std::vector<Source> makeSource(int n)
{
    std::vector<Source> v(static_cast<size_t>(n));
    quint64 seed = 0x9e3779b97f4a7c15ull;
    auto rnd = [&seed] {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        return seed;
    };
    for (int i = 0; i < n; ++i) {
        Source &s = v[size_t(i)];
        std::snprintf(s.name, sizeof s.name, "file%06d", i % 1000000);
        const bool dir = i % 50 == 0;
        s.type = dir ? 2 : 1;
        s.mode = dir ? 0755 : 0644;
        s.size = dir ? 4096 : qint64(rnd() % (1024 * 1024));
        s.mtime = 1700000000 + qint64(rnd() % (86400 * 30));
        s.mtimeNs = qint64(rnd() % 1000000000);
        s.nlink = dir ? 2 : 1;
        s.uid = 1000;
        s.gid = 1000;
        s.user = i % 97 == 0 ? 2 : 0;
        s.group = i % 89 == 0 ? 2 : (i % 3 == 0 ? 1 : 0);
    }
    return v;
}

struct Result
{
    const char *label;
    double encodeNs = 1e300, decodeNs = 1e300, readNs = 1e300;
    qint64 wireBytes = 0;
    double encodeAllocs = 0; // per entry, encoder side (the worker)
    double decodeAllocs = 0; // per entry, decoding into kept entries (the app)
    double keptBytes = 0; // heap bytes per kept entry
    bool verified = false;
    quint64 checksum = 0;
};

void keepBest(Result &best, const Result &r)
{
    const double e = std::min(best.encodeNs, r.encodeNs);
    const double d = std::min(best.decodeNs, r.decodeNs);
    const double rd = std::min(best.readNs, r.readNs);
    best = r;
    best.encodeNs = e;
    best.decodeNs = d;
    best.readNs = rd;
}

// Frames as the app receives them: FrameReader hands out one QByteArray per payload.
QByteArray receive(const QByteArray &frame)
{
    return QByteArray(frame.constData(), frame.size());
}

// ------------------------------------------------------------------ Qvfs

Result runQvfs(const std::vector<Source> &src)
{
    Result r;
    r.label = "qvfs batch codec";
    const int n = int(src.size());
    std::vector<QByteArray> wire;
    wire.reserve(size_t(n / 1000 + 16));

    // encode (the worker side): one reused buffer, flushed at BatchBytes
    {
        EntryEncoder enc;
        QByteArray batch;
        batch.reserve(BatchBytes + 4096);
        const Counters c0 = counters();
        QElapsedTimer t;
        t.start();
        int inBatch = 0;
        int lastCount = 0;
        enc.beginPayload(batch, 0);
        for (const Source &s : src) {
            enc.begin(batch);
            enc.addString(Name, QByteArrayView(s.name, 10));
            enc.addNumber(Type, s.type);
            enc.addNumber(Mode, s.mode);
            enc.addNumber(Size, s.size);
            enc.addNumber(MTime, s.mtime);
            enc.addNumber(MTimeNs, s.mtimeNs);
            enc.addNumber(NLink, s.nlink);
            enc.addNumber(Uid, s.uid);
            enc.addNumber(Gid, s.gid);
            enc.addAtom(User, userNames[s.user]);
            enc.addAtom(Group, groupNames[s.group]);
            if (!enc.end())
                std::abort();
            ++inBatch;
            if (batch.size() >= BatchBytes) {
                wire.push_back(batch); // "written to the socket" (a copy, like FrameWriter)
                wire.back().detach();
                batch.resize(0);
                lastCount = inBatch;
                inBatch = 0;
                enc.beginPayload(batch, quint32(lastCount));
            }
        }
        if (inBatch) {
            wire.push_back(batch);
            wire.back().detach();
        }
        r.encodeNs = double(t.nsecsElapsed());
        const Counters c1 = counters();
        // the copies into `wire` stand for the socket write, not the encoder
        r.encodeAllocs = double(c1.calls - c0.calls - wire.size()) / n;
    }
    for (const QByteArray &w : wire)
        r.wireBytes += w.size() + Wire::HeaderSize;

    // decode (the app side): every entry kept
    const Counters c0 = counters();
    QElapsedTimer t;
    t.start();
    EntryList kept;
    {
        EntryDecoder dec;
        kept.reserveSegments(qsizetype(wire.size()));
        for (const QByteArray &frame : wire) {
            const QByteArray payload = receive(frame);
            QByteArray error;
            const QExplicitlySharedDataPointer<EntryBatch> batch = dec.decode(payload, &error);
            if (!batch) {
                std::fprintf(stderr, "entry_benchmark: decode failed: %s\n", error.constData());
                return r;
            }
            kept.append(EntryList::fromBatch(batch.data()));
        }
    }
    r.decodeNs = double(t.nsecsElapsed());
    const Counters c1 = counters();
    r.decodeAllocs = double(c1.calls - c0.calls) / n;
    r.keptBytes = double(c1.inUse - c0.inUse) / n;

    // read: what a file manager shows
    t.start();
    quint64 sum = 0;
    for (const Entry &e : kept)
        sum += quint64(e.name().size()) + quint64(e.size()) + quint64(e.number(MTime)) + quint64(e.bytes(User).size());
    r.readNs = double(t.nsecsElapsed());
    r.checksum = sum;

    // verify
    bool ok = kept.size() == n;
    qsizetype i = 0;
    for (const Entry &e : kept) {
        if (!ok)
            break;
        const Source &s = src[size_t(i++)];
        ok = e.name() == QByteArrayView(s.name, 10) && e.number(Type) == s.type && e.number(Mode) == s.mode
            && e.size() == s.size && e.number(MTime) == s.mtime && e.number(MTimeNs) == s.mtimeNs
            && e.number(NLink) == s.nlink && e.number(Uid) == s.uid && e.number(Gid) == s.gid
            && e.bytes(User) == QByteArrayView(userNames[s.user])
            && e.bytes(Group) == QByteArrayView(groupNames[s.group]);
    }
    r.verified = ok;
    return r;
}

// ------------------------------------------------------------------ (a) QHash<uint, QVariant>

Result runHash(const std::vector<Source> &src)
{
    Result r;
    r.label = "QHash<uint,QVariant>";
    const int n = int(src.size());
    std::vector<QByteArray> wire;

    {
        const Counters c0 = counters();
        QElapsedTimer t;
        t.start();
        QByteArray batch;
        QDataStream *out = nullptr;
        quint32 count = 0;
        auto flush = [&] {
            delete out;
            out = nullptr;
            qToBigEndian(count, batch.data()); // patch the count
            wire.push_back(batch);
            batch = QByteArray();
            count = 0;
        };
        for (const Source &s : src) {
            if (!out) {
                out = new QDataStream(&batch, QIODevice::WriteOnly);
                *out << quint32(0);
            }
            QHash<uint, QVariant> h;
            h.insert(Name, QString::fromUtf8(s.name, 10));
            h.insert(Type, s.type);
            h.insert(Mode, s.mode);
            h.insert(Size, s.size);
            h.insert(MTime, s.mtime);
            h.insert(MTimeNs, s.mtimeNs);
            h.insert(NLink, s.nlink);
            h.insert(Uid, s.uid);
            h.insert(Gid, s.gid);
            h.insert(User, QString::fromLatin1(userNames[s.user]));
            h.insert(Group, QString::fromLatin1(groupNames[s.group]));
            *out << h;
            ++count;
            if (batch.size() >= BatchBytes)
                flush();
        }
        if (out)
            flush();
        r.encodeNs = double(t.nsecsElapsed());
        r.encodeAllocs = double(counters().calls - c0.calls) / n;
    }
    for (const QByteArray &w : wire)
        r.wireBytes += w.size() + Wire::HeaderSize;

    const Counters c0 = counters();
    QElapsedTimer t;
    t.start();
    QList<QHash<uint, QVariant>> kept;
    for (const QByteArray &frame : wire) {
        const QByteArray payload = receive(frame);
        QDataStream in(payload);
        quint32 count = 0;
        in >> count;
        kept.reserve(kept.size() + qsizetype(std::min<quint32>(count, quint32(payload.size()))));
        for (quint32 k = 0; k < count && in.status() == QDataStream::Ok; ++k) {
            QHash<uint, QVariant> h;
            in >> h;
            kept.append(std::move(h));
        }
    }
    r.decodeNs = double(t.nsecsElapsed());
    const Counters c1 = counters();
    r.decodeAllocs = double(c1.calls - c0.calls) / n;
    r.keptBytes = double(c1.inUse - c0.inUse) / n;

    t.start();
    quint64 sum = 0;
    for (const QHash<uint, QVariant> &h : std::as_const(kept))
        sum += quint64(h.value(Name).toString().size()) + quint64(h.value(Size).toLongLong())
            + quint64(h.value(MTime).toLongLong()) + quint64(h.value(User).toString().size());
    r.readNs = double(t.nsecsElapsed());
    r.checksum = sum;

    bool ok = kept.size() == n;
    for (qsizetype i = 0; ok && i < kept.size(); ++i) {
        const Source &s = src[size_t(i)];
        const QHash<uint, QVariant> &h = kept.at(i);
        ok = h.value(Name).toString() == QString::fromLatin1(s.name) && h.value(Size).toLongLong() == s.size
            && h.value(MTimeNs).toLongLong() == s.mtimeNs
            && h.value(Group).toString() == QString::fromLatin1(groupNames[s.group]);
    }
    r.verified = ok;
    return r;
}

// ------------------------------------------------------------------ (b) KIO-like

struct KioField
{
    QString str;
    qint64 num = 0;
    uint id = 0;
};
using KioEntry = std::vector<KioField>;

bool isStringField(uint id)
{
    return fieldType(quint16(id)) != FieldType::Number;
}

Result runKio(const std::vector<Source> &src)
{
    Result r;
    r.label = "KIO-like vector";
    const int n = int(src.size());
    std::vector<QByteArray> wire;

    {
        const Counters c0 = counters();
        QElapsedTimer t;
        t.start();
        QByteArray batch;
        QDataStream *out = nullptr;
        quint32 count = 0;
        auto flush = [&] {
            delete out;
            out = nullptr;
            qToBigEndian(count, batch.data());
            wire.push_back(batch);
            batch = QByteArray();
            count = 0;
        };
        auto addNum = [](KioEntry &e, uint id, qint64 v) {
            KioField f;
            f.id = id;
            f.num = v;
            e.push_back(std::move(f));
        };
        auto addStr = [](KioEntry &e, uint id, QString v) {
            KioField f;
            f.id = id;
            f.str = std::move(v);
            e.push_back(std::move(f));
        };
        for (const Source &s : src) {
            if (!out) {
                out = new QDataStream(&batch, QIODevice::WriteOnly);
                *out << quint32(0);
            }
            KioEntry e;
            e.reserve(11);
            addStr(e, Name, QString::fromUtf8(s.name, 10));
            addNum(e, Type, s.type);
            addNum(e, Mode, s.mode);
            addNum(e, Size, s.size);
            addNum(e, MTime, s.mtime);
            addNum(e, MTimeNs, s.mtimeNs);
            addNum(e, NLink, s.nlink);
            addNum(e, Uid, s.uid);
            addNum(e, Gid, s.gid);
            addStr(e, User, QString::fromLatin1(userNames[s.user]));
            addStr(e, Group, QString::fromLatin1(groupNames[s.group]));
            // like KIO's UDSEntry operator<<: count, then id and value per field
            *out << quint32(e.size());
            for (const KioField &f : e) {
                *out << quint32(f.id);
                if (isStringField(f.id))
                    *out << f.str;
                else
                    *out << qint64(f.num);
            }
            ++count;
            if (batch.size() >= BatchBytes)
                flush();
        }
        if (out)
            flush();
        r.encodeNs = double(t.nsecsElapsed());
        r.encodeAllocs = double(counters().calls - c0.calls) / n;
    }
    for (const QByteArray &w : wire)
        r.wireBytes += w.size() + Wire::HeaderSize;

    const Counters c0 = counters();
    QElapsedTimer t;
    t.start();
    std::vector<KioEntry> kept;
    for (const QByteArray &frame : wire) {
        const QByteArray payload = receive(frame);
        QDataStream in(payload);
        quint32 count = 0;
        in >> count;
        kept.reserve(kept.size() + std::min<size_t>(count, size_t(payload.size())));
        for (quint32 k = 0; k < count && in.status() == QDataStream::Ok; ++k) {
            quint32 fields = 0;
            in >> fields;
            KioEntry e;
            e.reserve(std::min<quint32>(fields, 64));
            for (quint32 j = 0; j < fields && in.status() == QDataStream::Ok; ++j) {
                KioField f;
                quint32 id = 0;
                in >> id;
                f.id = id;
                if (isStringField(id)) {
                    in >> f.str;
                } else {
                    qint64 v = 0;
                    in >> v;
                    f.num = v;
                }
                e.push_back(std::move(f));
            }
            kept.push_back(std::move(e));
        }
    }
    r.decodeNs = double(t.nsecsElapsed());
    const Counters c1 = counters();
    r.decodeAllocs = double(c1.calls - c0.calls) / n;
    r.keptBytes = double(c1.inUse - c0.inUse) / n;

    auto find = [](const KioEntry &e, uint id) -> const KioField * {
        for (const KioField &f : e) {
            if (f.id == id)
                return &f;
        }
        return nullptr;
    };
    t.start();
    quint64 sum = 0;
    for (const KioEntry &e : kept) {
        const KioField *name = find(e, Name), *size = find(e, Size), *mtime = find(e, MTime), *user = find(e, User);
        sum += quint64(name ? name->str.size() : 0) + quint64(size ? size->num : 0) + quint64(mtime ? mtime->num : 0)
            + quint64(user ? user->str.size() : 0);
    }
    r.readNs = double(t.nsecsElapsed());
    r.checksum = sum;

    bool ok = int(kept.size()) == n;
    for (size_t i = 0; ok && i < kept.size(); ++i) {
        const Source &s = src[i];
        const KioField *name = find(kept[i], Name), *size = find(kept[i], Size), *group = find(kept[i], Group);
        ok = name && size && group && name->str == QString::fromLatin1(s.name) && size->num == s.size
            && group->str == QString::fromLatin1(groupNames[s.group]);
    }
    r.verified = ok;
    return r;
}

// ------------------------------------------------------------------ report

double perSec(double count, double ns)
{
    return ns > 0 ? count * 1e9 / ns : 0;
}

} // namespace

int main(int argc, char **argv)
{
    int entries = 100000;
    bool strict = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) {
            entries = 10000;
        } else if (!std::strcmp(argv[i], "--strict")) {
            strict = true;
        } else if (!std::strcmp(argv[i], "--entries") && i + 1 < argc) {
            entries = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--strict] [--entries N]\n", argv[0]);
            return 2;
        }
    }
    if (entries < 100) {
        std::fprintf(stderr, "entry_benchmark: at least 100 entries\n");
        return 2;
    }

    const std::vector<Source> src = makeSource(entries);
    const int rounds = 3; // times: best of three; bytes and allocations are the same each round
    Result results[3];
    for (int round = 0; round < rounds; ++round) {
        keepBest(results[0], runQvfs(src));
        keepBest(results[1], runHash(src));
        keepBest(results[2], runKio(src));
    }

    std::printf("entry_benchmark: %d entries like `ls -l` (Name \"file000123\", Type, Mode, Size, MTime, MTimeNs,\n"
                "NLink, Uid, Gid, User, Group), batches of ~%lld KB, every decoded entry kept; best of %d\n\n",
        entries, static_cast<long long>(BatchBytes / 1024), rounds);
    std::printf("%-22s %10s %8s %10s %8s %10s %8s %9s %9s %9s\n", "", "encode", "encode", "decode", "decode", "read",
        "wire", "heap B/", "allocs/", "allocs/");
    std::printf("%-22s %10s %8s %10s %8s %10s %8s %9s %9s %9s\n", "implementation", "entries/s", "MB/s", "entries/s",
        "MB/s", "entries/s", "B/entry", "kept ent", "decoded", "encoded");
    for (const Result &r : results) {
        const double wireMB = double(r.wireBytes) / 1e6;
        std::printf("%-22s %10.3g %8.1f %10.3g %8.1f %10.3g %8.1f %9.1f %9.3f %9.3f%s\n", r.label,
            perSec(entries, r.encodeNs), perSec(wireMB, r.encodeNs), perSec(entries, r.decodeNs),
            perSec(wireMB, r.decodeNs), perSec(entries, r.readNs), double(r.wireBytes) / entries, r.keptBytes,
            r.decodeAllocs, r.encodeAllocs, r.verified ? "" : "  VALUES WRONG");
    }

    const Result &q = results[0];
    auto ratio = [](double base, double mine) { return mine > 0 ? base / mine : 1e9; };
    std::printf("\nratios baseline/qvfs     wire   heap   allocs  decode time  encode time\n");
    for (int b = 1; b < 3; ++b) {
        const Result &r = results[b];
        std::printf("  %-22s %5.1fx %5.1fx %7.0fx %11.1fx %11.1fx\n", r.label,
            ratio(double(r.wireBytes), double(q.wireBytes)), ratio(r.keptBytes, q.keptBytes),
            ratio(r.decodeAllocs, q.decodeAllocs), ratio(r.decodeNs, q.decodeNs), ratio(r.encodeNs, q.encodeNs));
    }

    struct Bar
    {
        const char *what;
        double value;
        double limit;
        bool ok;
    };
    const double wirePerEntry = double(q.wireBytes) / entries;
    double minWireRatio = 1e9, minHeapRatio = 1e9, minAllocRatio = 1e9;
    for (int b = 1; b < 3; ++b) {
        minWireRatio = std::min(minWireRatio, ratio(double(results[b].wireBytes), double(q.wireBytes)));
        minHeapRatio = std::min(minHeapRatio, ratio(results[b].keptBytes, q.keptBytes));
        minAllocRatio = std::min(minAllocRatio, ratio(results[b].decodeAllocs, q.decodeAllocs));
    }
    const Bar bars[] = {
        { "wire bytes per entry <= 40", wirePerEntry, 40, wirePerEntry <= 40 },
        { "allocations per decoded entry <= 0.1", q.decodeAllocs, 0.1, q.decodeAllocs <= 0.1 },
        { "heap bytes per kept entry <= 100", q.keptBytes, 100, q.keptBytes <= 100 },
        { "wire >= 3x better than each baseline", minWireRatio, 3, minWireRatio >= 3 },
        { "allocations >= 3x better than each baseline", minAllocRatio, 3, minAllocRatio >= 3 },
        { "heap >= 3x better than each baseline", minHeapRatio, 3, minHeapRatio >= 3 },
    };
    std::printf("\nbars\n");
    bool allOk = true;
    for (const Bar &b : bars) {
        std::printf("  %-46s %10.3f  %s\n", b.what, b.value, b.ok ? "ok" : "NOT MET");
        allOk = allOk && b.ok;
    }
    bool verified = true;
    for (const Result &r : results)
        verified = verified && r.verified;
    if (!verified) {
        std::printf("FAILED: decoded values differ from the source\n");
        return 1;
    }
    if (strict && !allOk) {
        std::printf("FAILED: a bar is not met (--strict)\n");
        return 1;
    }
    return 0;
}
