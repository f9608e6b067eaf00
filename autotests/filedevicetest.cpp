// SPDX-License-Identifier: LGPL-2.1-or-later
// FileDevice (a QIODevice over a FileJob) through a real worker (file://, or sftp:// with
// QVFS_OPEN_BACKEND=sftp: ctest qvfs-filedevicetest-sftp, the same rows): the same
// answers as a QBuffer holding the same bytes, sequential and random reads, a ZIP's
// central directory found from the end of a 1 GiB sparse file by a hand parser that only
// knows QIODevice, writes, resize, errors, a worker SIGKILLed mid-read, and read-ahead
// that stays bounded.

#include "filejobcheck.h"
#include "jobfixture.h"
#include "procutil.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/FileDevice>

#include <QBuffer>
#include <QDataStream>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <QtEndian>

#include <csignal>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{
constexpr qint64 KiB = 1024;

/*! Text lines of many lengths, then binary bytes: lines cross the 256 KiB pieces. */
QByteArray mixedContent()
{
    QByteArray out;
    for (int i = 0; out.size() < 700 * KiB; ++i)
        out += QByteArray(i % 977, char('a' + i % 26)) + '\n';
    out += pseudoRandom(50 * KiB + 3, 4);
    return out;
}

// ---- a hand-made ZIP, and a parser that reads it through any QIODevice ----

void put16(QByteArray &b, quint16 v)
{
    char t[2];
    qToLittleEndian(v, t);
    b.append(t, 2);
}
void put32(QByteArray &b, quint32 v)
{
    char t[4];
    qToLittleEndian(v, t);
    b.append(t, 4);
}

/*! A stored (uncompressed) ZIP of \a files whose offsets count from \a base. */
QByteArray makeZip(const QList<QPair<QByteArray, QByteArray>> &files, quint32 base)
{
    QByteArray local, central;
    for (const auto &f : files) {
        const quint32 offset = base + quint32(local.size());
        put32(local, 0x04034b50);
        put16(local, 10);
        put16(local, 0);
        put16(local, 0); // stored
        put16(local, 0);
        put16(local, 0);
        put32(local, 0); // crc (not checked here)
        put32(local, quint32(f.second.size()));
        put32(local, quint32(f.second.size()));
        put16(local, quint16(f.first.size()));
        put16(local, 0);
        local += f.first + f.second;
        put32(central, 0x02014b50);
        put16(central, 20);
        put16(central, 10);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put32(central, 0);
        put32(central, quint32(f.second.size()));
        put32(central, quint32(f.second.size()));
        put16(central, quint16(f.first.size()));
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put32(central, 0);
        put32(central, offset);
        central += f.first;
    }
    QByteArray eocd;
    put32(eocd, 0x06054b50);
    put16(eocd, 0);
    put16(eocd, 0);
    put16(eocd, quint16(files.size()));
    put16(eocd, quint16(files.size()));
    put32(eocd, quint32(central.size()));
    put32(eocd, base + quint32(local.size()));
    put16(eocd, 0);
    return local + central + eocd;
}

quint16 le16(const QByteArray &b, int at)
{
    return qFromLittleEndian<quint16>(b.constData() + at);
}
quint32 le32(const QByteArray &b, int at)
{
    return qFromLittleEndian<quint32>(b.constData() + at);
}

/*!
 * Lists a ZIP the way archive readers do, through QIODevice calls only: the end of
 * central directory record at the end, then the central directory, then each local
 * header and its data. Returns name -> content; empty with \a error set on failure.
 */
