// SPDX-License-Identifier: LGPL-2.1-or-later
// The `qvfs` client with webdav://, webdavs:// and https:// URLs against a real nginx with
// dav-ext on 127.0.0.1 (testutil/httpserverfixture): ls, stat, cp, cat, put (from a pipe:
// the size is unknown, the worker spools), rm, mkdir and mv, as a user types them. The
// server's self-signed certificate is refused without --yes.

#include "clirun.h"
#include "httpserverfixture.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace
{

using Run = CliRun::Result;

} // namespace

class HttpCliTest : public QObject
{
    Q_OBJECT

    std::unique_ptr<HttpServerFixture> m_server;
    QTemporaryDir m_home; // XDG_DATA_HOME and a local folder
    QString m_local;

    Run run(const QStringList &args, const QByteArray &input = QByteArray())
    {
        QProcessEnvironment env = CliRun::environment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.path());
        return CliRun::run(CliRun::qvfsBinary(), args, m_local, input, env);
    }

    // The URL of \a path on the server, with \a scheme: webdav (http), webdavs or https (TLS).
    QString at(const QString &scheme, const QByteArray &path) const
    {
        QUrl u = scheme == QLatin1String("webdav") ? m_server->url(path) : m_server->httpsUrl(path);
        u.setScheme(scheme);
        return u.toString(QUrl::FullyEncoded);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        m_local = m_home.path() + QStringLiteral("/local");
        QVERIFY(QDir().mkpath(m_local));
        m_server = std::make_unique<HttpServerFixture>(HttpServerFixture::Server::Nginx);
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    }

    void commands_data()
    {
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("webdav://") << QStringLiteral("webdav") << QStringList();
        QTest::newRow("webdavs://, certificate trusted with --yes")
            << QStringLiteral("webdavs") << QStringList { QStringLiteral("--yes") };
    }
    void commands()
    {
        QFETCH(QString, scheme);
        QFETCH(QStringList, options);
        const QByteArray dir = "/" + scheme.toLatin1();
        const QString d = at(scheme, dir);
        // mkdir -p
        Run r
            = run(options + QStringList { QStringLiteral("mkdir"), QStringLiteral("-p"), d + QStringLiteral("/a/b") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(m_server->exists(QByteArray(dir.mid(1) + "/a/b")));
        // put from a pipe (size unknown up front)
        r = run(options + QStringList { QStringLiteral("put"), d + QStringLiteral("/a/piped.txt") }, "from a pipe\n");
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(m_server->readFile(QByteArray(dir.mid(1) + "/a/piped.txt")), QByteArray("from a pipe\n"));
        r = run(options + QStringList { QStringLiteral("put"), d + QStringLiteral("/a/piped.txt") }, "again\n");
        QCOMPARE(r.code, 1); // exists, no -f
        QVERIFY2(r.err.contains("piped.txt"), r.err.constData());
        // ls, stat, cat
        r = run(options + QStringList { QStringLiteral("ls"), d + QStringLiteral("/a") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("piped.txt") && r.out.contains("b"), r.out.constData());
        r = run(options
            + QStringList { QStringLiteral("stat"), QStringLiteral("--json"), d + QStringLiteral("/a/piped.txt") });
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out.mid(r.out.indexOf('{'))).object();
        QCOMPARE(o.value(QLatin1String("size")).toInteger(), qint64(12));
        r = run(options + QStringList { QStringLiteral("cat"), d + QStringLiteral("/a/piped.txt") });
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("from a pipe\n"));
        // cp both ways, mv, rm
        r = run(options
            + QStringList {
                QStringLiteral("cp"), d + QStringLiteral("/a/piped.txt"), m_local + QStringLiteral("/copy.txt") });
        QVERIFY2(r.code == 0, r.err.constData());
        QFile copy(m_local + QStringLiteral("/copy.txt"));
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), QByteArray("from a pipe\n"));
        r = run(options
            + QStringList { QStringLiteral("cp"), m_local + QStringLiteral("/copy.txt"), d + QStringLiteral("/a/b/") });
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(m_server->readFile(QByteArray(dir.mid(1) + "/a/b/copy.txt")), QByteArray("from a pipe\n"));
        r = run(options
            + QStringList {
                QStringLiteral("mv"), d + QStringLiteral("/a/b/copy.txt"), d + QStringLiteral("/a/moved.txt") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!m_server->exists(QByteArray(dir.mid(1) + "/a/b/copy.txt")));
        QCOMPARE(m_server->readFile(QByteArray(dir.mid(1) + "/a/moved.txt")), QByteArray("from a pipe\n"));
        r = run(options + QStringList { QStringLiteral("rm"), d + QStringLiteral("/a") });
        QCOMPARE(r.code, 1); // a folder without -r
        QVERIFY(m_server->exists(QByteArray(dir.mid(1) + "/a/moved.txt")));
        r = run(options + QStringList { QStringLiteral("rm"), QStringLiteral("-r"), d + QStringLiteral("/a") });
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!m_server->exists(QByteArray(dir.mid(1) + "/a")));
        r = run(options + QStringList { QStringLiteral("stat"), d + QStringLiteral("/a") });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QByteArray(dir + "/a")), r.err.constData());
    }

    void https()
    {
        QVERIFY(m_server->writeFile("page.html", "<p>hello</p>\n"));
        const QString u = at(QStringLiteral("https"), "/page.html");
        // the self-signed certificate: refused without an answer
        Run r = run({ QStringLiteral("cat"), u });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("certificate") || r.err.contains("Certificate"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        r = run({ QStringLiteral("--yes"), QStringLiteral("cat"), u });
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("<p>hello</p>\n"));
        r = run({ QStringLiteral("--yes"), QStringLiteral("stat"), QStringLiteral("--json"), u });
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(
            QJsonDocument::fromJson(r.out.mid(r.out.indexOf('{'))).object().value(QLatin1String("size")).toInteger(),
            qint64(13));
        r = run({ QStringLiteral("--yes"), QStringLiteral("cp"), u, m_local + QStringLiteral("/page.html") });
        QVERIFY2(r.code == 0, r.err.constData());
        // http(s) is read-only
        r = run({ QStringLiteral("--yes"), QStringLiteral("put"), at(QStringLiteral("https"), "/new.html") }, "x");
        QCOMPARE(r.code, 1);
        QVERIFY(!m_server->exists("new.html"));
    }
};

QTEST_GUILESS_MAIN(HttpCliTest)

#include "httpclitest.moc"
