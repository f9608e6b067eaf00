// SPDX-License-Identifier: LGPL-2.1-or-later
// CopyJob file to file inside the real file:// worker: files and trees (modes, times,
// symlinks, fifos), conflicts and the questions about them, identical files and cycles,
// moves on one filesystem and across two, progress, kills, a user's own x.part, sparse
// files. genericcopytest runs these functions again with the copy taken through the
// generic get -> put path.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "answerer.h"
#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/Questions>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QMap>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

enum CopyKind { CopyInto, CopyAuto, CopyAs, MoveInto, MoveAs };

CopyJob *makeCopy(CopyKind kind, const QList<QUrl> &sources, const QUrl &dest)
{
    switch (kind) {
    case CopyInto:
    case CopyAuto:
        return Qvfs::copy(sources, dest);
    case CopyAs:
        return Qvfs::copyAs(sources.value(0), dest);
    case MoveInto:
        return Qvfs::move(sources, dest);
    case MoveAs:
        return Qvfs::moveAs(sources.value(0), dest);
    }
    return nullptr;
}

// Whether genericcopytest runs these functions with file:// described without "copy".
// The generic path refuses special files, which cannot travel as a stream of bytes; the
// file worker recreates them: the trees have a fifo only inside the worker.
bool onGenericPath()
{
    return qEnvironmentVariableIsSet("QVFS_WORKER_PATH");
}

} // namespace

Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)

class CopyJobTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void copyFile_data();
    void copyFile();
    void copyTree_data();
    void copyTree();
    void copyBigTree();
    void copyConflicts_data();
    void copyConflicts();
    void copyFolderOntoFile_data();
    void copyFolderOntoFile();
    void copyIdentical_data();
    void copyIdentical();
    void copyCycle_data();
    void copyCycle();
    void moveSameFilesystem_data();
    void moveSameFilesystem();
    void moveAcrossFilesystems_data();
    void moveAcrossFilesystems();
    void copyProgress_data();
    void copyProgress();
    void copyKill_data();
    void copyKill();
    void userPartFileKept_data();
    void userPartFileKept();
    void sparseFile();
};

void CopyJobTest::copyFile_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("dest"); // the URL given
    QTest::addColumn<QByteArray>("result"); // where the copy lands
    QTest::addColumn<int>("mode");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("preserve");
    const QByteArray data = pseudoRandom(3 * MiB + 17, 1);
    QTest::newRow("into a folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/a.bin") << 0640 << data
                                   << true;
    QTest::newRow("as a new name") << int(CopyAuto) << QByteArray("out/b.bin") << QByteArray("out/b.bin") << 0640
                                   << data << true;
    QTest::newRow("copyAs") << int(CopyAs) << QByteArray("out/c.bin") << QByteArray("out/c.bin") << 0604 << data
                            << true;
    QTest::newRow("empty file") << int(CopyInto) << QByteArray("out") << QByteArray("out/a.bin") << 0644 << QByteArray()
                                << true;
    QTest::newRow("setuid mode kept") << int(CopyAs) << QByteArray("out/s") << QByteArray("out/s") << 04755
                                      << QByteArray("#!/bin/sh\n") << true;
    QTest::newRow("not preserved") << int(CopyAs) << QByteArray("out/n") << QByteArray("out/n") << 0666
                                   << QByteArray("new times") << false;
}

void CopyJobTest::copyFile()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, dest);
    QFETCH(QByteArray, result);
    QFETCH(int, mode);
    QFETCH(QByteArray, content);
    QFETCH(bool, preserve);
    QVERIFY(writeRaw(path("a.bin"), content, mode_t(mode)));
    QVERIFY(setTimes(path("a.bin"), 1234567890, 123456789));
    QVERIFY(mkdirRaw(path("out")));
    const QMap<QByteArray, Node> source = snapshot(path("a.bin"));

    CopyJob *job = makeCopy(CopyKind(kind), { url("a.bin") }, url(dest));
    job->setPreserve(preserve);
    QCOMPARE(job->sources(), QList<QUrl> { url("a.bin") });
    QCOMPARE(job->destination(), url(dest));
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    compareTrees(source, snapshot(path("a.bin")), false, true); // the source is untouched
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(readRaw(path(result)), content);
    const struct stat st = lstatRaw(path(result));
    QVERIFY(S_ISREG(st.st_mode));
    if (preserve) {
        QCOMPARE(int(st.st_mode & 07777), mode);
        QCOMPARE(qint64(st.st_mtim.tv_sec), qint64(1234567890));
        QCOMPARE(qint64(st.st_mtim.tv_nsec), qint64(123456789));
    } else {
        QCOMPARE(int(st.st_mode & 07777), int(mode & 0777 & ~currentUmask()));
        QVERIFY(st.st_mtim.tv_sec != 1234567890);
    }
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { Url::fileName(url(result)) });
}

