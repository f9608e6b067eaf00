// SPDX-License-Identifier: LGPL-2.1-or-later
// The one-request jobs through the real file:// worker: mkdir, mkpath, rename, symlink and
// chmod, with their errors, and what they leave on disk.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/Error>
#include <Qvfs/SimpleJob>

#include <QMap>
#include <QTest>

#include <sys/stat.h>

using namespace Qvfs;
using namespace QvfsTest;

class SimpleJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void mkdirJob_data();
    void mkdirJob();
    void mkpathJob_data();
    void mkpathJob();
    void renameJob_data();
    void renameJob();
    void renameJobUrl();
    void symlinkJob_data();
    void symlinkJob();
    void chmodJob_data();
    void chmodJob();
};

void SimpleJobTest::mkdirJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::addColumn<int>("mode");
    QTest::newRow("new, default permissions") << QByteArray("new") << -1 << 0 << int(0777 & ~currentUmask());
    QTest::newRow("new, 0750") << QByteArray("p") << 0750 << 0 << 0750;
    QTest::newRow("new, 0777 (beyond the umask)") << QByteArray("open") << 0777 << 0 << 0777;
    QTest::newRow("new, sticky 01777") << QByteArray("sticky") << 01777 << 0 << 01777;
    QTest::newRow("existing folder") << QByteArray("existing") << -1 << int(ErrAlreadyExists) << 0;
    QTest::newRow("existing file") << QByteArray("file") << -1 << int(ErrAlreadyExists) << 0;
    QTest::newRow("missing parent") << QByteArray("missing/child") << -1 << int(ErrDoesNotExist) << 0;
}

void SimpleJobTest::mkdirJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QFETCH(int, mode);
    QVERIFY(mkdirRaw(path("existing"), 0700));
    QVERIFY(writeRaw(path("file"), "file"));
    const struct stat before = lstatRaw(path(rel));
    auto job = run(Qvfs::mkdir(url(rel), permissions));
    QCOMPARE(job->url(), url(rel));
    QCOMPARE(job->error(), error);
    const struct stat st = lstatRaw(path(rel));
    if (error) {
        // a missing parent is named itself: it is what does not exist
        QCOMPARE(job->errorArgs().value(0), encoded(path(rel == "missing/child" ? QByteArray("missing") : rel)));
        QCOMPARE(st.st_mode, before.st_mode); // untouched
        return;
    }
    QVERIFY(S_ISDIR(st.st_mode));
    QCOMPARE(int(st.st_mode & 07777), mode);
}

void SimpleJobTest::mkpathJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("named"); // the path the error names
    QTest::newRow("three levels") << QByteArray("a/b/c") << -1 << 0 << QByteArray();
    QTest::newRow("three levels, 0700") << QByteArray("a/b/c") << 0700 << 0 << QByteArray();
    QTest::newRow("existing folder") << QByteArray("existing") << -1 << 0 << QByteArray();
    QTest::newRow("partly existing") << QByteArray("existing/x/y") << 0750 << 0 << QByteArray();
    QTest::newRow("through a symlink to a folder") << QByteArray("linkdir/z") << -1 << 0 << QByteArray();
    QTest::newRow("trailing slash") << QByteArray("t/u/") << -1 << 0 << QByteArray();
    QTest::newRow("through a file") << QByteArray("file/x") << -1 << int(ErrIsNotDirectory) << QByteArray("file");
    QTest::newRow("onto a file") << QByteArray("file") << -1 << int(ErrAlreadyExists) << QByteArray("file");
}

void SimpleJobTest::mkpathJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QFETCH(QByteArray, named);
    QVERIFY(mkdirRaw(path("existing"), 0755));
    QVERIFY(writeRaw(path("file"), "file"));
    QVERIFY(symlinkRaw("existing", path("linkdir")));
    auto job = run(Qvfs::mkpath(url(rel), permissions));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(named)));
        QVERIFY(S_ISREG(lstatRaw(path("file")).st_mode));
        return;
    }
    struct stat st;
    QVERIFY(::stat(path(rel).constData(), &st) == 0);
    QVERIFY(S_ISDIR(st.st_mode));
    if (permissions >= 0 && rel != "existing")
        QCOMPARE(int(st.st_mode & 07777), permissions);
    // Parents get the default permissions.
    if (rel == "a/b/c")
        QCOMPARE(int(lstatRaw(path("a/b")).st_mode & 07777), int(0777 & ~currentUmask()));
    // Again: an existing folder is fine.
    auto again = run(Qvfs::mkpath(url(rel), permissions));
    QCOMPARE(again->error(), 0);
}

void SimpleJobTest::renameJob_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("error");
    QTest::newRow("file to a new name") << QByteArray("f1") << QByteArray("g") << false << 0;
    QTest::newRow("onto a file, no overwrite")
        << QByteArray("f1") << QByteArray("f2") << false << int(ErrAlreadyExists);
    QTest::newRow("onto a file, overwrite") << QByteArray("f1") << QByteArray("f2") << true << 0;
    QTest::newRow("missing source") << QByteArray("nope") << QByteArray("g") << false << int(ErrDoesNotExist);
    QTest::newRow("into a missing folder")
        << QByteArray("f1") << QByteArray("nodir/g") << false << int(ErrDoesNotExist);
    QTest::newRow("folder") << QByteArray("d1") << QByteArray("dnew") << false << 0;
    QTest::newRow("folder onto an empty folder, overwrite") << QByteArray("d1") << QByteArray("d2") << true << 0;
    QTest::newRow("folder onto a non-empty folder, overwrite")
        << QByteArray("d1") << QByteArray("d3") << true << int(ErrDirectoryNotEmpty);
    QTest::newRow("folder onto a folder, no overwrite")
        << QByteArray("d1") << QByteArray("d2") << false << int(ErrAlreadyExists);
    QTest::newRow("symlink (not its target)") << QByteArray("link") << QByteArray("link2") << false << 0;
}

