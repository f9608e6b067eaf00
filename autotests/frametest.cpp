// SPDX-License-Identifier: LGPL-2.1-or-later
// Framing (FrameReader/FrameWriter) and the small message payloads (Command, Error,
// Hello): round trips, splits at every byte and malformed input.
#include "connection_p.h"
#include "frame_p.h"
#include "metadata.h"
#include "requests_p.h"
#include "wire_p.h"

#include "testutil/wirebytes.h"

#include <QTest>

#include <fcntl.h>
#include <limits>
#include <sys/socket.h>
#include <unistd.h>

Q_DECLARE_METATYPE(Qvfs::MetaData)

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

struct Frame
{
    Wire::Header header;
    QByteArray payload;
};

QByteArray frameBytes(Wire::Msg type, quint32 requestId, const QByteArray &payload, quint16 flags = 0)
{
    char h[Wire::HeaderSize];
    Wire::putHeader(h, Wire::Header { quint32(payload.size()), quint16(type), flags, requestId });
    return QByteArray(h, Wire::HeaderSize) + payload;
}

QByteArray headerOnly(quint32 length, quint16 type = quint16(Wire::Msg::Data), quint32 requestId = 1)
{
    char h[Wire::HeaderSize];
    Wire::putHeader(h, Wire::Header { length, type, 0, requestId });
    return QByteArray(h, Wire::HeaderSize);
}

// Takes every whole frame out of \a reader; false if it reported Bad.
bool drain(FrameReader &reader, QList<Frame> *out)
{
    for (;;) {
        Frame f;
        switch (reader.next(&f.header, &f.payload)) {
        case FrameReader::Got:
            out->append(f);
            continue;
        case FrameReader::NeedMore:
            return true;
        case FrameReader::Bad:
            return false;
        }
    }
}

QByteArray pattern(qsizetype n, int seed)
{
    QByteArray b(n, Qt::Uninitialized);
    for (qsizetype i = 0; i < n; ++i)
        b[i] = char((i * 31 + seed) & 0xff);
    return b;
}

using Bytes = QvfsTest::WireBytes;

} // namespace

class FrameTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void header();
    void varints_data();
    void varints();
    void readerChecksBounds();
    void splitAtEveryByte();
    void oneByteAtATime();
    void severalFramesInOneFeed();
    void largeFrames();
    void lengthOutOfBounds_data();
    void lengthOutOfBounds();
    void badAfterGoodFrames();
    void socketRoundTrip();
    void socketEofAndWouldBlock();
    void writerNeverDrained();
    void command_data();
    void command();
    void commandMalformed_data();
    void commandMalformed();
    void error_data();
    void error();
    void errorMalformed_data();
    void errorMalformed();
    void hello();
    void helloMalformed_data();
    void helloMalformed();
    void truncatedMessages();
};

void FrameTest::header()
{
    const Wire::Header h { 0x01020304u, 0xa0b1, 0xc2d3, 0xdeadbeefu };
    char buf[Wire::HeaderSize];
    Wire::putHeader(buf, h);
    // little endian: length, type | flags << 16, request id
    QCOMPARE(QByteArray(buf, Wire::HeaderSize).toHex(), QByteArray("04030201b1a0d3c2efbeadde"));
    const Wire::Header back = Wire::getHeader(buf);
    QCOMPARE(back.length, h.length);
    QCOMPARE(back.type, h.type);
    QCOMPARE(back.flags, h.flags);
    QCOMPARE(back.requestId, h.requestId);
}

void FrameTest::varints_data()
{
    QTest::addColumn<quint64>("value");
    const quint64 rows[] = { 0, 1, 127, 128, 255, 16383, 16384, quint64(1) << 32, (quint64(1) << 63) - 1,
        quint64(1) << 63, std::numeric_limits<quint64>::max() };
    for (quint64 v : rows)
        QTest::addRow("%llu", static_cast<unsigned long long>(v)) << v;
}