void CopyJobTest::copyTree_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<QByteArray>("result");
    QTest::newRow("into a folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/tree");
    QTest::newRow("as a new name") << int(CopyAuto) << QByteArray("out/t2") << QByteArray("out/t2");
    QTest::newRow("copyAs") << int(CopyAs) << QByteArray("out/t3") << QByteArray("out/t3");
    QTest::newRow("merged into an existing folder") << int(CopyInto) << QByteArray("out") << QByteArray("out/tree");
}

void CopyJobTest::copyTree()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, dest);
    QFETCH(QByteArray, result);
    const bool merge = QByteArray(QTest::currentDataTag()).startsWith("merged");
    QVERIFY(makeTree(path("tree"), !onGenericPath()));
    QVERIFY(mkdirRaw(path("out")));
    if (merge) {
        QVERIFY(mkdirRaw(path("out/tree"), 0700));
        QVERIFY(writeRaw(path("out/tree/extra.txt"), "mine"));
        QVERIFY(mkdirRaw(path("out/tree/sub"), 0750)); // merged too
    }
    const QMap<QByteArray, Node> source = snapshot(path("tree"));
    auto job = run(makeCopy(CopyKind(kind), { url("tree") }, url(dest)));
    QCOMPARE(job->error(), 0);
    compareTrees(source, snapshot(path("tree")), false, true); // untouched
    if (QTest::currentTestFailed())
        return;
    QMap<QByteArray, Node> copied = snapshot(path(result));
    if (merge) {
        QCOMPARE(copied.value("extra.txt").content, QByteArray("mine"));
        copied.remove("extra.txt");
        QCOMPARE(int(copied.value("").mode), 0700); // an existing folder keeps its own mode
        // sub existed already: a merged folder keeps its times; compare the rest
        copied.remove("sub");
        QMap<QByteArray, Node> expected = source;
        expected.remove("sub");
        compareTrees(expected, copied, true, true);
        if (QTest::currentTestFailed())
            return;
        return;
    }
    compareTrees(source, copied, false, true);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(copied.value("link-abs").link, path("tree/a.txt")); // links are copied as they are
    if (!onGenericPath())
        QVERIFY(S_ISFIFO(lstatRaw(path(join(result, "fifo"))).st_mode));
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { Url::fileName(url(result)) });
}

void CopyJobTest::copyBigTree()
{
    // More entries than the plan lets wait (4096): on the generic path the listing is held
    // back while the copy catches up, and lets go again; everything arrives, once.
    constexpr int Folders = 5;
    constexpr int PerFolder = 1000;
    QVERIFY(mkdirRaw(path("big")));
    for (int f = 0; f < Folders; ++f) {
        const QByteArray folder = "big/d" + QByteArray::number(f);
        QVERIFY(mkdirRaw(path(folder)));
        for (int i = 0; i < PerFolder; ++i)
            QVERIFY(writeRaw(
                path(QByteArray(folder + "/f" + QByteArray::number(i))), QByteArray::number(f * PerFolder + i)));
    }
    QVERIFY(mkdirRaw(path("out")));
    CopyJob *job = Qvfs::copy(url("big"), url("out"));
    int copied = 0;
    connect(job, &CopyJob::copied, this, [&copied] { ++copied; });
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    if (onGenericPath())
        QCOMPARE(copied, Folders * PerFolder); // (a worker copying inside itself reports none)
    for (int f = 0; f < Folders; ++f) {
        const QByteArray folder = "out/big/d" + QByteArray::number(f);
        QCOMPARE(namesIn(path(folder)).size(), PerFolder);
        QCOMPARE(readRaw(path(QByteArray(folder + "/f7"))), QByteArray::number(f * PerFolder + 7));
    }
    QCOMPARE(j->percent(), 100UL);
}

void CopyJobTest::copyConflicts_data()
{
    QTest::addColumn<bool>("tree");
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<QByteArray>("action"); // the delegate's answer; empty: no delegate
    QTest::addColumn<bool>("applyToAll");
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("replaced"); // f1.txt and f2.txt have the new content
    QTest::addColumn<bool>("renamed"); // the new content went to "f1 (1).txt", "f2 (1).txt"
    QTest::addColumn<int>("asked");
    for (bool tree : { false, true }) {
        const QByteArray p = tree ? "tree: " : "files: ";
        auto row = [&p](const char *name) -> QTestData & { return QTest::newRow(QByteArray(p + name).constData()); };
        row("fail") << tree << ConflictPolicy::Fail << QByteArray() << false << int(ErrAlreadyExists) << false << false
                    << 0;
        row("overwrite") << tree << ConflictPolicy::Overwrite << QByteArray() << false << 0 << true << false << 0;
        row("skip") << tree << ConflictPolicy::Skip << QByteArray() << false << 0 << false << false << 0;
        if (!tree) // a folder onto a folder with Rename is copied as "src (1)"
            row("rename") << tree << ConflictPolicy::Rename << QByteArray() << false << 0 << false << true << 0;
        row("ask: overwrite") << tree << ConflictPolicy::Ask << QByteArray("overwrite") << false << 0 << true << false
                              << 2;
        row("ask: overwrite, apply to all")
            << tree << ConflictPolicy::Ask << QByteArray("overwrite") << true << 0 << true << false << 1;
        row("ask: skip") << tree << ConflictPolicy::Ask << QByteArray("skip") << false << 0 << false << false << 2;
        row("ask: skip, apply to all") << tree << ConflictPolicy::Ask << QByteArray("skip") << true << 0 << false
                                       << false << 1;
        row("ask: rename") << tree << ConflictPolicy::Ask << QByteArray("rename") << false << 0 << false << true << 2;
        row("ask: rename, apply to all") << tree << ConflictPolicy::Ask << QByteArray("rename") << true << 0 << false
                                         << true << 1;
        row("ask: cancel") << tree << ConflictPolicy::Ask << QByteArray("cancel") << false << int(ErrCancelled) << false
                           << false << 1;
        row("ask: no delegate") << tree << ConflictPolicy::Ask << QByteArray() << false << int(ErrNotAnswered) << false
                                << false << 0;
    }
}

