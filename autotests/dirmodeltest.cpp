// SPDX-License-Identifier: LGPL-2.1-or-later
// DirModel over real folders through the real file:// worker. Every test runs under
// QAbstractItemModelTester in fatal mode — on the model itself and behind a
// QSortFilterProxyModel — so any inconsistent signal ends the test.

#include "jobfixture.h"
#include "jobrunner.h"
#include "livefolders.h"
#include "raceruns.h"
#include "rawfs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/DirModel>
#include <Qvfs/NaturalCompare>
#include <Qvfs/SimpleJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{
QByteArray num(const char *prefix, int i)
{
    return QByteArray(prefix) + QByteArray::number(i);
}

/*! The model under the testers: bare, and behind a sort/filter proxy. */
struct Tested
{
    DirModel model;
    QAbstractItemModelTester tester { &model, QAbstractItemModelTester::FailureReportingMode::Fatal };
    QSortFilterProxyModel proxy;
    std::unique_ptr<QAbstractItemModelTester> proxyTester;
    int rounds = 0; // rowsInserted + rowsRemoved + layoutChanged + rowsMoved
    Tested()
    {
        proxy.setSourceModel(&model);
        proxy.setDynamicSortFilter(true);
        proxy.sort(DirModel::NameColumn);
        proxyTester.reset(new QAbstractItemModelTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal));
        for (auto sig : { &QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved })
            QObject::connect(&model, sig, [this] { ++rounds; });
        QObject::connect(&model, &QAbstractItemModel::layoutChanged, [this] { ++rounds; });
        QObject::connect(&model, &QAbstractItemModel::rowsMoved, [this] { ++rounds; });
    }
    /*!
     * Shows \a root as a tree and waits until it and the folders \a listed below it are
     * listed (the testers expand every folder, as a view that opened them all).
     */
    bool showTree(const QUrl &root, const QList<QUrl> &listed = {})
    {
        model.setTreeMode(true);
        model.setUrl(root);
        return waitFor([&] {
            return model.isLoaded()
                && std::all_of(listed.cbegin(), listed.cend(), [&](const QUrl &u) { return model.isLoaded(u); });
        });
    }
    QList<QByteArray> names(const QModelIndex &parent = {}) const
    {
        QList<QByteArray> out;
        for (int r = 0; r < model.rowCount(parent); ++r)
            out.append(model.index(r, 0, parent).data(DirModel::NameBytesRole).toByteArray());
        return out;
    }
};

/*! Whether \a names is in the model's order (folders first, then natural by name). */
bool sortedByName(const DirModel &m, const QModelIndex &parent = {})
{
    for (int r = 1; r < m.rowCount(parent); ++r) {
        const Entry a = m.entryForIndex(m.index(r - 1, 0, parent));
        const Entry b = m.entryForIndex(m.index(r, 0, parent));
        if (a.isDir() != b.isDir()) {
            if (!a.isDir())
                return false;
            continue;
        }
        if (naturalCompare(a.name(), b.name()) >= 0)
            return false;
    }
    return true;
}

QSet<QByteArray> toSet(const QList<QByteArray> &l)
{
    return QSet<QByteArray>(l.begin(), l.end());
}

/*!
 * How the rows under \a parent differ from the folder \a dir on disk: names (each once),
 * types, sizes of files and modification times; recursing into every folder row shown
 * expanded (tree mode: fetched, rows or not). Empty when they agree.
 */
QStringList diskDiff(const DirModel &m, const QByteArray &dir, const QModelIndex &parent = {})
{
    QStringList out;
    const QSet<QByteArray> disk = readdirNames(dir);
    QSet<QByteArray> seen;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        const Entry e = m.entryForIndex(i);
        const QByteArray name = e.name().toByteArray();
        const QByteArray p = dir + '/' + name;
        const QString shown = QString::fromUtf8(p);
        if (seen.contains(name))
            out.append(QStringLiteral("twice: %1").arg(shown));
        seen.insert(name);
        if (!disk.contains(name)) {
            out.append(QStringLiteral("not on disk: %1").arg(shown));
            continue;
        }
        const struct stat st = lstatRaw(p);
        if (e.isDir() != S_ISDIR(st.st_mode))
            out.append(QStringLiteral("type differs: %1").arg(shown));
        if (!S_ISDIR(st.st_mode) && e.size() != st.st_size)
            out.append(QStringLiteral("size %1, on disk %2: %3").arg(e.size()).arg(st.st_size).arg(shown));
        if (e.number(MTime, -1) != st.st_mtim.tv_sec || e.number(MTimeNs, 0) != st.st_mtim.tv_nsec)
            out.append(QStringLiteral("mtime %1.%2, on disk %3.%4: %5")
                           .arg(e.number(MTime, -1))
                           .arg(e.number(MTimeNs, 0))
                           .arg(st.st_mtim.tv_sec)
                           .arg(st.st_mtim.tv_nsec)
                           .arg(shown));
        if (S_ISDIR(st.st_mode) && e.isDir() && m.treeMode() && !m.canFetchMore(i))
            out.append(diskDiff(m, p, i)); // expanded: its rows must be true too
    }
    for (const QByteArray &name : disk - seen)
        out.append(QStringLiteral("not shown: %1").arg(QString::fromUtf8(dir + '/' + name)));
    return out;
}

/*! Waits until the model agrees with \a dir (diskDiff() empty); the differences on timeout. */
QString waitTrue(const DirModel &m, const QByteArray &dir, int timeoutMs = 10000)
{
    QStringList diff;
    waitFor(
        [&] {
            diff = diskDiff(m, dir);
            return diff.isEmpty();
        },
        timeoutMs);
    return diff.join(QLatin1Char('\n'));
}
} // namespace

/*! Fails the test unless the model \a model comes to show the folder \a dir as it is (waitTrue()). */
#define QVERIFY_SHOWS_DISK(model, dir)                                                                                 \
    do {                                                                                                               \
        const QString shownWrong = waitTrue(model, dir);                                                               \
        QVERIFY2(shownWrong.isEmpty(), qPrintable(shownWrong));                                                        \
    } while (false)

class DirModelTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void naturalOrder_data();
    void naturalOrder();
    void loadsSortedAndFollows();
    void sortColumns();
    void burst();
    void raceWithListing();
    void renameKeepsPersistentIndex();
    void treeMode();
    void treeManyFolders();
    void deletedAndRenamedRoot();
    void oddNames();
    void noIoForUnlistedFolders();
    void mimeTypesLater();
    void renameOverExisting();
    void renameExpandedFolder();
    void folderReplaced();
    void folderTimesFollow();
    void reloadWithoutKeep();
    void typeShownIsTypeSorted();
    void sizeSortsFoldersByName();
    void deleteExpandedFolderOnce();
    void dragAndDrop();
    void childCounts();
    void expandToUrl();
};

void DirModelTest::naturalOrder_data()
{
    QTest::addColumn<QByteArray>("a");
    QTest::addColumn<QByteArray>("b");
    QTest::newRow("digits by value") << QByteArray("file9") << QByteArray("file10");
    QTest::newRow("long numbers") << QByteArray("x99999999999999999999") << QByteArray("x100000000000000000000");
    QTest::newRow("case folded") << QByteArray("apple") << QByteArray("Banana");
    QTest::newRow("case tie") << QByteArray("A") << QByteArray("a");
    QTest::newRow("zeros tie") << QByteArray("a1") << QByteArray("a01");
    QTest::newRow("zeros before case") << QByteArray("B01") << QByteArray("b001");
    QTest::newRow("prefix") << QByteArray("a") << QByteArray("a0");
    QTest::newRow("bytes above 127") << QByteArray("z") << QByteArray("\xc3\xa9");
    QTest::newRow("not utf-8") << QByteArray("caf\xe9") << QByteArray("caf\xff");
    QTest::newRow("numbers inside") << QByteArray("v1.2.9") << QByteArray("v1.10.0");
}

void DirModelTest::naturalOrder()
{
    QFETCH(QByteArray, a);
    QFETCH(QByteArray, b);
    QVERIFY(naturalCompare(a, b) < 0);
    QVERIFY(naturalCompare(b, a) > 0);
    QCOMPARE(naturalCompare(a, a), 0);
}

