// SPDX-License-Identifier: LGPL-2.1-or-later
// The raw-path rules of Qvfs::Proto (rawpath_p.h) that the workers and the client share.
#include "rawpath_p.h"

#include <QTest>

using namespace Qvfs::Internal;

class RawPathTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void joinPath_data()
    {
        QTest::addColumn<QByteArray>("dir");
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("joined");
        QTest::newRow("folder") << QByteArray("/a") << QByteArray("b") << QByteArray("/a/b");
        QTest::newRow("root") << QByteArray("/") << QByteArray("b") << QByteArray("/b");
        // One '/' between: the sftp worker's own copy doubled it after a trailing slash.
        QTest::newRow("trailing slash") << QByteArray("/a/") << QByteArray("b") << QByteArray("/a/b");
        QTest::newRow("relative") << QByteArray("a") << QByteArray("b/c") << QByteArray("a/b/c");
        QTest::newRow("no folder") << QByteArray() << QByteArray("b") << QByteArray("b");
        QTest::newRow("raw bytes") << QByteArray("/\xff") << QByteArray("\x01") << QByteArray("/\xff/\x01");
    }
    void joinPath()
    {
        QFETCH(QByteArray, dir);
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, joined);
        QCOMPARE(Qvfs::Internal::joinPath(dir, name), joined);
    }

    void splitPath_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("dir");
        QTest::addColumn<QByteArray>("name");
        QTest::newRow("deep") << QByteArray("/a/b/c") << QByteArray("/a/b") << QByteArray("c");
        QTest::newRow("in the root") << QByteArray("/a") << QByteArray("/") << QByteArray("a");
        QTest::newRow("the root") << QByteArray("/") << QByteArray("/") << QByteArray();
        // Trailing slashes are no component: the parent of "/a/b/" is "/a" (the sftp
        // worker's and the client's own copies said "/a/b").
        QTest::newRow("trailing slash") << QByteArray("/a/b/") << QByteArray("/a") << QByteArray("b");
        QTest::newRow("trailing slashes") << QByteArray("/a//") << QByteArray("/") << QByteArray("a");
        QTest::newRow("a name alone") << QByteArray("a") << QByteArray(".") << QByteArray("a");
        QTest::newRow("relative") << QByteArray("a/b") << QByteArray("a") << QByteArray("b");
    }
    void splitPath()
    {
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, dir);
        QFETCH(QByteArray, name);
        QByteArray d, n;
        Qvfs::Internal::splitPath(path, &d, &n);
        QCOMPARE(d, dir);
        QCOMPARE(n, name);
        QCOMPARE(parentPath(path), dir);
    }

    void stripTrailingSlashes_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("stripped");
        QTest::newRow("none") << QByteArray("/a") << QByteArray("/a");
        QTest::newRow("one") << QByteArray("/a/") << QByteArray("/a");
        QTest::newRow("several") << QByteArray("/a///") << QByteArray("/a");
        QTest::newRow("the root") << QByteArray("/") << QByteArray("/");
        QTest::newRow("the root, twice") << QByteArray("//") << QByteArray("/");
    }
    void stripTrailingSlashes()
    {
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, stripped);
        QCOMPARE(Qvfs::Internal::stripTrailingSlashes(path), stripped);
    }

    void isSameOrBelow_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("folder");
        QTest::addColumn<bool>("below");
        QTest::newRow("same") << QByteArray("/a/b") << QByteArray("/a/b") << true;
        QTest::newRow("below") << QByteArray("/a/b/c") << QByteArray("/a/b") << true;
        QTest::newRow("a longer name") << QByteArray("/a/bc") << QByteArray("/a/b") << false;
        QTest::newRow("above") << QByteArray("/a") << QByteArray("/a/b") << false;
        QTest::newRow("below the root") << QByteArray("/a") << QByteArray("/") << true;
        QTest::newRow("the root") << QByteArray("/") << QByteArray("/") << true;
        QTest::newRow("a folder with its slash") << QByteArray("/a/b") << QByteArray("/a/") << true;
        QTest::newRow("beside") << QByteArray("/x/b") << QByteArray("/a") << false;
    }
    void isSameOrBelow()
    {
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, folder);
        QFETCH(bool, below);
        QCOMPARE(Qvfs::Internal::isSameOrBelow(path, folder), below);
    }
};

QTEST_GUILESS_MAIN(RawPathTest)

#include "rawpathtest.moc"
