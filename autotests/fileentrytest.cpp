// SPDX-License-Identifier: LGPL-2.1-or-later
// How the file worker describes entries where it is easy to get wrong: `stat -L` of a
// dangling link or a loop fails (issue 16, finding 12); a directory size counts a
// hard-linked file once, like `du -s --apparent-size` (issue 15, bug 6); an entry the
// worker cannot stat is still listed, marked Incomplete, as `ls` shows "??????????"
// (issue 15). Through the real worker and the public jobs API.

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "unprivilegedworkers.h"

#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/MetaData>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QMap>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

using namespace Qvfs;
using namespace QvfsTest;

class FileEntryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void statResolveSymlink_data();
    void statResolveSymlink();
    void sizeCountsHardLinksOnce_data();
    void sizeCountsHardLinksOnce();
    void unreadableEntriesListedIncomplete_data();
    void unreadableEntriesListedIncomplete();

private:
    QByteArray path(const char *rel) const { return m_fixture.path(rel); }
    QUrl url(const char *rel) const { return m_fixture.url(rel); }

    JobFixture m_fixture;
};

void FileEntryTest::init()
{
    m_fixture.init(); // mode 0755: the unprivileged worker may enter
}

void FileEntryTest::cleanup()
{
    m_fixture.cleanup();
}

// ---------------------------------------------------------------- stat -L

void FileEntryTest::statResolveSymlink_data()
{
    QTest::addColumn<QByteArray>("target"); // of the link "link"
    QTest::addColumn<int>("error");
    QTest::addColumn<int>("type"); // on success
    QTest::newRow("to a file") << QByteArray("file") << 0 << int(FileType::Regular);
    QTest::newRow("dangling") << QByteArray("nowhere") << int(ErrDoesNotExist) << 0;
    QTest::newRow("dangling in a missing folder") << QByteArray("gone/nowhere") << int(ErrDoesNotExist) << 0;
    QTest::newRow("to itself") << QByteArray("link") << int(ErrSymlinkLoop) << 0;
    QTest::newRow("a loop of two") << QByteArray("other") << int(ErrSymlinkLoop) << 0;
}

void FileEntryTest::statResolveSymlink()
{
    QFETCH(QByteArray, target);
    QFETCH(int, error);
    QFETCH(int, type);
    QVERIFY(writeRaw(path("file"), "abc"));
    QVERIFY(symlinkRaw("link", path("other")));
    QVERIFY(symlinkRaw(target, path("link")));

    const auto job = run(Qvfs::stat(url("link"), DetailBasic | DetailResolveSymlink));
    QCOMPARE(job->error(), error);
    if (error) {
        // Like stat -L: an error naming the link.
        QCOMPARE(job->errorArgs().value(0), QString::fromLatin1(url("link").toEncoded()));
        QVERIFY2(job->errorString().contains(QString::fromUtf8(path("link"))), qPrintable(job->errorString()));
    } else {
        QCOMPARE(int(job->statResult().type()), type);
        QCOMPARE(job->statResult().bytes(LinkTarget).toByteArray(), target);
    }

    // Without DetailResolveSymlink the link itself is described, whatever it points to.
    const auto plain = run(Qvfs::stat(url("link"), DetailBasic));
    QCOMPARE(plain->error(), 0);
    QCOMPARE(plain->statResult().type(), FileType::Symlink);
}

// ---------------------------------------------------------------- directory size

void FileEntryTest::sizeCountsHardLinksOnce_data()
{
    QTest::addColumn<QByteArray>("layout");
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<qint64>("files"); // every name
    QTest::newRow("no links") << QByteArray("plain") << qint64(1000 + 10) << qint64(2);
    QTest::newRow("two names in one folder") << QByteArray("pair") << qint64(1000 + 10) << qint64(3);
    QTest::newRow("three names in two folders") << QByteArray("spread") << qint64(1000 + 10) << qint64(4);
    QTest::newRow("the other name outside") << QByteArray("outside") << qint64(1000 + 10) << qint64(2);
    QTest::newRow("two linked files") << QByteArray("two") << qint64(1000 + 10) << qint64(4);
}