QMap<QByteArray, QByteArray> readZip(QIODevice *dev, QString *error)
{
    QMap<QByteArray, QByteArray> out;
    const qint64 size = dev->size();
    if (size < 22 || !dev->seek(size - 22)) {
        *error = QStringLiteral("cannot seek to the end record");
        return {};
    }
    const QByteArray eocd = dev->read(22);
    if (eocd.size() != 22 || le32(eocd, 0) != 0x06054b50) {
        *error = QStringLiteral("no end record");
        return {};
    }
    const int count = le16(eocd, 10);
    const quint32 cdSize = le32(eocd, 12);
    const quint32 cdOffset = le32(eocd, 16);
    if (!dev->seek(cdOffset)) {
        *error = QStringLiteral("cannot seek to the central directory");
        return {};
    }
    struct Item
    {
        QByteArray name;
        quint32 size;
        quint32 offset;
    };
    QList<Item> items;
    for (int i = 0; i < count; ++i) {
        const QByteArray h = dev->read(46);
        if (h.size() != 46 || le32(h, 0) != 0x02014b50) {
            *error = QStringLiteral("bad central directory entry %1").arg(i);
            return {};
        }
        const QByteArray name = dev->read(le16(h, 28));
        dev->skip(le16(h, 30) + le16(h, 32));
        items.append({ name, le32(h, 24), le32(h, 42) });
    }
    if (dev->pos() != qint64(cdOffset) + cdSize) {
        *error = QStringLiteral("central directory size mismatch");
        return {};
    }
    for (const Item &it : std::as_const(items)) {
        if (!dev->seek(it.offset)) {
            *error = QStringLiteral("cannot seek to %1").arg(QString::fromLatin1(it.name));
            return {};
        }
        const QByteArray h = dev->read(30);
        if (h.size() != 30 || le32(h, 0) != 0x04034b50) {
            *error = QStringLiteral("bad local header of %1").arg(QString::fromLatin1(it.name));
            return {};
        }
        dev->skip(le16(h, 26) + le16(h, 28));
        out.insert(it.name, dev->read(it.size));
    }
    return out;
}

} // namespace

class FileDeviceTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    OpenBackend m_backend; // file://, or sftp:// to this machine ($QVFS_OPEN_BACKEND)
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_backend.url(m_fx.path(rel)); }

private Q_SLOTS:
    void initTestCase()
    {
        QByteArray why;
        QVERIFY2(m_backend.start(&why), why.constData());
        qInfo("backend: %s", m_backend.name().constData());
    }
    void cleanupTestCase() { m_backend.stop(); }
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void sameAsQBuffer_data();
    void sameAsQBuffer();
    void sequentialWhole_data();
    void sequentialWhole();
    void randomAgainstPread();
    void zipAtEndOfSparseFile();
    void readAheadBounded();
    void readyReadAndWait();
    void writeAndReadBack();
    void appendMode();
    void openErrors_data();
    void openErrors();
    void workerKilledMidRead();
};

void FileDeviceTest::sameAsQBuffer_data()
{
    // Operations: rN read, sN seek, pN peek, kN skip, l readLine, LN readLine(N), c getChar,
    // u ungetChar of the last char got, a readAll. After each: pos, atEnd, bytesAvailable.
    QTest::addColumn<QByteArrayList>("ops");
    QTest::newRow("reads") << QByteArrayList { "r10", "r0", "r1", "r300000", "r1000000", "r5" };
    QTest::newRow("seeks") << QByteArrayList { "s500000", "r20", "s3", "r4", "s0", "r1", "s751000", "r100" };
    QTest::newRow("peek and skip") << QByteArrayList { "p100", "r50", "p300000", "k262144", "r7", "k9999999", "r1" };
    QTest::newRow("lines") << QByteArrayList { "l", "l", "L10", "l", "s262140", "l", "l", "s716700", "l", "l", "l" };
    QTest::newRow("chars") << QByteArrayList { "c", "c", "u", "c", "s262143", "c", "c", "u", "r3" };
    QTest::newRow("read all") << QByteArrayList { "s100", "a", "r1", "s0", "r2" };
}