void CopyJobTest::copyConflicts()
{
    QFETCH(bool, tree);
    QFETCH(ConflictPolicy, policy);
    QFETCH(QByteArray, action);
    QFETCH(bool, applyToAll);
    QFETCH(int, error);
    QFETCH(bool, replaced);
    QFETCH(bool, renamed);
    QFETCH(int, asked);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(path("src/f1.txt"), "new1"));
    QVERIFY(writeRaw(path("src/f2.txt"), "new2"));
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(mkdirRaw(path("out/src")));
    QVERIFY(writeRaw(path("out/src/f1.txt"), "old1"));
    QVERIFY(writeRaw(path("out/src/f2.txt"), "old2"));
    QVERIFY(writeRaw(path("out/src/f2.txt.part"), "a user's own file"));

    CopyJob *job = tree ? Qvfs::copy(url("src"), url("out"))
                        : Qvfs::copy({ url("src/f1.txt"), url("src/f2.txt") }, url("out/src"));
    job->setConflictPolicy(policy);
    QCOMPARE(job->conflictPolicy(), policy);
    Answerer answerer;
    answerer.action = action;
    answerer.applyToAll = applyToAll;
    if (!action.isEmpty())
        job->setAskDelegate(&answerer);
    auto j = run(job);
    QCOMPARE(j->error(), error);
    QCOMPARE(answerer.asked, asked);
    for (const ConflictQuestion &q : std::as_const(answerer.questions)) {
        const QByteArray dst = q.destination.toEncoded();
        QVERIFY2(
            dst == fileUrl(path("out/src/f1.txt")).toEncoded() || dst == fileUrl(path("out/src/f2.txt")).toEncoded(),
            dst.constData());
        QCOMPARE(q.source.toEncoded(), QByteArray(dst).replace("/out/src/", "/src/"));
    }
    if (!tree && !answerer.questions.isEmpty())
        QCOMPARE(answerer.questions.first().destination.toEncoded(), fileUrl(path("out/src/f1.txt")).toEncoded());
    if (error == ErrAlreadyExists && !tree)
        QCOMPARE(j->errorArgs().value(0), encoded(path("out/src/f1.txt")));

    QCOMPARE(readRaw(path("out/src/f1.txt")), replaced ? QByteArray("new1") : QByteArray("old1"));
    QCOMPARE(readRaw(path("out/src/f2.txt")), replaced ? QByteArray("new2") : QByteArray("old2"));
    QList<QByteArray> names { "f1.txt", "f2.txt", "f2.txt.part" };
    if (renamed) {
        names << "f1 (1).txt"
              << "f2 (1).txt";
        QCOMPARE(readRaw(path("out/src/f1 (1).txt")), QByteArray("new1"));
        QCOMPARE(readRaw(path("out/src/f2 (1).txt")), QByteArray("new2"));
    }
    QCOMPARE(namesIn(path("out/src")), sorted(names));
    QCOMPARE(readRaw(path("out/src/f2.txt.part")), QByteArray("a user's own file"));
    QCOMPARE(readRaw(path("src/f1.txt")), QByteArray("new1"));
}

void CopyJobTest::copyFolderOntoFile_data()
{
    // src/{a, sub/{c, d}} into out, where out/src/sub is a file: the table of copyrules.h
    // for a folder with a file in the way, the same in the worker and on the generic path.
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<QByteArray>("action"); // the delegate's answer
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("renamed"); // copied as "sub (1)"
    QTest::addColumn<qint64>("skipped");
    QTest::newRow("fail") << ConflictPolicy::Fail << QByteArray() << int(ErrAlreadyExists) << false << qint64(0);
    QTest::newRow("overwrite") << ConflictPolicy::Overwrite << QByteArray() << int(ErrIsNotDirectory) << false
                               << qint64(0);
    QTest::newRow("skip") << ConflictPolicy::Skip << QByteArray() << 0 << false << qint64(1);
    // (the policy Rename renames src itself, a folder onto a folder: copyConflicts has it)
    QTest::newRow("ask: skip") << ConflictPolicy::Ask << QByteArray("skip") << 0 << false << qint64(1);
    QTest::newRow("ask: rename") << ConflictPolicy::Ask << QByteArray("rename") << 0 << true << qint64(0);
    QTest::newRow("ask: overwrite") << ConflictPolicy::Ask << QByteArray("overwrite") << int(ErrIsNotDirectory) << false
                                    << qint64(0);
    QTest::newRow("ask: cancel") << ConflictPolicy::Ask << QByteArray("cancel") << int(ErrCancelled) << false
                                 << qint64(0);
}