void FrameTest::varints()
{
    QFETCH(quint64, value);
    QByteArray b;
    Wire::appendVarint(b, value);
    int expected = 1;
    for (quint64 v = value; v >= 0x80; v >>= 7)
        ++expected;
    QCOMPARE(b.size(), expected);
    Wire::Reader r(b);
    QCOMPARE(r.varint(), value);
    QVERIFY(r.ok());
    QVERIFY(r.atEnd());
    // every strict prefix is refused
    for (qsizetype cut = 0; cut < b.size(); ++cut) {
        Wire::Reader t(QByteArrayView(b.constData(), cut));
        QCOMPARE(t.varint(), quint64(0));
        QVERIFY(!t.ok());
    }
    // bounded reads
    Wire::Reader bounded(b);
    const quint64 got = bounded.varint(value == 0 ? 0 : value - 1);
    QVERIFY(value == 0 ? bounded.ok() : !bounded.ok());
    QCOMPARE(got, quint64(0));
    // signed: zigzag round trip
    const qint64 s = qint64(value);
    QCOMPARE(Wire::unzigzag(Wire::zigzag(s)), s);
}

void FrameTest::readerChecksBounds()
{
    Wire::Reader r(QByteArrayView("\x05"
                                  "abc",
        4));
    QVERIFY(r.bytes().isNull()); // says 5, has 3
    QVERIFY(!r.ok());
    QVERIFY(r.atEnd());
    QCOMPARE(r.byte(), quint8(0)); // every later read fails too
    QCOMPARE(r.varint(), quint64(0));

    Wire::Reader m(QByteArrayView("\x03"
                                  "abc",
        4));
    QVERIFY(m.bytes(2).isNull()); // longer than allowed
    QVERIFY(!m.ok());

    const QByteArray overlong(11, '\x80');
    Wire::Reader over(overlong);
    over.varint();
    QVERIFY(!over.ok());
    const QByteArray b65(QByteArray(9, '\xff') + '\x02');
    Wire::Reader bits65(b65);
    bits65.varint();
    QVERIFY(!bits65.ok());
    const QByteArray b64(QByteArray(9, '\xff') + '\x01');
    Wire::Reader bits64(b64);
    QCOMPARE(bits64.varint(), std::numeric_limits<quint64>::max());
    QVERIFY(bits64.ok());
}

namespace
{
QList<Frame> sampleFrames()
{
    return {
        Frame { Wire::Header { 0, quint16(Wire::Msg::Heartbeat), 0, 1 }, QByteArray() },
        Frame { Wire::Header { 5, quint16(Wire::Msg::Data), 3, 2 }, QByteArray("hello") },
        Frame { Wire::Header { 300, quint16(Wire::Msg::Entries), 0, 0xffffffffu }, pattern(300, 7) },
        Frame { Wire::Header { 0, quint16(Wire::Msg::Finished), 0, 4 }, QByteArray() },
        Frame { Wire::Header { 1, 0xffff, 0xffff, 0 }, QByteArray("\0", 1) },
    };
}

QByteArray streamOf(const QList<Frame> &frames)
{
    QByteArray s;
    for (const Frame &f : frames)
        s += frameBytes(Wire::Msg(f.header.type), f.header.requestId, f.payload, f.header.flags);
    return s;
}

bool sameFrames(const QList<Frame> &a, const QList<Frame> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const Wire::Header &x = a.at(i).header;
        const Wire::Header &y = b.at(i).header;
        if (x.length != y.length || x.type != y.type || x.flags != y.flags || x.requestId != y.requestId
            || a.at(i).payload != b.at(i).payload)
            return false;
    }
    return true;
}
} // namespace

