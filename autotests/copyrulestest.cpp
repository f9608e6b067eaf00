// SPDX-License-Identifier: LGPL-2.1-or-later
// The rules of copyrules.h, which the copy job and every copying worker decide with: the
// decision table, answers, the skip accounting, free names, temporary names and the
// "same server" rule. Pure functions: the whole table in milliseconds.
#include "copyrules.h"
#include "error.h"

#include <QTest>
#include <QUrl>

using namespace Qvfs;

Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)
Q_DECLARE_METATYPE(Qvfs::CopyTarget)
Q_DECLARE_METATYPE(Qvfs::CopyAction)

class CopyRulesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decide_data();
    void decide();
    void absentIsAlwaysCreated();
    void answers();
    void asking();
    void skipAccounting();
    void freeNames_data();
    void freeNames();
    void freeNameBounds();
    void firstFreeName();
    void temporaryNames();
    void sameServer();
};

void CopyRulesTest::decide_data()
{
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<bool>("folder"); // the source is a folder
    QTest::addColumn<CopyTarget>("target");
    QTest::addColumn<bool>("identical");
    QTest::addColumn<CopyAction>("action");
    QTest::addColumn<int>("error");
    using P = ConflictPolicy;
    using T = CopyTarget;
    using A = CopyAction;
    // A file onto a file.
    QTest::newRow("file/file fail") << P::Fail << false << T::Other << false << A::Fail << int(ErrAlreadyExists);
    QTest::newRow("file/file overwrite") << P::Overwrite << false << T::Other << false << A::Replace << 0;
    QTest::newRow("file/file skip") << P::Skip << false << T::Other << false << A::Skip << 0;
    QTest::newRow("file/file rename") << P::Rename << false << T::Other << false << A::Rename << 0;
    QTest::newRow("file/file ask") << P::Ask << false << T::Other << false << A::Ask << 0;
    // A folder onto a folder: merged, whatever the policy but Rename.
    for (P p : { P::Fail, P::Overwrite, P::Skip, P::Ask }) {
        QTest::addRow("folder/folder %s", conflictPolicyName(p).constData())
            << p << true << T::Folder << false << A::Merge << 0;
    }
    QTest::newRow("folder/folder rename") << P::Rename << true << T::Folder << false << A::Rename << 0;
    // Types that differ: Overwrite cannot replace one by the other.
    QTest::newRow("folder/file overwrite")
        << P::Overwrite << true << T::Other << false << A::Fail << int(ErrIsNotDirectory);
    QTest::newRow("file/folder overwrite")
        << P::Overwrite << false << T::Folder << false << A::Fail << int(ErrIsDirectory);
    QTest::newRow("folder/file fail") << P::Fail << true << T::Other << false << A::Fail << int(ErrAlreadyExists);
    QTest::newRow("file/folder fail") << P::Fail << false << T::Folder << false << A::Fail << int(ErrAlreadyExists);
    QTest::newRow("folder/file skip") << P::Skip << true << T::Other << false << A::Skip << 0;
    QTest::newRow("file/folder skip") << P::Skip << false << T::Folder << false << A::Skip << 0;
    QTest::newRow("folder/file rename") << P::Rename << true << T::Other << false << A::Rename << 0;
    QTest::newRow("file/folder ask") << P::Ask << false << T::Folder << false << A::Ask << 0;
    QTest::newRow("folder/file ask") << P::Ask << true << T::Other << false << A::Ask << 0;
    // The source onto itself: never, but under a free name.
    for (P p : { P::Fail, P::Overwrite, P::Skip, P::Ask }) {
        QTest::addRow("file onto itself, %s", conflictPolicyName(p).constData())
            << p << false << T::Other << true << A::Fail << int(ErrIdenticalFiles);
        QTest::addRow("folder onto itself, %s", conflictPolicyName(p).constData())
            << p << true << T::Folder << true << A::Fail << int(ErrIdenticalFiles);
    }
    QTest::newRow("file onto itself, rename") << P::Rename << false << T::Other << true << A::Rename << 0;
    QTest::newRow("folder onto itself, rename") << P::Rename << true << T::Folder << true << A::Rename << 0;
}