void CopyJobTest::copyFolderOntoFile()
{
    QFETCH(ConflictPolicy, policy);
    QFETCH(QByteArray, action);
    QFETCH(int, error);
    QFETCH(bool, renamed);
    QFETCH(qint64, skipped);
    QVERIFY(mkdirRaw(path("src")) && mkdirRaw(path("src/sub")));
    QVERIFY(writeRaw(path("src/a"), QByteArray(100, 'a')));
    QVERIFY(writeRaw(path("src/sub/c"), QByteArray(30, 'c')));
    QVERIFY(writeRaw(path("src/sub/d"), QByteArray(4, 'd')));
    QVERIFY(mkdirRaw(path("out")) && mkdirRaw(path("out/src")));
    QVERIFY(writeRaw(path("out/src/sub"), "a file"));
    CopyJob *job = Qvfs::copy(url("src"), url("out"));
    job->setConflictPolicy(policy);
    Answerer answerer;
    answerer.action = action;
    if (!action.isEmpty())
        job->setAskDelegate(&answerer);
    auto j = run(job);
    QVERIFY2(j->error() == error, qPrintable(QString::number(j->error()) + QLatin1String(": ") + j->errorString()));
    QCOMPARE(answerer.asked, action.isEmpty() ? 0 : 1);
    QCOMPARE(readRaw(path("out/src/sub")), QByteArray("a file")); // never replaced
    QCOMPARE(j->skippedCount(), skipped);
    if (error != 0)
        return;
    QCOMPARE(readRaw(path("out/src/a")), QByteArray(100, 'a'));
    if (renamed) {
        QCOMPARE(namesIn(path("out/src")), (QList<QByteArray> { "a", "sub", "sub (1)" }));
        QCOMPARE(namesIn(path("out/src/sub (1)")), (QList<QByteArray> { "c", "d" }));
        QCOMPARE(j->processedAmount(Job::Bytes), qint64(134));
    } else {
        QCOMPARE(namesIn(path("out/src")), (QList<QByteArray> { "a", "sub" }));
        // the skipped folder's bytes left the total: the bytes done reach it
        QCOMPARE(j->processedAmount(Job::Bytes), qint64(100));
        QCOMPARE(j->totalAmount(Job::Bytes), qint64(100));
    }
    QCOMPARE(j->percent(), 100ul);
}

void CopyJobTest::copyIdentical_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("src");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::newRow("copyAs onto itself") << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f")
                                        << ConflictPolicy::Fail;
    QTest::newRow("copyAs onto itself, overwrite")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f") << ConflictPolicy::Overwrite;
    QTest::newRow("copyAs onto itself, skip")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/f") << ConflictPolicy::Skip;
    QTest::newRow("into its own folder") << int(CopyInto) << QByteArray("dir/f") << QByteArray("dir")
                                         << ConflictPolicy::Fail;
    QTest::newRow("into its own folder, overwrite")
        << int(CopyInto) << QByteArray("dir/f") << QByteArray("dir") << ConflictPolicy::Overwrite;
    QTest::newRow("onto a hard link, overwrite")
        << int(CopyAs) << QByteArray("dir/f") << QByteArray("dir/hard") << ConflictPolicy::Overwrite;
    QTest::newRow("folder into its own parent")
        << int(CopyInto) << QByteArray("dir") << QByteArray("") << ConflictPolicy::Fail;
    QTest::newRow("move into its own folder")
        << int(MoveInto) << QByteArray("dir/f") << QByteArray("dir") << ConflictPolicy::Overwrite;
    QTest::newRow("moveAs onto itself") << int(MoveAs) << QByteArray("dir/f") << QByteArray("dir/f")
                                        << ConflictPolicy::Fail;
}

void CopyJobTest::copyIdentical()
{
    QFETCH(int, kind);
    QFETCH(QByteArray, src);
    QFETCH(QByteArray, dest);
    QFETCH(ConflictPolicy, policy);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("dir/f"), "precious", 0640));
    QVERIFY(::link(path("dir/f").constData(), path("dir/hard").constData()) == 0);
    QVERIFY(setTimes(path("dir/f"), 1234567890, 5));
    QVERIFY(setTimes(path("dir"), 1234567890, 6));
    const QMap<QByteArray, Node> before = snapshot(m_fx.root());
    const ino_t ino = lstatRaw(path("dir/f")).st_ino;
    CopyJob *job = makeCopy(CopyKind(kind), { url(src) }, dest.isEmpty() ? fileUrl(m_fx.root()) : url(dest));
    job->setConflictPolicy(policy);
    auto j = run(job);
    // Nothing lost, nothing changed: checked first, it matters most.
    QVERIFY2(readRaw(path("dir/f")) == "precious", "the file was lost");
    QMap<QByteArray, Node> after = snapshot(m_fx.root());
    after.insert("", before.value("")); // the fixture root's own times are not the point
    compareTrees(before, after, false, true);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(lstatRaw(path("dir/f")).st_ino, ino);
    if (src == "dir" && j->error() == int(ErrCycle))
        return; // a folder into its own parent is a copy into itself too
    QCOMPARE(j->error(), int(ErrIdenticalFiles));
    QVERIFY2(j->errorString().contains(QString::fromUtf8(path(src)))
            || j->errorString().contains(QString::fromUtf8(path(dest))),
        qPrintable(j->errorString()));
}