void FrameTest::splitAtEveryByte()
{
    const QList<Frame> frames = sampleFrames();
    const QByteArray stream = streamOf(frames);
    // two feeds, split at every position
    for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
        FrameReader reader;
        QList<Frame> got;
        reader.feed(QByteArrayView(stream.constData(), cut));
        QVERIFY(drain(reader, &got));
        reader.feed(QByteArrayView(stream.constData() + cut, stream.size() - cut));
        QVERIFY(drain(reader, &got));
        QVERIFY2(sameFrames(got, frames), QByteArray::number(cut).constData());
        QVERIFY(!reader.hasBuffered());
    }
    // three feeds, every pair of positions (the stream is small)
    for (qsizetype a = 0; a <= stream.size(); a += 3) {
        for (qsizetype b = a; b <= stream.size(); b += 5) {
            FrameReader reader;
            QList<Frame> got;
            reader.feed(QByteArrayView(stream.constData(), a));
            QVERIFY(drain(reader, &got));
            reader.feed(QByteArrayView(stream.constData() + a, b - a));
            QVERIFY(drain(reader, &got));
            reader.feed(QByteArrayView(stream.constData() + b, stream.size() - b));
            QVERIFY(drain(reader, &got));
            QVERIFY(sameFrames(got, frames));
        }
    }
}

void FrameTest::oneByteAtATime()
{
    const QList<Frame> frames = sampleFrames();
    const QByteArray stream = streamOf(frames);
    FrameReader reader;
    QList<Frame> got;
    for (char c : stream) {
        reader.feed(QByteArrayView(&c, 1));
        QVERIFY(drain(reader, &got));
    }
    QVERIFY(sameFrames(got, frames));
    QVERIFY(!reader.hasBuffered());
    Wire::Header h;
    QByteArray p;
    QCOMPARE(reader.next(&h, &p), FrameReader::NeedMore);
}

void FrameTest::severalFramesInOneFeed()
{
    QList<Frame> frames;
    for (int i = 0; i < 200; ++i) {
        const QByteArray payload = pattern(i * 13 % 257, i);
        frames.append(
            Frame { Wire::Header { quint32(payload.size()), quint16(Wire::Msg::Data), 0, quint32(i) }, payload });
    }
    const QByteArray stream = streamOf(frames);
    FrameReader reader;
    reader.feed(stream);
    QVERIFY(reader.hasBuffered());
    QList<Frame> got;
    QVERIFY(drain(reader, &got));
    QVERIFY(sameFrames(got, frames));
    QVERIFY(!reader.hasBuffered());
    // a partial frame stays buffered
    reader.feed(QByteArrayView(stream.constData(), Wire::HeaderSize + 3));
    got.clear();
    QVERIFY(drain(reader, &got));
    QCOMPARE(got.size(), 1); // frame 0 is 12 + 0 bytes; frame 1 is incomplete
    QVERIFY(reader.hasBuffered());
}

void FrameTest::largeFrames()
{
    // MaxPayload exactly is accepted, in pieces of various sizes.
    const QByteArray big = pattern(Wire::MaxPayload, 3);
    const QByteArray stream = frameBytes(Wire::Msg::Entries, 9, big) + frameBytes(Wire::Msg::Data, 10, "x");
    FrameReader reader;
    QList<Frame> got;
    qsizetype pos = 0;
    qsizetype step = 1;
    while (pos < stream.size()) {
        const qsizetype n = std::min(step, stream.size() - pos);
        reader.feed(QByteArrayView(stream.constData() + pos, n));
        pos += n;
        QVERIFY(drain(reader, &got));
        step = step * 3 + 1;
    }
    QCOMPARE(got.size(), 2);
    QCOMPARE(got.at(0).header.length, Wire::MaxPayload);
    QVERIFY(got.at(0).payload == big);
    QCOMPARE(got.at(1).payload, QByteArray("x"));
}

void FrameTest::lengthOutOfBounds_data()
{
    QTest::addColumn<quint32>("length");
    QTest::newRow("MaxPayload + 1") << quint32(Wire::MaxPayload + 1);
    QTest::newRow("16 MiB") << quint32(16 * 1024 * 1024);
    QTest::newRow("2^31") << quint32(0x80000000u);
    QTest::newRow("2^32 - 1") << quint32(0xffffffffu);
}

