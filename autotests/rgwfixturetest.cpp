// SPDX-License-Identifier: LGPL-2.1-or-later
// The radosgw fixture (testutil/rgwfixture.cpp) checked with curl's own SigV4 signing, so
// that the s3 worker's tests can trust it: a signed ListBuckets answers 200 once start()
// returned, a bucket can be made and an object put and read back byte for byte, a wrong
// secret is refused (403 SignatureDoesNotMatch), every request is in radosgw's log, and
// stop() leaves no daemon and no folder.
#include "testutil/rgwfixture.h"
#include "testutil/serverprocess.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using QvfsTest::RgwFixture;
using namespace QvfsTest::ServerProcess;

class RgwFixtureTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVFS_START_SERVER(m_rgw); }

    void listBuckets()
    {
        QByteArray body;
        QCOMPARE(m_rgw.curl("GET", "/", &body), 200);
        QVERIFY2(body.contains("<ListAllMyBucketsResult"), body.constData());
    }

    void putGetRoundTrip()
    {
        QCOMPARE(m_rgw.curl("PUT", "/fixture-bucket"), 200);
        QTemporaryDir local;
        QVERIFY(local.isValid());
        QByteArray data(300 * 1024, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(data.data()), data.size() / 4);
        const QByteArray up = QFile::encodeName(local.filePath(QStringLiteral("up.bin")));
        QVERIFY(writeFile(up, data));
        QCOMPARE(m_rgw.curl("PUT", "/fixture-bucket/a%20key", nullptr, {},
                     { QStringLiteral("--data-binary"), QLatin1Char('@') + QFile::decodeName(up) }),
            200);
        QByteArray back;
        QCOMPARE(m_rgw.curl("GET", "/fixture-bucket/a%20key", &back), 200);
        QVERIFY(back == data);
    }

    void wrongSecret()
    {
        QByteArray body;
        QCOMPARE(m_rgw.curl("GET", "/", &body, "not-the-secret"), 403);
        QVERIFY2(body.contains("SignatureDoesNotMatch"), body.constData());
    }

    void requestsAreLogged()
    {
        QCOMPARE(m_rgw.curl("HEAD", "/fixture-bucket/a%20key", nullptr, {}, { QStringLiteral("-I") }), 200);
        // radosgw writes its log from a thread of its own
        QTRY_VERIFY_WITH_TIMEOUT(m_rgw.rgwLog().contains("\"HEAD /fixture-bucket/a%20key HTTP/1.1\" 200"), 5000);
    }

    void stopLeavesNothing()
    {
        const QList<int> pids = m_rgw.pids();
        const QByteArray dir = m_rgw.dir();
        QVERIFY(exists(dir));
        m_rgw.stop();
        for (const int pid : pids)
            QVERIFY2(::kill(pid, 0) != 0, qPrintable(QString::number(pid)));
        QVERIFY(!exists(dir));
        QVERIFY(processesMentioning(dir + "/ceph.conf").isEmpty());
    }

private:
    RgwFixture m_rgw;
};

QTEST_GUILESS_MAIN(RgwFixtureTest)
#include "rgwfixturetest.moc"