void DirModelTest::loadsSortedAndFollows()
{
    QVERIFY(mkdirRaw(path("d")));
    for (int i = 0; i < 3000; ++i)
        QVERIFY(writeRaw(path(num("d/file", i)), QByteArray(i % 7, 'x')));
    QVERIFY(mkdirRaw(path("d/zfolder")));
    Tested t;
    t.model.setUrl(url("d"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    QCOMPARE(t.model.rowCount(), 3001);
    QVERIFY(sortedByName(t.model));
    QCOMPARE(t.names().first(), QByteArray("zfolder")); // folders first
    QCOMPARE(t.names().at(1), QByteArray("file0"));
    QCOMPARE(t.names().at(11), QByteArray("file10")); // natural: file9 before file10
    QCOMPARE(toSet(t.names()), readdirNames(path("d")));
    QCOMPARE(t.proxy.rowCount(), 3001);

    // created, deleted, written: each in its place
    QVERIFY(writeRaw(path("d/file1500a"), "abc"));
    QCOMPARE(::unlink(path("d/file7").constData()), 0);
    QVERIFY(waitFor([&] { return toSet(t.names()) == readdirNames(path("d")); }));
    QVERIFY(sortedByName(t.model));
    QVERIFY(writeRaw(path("d/file3"), "0123456789"));
    QVERIFY(waitFor([&] {
        const QModelIndex i = t.model.indexForUrl(url("d/file3"));
        return i.isValid() && i.data(DirModel::SizeRole).toLongLong() == 10;
    }));
    QCOMPARE(t.proxy.rowCount(), 3001);
}

void DirModelTest::sortColumns()
{
    QVERIFY(mkdirRaw(path("s")));
    QVERIFY(mkdirRaw(path("s/dir")));
    QVERIFY(writeRaw(path("s/b.txt"), "bb"));
    QVERIFY(writeRaw(path("s/a.png"), "aaaa"));
    QVERIFY(writeRaw(path("s/c.txt"), "c"));
    QVERIFY(setTimes(path("s/b.txt"), 1000, 0));
    QVERIFY(setTimes(path("s/a.png"), 3000, 0));
    QVERIFY(setTimes(path("s/c.txt"), 2000, 0));
    Tested t;
    t.model.setUrl(url("s"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    QCOMPARE(t.names(), (QList<QByteArray> { "dir", "a.png", "b.txt", "c.txt" }));
    t.model.sort(DirModel::SizeColumn);
    QCOMPARE(t.names(), (QList<QByteArray> { "dir", "c.txt", "b.txt", "a.png" }));
    t.model.sort(DirModel::SizeColumn, Qt::DescendingOrder);
    QCOMPARE(t.names(), (QList<QByteArray> { "dir", "a.png", "b.txt", "c.txt" }));
    t.model.sort(DirModel::ModifiedColumn);
    QCOMPARE(t.names(), (QList<QByteArray> { "dir", "b.txt", "c.txt", "a.png" }));
    t.model.setFoldersFirst(false);
    t.model.sort(DirModel::NameColumn, Qt::DescendingOrder);
    QCOMPARE(t.names(), (QList<QByteArray> { "dir", "c.txt", "b.txt", "a.png" }));
    t.model.sort(DirModel::TypeColumn);
    QCOMPARE(t.names().first(), QByteArray("dir")); // "folder" sorts before "PNG image"
    // A change that moves a row: by size, c.txt grows past a.png.
    t.model.setFoldersFirst(true);
    t.model.sort(DirModel::SizeColumn);
    QVERIFY(writeRaw(path("s/c.txt"), "ccccccc"));
    QVERIFY(waitFor([&] { return t.names() == QList<QByteArray> { "dir", "b.txt", "a.png", "c.txt" }; }));
}

void DirModelTest::burst()
{
    QVERIFY(mkdirRaw(path("b")));
    Tested t;
    t.model.setUrl(url("b"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    t.rounds = 0;
    for (int i = 0; i < 1000; ++i)
        QVERIFY(writeRaw(path(num("b/burst", i)), {}));
    QVERIFY(waitFor([&] { return t.model.rowCount() == 1000; }));
    QVERIFY(sortedByName(t.model));
    // Rounds are a benchmark figure (tests/dirmodel_benchmark); here: coalesced at all.
    QVERIFY2(t.rounds < 100, qPrintable(QString::number(t.rounds)));
}

void DirModelTest::raceWithListing()
{
    const QByteArray base = m_fx.makeShm();
    QVERIFY(!base.isEmpty());
    const int runs = raceRuns(3);
    for (int run = 0; run < runs; ++run) {
        const QByteArray dir = base + "/r" + QByteArray::number(run);
        QVERIFY(mkdirRaw(dir));
        for (int i = 0; i < 5000; ++i)
            QVERIFY(writeRaw(QByteArray(dir + "/pre" + QByteArray::number(i)), {}));
        Tested t;
        Churner churn(dir, 10000, 3000);
        churn.start();
        t.model.setUrl(fileUrl(dir));
        churn.join();
        // (Generous limits: the testers walk every row at every signal, slowly in sanitizer builds.)
        QVERIFY(waitFor([&] { return t.model.isLoaded(); }, 300000));
        QVERIFY(waitFor([&] { return t.model.rowCount() == 12000; }, 300000));
        QTest::qWait(300);
        const QList<QByteArray> names = t.names();
        QCOMPARE(names.size(), 12000);
        QCOMPARE(toSet(names), readdirNames(dir)); // and no name twice (sizes equal)
        QVERIFY(sortedByName(t.model));
        QCOMPARE(t.proxy.rowCount(), 12000);
        t.model.setUrl(QUrl());
        removeTreeRaw(dir);
    }
}

void DirModelTest::renameKeepsPersistentIndex()
{
    QVERIFY(mkdirRaw(path("p")));
    for (const char *n : { "alpha", "beta", "gamma", "delta" })
        QVERIFY(writeRaw(QByteArray(path("p/") + n), n));
    Tested t;
    t.model.setUrl(url("p"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    const QPersistentModelIndex selected(t.model.indexForUrl(url("p/beta")));
    QVERIFY(selected.isValid());
    // A rename through the model (a job), which moves the row past the others.
    QVERIFY(t.model.setData(selected, QStringLiteral("zeta")));
    QVERIFY(waitFor([&] { return t.names().contains("zeta"); }));
    QVERIFY(selected.isValid());
    QCOMPARE(selected.data(DirModel::NameBytesRole).toByteArray(), QByteArray("zeta"));
    QCOMPARE(selected.row(), 3);
    QCOMPARE(t.names(), (QList<QByteArray> { "alpha", "delta", "gamma", "zeta" }));
    // ...and from outside, renamed back.
    QCOMPARE(::rename(path("p/zeta").constData(), path("p/aaa").constData()), 0);
    QVERIFY(waitFor([&] { return t.names().contains("aaa"); }));
    QVERIFY(selected.isValid());
    QCOMPARE(selected.row(), 0);
}

void DirModelTest::treeMode()
{
    QVERIFY(mkdirRaw(path("t")));
    QVERIFY(mkdirRaw(path("t/sub")));
    QVERIFY(mkdirRaw(path("t/sub/deeper")));
    QVERIFY(writeRaw(path("t/sub/inner.txt"), "i"));
    QVERIFY(writeRaw(path("t/top.txt"), "t"));
    Tested t;
    QVERIFY(t.showTree(url("t")));
    const QModelIndex sub = t.model.indexForUrl(url("t/sub"));
    QVERIFY(sub.isValid());
    QVERIFY(t.model.hasChildren(sub));
    // (The testers walk the whole tree, fetching every folder as a view would.)
    if (t.model.canFetchMore(sub))
        t.model.fetchMore(sub);
    QVERIFY(waitFor([&] { return t.model.isLoaded(url("t/sub")); }));
    QCOMPARE(t.names(sub), (QList<QByteArray> { "deeper", "inner.txt" }));
    const QModelIndex inner = t.model.index(1, 0, sub);
    QCOMPARE(t.model.parent(inner), sub);
    QCOMPARE(t.model.indexForUrl(url("t/sub/inner.txt")), inner);
    const QPersistentModelIndex keep(inner);
    // Changes below follow; the expanded folder deleted takes its rows with it.
    QVERIFY(writeRaw(path("t/sub/more.txt"), "m"));
    QVERIFY(waitFor([&] { return t.model.rowCount(sub) == 3; }));
    // Closed: its rows go, and nobody lists or watches it any more.
    t.model.closeFolder(sub);
    QCOMPARE(t.model.rowCount(sub), 0);
    QVERIFY(!t.model.dirLister()->isOpen(url("t/sub")));
    QVERIFY(!keep.isValid());
    t.model.fetchMore(sub);
    QVERIFY(waitFor([&] { return t.model.rowCount(sub) == 3; }));
    const QPersistentModelIndex keep2(t.model.index(1, 0, sub));
    removeTreeRaw(path("t/sub"));
    QVERIFY(waitFor([&] { return t.model.rowCount() == 1; }));
    QVERIFY(!keep2.isValid());
    QCOMPARE(t.names(), (QList<QByteArray> { "top.txt" }));
}

void DirModelTest::treeManyFolders()
{
    // 200 folders expanded and closed: the watcher's inotify watches back to where they were.
    QVERIFY(mkdirRaw(path("many")));
    for (int i = 0; i < 200; ++i) {
        QVERIFY(mkdirRaw(path(num("many/f", i))));
        QVERIFY(writeRaw(path(QByteArray(num("many/f", i) + "/x")), {}));
    }
    QVERIFY(watcherPid() == 0); // baseline: no watcher, no watch
    Tested t;
    QVERIFY(t.showTree(url("many")));
    for (int r = 0; r < 200; ++r) {
        if (t.model.canFetchMore(t.model.index(r, 0)))
            t.model.fetchMore(t.model.index(r, 0));
    }
    QVERIFY(waitFor([&] {
        for (int r = 0; r < 200; ++r) {
            if (t.model.rowCount(t.model.index(r, 0)) != 1)
                return false;
        }
        return true;
    }));
    const qint64 pid = watcherPid();
    QVERIFY(pid > 0);
    QCOMPARE(inotifyWatchCount(pid), 201); // one process, one inotify instance
    // Elsewhere (the testers expand whatever can be: closing folder by folder would be
    // undone by them; closeFolder() is in treeMode()).
    t.model.setUrl(url("many/f7"));
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 1; }));
    t.model.setUrl(QUrl());
    QVERIFY(waitFor([&] { return inotifyWatchCount(pid) == 0; }));
}

void DirModelTest::deletedAndRenamedRoot()
{
    QVERIFY(mkdirRaw(path("r")));
    QVERIFY(writeRaw(path("r/a"), "a"));
    Tested t;
    QSignalSpy urlChanged(&t.model, &DirModel::urlChanged);
    QSignalSpy gone(&t.model, &DirModel::folderGone);
    t.model.setUrl(url("r"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    QCOMPARE(::rename(path("r").constData(), path("r2").constData()), 0);
    QVERIFY(waitFor([&] { return urlChanged.size() == 1; }));
    QCOMPARE(t.model.url(), Url::normalized(url("r2")));
    QVERIFY(writeRaw(path("r2/b"), "b"));
    QVERIFY(waitFor([&] { return t.model.rowCount() == 2; }));
    removeTreeRaw(path("r2"));
    QVERIFY(waitFor([&] { return gone.size() == 1; }));
    QCOMPARE(t.model.rowCount(), 0);
    QTest::qWait(200);
    QCOMPARE(gone.size(), 1);
}

void DirModelTest::oddNames()
{
    QVERIFY(mkdirRaw(path("o")));
    const QByteArray latin1("\xe9t\xe9"), newline("line\nbreak");
    QVERIFY(writeRaw(QByteArray(path("o/") + latin1), "1"));
    QVERIFY(writeRaw(QByteArray(path("o/") + newline), "2"));
    Tested t;
    t.model.setUrl(url("o"));
    QVERIFY(waitFor([&] { return t.model.isLoaded() && t.model.rowCount() == 2; }));
    QCOMPARE(toSet(t.names()), (QSet<QByteArray> { latin1, newline }));
    const QModelIndex i = t.model.indexForUrl(Url::child(url("o"), latin1));
    QVERIFY(i.isValid());
    QCOMPARE(i.data(DirModel::EntryRole).value<Entry>().name(), QByteArrayView(latin1));
    QCOMPARE(i.data(DirModel::UrlRole).toUrl(), Url::child(url("o"), latin1));
    QCOMPARE(
        ::rename(QByteArray(path("o/") + latin1).constData(), QByteArray(path("o/") + latin1 + '\n').constData()), 0);
    QVERIFY(waitFor([&] { return t.names().contains(latin1 + '\n'); }));
    QCOMPARE(toSet(t.names()), readdirNames(path("o")));
}

void DirModelTest::noIoForUnlistedFolders()
{
    // hasChildren() and rowCount() of a folder nobody opened answer from what is known:
    // the folder is not opened (no listing, no watch) until fetchMore().
    // (Without the testers here: they call fetchMore() on every folder, which is the
    // one thing this test must see not happen by itself.)
    QVERIFY(mkdirRaw(path("n")));
    QVERIFY(mkdirRaw(path("n/empty")));
    DirModel model;
    model.setTreeMode(true);
    model.setUrl(url("n"));
    QVERIFY(waitFor([&] { return model.isLoaded(); }));
    const QModelIndex e = model.index(0, 0);
    QVERIFY(model.hasChildren(e));
    QCOMPARE(model.rowCount(e), 0);
    (void)e.data(DirModel::MimeTypeRole);
    (void)e.data(Qt::DisplayRole);
    QVERIFY(!model.dirLister()->isOpen(url("n/empty")));
    QCOMPARE(inotifyWatchCount(watcherPid()), 1);
    QVERIFY(model.canFetchMore(e));
    model.fetchMore(e);
    QVERIFY(waitFor([&] { return model.isLoaded(url("n/empty")); }));
    QVERIFY(!model.hasChildren(e)); // now known to be empty
}

void DirModelTest::mimeTypesLater()
{
    // By the name at once; a name that says nothing is looked into by the worker, for
    // the rows asked about only, and the row changes when it is known.
    QVERIFY(mkdirRaw(path("m")));
    QVERIFY(writeRaw(path("m/photo.png"), "not really"));
    QVERIFY(writeRaw(path("m/noext"), QByteArray::fromHex("89504e470d0a1a0a0000000d49484452")));
    QVERIFY(writeRaw(path("m/other"), QByteArray::fromHex("89504e470d0a1a0a0000000d49484452")));
    Tested t;
    t.model.setUrl(url("m"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    const QModelIndex png = t.model.indexForUrl(url("m/photo.png"));
    QCOMPARE(png.data(DirModel::MimeTypeRole).toString(), QStringLiteral("image/png"));
    const QModelIndex noext = t.model.indexForUrl(url("m/noext"));
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    QCOMPARE(noext.data(DirModel::MimeTypeRole).toString(), QStringLiteral("application/octet-stream"));
    QVERIFY(waitFor([&] { return noext.data(DirModel::MimeTypeRole).toString() == QLatin1String("image/png"); }));
    QVERIFY(!changed.isEmpty());
    // "other" was not asked about (the testers look at the first row only): not looked
    // into yet; asked now, it is.
    const QModelIndex other = t.model.indexForUrl(url("m/other"));
    QCOMPARE(other.data(DirModel::IconNameRole).toString(), QStringLiteral("application-octet-stream"));
    QVERIFY(waitFor([&] { return other.data(DirModel::IconNameRole).toString() == QLatin1String("image-png"); }));
}

void DirModelTest::renameOverExisting()
{
    // echo 1 >a; echo 22 >b; mv a b: one row b, with the size and fields of the old a.
    QVERIFY(mkdirRaw(path("ro")));
    QVERIFY(writeRaw(path("ro/c"), "333\n"));
    Tested t;
    t.model.setUrl(url("ro"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    for (int run = 0; run < 5; ++run) {
        QVERIFY(writeRaw(path("ro/a"), "1\n"));
        QVERIFY(writeRaw(path("ro/b"), "22\n"));
        QVERIFY(setTimes(path("ro/a"), 1000 + run, 0)); // the two differ in every field shown
        QVERIFY(waitFor([&] { return t.model.rowCount() == 3; }));
        const QString before = waitTrue(t.model, path("ro"));
        QVERIFY2(before.isEmpty(), qPrintable(before));
        QCOMPARE(::rename(path("ro/a").constData(), path("ro/b").constData()), 0);
        const QString diff = waitTrue(t.model, path("ro"));
        QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("run %1:\n%2").arg(run).arg(diff)));
        QCOMPARE(t.model.indexForUrl(url("ro/b")).data(DirModel::SizeRole).toLongLong(), 2);
        QCOMPARE(::unlink(path("ro/b").constData()), 0);
        QVERIFY(waitFor([&] { return t.model.rowCount() == 1; }));
    }
}

void DirModelTest::renameExpandedFolder()
{
    // mv Outer Outer-renamed with Outer/Inner/Deep expanded: the folders below follow it,
    // still listed and watched where they are now.
    QVERIFY(mkdirRaw(path("x")));
    QVERIFY(mkdirRaw(path("x/Outer")));
    QVERIFY(mkdirRaw(path("x/Outer/Inner")));
    QVERIFY(mkdirRaw(path("x/Outer/Inner/Deep")));
    QVERIFY(writeRaw(path("x/Outer/Inner/Deep/file"), "f"));
    QVERIFY(writeRaw(path("x/Outer/Inner/i"), "i"));
    Tested t;
    QVERIFY(t.showTree(url("x"), { url("x/Outer/Inner/Deep") }));
    QVERIFY_SHOWS_DISK(t.model, path("x"));
    const QPersistentModelIndex deep(t.model.indexForUrl(url("x/Outer/Inner/Deep")));
    QVERIFY(deep.isValid());
    QCOMPARE(::rename(path("x/Outer").constData(), path("x/Outer-renamed").constData()), 0);
    QVERIFY(waitFor([&] { return t.names() == QList<QByteArray> { "Outer-renamed" }; }));
    QVERIFY(mkdirRaw(path("x/Outer-renamed/Inner/Deep/new")));
    QVERIFY(writeRaw(path("x/Outer-renamed/Inner/more"), "m"));
    QVERIFY_SHOWS_DISK(t.model, path("x"));
    QVERIFY(deep.isValid());
    QCOMPARE(t.model.indexForUrl(url("x/Outer-renamed/Inner/Deep")), QModelIndex(deep));
    QVERIFY(t.model.dirLister()->isOpen(url("x/Outer-renamed/Inner/Deep")));
    QVERIFY(!t.model.dirLister()->isOpen(url("x/Outer/Inner")));
    QCOMPARE(t.model.urlForIndex(deep), Url::normalized(url("x/Outer-renamed/Inner/Deep")));
    // And it goes on living there.
    QVERIFY(writeRaw(path("x/Outer-renamed/Inner/Deep/later"), "l"));
    QVERIFY_SHOWS_DISK(t.model, path("x"));
}

void DirModelTest::folderReplaced()
{
    // An expanded folder deleted and made again at once, folder -> file -> folder, and
    // folder -> file: what is there now shows, and the folder can be expanded again.
    QVERIFY(mkdirRaw(path("rp")));
    QVERIFY(mkdirRaw(path("rp/out")));
    QVERIFY(writeRaw(path("rp/out/old"), "o"));
    QVERIFY(writeRaw(path("rp/keep"), "k"));
    Tested t;
    QVERIFY(t.showTree(url("rp"), { url("rp/out") }));
    QVERIFY_SHOWS_DISK(t.model, path("rp"));

    // rm -rf out && mkdir out && touch out/x
    removeTreeRaw(path("rp/out"));
    QVERIFY(mkdirRaw(path("rp/out")));
    QVERIFY(writeRaw(path("rp/out/x"), "x"));
    QVERIFY_SHOWS_DISK(t.model, path("rp"));
    QCOMPARE(t.names(t.model.indexForUrl(url("rp/out"))), QList<QByteArray> { "x" });

    // folder -> file -> folder
    removeTreeRaw(path("rp/out"));
    QVERIFY(writeRaw(path("rp/out"), "a file for a moment"));
    QCOMPARE(::unlink(path("rp/out").constData()), 0);
    QVERIFY(mkdirRaw(path("rp/out")));
    QVERIFY(writeRaw(path("rp/out/y"), "y"));
    QVERIFY_SHOWS_DISK(t.model, path("rp"));
    QCOMPARE(t.names(t.model.indexForUrl(url("rp/out"))), QList<QByteArray> { "y" });

    // folder -> file: no rows below it, nothing to expand
    removeTreeRaw(path("rp/out"));
    QVERIFY(writeRaw(path("rp/out"), "a file now"));
    QVERIFY_SHOWS_DISK(t.model, path("rp"));
    const QModelIndex out = t.model.indexForUrl(url("rp/out"));
    QVERIFY(!t.model.hasChildren(out));
    QCOMPARE(t.model.rowCount(out), 0);
    QVERIFY(!t.model.dirLister()->isOpen(url("rp/out")));

    // ...and back
    QCOMPARE(::unlink(path("rp/out").constData()), 0);
    QVERIFY(mkdirRaw(path("rp/out")));
    QVERIFY(writeRaw(path("rp/out/z"), "z"));
    QVERIFY_SHOWS_DISK(t.model, path("rp"));
    QCOMPARE(t.names(t.model.indexForUrl(url("rp/out"))), QList<QByteArray> { "z" });
}

void DirModelTest::folderTimesFollow()
{
    // A folder's modification time changes when entries appear in it; inotify tells the
    // folder above nothing of it (KIO bug 440712).
    QVERIFY(mkdirRaw(path("mt")));
    QVERIFY(mkdirRaw(path("mt/sub")));
    QVERIFY(mkdirRaw(path("mt/other")));
    QVERIFY(writeRaw(path("src"), "copied"));
    QVERIFY(setTimes(path("mt/sub"), 1000, 0));
    QVERIFY(setTimes(path("mt/other"), 1000, 0));
    {
        // An expanded folder, changed by another program.
        Tested t;
        QVERIFY(t.showTree(url("mt"), { url("mt/sub"), url("mt/other") }));
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
        QVERIFY(writeRaw(path("mt/sub/new"), "n"));
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
        QCOMPARE(::unlink(path("mt/sub/new").constData()), 0);
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
    }
    QVERIFY(setTimes(path("mt/sub"), 1000, 0));
    {
        // Folders shown as rows only (a list), changed by this application's own jobs.
        Tested t;
        t.model.setUrl(url("mt"));
        QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
        auto copy = run(Qvfs::copy({ url("src") }, url("mt/other")));
        QCOMPARE(copy->error(), 0);
        QVERIFY(existsRaw(path("mt/other/src")));
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
        auto mk = run(Qvfs::mkdir(url("mt/sub/made")));
        QCOMPARE(mk->error(), 0);
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
        auto del = run(Qvfs::del({ url("mt/other/src") }));
        QCOMPARE(del->error(), 0);
        QVERIFY_SHOWS_DISK(t.model, path("mt"));
    }
}

void DirModelTest::reloadWithoutKeep()
{
    // open(url, Reload) without Keep closes the other folders of the lister: the rows
    // they showed go with them (the folders can be expanded again), none stays stale.
    QVERIFY(mkdirRaw(path("rl")));
    QVERIFY(mkdirRaw(path("rl/sub")));
    QVERIFY(writeRaw(path("rl/sub/a"), "a"));
    Tested t;
    QVERIFY(t.showTree(url("rl"), { url("rl/sub") }));
    QVERIFY(t.model.dirLister()->open(url("rl"), DirLister::Reload));
    QVERIFY(writeRaw(path("rl/sub/new"), "n"));
    QVERIFY(writeRaw(path("rl/top"), "t"));
    QVERIFY_SHOWS_DISK(t.model, path("rl"));
    // (The testers expanded rl/sub again, as a view would.)
    QVERIFY(waitFor([&] { return t.model.isLoaded(url("rl/sub")); }));
    QCOMPARE(t.names(t.model.indexForUrl(url("rl/sub"))), (QList<QByteArray> { "a", "new" }));
    QVERIFY(t.model.isLoaded());
}

void DirModelTest::typeShownIsTypeSorted()
{
    // One rule for an entry's MIME type: the Type column, its sort key and what content
    // sniffing found agree; sniffing again when the content changed and when the folder
    // is shown again.
    QVERIFY(mkdirRaw(path("ty")));
    QVERIFY(mkdirRaw(path("other")));
    const QByteArray png = QByteArray::fromHex("89504e470d0a1a0a0000000d49484452");
    QVERIFY(writeRaw(path("ty/a-noext"), png));
    QVERIFY(writeRaw(path("ty/b.txt"), "text"));
    QVERIFY(writeRaw(path("ty/c.zip"), "PK\x03\x04"));
    QVERIFY(symlinkRaw("b.txt", path("ty/d-link")));
    QVERIFY(writeRaw(path("ty/e.png"), png));
    QVERIFY(mkdirRaw(path("ty/f-dir")));
    Tested t;
    t.model.setUrl(url("ty"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    t.model.sort(DirModel::TypeColumn);
    const auto typeText = [&](const QByteArray &name) {
        return t.model.indexForUrl(url(QByteArray(QByteArray("ty/") + name)))
            .siblingAtColumn(DirModel::TypeColumn)
            .data()
            .toString();
    };
    const auto agrees = [&] {
        // what each row shows, read as a view does (which asks for sniffing)
        QStringList shown;
        for (int r = 0; r < t.model.rowCount(); ++r)
            shown.append(t.model.index(r, DirModel::TypeColumn).data().toString());
        for (int r = 1; r < shown.size(); ++r) {
            const bool dirA = t.model.index(r - 1, 0).data(DirModel::IsDirRole).toBool();
            const bool dirB = t.model.index(r, 0).data(DirModel::IsDirRole).toBool();
            if (dirA == dirB && shown.at(r - 1).compare(shown.at(r), Qt::CaseInsensitive) > 0)
                return false;
        }
        return true;
    };
    (void)typeText("a-noext"); // asked: its worker looks inside
    QVERIFY(waitFor([&] {
        return t.model.indexForUrl(url("ty/a-noext")).data(DirModel::MimeTypeRole).toString()
            == QLatin1String("image/png");
    }));
    QVERIFY(waitFor(agrees, 3000));
    QCOMPARE(typeText("a-noext"), typeText("e.png"));
    // The content changes: looked at again.
    QVERIFY(writeRaw(path("ty/a-noext"), "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"));
    QVERIFY(waitFor(
        [&] {
            (void)typeText("a-noext");
            return t.model.indexForUrl(url("ty/a-noext")).data(DirModel::MimeTypeRole).toString()
                == QLatin1String("application/pdf");
        },
        5000));
    QVERIFY(waitFor(agrees, 3000));
    // Shown again after another folder: looked at again, not "unknown".
    t.model.setUrl(url("other"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    t.model.setUrl(url("ty"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    QVERIFY(waitFor(
        [&] {
            (void)typeText("a-noext");
            return t.model.indexForUrl(url("ty/a-noext")).data(DirModel::MimeTypeRole).toString()
                == QLatin1String("application/pdf");
        },
        5000));
    QVERIFY(waitFor(agrees, 3000));
}

void DirModelTest::sizeSortsFoldersByName()
{
    // By size, folders go by name: their own size (of the folder's inode) is not shown.
    QVERIFY(mkdirRaw(path("sz")));
    QVERIFY(mkdirRaw(path("sz/a-big")));
    QVERIFY(mkdirRaw(path("sz/b-small")));
    QVERIFY(mkdirRaw(path("sz/c-mid")));
    for (int i = 0; i < 300; ++i)
        QVERIFY(writeRaw(path(num("sz/a-big/a-file-with-a-long-name-", i)), {}));
    for (int i = 0; i < 100; ++i)
        QVERIFY(writeRaw(path(num("sz/c-mid/c-file-with-a-long-name-", i)), {}));
    QVERIFY(writeRaw(path("sz/x.txt"), "xx"));
    QVERIFY(writeRaw(path("sz/y.txt"), "y"));
    QVERIFY(lstatRaw(path("sz/a-big")).st_size > lstatRaw(path("sz/b-small")).st_size); // (or this proves nothing)
    Tested t;
    t.model.setUrl(url("sz"));
    QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
    t.model.sort(DirModel::SizeColumn);
    QCOMPARE(t.names(), (QList<QByteArray> { "a-big", "b-small", "c-mid", "y.txt", "x.txt" }));
    t.model.sort(DirModel::SizeColumn, Qt::DescendingOrder);
    QCOMPARE(t.names(), (QList<QByteArray> { "c-mid", "b-small", "a-big", "x.txt", "y.txt" }));
    QVERIFY(t.model.index(0, DirModel::SizeColumn).data().toString().isEmpty()); // shown: nothing
}

void DirModelTest::deleteExpandedFolderOnce()
{
    // rm -rf of an expanded folder: one rowsRemoved, for its row (its rows go with it).
    for (int run = 0; run < 10; ++run) {
        const QByteArray dir = num("del", run);
        QVERIFY(mkdirRaw(path(dir)));
        QVERIFY(mkdirRaw(path(QByteArray(dir + "/sub"))));
        QVERIFY(mkdirRaw(path(QByteArray(dir + "/sub/inner"))));
        QVERIFY(writeRaw(path(QByteArray(dir + "/sub/f1")), "1"));
        QVERIFY(writeRaw(path(QByteArray(dir + "/sub/inner/f2")), "2"));
        QVERIFY(writeRaw(path(QByteArray(dir + "/keep")), "k"));
        Tested t;
        QVERIFY(t.showTree(url(dir), { url(QByteArray(dir + "/sub/inner")) }));
        QVERIFY_SHOWS_DISK(t.model, path(dir));
        QTest::qWait(100);
        QStringList removals;
        connect(&t.model, &QAbstractItemModel::rowsRemoved, this, [&](const QModelIndex &parent, int first, int last) {
            removals.append(
                QStringLiteral("%1: %2-%3").arg(t.model.urlForIndex(parent).toString()).arg(first).arg(last));
        });
        removeTreeRaw(path(QByteArray(dir + "/sub")));
        QVERIFY(waitFor([&] { return t.names() == QList<QByteArray> { "keep" }; }));
        QTest::qWait(200);
        QVERIFY2(removals.size() == 1,
            qPrintable(QStringLiteral("run %1: %2").arg(run).arg(removals.join(QStringLiteral(", ")))));
        QVERIFY_SHOWS_DISK(t.model, path(dir));
    }
}

void DirModelTest::dragAndDrop()
{
    // Rows out as URLs (names that are not UTF-8 byte-exact), a drop in as a copy or move job.
    QVERIFY(mkdirRaw(path("dd")));
    QVERIFY(mkdirRaw(path("dd/target")));
    const QByteArray odd("caf\xe9\nname");
    QVERIFY(writeRaw(QByteArray(path("dd/") + odd), "odd"));
    QVERIFY(writeRaw(path("dd/plain.txt"), "plain"));
    Tested t;
    QVERIFY(t.showTree(url("dd"), { url("dd/target") }));
    const QModelIndex oddIndex = t.model.indexForUrl(Url::child(url("dd"), odd));
    const QModelIndex plain = t.model.indexForUrl(url("dd/plain.txt"));
    const QModelIndex target = t.model.indexForUrl(url("dd/target"));
    QVERIFY(oddIndex.isValid() && plain.isValid() && target.isValid());
    QVERIFY(t.model.flags(plain) & Qt::ItemIsDragEnabled);
    QVERIFY(!(t.model.flags(plain) & Qt::ItemIsDropEnabled));
    QVERIFY(t.model.flags(target) & Qt::ItemIsDropEnabled);
    QVERIFY(t.model.flags(QModelIndex()) & Qt::ItemIsDropEnabled);

    std::unique_ptr<QMimeData> data(
        t.model.mimeData({ oddIndex, oddIndex.siblingAtColumn(DirModel::SizeColumn), plain }));
    QVERIFY(data);
    QVERIFY(data->hasFormat(QStringLiteral("text/uri-list")));
    QVERIFY(data->hasFormat(QStringLiteral("application/x-qvfs-urls")));
    const QList<QUrl> urls = DirModel::urlsFromMimeData(data.get());
    QCOMPARE(urls.size(), 2); // one per row, whatever the columns
    QCOMPARE(Url::fileName(urls.at(0)), odd);
    QCOMPARE(Url::localPath(urls.at(0)), QByteArray(path("dd/") + odd));
    QCOMPARE(data->urls(), urls); // the same in the common format

    // Where a drop may go: onto a folder, between rows (the folder shown); not onto a
    // file, not a folder into itself, not a move to where it is.
    QVERIFY(t.model.canDropMimeData(data.get(), Qt::CopyAction, -1, -1, target));
    QVERIFY(!t.model.canDropMimeData(data.get(), Qt::CopyAction, -1, -1, plain));
    QVERIFY(!t.model.canDropMimeData(data.get(), Qt::MoveAction, 0, 0, QModelIndex()));
    QVERIFY(!t.model.canDropMimeData(data.get(), Qt::LinkAction, -1, -1, target));
    std::unique_ptr<QMimeData> self(t.model.mimeData({ target }));
    QVERIFY(!t.model.canDropMimeData(self.get(), Qt::MoveAction, -1, -1, target));

    // A copy onto the folder row, then a move of the copy back between the rows.
    QSignalSpy jobs(&t.model, &DirModel::jobStarted);
    QVERIFY(t.model.dropMimeData(data.get(), Qt::CopyAction, -1, -1, target));
    QCOMPARE(jobs.size(), 1);
    QVERIFY(waitFor([&] { return readdirNames(path("dd/target")) == QSet<QByteArray> { odd, "plain.txt" }; }));
    QCOMPARE(readRaw(QByteArray(path("dd/target/") + odd)), QByteArray("odd"));
    QVERIFY_SHOWS_DISK(t.model, path("dd"));
    QVERIFY(::unlink(QByteArray(path("dd/") + odd).constData()) == 0);
    QMimeData back;
    DirModel::setUrlsOnMimeData(&back, { Url::child(url("dd/target"), odd) });
    QVERIFY(t.model.canDropMimeData(&back, Qt::MoveAction, 0, 0, QModelIndex()));
    QVERIFY(t.model.dropMimeData(&back, Qt::MoveAction, 0, 0, QModelIndex()));
    QCOMPARE(jobs.size(), 2);
    QVERIFY(waitFor([&] { return readdirNames(path("dd/target")) == QSet<QByteArray> { "plain.txt" }; }));
    QVERIFY(existsRaw(QByteArray(path("dd/") + odd)));
    QVERIFY_SHOWS_DISK(t.model, path("dd"));

    // A clipboard of URLs read back, and text/uri-list alone (from another program).
    QMimeData other;
    other.setUrls({ Url::child(url("dd"), odd) });
    QCOMPARE(DirModel::urlsFromMimeData(&other), QList<QUrl> { Url::child(url("dd"), odd) });
}

void DirModelTest::childCounts()
{
    // A folder row's entries: known for an expanded folder, counted later for a local one
    // (as the lister's filters pass them), counted again when it changed.
    QVERIFY(mkdirRaw(path("cc")));
    QVERIFY(mkdirRaw(path("cc/three")));
    QVERIFY(mkdirRaw(path("cc/empty")));
    for (const char *n : { "a", "b", ".hidden", "c" })
        QVERIFY(writeRaw(QByteArray(path("cc/three/") + n), n));
    QVERIFY(writeRaw(path("cc/file"), "f"));
    {
        Tested t; // a list: folders are not expanded
        t.model.setUrl(url("cc"));
        QVERIFY(waitFor([&] { return t.model.isLoaded(); }));
        const auto count = [&](const char *name) {
            return t.model.indexForUrl(url(QByteArray(QByteArray("cc/") + name))).data(DirModel::ChildCountRole);
        };
        QVERIFY(!count("file").isValid()); // files have none
        QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
        (void)count("three");
        QVERIFY(waitFor([&] { return count("three").toInt() == 3 && count("empty").toInt() == 0; }));
        QVERIFY(!changed.isEmpty());
        // (Changed by this application: a folder shown as a row only is not watched inside.)
        auto mk = run(Qvfs::mkdir(url("cc/three/d")));
        QCOMPARE(mk->error(), 0);
        QVERIFY(waitFor([&] { return count("three").toInt() == 4; }));
        t.model.dirLister()->setShowHidden(true);
        mk = run(Qvfs::mkdir(url("cc/three/e")));
        QCOMPARE(mk->error(), 0);
        QVERIFY(waitFor([&] { return count("three").toInt() == 6; }));
    }
    {
        Tested t; // a tree: the expanded folder's rows
        QVERIFY(t.showTree(url("cc"), { url("cc/three") }));
        QCOMPARE(t.model.indexForUrl(url("cc/three")).data(DirModel::ChildCountRole).toInt(), 5); // a b c d e
    }
}

void DirModelTest::expandToUrl()
{
    // A deep path opened with its parents: expand() for each folder on the way, in order.
    QVERIFY(mkdirRaw(path("ex")));
    QVERIFY(mkdirRaw(path("ex/a")));
    QVERIFY(mkdirRaw(path("ex/a/b")));
    QVERIFY(mkdirRaw(path("ex/a/b/c")));
    QVERIFY(writeRaw(path("ex/a/b/c/leaf.txt"), "l"));
    QVERIFY(mkdirRaw(path("ex/z")));
    DirModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTreeMode(true);
    model.setUrl(url("ex"));
    QList<QUrl> expanded;
    connect(&model, &DirModel::expand, this, [&](const QModelIndex &i) { expanded.append(model.urlForIndex(i)); });
    model.expandToUrl(url("ex/a/b/c/leaf.txt")); // before anything is listed
    QVERIFY(waitFor([&] { return expanded.size() == 3; }));
    QCOMPARE(expanded,
        (QList<QUrl> {
            Url::normalized(url("ex/a")), Url::normalized(url("ex/a/b")), Url::normalized(url("ex/a/b/c")) }));
    QVERIFY(waitFor([&] { return model.indexForUrl(url("ex/a/b/c/leaf.txt")).isValid(); }));
    // A folder as the target is expanded too; a path that is not there ends the walk.
    expanded.clear();
    model.expandToUrl(url("ex/z"));
    QVERIFY(waitFor([&] { return expanded == QList<QUrl> { Url::normalized(url("ex/z")) }; }));
    expanded.clear();
    model.expandToUrl(url("ex/a/missing/deeper"));
    QTest::qWait(300);
    QVERIFY(expanded.isEmpty() || expanded == QList<QUrl> { Url::normalized(url("ex/a")) });
}

QTEST_GUILESS_MAIN(DirModelTest)
#include "dirmodeltest.moc"