void CopyJobTest::copyCycle_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest");
    QTest::newRow("folder into itself") << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("dir");
    QTest::newRow("folder into its sub-folder")
        << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("dir/sub");
    QTest::newRow("copyAs below itself") << int(CopyAs) << QList<QByteArray> { "dir" } << QByteArray("dir/sub/new");
    QTest::newRow("move into its sub-folder") << int(MoveInto) << QList<QByteArray> { "dir" } << QByteArray("dir/sub");
    QTest::newRow("moveAs below itself") << int(MoveAs) << QList<QByteArray> { "dir" } << QByteArray("dir/new");
    QTest::newRow("second source is the cycle")
        << int(CopyInto) << QList<QByteArray> { "file", "dir" } << QByteArray("dir/sub");
    QTest::newRow("through a symlinked destination")
        << int(CopyInto) << QList<QByteArray> { "dir" } << QByteArray("linktosub");
}

void CopyJobTest::copyCycle()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QVERIFY(mkdirRaw(path("dir")));
    QVERIFY(writeRaw(path("dir/a"), "a"));
    QVERIFY(mkdirRaw(path("dir/sub")));
    QVERIFY(writeRaw(path("dir/sub/b"), "b"));
    QVERIFY(writeRaw(path("file"), "f"));
    QVERIFY(symlinkRaw("dir/sub", path("linktosub")));
    const QMap<QByteArray, Node> before = snapshot(m_fx.root());
    QList<QUrl> urls;
    for (const QByteArray &s : std::as_const(sources))
        urls << url(s);
    auto j = run(makeCopy(CopyKind(kind), urls, url(dest)));
    QCOMPARE(j->error(), int(ErrCycle));
    QCOMPARE(j->errorArgs().value(0), encoded(path("dir")));
    QVERIFY2(j->errorString().contains(QString::fromUtf8(path("dir"))), qPrintable(j->errorString()));
    QMap<QByteArray, Node> after = snapshot(m_fx.root());
    after.insert("", before.value(""));
    compareTrees(before, after, false, true); // checked before anything was written
    if (QTest::currentTestFailed())
        return;
}

void CopyJobTest::moveSameFilesystem_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<QList<QByteArray>>("results");
    QTest::newRow("file into a folder") << int(MoveInto) << QList<QByteArray> { "f" } << QByteArray("out")
                                        << QList<QByteArray> { "out/f" };
    QTest::newRow("moveAs file") << int(MoveAs) << QList<QByteArray> { "f" } << QByteArray("out/g")
                                 << QList<QByteArray> { "out/g" };
    QTest::newRow("tree into a folder") << int(MoveInto) << QList<QByteArray> { "tree" } << QByteArray("out")
                                        << QList<QByteArray> { "out/tree" };
    QTest::newRow("moveAs tree") << int(MoveAs) << QList<QByteArray> { "tree" } << QByteArray("out/t2")
                                 << QList<QByteArray> { "out/t2" };
    QTest::newRow("several sources") << int(MoveInto) << QList<QByteArray> { "f", "tree" } << QByteArray("out")
                                     << QList<QByteArray> { "out/f", "out/tree" };
}

void CopyJobTest::moveSameFilesystem()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QFETCH(QList<QByteArray>, results);
    QVERIFY(writeRaw(path("f"), "file", 0600));
    QVERIFY(setTimes(path("f"), 1234567890, 42));
    QVERIFY(makeTree(path("tree"), !onGenericPath()));
    QVERIFY(mkdirRaw(path("out")));
    QList<QUrl> urls;
    QList<QMap<QByteArray, Node>> before;
    QList<ino_t> inodes;
    for (const QByteArray &s : std::as_const(sources)) {
        urls << url(s);
        before << snapshot(path(s));
        inodes << lstatRaw(path(s)).st_ino;
    }
    auto j = run(makeCopy(CopyKind(kind), urls, url(dest)));
    QCOMPARE(j->error(), 0);
    for (int i = 0; i < sources.size(); ++i) {
        QVERIFY(!existsRaw(path(sources.at(i))));
        QCOMPARE(lstatRaw(path(results.at(i))).st_ino, inodes.at(i)); // renamed, not copied
        compareTrees(before.at(i), snapshot(path(results.at(i))), false, true);
        if (QTest::currentTestFailed())
            return;
    }
}

