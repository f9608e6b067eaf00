// SPDX-License-Identifier: LGPL-2.1-or-later
// The file worker's walk by folder descriptors (fileops_walk_p.h), in-process: deeper
// than the descriptors it holds, back up through "..", and what happens when a folder
// above the walk is moved or replaced while its descriptor is closed. The jobs that use
// it are tested through the worker in filewalktest.

#include "fileops_walk_p.h"
#include "fixturedir.h"
#include "procutil.h"
#include "rawfs.h"

#include <QTest>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>

using namespace Qvfs::FileOps;
using namespace QvfsTest;

namespace
{

constexpr int Depth = 40; // well beyond FolderWalk::MaxOpenLevels

// "l0/l1/.../l<n-1>"
QByteArray chainPath(int n)
{
    QByteArray p;
    for (int i = 0; i < n; ++i) {
        if (i)
            p += '/';
        p += 'l' + QByteArray::number(i);
    }
    return p;
}

} // namespace

class FolderWalkTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void downAndUp_data();
    void downAndUp();

private:
    std::unique_ptr<FixtureDir> m_dir;
};

void FolderWalkTest::init()
{
    m_dir = std::make_unique<FixtureDir>();
    QVERIFY(m_dir->isValid());
    // root/l0/l1/.../l39, and a sibling "s" at every level
    QByteArray p = join(m_dir->path(), "root");
    QVERIFY(mkdirRaw(p));
    for (int i = 0; i < Depth; ++i) {
        QVERIFY(mkdirRaw(join(p, "s")));
        p = join(p, 'l' + QByteArray::number(i));
        QVERIFY(mkdirRaw(p));
    }
}

void FolderWalkTest::cleanup()
{
    m_dir.reset();
}

void FolderWalkTest::downAndUp_data()
{
    QTest::addColumn<QByteArray>("change"); // made while the walk is at the bottom
    QTest::addColumn<int>("lostAt"); // the first level dropped on the way up (-1: none)
    QTest::newRow("nothing") << QByteArray() << -1;
    QTest::newRow("a folder above moved with everything below") << QByteArray("move-subtree") << -1;
    QTest::newRow("a folder above replaced by a symlink") << QByteArray("replace") << 5;
    QTest::newRow("a folder above replaced by another folder") << QByteArray("replace-folder") << 5;
}

void FolderWalkTest::downAndUp()
{
    QFETCH(QByteArray, change);
    QFETCH(int, lostAt);
    const QByteArray root = join(m_dir->path(), "root");
    const int fdsBefore = ProcUtil::openFdCount();
    {
        FolderWalk walk(Fd(::open(root.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), false);
        // Down: at each level, the sibling "s" stays queued and the chain goes on.
        for (int i = 0; i < Depth; ++i) {
            const QByteArray next = 'l' + QByteArray::number(i);
            walk.queue("s", 1);
            walk.queue(next.constData(), size_t(next.size()));
            QByteArray failed;
            QVERIFY2(walk.enterNext(&failed), failed.constData());
            QCOMPARE(walk.depth(), qsizetype(i + 1));
            QCOMPARE(walk.path(), chainPath(i + 1));
            // Never one descriptor per level.
            QVERIFY(ProcUtil::openFdCount() - fdsBefore <= FolderWalk::MaxOpenLevels + 1);
        }
        struct stat bottom;
        QVERIFY(::fstat(walk.fd(), &bottom) == 0);
        QVERIFY(sameFile(bottom, lstatRaw(join(root, chainPath(Depth)))));

        // Level 10 (its descriptor long closed) moves away from its parent, with
        // everything below it: ".." from it no longer leads to level 9.
        const QByteArray ten = join(root, chainPath(10));
        if (!change.isEmpty())
            QVERIFY(::rename(ten.constData(), join(m_dir->path(), "moved").constData()) == 0);
        // And level 5 is replaced: reopening level 9 by name from the root fails there.
        const QByteArray five = join(root, chainPath(5));
        if (change == "replace" || change == "replace-folder") {
            QVERIFY(::rename(five.constData(), join(m_dir->path(), "five").constData()) == 0);
            QVERIFY(change == "replace" ? symlinkRaw(join(m_dir->path(), "five"), five) : mkdirRaw(five));
        }

        // Up: every level again, checked, each with its sibling still queued.
        qsizetype dropped = 0;
        while (walk.depth() > 0) {
            const qsizetype level = walk.depth();
            QByteArray left;
            qsizetype abandoned = 0;
            const bool intact = walk.leave(&left, &abandoned);
            QCOMPARE(left, 'l' + QByteArray::number(level - 1));
            if (!intact) {
                QCOMPARE(level, qsizetype(10)); // leaving level 10 for 9
                QCOMPARE(walk.depth(), qsizetype(lostAt - 1));
                // 10's own sibling, and those of the levels dropped (5..9)
                QCOMPARE(abandoned, qsizetype(1 + 10 - lostAt));
                dropped = abandoned;
            } else {
                QCOMPARE(abandoned, qsizetype(level == Depth ? 0 : 1)); // its "s", never entered here
                QCOMPARE(walk.depth(), level - 1);
            }
            QCOMPARE(walk.path(), chainPath(int(walk.depth())));
            // Where that folder is now: levels from 10 down moved along with 10.
            const int d = int(walk.depth());
            const QByteArray now = !change.isEmpty() && d >= 10
                ? join(m_dir->path(), "moved" + chainPath(d).mid(chainPath(10).size()))
                : join(root, chainPath(d));
            struct stat here;
            QVERIFY(::fstat(walk.fd(), &here) == 0);
            QVERIFY2(sameFile(here, lstatRaw(now)), now.constData());
            QVERIFY(ProcUtil::openFdCount() - fdsBefore <= FolderWalk::MaxOpenLevels + 1);
        }
        QCOMPARE(dropped > 0, lostAt >= 0);
        QCOMPARE(walk.path(), QByteArray());
        QVERIFY(walk.hasQueued()); // the root's "s"
        QVERIFY(walk.enterNext(nullptr));
        QCOMPARE(walk.path(), QByteArray("s"));
    }
    QCOMPARE(ProcUtil::openFdCount(), fdsBefore); // nothing leaked
}

QTEST_GUILESS_MAIN(FolderWalkTest)

#include "folderwalktest.moc"
