// SPDX-License-Identifier: LGPL-2.1-or-later
// The copy contract, in-process and in milliseconds: TreeCopy over an in-memory backend.
// Every policy × source type × destination type × copy/move × countFirst, apply-to-all,
// cancel at each stage, names at 255 bytes, moves that rename, copies and moves that fail
// half-way (nothing lost), and the skip accounting (percent reaches 100).

#include "treecopy.h"
#include "copyrules.h"
#include "error.h"
#include "testutil/memorycopybackend.h"

#include <QTest>

using namespace Qvfs;
using Qvfs::Test::MemoryCopyBackend;

namespace
{

/*! Records what a copy reports; answers conflicts from a queue; kills when told. */
class Observer : public CopyObserver
{
public:
    void setTotals(qint64, qint64, qint64) override { ++totalsSent; }
    void setProcessed(qint64 bytes, qint64, qint64) override
    {
        if (bytes < lastProcessedBytes)
            processedWentBack = true;
        lastProcessedBytes = bytes;
    }
    void setSkipped(qint64 count) override { skipped = count; }
    void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination) override
    {
        events.append(QStringLiteral("%1 %2 %3").arg(int(event)).arg(source.path(), destination.path()));
    }
    ConflictAnswer askConflict(const ConflictQuestion &question) override
    {
        asked.append(question.destination.path());
        return answers.isEmpty() ? ConflictAnswer { ConflictAction::Cancel, false, false } : answers.takeFirst();
    }
    bool wasKilled() override { return killed; }
    UnreadableAnswer askUnreadable(const UnreadableQuestion &question) override
    {
        unreadableAsked.append(question.url.path());
        if (onUnreadable)
            onUnreadable();
        return unreadableAnswers.isEmpty() ? UnreadableAnswer() : unreadableAnswers.takeFirst();
    }
    void leftOut(const QUrl &url, int error) override
    {
        left.append(QStringLiteral("%1 %2").arg(url.path()).arg(error));
    }

    QList<UnreadableAnswer> unreadableAnswers;
    std::function<void()> onUnreadable;
    QStringList unreadableAsked;
    QStringList left;
    QList<ConflictAnswer> answers;
    QStringList asked;
    QStringList events;
    qint64 skipped = 0;
    qint64 lastProcessedBytes = 0;
    bool processedWentBack = false;
    int totalsSent = 0;
    bool killed = false;
};

ConflictAnswer answer(ConflictAction action, bool all = false)
{
    return ConflictAnswer { action, all, true };
}

CopyRequest request(const QList<QByteArray> &sources, const QByteArray &dest, ConflictPolicy policy, bool move,
    bool countFirst = true, CopyRequest::Target target = CopyRequest::Target::Into)
{
    CopyRequest r;
    for (const QByteArray &s : sources)
        r.sources.append(MemoryCopyBackend::url(s));
    r.destination = MemoryCopyBackend::url(dest);
    r.target = target;
    r.conflict = policy;
    r.move = move;
    r.countFirst = countFirst;
    r.reportItems = true;
    return r;
}

/*! Every entry below \a top, relative to it: "name=type:content:mode". */
QStringList contentOf(const MemoryCopyBackend &b, const QByteArray &top)
{
    QStringList out;
    for (QString line : b.dump(top)) {
        line.remove(0, top.size());
        if (!line.startsWith(u'='))
            out.append(line);
    }
    return out;
}

/*! The percent rule: the processed bytes reach the (skip-lowered) total. */
void verifyComplete(const TreeCopy &copy, const Observer &o)
{
    const CopyAmounts &a = copy.amounts();
    QCOMPARE(a.bytes, a.totalBytes);
    QCOMPARE(a.skipped, o.skipped);
    QVERIFY(a.files <= a.totalFiles);
    QVERIFY(a.folders <= a.totalFolders);
    QVERIFY(!o.processedWentBack);
}

} // namespace

class TreeCopyTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matrix_data();
    void matrix();
    void applyToAll();
    void askEachTime();
    void askUnanswered();
    void cancelAtStage_data();
    void cancelAtStage();
    void renameLongName();
    void moveIntoExistingRenames();
    void moveAcrossDevices();
    void moveKeepsSkippedInSource();
    void treeCopyInOneOperation();
    void failedFileLeavesNoTrace_data();
    void failedFileLeavesNoTrace();
    void nameTakenMeanwhile();
    void newFolderNeedsNoStats();
    void cycle();
    void skippedFolderAccounting();
    void totalsGrowWithoutCounting();
    void specialFile();
    void itemEvents();
    void unreadableInsideTree_data();
    void unreadableInsideTree();
    void unreadableSourceEndsCopy();
    void goneSinceListed();
    void moveRenamedWholeIsNotCounted();
    void skipsDoNotFloodTotals();
};

