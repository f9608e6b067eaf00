// SPDX-License-Identifier: LGPL-2.1-or-later
// StatJob through the real file:// worker: every field compared with lstat(), only the
// details asked for, symlinks resolved or not, MIME types by name and by content, and a
// missing path.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/ListJob>
#include <Qvfs/StatJob>

#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

class StatJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void statFields_data();
    void statFields();
    void statResolveSymlink_data();
    void statResolveSymlink();
    void statMimeType_data();
    void statMimeType();
    void statMissing();
};

void StatJobTest::statFields_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("file") << QByteArray("file.txt");
    QTest::newRow("folder") << QByteArray("folder");
    QTest::newRow("symlink") << QByteArray("link");
    QTest::newRow("hidden file") << QByteArray(".dot");
    QTest::newRow("fifo") << QByteArray("fifo");
    QTest::newRow("other owner") << QByteArray("owned");
    QTest::newRow("hard linked") << QByteArray("hard");
}

void StatJobTest::statFields()
{
    QFETCH(QByteArray, name);
    const QByteArray p = path(name);
    if (name == "folder") {
        QVERIFY(mkdirRaw(p, 0751));
    } else if (name == "link") {
        QVERIFY(symlinkRaw("some/target \xff", p));
    } else if (name == "fifo") {
        QVERIFY(::mkfifo(p.constData(), 0600) == 0);
    } else if (name == "hard") {
        QVERIFY(writeRaw(p, "hard linked", 0604));
        QVERIFY(::link(p.constData(), path("hard2").constData()) == 0);
    } else {
        QVERIFY(writeRaw(p, "some content\n", 0640));
    }
    if (name == "owned" && m_fx.isRoot())
        QVERIFY(::lchown(p.constData(), 65534, 65534) == 0);
    QVERIFY(setTimes(p, 1234567890, 987654321));

    auto job = run(Qvfs::stat(fileUrl(p), DetailsFull | DetailAllTimes));
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->url(), fileUrl(p));
    const Entry e = job->statResult();
    const struct stat st = lstatRaw(p);
    QCOMPARE(e.name().toByteArray(), name);
    QCOMPARE(e.type(), typeOf(st.st_mode));
    QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
    QCOMPARE(e.size(), qint64(st.st_size));
    QCOMPARE(e.number(MTime), qint64(1234567890));
    QCOMPARE(e.number(MTimeNs), qint64(987654321));
    QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
    QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    if (name != "link") { // reading the link target touches its atime
        QCOMPARE(e.number(ATime), qint64(st.st_atim.tv_sec));
        QCOMPARE(e.number(ATimeNs), qint64(st.st_atim.tv_nsec));
    }
    QVERIFY(e.contains(ATime));
    QCOMPARE(e.number(Uid), qint64(st.st_uid));
    QCOMPARE(e.number(Gid), qint64(st.st_gid));
    QCOMPARE(e.bytes(User).toByteArray(), userName(st.st_uid));
    QCOMPARE(e.bytes(Group).toByteArray(), groupName(st.st_gid));
    QCOMPARE(e.number(Inode), qint64(st.st_ino));
    QCOMPARE(e.number(Device), qint64(st.st_dev));
    QCOMPARE(e.number(NLink), qint64(st.st_nlink));
    QCOMPARE(e.number(Blocks), qint64(st.st_blocks));
    if (name == "link")
        QCOMPARE(e.bytes(LinkTarget).toByteArray(), QByteArray("some/target \xff"));
    else
        QVERIFY(!e.contains(LinkTarget));
    QCOMPARE(e.number(Hidden, 0), qint64(name.startsWith('.') ? 1 : 0));
    QVERIFY(!e.contains(MimeType));
    if (name == "hard")
        QCOMPARE(e.number(NLink), qint64(2));
    if (name == "owned" && m_fx.isRoot()) {
        QCOMPARE(e.number(Uid), qint64(65534));
        QCOMPARE(e.bytes(User).toByteArray(), userName(65534));
    }

    // Only what was asked for.
    auto basic = run(Qvfs::stat(fileUrl(p), DetailBasic));
    QCOMPARE(basic->error(), 0);
    const Entry b = basic->statResult();
    QCOMPARE(b.size(), qint64(st.st_size));
    QVERIFY(!b.contains(MTime));
    QVERIFY(!b.contains(Uid));
    QVERIFY(!b.contains(Inode));
}

