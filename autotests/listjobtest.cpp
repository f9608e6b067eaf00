// SPDX-License-Identifier: LGPL-2.1-or-later
// ListJob against real temporary trees through the real file:// worker: flat and recursive
// listings, every detail level compared with lstat(), .hidden files, symlink loops, many
// sibling folders under a low descriptor limit, and the errors of a listing.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "fdlimit.h"
#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/ListJob>

#include <QTest>

#include <sys/stat.h>

using namespace Qvfs;
using namespace QvfsTest;

class ListJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void listFlat_data();
    void listFlat();
    void listRecursive_data();
    void listRecursive();
    void listErrors_data();
    void listErrors();
};

void ListJobTest::listFlat_data()
{
    QTest::addColumn<int>("details");
    QTest::newRow("names only (0)") << 0;
    QTest::newRow("basic") << int(DetailBasic);
    QTest::newRow("basic + .hidden") << int(DetailBasic | DetailHiddenFile);
    QTest::newRow("default") << int(DetailsDefault);
    QTest::newRow("full") << int(DetailsFull);
    QTest::newRow("full + all times") << int(DetailsFull | DetailAllTimes);
}

void ListJobTest::listFlat()
{
    QFETCH(int, details);
    const Details d = Details(uint(details));
    const QByteArray dir = path("flat");
    QVERIFY(mkdirRaw(dir));
    QVERIFY(writeRaw(join(dir, "a.txt"), "hello", 0640));
    QVERIFY(writeRaw(join(dir, ".dot"), "dot", 0600));
    QVERIFY(writeRaw(join(dir, "hid"), "listed in .hidden", 0644));
    QVERIFY(writeRaw(join(dir, ".hidden"), "hid\nnot-there\n", 0644));
    QVERIFY(mkdirRaw(join(dir, "dir"), 0750));
    QVERIFY(symlinkRaw("a.txt", join(dir, "link")));
    QVERIFY(setTimes(join(dir, "a.txt"), 1234567890, 123456789));

    const Listing l = collect(Qvfs::listDir(fileUrl(dir), d));
    QCOMPARE(l.error, 0);
    const QList<QByteArray> expected { ".dot", ".hidden", "a.txt", "dir", "hid", "link" };
    QCOMPARE(l.entries.keys(), expected);
    QCOMPARE(l.count, expected.size());

    for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it) {
        const QByteArray &name = it.key();
        const Entry &e = it.value();
        const struct stat st = lstatRaw(join(dir, name));
        const QByteArray where = QByteArray("entry " + name);
        QVERIFY2(e.contains(Name), where.constData());
        if (d != 0 || e.contains(Type)) {
            QVERIFY2(e.contains(Type), where.constData());
            QVERIFY2(e.type() == typeOf(st.st_mode), where.constData());
        }
        if (d & DetailBasic) {
            QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
            QCOMPARE(e.size(), qint64(st.st_size));
            if (name == "link")
                QCOMPARE(e.bytes(LinkTarget).toByteArray(), QByteArray("a.txt"));
            else
                QVERIFY2(!e.contains(LinkTarget), where.constData());
            const bool hidden = name.startsWith('.') || ((d & DetailHiddenFile) && name == "hid");
            QVERIFY2((e.number(Hidden, 0) != 0) == hidden, where.constData());
        } else {
            QVERIFY2(!e.contains(Size), where.constData());
            QVERIFY2(!e.contains(Mode), where.constData());
            QVERIFY2(!e.contains(LinkTarget), where.constData());
        }
        if (d & DetailTime) {
            QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
            QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
        } else {
            QVERIFY2(!e.contains(MTime) && !e.contains(MTimeNs), where.constData());
        }
        if (d & DetailAllTimes) {
            QVERIFY2(e.contains(ATime) && e.contains(ATimeNs), where.constData());
            // Reading a link (for LinkTarget) or the .hidden file touches its atime.
            if (name != "link" && name != ".hidden") {
                QVERIFY2(
                    e.number(ATime) == qint64(st.st_atim.tv_sec) && e.number(ATimeNs) == qint64(st.st_atim.tv_nsec),
                    QByteArray(where + " atime " + QByteArray::number(e.number(ATime)) + '.'
                        + QByteArray::number(e.number(ATimeNs)) + " instead of "
                        + QByteArray::number(qint64(st.st_atim.tv_sec)) + '.'
                        + QByteArray::number(qint64(st.st_atim.tv_nsec)))
                        .constData());
            }
        } else {
            QVERIFY2(!e.contains(ATime) && !e.contains(BTime), where.constData());
        }
        if (d & DetailUser) {
            QCOMPARE(e.number(Uid), qint64(st.st_uid));
            QCOMPARE(e.number(Gid), qint64(st.st_gid));
            QCOMPARE(e.bytes(User).toByteArray(), userName(st.st_uid));
            QCOMPARE(e.bytes(Group).toByteArray(), groupName(st.st_gid));
        } else {
            QVERIFY2(
                !e.contains(Uid) && !e.contains(Gid) && !e.contains(User) && !e.contains(Group), where.constData());
        }
        if (d & DetailInode) {
            QCOMPARE(e.number(Inode), qint64(st.st_ino));
            QCOMPARE(e.number(Device), qint64(st.st_dev));
            QCOMPARE(e.number(NLink), qint64(st.st_nlink));
            QCOMPARE(e.number(Blocks), qint64(st.st_blocks));
        } else {
            QVERIFY2(!e.contains(Inode) && !e.contains(Device) && !e.contains(NLink) && !e.contains(Blocks),
                where.constData());
        }
        QVERIFY2(!e.contains(MimeType), where.constData());
    }
}