void FileDeviceTest::sameAsQBuffer()
{
    QFETCH(QByteArrayList, ops);
    const QByteArray content = mixedContent();
    QVERIFY(writeRaw(path("f"), content));
    QByteArray copy = content;
    QBuffer buffer(&copy);
    QVERIFY(buffer.open(QIODevice::ReadOnly));
    FileDevice dev(url("f"));
    QVERIFY2(dev.open(QIODevice::ReadOnly), qPrintable(dev.errorString()));
    QVERIFY(!dev.isSequential());
    QCOMPARE(dev.size(), buffer.size());
    char lastChar[2] = { 0, 0 };
    for (const QByteArray &op : std::as_const(ops)) {
        const qint64 n = op.mid(1).toLongLong();
        QIODevice *devs[2] = { &buffer, &dev };
        QVariant result[2];
        for (int i = 0; i < 2; ++i) {
            QIODevice *d = devs[i];
            switch (op.at(0)) {
            case 'r':
                result[i] = d->read(n);
                break;
            case 's':
                result[i] = d->seek(n);
                break;
            case 'p':
                result[i] = d->peek(n);
                break;
            case 'k':
                result[i] = d->skip(n);
                break;
            case 'l':
                result[i] = d->readLine();
                break;
            case 'L':
                result[i] = d->readLine(n);
                break;
            case 'c': {
                char c = 0;
                const bool ok = d->getChar(&c);
                lastChar[i] = c;
                result[i] = QVariantList { ok, int(c) };
                break;
            }
            case 'u':
                d->ungetChar(lastChar[i]);
                break;
            case 'a':
                result[i] = d->readAll();
                break;
            }
        }
        QVERIFY2(result[0] == result[1], op.constData());
        QVERIFY2(buffer.pos() == dev.pos(), op.constData());
        QVERIFY2(buffer.atEnd() == dev.atEnd(), op.constData());
        QVERIFY2(buffer.bytesAvailable() == dev.bytesAvailable(), op.constData());
    }
    dev.close();
    QCOMPARE(dev.error(), 0);
}

void FileDeviceTest::sequentialWhole_data()
{
    QTest::addColumn<int>("block");
    QTest::newRow("1 byte") << 1;
    QTest::newRow("4 KiB") << 4096;
    QTest::newRow("64 KiB + 1") << 65537;
    QTest::newRow("readAll") << 0;
    QTest::newRow("readLine") << -1;
}

void FileDeviceTest::sequentialWhole()
{
    QFETCH(int, block);
    const QByteArray content = block == 1 ? mixedContent().left(300 * KiB) : mixedContent();
    QVERIFY(writeRaw(path("f"), content));
    FileDevice dev(url("f"));
    QVERIFY(dev.open(QIODevice::ReadOnly));
    QCOMPARE(dev.mimeType(), QStringLiteral("text/plain"));
    QByteArray got;
    if (block == 0) {
        got = dev.readAll();
    } else if (block < 0) {
        while (!dev.atEnd())
            got += dev.readLine();
    } else {
        for (;;) {
            const QByteArray b = dev.read(block);
            if (b.isEmpty())
                break;
            got += b;
        }
    }
    QVERIFY(got == content);
    QVERIFY(dev.atEnd());
    QCOMPARE(dev.read(1), QByteArray());
    // Past the end, as with QFile: the seek works, reading gives nothing.
    QVERIFY(dev.seek(content.size() + 1000));
    QVERIFY(dev.atEnd());
    QCOMPARE(dev.bytesAvailable(), qint64(0));
    QCOMPARE(dev.read(10), QByteArray());
    dev.close();
    QCOMPARE(dev.error(), 0);
}

void FileDeviceTest::randomAgainstPread()
{
    const QByteArray content = pseudoRandom(2 * 1024 * KiB + 77, 8);
    QVERIFY(writeRaw(path("f"), content));
    FileDevice dev(url("f"));
    QVERIFY(dev.open(QIODevice::ReadOnly));
    QRandomGenerator rng(5);
    for (int i = 0; i < 2000; ++i) {
        const qint64 at = rng.bounded(content.size() + 1000);
        const qint64 len = rng.bounded(i % 10 == 0 ? 600000 : 5000);
        QVERIFY(dev.seek(at));
        const QByteArray got = dev.read(len);
        QVERIFY2(got == content.mid(at, len), qPrintable(QStringLiteral("at %1 length %2").arg(at).arg(len)));
        QCOMPARE(dev.pos(), at + got.size());
    }
}