// ---------------------------------------------------------------- the policy matrix

void TreeCopyTest::matrix_data()
{
    QTest::addColumn<int>("policy");
    QTest::addColumn<QByteArray>("source"); // file, folder, link
    QTest::addColumn<QByteArray>("target"); // absent, file, folder, link, self
    QTest::addColumn<bool>("move");
    QTest::addColumn<bool>("countFirst");
    const char *const policies[] = { "fail", "overwrite", "skip", "rename", "ask" };
    for (int p = 0; p < 5; ++p) {
        for (const char *source : { "file", "folder", "link" }) {
            for (const char *target : { "absent", "file", "folder", "link", "self" }) {
                for (bool move : { false, true }) {
                    for (bool countFirst : { true, false }) {
                        QTest::addRow("%s %s onto %s%s%s", policies[p], source, target, move ? " move" : "",
                            countFirst ? "" : " uncounted")
                            << p << QByteArray(source) << QByteArray(target) << move << countFirst;
                    }
                }
            }
        }
    }
}

// One source /src/a to /dst (Into), or onto itself; Ask is answered Overwrite.
void TreeCopyTest::matrix()
{
    QFETCH(int, policy);
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, target);
    QFETCH(bool, move);
    QFETCH(bool, countFirst);
    MemoryCopyBackend b;
    b.addFolder("/src");
    if (source == "file") {
        b.addFile("/src/a", "source data", 0640, 111);
    } else if (source == "folder") {
        b.addFolder("/src/a", 0750, 222);
        b.addFile("/src/a/x", "xx");
        b.addFolder("/src/a/sub", 0711, 333);
        b.addFile("/src/a/sub/y", "yyy");
    } else {
        b.addLink("/src/a", "x");
    }
    b.addFolder("/dst");
    if (target == "file")
        b.addFile("/dst/a", "old");
    else if (target == "folder") {
        b.addFolder("/dst/a");
        b.addFile("/dst/a/x", "old x");
        b.addFile("/dst/a/keep", "k");
    } else if (target == "link")
        b.addLink("/dst/a", "elsewhere");
    const bool self = target == "self";
    const QByteArray dst = self ? "/src/a" : "/dst/a";
    const QStringList sourceBefore = contentOf(b, "/src/a");
    const QStringList destA = contentOf(b, "/dst/a");
    const QStringList before = b.dump();

    const auto p = ConflictPolicy(policy);
    const CopyTarget t = target == "absent" ? CopyTarget::Absent
        : target == "folder"                ? CopyTarget::Folder
        : self                              ? (source == "folder" ? CopyTarget::Folder : CopyTarget::Other)
                                            : CopyTarget::Other;
    const bool folder = source == "folder";
    const CopyDecision asked = decideCopy(p, folder, t, self);
    const CopyDecision d
        = asked.action == CopyAction::Ask ? decideCopy(ConflictPolicy::Overwrite, folder, t, self) : asked;

    Observer o;
    o.answers = { answer(ConflictAction::Overwrite), answer(ConflictAction::Overwrite) };
    const CopyRequest req = self ? request({ "/src/a" }, "/src/a", p, move, countFirst, CopyRequest::Target::As)
                                 : request({ "/src/a" }, "/dst", p, move, countFirst);
    TreeCopy copy(o, b, req);
    const WorkerResult r = copy.run();
    QCOMPARE(copy.stage(), TreeCopy::Stage::Done);
    QCOMPARE(o.asked.size() > 0,
        asked.action == CopyAction::Ask || (d.action == CopyAction::Merge && p == ConflictPolicy::Ask));

    switch (d.action) {
    case CopyAction::Fail:
        QCOMPARE(r.code(), d.error);
        QCOMPARE(r.args().value(0), MemoryCopyBackend::url(dst).toEncoded());
        QCOMPARE(b.dump(), before);
        return;
    case CopyAction::Skip:
        QVERIFY(r.ok());
        QCOMPARE(b.dump(), before);
        QCOMPARE(o.skipped, 1);
        verifyComplete(copy, o);
        return;
    case CopyAction::Rename: {
        QVERIFY2(r.ok(), qPrintable(QString::number(r.code())));
        const QByteArray renamed = self ? "/src/a (1)" : "/dst/a (1)";
        QCOMPARE(contentOf(b, renamed), sourceBefore);
        QCOMPARE(contentOf(b, "/dst/a"), destA); // what was there stays
        QCOMPARE(b.nodes.contains("/src/a"), !move);
        verifyComplete(copy, o);
        return;
    }
    case CopyAction::Create:
    case CopyAction::Replace:
        QVERIFY2(r.ok(), qPrintable(QString::number(r.code())));
        QCOMPARE(contentOf(b, "/dst/a"), sourceBefore);
        QCOMPARE(b.nodes.contains("/src/a"), !move);
        if (move) {
            QCOMPARE(b.renames, 1); // no data moved
            QCOMPARE(b.bytesCopied, 0);
        }
        verifyComplete(copy, o);
        return;
    case CopyAction::Merge:
        break;
    case CopyAction::Ask:
        QFAIL("decided Ask");
    }
    // A folder onto a folder: the content merged, its x under the same policy again.
    QVERIFY(folder && t == CopyTarget::Folder && !self);
    QCOMPARE(contentOf(b, "/dst/a/sub"), QStringList { QStringLiteral("/y=f:yyy:644") });
    QCOMPARE(b.nodes.value("/dst/a/keep").data, "k");
    QCOMPARE(b.nodes.contains("/src/a/sub"), !move);
    if (p == ConflictPolicy::Fail) {
        QCOMPARE(r.code(), int(ErrAlreadyExists));
        QCOMPARE(r.args().value(0), MemoryCopyBackend::url("/dst/a/x").toEncoded());
        QCOMPARE(b.nodes.value("/dst/a/x").data, "old x");
        QCOMPARE(b.nodes.value("/src/a/x").data, "xx"); // nothing lost
        return;
    }
    QVERIFY(r.ok());
    verifyComplete(copy, o);
    if (p == ConflictPolicy::Skip) {
        QCOMPARE(b.nodes.value("/dst/a/x").data, "old x");
        QCOMPARE(o.skipped, 1);
        QCOMPARE(b.nodes.contains("/src/a"), true); // it still holds the skipped x
        QCOMPARE(b.nodes.value("/src/a/x").data, "xx");
        return;
    }
    QCOMPARE(b.nodes.value("/dst/a/x").data, "xx");
    QCOMPARE(b.nodes.contains("/src/a"), !move);
    if (move)
        QCOMPARE(b.bytesCopied, 0);
}