void FileEntryTest::sizeCountsHardLinksOnce()
{
    // `ln t/a t/b; du -s --apparent-size t`: a's bytes once.
    QFETCH(QByteArray, layout);
    QFETCH(qint64, bytes);
    QFETCH(qint64, files);
    QVERIFY(mkdirRaw(path("t"), 0755) && mkdirRaw(path("t/sub"), 0755));
    QVERIFY(writeRaw(path("t/a"), QByteArray(1000, 'a')));
    QVERIFY(writeRaw(path("t/d"), "0123456789"));
    if (layout == "pair" || layout == "spread" || layout == "two")
        QVERIFY(::link(path("t/a").constData(), path("t/b").constData()) == 0);
    if (layout == "spread")
        QVERIFY(::link(path("t/a").constData(), path("t/sub/c").constData()) == 0);
    if (layout == "outside")
        QVERIFY(::link(path("t/a").constData(), path("elsewhere").constData()) == 0);
    if (layout == "two")
        QVERIFY(::link(path("t/d").constData(), path("t/sub/e").constData()) == 0);

    const auto job = run(Qvfs::directorySize(url("t")));
    QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
    QCOMPARE(job->totalBytes(), bytes);
    QCOMPARE(job->totalFiles(), files);
    QCOMPARE(job->totalDirectories(), qint64(1));
}

// ---------------------------------------------------------------- incomplete entries

void FileEntryTest::unreadableEntriesListedIncomplete_data()
{
    QTest::addColumn<bool>("recursive");
    QTest::newRow("listing") << false;
    QTest::newRow("recursive listing") << true;
}

void FileEntryTest::unreadableEntriesListedIncomplete()
{
    // A folder its user may read but not search (mode 0600): the names and types are
    // there, the details are not. Each entry is listed, marked Incomplete, none dropped.
    QFETCH(bool, recursive);
    QVERIFY(mkdirRaw(path("box"), 0755));
    QVERIFY(writeRaw(path("box/file"), "12345"));
    QVERIFY(mkdirRaw(path("box/folder"), 0755));
    QVERIFY(symlinkRaw("file", path("box/link")));
    QVERIFY(writeRaw(path("box/.dot"), "1"));
    if (UnprivilegedWorkers::dropsPrivileges()) {
        // Root searches anything: the listing runs as the folder's owner, uid 65534.
        for (const char *p : { "box", "box/file", "box/folder", "box/link", "box/.dot" })
            QVERIFY(::lchown(path(p).constData(), UnprivilegedWorkers::NobodyId, UnprivilegedWorkers::NobodyId) == 0);
    }
    QVERIFY(::chmod(path("box").constData(), 0600) == 0);
    UnprivilegedWorkers workers;

    ListJob *job = recursive ? Qvfs::listRecursive(url("box"), DetailsFull) : Qvfs::listDir(url("box"), DetailsFull);
    QMap<QByteArray, Entry> entries;
    connect(job, &ListJob::entries, job, [&entries](ListJob *, const EntryList &list) {
        for (const Entry &e : list)
            entries.insert(e.name().toByteArray(), e);
    });
    const auto owner = run(job);
    QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
    QCOMPARE(entries.keys(), (QList<QByteArray> { ".dot", "file", "folder", "link" }));
    const QMap<QByteArray, FileType> types {
        { ".dot", FileType::Regular },
        { "file", FileType::Regular },
        { "folder", FileType::Directory },
        { "link", FileType::Symlink },
    };
    for (auto it = entries.cbegin(); it != entries.cend(); ++it) {
        const Entry &e = it.value();
        QCOMPARE(e.number(Incomplete), qint64(1));
        QCOMPARE(e.type(), types.value(it.key()));
        QVERIFY(!e.contains(Size));
        QVERIFY(!e.contains(Mode));
        QVERIFY(!e.contains(MTime));
        QCOMPARE(e.contains(Hidden), it.key() == ".dot");
    }
    // The folder inside could not be entered either: skipped, and said so.
    if (recursive)
        QCOMPARE(job->metaData().number("skipped-folders"), qint64(1));
}

QTEST_GUILESS_MAIN(FileEntryTest)

#include "fileentrytest.moc"
