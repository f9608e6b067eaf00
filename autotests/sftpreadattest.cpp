// SPDX-License-Identifier: LGPL-2.1-or-later
// Session::readAt() (the sftp worker's random access) against a real OpenSSH server on
// 127.0.0.1: reads at random offsets and lengths compared with the file, with and without
// read-ahead; a file read in order keeps the next pieces in flight; any other request
// (fstat, a write) drops the read-ahead, so a read after a write sees the write; reads
// across the end of the file.
#include "sftpsession.h"

#include "error.h"
#include "sftppacket_p.h"
#include "testutil/rawpath.h"
#include "testutil/serverprocess.h"
#include "testutil/sshdfixture.h"

#include <QRandomGenerator>
#include <QTest>

using namespace Qvfs::Sftp;

namespace
{
constexpr quint32 Piece = 256 * 1024;

using QvfsTest::pseudoRandom;
using QvfsTest::writeRaw;
} // namespace

class SftpReadAtTest : public QObject
{
    Q_OBJECT

    SshdFixture m_sshd;
    QByteArray m_runtime;
    QByteArray m_config;

    bool connect(Session *s)
    {
        Session::Options o;
        o.host = m_sshd.host();
        o.port = m_sshd.port();
        o.user = "root";
        o.configFile = m_config;
        o.runtimeDir = m_runtime;
        o.environment = m_sshd.agentEnvironment();
        return s->connect(o).ok();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVFS_START_SERVER(m_sshd);
        m_runtime = m_sshd.newRuntimeDir();
        m_config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    }
    void cleanupTestCase() { m_sshd.stop(); }

    void randomReads_data()
    {
        QTest::addColumn<int>("readAhead");
        QTest::newRow("no read-ahead") << 0;
        QTest::newRow("read-ahead 3") << 3;
    }
    void randomReads()
    {
        // 3,000 reads, a third of them following on from the one before (which starts the
        // read-ahead), the others anywhere: past the end, of length 0, up to one piece.
        QFETCH(int, readAhead);
        const QByteArray content = pseudoRandom(3 * Piece + 4321, 11);
        const QByteArray path = m_sshd.dataDir() + "/random";
        QVERIFY(writeRaw(path, content));
        Session s;
        QVERIFY(connect(&s));
        QByteArray handle;
        QVERIFY(s.open(path, Packet::OpenRead, Attributes(), &handle).ok());
        QRandomGenerator rng(5);
        QByteArray buffer(Piece, Qt::Uninitialized);
        quint64 next = 0;
        quint32 lastLength = Piece;
        for (int i = 0; i < 3000; ++i) {
            const quint32 kind = rng.bounded(6);
            quint64 offset;
            quint32 length;
            if (kind < 2) { // in order, the same length
                offset = next;
                length = lastLength;
            } else {
                offset = rng.bounded(quint64(content.size()) + 10000);
                length = kind == 2 ? 0 : kind == 3 ? Piece - 1 + rng.bounded(2) : 1 + rng.bounded(Piece);
            }
            quint32 got = 12345;
            const Session::Result r = s.readAt(handle, offset, buffer.data(), length, &got, readAhead);
            QVERIFY2(r.ok(), qPrintable(r.detail));
            const qint64 expected
                = qBound<qint64>(0, qint64(content.size()) - qint64(offset), qint64(length)) * (length > 0);
            QCOMPARE(qint64(got), expected);
            if (got)
                QVERIFY2(QByteArrayView(buffer.constData(), got) == QByteArrayView(content).sliced(offset, got),
                    qPrintable(QStringLiteral("read %1 at %2").arg(length).arg(offset)));
            next = offset + got;
            lastLength = length ? length : Piece;
        }
        QVERIFY(s.close(handle).ok());
    }

    void readAheadInOrder()
    {
        // Pieces read in order keep the next ones in flight; another request in between
        // (fstat, a write) drops them, and the next read sees what was written.
        QByteArray content = pseudoRandom(20 * Piece + 100, 12);
        const QByteArray path = m_sshd.dataDir() + "/inorder";
        QVERIFY(writeRaw(path, content));
        Session s;
        QVERIFY(connect(&s));
        QByteArray handle;
        QVERIFY(s.open(path, Packet::OpenRead | Packet::OpenWrite, Attributes(), &handle).ok());
        const quint32 perPiece = (Piece + s.readChunkSize() - 1) / s.readChunkSize();
        QByteArray buffer(Piece, Qt::Uninitialized);
        const auto readPiece = [&](int index, int ahead) {
            quint32 got = 0;
            const Session::Result r = s.readAt(handle, quint64(index) * Piece, buffer.data(), Piece, &got, ahead);
            return r.ok() ? QByteArray(buffer.constData(), got) : QByteArray("failed");
        };
        // Without read-ahead: one piece's requests at a time.
        s.resetStatistics();
        for (int i = 0; i < 4; ++i)
            QCOMPARE(readPiece(i, 0), content.mid(i * Piece, Piece));
        QCOMPARE(quint32(s.statistics().peakInFlight), perPiece);
        // With it: this piece and the next 3.
        s.resetStatistics();
        for (int i = 4; i < 8; ++i)
            QCOMPARE(readPiece(i, 3), content.mid(i * Piece, Piece));
        QVERIFY2(quint32(s.statistics().peakInFlight) >= 3 * perPiece,
            qPrintable(QString::number(s.statistics().peakInFlight)));
        // An fstat in between: the read-ahead is dropped, the reads still right.
        Attributes a;
        QVERIFY(s.fstat(handle, &a).ok());
        QCOMPARE(qint64(a.size), content.size());
        for (int i = 8; i < 11; ++i)
            QCOMPARE(readPiece(i, 3), content.mid(i * Piece, Piece));
        // A write into the piece read ahead: the next read sees it.
        const QByteArray patch(1000, 'P');
        QVERIFY(s.write(handle, 11 * Piece + 5, patch).ok());
        content.replace(11 * Piece + 5, patch.size(), patch);
        for (int i = 11; i < 14; ++i)
            QCOMPARE(readPiece(i, 3), content.mid(i * Piece, Piece));
        // On to the end of the file, the read-ahead running past it: the last piece is
        // short, the one after it empty.
        for (int i = 14; i <= 20; ++i)
            QCOMPARE(readPiece(i, 3), content.mid(i * Piece, Piece));
        QCOMPARE(readPiece(21, 3), QByteArray());
        QVERIFY(s.close(handle).ok());
        // Every reply was accounted for: the session goes on with other requests.
        QVERIFY(s.stat(path, &a).ok());
    }
};

QTEST_GUILESS_MAIN(SftpReadAtTest)
#include "sftpreadattest.moc"
