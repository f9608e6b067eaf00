// SPDX-License-Identifier: LGPL-2.1-or-later
// What a delete may remove (issue 16, finding 10; DeleteScope): a tree, one entry (a file,
// a link or an empty folder), or no folder at all, decided by the worker in the very call
// that deletes, so a folder swapped in after anyone looked (`rm` without -r) is refused,
// never removed. Through the real worker and the public jobs API; the swap happens while
// strace holds the worker's system call (workerhold.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "workerenv.h"
#include "workerhold.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/Url>

#include <QTest>

#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

using namespace Qvfs;
using namespace QvfsTest;

Q_DECLARE_METATYPE(Qvfs::DeleteScope)

class FileDeleteTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void scopes_data();
    void scopes();
    void folderSwappedIn_data();
    void folderSwappedIn();

private:
    QByteArray path(const char *rel) const { return m_fixture.path(rel); }

    JobFixture m_fixture;
};

void FileDeleteTest::init()
{
    m_fixture.init();
}

void FileDeleteTest::cleanup()
{
    m_fixture.cleanup();
}

void FileDeleteTest::scopes_data()
{
    QTest::addColumn<QByteArray>("what");
    QTest::addColumn<DeleteScope>("scope");
    QTest::addColumn<int>("error");
    QTest::addColumn<qint64>("removed");
    const struct
    {
        const char *what;
        int tree, entry, notFolder; // the error of each scope (0: deleted)
        qint64 treeRemoved;
    } rows[] = {
        { "file", 0, 0, 0, 1 },
        { "symlink to a folder", 0, 0, 0, 1 },
        { "dangling symlink", 0, 0, 0, 1 },
        { "empty folder", 0, 0, ErrIsDirectory, 1 },
        { "folder with content", 0, ErrDirectoryNotEmpty, ErrIsDirectory, 3 },
        { "missing", ErrDoesNotExist, ErrDoesNotExist, ErrDoesNotExist, 0 },
    };
    for (const auto &r : rows) {
        QTest::addRow("%s, tree", r.what) << QByteArray(r.what) << DeleteScope::Tree << r.tree << r.treeRemoved;
        QTest::addRow("%s, entry", r.what)
            << QByteArray(r.what) << DeleteScope::EmptyFolders << r.entry << qint64(r.entry ? 0 : 1);
        QTest::addRow("%s, not a folder", r.what)
            << QByteArray(r.what) << DeleteScope::NoFolders << r.notFolder << qint64(r.notFolder ? 0 : 1);
    }
}

void FileDeleteTest::scopes()
{
    QFETCH(QByteArray, what);
    QFETCH(DeleteScope, scope);
    QFETCH(int, error);
    QFETCH(qint64, removed);
    const QByteArray target = path("target");
    QVERIFY(mkdirRaw(path("elsewhere"), 0755));
    QVERIFY(writeRaw(path("elsewhere/keep"), "keep"));
    if (what == "file") {
        QVERIFY(writeRaw(target, "x"));
    } else if (what == "symlink to a folder") {
        QVERIFY(symlinkRaw(path("elsewhere"), target));
    } else if (what == "dangling symlink") {
        QVERIFY(symlinkRaw("nowhere", target));
    } else if (what == "empty folder") {
        QVERIFY(mkdirRaw(target, 0755));
    } else if (what == "folder with content") {
        QVERIFY(mkdirRaw(target, 0755) && mkdirRaw(join(target, "sub"), 0755));
        QVERIFY(writeRaw(join(target, "sub/f"), "f"));
    }
    DeleteJob *job = Qvfs::del(Url::fromLocalPath(target), scope);
    job->setAutoDelete(false);
    std::unique_ptr<DeleteJob> owner(job);
    runToResult(job);
    QCOMPARE(job->error(), error);
    QCOMPARE(job->removedCount(), removed);
    if (error) {
        QCOMPARE(job->errorArgs().value(0), QString::fromLatin1(Url::fromLocalPath(target).toEncoded()));
        QCOMPARE(existsRaw(target), what != "missing");
        if (what == "folder with content")
            QVERIFY(existsRaw(join(target, "sub/f")));
    } else {
        QVERIFY(!existsRaw(target));
    }
    QVERIFY(existsRaw(path("elsewhere/keep"))); // never through a link
}

void FileDeleteTest::folderSwappedIn_data()
{
    QTest::addColumn<DeleteScope>("scope");
    QTest::addColumn<bool>("withContent"); // of the folder swapped in
    QTest::addColumn<int>("error");
    QTest::newRow("not a folder, empty folder") << DeleteScope::NoFolders << false << int(ErrIsDirectory);
    QTest::newRow("not a folder, folder with content") << DeleteScope::NoFolders << true << int(ErrIsDirectory);
    QTest::newRow("entry, folder with content") << DeleteScope::EmptyFolders << true << int(ErrDirectoryNotEmpty);
}

void FileDeleteTest::folderSwappedIn()
{
    // `rm x` of a file that is exchanged for a folder while the worker is about to delete
    // it: the folder is refused, whatever was looked at before.
    QVERIFY2(WorkerHold::haveStrace(), "strace is needed (scripts/setup.sh --test)");
    QFETCH(DeleteScope, scope);
    QFETCH(bool, withContent);
    QFETCH(int, error);
    const QByteArray target = path("target");
    const QByteArray staged = path("staged");
    QVERIFY(writeRaw(target, "a file"));
    QVERIFY(mkdirRaw(staged, 0755));
    if (withContent)
        QVERIFY(writeRaw(join(staged, "inside"), "i"));

    for (int delayUs = 500000;; delayUs *= 2) {
        int got = -1;
        bool inTime = false;
        {
            // The worker's first call of each kind naming the entry (by its path or its name) is held.
            WorkerEnv prefix("QVFS_WORKER_PREFIX",
                WorkerHold::prefix("%file", delayUs, "1", { target, QByteArrayLiteral("target") }));
            DeleteJob *job = Qvfs::del(Url::fromLocalPath(target), scope);
            job->setAutoDelete(false);
            std::unique_ptr<DeleteJob> owner(job);
            const WorkerHold::Held held
                = WorkerHold::wait({ SYS_newfstatat, SYS_statx, SYS_unlinkat, SYS_openat }, { target, "target" });
            QVERIFY2(held.isValid(), "the worker never reached the entry");
            QVERIFY(::renameat2(AT_FDCWD, staged.constData(), AT_FDCWD, target.constData(), RENAME_EXCHANGE) == 0);
            inTime = WorkerHold::stillHeld(held);
            runToResult(job);
            got = job->error();
        }
        if (!inTime) {
            QVERIFY2(delayUs < 8000000, "the swap never came while the call was held");
            // Back to the start: the file at target, the folder staged.
            if (existsRaw(target) && existsRaw(staged))
                QVERIFY(::renameat2(AT_FDCWD, staged.constData(), AT_FDCWD, target.constData(), RENAME_EXCHANGE) == 0);
            QVERIFY(existsRaw(target) && existsRaw(staged));
            continue;
        }
        QCOMPARE(got, error);
        struct stat st;
        QVERIFY(::lstat(target.constData(), &st) == 0 && S_ISDIR(st.st_mode));
        if (withContent)
            QVERIFY(existsRaw(join(target, "inside")));
        break;
    }
}

QTEST_GUILESS_MAIN(FileDeleteTest)

#include "filedeletetest.moc"
