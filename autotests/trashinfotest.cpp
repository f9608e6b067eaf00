// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash's pure parts, in-process: Path encoding byte for byte, .trashinfo parsing of
// what other programs write (and refusing what is malformed), GLib's free-name rule within
// NAME_MAX, and the directorysizes cache (written atomically, KIO's milliseconds read).

#include "fixturedir.h"
#include "rawfs.h"
#include "trasher_p.h"
#include "trashinfo_p.h"
#include "trashsizes_p.h"

#include <QTest>

#include <fcntl.h>
#include <unistd.h>

#include <climits>

using namespace Qvfs::Trash;
using namespace QvfsTest;

class TrashInfoTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pathEncoding()
    {
        QCOMPARE(encodePath("/home/u/a b%c#é\xff"), QByteArray("/home/u/a%20b%25c%23%C3%A9%FF"));
        QCOMPARE(encodePath("-._~/Az09"), QByteArray("-._~/Az09"));
        QByteArray back;
        QVERIFY(decodePath("/home/u/a%20b%25c%23%c3%a9%FF", &back));
        QCOMPARE(back, QByteArray("/home/u/a b%c#é\xff"));
        QVERIFY(decodePath("/plain+name", &back)); // '+' is a plus, not a space
        QCOMPARE(back, QByteArray("/plain+name"));
        for (const char *bad : { "/a%", "/a%4", "/a%zz", "/a%00b", "" })
            QVERIFY2(!decodePath(bad, &back), bad);
    }

    void parsing()
    {
        Info info;
        QVERIFY(
            parseInfo("# a comment\n\n[Trash Info]\r\nPath=/x/y%20z\r\nDeletionDate=2004-08-31T22:32:08\r\n", &info));
        QCOMPARE(info.path, QByteArray("/x/y z"));
        QCOMPARE(info.deletionTime, QDateTime(QDate(2004, 8, 31), QTime(22, 32, 8)).toSecsSinceEpoch());
        QVERIFY(parseInfo("[Trash Info]\nDeletionDate=junk\nPath=rel/p\nOther=1\n[Other]\nPath=/no\n", &info));
        QCOMPARE(info.path, QByteArray("rel/p"));
        QCOMPARE(info.deletionTime, -1);
        QVERIFY(!parseInfo("Path=/x\n", &info)); // no group
        QVERIFY(!parseInfo("[Desktop Entry]\nPath=/x\n[Trash Info]\nPath=/y\n", &info)); // not first
        QVERIFY(!parseInfo("[Trash Info]\nDeletionDate=2004-08-31T22:32:08\n", &info)); // no Path
        QVERIFY(!parseInfo("[Trash Info]\nPath=/x%00\n", &info));
        const QDateTime when(QDate(2026, 12, 3), QTime(9, 5, 7));
        const QByteArray made = formatInfo("/a b", when);
        QCOMPARE(made, QByteArray("[Trash Info]\nPath=/a%20b\nDeletionDate=2026-12-03T09:05:07\n"));
        QVERIFY(parseInfo(made, &info));
        QCOMPARE(info.deletionTime, when.toSecsSinceEpoch());
    }

    void freeNames()
    {
        QCOMPARE(candidateName("a.txt", 1), QByteArray("a.txt"));
        QCOMPARE(candidateName("a.txt", 2), QByteArray("a.2.txt"));
        QCOMPARE(candidateName("a.tar.gz", 3), QByteArray("a.3.tar.gz"));
        QCOMPARE(candidateName("noext", 2), QByteArray("noext.2"));
        const QByteArray longName = QByteArray(250, 'n') + ".ext";
        for (int n : { 1, 2, 999 }) {
            const QByteArray c = candidateName(longName, n);
            QVERIFY(c.size() + InfoSuffix.size() <= NAME_MAX);
            QVERIFY(c.endsWith(".ext"));
        }
        QVERIFY(candidateName(longName, 2) != candidateName(longName, 3));
    }

    void sizeCache()
    {
        FixtureDir dir;
        QVERIFY(dir.isValid());
        const int fd = ::open(dir.path().constData(), O_RDONLY | O_DIRECTORY);
        QVERIFY(fd >= 0);
        QVERIFY(writeRaw(join(dir.path(), "directorysizes"), "10 1000 a%20b\n20 2000000 kio\nbad line\n"));
        SizeCache c;
        c.load(fd);
        QCOMPARE(c.size("a b", 1000), 10);
        QCOMPARE(c.size("a b", 1001), -1); // the info changed: count again
        QCOMPARE(c.size("kio", 2000), 20); // KIO writes milliseconds
        c.set("new", 5, 7);
        c.retain({ { "a b", true }, { "new", true } });
        c.save(fd);
        SizeCache again;
        again.load(fd);
        QCOMPARE(again.size("new", 5), 7);
        QCOMPARE(again.size("kio", 2000), -1);
        QCOMPARE(namesIn(dir.path()), QList<QByteArray> { "directorysizes" }); // no temporary left
        ::close(fd);
    }
};

QTEST_GUILESS_MAIN(TrashInfoTest)
#include "trashinfotest.moc"