void CopyJobTest::moveAcrossFilesystems_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<QByteArray>("dest"); // relative to the mounted tmpfs
    QTest::addColumn<QList<QByteArray>>("results");
    QTest::addColumn<int>("error");
    QTest::newRow("moveAs file") << int(MoveAs) << QList<QByteArray> { "f" } << QByteArray("g")
                                 << QList<QByteArray> { "g" } << 0;
    QTest::newRow("tree into a folder") << int(MoveInto) << QList<QByteArray> { "tree" } << QByteArray()
                                        << QList<QByteArray> { "tree" } << 0;
    QTest::newRow("several sources") << int(MoveInto) << QList<QByteArray> { "f", "tree" } << QByteArray()
                                     << QList<QByteArray> { "f", "tree" } << 0;
    QTest::newRow("a failing source keeps every source")
        << int(MoveInto) << QList<QByteArray> { "tree", "clash" } << QByteArray() << QList<QByteArray> {}
        << int(ErrAlreadyExists);
}

void CopyJobTest::moveAcrossFilesystems()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(QByteArray, dest);
    QFETCH(QList<QByteArray>, results);
    QFETCH(int, error);
    if (!m_fx.isRoot())
        QSKIP("mounting a tmpfs for a second filesystem needs root: the move across filesystems is not tested");
    const QByteArray mnt = path("mnt");
    QVERIFY2(m_fx.mountTmpfs(mnt), "mount -t tmpfs failed");
    QVERIFY(lstatRaw(mnt).st_dev != lstatRaw(m_fx.root()).st_dev);
    QVERIFY(writeRaw(path("f"), pseudoRandom(2 * MiB, 3), 0604));
    QVERIFY(setTimes(path("f"), 1234567890, 987654321));
    QVERIFY(makeTree(path("tree"), !onGenericPath()));
    QVERIFY(writeRaw(path("clash"), "source clash"));
    QVERIFY(writeRaw(join(mnt, "clash"), "existing at the destination"));
    QList<QUrl> urls;
    QList<QMap<QByteArray, Node>> before;
    for (const QByteArray &s : std::as_const(sources)) {
        urls << url(s);
        before << snapshot(path(s));
    }
    auto j = run(makeCopy(CopyKind(kind), urls, fileUrl(dest.isEmpty() ? mnt : join(mnt, dest))));
    QCOMPARE(j->error(), error);
    if (error) {
        // The sources go only after everything was copied: all of them are still there.
        for (int i = 0; i < sources.size(); ++i) {
            compareTrees(before.at(i), snapshot(path(sources.at(i))), false, true);
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(readRaw(join(mnt, "clash")), QByteArray("existing at the destination"));
        return;
    }
    for (int i = 0; i < sources.size(); ++i) {
        QVERIFY2(!existsRaw(path(sources.at(i))), sources.at(i).constData());
        compareTrees(before.at(i), snapshot(join(mnt, results.at(i))), false, true);
        if (QTest::currentTestFailed())
            return;
    }
}

void CopyJobTest::copyProgress_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<QByteArray>>("sources");
    QTest::addColumn<bool>("toShm"); // destination on /dev/shm: another filesystem
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<qint64>("files");
    const qint64 treeBytes = 3 * 2 * MiB + 5 * 100;
    QTest::newRow("tree") << int(CopyInto) << QList<QByteArray> { "p" } << false << treeBytes << qint64(8);
    QTest::newRow("one big file") << int(CopyInto) << QList<QByteArray> { "big" } << false << qint64(64 * MiB)
                                  << qint64(1);
    QTest::newRow("several sources") << int(CopyInto) << QList<QByteArray> { "p", "big" } << false
                                     << treeBytes + 64 * MiB << qint64(9);
    QTest::newRow("small file") << int(CopyInto) << QList<QByteArray> { "p/s0" } << false << qint64(100) << qint64(1);
    QTest::newRow("move to another filesystem")
        << int(MoveInto) << QList<QByteArray> { "p" } << true << treeBytes << qint64(8);
}

