// SPDX-License-Identifier: LGPL-2.1-or-later
#include "url.h"
#include "url_p.h"
#include "urlidentity.h"

#include <QSysInfo>
#include <QTest>

#include <algorithm>

using namespace Qvfs;

namespace
{

QUrl url(const char *text)
{
    return QUrl(QString::fromUtf8(text));
}

} // namespace

class UrlTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void byteRoundTrip_data();
    void byteRoundTrip();
    void allBytesInOneName();
    void longNonUtf8Name();
    void fromLocalPath_data();
    void fromLocalPath();
    void userInput_data();
    void userInput();
    void child_data();
    void child();
    void fileNameAndParent_data();
    void fileNameAndParent();
    void isSafeName_data();
    void isSafeName();
    void displayString_data();
    void displayString();
    void isLocalFile();
    void localPath_data();
    void localPath();
    void decodedPath_data();
    void decodedPath();
    void hostDisplay_data();
    void hostDisplay();
};

void UrlTest::byteRoundTrip_data()
{
    QTest::addColumn<QByteArray>("name");
    for (int b = 1; b < 256; ++b) {
        if (b == '/') {
            continue; // a separator, never part of a name
        }
        const char c = char(b);
        QTest::addRow("a%02xb", b) << (QByteArray("a") + c + 'b');
        if (b != '.') { // "." and ".." are not names
            QTest::addRow("%02x", b) << QByteArray(1, c);
            QTest::addRow("%02x%02x", b, b) << QByteArray(2, c);
        }
    }
}

void UrlTest::byteRoundTrip()
{
    QFETCH(QByteArray, name);
    const QByteArray folder = QByteArrayLiteral("/tmp/d\xff");
    const QByteArray path = folder + '/' + name;

    const QUrl u = Url::fromLocalPath(path);
    QVERIFY2(u.isValid(), qPrintable(u.errorString()));
    QCOMPARE(Url::localPath(u), path);
    QCOMPARE(Url::fileName(u), name);
    QCOMPARE(Url::parent(u), Url::fromLocalPath(folder));

    const QUrl c = Url::child(Url::fromLocalPath(folder), name);
    QCOMPARE(c, u);
    QCOMPARE(Url::localPath(c), path);
    QCOMPARE(Url::fileName(c), name);
    QCOMPARE(Url::child(Url::fromLocalPath(QByteArray(folder + '/')), name), u);

    // The encoded form is plain ASCII, and parsing it back (strictly) gives the same URL.
    const QByteArray encoded = u.toEncoded();
    for (const char ch : encoded) {
        QVERIFY(uchar(ch) > 0x20 && uchar(ch) < 0x7f);
    }
    const QUrl reparsed = QUrl::fromEncoded(encoded, QUrl::StrictMode);
    QVERIFY(reparsed.isValid());
    QCOMPARE(reparsed, u);
    QCOMPARE(Url::localPath(reparsed), path);

    QCOMPARE(Url::normalized(u), u);
    QCOMPARE(Url::fromUserInput(path, "/"), u);
    QCOMPARE(Url::fromUserInput(name, folder), u);
    QVERIFY(Url::isAncestorOrSame(Url::fromLocalPath(folder), u));

    // For ASCII the encoding is the one QUrl itself uses, so URLs compare equal.
    const bool ascii = std::all_of(name.cbegin(), name.cend(), [](char ch) { return uchar(ch) < 0x80; });
    if (ascii) {
        QUrl q;
        q.setScheme(QStringLiteral("file"));
        q.setPath(QStringLiteral("/tmp/") + QString::fromLatin1(name), QUrl::DecodedMode);
        QCOMPARE(Url::child(url("file:///tmp"), name), q);
    }
}

void UrlTest::allBytesInOneName()
{
    QByteArray name;
    for (int b = 1; b < 256; ++b) {
        if (b != '/') {
            name += char(b);
        }
    }
    QCOMPARE(name.size(), 254);
    const QByteArray path = QByteArrayLiteral("/x/") + name;
    const QUrl u = Url::fromLocalPath(path);
    QVERIFY(u.isValid());
    QCOMPARE(Url::localPath(u), path);
    QCOMPARE(Url::fileName(u), name);
    QCOMPARE(Url::child(url("file:///x"), name), u);
    QCOMPARE(Url::localPath(QUrl::fromEncoded(u.toEncoded(), QUrl::StrictMode)), path);
    QCOMPARE(Url::fromUserInput(name, "/x"), u);
}