// ---------------------------------------------------------------- questions

void TreeCopyTest::applyToAll()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/dst");
    for (const char *n : { "a", "b", "c" }) {
        b.addFile(QByteArray("/src/") + n, "new " + QByteArray(n));
        b.addFile(QByteArray("/dst/") + n, "old");
    }
    const QStringList before = b.dump("/dst");
    Observer o;
    o.answers = { answer(ConflictAction::Skip, true) };
    TreeCopy copy(o, b, request({ "/src/a", "/src/b", "/src/c" }, "/dst", ConflictPolicy::Ask, false));
    QVERIFY(copy.run().ok());
    QCOMPARE(o.asked, QStringList { QStringLiteral("/dst/a") });
    QCOMPARE(b.dump("/dst"), before);
    QCOMPARE(o.skipped, 3);
    QCOMPARE(copy.amounts().totalFiles, 3); // the totals stay as found
    QCOMPARE(copy.amounts().files, 0);
    verifyComplete(copy, o);
}

void TreeCopyTest::askEachTime()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/dst");
    for (const char *n : { "a", "b", "c" }) {
        b.addFile(QByteArray("/src/") + n, "new " + QByteArray(n));
        b.addFile(QByteArray("/dst/") + n, "old");
    }
    Observer o;
    o.answers = { answer(ConflictAction::Rename), answer(ConflictAction::Overwrite), answer(ConflictAction::Skip) };
    TreeCopy copy(o, b, request({ "/src/a", "/src/b", "/src/c" }, "/dst", ConflictPolicy::Ask, true));
    QVERIFY(copy.run().ok());
    QCOMPARE(o.asked.size(), 3);
    QCOMPARE(b.nodes.value("/dst/a").data, "old");
    QCOMPARE(b.nodes.value("/dst/a (1)").data, "new a");
    QCOMPARE(b.nodes.value("/dst/b").data, "new b");
    QCOMPARE(b.nodes.value("/dst/c").data, "old");
    QCOMPARE(contentOf(b, "/src"), QStringList { QStringLiteral("/c=f:new c:644") }); // the skipped one stays
    QCOMPARE(b.renames, 2);
    verifyComplete(copy, o);
}