void StatJobTest::statResolveSymlink_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("type"); // FileType of the answer with DetailResolveSymlink
    QTest::newRow("to a file") << QByteArray("target.txt") << int(FileType::Regular);
    QTest::newRow("to a folder") << QByteArray("folder") << int(FileType::Directory);
    // A dangling link or a loop fails like stat -L: fileentrytest.cpp.
}

void StatJobTest::statResolveSymlink()
{
    QFETCH(QByteArray, target);
    QFETCH(int, type);
    QVERIFY(writeRaw(path("target.txt"), "0123456789", 0640));
    QVERIFY(setTimes(path("target.txt"), 1111111111, 222222222));
    QVERIFY(mkdirRaw(path("folder"), 0700));
    QVERIFY(symlinkRaw(target, path("link")));

    auto plain = run(Qvfs::stat(url("link"), DetailsDefault));
    QCOMPARE(plain->error(), 0);
    QCOMPARE(plain->statResult().type(), FileType::Symlink);
    QCOMPARE(plain->statResult().bytes(LinkTarget).toByteArray(), target);

    auto job = run(Qvfs::stat(url("link"), DetailsDefault | DetailResolveSymlink));
    QCOMPARE(job->error(), 0);
    const Entry e = job->statResult();
    QCOMPARE(int(e.type()), type);
    QCOMPARE(e.name().toByteArray(), QByteArray("link"));
    QCOMPARE(e.bytes(LinkTarget).toByteArray(), target); // kept
    if (type != int(FileType::Symlink)) {
        const QByteArray t = path(target);
        struct stat st;
        QVERIFY(::stat(t.constData(), &st) == 0);
        QCOMPARE(e.number(Mode), qint64(st.st_mode & 07777));
        QCOMPARE(e.size(), qint64(st.st_size));
        QCOMPARE(e.number(MTime), qint64(st.st_mtim.tv_sec));
        QCOMPARE(e.number(MTimeNs), qint64(st.st_mtim.tv_nsec));
    }
}

void StatJobTest::statMimeType_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("mimeType");
    QTest::addColumn<bool>("viaList");
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
    const QByteArray pngData(png, sizeof png - 1);
    QTest::newRow("text, by name") << QByteArray("notes.txt") << QByteArray("hello\n") << QStringLiteral("text/plain")
                                   << false;
    QTest::newRow("PNG without extension, by content")
        << QByteArray("picture") << pngData << QStringLiteral("image/png") << false;
    QTest::newRow("PNG without extension, in a listing")
        << QByteArray("picture") << pngData << QStringLiteral("image/png") << true;
    QTest::newRow("folder") << QByteArray("folder") << QByteArray() << QStringLiteral("inode/directory") << false;
}

void StatJobTest::statMimeType()
{
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, mimeType);
    QFETCH(bool, viaList);
    const QByteArray dir = path("m");
    QVERIFY(mkdirRaw(dir));
    if (name == "folder")
        QVERIFY(mkdirRaw(join(dir, name)));
    else
        QVERIFY(writeRaw(join(dir, name), content));
    Entry e;
    if (viaList) {
        const Listing l = collect(Qvfs::listDir(fileUrl(dir), DetailsDefault | DetailMimeType));
        QCOMPARE(l.error, 0);
        e = l.entries.value(name);
    } else {
        auto job = run(Qvfs::stat(fileUrl(join(dir, name)), DetailsDefault | DetailMimeType));
        QCOMPARE(job->error(), 0);
        e = job->statResult();
        auto without = run(Qvfs::stat(fileUrl(join(dir, name)), DetailsDefault));
        QVERIFY(!without->statResult().contains(MimeType)); // only on request
    }
    QCOMPARE(e.string(MimeType), mimeType);
}

void StatJobTest::statMissing()
{
    auto job = run(Qvfs::stat(url("missing")));
    QCOMPARE(job->error(), int(ErrDoesNotExist));
    QCOMPARE(job->errorArgs().value(0), encoded(path("missing")));
    QVERIFY(job->errorString().contains(QString::fromUtf8(path("missing"))));
    QVERIFY(job->statResult().isEmpty());
    auto parent = run(Qvfs::stat(url("missing/child")));
    QCOMPARE(parent->error(), int(ErrDoesNotExist));
}

QTEST_GUILESS_MAIN(StatJobTest)

#include "statjobtest.moc"
