// SPDX-License-Identifier: LGPL-2.1-or-later
// The S3 worker's request signing (src/workers/s3/sigv4.cpp) against AWS's published
// Signature Version 4 vectors: the signature test suite (get-vanilla, the query order,
// post-vanilla, post-x-www-form-urlencoded, get-utf8) and the S3 API reference's
// "GET Object" example, each checked at every step (canonical request, string to sign,
// signature).
#include "sigv4_p.h"

#include <QTest>

using Qvfs::S3::SigV4;

class SigV4Test : public QObject
{
    Q_OBJECT

private:
    // The test suite's credentials, region, service and time.
    static SigV4 suiteSigner()
    {
        return SigV4("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "service");
    }
    static QDateTime suiteTime() { return QDateTime(QDate(2015, 8, 30), QTime(12, 36, 0), Qt::UTC); }

private Q_SLOTS:
    void suite_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<SigV4::Pairs>("query");
        QTest::addColumn<SigV4::Pairs>("headers");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("canonical");
        QTest::addColumn<QByteArray>("canonicalHash");
        QTest::addColumn<QByteArray>("signature");

        const QByteArray empty = SigV4::emptyPayloadHash();
        QTest::newRow("get-vanilla") << QByteArray("GET") << QByteArray("/") << SigV4::Pairs() << SigV4::Pairs()
                                     << QByteArray()
                                     << QByteArray(
                                            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                                            "host;x-amz-date\n"
                                            + empty)
                                     << QByteArray("bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
                                     << QByteArray("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
        QTest::newRow("get-vanilla-query-order-key-case")
            << QByteArray("GET") << QByteArray("/") << SigV4::Pairs { { "Param2", "value2" }, { "Param1", "value1" } }
            << SigV4::Pairs() << QByteArray()
            << QByteArray("GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                          "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
                   + empty)
            << QByteArray() << QByteArray("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
        QTest::newRow("post-vanilla") << QByteArray("POST") << QByteArray("/") << SigV4::Pairs() << SigV4::Pairs()
                                      << QByteArray()
                                      << QByteArray(
                                             "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                                             "host;x-amz-date\n"
                                             + empty)
                                      << QByteArray()
                                      << QByteArray("5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
        QTest::newRow("post-x-www-form-urlencoded")
            << QByteArray("POST") << QByteArray("/") << SigV4::Pairs()
            << SigV4::Pairs { { "Content-Type", "application/x-www-form-urlencoded" } } << QByteArray("Param1=value1")
            << QByteArray("POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\n"
                          "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
                          "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e")
            << QByteArray("42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281")
            << QByteArray("ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
        QTest::newRow("get-utf8") << QByteArray("GET") << QByteArray("/\xe1\x88\xb4") << SigV4::Pairs()
                                  << SigV4::Pairs() << QByteArray()
                                  << QByteArray("GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\n"
                                                "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
                                         + empty)
                                  << QByteArray() << QByteArray();
    }

    void suite()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(SigV4::Pairs, query);
        QFETCH(SigV4::Pairs, headers);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, canonical);
        QFETCH(QByteArray, canonicalHash);
        QFETCH(QByteArray, signature);

        const SigV4 signer = suiteSigner();
        const SigV4::Request request { method, path, query, headers, SigV4::payloadHash(body) };
        const QByteArray host = "example.amazonaws.com";
        const QByteArray got = signer.canonicalRequest(request, host, suiteTime());
        QCOMPARE(got, canonical);
        const QByteArray sts = signer.stringToSign(got, suiteTime());
        QVERIFY(sts.startsWith("AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"));
        if (!canonicalHash.isEmpty())
            QCOMPARE(sts.split('\n').constLast(), canonicalHash);
        if (signature.isEmpty())
            return;
        QCOMPARE(signer.signature(sts, suiteTime()), signature);
        const SigV4::Pairs sent = signer.sign(request, host, suiteTime());
        QCOMPARE(sent.size(), 2);
        QCOMPARE(sent.at(0), (QPair<QByteArray, QByteArray>("x-amz-date", "20150830T123600Z")));
        QCOMPARE(sent.at(1).first, QByteArray("Authorization"));
        const QByteArray signedNames = canonical.split('\n').at(canonical.count('\n') - 1);
        QCOMPARE(sent.at(1).second,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders="
                + signedNames + ", Signature=" + signature);
    }

    // The S3 API reference, "Signature Calculations for the Authorization Header: Transferring
    // Payload in a Single Chunk", example GET Object (the first ten bytes of test.txt).
    void s3GetObject()
    {
        const SigV4 signer("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1");
        const QDateTime when(QDate(2013, 5, 24), QTime(0, 0, 0), Qt::UTC);
        const SigV4::Request request { "GET", "/test.txt", {},
            { { "Range", "bytes=0-9" }, { "x-amz-content-sha256", SigV4::emptyPayloadHash() } },
            SigV4::emptyPayloadHash() };
        const QByteArray canonical = signer.canonicalRequest(request, "examplebucket.s3.amazonaws.com", when);
        QCOMPARE(canonical,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\nx-amz-content-sha256:"
                + SigV4::emptyPayloadHash() + "\nx-amz-date:20130524T000000Z\n\n"
                + "host;range;x-amz-content-sha256;x-amz-date\n" + SigV4::emptyPayloadHash());
        const QByteArray sts = signer.stringToSign(canonical, when);
        QCOMPARE(sts,
            QByteArray("AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                       "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"));
        QCOMPARE(signer.signature(sts, when),
            QByteArray("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
        // the key of the day is kept: another day signs with another key
        const QDateTime nextDay = when.addDays(1);
        QVERIFY(signer.signature(sts, nextDay) != signer.signature(sts, when));
        QCOMPARE(signer.signature(sts, when),
            QByteArray("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    }

    // Keys are bytes: every byte but the unreserved ones is encoded, once, in upper-case hex.
    void uriEncode_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<bool>("keepSlash");
        QTest::addColumn<QByteArray>("encoded");
        QTest::newRow("unreserved") << QByteArray("Az09-._~") << true << QByteArray("Az09-._~");
        QTest::newRow("path") << QByteArray("/bkt/a b/c") << true << QByteArray("/bkt/a%20b/c");
        QTest::newRow("query slash") << QByteArray("a/b") << false << QByteArray("a%2Fb");
        QTest::newRow("awkward") << QByteArray("%#+?&=*") << true << QByteArray("%25%23%2B%3F%26%3D%2A");
        QTest::newRow("utf-8") << QByteArray("\xc3\xa9") << true << QByteArray("%C3%A9");
        QTest::newRow("not utf-8") << QByteArray("\xff\x01") << true << QByteArray("%FF%01");
        QTest::newRow("double slash kept") << QByteArray("/b//./k") << true << QByteArray("/b//./k");
    }
    void uriEncode()
    {
        QFETCH(QByteArray, raw);
        QFETCH(bool, keepSlash);
        QFETCH(QByteArray, encoded);
        QCOMPARE(SigV4::uriEncode(raw, keepSlash), encoded);
    }

    // The query is sorted by encoded name, then value; an empty value keeps its '='.
    void canonicalQuery()
    {
        QCOMPARE(SigV4::canonicalQuery({ { "prefix", "a b/" }, { "list-type", "2" }, { "delimiter", "/" },
                     { "encoding-type", "url" }, { "uploads", "" } }),
            QByteArray("delimiter=%2F&encoding-type=url&list-type=2&prefix=a%20b%2F&uploads="));
    }

    // Header values are trimmed and folded, names lower-cased; the secret is in no text.
    void headersAndSecret()
    {
        const SigV4 signer("AK", "very-secret", "us-east-1");
        const SigV4::Request request { "PUT", "/b/k", {},
            { { "X-Amz-Meta-Mtime", "  1700000000   " }, { "Content-Type", "text/plain;  charset=x" } },
            SigV4::payloadHash("x") };
        const QDateTime when = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
        const QByteArray canonical = signer.canonicalRequest(request, "127.0.0.1:9000", when);
        QVERIFY(canonical.contains("\ncontent-type:text/plain; charset=x\nhost:127.0.0.1:9000\n"));
        QVERIFY(canonical.contains("\nx-amz-meta-mtime:1700000000\n"));
        QVERIFY(canonical.contains("\ncontent-type;host;x-amz-date;x-amz-meta-mtime\n"));
        for (const auto &h : signer.sign(request, "127.0.0.1:9000", when))
            QVERIFY(!h.second.contains("very-secret"));
        QVERIFY(!canonical.contains("very-secret"));
    }
};

QTEST_GUILESS_MAIN(SigV4Test)
#include "sigv4test.moc"