void TreeCopyTest::askUnanswered()
{
    for (bool cancel : { false, true }) {
        MemoryCopyBackend b;
        b.addFolder("/src");
        b.addFolder("/dst");
        b.addFile("/src/a", "new");
        b.addFile("/dst/a", "old");
        const QStringList before = b.dump();
        Observer o;
        if (cancel)
            o.answers = { answer(ConflictAction::Cancel) };
        TreeCopy copy(o, b, request({ "/src/a" }, "/dst", ConflictPolicy::Ask, true));
        QCOMPARE(copy.run().code(), int(cancel ? ErrCancelled : ErrNotAnswered));
        QCOMPARE(b.dump(), before);
    }
}

// ---------------------------------------------------------------- cancel

void TreeCopyTest::cancelAtStage_data()
{
    QTest::addColumn<int>("stage");
    QTest::addColumn<bool>("move");
    QTest::addColumn<int>("error");
    using S = TreeCopy::Stage;
    QTest::newRow("resolving") << int(S::ResolvingTargets) << false << int(ErrCancelled);
    QTest::newRow("counting") << int(S::Counting) << false << int(ErrCancelled);
    QTest::newRow("copying") << int(S::Copying) << false << int(ErrCancelled);
    QTest::newRow("finishing") << int(S::FinishingFolders) << false << 0; // everything was copied
    QTest::newRow("resolving move") << int(S::ResolvingTargets) << true << int(ErrCancelled);
    QTest::newRow("counting move") << int(S::Counting) << true << int(ErrCancelled);
    QTest::newRow("copying move") << int(S::Copying) << true << int(ErrCancelled);
    QTest::newRow("finishing move") << int(S::FinishingFolders) << true << int(ErrCancelled);
    QTest::newRow("deleting move") << int(S::DeletingSources) << true << int(ErrCancelled);
}

// A kill at each stage ends the copy there: nothing lost, made folders finished.
void TreeCopyTest::cancelAtStage()
{
    QFETCH(int, stage);
    QFETCH(bool, move);
    QFETCH(int, error);
    MemoryCopyBackend b;
    b.renameAcrossDevices = true; // so that a move has sources to delete
    b.addFolder("/src");
    b.addFolder("/src/t", 0750);
    b.addFile("/src/t/f", "data");
    b.addFolder("/dst");
    const QStringList before = b.dump();
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, move));
    QList<int> seen;
    copy.setStageHook([&](TreeCopy::Stage s) {
        seen.append(int(s));
        if (int(s) == stage)
            o.killed = true;
    });
    const WorkerResult r = copy.run();
    QCOMPARE(r.code(), error);
    QVERIFY(seen.contains(stage));
    QCOMPARE(b.nodes.value("/src/t/f").data, "data"); // the sources stay until everything arrived
    if (stage <= int(TreeCopy::Stage::Counting)) {
        QCOMPARE(b.dump(), before);
        return;
    }
    if (b.nodes.contains("/dst/t"))
        QCOMPARE(b.nodes.value("/dst/t").permissions, 0750); // finished, not left owner-only
    if (stage >= int(TreeCopy::Stage::FinishingFolders))
        QCOMPARE(b.nodes.value("/dst/t/f").data, "data");
}

// ---------------------------------------------------------------- names, moves, trees

void TreeCopyTest::renameLongName()
{
    const QByteArray name = QByteArray(251, 'n') + ".txt"; // 255 bytes
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/dst");
    b.addFile("/src/" + name, "new");
    b.addFile("/dst/" + name, "old");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/" + name }, "/dst", ConflictPolicy::Rename, false));
    QVERIFY(copy.run().ok());
    const QByteArray free = freeNameCandidate(name, false, 0);
    QVERIFY(free.size() <= 255);
    QVERIFY(free.endsWith(" (1).txt"));
    QCOMPARE(b.nodes.value("/dst/" + free).data, "new");
    QCOMPARE(b.nodes.value("/dst/" + name).data, "old");
}