void CopyJobTest::copyProgress()
{
    QFETCH(int, kind);
    QFETCH(QList<QByteArray>, sources);
    QFETCH(bool, toShm);
    QFETCH(qint64, bytes);
    QFETCH(qint64, files);
    QVERIFY(mkdirRaw(path("p")));
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeRaw(path(QByteArray("p/m" + QByteArray::number(i))), pseudoRandom(2 * MiB, quint32(i))));
    QVERIFY(mkdirRaw(path("p/sub")));
    for (int i = 0; i < 5; ++i)
        QVERIFY(writeRaw(path(QByteArray((i < 3 ? "p/s" : "p/sub/s") + QByteArray::number(i))), QByteArray(100, 's')));
    QVERIFY(writeBig(path("big"), 64 * MiB));
    QByteArray out = path("out");
    if (toShm) {
        const QByteArray shm = m_fx.makeShm();
        QVERIFY(!shm.isEmpty());
        out = join(shm, "out");
    }
    QVERIFY(mkdirRaw(out));
    QList<QUrl> urls;
    for (const QByteArray &s : std::as_const(sources))
        urls << url(s);
    CopyJob *job = makeCopy(CopyKind(kind), urls, fileUrl(out));
    qint64 lastBytes = 0;
    bool monotonic = true;
    bool withinTotal = true;
    connect(job, &Job::processedAmountChanged, this, [&](Job *j, Job::Unit unit, qint64 amount) {
        if (unit != Job::Bytes)
            return;
        monotonic = monotonic && amount >= lastBytes;
        withinTotal = withinTotal && (j->totalAmount(Job::Bytes) < 0 || amount <= j->totalAmount(Job::Bytes));
        lastBytes = amount;
    });
    QSignalSpy percentSpy(job, &Job::percentChanged);
    auto j = run(job);
    QCOMPARE(j->error(), 0);
    QCOMPARE(j->totalAmount(Job::Bytes), bytes);
    QCOMPARE(j->totalAmount(Job::Files), files);
    QVERIFY(monotonic);
    QVERIFY(withinTotal);
    QCOMPARE(j->processedAmount(Job::Bytes), bytes);
    QCOMPARE(j->processedAmount(Job::Files), files);
    QCOMPARE(j->percent(), 100ul);
    QVERIFY(!percentSpy.isEmpty());
    QCOMPARE(percentSpy.last().at(1).value<unsigned long>(), 100ul);
}

void CopyJobTest::copyKill_data()
{
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<bool>("emitResult");
    QTest::addColumn<bool>("userPart");
    QTest::addColumn<bool>("move");
    QTest::newRow("new destination, kill quietly") << false << false << false << false;
    QTest::newRow("new destination, kill with result") << false << true << false << false;
    QTest::newRow("overwrite, kill quietly") << true << false << false << false;
    QTest::newRow("overwrite, kill with result") << true << true << false << false;
    QTest::newRow("a user's x.part beside it") << false << false << true << false;
    QTest::newRow("move to another filesystem") << false << true << false << true;
}

void CopyJobTest::copyKill()
{
    QFETCH(bool, overwrite);
    QFETCH(bool, emitResult);
    QFETCH(bool, userPart);
    QFETCH(bool, move);
    constexpr qint64 size = 300 * MiB;
    const QByteArray shm = m_fx.makeShm();
    QVERIFY(!shm.isEmpty());
    const QByteArray src = join(shm, "x");
    QVERIFY2(writeBig(src, size), "could not write 300 MiB to /dev/shm");
    // The move goes from /dev/shm (tmpfs) to the fixture folder: another filesystem.
    const QByteArray destDir = move ? path("out") : join(shm, "out");
    QVERIFY(mkdirRaw(destDir));
    QList<QByteArray> names;
    if (overwrite) {
        QVERIFY(writeRaw(join(destDir, "x"), "old content", 0600));
        names << "x";
    }
    if (userPart) {
        QVERIFY(writeRaw(join(destDir, "x.part"), "mine"));
        names << "x.part";
    }
    const QMap<QByteArray, Node> destBefore = snapshot(destDir);

    CopyJob *job = move ? Qvfs::move(fileUrl(src), fileUrl(destDir)) : Qvfs::copy(fileUrl(src), fileUrl(destDir));
    job->setAutoDelete(false);
    std::unique_ptr<CopyJob> hold(job);
    if (overwrite)
        job->setConflictPolicy(ConflictPolicy::Overwrite);
    const Job::KillVerbosity verbosity = emitResult ? Job::EmitResult : Job::Quietly;
    bool killed = false;
    bool killOk = false;
    qint64 bytesAtKill = -1;
    auto killIt = [&] {
        if (killed)
            return;
        killed = true;
        bytesAtKill = job->processedAmount(Job::Bytes);
        killOk = job->kill(verbosity);
    };
    connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
        if (unit == Job::Bytes && amount > 0)
            killIt();
    });
    QTimer::singleShot(300, job, killIt); // in case no progress came yet
    QSignalSpy resultSpy(job, &Job::result);
    QTRY_VERIFY_WITH_TIMEOUT(killed, 20000);
    QVERIFY(killOk);
    QVERIFY2(bytesAtKill < size, "the copy was over before the kill: nothing tested");
    QCOMPARE(job->kill(verbosity), false); // already finished
    if (emitResult) {
        QCOMPARE(resultSpy.count(), 1);
        QCOMPARE(job->error(), int(ErrCancelled));
    }
    // Let the worker acknowledge the kill (it must stop promptly), then look.
    QVERIFY2(settleWorkers(3000), "the worker did not stop after the kill");
    QCOMPARE(resultSpy.count(), emitResult ? 1 : 0);
    QCOMPARE(namesIn(destDir), sorted(names)); // no x, no temporary, no .part
    compareTrees(destBefore, snapshot(destDir), true, true); // an existing destination is untouched
    if (QTest::currentTestFailed())
        return;
    struct stat st;
    QVERIFY(::stat(src.constData(), &st) == 0); // the source stays
    QCOMPARE(qint64(st.st_size), size);
}

