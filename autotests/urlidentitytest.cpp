// SPDX-License-Identifier: LGPL-2.1-or-later
// Url::normalized(), schedulerKey() and isAncestorOrSame(): what depends on the installed
// workers' descriptions (default ports, aliases). The test installs descriptions of its
// own in a temporary folder ($QVFS_WORKER_PATH); nothing here starts a worker.
#include "urlidentity.h"
#include "url.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qvfs;

namespace
{

QUrl url(const char *text)
{
    return QUrl(QString::fromUtf8(text));
}

} // namespace

class UrlIdentityTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void normalized_data();
    void normalized();
    void schedulerKey_data();
    void schedulerKey();
    void schedulerKeyText();
    void isAncestorOrSame_data();
    void isAncestorOrSame();

private:
    QTemporaryDir m_workers;
};

void UrlIdentityTest::initTestCase()
{
    QVERIFY(m_workers.isValid());
    const auto install = [this](const char *name, const char *json) {
        QFile description(m_workers.filePath(QStringLiteral("qvfs-worker-%1.json").arg(QLatin1String(name))));
        QVERIFY(description.open(QIODevice::WriteOnly));
        description.write(json);
        QFile exe(m_workers.filePath(QStringLiteral("qvfs-worker-%1").arg(QLatin1String(name))));
        QVERIFY(exe.open(QIODevice::WriteOnly));
        exe.write("#!/bin/false\n");
        exe.close();
        QVERIFY(exe.setPermissions(QFile::ReadOwner | QFile::ExeOwner));
    };
    install("web",
        R"({"exec": "qvfs-worker-web", "protocols": {
              "http": {"defaultPort": 80}, "https": {"defaultPort": 443},
              "webdav": {"defaultPort": 80, "aliases": ["dav"]},
              "webdavs": {"defaultPort": 443, "aliases": ["davs"]}}})");
    install("remote", R"({"exec": "qvfs-worker-remote", "protocols": {
              "sftp": {"defaultPort": 22}, "ftp": {"defaultPort": 21}}})");
    qputenv("QVFS_WORKER_PATH", QFile::encodeName(m_workers.path()));
}

void UrlIdentityTest::normalized_data()
{
    QTest::addColumn<QUrl>("input");
    QTest::addColumn<QString>("expected");

    QTest::newRow("case and port") << url("HTTP://Example.ORG:80/a/") << QStringLiteral("http://example.org/a");
    QTest::newRow("empty path") << url("https://h:443") << QStringLiteral("https://h/");
    QTest::newRow("webdav") << url("webdav://h:80/x") << QStringLiteral("webdav://h/x");
    QTest::newRow("webdavs") << url("WebDAVs://h:443/x") << QStringLiteral("webdavs://h/x");
    QTest::newRow("webdavs port 80") << url("webdavs://h:80/x") << QStringLiteral("webdavs://h:80/x");
    QTest::newRow("alias dav") << url("DAV://h:80/x") << QStringLiteral("webdav://h/x");
    QTest::newRow("alias davs") << url("davs://h:443/x") << QStringLiteral("webdavs://h/x");
    QTest::newRow("port of no worker kept") << url("gopher://h:70/") << QStringLiteral("gopher://h:70/");
    QTest::newRow("sftp") << url("sftp://bob@h:22//a///b/") << QStringLiteral("sftp://bob@h/a/b");
    QTest::newRow("sftp other port") << url("sftp://bob@h:2222/") << QStringLiteral("sftp://bob@h:2222/");
    QTest::newRow("ftp dots") << url("ftp://h:21/a/./b/../c") << QStringLiteral("ftp://h/a/c");
    QTest::newRow("http port 8080") << url("http://h:8080/") << QStringLiteral("http://h:8080/");
    QTest::newRow("unknown scheme") << url("NFS://Server:2049/Export/") << QStringLiteral("nfs://server:2049/Export");
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

void UrlIdentityTest::normalized()
{
    QFETCH(QUrl, input);
    QFETCH(QString, expected);
    QVERIFY(input.isValid());
    const QUrl n = Url::normalized(input);
    QCOMPARE(n.toString(QUrl::FullyEncoded), expected);
    QCOMPARE(Url::normalized(n), n); // idempotent
}

void UrlIdentityTest::schedulerKey_data()
{
    QTest::addColumn<QUrl>("a");
    QTest::addColumn<QUrl>("b");
    QTest::addColumn<bool>("same");

    QTest::newRow("case") << url("sftp://bob@example.org:2222/a") << url("SFTP://bob@Example.ORG:2222/b") << true;
    QTest::newRow("default port") << url("sftp://bob@h/a") << url("sftp://bob@h:22/b") << true;
    QTest::newRow("password ignored") << url("sftp://bob:pw@h/a") << url("sftp://bob@h") << true;
    QTest::newRow("alias") << url("dav://h/x") << url("webdav://h:80/y") << true;
    QTest::newRow("webdav is not http") << url("webdav://h/x") << url("http://h/y") << false;
    QTest::newRow("query ignored") << url("http://h/x?a") << url("http://h/#f") << true;
    QTest::newRow("files") << url("file:///a") << url("file:///b/c") << true;
    QTest::newRow("other user") << url("sftp://bob@h/") << url("sftp://alice@h/") << false;
    QTest::newRow("no user") << url("sftp://bob@h/") << url("sftp://h/") << false;
    QTest::newRow("other port") << url("sftp://bob@h:2222/") << url("sftp://bob@h/") << false;
    QTest::newRow("other host") << url("sftp://h1/") << url("sftp://h2/") << false;
    QTest::newRow("other scheme") << url("http://h/") << url("https://h/") << false;
    QTest::newRow("file and sftp") << url("file:///a") << url("sftp://h/a") << false;
}

void UrlIdentityTest::schedulerKey()
{
    QFETCH(QUrl, a);
    QFETCH(QUrl, b);
    QFETCH(bool, same);
    QVERIFY(!Url::schedulerKey(a).isEmpty());
    QVERIFY(!Url::schedulerKey(b).isEmpty());
    QCOMPARE(Url::schedulerKey(a) == Url::schedulerKey(b), same);
}

void UrlIdentityTest::schedulerKeyText()
{
    QCOMPARE(Url::schedulerKey(url("sftp://bob:secret@Example.org:2222/home/x")),
        QStringLiteral("sftp://bob@example.org:2222"));
    QCOMPARE(Url::schedulerKey(url("davs://h:443/dav/")), QStringLiteral("webdavs://h"));
    QCOMPARE(Url::schedulerKey(Url::fromLocalPath("/tmp/\xff")), QStringLiteral("file:"));
    QCOMPARE(Url::schedulerKey(QUrl()), QString());
}

void UrlIdentityTest::isAncestorOrSame_data()
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
    QTest::newRow("alias") << url("dav://h/a") << url("webdav://h/a/b") << true;
    QTest::newRow("encoded slash is one segment") << url("http://h/a%2Fb") << url("http://h/a/b/c") << false;
    QTest::newRow("invalid") << QUrl() << url("file:///a") << false;
}

void UrlIdentityTest::isAncestorOrSame()
{
    QFETCH(QUrl, ancestor);
    QFETCH(QUrl, descendant);
    QFETCH(bool, result);
    QCOMPARE(Url::isAncestorOrSame(ancestor, descendant), result);
}

QTEST_GUILESS_MAIN(UrlIdentityTest)
#include "urlidentitytest.moc"