// A move into an existing folder of the same name renames entry by entry: no data moves.
void TreeCopyTest::moveIntoExistingRenames()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/tree");
    b.addFile("/src/tree/one", QByteArray(1000, '1'));
    b.addFolder("/src/tree/sub");
    b.addFile("/src/tree/sub/two", QByteArray(2000, '2'));
    b.addFolder("/dst");
    b.addFolder("/dst/tree");
    b.addFile("/dst/tree/other", "o");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/tree" }, "/dst", ConflictPolicy::Fail, true));
    QVERIFY(copy.run().ok());
    QCOMPARE(b.bytesCopied, 0);
    QCOMPARE(b.renames, 2); // one, and sub with what it holds
    QVERIFY(!b.nodes.contains("/src/tree"));
    QCOMPARE(b.nodes.value("/dst/tree/sub/two").data.size(), 2000);
    QCOMPARE(b.nodes.value("/dst/tree/other").data, "o");
    // "one", then sub renamed whole: a move counts what it renames whole as one entry
    // (CopyBackend::renamesWhole()), so "two" inside it was never counted.
    QCOMPARE(copy.amounts().files, 1);
    QCOMPARE(copy.amounts().folders, 2);
    verifyComplete(copy, o);
}

// Where nothing can be renamed, a move copies everything first and deletes at the end.
void TreeCopyTest::moveAcrossDevices()
{
    MemoryCopyBackend b;
    b.renameAcrossDevices = true;
    b.addFolder("/src");
    b.addFolder("/src/tree");
    b.addFile("/src/tree/one", "1111");
    b.addLink("/src/tree/link", "one");
    b.addFolder("/src/tree/sub");
    b.addFile("/src/tree/sub/two", "22");
    b.addFolder("/dst");
    const QStringList source = contentOf(b, "/src/tree");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/tree" }, "/dst", ConflictPolicy::Fail, true));
    QVERIFY(copy.run().ok());
    QCOMPARE(contentOf(b, "/dst/tree"), source);
    QVERIFY(!b.nodes.contains("/src/tree"));
    QCOMPARE(b.bytesCopied, 6);
    // Every removal after every copy: the sources go once everything arrived.
    const auto isRemove = [](const QString &op) { return op.startsWith(QLatin1String("remove ")); };
    const auto firstRemove = std::find_if(b.ops.cbegin(), b.ops.cend(), isRemove);
    QVERIFY2(firstRemove != b.ops.cbegin() && firstRemove != b.ops.cend(), qPrintable(b.ops.join(u',')));
    QVERIFY(std::all_of(firstRemove, b.ops.cend(), isRemove));
    verifyComplete(copy, o);
}

void TreeCopyTest::moveKeepsSkippedInSource()
{
    MemoryCopyBackend b;
    b.renameAcrossDevices = true;
    b.addFolder("/src");
    b.addFolder("/src/tree");
    b.addFile("/src/tree/kept", "k");
    b.addFile("/src/tree/moved", "m");
    b.addFolder("/dst");
    b.addFolder("/dst/tree");
    b.addFile("/dst/tree/kept", "old");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/tree" }, "/dst", ConflictPolicy::Skip, true));
    QVERIFY(copy.run().ok());
    QCOMPARE(
        contentOf(b, "/src"), (QStringList { QStringLiteral("/tree=d::755"), QStringLiteral("/tree/kept=f:k:644") }));
    QCOMPARE(b.nodes.value("/dst/tree/moved").data, "m");
    QCOMPARE(b.nodes.value("/dst/tree/kept").data, "old");
    verifyComplete(copy, o);
}

void TreeCopyTest::treeCopyInOneOperation()
{
    MemoryCopyBackend b;
    b.treeCopies = true;
    b.addFolder("/src");
    b.addFolder("/src/tree");
    b.addFile("/src/tree/one", "1111");
    b.addFolder("/src/tree/sub");
    b.addFile("/src/tree/sub/two", "22");
    b.addFolder("/dst");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/tree" }, "/dst", ConflictPolicy::Fail, false));
    QVERIFY(copy.run().ok());
    QCOMPARE(b.treeCopiesDone, 1);
    QCOMPARE(b.bytesCopied, 0);
    QCOMPARE(b.ops, QStringList { QStringLiteral("tree /dst/tree") });
    QCOMPARE(contentOf(b, "/dst/tree"), contentOf(b, "/src/tree"));
    QCOMPARE(copy.amounts().files, 2);
    QCOMPARE(copy.amounts().folders, 2);
    verifyComplete(copy, o);
}

