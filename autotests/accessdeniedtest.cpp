// SPDX-License-Identifier: LGPL-2.1-or-later
// Access denied through the real file:// worker, for every job: as root the worker runs
// as nobody (UnprivilegedWorkers), so the tests hold when they run as root; the error names
// the exact path, and nothing changes where access was denied.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "unprivilegedworkers.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>

#include <QTest>

#include <memory>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

class AccessDeniedTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void accessDenied_data();
    void accessDenied();
};

void AccessDeniedTest::accessDenied_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::addColumn<QByteArray>("rel"); // the URL given, relative to the fixture "acc"
    QTest::addColumn<QByteArray>("named"); // the exact path the error must name
    QTest::newRow("list a closed folder") << QByteArray("list") << QByteArray("secret") << QByteArray("secret");
    QTest::newRow("list a closed folder recursively")
        << QByteArray("listRecursive") << QByteArray("secret") << QByteArray("secret");
    QTest::newRow("stat inside a closed folder")
        << QByteArray("stat") << QByteArray("secret/f") << QByteArray("secret/f");
    QTest::newRow("get an unreadable file")
        << QByteArray("get") << QByteArray("private.txt") << QByteArray("private.txt");
    QTest::newRow("copy an unreadable file")
        << QByteArray("copyAs") << QByteArray("private.txt") << QByteArray("private.txt");
    QTest::newRow("copy a tree with an unreadable file")
        << QByteArray("copy") << QByteArray("tree") << QByteArray("tree/b.txt");
    QTest::newRow("size a tree with a closed folder")
        << QByteArray("size") << QByteArray("sizetree") << QByteArray("sizetree/locked");
    QTest::newRow("delete in a read-only folder")
        << QByteArray("delete") << QByteArray("ro/victim") << QByteArray("ro/victim");
    // Its 3 files can go, the folder itself cannot: removedCount counts what went.
    QTest::newRow("delete a tree in a read-only folder")
        << QByteArray("deleteTree") << QByteArray("ro/tree") << QByteArray("ro/tree");
    QTest::newRow("mkdir in a read-only folder") << QByteArray("mkdir") << QByteArray("ro/new") << QByteArray("ro/new");
    QTest::newRow("put in a read-only folder")
        << QByteArray("put") << QByteArray("ro/new.txt") << QByteArray("ro/new.txt");
    if (UnprivilegedWorkers::dropsPrivileges()) // a file of one's own can always be chmod-ed
        QTest::newRow("chmod another user's file")
            << QByteArray("chmod") << QByteArray("private.txt") << QByteArray("private.txt");
}

