// SPDX-License-Identifier: LGPL-2.1-or-later
// The generic copy path (the job's own plan, get → put) meets a file it cannot read inside
// a tree: it asks (skip, retry, cancel), skips it without a delegate, copies the rest, and
// ends with ErrPartial naming it; a move never deletes what was left out. The workers run
// unprivileged (the tests run as root in CI), the file worker is described without "copy".
// Built a second time as leftouttest (QVFS_LEFTOUT_IN_WORKER): the same rows through the
// file worker's own copy, which asks, skips and reports by the same rule.

#include "fixturedir.h"
#include "genericpath.h"
#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"
#include "unprivilegedworkers.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/Question>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{
// Answers unreadable-entry questions as told; \a fix runs first (a retry that can work).
class UnreadableAnswerer : public AskDelegate
{
public:
    UnreadableAction action = UnreadableAction::Skip;
    std::function<void()> fix;
    int asked = 0;
    QList<QUrl> urls;
    void ask(Question *q) override
    {
        if (q->kind() != Question::Kind::Unreadable) {
            q->refuse();
            return;
        }
        ++asked;
        urls.append(q->unreadable().url);
        if (fix && action == UnreadableAction::Retry)
            fix();
        q->answerUnreadable(action);
    }
};
} // namespace

class GenericLeftOutTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_workers;
    JobFixture m_fx;
    std::unique_ptr<UnprivilegedWorkers> m_unprivileged;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

    // src/a, src/locked (unreadable to the workers), src/sub/b
    void makeTree()
    {
        QVERIFY(mkdirRaw(path("src")) && mkdirRaw(path("src/sub")) && mkdirRaw(path("dst")));
        QVERIFY(writeRaw(path("src/a"), "a") && writeRaw(path("src/sub/b"), "b"));
        QVERIFY(writeRaw(path("src/locked"), "secret", UnprivilegedWorkers::dropsPrivileges() ? 0600 : 0000));
        if (UnprivilegedWorkers::dropsPrivileges()) {
            // The workers are nobody: everything but "locked" is theirs to read and write
            // (the fixture's folder too, where a move renames and deletes).
            for (const char *rel : { "src/..", "src", "src/sub", "src/a", "src/sub/b", "dst" })
                QVERIFY(
                    ::chown(path(rel).constData(), UnprivilegedWorkers::NobodyId, UnprivilegedWorkers::NobodyId) == 0);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
#ifndef QVFS_LEFTOUT_IN_WORKER
        QVERIFY(m_workers.isValid());
        QVERIFY(describeFileWorkerWithoutCopy(QFile::encodeName(m_workers.path())));
        qputenv("QVFS_WORKER_PATH", QFile::encodeName(m_workers.path()));
#endif
    }
    void init()
    {
        m_fx.init();
        m_unprivileged = std::make_unique<UnprivilegedWorkers>(); // fresh workers for each row
    }
    void cleanup()
    {
        m_unprivileged.reset();
        m_fx.cleanup();
    }

    void copyLeavesOut_data()
    {
        QTest::addColumn<bool>("delegate");
        QTest::addColumn<int>("action"); // UnreadableAction
        QTest::addColumn<bool>("move");
        QTest::newRow("no delegate") << false << int(UnreadableAction::Skip) << false;
        QTest::newRow("skip") << true << int(UnreadableAction::Skip) << false;
        QTest::newRow("retry, fixed") << true << int(UnreadableAction::Retry) << false;
        QTest::newRow("cancel") << true << int(UnreadableAction::Cancel) << false;
        QTest::newRow("move, skip") << true << int(UnreadableAction::Skip) << true;
    }

    void copyLeavesOut()
    {
        QFETCH(bool, delegate);
        QFETCH(int, action);
        QFETCH(bool, move);
        makeTree();
        // A move goes to another filesystem, so it copies (a rename would move the
        // unreadable file along without reading it) and then deletes the sources.
        QByteArray dst = path("dst");
        if (move) {
            dst = m_fx.makeShm();
            QVERIFY(!dst.isEmpty());
            if (UnprivilegedWorkers::dropsPrivileges())
                QVERIFY(::chown(dst.constData(), UnprivilegedWorkers::NobodyId, UnprivilegedWorkers::NobodyId) == 0);
        }
        CopyJob *job = move ? Qvfs::move(url("src"), fileUrl(dst)) : Qvfs::copy(url("src"), url("dst"));
        UnreadableAnswerer answerer;
        answerer.action = UnreadableAction(action);
        answerer.fix = [this] { ::chmod(path("src/locked").constData(), 0644); };
        if (delegate)
            job->setAskDelegate(&answerer);
        QSignalSpy leftOut(job, &Job::leftOut);
        auto j = run(job);
        const bool fixed = answerer.action == UnreadableAction::Retry;
        if (answerer.action == UnreadableAction::Cancel) {
            QCOMPARE(j->error(), int(ErrCancelled));
            return;
        }
        QVERIFY2(answerer.asked == (delegate ? 1 : 0),
            qPrintable(QStringLiteral("asked %1, error %2").arg(answerer.asked).arg(j->errorString())));
        if (fixed) {
            QVERIFY2(j->error() == NoError, qPrintable(j->errorString()));
            QCOMPARE(readRaw(path("dst/src/locked")), QByteArray("secret"));
            return;
        }
        QVERIFY2(j->error() == ErrPartial, qPrintable(j->errorString()));
        QCOMPARE(j->errorArgs().value(0), QStringLiteral("1"));
        QCOMPARE(leftOut.count(), 1);
        QCOMPARE(leftOut.first().at(1).toUrl(), url("src/locked"));
        QCOMPARE(j->percent(), 100ul); // what was left out is not waited for; the rest was done:
        QCOMPARE(readRaw(join(dst, "src/a")), QByteArray("a"));
        QCOMPARE(readRaw(join(dst, "src/sub/b")), QByteArray("b"));
        QVERIFY(!existsRaw(join(dst, "src/locked")));
        if (move) // what was left out, and its folders, stay
            QVERIFY(existsRaw(path("src/locked")));
    }
};

QTEST_GUILESS_MAIN(GenericLeftOutTest)
#include "genericleftouttest.moc"