void TreeCopyTest::failedFileLeavesNoTrace_data()
{
    QTest::addColumn<bool>("move");
    QTest::newRow("copy") << false;
    QTest::newRow("move") << true;
}

// A file that cannot be copied ends the copy naming it; it is absent at the destination,
// every source stays, and the folders made are finished.
void TreeCopyTest::failedFileLeavesNoTrace()
{
    QFETCH(bool, move);
    MemoryCopyBackend b;
    b.renameAcrossDevices = true;
    b.addFolder("/src");
    b.addFolder("/src/t", 0755);
    b.addFile("/src/t/a", "a");
    b.addFile("/src/t/b", "b");
    b.addFile("/src/t/c", "c");
    b.addFolder("/dst");
    b.failCopyOf = { "/src/t/b" };
    const QStringList source = b.dump("/src");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, move));
    const WorkerResult r = copy.run();
    QCOMPARE(r.code(), int(ErrCannotWrite));
    QCOMPARE(r.args().value(0), MemoryCopyBackend::url("/dst/t/b").toEncoded());
    QCOMPARE(b.dump("/src"), source);
    QVERIFY(!b.nodes.contains("/dst/t/b"));
    QVERIFY(!b.nodes.contains("/dst/t/c"));
    QCOMPARE(b.nodes.value("/dst/t/a").data, "a");
    QCOMPARE(b.nodes.value("/dst/t").permissions, 0755);
    QCOMPARE(copy.amounts().bytes, 1);
}

// A free name taken between the probe and the copy is never replaced.
void TreeCopyTest::nameTakenMeanwhile()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/dst");
    b.addFile("/src/a", "new");
    b.addFile("/dst/a", "old");
    b.beforeOp = [&b](const QByteArray &op, const QByteArray &path) {
        if (op == "copy" && path == "/dst/a (1)")
            b.addFile(path, "another user's");
    };
    Observer o;
    TreeCopy copy(o, b, request({ "/src/a" }, "/dst", ConflictPolicy::Rename, false));
    QCOMPARE(copy.run().code(), int(ErrAlreadyExists));
    QCOMPARE(b.nodes.value("/dst/a (1)").data, "another user's");
    QCOMPARE(b.nodes.value("/dst/a").data, "old");
}

// Inside a folder the copy made, nothing is stated: what appears there meanwhile is
// never replaced (every create there is exclusive).
void TreeCopyTest::newFolderNeedsNoStats()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    for (const char *n : { "a", "b", "c", "d", "e" })
        b.addFile(QByteArray("/src/t/") + n, n);
    b.addFolder("/dst");
    b.beforeOp = [&b](const QByteArray &op, const QByteArray &path) {
        if (op == "copy" && path == "/dst/t/c")
            b.addFile(path, "another user's");
    };
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Overwrite, false));
    QCOMPARE(copy.run().code(), int(ErrAlreadyExists));
    QCOMPARE(b.stats, 3); // the destination folder, the source, and what is at /dst/t
    QCOMPARE(b.nodes.value("/dst/t/c").data, "another user's");
    QCOMPARE(b.nodes.value("/dst/t/b").data, "b");
}

void TreeCopyTest::cycle()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFolder("/src/t/sub");
    const QStringList before = b.dump();
    for (bool move : { false, true }) {
        Observer o;
        TreeCopy into(o, b, request({ "/src/t" }, "/src/t/sub", ConflictPolicy::Rename, move));
        QCOMPARE(into.run().code(), int(ErrCycle));
        TreeCopy as(
            o, b, request({ "/src/t" }, "/src/t/sub/t2", ConflictPolicy::Rename, move, true, CopyRequest::Target::As));
        QCOMPARE(as.run().code(), int(ErrCycle));
        QCOMPARE(b.dump(), before);
    }
}

// ---------------------------------------------------------------- accounting and events

// A skipped folder: the file and folder totals stay as found, its bytes leave the total.
void TreeCopyTest::skippedFolderAccounting()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFile("/src/file", QByteArray(100, 'f'));
    b.addFolder("/src/skipped");
    b.addFile("/src/skipped/inside", QByteArray(1000, 'i'));
    b.addFolder("/dst");
    b.addFile("/dst/skipped", "a file in the way");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/file", "/src/skipped" }, "/dst", ConflictPolicy::Skip, false));
    QVERIFY(copy.run().ok());
    const CopyAmounts &a = copy.amounts();
    QCOMPARE(a.totalFiles, 2);
    QCOMPARE(a.totalFolders, 1);
    QCOMPARE(a.totalBytes, 100);
    QCOMPARE(a.files, 1);
    QCOMPARE(a.folders, 0);
    QCOMPARE(a.skipped, 1);
    verifyComplete(copy, o);
}