void UrlTest::longNonUtf8Name()
{
    QByteArray name;
    for (int i = 0; i < 255; ++i) {
        name += char(0x80 + (i % 0x80)); // lone continuation bytes and lead bytes: not UTF-8
    }
    QCOMPARE(name.size(), 255);
    QVERIFY(QString::fromUtf8(name).toUtf8() != name);

    const QByteArray path = QByteArrayLiteral("/home/bob/") + name;
    const QUrl u = Url::fromLocalPath(path);
    QVERIFY(u.isValid());
    QCOMPARE(Url::localPath(u), path);
    QCOMPARE(Url::fileName(u), name);
    QCOMPARE(Url::child(url("file:///home/bob/"), name), u);
    QCOMPARE(Url::fromUserInput(name, "/home/bob"), u);
    QCOMPARE(Url::fromUserInput(QByteArray(QByteArrayLiteral("file://") + path), "/"), u);
    QCOMPARE(Url::localPath(Url::child(u, name)), path + '/' + name);
    QCOMPARE(Url::parent(Url::child(u, name)), u);
    QCOMPARE(Url::normalized(u), u);
}

void UrlTest::fromLocalPath_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QString>("expected"); // empty: invalid

    QTest::newRow("root") << QByteArray("/") << QStringLiteral("file:///");
    QTest::newRow("plain") << QByteArray("/a/b") << QStringLiteral("file:///a/b");
    QTest::newRow("trailing slash kept") << QByteArray("/a/b/") << QStringLiteral("file:///a/b/");
    QTest::newRow("double slashes") << QByteArray("//a//b") << QStringLiteral("file:///a/b");
    QTest::newRow("specials") << QByteArray("/a b/%#?;\n") << QStringLiteral("file:///a%20b/%25%23%3F;%0A");
    QTest::newRow("utf8") << QByteArray("/caf\xc3\xa9") << QStringLiteral("file:///caf%C3%A9");
    QTest::newRow("latin1") << QByteArray("/caf\xe9") << QStringLiteral("file:///caf%E9");
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("relative") << QByteArray("a/b") << QString();
    QTest::newRow("nul") << QByteArray("/a\0b", 4) << QString();
}

void UrlTest::fromLocalPath()
{
    QFETCH(QByteArray, path);
    QFETCH(QString, expected);
    const QUrl u = Url::fromLocalPath(path);
    if (expected.isEmpty()) {
        QVERIFY(!u.isValid());
        return;
    }
    QVERIFY(u.isValid());
    QCOMPARE(u.toString(QUrl::FullyEncoded), expected);
}

