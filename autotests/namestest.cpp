// SPDX-License-Identifier: LGPL-2.1-or-later
// Names that are not UTF-8, hold control bytes, are 255 bytes long or look like URLs
// survive list, stat, get, copy (also under a free name), move, rename and delete through
// the real file:// worker, byte for byte.
//
// Fixtures are made with raw system calls (testutil/rawfs.h) and URLs with Qvfs::Url, so
// every byte of a name is checked end to end. After every row no worker process may be
// left running and no temporary file of the library may remain (testutil/jobfixture.h).

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QTest>

using namespace Qvfs;
using namespace QvfsTest;

class NamesTest : public QObject
{
    Q_OBJECT

private:
    JobFixture m_fx;
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }

private Q_SLOTS:
    void init() { m_fx.init(); }
    void cleanup() { m_fx.cleanup(); }

    void names_data();
    void names();
};

void NamesTest::names_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("Latin-1 byte") << QByteArray("caf\xe9");
    QTest::newRow("invalid UTF-8") << QByteArray("\xff\xfe\x80 bad \xc3(");
    QTest::newRow("spaces") << QByteArray(" two  spaces ");
    QTest::newRow("newline") << QByteArray("line1\nline2");
    QTest::newRow("leading dash") << QByteArray("-rf --help");
    QTest::newRow("255 bytes") << QByteArray(255, 'n');
    QByteArray cjk;
    while (cjk.size() < 255)
        cjk += "\xe6\x97\xa5"; // U+65E5, 3 bytes: 85 of them are 255 bytes
    QTest::newRow("255 bytes of 3-byte characters") << cjk;
    QTest::newRow("percent, hash, question mark") << QByteArray("100% #1 ?x=y&z");
    QTest::newRow("backslash and quotes") << QByteArray("a\\b \"c\" 'd'");
    QTest::newRow("tab and control bytes") << QByteArray("tab\there\x01\x7f");
    QTest::newRow("dot name with extension") << QByteArray(".hidden name.tar.gz");
    QTest::newRow("looks like a URL") << QByteArray("file:%2F%2Fx");
}

void NamesTest::names()
{
    QFETCH(QByteArray, name);
    const QByteArray content = QByteArray("content of " + name);
    QVERIFY(mkdirRaw(path("src")));
    QVERIFY(writeRaw(join(path("src"), name), content));
    QVERIFY(mkdirRaw(path("srcdir")));
    QVERIFY(mkdirRaw(join(path("srcdir"), name)));
    QVERIFY(writeRaw(join(join(path("srcdir"), name), name), content));
    QVERIFY(mkdirRaw(path("copy")));
    QVERIFY(mkdirRaw(path("moved")));
    const QUrl srcDir = url("src");
    const QUrl file = Url::child(srcDir, name);
    QVERIFY(file.isValid());
    QCOMPARE(Url::fileName(file), name);
    QCOMPARE(Url::localPath(file), join(path("src"), name));

    // list
    const Listing flat = collect(Qvfs::listDir(srcDir, DetailsFull));
    QCOMPARE(flat.error, 0);
    QCOMPARE(flat.entries.keys(), QList<QByteArray> { name });
    QCOMPARE(flat.entries.first().size(), qint64(content.size()));
    const Listing rec = collect(Qvfs::listRecursive(url("srcdir")));
    QCOMPARE(rec.error, 0);
    QCOMPARE(rec.entries.keys(), sorted({ name, join(name, name) }));
    QCOMPARE(Url::localPath(Url::child(url("srcdir"), join(name, name))), join(join(path("srcdir"), name), name));

    // stat and get
    auto st = run(Qvfs::stat(file, DetailsFull));
    QCOMPARE(st->error(), 0);
    QCOMPARE(st->statResult().name().toByteArray(), name);
    QCOMPARE(st->statResult().size(), qint64(content.size()));
    QCOMPARE(st->statResult().number(Hidden, 0), qint64(name.startsWith('.') ? 1 : 0));
    auto get = run(Qvfs::storedGet(file));
    QCOMPARE(get->error(), 0);
    QCOMPARE(get->data(), content);

    // copy, then copy again under a free name
    auto cp = run(Qvfs::copy(file, url("copy")));
    QCOMPARE(cp->error(), 0);
    QCOMPARE(namesIn(path("copy")), QList<QByteArray> { name });
    QCOMPARE(readRaw(join(path("copy"), name)), content);
    CopyJob *again = Qvfs::copy(file, url("copy"));
    again->setConflictPolicy(ConflictPolicy::Rename);
    auto cp2 = run(again);
    QCOMPARE(cp2->error(), 0);
    const QList<QByteArray> copies = namesIn(path("copy"));
    QCOMPARE(copies.size(), 2);
    const QByteArray other = copies.at(0) == name ? copies.at(1) : copies.at(0);
    QVERIFY2(other.contains(" (1)") && other.size() <= 255, other.constData());
    QCOMPARE(readRaw(join(path("copy"), other)), content);
    QCOMPARE(readRaw(join(path("copy"), name)), content);

    // a tree whose folder and file have that name
    auto tree = run(Qvfs::copy(Url::child(url("srcdir"), name), url("copy")));
    QVERIFY2(tree->error() == int(ErrAlreadyExists) || tree->error() == 0, qPrintable(tree->errorString()));
    auto treeAs = run(Qvfs::copyAs(Url::child(url("srcdir"), name), url("treecopy")));
    QCOMPARE(treeAs->error(), 0);
    QCOMPARE(readRaw(join(path("treecopy"), name)), content);

    // move, rename there and back
    auto mv = run(Qvfs::move(Url::child(url("copy"), name), url("moved")));
    QCOMPARE(mv->error(), 0);
    QVERIFY(!existsRaw(join(path("copy"), name)));
    QCOMPARE(namesIn(path("moved")), QList<QByteArray> { name });
    QCOMPARE(readRaw(join(path("moved"), name)), content);
    auto rn = run(Qvfs::rename(Url::child(url("moved"), name), url("moved/plain")));
    QCOMPARE(rn->error(), 0);
    auto back = run(Qvfs::rename(url("moved/plain"), Url::child(url("moved"), name)));
    QCOMPARE(back->error(), 0);
    QCOMPARE(namesIn(path("moved")), QList<QByteArray> { name });

    // delete
    auto del = run(Qvfs::del({ Url::child(url("moved"), name), Url::child(url("srcdir"), name), file }));
    QCOMPARE(del->error(), 0);
    QCOMPARE(del->removedCount(), qint64(4));
    QVERIFY(namesIn(path("moved")).isEmpty());
    QVERIFY(namesIn(path("srcdir")).isEmpty());
    QVERIFY(namesIn(path("src")).isEmpty());
}

QTEST_GUILESS_MAIN(NamesTest)

#include "namestest.moc"