void FrameTest::lengthOutOfBounds()
{
    QFETCH(quint32, length);
    // Bad as soon as the header is there: no allocation by the lying length.
    FrameReader reader;
    const QByteArray h = headerOnly(length);
    reader.feed(QByteArrayView(h.constData(), Wire::HeaderSize - 1));
    Wire::Header header;
    QByteArray payload;
    QCOMPARE(reader.next(&header, &payload), FrameReader::NeedMore);
    reader.feed(QByteArrayView(h.constData() + Wire::HeaderSize - 1, 1));
    QCOMPARE(reader.next(&header, &payload), FrameReader::Bad);
    QCOMPARE(reader.next(&header, &payload), FrameReader::Bad); // and stays bad
    QVERIFY(payload.isEmpty());
}

void FrameTest::badAfterGoodFrames()
{
    const QByteArray stream = frameBytes(Wire::Msg::Data, 1, "one") + frameBytes(Wire::Msg::Data, 2, "two")
        + headerOnly(Wire::MaxPayload + 1) + frameBytes(Wire::Msg::Data, 3, "never");
    FrameReader reader;
    reader.feed(stream);
    QList<Frame> got;
    QVERIFY(!drain(reader, &got));
    QCOMPARE(got.size(), 2);
    QCOMPARE(got.at(1).payload, QByteArray("two"));
}