void UrlTest::userInput_data()
{
    QTest::addColumn<QByteArray>("arg");
    QTest::addColumn<QByteArray>("cwd");
    QTest::addColumn<QString>("expected"); // empty: invalid

    const QByteArray home = QByteArrayLiteral("/home/bob");
    QTest::newRow("absolute") << QByteArray("/etc/passwd") << home << QStringLiteral("file:///etc/passwd");
    QTest::newRow("relative") << QByteArray("docs/a.txt") << home << QStringLiteral("file:///home/bob/docs/a.txt");
    QTest::newRow("dot") << QByteArray(".") << home << QStringLiteral("file:///home/bob");
    QTest::newRow("dotdot") << QByteArray("../alice/./x/") << home << QStringLiteral("file:///home/alice/x");
    QTest::newRow("above root") << QByteArray("../../../..") << home << QStringLiteral("file:///");
    QTest::newRow("cwd with slash") << QByteArray("x") << QByteArray("/tmp/") << QStringLiteral("file:///tmp/x");
    QTest::newRow("a:b is a path") << QByteArray("a:b") << home << QStringLiteral("file:///home/bob/a:b");
    QTest::newRow("host:path is a path") << QByteArray("host:/x") << home << QStringLiteral("file:///home/bob/host:/x");
    QTest::newRow("bad scheme start") << QByteArray("1ab://x") << home << QStringLiteral("file:///home/bob/1ab:/x");
    QTest::newRow("percent and hash in path")
        << QByteArray("100%#1?") << home << QStringLiteral("file:///home/bob/100%25%231%3F");
    QTest::newRow("non-utf8 path") << QByteArray("\xff\xfe") << QByteArray("/t\xe9")
                                   << QStringLiteral("file:///t%E9/%FF%FE");
    QTest::newRow("sftp") << QByteArray("sftp://bob@host:2222/p/q") << home
                          << QStringLiteral("sftp://bob@host:2222/p/q");
    QTest::newRow("http with space") << QByteArray("http://example.org/a b") << home
                                     << QStringLiteral("http://example.org/a%20b");
    QTest::newRow("http non-utf8") << QByteArray("http://example.org/\xff") << home
                                   << QStringLiteral("http://example.org/%FF");
    QTest::newRow("file url") << QByteArray("file:///tmp/\xff x") << home << QStringLiteral("file:///tmp/%FF%20x");
    QTest::newRow("file url one slash") << QByteArray("file:/tmp/x") << home << QStringLiteral("file:///tmp/x");
    QTest::newRow("file url localhost") << QByteArray("file://localhost/tmp") << home << QStringLiteral("file:///tmp");
    // As `ls --hyperlink` writes them: this machine's own name is this machine.
    QTest::newRow("file url own host name") << QByteArray("file://" + QSysInfo::machineHostName().toUtf8() + "/tmp")
                                            << home << QStringLiteral("file:///tmp");
    QTest::newRow("file url own host name, other case")
        << QByteArray("file://" + QSysInfo::machineHostName().toUpper().toUtf8() + "/tmp") << home
        << QStringLiteral("file:///tmp");
    QTest::newRow("file url relative") << QByteArray("file:tmp") << home << QString();
    QTest::newRow("file url remote host") << QByteArray("file://other/tmp") << home << QString();
    QTest::newRow("bad host") << QByteArray("http://exa mple/") << home << QString();
    QTest::newRow("empty") << QByteArray() << home << QString();
    QTest::newRow("nul") << QByteArray("a\0b", 3) << home << QString();
    QTest::newRow("no cwd") << QByteArray("x") << QByteArray() << QString();
    QTest::newRow("relative cwd") << QByteArray("x") << QByteArray("tmp") << QString();
}

void UrlTest::userInput()
{
    QFETCH(QByteArray, arg);
    QFETCH(QByteArray, cwd);
    QFETCH(QString, expected);
    const QUrl u = Url::fromUserInput(arg, cwd);
    if (expected.isEmpty()) {
        QVERIFY2(!u.isValid(), qPrintable(u.toString()));
        return;
    }
    QVERIFY2(u.isValid(), qPrintable(u.errorString()));
    QCOMPARE(u.toString(QUrl::FullyEncoded), expected);
}

void UrlTest::child_data()
{
    QTest::addColumn<QUrl>("parent");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QString>("expected"); // empty: invalid

    QTest::newRow("no slash") << url("file:///a") << QByteArray("b") << QStringLiteral("file:///a/b");
    QTest::newRow("slash") << url("file:///a/") << QByteArray("b") << QStringLiteral("file:///a/b");
    QTest::newRow("root") << url("file:///") << QByteArray("b") << QStringLiteral("file:///b");
    QTest::newRow("relative path") << url("file:///a") << QByteArray("b/c") << QStringLiteral("file:///a/b/c");
    QTest::newRow("empty segments") << url("file:///a") << QByteArray("/b//c/") << QStringLiteral("file:///a/b/c");
    QTest::newRow("host no path") << url("sftp://h") << QByteArray("x") << QStringLiteral("sftp://h/x");
    QTest::newRow("query and fragment dropped")
        << url("http://h/d/?q=1#f") << QByteArray("x?y") << QStringLiteral("http://h/d/x%3Fy");
    QTest::newRow("encoded parent kept") << url("http://h/a%2Fb") << QByteArray("c")
                                         << QStringLiteral("http://h/a%2Fb/c");
    QTest::newRow("empty") << url("file:///a") << QByteArray() << QString();
    QTest::newRow("only slashes") << url("file:///a") << QByteArray("//") << QString();
    QTest::newRow("dot") << url("file:///a") << QByteArray(".") << QString();
    QTest::newRow("dotdot") << url("file:///a") << QByteArray("b/../../etc") << QString();
    QTest::newRow("nul") << url("file:///a") << QByteArray("b\0c", 3) << QString();
    QTest::newRow("invalid parent") << QUrl() << QByteArray("b") << QString();
}

void UrlTest::child()
{
    QFETCH(QUrl, parent);
    QFETCH(QByteArray, name);
    QFETCH(QString, expected);
    const QUrl u = Url::child(parent, name);
    if (expected.isEmpty()) {
        QVERIFY(!u.isValid());
        return;
    }
    QVERIFY(u.isValid());
    QCOMPARE(u.toString(QUrl::FullyEncoded), expected);
}