void ListJobTest::listRecursive_data()
{
    QTest::addColumn<bool>("follow");
    QTest::addColumn<int>("wide"); // > 0: that many sibling folders, with RLIMIT_NOFILE 1024
    QTest::newRow("symlinks not followed") << false << 0;
    QTest::newRow("FollowSymlinks, loops end") << true << 0;
    QTest::newRow("1500 sibling folders, RLIMIT_NOFILE 1024") << false << 1500;
}

void ListJobTest::listRecursive()
{
    QFETCH(bool, follow);
    QFETCH(int, wide);
    const QByteArray top = path("rtree");
    QVERIFY(mkdirRaw(top));
    QList<QByteArray> expected;
    if (wide > 0) {
        for (int i = 0; i < wide; ++i) {
            const QByteArray name = QByteArray("d" + QByteArray::number(i).rightJustified(4, '0'));
            QVERIFY(mkdirRaw(join(top, name)));
            QVERIFY(writeRaw(join(top, join(name, "f")), "f"));
            expected << name << join(name, "f");
        }
        FdLimit limit(1024); // the usual soft limit of a desktop session, for the worker
        const Listing l = collect(Qvfs::listRecursive(fileUrl(top), DetailBasic));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.count, expected.size());
        QCOMPARE(l.entries.keys(), sorted(expected));
        return;
    }

    QVERIFY(mkdirRaw(path("outside")));
    QVERIFY(writeRaw(path("outside/o"), "outside"));
    QVERIFY(writeRaw(join(top, "a"), "a"));
    QVERIFY(mkdirRaw(join(top, "sub")));
    QVERIFY(writeRaw(join(top, "sub/b"), "bb"));
    QVERIFY(writeRaw(join(top, "sub/.hidden"), "b\n"));
    QVERIFY(mkdirRaw(join(top, "sub/deeper")));
    QVERIFY(writeRaw(join(top, "sub/deeper/c"), "ccc"));
    QVERIFY(symlinkRaw("..", join(top, "sub/up"))); // a loop to the top
    QVERIFY(symlinkRaw(".", join(top, "sub/self"))); // a loop to itself
    QVERIFY(symlinkRaw("../outside", join(top, "linkdir")));
    QVERIFY(symlinkRaw("ring2", join(top, "ring1"))); // ELOOP
    QVERIFY(symlinkRaw("ring1", join(top, "ring2")));
    expected = { "a", "sub", "sub/b", "sub/.hidden", "sub/deeper", "sub/deeper/c", "sub/up", "sub/self", "linkdir",
        "ring1", "ring2" };
    if (follow)
        expected << "linkdir/o";

    const Listing l = collect(
        Qvfs::listRecursive(fileUrl(top), DetailsDefault, follow ? ListJob::FollowSymlinks : ListJob::NoFlags));
    QCOMPARE(l.error, 0);
    QCOMPARE(l.entries.keys(), sorted(expected));
    QCOMPARE(l.count, expected.size()); // nothing listed twice
    for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it) {
        const struct stat st = lstatRaw(join(top, it.key()));
        QVERIFY2(it.value().type() == typeOf(st.st_mode), it.key().constData());
        QCOMPARE(it.value().size(), qint64(st.st_size));
        QCOMPARE(it.value().number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    }
    QCOMPARE(l.entries.value("sub/up").bytes(LinkTarget).toByteArray(), QByteArray(".."));
    QCOMPARE(l.entries.value("linkdir").type(), FileType::Symlink);
    // .hidden of the sub-folder applies to its own entries
    QCOMPARE(l.entries.value("sub/b").number(Hidden, 0), qint64(1));
    QCOMPARE(l.entries.value("sub/.hidden").number(Hidden, 0), qint64(1));
    QCOMPARE(l.entries.value("sub/deeper/c").number(Hidden, 0), qint64(0));
    QCOMPARE(l.entries.value("a").number(Hidden, 0), qint64(0));
}

void ListJobTest::listErrors_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<bool>("recursive");
    QTest::addColumn<int>("error");
    QTest::newRow("missing, flat") << QByteArray("missing") << false << int(ErrDoesNotExist);
    QTest::newRow("missing, recursive") << QByteArray("missing") << true << int(ErrDoesNotExist);
    QTest::newRow("missing parent") << QByteArray("nodir/missing") << false << int(ErrDoesNotExist);
    QTest::newRow("a file, flat") << QByteArray("file") << false << int(ErrIsNotDirectory);
    QTest::newRow("a file, recursive") << QByteArray("file") << true << int(ErrIsNotDirectory);
}

void ListJobTest::listErrors()
{
    QFETCH(QByteArray, rel);
    QFETCH(bool, recursive);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("file"), "x"));
    const Listing l = collect(recursive ? Qvfs::listRecursive(url(rel)) : Qvfs::listDir(url(rel)));
    QCOMPARE(l.error, error);
    QCOMPARE(l.count, 0);
    QCOMPARE(l.errorArgs.value(0), encoded(path(rel)));
    QVERIFY2(l.errorString.contains(QString::fromUtf8(path(rel))), qPrintable(l.errorString));
}

QTEST_GUILESS_MAIN(ListJobTest)

#include "listjobtest.moc"