void TreeCopyTest::totalsGrowWithoutCounting()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFile("/src/t/a", "aaaa");
    b.addFolder("/src/t/sub");
    b.addFile("/src/t/sub/b", "bb");
    b.addFolder("/dst");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, false, false));
    QVERIFY(copy.run().ok());
    QCOMPARE(copy.amounts().totalFiles, 2);
    QCOMPARE(copy.amounts().totalFolders, 2);
    QCOMPARE(copy.amounts().totalBytes, 6);
    verifyComplete(copy, o);
}

void TreeCopyTest::specialFile()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addSpecial("/src/fifo");
    b.addFolder("/dst");
    Observer o;
    const WorkerResult r = TreeCopy(o, b, request({ "/src/fifo" }, "/dst", ConflictPolicy::Fail, false)).run();
    QCOMPARE(r.code(), int(ErrCannotRead));
    QCOMPARE(r.args().value(0), MemoryCopyBackend::url("/src/fifo").toEncoded());
    QVERIFY(b.nodes.contains("/src/fifo"));
}

void TreeCopyTest::itemEvents()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFile("/src/t/a", "a");
    b.addFile("/src/t/b", "b");
    b.addFolder("/dst");
    b.addFile("/dst/t", "in the way");
    Observer o;
    o.answers = { answer(ConflictAction::Rename) };
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Ask, false));
    QVERIFY(copy.run().ok());
    const auto e = [](CopyItemEvent ev, const char *s, const char *d) {
        return QStringLiteral("%1 %2 %3").arg(int(ev)).arg(QLatin1String(s), QLatin1String(d));
    };
    QCOMPARE(o.events,
        (QStringList {
            e(CopyItemEvent::CreatedFolder, "/src/t", "/dst/t (1)"),
            e(CopyItemEvent::Copying, "/src/t/a", "/dst/t (1)/a"),
            e(CopyItemEvent::Copied, "/src/t/a", "/dst/t (1)/a"),
            e(CopyItemEvent::Copying, "/src/t/b", "/dst/t (1)/b"),
            e(CopyItemEvent::Copied, "/src/t/b", "/dst/t (1)/b"),
        }));
}

// ---------------------------------------------------------------- unreadable and gone entries

void TreeCopyTest::unreadableInsideTree_data()
{
    QTest::addColumn<QByteArray>("denied"); // a file or a folder inside the copied tree
    QTest::addColumn<int>("action");
    QTest::addColumn<bool>("move");
    for (const char *what : { "/src/t/secret", "/src/t/locked" }) {
        for (bool move : { false, true }) {
            const char *const m = move ? " move" : "";
            QTest::addRow("%s skipped%s", what, m) << QByteArray(what) << int(UnreadableAction::Skip) << move;
            QTest::addRow("%s retried%s", what, m) << QByteArray(what) << int(UnreadableAction::Retry) << move;
            QTest::addRow("%s cancelled%s", what, m) << QByteArray(what) << int(UnreadableAction::Cancel) << move;
        }
    }
}