void FileDeviceTest::zipAtEndOfSparseFile()
{
    // A 1 GiB file, all of it a hole but a small ZIP at its very end (as a self-extracting
    // archive has code before its ZIP): the parser finds it from the end record and reads
    // its members, and the device fetches a few hundred KiB at most, not the gigabyte.
    const qint64 size = 1024 * 1024 * KiB;
    const QList<QPair<QByteArray, QByteArray>> files = { { "hello.txt", "Hello from the end of a sparse gigabyte.\n" },
        { "dir/data.bin", pseudoRandom(70000, 2) }, { "empty", QByteArray() } };
    QByteArray zip = makeZip(files, 0);
    const quint32 base = quint32(size - zip.size());
    zip = makeZip(files, base);
    {
        const int fd = ::open(path("big.zip").constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::ftruncate(fd, size), 0);
        QCOMPARE(::pwrite(fd, zip.constData(), size_t(zip.size()), off_t(base)), ssize_t(zip.size()));
        ::close(fd);
    }
    QVERIFY(lstatRaw(path("big.zip")).st_blocks * 512 < 16 * 1024 * KiB); // really sparse
    FileDevice dev(url("big.zip"));
    QVERIFY(dev.open(QIODevice::ReadOnly));
    qint64 fetched = 0;
    connect(dev.job(), &FileJob::dataRead, this,
        [&](FileJob *, quint32, qint64, const QByteArray &d) { fetched += d.size(); });
    QCOMPARE(dev.size(), size);
    QString error;
    const QMap<QByteArray, QByteArray> members = readZip(&dev, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(members.size(), 3);
    for (const auto &f : files)
        QVERIFY2(members.value(f.first) == f.second, f.first.constData());
    qInfo("%lld bytes fetched to read the archive", fetched);
    QVERIFY(fetched < 1024 * KiB);
    dev.close();
    QCOMPARE(dev.error(), 0);
}

void FileDeviceTest::readAheadBounded()
{
    // Reading 32 MiB 4 KiB at a time keeps requests in flight but never runs far ahead:
    // what arrived and was not read yet stays within the read-ahead (4 x 256 KiB) and
    // the chunk behind.
    QVERIFY(writeBig(path("big"), 32 * 1024 * KiB));
    FileDevice dev(url("big"));
    QVERIFY(dev.open(QIODevice::ReadOnly));
    qint64 arrived = 0;
    qint64 consumed = 0;
    qint64 peakAhead = 0;
    int maxInFlight = 0;
    connect(dev.job(), &FileJob::dataRead, this, [&](FileJob *j, quint32, qint64, const QByteArray &d) {
        arrived += d.size();
        peakAhead = qMax(peakAhead, arrived - consumed);
        maxInFlight = qMax(maxInFlight, j->requestsInFlight());
    });
    char buf[4096];
    for (;;) {
        const qint64 n = dev.read(buf, sizeof buf);
        QVERIFY(n >= 0);
        if (n == 0)
            break;
        consumed += n;
        maxInFlight = qMax(maxInFlight, dev.job()->requestsInFlight());
    }
    QCOMPARE(consumed, 32 * 1024 * KiB);
    qInfo("peak read ahead %lld bytes, %d requests in flight at most", peakAhead, maxInFlight);
    QVERIFY(peakAhead <= 5 * 256 * KiB);
    QVERIFY(maxInFlight >= 2); // it did read ahead
    QVERIFY(maxInFlight <= 6);
}

void FileDeviceTest::readyReadAndWait()
{
    QVERIFY(writeRaw(path("f"), "line one\nline two\n"));
    FileDevice dev(url("f"));
    QSignalSpy ready(&dev, &QIODevice::readyRead);
    QVERIFY(dev.open(QIODevice::ReadOnly));
    QVERIFY(dev.waitForReadyRead(10000));
    QVERIFY(ready.count() >= 1);
    QVERIFY(dev.canReadLine());
    QCOMPARE(dev.readLine(), QByteArray("line one\n"));
    QCOMPARE(dev.readLine(), QByteArray("line two\n"));
    QVERIFY(dev.atEnd());
    QVERIFY(!dev.waitForReadyRead(1000));
}

void FileDeviceTest::writeAndReadBack()
{
    // QDataStream writes through the device, seeks back and reads; resize cuts it.
    FileDevice dev(url("new.bin"));
    QVERIFY(dev.open(QIODevice::ReadWrite));
    QCOMPARE(dev.size(), qint64(0));
    const QByteArray blob = pseudoRandom(3 * 1024 * KiB, 6);
    {
        QDataStream out(&dev);
        out << qint32(42) << QStringLiteral("Grüße") << blob;
    }
    QSignalSpy written(&dev, &QIODevice::bytesWritten);
    QVERIFY(dev.waitForBytesWritten(30000));
    QCOMPARE(dev.bytesToWrite(), qint64(0));
    QVERIFY(written.count() >= 1);
    QVERIFY(dev.seek(0));
    {
        QDataStream in(&dev);
        qint32 n = 0;
        QString s;
        QByteArray b;
        in >> n >> s >> b;
        QCOMPARE(n, qint32(42));
        QCOMPARE(s, QStringLiteral("Grüße"));
        QVERIFY(b == blob);
        QCOMPARE(in.status(), QDataStream::Ok);
    }
    // The same stream in memory, for what the bytes must be.
    QByteArray model;
    {
        QBuffer mb(&model);
        mb.open(QIODevice::WriteOnly);
        QDataStream out(&mb);
        out << qint32(42) << QStringLiteral("Grüße") << blob;
    }
    QCOMPARE(dev.size(), qint64(model.size()));
    QVERIFY(dev.seek(4));
    QCOMPARE(dev.write("WXYZ"), qint64(4));
    model.replace(4, 4, "WXYZ");
    QVERIFY(dev.seek(2));
    QCOMPARE(dev.read(8), model.mid(2, 8));
    QVERIFY(dev.resize(10));
    QCOMPARE(dev.size(), qint64(10));
    dev.close();
    QCOMPARE(dev.error(), 0);
    const QByteArray onDisk = readRaw(path("new.bin"));
    QCOMPARE(onDisk.size(), 10);
    QCOMPARE(onDisk, model.left(10));
}

void FileDeviceTest::appendMode()
{
    QVERIFY(writeRaw(path("log"), "start\n"));
    FileDevice dev(url("log"));
    QVERIFY(dev.open(QIODevice::Append));
    QCOMPARE(dev.pos(), qint64(6));
    QCOMPARE(dev.write("more\n"), qint64(5));
    QCOMPARE(dev.write("end\n"), qint64(4));
    dev.close();
    QCOMPARE(dev.error(), 0);
    QCOMPARE(readRaw(path("log")), QByteArray("start\nmore\nend\n"));
}

void FileDeviceTest::openErrors_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("error");
    QTest::newRow("missing") << QByteArray("nothing") << int(QIODevice::ReadOnly) << int(ErrDoesNotExist);
    QTest::newRow("fifo") << QByteArray("fifo") << int(QIODevice::ReadOnly) << int(ErrCannotRead);
    QTest::newRow("folder") << QByteArray("dir") << int(QIODevice::ReadOnly) << int(ErrIsDirectory);
    QTest::newRow("new only, exists") << QByteArray("file") << int(QIODevice::NewOnly) << int(ErrAlreadyExists);
}