void CopyRulesTest::decide()
{
    QFETCH(ConflictPolicy, policy);
    QFETCH(bool, folder);
    QFETCH(CopyTarget, target);
    QFETCH(bool, identical);
    QFETCH(CopyAction, action);
    QFETCH(int, error);
    const CopyDecision d = decideCopy(policy, folder, target, identical);
    QCOMPARE(d.action, action);
    QCOMPARE(d.error, error);
}

void CopyRulesTest::absentIsAlwaysCreated()
{
    for (ConflictPolicy p : { ConflictPolicy::Fail, ConflictPolicy::Overwrite, ConflictPolicy::Skip,
             ConflictPolicy::Rename, ConflictPolicy::Ask }) {
        for (bool folder : { false, true }) {
            const CopyDecision d = decideCopy(p, folder, CopyTarget::Absent, false);
            QCOMPARE(d.action, CopyAction::Create);
            QCOMPARE(d.error, 0);
        }
    }
}

void CopyRulesTest::answers()
{
    QCOMPARE(policyForAnswer(ConflictAction::Overwrite), std::optional(ConflictPolicy::Overwrite));
    QCOMPARE(policyForAnswer(ConflictAction::Skip), std::optional(ConflictPolicy::Skip));
    QCOMPARE(policyForAnswer(ConflictAction::Rename), std::optional(ConflictPolicy::Rename));
    QVERIFY(!policyForAnswer(ConflictAction::Cancel).has_value());
    // An answer is decided with the table like a policy: "overwrite" a folder by a file
    // still fails, and no answer is ever asked again.
    const CopyDecision d = decideCopy(*policyForAnswer(ConflictAction::Overwrite), false, CopyTarget::Folder, false);
    QCOMPARE(d.action, CopyAction::Fail);
    QCOMPARE(d.error, int(ErrIsDirectory));
    for (ConflictAction a : { ConflictAction::Overwrite, ConflictAction::Skip, ConflictAction::Rename })
        QVERIFY(decideCopy(*policyForAnswer(a), false, CopyTarget::Other, false).action != CopyAction::Ask);
}

void CopyRulesTest::asking()
{
    int asked = 0;
    auto answering = [&](ConflictAction action, bool all, bool answered = true) {
        return [&asked, action, all, answered] {
            ++asked;
            ConflictAnswer a;
            a.action = action;
            a.applyToAll = all;
            a.answered = answered;
            return a;
        };
    };
    ConflictPolicy policy = ConflictPolicy::Ask;
    // No conflict, or a merge: nobody is asked.
    QCOMPARE(decideCopyAsking(&policy, false, CopyTarget::Absent, false, answering(ConflictAction::Skip, false)).action,
        CopyAction::Create);
    QCOMPARE(decideCopyAsking(&policy, true, CopyTarget::Folder, false, answering(ConflictAction::Skip, false)).action,
        CopyAction::Merge);
    QCOMPARE(asked, 0);
    // An answer for this entry only.
    QCOMPARE(
        decideCopyAsking(&policy, false, CopyTarget::Other, false, answering(ConflictAction::Rename, false)).action,
        CopyAction::Rename);
    QCOMPARE(policy, ConflictPolicy::Ask);
    // "Overwrite" of a folder by a file is decided again: it fails.
    const CopyDecision d
        = decideCopyAsking(&policy, false, CopyTarget::Folder, false, answering(ConflictAction::Overwrite, false));
    QCOMPARE(d.action, CopyAction::Fail);
    QCOMPARE(d.error, int(ErrIsDirectory));
    // No answer, and Cancel.
    QCOMPARE(
        decideCopyAsking(&policy, false, CopyTarget::Other, false, answering(ConflictAction::Skip, false, false)).error,
        int(ErrNotAnswered));
    QCOMPARE(decideCopyAsking(&policy, false, CopyTarget::Other, false, answering(ConflictAction::Cancel, true)).error,
        int(ErrCancelled));
    QCOMPARE(policy, ConflictPolicy::Ask); // Cancel is no policy
    // For all: the policy of the rest, nobody asked again.
    QCOMPARE(decideCopyAsking(&policy, false, CopyTarget::Other, false, answering(ConflictAction::Skip, true)).action,
        CopyAction::Skip);
    QCOMPARE(policy, ConflictPolicy::Skip);
    asked = 0;
    QCOMPARE(
        decideCopyAsking(&policy, false, CopyTarget::Other, false, answering(ConflictAction::Rename, false)).action,
        CopyAction::Skip);
    QCOMPARE(asked, 0);
}