void SimpleJobTest::renameJob()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(bool, overwrite);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("f1"), "one"));
    QVERIFY(writeRaw(path("f2"), "two"));
    QVERIFY(mkdirRaw(path("d1")));
    QVERIFY(writeRaw(path("d1/x"), "x"));
    QVERIFY(mkdirRaw(path("d2")));
    QVERIFY(mkdirRaw(path("d3")));
    QVERIFY(writeRaw(path("d3/y"), "y"));
    QVERIFY(symlinkRaw("f1", path("link")));
    const QMap<QByteArray, Node> before = snapshot(m_fx.root());
    const struct stat srcSt = lstatRaw(path(from));

    auto job = run(Qvfs::rename(url(from), url(to), overwrite));
    QCOMPARE(job->error(), error);
    if (error) {
        compareTrees(before, snapshot(m_fx.root()), false, true); // nothing changed
        if (QTest::currentTestFailed())
            return;
        return;
    }
    QVERIFY(!existsRaw(path(from)));
    const struct stat dstSt = lstatRaw(path(to));
    QCOMPARE(dstSt.st_ino, srcSt.st_ino);
    QCOMPARE(dstSt.st_mode, srcSt.st_mode);
    if (from == "f1")
        QCOMPARE(readRaw(path(to)), QByteArray("one"));
    if (from == "d1")
        QCOMPARE(readRaw(path(join(to, "x"))), QByteArray("x"));
    if (from == "link") {
        QCOMPARE(readLinkRaw(path(to)), QByteArray("f1"));
        QCOMPARE(readRaw(path("f1")), QByteArray("one"));
    }
}

void SimpleJobTest::renameJobUrl()
{
    // SimpleJob::url(): "The URL the job works on (the destination of a rename)."
    QVERIFY(writeRaw(path("f1"), "one"));
    auto job = run(Qvfs::rename(url("f1"), url("g")));
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->url(), url("g"));
}

void SimpleJobTest::symlinkJob_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("link");
    QTest::addColumn<int>("error");
    QTest::newRow("relative") << QByteArray("target.txt") << QByteArray("l1") << 0;
    QTest::newRow("absolute") << QByteArray("/etc/passwd") << QByteArray("l2") << 0;
    QTest::newRow("dangling") << QByteArray("nowhere/at all") << QByteArray("l3") << 0;
    QTest::newRow("raw bytes") << QByteArray("caf\xe9/\xff\xfe\n-x") << QByteArray("l\xff") << 0;
    QTest::newRow("link path exists") << QByteArray("target.txt") << QByteArray("existing") << int(ErrAlreadyExists);
    QTest::newRow("missing parent") << QByteArray("target.txt") << QByteArray("nodir/l") << int(ErrDoesNotExist);
}

void SimpleJobTest::symlinkJob()
{
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, link);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("target.txt"), "t"));
    QVERIFY(writeRaw(path("existing"), "e"));
    auto job = run(Qvfs::symlink(target, url(link)));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(link)));
        if (link == "existing")
            QCOMPARE(readRaw(path(link)), QByteArray("e"));
        return;
    }
    QVERIFY(S_ISLNK(lstatRaw(path(link)).st_mode));
    QCOMPARE(readLinkRaw(path(link)), target);
}

void SimpleJobTest::chmodJob_data()
{
    QTest::addColumn<QByteArray>("rel");
    QTest::addColumn<int>("permissions");
    QTest::addColumn<int>("error");
    QTest::newRow("file 0600") << QByteArray("f") << 0600 << 0;
    QTest::newRow("file 0755") << QByteArray("f") << 0755 << 0;
    QTest::newRow("file 04755 (setuid)") << QByteArray("f") << 04755 << 0;
    QTest::newRow("file 0") << QByteArray("f") << 0 << 0;
    QTest::newRow("folder 01777") << QByteArray("d") << 01777 << 0;
    QTest::newRow("through a symlink") << QByteArray("link") << 0604 << 0;
    QTest::newRow("missing") << QByteArray("missing") << 0644 << int(ErrDoesNotExist);
}

void SimpleJobTest::chmodJob()
{
    QFETCH(QByteArray, rel);
    QFETCH(int, permissions);
    QFETCH(int, error);
    QVERIFY(writeRaw(path("f"), "f", 0644));
    QVERIFY(mkdirRaw(path("d"), 0755));
    QVERIFY(symlinkRaw("f", path("link")));
    auto job = run(Qvfs::chmod(url(rel), permissions));
    QCOMPARE(job->error(), error);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), encoded(path(rel)));
        return;
    }
    struct stat st;
    QVERIFY(::stat(path(rel).constData(), &st) == 0);
    QCOMPARE(int(st.st_mode & 07777), permissions);
    if (rel == "link")
        QVERIFY(S_ISLNK(lstatRaw(path("link")).st_mode));
}

QTEST_GUILESS_MAIN(SimpleJobTest)

#include "simplejobtest.moc"