// An entry inside a copied tree that cannot be read is asked about: skipped (left out, the
// job told, the rest copied, percent 100), retried, or the end of the copy. A move keeps
// what it left out at the source.
void TreeCopyTest::unreadableInsideTree()
{
    QFETCH(QByteArray, denied);
    QFETCH(int, action);
    QFETCH(bool, move);
    MemoryCopyBackend b;
    b.renameAcrossDevices = true; // a move copies, so that it reads
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFile("/src/t/a", "aaaa");
    b.addFile("/src/t/secret", "sss");
    b.addFolder("/src/t/locked");
    b.addFile("/src/t/locked/x", "xx");
    b.addFile("/src/t/z", "z");
    b.addFolder("/dst");
    b.denied.insert(denied);
    Observer o;
    o.unreadableAnswers.append(UnreadableAnswer { UnreadableAction(action), false, true });
    if (UnreadableAction(action) == UnreadableAction::Retry)
        o.onUnreadable = [&] { b.denied.clear(); }; // readable now
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, move));
    const WorkerResult r = copy.run();
    QCOMPARE(o.unreadableAsked, QStringList { QString::fromUtf8(denied) });
    switch (UnreadableAction(action)) {
    case UnreadableAction::Cancel:
        QCOMPARE(r.code(), int(ErrCancelled));
        QVERIFY(b.nodes.contains("/src/t/a")); // nothing deleted
        return;
    case UnreadableAction::Retry:
        QVERIFY(r.ok());
        QVERIFY(o.left.isEmpty());
        QCOMPARE(b.nodes.value("/dst/t/secret").data, "sss");
        QCOMPARE(b.nodes.value("/dst/t/locked/x").data, "xx");
        verifyComplete(copy, o);
        return;
    case UnreadableAction::Skip:
        break;
    }
    QVERIFY(r.ok()); // the job says ErrPartial from what was left out
    QCOMPARE(o.left, QStringList { QStringLiteral("%1 %2").arg(QString::fromUtf8(denied)).arg(int(ErrAccessDenied)) });
    QVERIFY(!b.nodes.contains("/dst" + denied.mid(4)));
    QCOMPARE(b.nodes.value("/dst/t/a").data, "aaaa");
    QCOMPARE(b.nodes.value("/dst/t/z").data, "z");
    QCOMPARE(o.skipped, 0); // left out, not skipped by choice
    verifyComplete(copy, o);
    if (move) {
        QVERIFY(b.nodes.contains(denied)); // stays, and so does the folder holding it
        QVERIFY(b.nodes.contains("/src/t"));
        QVERIFY(!b.nodes.contains("/src/t/a"));
    }
}

// A source named by the request that cannot be read is the copy's error, not a question.
void TreeCopyTest::unreadableSourceEndsCopy()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFile("/src/t/a", "a");
    b.addFolder("/dst");
    b.denied.insert("/src/t");
    Observer o;
    const WorkerResult r = TreeCopy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, false)).run();
    QCOMPARE(r.code(), int(ErrAccessDenied));
    QVERIFY(o.unreadableAsked.isEmpty());
}

// An entry deleted between the listing and its copy is passed over, out of the totals.
void TreeCopyTest::goneSinceListed()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFile("/src/t/a", "aaaa");
    b.addFile("/src/t/b", "bb");
    b.addFolder("/dst");
    b.beforeOp = [&](const QByteArray &op, const QByteArray &path) {
        if (op == "copy" && path == "/dst/t/a")
            b.nodes.remove("/src/t/a");
    };
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, false));
    QVERIFY(copy.run().ok());
    QVERIFY(o.left.isEmpty());
    QVERIFY(!b.nodes.contains("/dst/t/a"));
    QCOMPARE(b.nodes.value("/dst/t/b").data, "bb");
    verifyComplete(copy, o);
}

// A move that will rename a tree whole does not count what it holds first (the file
// worker did not either: a big tree moved on one disk must not be walked).
void TreeCopyTest::moveRenamedWholeIsNotCounted()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    for (int i = 0; i < 20; ++i)
        b.addFile("/src/t/f" + QByteArray::number(i), "data");
    b.addFolder("/dst");
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Fail, true));
    QVERIFY(copy.run().ok());
    QCOMPARE(b.renames, 1);
    QCOMPARE(copy.amounts().totalFolders, 1);
    QCOMPARE(copy.amounts().totalFiles, 0);
    QCOMPARE(copy.amounts().folders, 1);
    QCOMPARE(b.nodes.value("/dst/t/f7").data, "data");
    verifyComplete(copy, o);
}

// Thousands of skips lower the totals thousands of times; the application hears of it
// a few times (and always before it would see more processed than the total).
void TreeCopyTest::skipsDoNotFloodTotals()
{
    MemoryCopyBackend b;
    b.addFolder("/src");
    b.addFolder("/src/t");
    b.addFolder("/dst");
    b.addFolder("/dst/t");
    for (int i = 0; i < 3000; ++i) {
        b.addFile("/src/t/f" + QByteArray::number(i), "data");
        b.addFile("/dst/t/f" + QByteArray::number(i), "old");
    }
    Observer o;
    TreeCopy copy(o, b, request({ "/src/t" }, "/dst", ConflictPolicy::Skip, false));
    QVERIFY(copy.run().ok());
    QCOMPARE(o.skipped, 3000);
    QVERIFY2(o.totalsSent < 50, QByteArray::number(o.totalsSent).constData());
    verifyComplete(copy, o);
}

QTEST_GUILESS_MAIN(TreeCopyTest)

#include "treecopytest.moc"