void FrameTest::socketRoundTrip()
{
    int fds[2];
    QVERIFY(makeWorkerSocketPair(fds));
    for (int fd : fds) {
        QVERIFY(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
        QVERIFY(setNonBlocking(fd));
        QVERIFY(::fcntl(fd, F_GETFL) & O_NONBLOCK);
    }
    FrameWriter writer;
    const QList<Frame> frames = sampleFrames();
    for (const Frame &f : frames)
        writer.append(Wire::Msg(f.header.type), f.header.requestId, f.payload);
    // a frame assembled from a header and raw pieces
    writer.appendHeader(Wire::Msg::Data, 77, 6);
    writer.appendRaw("abc");
    writer.appendRaw("def");
    const QByteArray big = pattern(600 * 1024, 5); // more than a socket buffer
    writer.append(Wire::Msg::Data, 78, big);
    QVERIFY(writer.pending() > 0);

    FrameReader reader;
    QList<Frame> got;
    for (int round = 0; round < 10000 && (writer.pending() > 0 || got.size() < 7); ++round) {
        QVERIFY(writer.flushTo(fds[0]));
        const FrameReader::ReadResult r = reader.readFrom(fds[1]);
        QVERIFY(r == FrameReader::ReadSome || r == FrameReader::WouldBlock);
        QVERIFY(drain(reader, &got));
    }
    QCOMPARE(writer.pending(), 0);
    QCOMPARE(got.size(), 7);
    QCOMPARE(got.at(0).header.type, quint16(Wire::Msg::Heartbeat));
    QCOMPARE(got.at(1).payload, QByteArray("hello"));
    QCOMPARE(got.at(1).header.flags, quint16(0)); // the writer sends no flags
    QCOMPARE(got.at(2).payload, pattern(300, 7));
    QCOMPARE(got.at(2).header.requestId, 0xffffffffu);
    QCOMPARE(got.at(4).header.type, quint16(0xffff));
    QCOMPARE(got.at(5).payload, QByteArray("abcdef"));
    QCOMPARE(got.at(5).header.requestId, 77u);
    QCOMPARE(got.at(6).header.length, quint32(big.size()));
    QVERIFY(got.at(6).payload == big);

    // the writer is reusable after clear()
    writer.append(Wire::Msg::Data, 1, "x");
    writer.clear();
    QCOMPARE(writer.pending(), 0);

    ::close(fds[0]);
    ::close(fds[1]);
}

void FrameTest::writerNeverDrained()
{
    // A steady stream whose reader never quite catches up: the writer always has bytes
    // pending, yet its buffer stays bounded (it used to grow by every frame) and every
    // frame arrives intact.
    int fds[2];
    QVERIFY(makeWorkerSocketPair(fds));
    for (int fd : fds)
        QVERIFY(setNonBlocking(fd));
    FrameWriter writer;
    writer.append(Wire::Msg::Data, 1, pattern(600 * 1024, 1)); // more than the socket holds
    FrameReader reader;
    QList<Frame> got;
    QByteArray chunk(64 * 1024, Qt::Uninitialized);
    qsizetype most = 0;
    for (int i = 0; i < 300; ++i) {
        writer.append(Wire::Msg::Data, quint32(i + 2), pattern(64 * 1024, i + 2));
        QVERIFY(writer.flushTo(fds[0]));
        QVERIFY(writer.pending() > 0);
        most = qMax(most, writer.buffered());
        const ssize_t n = ::read(fds[1], chunk.data(), size_t(chunk.size()));
        QVERIFY(n > 0);
        reader.feed(QByteArrayView(chunk.constData(), n));
        QVERIFY(drain(reader, &got));
    }
    QVERIFY2(most < 4 * 1024 * 1024, qPrintable(QString::number(most)));
    for (int round = 0; round < 100000 && writer.pending() > 0; ++round) {
        QVERIFY(writer.flushTo(fds[0]));
        const ssize_t n = ::read(fds[1], chunk.data(), size_t(chunk.size()));
        if (n > 0)
            reader.feed(QByteArrayView(chunk.constData(), n));
        QVERIFY(drain(reader, &got));
    }
    for (;;) {
        const ssize_t n = ::read(fds[1], chunk.data(), size_t(chunk.size()));
        if (n <= 0)
            break;
        reader.feed(QByteArrayView(chunk.constData(), n));
        QVERIFY(drain(reader, &got));
    }
    QCOMPARE(got.size(), 301);
    QVERIFY(got.at(0).payload == pattern(600 * 1024, 1));
    for (int i = 0; i < 300; ++i) {
        QCOMPARE(got.at(i + 1).header.requestId, quint32(i + 2));
        QVERIFY(got.at(i + 1).payload == pattern(64 * 1024, i + 2));
    }
    ::close(fds[0]);
    ::close(fds[1]);
}

void FrameTest::socketEofAndWouldBlock()
{
    int fds[2];
    QVERIFY(makeWorkerSocketPair(fds));
    QVERIFY(setNonBlocking(fds[1]));
    FrameReader reader;
    QCOMPARE(reader.readFrom(fds[1]), FrameReader::WouldBlock);
    const QByteArray f = frameBytes(Wire::Msg::Data, 5, "tail");
    QCOMPARE(::write(fds[0], f.constData(), size_t(f.size())), ssize_t(f.size()));
    ::close(fds[0]);
    QCOMPARE(reader.readFrom(fds[1]), FrameReader::ReadSome);
    QCOMPARE(reader.readFrom(fds[1]), FrameReader::Eof);
    QList<Frame> got;
    QVERIFY(drain(reader, &got));
    QCOMPARE(got.size(), 1);
    QCOMPARE(got.at(0).payload, QByteArray("tail"));
    ::close(fds[1]);
    QCOMPARE(reader.readFrom(fds[1]), FrameReader::Failed); // a closed fd
    // a writer on a closed peer fails (EPIPE, no SIGPIPE)
    int p[2];
    QVERIFY(makeWorkerSocketPair(p));
    ::close(p[1]);
    FrameWriter w;
    w.append(Wire::Msg::Data, 1, "x");
    QVERIFY(!w.flushTo(p[0]));
    ::close(p[0]);
}

// ------------------------------------------------------------------ messages

void FrameTest::command_data()
{
    QTest::addColumn<int>("cmd");
    QTest::addColumn<QList<QByteArray>>("urls");
    QTest::addColumn<MetaData>("options");
    MetaData none;
    MetaData opts;
    opts.setNumber("details", 0x1f);
    opts.setBytes("special", "mount");
    opts.setNumber("offset", std::numeric_limits<qint64>::max());
    QTest::newRow("list, no options") << int(Wire::Command::ListDir) << QList<QByteArray> { "file:///tmp" } << none;
    QTest::newRow("stat with options") << int(Wire::Command::Stat) << QList<QByteArray> { "sftp://h/%FF" } << opts;
    QTest::newRow("copy two urls") << int(Wire::Command::Copy)
                                   << QList<QByteArray> { "file:///a%E9", "file:///b%FF%20raw" } << opts;
    QTest::newRow("no urls") << int(Wire::Command::Special) << QList<QByteArray> {} << opts;
    QTest::newRow("empty url") << int(Wire::Command::Mkdir) << QList<QByteArray> { QByteArray() } << none;
    QTest::newRow("64 KiB url") << int(Wire::Command::Get) << QList<QByteArray> { QByteArray(64 * 1024, 'u') } << none;
    QList<QByteArray> many;
    for (int i = 0; i < 1000; ++i)
        many.append(QByteArray("file:///f" + QByteArray::number(i)));
    QTest::newRow("1000 urls") << int(Wire::Command::Delete) << many << opts;
    QTest::newRow("command 1000") << 1000 << QList<QByteArray> {} << none;
}

void FrameTest::command()
{
    QFETCH(int, cmd);
    QFETCH(QList<QByteArray>, urls);
    QFETCH(MetaData, options);
    WireCommand in;
    in.command = Wire::Command(cmd);
    for (const QByteArray &u : urls)
        in.urls.append(QUrl::fromEncoded(u, QUrl::StrictMode));
    in.options = options;
    const QByteArray payload = encodeCommand(in);
    WireCommand out;
    out.urls = { QUrl(QStringLiteral("stale:")) };
    out.options.setNumber("stale", 1);
    QVERIFY(decodeCommand(payload, &out));
    QCOMPARE(int(out.command), cmd);
    QList<QByteArray> u;
    for (const QUrl &url : std::as_const(out.urls))
        u.append(url.toEncoded());
    QCOMPARE(u, urls);
    QVERIFY(out.options == options);
}

void FrameTest::commandMalformed_data()
{
    QTest::addColumn<QByteArray>("payload");
    QByteArray good = encodeCommand(WireCommand { Wire::Command::Stat, { QUrl(QStringLiteral("file:///x")) }, {} });
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("trailing byte") << QByteArray(good + '\0');
    QTest::newRow("command 1001") << Bytes().v(1001).v(0).v(0).m;
    QTest::newRow("command 2^64-1") << Bytes().v(~quint64(0)).v(0).v(0).m;
    QTest::newRow("65537 urls") << Bytes().v(3).v(65537).m;
    QTest::newRow("url count lies") << Bytes().v(3).v(5).s("a").v(0).m;
    QTest::newRow("url longer than 64 KiB") << Bytes().v(3).v(1).s(QByteArray(64 * 1024 + 1, 'u')).v(0).m;
    QTest::newRow("url lying length") << Bytes().v(3).v(1).v(100).s("ab").m;
    QTest::newRow("missing options") << Bytes().v(3).v(1).s("a").m;
    QTest::newRow("bad options") << Bytes().v(3).v(0).v(1).s("").b(0).v(0).m;
}

void FrameTest::commandMalformed()
{
    QFETCH(QByteArray, payload);
    WireCommand c;
    QVERIFY(!decodeCommand(payload, &c));
}

void FrameTest::error_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QList<QByteArray>>("args");
    QTest::newRow("no args") << 1 << QList<QByteArray> {};
    QTest::newRow("one arg") << 42 << QList<QByteArray> { "/tmp/x" };
    QTest::newRow("utf8") << 7
                          << QList<QByteArray> { "Gr\xc3\xbc\xc3\x9f"
                                                 "e",
                                 "" };
    QTest::newRow("max code") << (1 << 20) << QList<QByteArray> { "a" };
    QList<QByteArray> sixteen;
    for (int i = 0; i < 16; ++i)
        sixteen.append(QByteArray::number(i));
    QTest::newRow("16 args") << 3 << sixteen;
    QTest::newRow("64 KiB arg") << 3 << QList<QByteArray> { QByteArray(64 * 1024, 'e') };
}

