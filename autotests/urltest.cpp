// SPDX-License-Identifier: LGPL-2.1-or-later
#include "url.h"

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
    void normalized_data();
    void normalized();
    void schedulerKey_data();
    void schedulerKey();
    void schedulerKeyText();
    void isSafeName_data();
    void isSafeName();
    void isAncestorOrSame_data();
    void isAncestorOrSame();
    void displayString_data();
    void displayString();
    void isLocalFile();
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
    QTest::newRow("file url localhost") << QByteArray("file://localhost/tmp") << home
                                        << QStringLiteral("file://localhost/tmp");
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

void UrlTest::normalized_data()
{
    QTest::addColumn<QUrl>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("case and port") << url("HTTP://Example.ORG:80/a/") << QStringLiteral("http://example.org/a");
    QTest::newRow("empty path") << url("https://h:443") << QStringLiteral("https://h/");
    QTest::newRow("webdav") << url("webdav://h:80/x") << QStringLiteral("http://h/x");
    QTest::newRow("webdavs") << url("WebDAVs://h:443/x") << QStringLiteral("https://h/x");
    QTest::newRow("webdavs port 80") << url("webdavs://h:80/x") << QStringLiteral("https://h:80/x");
    QTest::newRow("sftp") << url("sftp://bob@h:22//a///b/") << QStringLiteral("sftp://bob@h/a/b");
    QTest::newRow("sftp other port") << url("sftp://bob@h:2222/") << QStringLiteral("sftp://bob@h:2222/");
    QTest::newRow("ftp dots") << url("ftp://h:21/a/./b/../c") << QStringLiteral("ftp://h/a/c");
    QTest::newRow("http port 8080") << url("http://h:8080/") << QStringLiteral("http://h:8080/");
    QTest::newRow("unknown scheme") << url("SMB://Server:445/Share/") << QStringLiteral("smb://server:445/Share");
    QTest::newRow("user case kept") << url("sftp://Bob@H/") << QStringLiteral("sftp://Bob@h/");
    QTest::newRow("query kept") << url("http://h/a/?q=1#f") << QStringLiteral("http://h/a?q=1#f");
    QTest::newRow("encoded slash kept") << url("http://h/a%2Fb/") << QStringLiteral("http://h/a%2Fb");
    QTest::newRow("bytes kept") << url("http://h/%FF%e9/") << QStringLiteral("http://h/%FF%E9");
    QTest::newRow("file root") << url("file:///") << QStringLiteral("file:///");
    QTest::newRow("file dotdot above root") << url("file:///a/../../b") << QStringLiteral("file:///b");
    QTest::newRow("file localhost") << url("file://LocalHost/x/") << QStringLiteral("file:///x");
    QTest::newRow("file bytes") << url("file:///a%FF/%0A/") << QStringLiteral("file:///a%FF/%0A");
    QTest::newRow("file canonical escapes") << url("file:///a%21%3B") << QStringLiteral("file:///a!;");
    QTest::newRow("file dotdot only") << url("file:///..") << QStringLiteral("file:///");
}

void UrlTest::normalized()
{
    QFETCH(QUrl, input);
    QFETCH(QString, expected);
    QVERIFY(input.isValid());
    const QUrl n = Url::normalized(input);
    QCOMPARE(n.toString(QUrl::FullyEncoded), expected);
    QCOMPARE(Url::normalized(n), n); // idempotent
}

void UrlTest::schedulerKey_data()
{
    QTest::addColumn<QUrl>("a");
    QTest::addColumn<QUrl>("b");
    QTest::addColumn<bool>("same");

    QTest::newRow("case") << url("sftp://bob@example.org:2222/a") << url("SFTP://bob@Example.ORG:2222/b") << true;
    QTest::newRow("default port") << url("sftp://bob@h/a") << url("sftp://bob@h:22/b") << true;
    QTest::newRow("password ignored") << url("sftp://bob:pw@h/a") << url("sftp://bob@h") << true;
    QTest::newRow("webdav is http") << url("webdav://h/x") << url("http://h:80/y") << true;
    QTest::newRow("query ignored") << url("http://h/x?a") << url("http://h/#f") << true;
    QTest::newRow("files") << url("file:///a") << url("file:///b/c") << true;
    QTest::newRow("other user") << url("sftp://bob@h/") << url("sftp://alice@h/") << false;
    QTest::newRow("no user") << url("sftp://bob@h/") << url("sftp://h/") << false;
    QTest::newRow("other port") << url("sftp://bob@h:2222/") << url("sftp://bob@h/") << false;
    QTest::newRow("other host") << url("sftp://h1/") << url("sftp://h2/") << false;
    QTest::newRow("other scheme") << url("http://h/") << url("https://h/") << false;
    QTest::newRow("file and sftp") << url("file:///a") << url("sftp://h/a") << false;
}