void CopyRulesTest::skipAccounting()
{
    // Two files of 100 and 20 bytes and a folder holding 7: the 20-byte file and the folder
    // are skipped. As KIO counts: the file and folder totals stay as found, the skipped
    // entries are never processed, the bytes leave the total, so percent reaches 100.
    CopyAmounts a;
    a.totalBytes = 127;
    a.totalFiles = 4; // 2 files + 2 inside the folder
    a.totalFolders = 1;
    a.files = 1;
    a.bytes = 100;
    a.skip(20);
    a.skip(7);
    QCOMPARE(a.skipped, qint64(2));
    QCOMPARE(a.totalBytes, qint64(100));
    QCOMPARE(a.bytes, a.totalBytes);
    QCOMPARE(a.totalFiles, qint64(4));
    QCOMPARE(a.totalFolders, qint64(1));
    QCOMPARE(a.files, qint64(1));
    // Left out (unreadable): the same bytes rule, not counted as skipped.
    a.leaveOut(50);
    QCOMPARE(a.skipped, qint64(2));
    QCOMPARE(a.totalBytes, qint64(50));
    // Never below zero, an unknown size (-1) takes nothing, and nothing counted stays 0.
    a.leaveOut(1000);
    QCOMPARE(a.totalBytes, qint64(0));
    CopyAmounts uncounted;
    uncounted.skip(-1);
    uncounted.skip(5);
    QCOMPARE(uncounted.totalBytes, qint64(0));
    QCOMPARE(uncounted.skipped, qint64(2));
}

void CopyRulesTest::freeNames_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("folder");
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("file") << QByteArray("report.txt") << false << 0 << QByteArray("report (1).txt");
    QTest::newRow("second") << QByteArray("report.txt") << false << 1 << QByteArray("report (2).txt");
    QTest::newRow("goes on from N") << QByteArray("report (3).txt") << false << 0 << QByteArray("report (4).txt");
    QTest::newRow("folder keeps its dot") << QByteArray("photos.2024") << true << 0 << QByteArray("photos.2024 (1)");
    QTest::newRow("leading dot is no extension") << QByteArray(".bashrc") << false << 0 << QByteArray(".bashrc (1)");
    QTest::newRow("long extension is none")
        << QByteArray("a." + QByteArray(31, 'e')) << false << 0 << QByteArray("a." + QByteArray(31, 'e') + " (1)");
    QTest::newRow("no extension") << QByteArray("Makefile") << false << 0 << QByteArray("Makefile (1)");
    QTest::newRow("not a number") << QByteArray("x (y)") << false << 0 << QByteArray("x (y) (1)");
}

void CopyRulesTest::freeNames()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, folder);
    QFETCH(int, attempt);
    QFETCH(QByteArray, expected);
    QCOMPARE(freeNameCandidate(name, folder, attempt), expected);
}

void CopyRulesTest::freeNameBounds()
{
    // 255 bytes: the base is shortened to make room, the extension stays.
    const QByteArray longName = QByteArray(251, 'n') + ".txt";
    QCOMPARE(longName.size(), 255);
    const QByteArray c = freeNameCandidate(longName, false, 0);
    QCOMPARE(c.size(), 255);
    QVERIFY(c.endsWith(" (1).txt"));
    QVERIFY(c.startsWith(QByteArray(247, 'n')));
    // Never cut inside a UTF-8 sequence: 127 two-byte characters.
    QByteArray utf8;
    for (int i = 0; i < 127; ++i)
        utf8 += "\xc3\xa9";
    QCOMPARE(utf8.size(), 254);
    const QByteArray u = freeNameCandidate(utf8, true, 9);
    QVERIFY(u.size() <= 255);
    QVERIFY(u.endsWith(" (10)"));
    QVERIFY(QString::fromUtf8(u).toUtf8() == u); // still valid UTF-8
    QCOMPARE(freeNameCandidate(QByteArray(), false, 0), QByteArray());
    QCOMPARE(freeNameCandidate("a", false, -1), QByteArray());
    QCOMPARE(freeNameCandidate("a", false, MaxFreeNameAttempts), QByteArray());
    QCOMPARE(freeNameCandidate("a", false, MaxFreeNameAttempts - 1), QByteArray("a (10000)"));
}