void FrameTest::error()
{
    QFETCH(int, code);
    QFETCH(QList<QByteArray>, args);
    const QByteArray payload = encodeError(code, args);
    int c = 0;
    QStringList a { QStringLiteral("stale") };
    QVERIFY(decodeError(payload, &c, &a));
    QCOMPARE(c, code);
    QCOMPARE(a.size(), args.size());
    for (qsizetype i = 0; i < args.size(); ++i)
        QCOMPARE(a.at(i), QString::fromUtf8(args.at(i)));
}

void FrameTest::errorMalformed_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("code 0") << encodeError(0, {});
    QTest::newRow("code 2^20 + 1") << encodeError((1 << 20) + 1, {});
    QTest::newRow("negative code") << encodeError(-1, {});
    QTest::newRow("17 args") << Bytes().v(1).v(17).m;
    QTest::newRow("argc lies") << Bytes().v(1).v(3).s("a").s("b").m;
    QTest::newRow("arg lying length") << Bytes().v(1).v(1).v(9).s("ab").m;
    QTest::newRow("arg too long") << Bytes().v(1).v(1).s(QByteArray(64 * 1024 + 1, 'x')).m;
    QTest::newRow("trailing byte") << QByteArray(encodeError(5, { "a" }) + 'z');
    QTest::newRow("missing argc") << Bytes().v(5).m;
}