void FileDeviceTest::openErrors()
{
    QFETCH(QByteArray, name);
    QFETCH(int, mode);
    QFETCH(int, error);
    QVERIFY(::mkfifo(path("fifo").constData(), 0600) == 0);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("file"), "x"));
    FileDevice dev(url(name));
    QVERIFY(!dev.open(QIODevice::OpenMode(mode)));
    QVERIFY(!dev.isOpen());
    QCOMPARE(dev.error(), error);
    QVERIFY(!dev.errorString().isEmpty());
    QTest::ignoreMessage(QtWarningMsg, "QIODevice::read (Qvfs::FileDevice): device not open");
    QCOMPARE(dev.read(1), QByteArray());
}

void FileDeviceTest::workerKilledMidRead()
{
    // The worker dies under a reader: the read returns what it has, then -1 with
    // ErrWorkerDied; nothing hangs.
    QVERIFY(writeBig(path("big"), 64 * 1024 * KiB));
    FileDevice dev(url("big"));
    QVERIFY(dev.open(QIODevice::ReadOnly));
    QCOMPARE(dev.read(1000).size(), 1000);
    const QList<qint64> pids = m_backend.workersHolding(path("big"));
    QCOMPARE(pids.size(), 1);
    const qint64 pid = pids.first();
    ::kill(pid_t(pid), SIGKILL);
    QElapsedTimer clock;
    clock.start();
    qint64 total = 0;
    for (;;) {
        char buf[65536];
        const qint64 n = dev.read(buf, sizeof buf);
        if (n <= 0) {
            QCOMPARE(n, qint64(-1));
            break;
        }
        total += n;
        QVERIFY(total < 64 * 1024 * KiB);
    }
    qInfo("read %lld more bytes; the error came %lld ms after the SIGKILL", total, clock.elapsed());
    QCOMPARE(dev.error(), int(ErrWorkerDied));
    QVERIFY(!dev.errorString().isEmpty());
    dev.close();
}

QTEST_GUILESS_MAIN(FileDeviceTest)
#include "filedevicetest.moc"