void UrlTest::fileNameAndParent_data()
{
    QTest::addColumn<QUrl>("input");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QString>("parent");

    QTest::newRow("file") << url("file:///a/b") << QByteArray("b") << QStringLiteral("file:///a");
    QTest::newRow("trailing slash") << url("file:///a/b/") << QByteArray("b") << QStringLiteral("file:///a");
    QTest::newRow("top") << url("file:///a") << QByteArray("a") << QStringLiteral("file:///");
    QTest::newRow("root") << url("file:///") << QByteArray() << QStringLiteral("file:///");
    QTest::newRow("double slash") << url("sftp://h/a//b") << QByteArray("b") << QStringLiteral("sftp://h/a");
    QTest::newRow("host root") << url("sftp://h/") << QByteArray() << QStringLiteral("sftp://h/");
    QTest::newRow("host empty path") << url("sftp://h") << QByteArray() << QStringLiteral("sftp://h/");
    QTest::newRow("encoded") << url("file:///d/%FF%25") << QByteArray("\xff%") << QStringLiteral("file:///d");
    QTest::newRow("encoded slash") << url("http://h/d/a%2Fb") << QByteArray("a/b") << QStringLiteral("http://h/d");
    QTest::newRow("query") << url("http://h/d/x?q#f") << QByteArray("x") << QStringLiteral("http://h/d");
}

void UrlTest::fileNameAndParent()
{
    QFETCH(QUrl, input);
    QFETCH(QByteArray, name);
    QFETCH(QString, parent);
    QCOMPARE(Url::fileName(input), name);
    QCOMPARE(Url::parent(input).toString(QUrl::FullyEncoded), parent);
}

void UrlTest::isSafeName_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("safe");

    QTest::newRow("plain") << QByteArray("a.txt") << true;
    QTest::newRow("dotfile") << QByteArray(".hidden") << true;
    QTest::newRow("three dots") << QByteArray("...") << true;
    QTest::newRow("dotdot prefix") << QByteArray("..a") << true;
    QTest::newRow("non-utf8") << QByteArray("\xff\xfe") << true;
    QTest::newRow("specials") << QByteArray("a b%#?\\\n") << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("dot") << QByteArray(".") << false;
    QTest::newRow("dotdot") << QByteArray("..") << false;
    QTest::newRow("slash") << QByteArray("a/b") << false;
    QTest::newRow("only slash") << QByteArray("/") << false;
    QTest::newRow("escape") << QByteArray("../etc") << false;
    QTest::newRow("nul") << QByteArray("a\0b", 3) << false;
    QTest::newRow("trailing nul") << QByteArray("a\0", 2) << false;
}

void UrlTest::isSafeName()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, safe);
    QCOMPARE(Url::isSafeName(name), safe);
}

void UrlTest::displayString_data()
{
    QTest::addColumn<QUrl>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("sftp password") << url("sftp://bob:secret@h/x") << QStringLiteral("sftp://bob@h/x");
    QTest::newRow("https password decoded")
        << url("https://u:p%40ss@h/a%20b/caf%C3%A9") << QStringLiteral("https://u@h/a b/caf\u00e9");
    QTest::newRow("file") << url("file:///tmp/a%20b") << QStringLiteral("/tmp/a b");
    QTest::newRow("file utf8") << url("file:///caf%C3%A9") << QStringLiteral("/caf\u00e9");
    QTest::newRow("file invalid utf8") << Url::fromLocalPath("/tmp/a\xff") << QStringLiteral("/tmp/a\ufffd");
}

void UrlTest::displayString()
{
    QFETCH(QUrl, input);
    QFETCH(QString, expected);
    const QString shown = Url::displayString(input);
    QCOMPARE(shown, expected);
    QVERIFY(!shown.contains(QLatin1String("secret")));
    QVERIFY(!shown.contains(QLatin1String(":p")));
}

void UrlTest::isLocalFile()
{
    QVERIFY(Url::isLocalFile(url("file:///a")));
    QVERIFY(Url::isLocalFile(Url::fromLocalPath("/\xff")));
    QVERIFY(!Url::isLocalFile(url("sftp://h/a")));
    QVERIFY(!Url::isLocalFile(QUrl()));
    QVERIFY(Url::localPath(url("sftp://h/a")).isEmpty());
    QVERIFY(Url::localPath(url("file://otherhost/a")).isEmpty());
    QCOMPARE(Url::localPath(url("file://localhost/a")), QByteArray("/a"));
}