void FrameTest::errorMalformed()
{
    QFETCH(QByteArray, payload);
    int c = 0;
    QStringList a;
    QVERIFY(!decodeError(payload, &c, &a));
}

void FrameTest::hello()
{
    MetaData info;
    info.setNumber("pid", 4242);
    info.setBytes("protocol", "file");
    const QByteArray payload = encodeHello(info);
    quint32 version = 0;
    MetaData back;
    QVERIFY(decodeHello(payload, &version, &back));
    QCOMPARE(version, Wire::ProtocolVersion);
    QVERIFY(back == info);
    // another version decodes (the caller reports the mismatch)
    QByteArray other = Bytes().v(Wire::ProtocolVersion + 1).m;
    info.encode(other);
    QVERIFY(decodeHello(other, &version, &back));
    QCOMPARE(version, Wire::ProtocolVersion + 1);
    // empty info
    QVERIFY(decodeHello(encodeHello(MetaData()), &version, &back));
    QVERIFY(back.isEmpty());
}

void FrameTest::helloMalformed_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("version only") << Bytes().v(1).m;
    QTest::newRow("version > 32 bits") << Bytes().v(quint64(1) << 32).v(0).m;
    QTest::newRow("overlong version") << QByteArray(11, '\x81');
    QTest::newRow("trailing byte") << QByteArray(encodeHello(MetaData()) + 'x');
    QTest::newRow("bad info") << Bytes().v(1).v(1).s("k").b(9).m;
}

void FrameTest::helloMalformed()
{
    QFETCH(QByteArray, payload);
    quint32 version = 0;
    MetaData info;
    QVERIFY(!decodeHello(payload, &version, &info));
}

void FrameTest::truncatedMessages()
{
    MetaData opts;
    opts.setNumber("details", 3);
    opts.setBytes("x", "y");
    const QByteArray cmd = encodeCommand(WireCommand {
        Wire::Command::Copy, { QUrl(QStringLiteral("file:///a")), QUrl(QStringLiteral("file:///b")) }, opts });
    const QByteArray err = encodeError(12, { "a", "bc" });
    const QByteArray hel = encodeHello(opts);
    for (qsizetype cut = 0; cut < cmd.size(); ++cut) {
        WireCommand c;
        QVERIFY2(!decodeCommand(QByteArray(cmd.constData(), cut), &c), QByteArray::number(cut).constData());
    }
    for (qsizetype cut = 0; cut < err.size(); ++cut) {
        int c = 0;
        QStringList a;
        QVERIFY2(!decodeError(QByteArray(err.constData(), cut), &c, &a), QByteArray::number(cut).constData());
    }
    for (qsizetype cut = 0; cut < hel.size(); ++cut) {
        quint32 v = 0;
        MetaData o;
        QVERIFY2(!decodeHello(QByteArray(hel.constData(), cut), &v, &o), QByteArray::number(cut).constData());
    }
}

QTEST_GUILESS_MAIN(FrameTest)

#include "frametest.moc"