void CopyRulesTest::firstFreeName()
{
    QSet<QByteArray> taken { "a (1).txt", "a (2).txt" };
    int probes = 0;
    auto probe = [&](const QByteArray &c) {
        ++probes;
        return taken.contains(c) ? NameProbe::Taken : NameProbe::Free;
    };
    QCOMPARE(Qvfs::firstFreeName("a.txt", false, probe), QByteArray("a (3).txt"));
    QCOMPARE(probes, 3);
    // A failing probe stops at once.
    probes = 0;
    QCOMPARE(Qvfs::firstFreeName("a.txt", false,
                 [&](const QByteArray &) {
                     ++probes;
                     return NameProbe::Failed;
                 }),
        QByteArray());
    QCOMPARE(probes, 1);
    // Everything taken: MaxFreeNameAttempts probes, then none.
    probes = 0;
    QCOMPARE(Qvfs::firstFreeName("a", false,
                 [&](const QByteArray &) {
                     ++probes;
                     return NameProbe::Taken;
                 }),
        QByteArray());
    QCOMPARE(probes, MaxFreeNameAttempts);
}

void CopyRulesTest::temporaryNames()
{
    const QByteArray t = temporaryNameFor("report.txt", "abc123");
    QCOMPARE(t, QByteArray(".report.txt.qvfs-abc123.part"));
    QByteArrayView tag;
    QVERIFY(isTemporaryName(t, &tag));
    QCOMPARE(tag, QByteArrayView("abc123"));
    // A long name is shortened to keep the temporary within 255 bytes.
    const QByteArray longName(255, 'x');
    const QByteArray lt = temporaryNameFor(longName, "0123456789abcdef");
    QCOMPARE(lt.size(), 255);
    QVERIFY(isTemporaryName(lt, &tag));
    QCOMPARE(tag, QByteArrayView("0123456789abcdef"));
    // The form of earlier versions, without the name, still counts (the cleaner finds it).
    QVERIFY(isTemporaryName(".qvfs-00ff.part", &tag));
    QCOMPARE(tag, QByteArrayView("00ff"));
    // Owner tags hold '-'.
    QVERIFY(isTemporaryName(temporaryNameFor("f", "0a1b2c3d-4026531836-77-12345-AbC123")));
    // Not ours.
    for (const char *name : { "report.txt", ".report.part", "report.qvfs-abc.part", ".x.qvfs-.part", ".x.qvfs-a b.part",
             ".x.qvfs-abc.partial", ".x.qvfs-a/b.part" })
        QVERIFY2(!isTemporaryName(QByteArrayView(name)), name);
}

void CopyRulesTest::sameServer()
{
    const QUrl a(QStringLiteral("sftp://joe@Example.org/a"));
    QVERIFY(isSameServer(a, QUrl(QStringLiteral("SFTP://joe@example.org/b")), 22));
    QVERIFY(isSameServer(a, QUrl(QStringLiteral("sftp://joe@example.org:22/b")), 22));
    QVERIFY(!isSameServer(a, QUrl(QStringLiteral("sftp://joe@example.org:2222/b")), 22));
    QVERIFY(!isSameServer(a, QUrl(QStringLiteral("sftp://ann@example.org/b")), 22));
    QVERIFY(!isSameServer(a, QUrl(QStringLiteral("sftp://joe@example.net/b")), 22));
    QVERIFY(!isSameServer(a, QUrl(QStringLiteral("webdav://joe@example.org/b")), 22));
    // A password is no part of the server.
    QVERIFY(isSameServer(a, QUrl(QStringLiteral("sftp://joe:secret@example.org/b")), 22));
}

QTEST_GUILESS_MAIN(CopyRulesTest)

#include "copyrulestest.moc"