void CopyJobTest::userPartFileKept_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("x"); // the content of out/x afterwards
    QTest::newRow("copy") << QByteArray("copy") << 0 << QByteArray("new");
    QTest::newRow("copy, overwrite") << QByteArray("copy overwrite") << 0 << QByteArray("new");
    QTest::newRow("copy onto an existing x fails")
        << QByteArray("copy fail") << int(ErrAlreadyExists) << QByteArray("old");
    QTest::newRow("put, overwrite") << QByteArray("put overwrite") << 0 << QByteArray("put");
    QTest::newRow("put onto an existing x fails")
        << QByteArray("put fail") << int(ErrAlreadyExists) << QByteArray("old");
    QTest::newRow("copy of x.part itself") << QByteArray("copy part") << 0 << QByteArray();
}

void CopyJobTest::userPartFileKept()
{
    QFETCH(QByteArray, operation);
    QFETCH(int, error);
    QFETCH(QByteArray, x);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(path("src/x"), "new"));
    QVERIFY(writeRaw(path("src/x.part"), "source part"));
    QVERIFY(mkdirRaw(path("out")));
    QVERIFY(writeRaw(path("out/x.part"), "mine"));
    QVERIFY(writeRaw(path("out/.x.part"), "mine too"));
    const bool existing = operation != "copy" && operation != "copy part";
    if (existing)
        QVERIFY(writeRaw(path("out/x"), "old"));
    std::unique_ptr<Job> j;
    if (operation.startsWith("put")) {
        j = run(Qvfs::storedPut("put", url("out/x"), -1, operation == "put overwrite" ? PutOverwrite : PutDefault));
    } else {
        CopyJob *job = Qvfs::copy(url(operation == "copy part" ? "src/x.part" : "src/x"), url("out"));
        job->setConflictPolicy(operation == "copy part" ? ConflictPolicy::Skip
                : operation == "copy overwrite"         ? ConflictPolicy::Overwrite
                                                        : ConflictPolicy::Fail);
        j = run(job);
    }
    QCOMPARE(j->error(), error);
    QCOMPARE(readRaw(path("out/x.part")), QByteArray("mine"));
    QCOMPARE(readRaw(path("out/.x.part")), QByteArray("mine too"));
    QList<QByteArray> names { ".x.part", "x.part" };
    if (!x.isEmpty() || existing) {
        names << "x";
        QCOMPARE(readRaw(path("out/x")), x);
    }
    QCOMPARE(namesIn(path("out")), sorted(names));
}

void CopyJobTest::sparseFile()
{
    constexpr qint64 size = 5 * 1024 * MiB + 12345; // over 4 GiB
    constexpr qint64 tailAt = 4 * 1024 * MiB + 777;
    const QByteArray src = path("sparse");
    const int fd = ::open(src.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    const bool ok
        = ::ftruncate(fd, size) == 0 && ::pwrite(fd, "head", 4, 0) == 4 && ::pwrite(fd, "tail", 4, tailAt) == 4;
    ::close(fd);
    QVERIFY(ok);
    const struct stat srcSt = lstatRaw(src);
    QVERIFY2(qint64(srcSt.st_blocks) * 512 < 4 * MiB, "this filesystem does not keep holes");

    auto st = run(Qvfs::stat(fileUrl(src), DetailsFull));
    QCOMPARE(st->error(), 0);
    QCOMPARE(st->statResult().size(), size);
    QCOMPARE(st->statResult().number(Blocks), qint64(srcSt.st_blocks));
    auto du = run(Qvfs::directorySize(fileUrl(m_fx.root())));
    QCOMPARE(du->totalBytes(), size);

    QElapsedTimer timer;
    timer.start();
    auto cp = run(Qvfs::copyAs(fileUrl(src), url("sparse.copy")));
    QCOMPARE(cp->error(), 0);
    const struct stat dst = lstatRaw(path("sparse.copy"));
    QCOMPARE(qint64(dst.st_size), size);
    QVERIFY2(qint64(dst.st_blocks) * 512 <= 4 * MiB,
        QByteArray("the copy filled its holes: " + QByteArray::number(qint64(dst.st_blocks)) + " blocks").constData());
    QCOMPARE(cp->processedAmount(Job::Bytes), size);
    const int in = ::open(path("sparse.copy").constData(), O_RDONLY | O_CLOEXEC);
    QVERIFY(in >= 0);
    char buf[4096];
    QCOMPARE(::pread(in, buf, 4, 0), ssize_t(4));
    QCOMPARE(QByteArray(buf, 4), QByteArray("head"));
    QCOMPARE(::pread(in, buf, 4, tailAt), ssize_t(4));
    QCOMPARE(QByteArray(buf, 4), QByteArray("tail"));
    QCOMPARE(::pread(in, buf, sizeof buf, 2 * 1024 * MiB), ssize_t(sizeof buf));
    ::close(in);
    QVERIFY(std::all_of(buf, buf + sizeof buf, [](char c) { return c == 0; }));
}

QTEST_GUILESS_MAIN(CopyJobTest)

#include "copyjobtest.moc"