void AccessDeniedTest::accessDenied()
{
    QFETCH(QByteArray, operation);
    QFETCH(QByteArray, rel);
    QFETCH(QByteArray, named);
    // As root the worker drops to nobody; the fixture is root's, so 0700/0600 close it.
    // Otherwise the fixture is ours and modes 0000/0555 close it.
    const bool drops = UnprivilegedWorkers::dropsPrivileges();
    QVERIFY2(!drops || m_fx.isReachableByOthers(), m_fx.errorString().constData());
    const mode_t closedDir = drops ? 0700 : 0000;
    const mode_t closedFile = drops ? 0600 : 0000;
    const mode_t readOnlyDir = drops ? 0755 : 0555;
    const QByteArray t = path("acc");
    QVERIFY(mkdirRaw(t, 0755));
    QVERIFY(mkdirRaw(join(t, "secret"), 0755));
    QVERIFY(writeRaw(join(t, "secret/f"), "f"));
    QVERIFY(::chmod(join(t, "secret").constData(), closedDir) == 0);
    QVERIFY(writeRaw(join(t, "private.txt"), "private", closedFile));
    QVERIFY(mkdirRaw(join(t, "tree"), 0755));
    QVERIFY(writeRaw(join(t, "tree/a.txt"), "a", 0644));
    QVERIFY(writeRaw(join(t, "tree/b.txt"), "b", closedFile));
    QVERIFY(mkdirRaw(join(t, "sizetree"), 0755));
    QVERIFY(writeRaw(join(t, "sizetree/x.txt"), "x", 0644));
    QVERIFY(mkdirRaw(join(t, "sizetree/locked"), 0755));
    QVERIFY(writeRaw(join(t, "sizetree/locked/y"), "y"));
    QVERIFY(::chmod(join(t, "sizetree/locked").constData(), closedDir) == 0);
    QVERIFY(mkdirRaw(join(t, "ro"), 0755));
    QVERIFY(writeRaw(join(t, "ro/victim"), "victim", 0666));
    QVERIFY(mkdirRaw(join(t, "ro/tree"), 0755));
    for (const char *f : { "ro/tree", "ro/tree/1", "ro/tree/2", "ro/tree/3" }) {
        if (!existsRaw(join(t, f)))
            QVERIFY(writeRaw(join(t, f), f, 0644));
        if (drops) // the unprivileged worker's own
            QVERIFY(
                ::lchown(join(t, f).constData(), UnprivilegedWorkers::NobodyId, UnprivilegedWorkers::NobodyId) == 0);
    }
    QVERIFY(::chmod(join(t, "ro").constData(), readOnlyDir) == 0);
    QVERIFY(mkdirRaw(join(t, "out"), 0777));
    const QUrl u = fileUrl(join(t, rel));

    int error = 0;
    QString errorString;
    QStringList errorArgs;
    qint64 removed = -1;
    {
        UnprivilegedWorkers nobody;
        std::unique_ptr<Job> j;
        if (operation == "list" || operation == "listRecursive") {
            const Listing l = collect(operation == "list" ? Qvfs::listDir(u) : Qvfs::listRecursive(u));
            error = l.error;
            errorString = l.errorString;
            errorArgs = l.errorArgs;
        } else {
            if (operation == "stat")
                j = run(Qvfs::stat(u));
            else if (operation == "get")
                j = run(Qvfs::storedGet(u));
            else if (operation == "copyAs")
                j = run(Qvfs::copyAs(u, fileUrl(join(t, "out/p.txt"))));
            else if (operation == "copy")
                j = run(Qvfs::copy(u, fileUrl(join(t, "out"))));
            else if (operation == "size")
                j = run(Qvfs::directorySize(u));
            else if (operation == "delete")
                j = run(Qvfs::del(u));
            else if (operation == "deleteTree") {
                auto d = run(Qvfs::del(u));
                removed = d->removedCount();
                j = std::move(d);
            } else if (operation == "mkdir")
                j = run(Qvfs::mkdir(u));
            else if (operation == "put")
                j = run(Qvfs::storedPut("data", u));
            else if (operation == "chmod")
                j = run(Qvfs::chmod(u, 0644));
            QVERIFY(j);
            error = j->error();
            errorString = j->errorString();
            errorArgs = j->errorArgs();
        }
        if (drops)
            QVERIFY2(UnprivilegedWorkers::allWorkersUnprivileged(), "the worker did not run unprivileged");
    }
    if (operation == "copy") {
        // Inside a tree: left out, the rest copied, the job ends with ErrPartial naming it.
        QCOMPARE(error, int(ErrPartial));
        QCOMPARE(errorArgs.value(0), QStringLiteral("1"));
        QCOMPARE(errorArgs.value(1), encoded(join(t, named)));
        QCOMPARE(readRaw(join(t, "out/tree/a.txt")), QByteArray("a"));
        QVERIFY(!existsRaw(join(t, "out/tree/b.txt")));
        return;
    }
    QCOMPARE(error, int(ErrAccessDenied));
    QCOMPARE(errorArgs.value(0), encoded(join(t, named)));
    QVERIFY2(errorString.contains(QString::fromUtf8(join(t, named))), qPrintable(errorString));
    // nothing was changed where access was denied
    QCOMPARE(readRaw(join(t, "ro/victim")), QByteArray("victim"));
    QCOMPARE(namesIn(join(t, "ro")), (QList<QByteArray> { "tree", "victim" }));
    QVERIFY(!existsRaw(join(t, "out/p.txt")));
    if (operation == "deleteTree") {
        QVERIFY(namesIn(join(t, "ro/tree")).isEmpty()); // the files went
        QCOMPARE(removed, qint64(3)); // "how many entries were removed so far"
    }
}

QTEST_GUILESS_MAIN(AccessDeniedTest)

#include "accessdeniedtest.moc"
