// SPDX-License-Identifier: LGPL-2.1-or-later
// The incremental PROPFIND parser and the HTTP date parser of the http worker's engine,
// on replies as nginx (dav-ext) and Apache (mod_dav_fs) send them and on hostile input.

#include "httpdate_p.h"
#include "propfindparser_p.h"
#include "testutil/procutil.h"

#include <QFile>
#include <QTest>
#include <QXmlStreamReader>

using namespace Qvfs::Http;

namespace
{

// What nginx 1.22 + dav-ext 3.0 sent for a Depth 1 PROPFIND of /dir/ (one name not UTF-8).
const char nginxReply[] = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n"
                          "<D:multistatus xmlns:D=\"DAV:\">\n"
                          "<D:response>\n<D:href>/dir/</D:href>\n<D:propstat>\n<D:prop>\n"
                          "<D:getlastmodified>Mon, 30 Nov 2026 18:52:37 GMT</D:getlastmodified>\n"
                          "<D:resourcetype><D:collection/></D:resourcetype>\n"
                          "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
                          "<D:response>\n<D:href>/dir/b%FF%FE.bin</D:href>\n<D:propstat>\n<D:prop>\n"
                          "<D:getcontentlength>1</D:getcontentlength>\n"
                          "<D:getlastmodified>Mon, 30 Nov 2026 18:52:38 GMT</D:getlastmodified>\n"
                          "<D:resourcetype></D:resourcetype>\n"
                          "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
                          "<D:response>\n<D:href>/dir/sp%20ace&amp;%3C%3E%25%25.txt</D:href>\n<D:propstat>\n<D:prop>\n"
                          "<D:getcontentlength>6</D:getcontentlength>\n"
                          "<D:getlastmodified>Mon, 30 Nov 2026 18:52:39 GMT</D:getlastmodified>\n"
                          "<D:resourcetype></D:resourcetype>\n"
                          "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
                          "<D:response>\n<D:href>/dir/sub/</D:href>\n<D:propstat>\n<D:prop>\n"
                          "<D:getlastmodified>Mon, 30 Nov 2026 18:52:40 GMT</D:getlastmodified>\n"
                          "<D:resourcetype><D:collection/></D:resourcetype>\n"
                          "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
                          "</D:multistatus>\n";

// What Apache 2.4 mod_dav_fs sent: other prefixes, a 404 propstat, etags and types.
const char apacheReply[]
    = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<D:multistatus xmlns:D=\"DAV:\" xmlns:ns0=\"DAV:\">\n"
      "<D:response xmlns:lp1=\"DAV:\" xmlns:lp2=\"http://apache.org/dav/props/\" xmlns:g0=\"DAV:\">\n"
      "<D:href>/dir/</D:href>\n<D:propstat>\n<D:prop>\n"
      "<lp1:resourcetype><D:collection/></lp1:resourcetype>\n"
      "<lp1:getlastmodified>Mon, 30 Nov 2026 18:52:59 GMT</lp1:getlastmodified>\n"
      "<lp1:getetag>\"1000-66182eb26c636\"</lp1:getetag>\n"
      "<D:getcontenttype>httpd/unix-directory</D:getcontenttype>\n"
      "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n"
      "<D:propstat>\n<D:prop>\n<g0:getcontentlength/>\n</D:prop>\n<D:status>HTTP/1.1 404 Not Found</D:status>\n"
      "</D:propstat>\n</D:response>\n"
      "<D:response xmlns:lp1=\"DAV:\" xmlns:lp2=\"http://apache.org/dav/props/\">\n"
      "<D:href>/dir/a.txt</D:href>\n<D:propstat>\n<D:prop>\n<lp1:resourcetype/>\n"
      "<lp1:getcontentlength>3</lp1:getcontentlength>\n"
      "<lp1:getlastmodified>Mon, 30 Nov 2026 18:52:59 GMT</lp1:getlastmodified>\n"
      "<lp1:getetag>\"3-66182eb26c636\"</lp1:getetag>\n"
      "<D:getcontenttype>text/plain; charset=UTF-8</D:getcontenttype>\n"
      "<lp2:executable>F</lp2:executable>\n"
      "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
      "<D:response xmlns:lp1=\"DAV:\">\n<D:href>/dir/b%ff%fe.bin</D:href>\n<D:propstat>\n<D:prop>\n"
      "<lp1:resourcetype/>\n<lp1:getcontentlength>1</lp1:getcontentlength>\n"
      "</D:prop>\n<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n"
      "</D:multistatus>\n";

struct Collected
{
    QList<DavEntry> entries;
    PropfindParser::EntryHandler handler()
    {
        return [this](const DavEntry &e) {
            entries.append(e);
            return true;
        };
    }
    QByteArrayList names() const
    {
        QByteArrayList n;
        for (const DavEntry &e : entries)
            n.append(e.name);
        return n;
    }
};

bool feed(PropfindParser &p, QByteArrayView data, qsizetype chunk)
{
    for (qsizetype i = 0; i < data.size(); i += chunk) {
        if (!p.addData(data.sliced(i, qMin(chunk, data.size() - i))))
            return false;
    }
    return p.finish();
}

QByteArray response(const QByteArray &href, const QByteArray &props = "<D:resourcetype/>")
{
    return "<D:response><D:href>" + href + "</D:href><D:propstat><D:prop>" + props
        + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>";
}

QByteArray multistatus(const QByteArray &responses)
{
    return "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">" + responses + "</D:multistatus>";
}

} // namespace

class PropfindParserTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nginx_data()
    {
        QTest::addColumn<qsizetype>("chunk");
        QTest::newRow("whole") << qsizetype(1 << 20);
        QTest::newRow("4096") << qsizetype(4096);
        QTest::newRow("7") << qsizetype(7);
        QTest::newRow("byte by byte") << qsizetype(1);
    }
    void nginx()
    {
        QFETCH(qsizetype, chunk);
        Collected c;
        PropfindParser p("/dir/", PropfindParser::Mode::Children, c.handler());
        QVERIFY2(feed(p, nginxReply, chunk), qPrintable(p.errorString()));
        QCOMPARE(c.names(),
            QByteArrayList({ QByteArray("b\xff\xfe.bin"), QByteArray("sp ace&<>%%.txt"), QByteArray("sub") }));
        QVERIFY(p.haveSelf());
        QVERIFY(p.self().isCollection);
        QCOMPARE(p.self().contentType, QByteArray("inode/directory"));
        const DavEntry &b = c.entries.at(0);
        QCOMPARE(b.size, 1);
        QVERIFY(!b.isCollection);
        QVERIFY(b.hasProperties);
        QCOMPARE(b.mtime, std::optional<qint64>(1796064758)); // 2026-11-30T18:52:38Z
        QVERIFY(b.etag.isEmpty());
        QVERIFY(b.contentType.isEmpty());
        QCOMPARE(c.entries.at(1).size, 6);
        QVERIFY(c.entries.at(2).isCollection);
        QCOMPARE(c.entries.at(2).size, -1);
        QCOMPARE(p.entryCount(), 3);
        QCOMPARE(p.skippedCount(), 0);
    }

    void apache()
    {
        Collected c;
        PropfindParser p("/dir", PropfindParser::Mode::Children, c.handler());
        QVERIFY2(feed(p, apacheReply, 100), qPrintable(p.errorString()));
        QCOMPARE(c.names(), QByteArrayList({ QByteArray("a.txt"), QByteArray("b\xff\xfe.bin") }));
        // the 404 propstat leaves getcontentlength unknown, the 200 one gives the rest
        QVERIFY(p.self().isCollection);
        QCOMPARE(p.self().size, -1);
        QCOMPARE(p.self().etag, QByteArray("\"1000-66182eb26c636\""));
        QCOMPARE(p.self().contentType, QByteArray("inode/directory"));
        const DavEntry &a = c.entries.at(0);
        QCOMPARE(a.size, 3);
        QCOMPARE(a.contentType, QByteArray("text/plain"));
        QCOMPARE(a.etag, QByteArray("\"3-66182eb26c636\""));
        QVERIFY(a.mtime.has_value());
        QVERIFY(!c.entries.at(1).mtime.has_value());
    }

    // An entry is handed over as soon as its </response> is parsed.
    void streams()
    {
        Collected c;
        PropfindParser p("/dir/", PropfindParser::Mode::Children, c.handler());
        const QByteArray doc = nginxReply;
        const qsizetype firstEnd = doc.indexOf("</D:response>", doc.indexOf("b%FF")) + 13;
        QVERIFY(p.addData(QByteArrayView(doc).first(firstEnd)));
        QCOMPARE(c.entries.size(), 1);
        QVERIFY(p.addData(QByteArrayView(doc).sliced(firstEnd)));
        QVERIFY(p.finish());
        QCOMPARE(c.entries.size(), 3);
    }

    void hrefs_data()
    {
        QTest::addColumn<QByteArray>("requestPath");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArrayList>("names");
        QTest::addColumn<int>("skipped");
        const QByteArray self = response("/a%20b/", "<D:resourcetype><D:collection/></D:resourcetype>");
        QTest::newRow("absolute URLs") << QByteArray("/a%20b/")
                                       << multistatus(response("http://h:8/a%20b/") + response("https://h/a%20b/x"))
                                       << QByteArrayList { "x" } << 0;
        QTest::newRow("other escaping of the collection")
            << QByteArray("/a b/") << multistatus(self + response("/a%20b/%7Efile") + response("/a b/y"))
            << QByteArrayList { "~file", "y" } << 0;
        QTest::newRow("no trailing slash asked")
            << QByteArray("/a%20b") << multistatus(self + response("/a%20b/x/")) << QByteArrayList { "x" } << 0;
        QTest::newRow("query and fragment dropped")
            << QByteArray("/a%20b/") << multistatus(self + response("/a%20b/x?v=1") + response("/a%20b/y#f"))
            << QByteArrayList { "x", "y" } << 0;
        QTest::newRow("relative hrefs") << QByteArray("/a%20b/") << multistatus(self + response("rel"))
                                        << QByteArrayList { "rel" } << 0;
        QTest::newRow("unsafe and deeper names skipped")
            << QByteArray("/a%20b/")
            << multistatus(self + response("/a%20b/..") + response("/a%20b/a%2Fb") + response("/a%20b/n%00ul")
                   + response("/a%20b/deep/er") + response("/a%20b/ok"))
            << QByteArrayList { "ok" } << 4;
        QTest::newRow("a collection named differently (rewriting proxy)")
            << QByteArray("/public/dir/")
            << multistatus(response("/internal/dir/", "<D:resourcetype><D:collection/></D:resourcetype>")
                   + response("/internal/dir/x"))
            << QByteArrayList { "x" } << 0;
        QTest::newRow("an href outside the collection left out, whatever its displayname")
            << QByteArray("/a%20b/")
            << multistatus(self + response("/elsewhere/", "<D:displayname>shown</D:displayname>")
                   + response("/a%20b/real", "<D:displayname>ignored</D:displayname>"))
            << QByteArrayList { "real" } << 1;
        QTest::newRow("members with an error status skipped")
            << QByteArray("/a%20b/")
            << multistatus(self
                   + "<D:response><D:href>/a%20b/gone</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>"
                   + "<D:response><D:propstat><D:prop/><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
                   + response("/a%20b/here"))
            << QByteArrayList { "here" } << 2;
        QTest::newRow("default namespace, unknown elements")
            << QByteArray("/d/")
            << QByteArray("<multistatus xmlns=\"DAV:\" xmlns:x=\"urn:x\"><x:extra><response/></x:extra>"
                          "<response><href>/d/</href></response>"
                          "<response><href>/d/f</href><propstat><prop><x:size>9</x:size>"
                          "<getcontentlength>5</getcontentlength><lockdiscovery><activelock><locktoken>"
                          "<href>urn:uuid:1</href></locktoken></activelock></lockdiscovery></prop>"
                          "<status>HTTP/1.1 200 OK</status></propstat></response></multistatus>")
            << QByteArrayList { "f" } << 0;
    }
    void hrefs()
    {
        QFETCH(QByteArray, requestPath);
        QFETCH(QByteArray, body);
        QFETCH(QByteArrayList, names);
        QFETCH(int, skipped);
        Collected c;
        PropfindParser p(requestPath, PropfindParser::Mode::Children, c.handler());
        QVERIFY2(feed(p, body, 3), qPrintable(p.errorString()));
        QCOMPARE(c.names(), names);
        QCOMPARE(p.skippedCount(), skipped);
    }

    void selfMode()
    {
        Collected c;
        PropfindParser p("/dir/f%FF", PropfindParser::Mode::Self, c.handler());
        QVERIFY(feed(p, multistatus(response("/dir/f%FF", "<D:getcontentlength>12</D:getcontentlength>")), 5));
        QCOMPARE(c.entries.size(), 1);
        QCOMPARE(c.entries.at(0).name, QByteArray("f\xff"));
        QVERIFY(c.entries.at(0).isSelf);
        QCOMPARE(p.self().size, 12);
    }

    void quota_data()
    {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<qint64>("available");
        QTest::addColumn<qint64>("used");
        // RFC 4331, section 6: both properties of a collection.
        QTest::newRow("RFC 4331 example")
            << QByteArray("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
                          "<D:response>\n<D:href>http://www.example.com/users/milele/</D:href>\n<D:propstat>\n"
                          "<D:prop>\n<D:quota-available-bytes>596650</D:quota-available-bytes>\n"
                          "<D:quota-used-bytes>403350</D:quota-used-bytes>\n</D:prop>\n"
                          "<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n</D:multistatus>")
            << qint64(596650) << qint64(403350);
        // What servers without quotas answered: Apache 2.4 mod_dav_fs a 404 propstat, nginx
        // 1.22 + dav-ext 3.0 an empty one.
        QTest::newRow("Apache: not found")
            << QByteArray("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                          "<D:multistatus xmlns:D=\"DAV:\" xmlns:ns0=\"DAV:\">\n<D:response xmlns:g0=\"DAV:\">\n"
                          "<D:href>/q/</D:href>\n<D:propstat>\n<D:prop>\n<g0:quota-available-bytes/>\n"
                          "<g0:quota-used-bytes/>\n</D:prop>\n<D:status>HTTP/1.1 404 Not Found</D:status>\n"
                          "</D:propstat>\n</D:response>\n</D:multistatus>\n")
            << qint64(-1) << qint64(-1);
        QTest::newRow("nginx: nothing") << QByteArray(
            "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<D:multistatus xmlns:D=\"DAV:\">\n"
            "<D:response>\n<D:href>/q/</D:href>\n<D:propstat>\n<D:prop>\n</D:prop>\n"
            "<D:status>HTTP/1.1 200 OK</D:status>\n</D:propstat>\n</D:response>\n</D:multistatus>\n")
                                        << qint64(-1) << qint64(-1);
        QTest::newRow("only the used bytes, another prefix")
            << QByteArray("<a:multistatus xmlns:a=\"DAV:\"><a:response><a:href>/q/</a:href>"
                          "<a:propstat><a:prop><x:quota-used-bytes xmlns:x=\"DAV:\"> 42 </x:quota-used-bytes>"
                          "</a:prop><a:status>HTTP/1.1 200 OK</a:status></a:propstat>"
                          "<a:propstat><a:prop><a:quota-available-bytes/></a:prop>"
                          "<a:status>HTTP/1.1 404 Not Found</a:status></a:propstat></a:response></a:multistatus>")
            << qint64(-1) << qint64(42);
        // ownCloud and Nextcloud send -3 for "unlimited" (and -1, -2 for not computed, unknown).
        QTest::newRow("negative codes are no figures") << multistatus(response("/q/",
            "<D:quota-available-bytes>-3</D:quota-available-bytes><D:quota-used-bytes>1234</D:quota-used-bytes>"))
                                                       << qint64(-1) << qint64(1234);
        QTest::newRow("not a number, too many digits") << multistatus(response("/q/",
            "<D:quota-available-bytes>lots</D:quota-available-bytes>"
            "<D:quota-used-bytes>1234567890123456789012</D:quota-used-bytes>"))
                                                       << qint64(-1) << qint64(-1);
        QTest::newRow("another namespace is another property") << multistatus(response("/q/",
            "<o:quota-available-bytes xmlns:o=\"http://owncloud.org/ns\">5"
            "</o:quota-available-bytes>")) << qint64(-1) << qint64(-1);
    }

    void quota()
    {
        QFETCH(QByteArray, reply);
        QFETCH(qint64, available);
        QFETCH(qint64, used);
        for (qsizetype chunk : { qsizetype(4096), qsizetype(3) }) {
            Collected c;
            PropfindParser p("/q/", PropfindParser::Mode::Self, c.handler());
            QVERIFY2(feed(p, reply, chunk), qPrintable(p.errorString()));
            QVERIFY(p.haveSelf());
            QCOMPARE(p.self().quotaAvailable, available);
            QCOMPARE(p.self().quotaUsed, used);
        }
    }

    // The XML a multistatus may use besides plain elements, whole and split at every byte.
    void xmlForms()
    {
        const QByteArray body = "<?xml version='1.0' encoding='UTF-8'?>\n<!-- a comment -- with > in it -->"
                                "<?server instruction?><m:multistatus xmlns:m='DAV:' a=\"x > y\">"
                                "<m:response><m:href><![CDATA[/d/cdata <&>]]></m:href><!-- x -->"
                                "<m:propstat><m:prop><m:getetag>&quot;e&#x41;&#66;&apos;&lt;&gt;&amp;&quot;</m:getetag>"
                                "<m:displayname>ca<x:i xmlns:x='urn:x'>f<x:j/></x:i>&#233;</m:displayname></m:prop>"
                                "<m:status>HTTP/1.1 200 OK</m:status></m:propstat></m:response>"
                                "<m:response><m:href>/d/second</m:href  ></m:response >"
                                "</m:multistatus>\n\n";
        for (qsizetype chunk : { qsizetype(4096), qsizetype(1), qsizetype(2), qsizetype(7) }) {
            Collected c;
            PropfindParser p("/d/", PropfindParser::Mode::Children, c.handler());
            QVERIFY2(feed(p, body, chunk), qPrintable(p.errorString()));
            QCOMPARE(c.names(), (QByteArrayList { "cdata <&>", "second" }));
            QCOMPARE(c.entries.at(0).etag, QByteArray("\"eAB'<>&\""));
            QCOMPARE(c.entries.at(0).displayName, QByteArray("caf\xc3\xa9"));
        }
    }

    // A UTF-8 byte order mark first (.NET's XmlWriter writes one), whole and split.
    void byteOrderMark()
    {
        const QByteArray body = "\xEF\xBB\xBF<?xml version='1.0' encoding='utf-8'?><D:multistatus xmlns:D='DAV:'>"
                                "<D:response><D:href>/d/a</D:href></D:response></D:multistatus>";
        for (qsizetype chunk : { qsizetype(4096), qsizetype(1), qsizetype(2) }) {
            Collected c;
            PropfindParser p("/d/", PropfindParser::Mode::Children, c.handler());
            QVERIFY2(feed(p, body, chunk), qPrintable(p.errorString()));
            QCOMPARE(c.names(), (QByteArrayList { "a" }));
        }
    }

    void allMode()
    {
        // a DELETE that failed for one member
        Collected c;
        PropfindParser p("/t/", PropfindParser::Mode::All, c.handler());
        QVERIFY(feed(p,
            multistatus("<D:response><D:href>/t/locked</D:href><D:status>HTTP/1.1 423 Locked</D:status>"
                        "</D:response>"),
            4096));
        QCOMPARE(c.entries.size(), 1);
        QCOMPARE(c.entries.at(0).status, 423);
        QCOMPARE(c.entries.at(0).name, QByteArray("/t/locked"));
    }

    void handlerStops()
    {
        int seen = 0;
        PropfindParser p("/dir/", PropfindParser::Mode::Children, [&](const DavEntry &) { return ++seen < 2; });
        QVERIFY(!p.addData(nginxReply));
        QVERIFY(p.stopped());
        QVERIFY(!p.hasError());
        QCOMPARE(seen, 2);
        QVERIFY(!p.addData("more"));
        QCOMPARE(seen, 2);
    }

    void hostile_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<qsizetype>("chunk");
        QTest::addColumn<QString>("expected"); // part of the error text
        QByteArray deep = "<D:multistatus xmlns:D=\"DAV:\">";
        for (int i = 0; i < 100; ++i)
            deep += "<x>";
        QTest::newRow("nesting") << deep << qsizetype(1000) << QStringLiteral("nested");
        QTest::newRow("long href") << multistatus(response("/" + QByteArray(100000, 'a'))) << qsizetype(4096)
                                   << QStringLiteral("longer than");
        QTest::newRow("too many responses")
            << multistatus(response("/a").repeated(11)) << qsizetype(4096) << QStringLiteral("responses");
        QTest::newRow("DTD") << QByteArray("<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]>"
                                           "<D:multistatus xmlns:D=\"DAV:\"/>")
                             << qsizetype(4096) << QStringLiteral("document type");
        QTest::newRow("endless attribute")
            << QByteArray("<D:multistatus xmlns:D=\"DAV:\" a=\"" + QByteArray(3 * 1024 * 1024, 'x')) << qsizetype(65536)
            << QStringLiteral("token");
        QTest::newRow("not a multistatus")
            << QByteArray("<html><body>hi</body></html>") << qsizetype(4096) << QStringLiteral("root element");
        QTest::newRow("garbage") << QByteArray("\x00\x01<<<>>>", 8) << qsizetype(4096) << QStringLiteral("well-formed");
        QTest::newRow("truncated") << QByteArray(nginxReply).left(300) << qsizetype(4096)
                                   << QStringLiteral("ended before");
        QTest::newRow("invalid UTF-8 in text") << QByteArray("<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/\xff"
                                                             "</D:href></D:response></D:multistatus>")
                                               << qsizetype(4096) << QStringLiteral("well-formed");
        QTest::newRow("end tag of another element") << multistatus("<D:response><D:href>/a</D:propstat></D:response>")
                                                    << qsizetype(5) << QStringLiteral("well-formed");
        QTest::newRow("undeclared prefix") << multistatus("<x:response><D:href>/a</D:href></x:response>")
                                           << qsizetype(4096) << QStringLiteral("well-formed");
        QTest::newRow("unknown entity") << multistatus(response("/a&nbsp;b")) << qsizetype(4096)
                                        << QStringLiteral("entity");
        QTest::newRow("bad character reference")
            << multistatus(response("/a&#0;b")) << qsizetype(4096) << QStringLiteral("well-formed");
        QTest::newRow("second root") << multistatus(QByteArray()) + "<D:multistatus xmlns:D=\"DAV:\"/>"
                                     << qsizetype(4096) << QStringLiteral("well-formed");
        QTest::newRow("text after the root")
            << multistatus(QByteArray()) + "junk" << qsizetype(2) << QStringLiteral("well-formed");
        QByteArray declarations = "<D:multistatus xmlns:D=\"DAV:\"";
        for (int i = 0; i < 1000; ++i)
            declarations += " xmlns:p" + QByteArray::number(i) + "='u'";
        QTest::newRow("namespace declarations without end")
            << declarations + "><D:response/></D:multistatus>" << qsizetype(4096) << QStringLiteral("namespace");
        QTest::newRow("a broken byte order mark")
            << QByteArray("\xEF\xBB<D:multistatus xmlns:D=\"DAV:\"/>") << qsizetype(1) << QStringLiteral("byte order");
        QTest::newRow("endless comment") << QByteArray(
            "<D:multistatus xmlns:D=\"DAV:\"><!--" + QByteArray(3 * 1024 * 1024, '-'))
                                         << qsizetype(65536) << QStringLiteral("token");
    }
    void hostile()
    {
        QFETCH(QByteArray, body);
        QFETCH(qsizetype, chunk);
        QFETCH(QString, expected);
        PropfindParser::Limits limits;
        limits.maxEntries = 10;
        qint64 reported = 0;
        PropfindParser p(
            "/", PropfindParser::Mode::Children,
            [&](const DavEntry &) {
                ++reported;
                return true;
            },
            limits);
        QVERIFY(!feed(p, body, chunk));
        QVERIFY(p.hasError());
        QVERIFY2(p.errorString().contains(expected), qPrintable(p.errorString()));
        QVERIFY(reported <= 10);
    }

    // Entries are not kept: a long reply fed in pieces leaves memory flat.
    void manyEntriesInConstantMemory()
    {
        const qint64 before = ProcUtil::statusKb(0, "VmRSS:");
        qint64 peak = before;
        qint64 n = 0;
        PropfindParser p("/big/", PropfindParser::Mode::Children, [&](const DavEntry &) {
            ++n;
            return true;
        });
        QVERIFY(p.addData("<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">"));
        QByteArray batch;
        for (int i = 0; i < 1000; ++i)
            batch += response("/big/file-" + QByteArray::number(i),
                "<D:getcontentlength>123</D:getcontentlength><D:resourcetype/>"
                "<D:getlastmodified>Mon, 30 Nov 2026 18:52:37 GMT</D:getlastmodified>");
        for (int round = 0; round < 200; ++round) {
            for (qsizetype i = 0; i < batch.size(); i += 65536)
                QVERIFY(p.addData(QByteArrayView(batch).sliced(i, qMin<qsizetype>(65536, batch.size() - i))));
            peak = qMax(peak, ProcUtil::statusKb(0, "VmRSS:"));
        }
        QVERIFY(p.addData("</D:multistatus>"));
        QVERIFY(p.finish());
        QCOMPARE(n, 200000);
        // 200 x 0.2 MB went through; a parser that kept them would have grown by 40 MB or more
        qInfo("%lld MB parsed, RSS grew by %lld KiB", qint64(batch.size()) * 200 / 1000000, peak - before);
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY(peak - before < 8 * 1024);
    }

    void requestBody()
    {
        const QByteArray b = propfindRequestBody();
        for (const char *prop : { "resourcetype", "getcontentlength", "getlastmodified", "getcontenttype", "getetag" })
            QVERIFY(b.contains(prop));
        QVERIFY(!b.contains("displayname"));
        QVERIFY(!b.contains("allprop"));
        QVERIFY(propfindRequestBody(DavProperty::DisplayName).contains("<D:displayname/>"));
        // The quota (RFC 4331) only when asked for, and then nothing else.
        QVERIFY(!b.contains("quota"));
        const QByteArray q
            = propfindRequestBody(DavProperties(DavProperty::QuotaAvailableBytes) | DavProperty::QuotaUsedBytes);
        QVERIFY(q.contains("<D:quota-available-bytes/>"));
        QVERIFY(q.contains("<D:quota-used-bytes/>"));
        QVERIFY(!q.contains("getcontentlength"));
        QVERIFY(!q.contains("resourcetype"));
        QXmlStreamReader r(b);
        while (!r.atEnd())
            r.readNext();
        QVERIFY(!r.hasError());
    }

    void dates_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("expected"); // -2: invalid
        QTest::newRow("IMF-fixdate") << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT") << qint64(784111777);
        QTest::newRow("RFC 850") << QByteArray("Sunday, 06-Nov-94 08:49:37 GMT") << qint64(784111777);
        QTest::newRow("asctime") << QByteArray("Sun Nov  6 08:49:37 1994") << qint64(784111777);
        QTest::newRow("ISO 8601") << QByteArray("1994-11-06T08:49:37Z") << qint64(784111777);
        QTest::newRow("ISO 8601 offset") << QByteArray("1994-11-06T09:49:37.25+01:00") << qint64(784111777);
        QTest::newRow("spaces") << QByteArray("  Sun, 06 Nov 1994 08:49:37 GMT \r\n") << qint64(784111777);
        QTest::newRow("epoch") << QByteArray("Thu, 01 Jan 1970 00:00:00 GMT") << qint64(0);
        QTest::newRow("before the epoch") << QByteArray("Wed, 31 Dec 1969 23:59:59 GMT") << qint64(-1);
        QTest::newRow("leap day") << QByteArray("Tue, 29 Feb 2000 12:00:00 GMT") << qint64(951825600);
        QTest::newRow("no leap day") << QByteArray("Thu, 29 Feb 2001 12:00:00 GMT") << qint64(-2);
        QTest::newRow("31 April") << QByteArray("Mon, 31 Apr 2000 00:00:00 GMT") << qint64(-2);
        QTest::newRow("25 o'clock") << QByteArray("Mon, 01 May 2000 25:00:00 GMT") << qint64(-2);
        QTest::newRow("no zone") << QByteArray("Mon, 01 May 2000 10:00:00") << qint64(-2);
        QTest::newRow("junk after") << QByteArray("Mon, 01 May 2000 10:00:00 GMT x") << qint64(-2);
        QTest::newRow("empty") << QByteArray() << qint64(-2);
        QTest::newRow("text") << QByteArray("yesterday") << qint64(-2);
    }
    void dates()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, expected);
        const std::optional<qint64> t = parseHttpDate(text);
        if (expected == -2) {
            QVERIFY(!t.has_value());
        } else {
            QVERIFY(t.has_value());
            QCOMPARE(*t, expected);
        }
    }

    void formatDates()
    {
        QCOMPARE(formatHttpDate(784111777), QByteArray("Sun, 06 Nov 1994 08:49:37 GMT"));
        QCOMPARE(formatHttpDate(0), QByteArray("Thu, 01 Jan 1970 00:00:00 GMT"));
        QCOMPARE(formatHttpDate(-1), QByteArray("Wed, 31 Dec 1969 23:59:59 GMT"));
        for (qint64 t : { qint64(951825600), qint64(4102444799), qint64(-2208988800), qint64(1796064758) })
            QCOMPARE(parseHttpDate(formatHttpDate(t)), std::optional<qint64>(t));
    }

    void statusLines()
    {
        QCOMPARE(parseStatusLine("HTTP/1.1 200 OK"), 200);
        QCOMPARE(parseStatusLine(" HTTP/1.1 404 Not Found\n"), 404);
        QCOMPARE(parseStatusLine("HTTP/1.1 423"), 423);
        QCOMPARE(parseStatusLine("HTTP/1.1 2000 OK"), 0);
        QCOMPARE(parseStatusLine("200 OK"), 0);
        QCOMPARE(parseStatusLine("HTTP/1.1 abc"), 0);
    }
};

QTEST_GUILESS_MAIN(PropfindParserTest)
#include "propfindparsertest.moc"