void UrlTest::schedulerKey()
{
    QFETCH(QUrl, a);
    QFETCH(QUrl, b);
    QFETCH(bool, same);
    QVERIFY(!Url::schedulerKey(a).isEmpty());
    QVERIFY(!Url::schedulerKey(b).isEmpty());
    QCOMPARE(Url::schedulerKey(a) == Url::schedulerKey(b), same);
}

void UrlTest::schedulerKeyText()
{
    QCOMPARE(Url::schedulerKey(url("sftp://bob:secret@Example.org:2222/home/x")),
        QStringLiteral("sftp://bob@example.org:2222"));
    QCOMPARE(Url::schedulerKey(url("webdavs://h:443/dav/")), QStringLiteral("https://h"));
    QCOMPARE(Url::schedulerKey(Url::fromLocalPath("/tmp/\xff")), QStringLiteral("file:"));
    QCOMPARE(Url::schedulerKey(QUrl()), QString());
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

void UrlTest::isAncestorOrSame_data()
{
    QTest::addColumn<QUrl>("ancestor");
    QTest::addColumn<QUrl>("descendant");
    QTest::addColumn<bool>("result");

    QTest::newRow("child") << url("file:///a/b") << url("file:///a/b/c") << true;
    QTest::newRow("deep") << url("file:///a") << url("file:///a/b/c/d") << true;
    QTest::newRow("same") << url("file:///a/b") << url("file:///a/b") << true;
    QTest::newRow("same trailing slash") << url("file:///a/b/") << url("file:///a/b") << true;
    QTest::newRow("root") << url("file:///") << url("file:///x") << true;
    QTest::newRow("prefix not component") << url("file:///a/b") << url("file:///a/bc") << false;
    QTest::newRow("reverse prefix") << url("file:///a/bc") << url("file:///a/b") << false;
    QTest::newRow("parent") << url("file:///a/b/c") << url("file:///a/b") << false;
    QTest::newRow("sibling") << url("file:///a/b") << url("file:///a/c/b") << false;
    QTest::newRow("dotdot out") << url("file:///a/b") << url("file:///a/b/../c") << false;
    QTest::newRow("dotdot in") << url("file:///a/b") << url("file:///a/x/../b/c") << true;
    QTest::newRow("bytes") << Url::fromLocalPath("/a\xff") << Url::fromLocalPath("/a\xff/x") << true;
    QTest::newRow("other bytes") << Url::fromLocalPath("/a\xff") << Url::fromLocalPath("/a\xfe/x") << false;
    QTest::newRow("sftp default port") << url("sftp://h/a") << url("sftp://h:22/a/b") << true;
    QTest::newRow("other host") << url("sftp://h/a") << url("sftp://other/a/b") << false;
    QTest::newRow("other user") << url("sftp://bob@h/a") << url("sftp://eve@h/a/b") << false;
    QTest::newRow("other scheme") << url("http://h/a") << url("https://h/a/b") << false;
    QTest::newRow("webdav") << url("webdav://h/a") << url("http://h/a/b") << true;
    QTest::newRow("encoded slash is one segment") << url("http://h/a%2Fb") << url("http://h/a/b/c") << false;
    QTest::newRow("invalid") << QUrl() << url("file:///a") << false;
}

void UrlTest::isAncestorOrSame()
{
    QFETCH(QUrl, ancestor);
    QFETCH(QUrl, descendant);
    QFETCH(bool, result);
    QCOMPARE(Url::isAncestorOrSame(ancestor, descendant), result);
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

QTEST_GUILESS_MAIN(UrlTest)

#include "urltest.moc"