void UrlTest::localPath_data()
{
    // Where a file URL becomes a path: a NUL byte would cut the path short and name
    // another file ("s.txt%00.png" is not "s.txt"), so such a URL has no path at all.
    QTest::addColumn<QByteArray>("encoded");
    QTest::addColumn<QByteArray>("path");
    QTest::newRow("plain") << QByteArray("file:///s/s.txt") << QByteArray("/s/s.txt");
    QTest::newRow("encoded bytes") << QByteArray("file:///s/a%FF%01-b") << QByteArray("/s/a\xff\x01-b");
    QTest::newRow("NUL inside a name") << QByteArray("file:///s/s.txt%00.png") << QByteArray();
    QTest::newRow("NUL at the end") << QByteArray("file:///s/s.txt%00") << QByteArray();
    QTest::newRow("NUL as a segment") << QByteArray("file:///s/%00/x") << QByteArray();
    QTest::newRow("NUL alone") << QByteArray("file:///%00") << QByteArray();
    // Dot segments are decoded, not resolved: the worker refuses them (see FileWorker::pathOf).
    QTest::newRow("encoded dot-dot kept") << QByteArray("file:///s/x/%2E%2E") << QByteArray("/s/x/..");
    QTest::newRow("another host") << QByteArray("file://otherhost/a") << QByteArray();
    QTest::newRow("another scheme") << QByteArray("sftp://h/a") << QByteArray();
}

void UrlTest::localPath()
{
    QFETCH(QByteArray, encoded);
    QFETCH(QByteArray, path);
    const QUrl u = QUrl::fromEncoded(encoded, QUrl::StrictMode);
    QVERIFY(u.isValid());
    QCOMPARE(Url::localPath(u), path);
}

void UrlTest::decodedPath_data()
{
    // What a worker acts on, whatever the scheme: the client's own checks compare these.
    QTest::addColumn<QByteArray>("encoded");
    QTest::addColumn<QByteArray>("path");
    QTest::newRow("file") << QByteArray("file:///s/a%FF%01-b") << QByteArray("/s/a\xff\x01-b");
    QTest::newRow("another scheme") << QByteArray("sftp://h/a%20b") << QByteArray("/a b");
    QTest::newRow("encoded slash") << QByteArray("sftp://h/a%2Fb") << QByteArray("/a/b");
    QTest::newRow("encoded dot-dot") << QByteArray("sftp://h/x/%2E%2E/y") << QByteArray("/x/../y");
    QTest::newRow("NUL kept") << QByteArray("file:///s%00") << QByteArray("/s\0", 3);
    QTest::newRow("another host") << QByteArray("file://otherhost/a") << QByteArray("/a");
}

void UrlTest::decodedPath()
{
    QFETCH(QByteArray, encoded);
    QFETCH(QByteArray, path);
    const QUrl u = QUrl::fromEncoded(encoded, QUrl::StrictMode);
    QVERIFY(u.isValid());
    QCOMPARE(Url::Detail::decodedPath(u), path);
}

void UrlTest::hostDisplay_data()
{
    // How errors and questions name a host (the sftp, smb and http workers): an IPv6
    // address in brackets, or its port would read as part of it.
    QTest::addColumn<QByteArray>("encoded");
    QTest::addColumn<QByteArray>("shown");
    QTest::newRow("name") << QByteArray("sftp://h.example/a") << QByteArray("h.example");
    QTest::newRow("port") << QByteArray("sftp://bob@h.example:2222/a") << QByteArray("h.example:2222");
    QTest::newRow("IPv4") << QByteArray("smb://127.0.0.1:445/s") << QByteArray("127.0.0.1:445");
    QTest::newRow("IPv6") << QByteArray("smb://[::1]/s") << QByteArray("[::1]");
    QTest::newRow("IPv6 and port") << QByteArray("https://[fe80::1]:8443/") << QByteArray("[fe80::1]:8443");
}

void UrlTest::hostDisplay()
{
    QFETCH(QByteArray, encoded);
    QFETCH(QByteArray, shown);
    const QUrl u = QUrl::fromEncoded(encoded, QUrl::StrictMode);
    QVERIFY(u.isValid());
    QCOMPARE(Url::Detail::hostDisplay(u), shown);
}

QTEST_GUILESS_MAIN(UrlTest)

#include "urltest.moc"
