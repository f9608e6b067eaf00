// SPDX-License-Identifier: LGPL-2.1-or-later
// The conformance suite: the same data rows for every protocol. Each row runs once per
// backend (backend.h, backends/*.cpp; its tag starts with the backend's name) and checks
// what the public jobs promise, through the public API only: a result is read back
// through the backend itself (get, stat, list) wherever the backend can, never by peeking
// at its storage. The local side of copies and moves is a folder on this machine.
//
// A row needs capabilities; on a backend that lacks one it is skipped with a message
// that names the backend and the capability, so it never counts as passed. Fixtures are
// made by the backend out of band (Backend::seed()); a backend that cannot make a row's
// fixture skips it the same way ("lacks seed").
//
// After every row no worker process may be left running and no temporary file of the
// library may remain in the local folder or (where it can be listed) the scratch area.

#include "backend.h"
#include "copyrules.h"

#include "answerer.h"
#include "fixturedir.h"
#include "jobrunner.h"
#include "livefolders.h"
#include "procutil.h"
#include "rawfs.h"
#include "workerenv.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/Protocol>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QMap>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>

using namespace Qvfs;
using namespace QvfsTest;
using QvfsConformance::Backend;
using QvfsConformance::dir;
using QvfsConformance::file;
using QvfsConformance::filled;
using QvfsConformance::Item;
using QvfsConformance::Tree;

Q_DECLARE_METATYPE(QvfsConformance::Item)
Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)

namespace
{

// Big enough that a kill after the first progress lands mid-job on every backend.
constexpr qint64 KillSize = 300 * MiB;

// Skips the row unless the backend has every capability in the arguments (see require()).
#define REQUIRE(...)                                                                                                   \
    do {                                                                                                               \
        if (!require(__VA_ARGS__))                                                                                     \
            return;                                                                                                    \
    } while (false)

// Makes the row's fixture on the backend, or skips (no Seed capability) or fails.
#define SEED(tree)                                                                                                     \
    do {                                                                                                               \
        if (!seed(tree))                                                                                               \
            return;                                                                                                    \
    } while (false)

FileType typeOf(const Item &item)
{
    return item.kind == Item::Dir ? FileType::Directory : FileType::Regular;
}

// Whether \a data is \a size bytes of \a fill.
bool isFilled(const QByteArray &data, qint64 size, char fill)
{
    return data.size() == size && std::all_of(data.cbegin(), data.cend(), [fill](char c) { return c == fill; });
}

QByteArray nameOf(const QByteArray &rel)
{
    return rel.mid(rel.lastIndexOf('/') + 1);
}

} // namespace

class ConformanceTest : public QObject
{
    Q_OBJECT

public:
    ConformanceTest()
        : m_backends(QvfsConformance::createBackends(&m_unknown))
    { }

private:
    QList<QByteArray> m_unknown; // before m_backends: filled by its initialiser
    std::vector<std::unique_ptr<Backend>> m_backends;
    QMap<QByteArray, QByteArray> m_unavailable; // backend -> why start() failed
    Backend *m_b = nullptr; // the current row's backend
    std::unique_ptr<FixtureDir> m_local; // the local side of copies and moves

    // One row per backend: "<backend>: <name>".
    QTestData &row(const Backend *b, const QByteArray &name)
    {
        return QTest::newRow(QByteArray(b->name() + ": " + name).constData());
    }

    // Whether the backend has \a caps (for the seeded item at \a at, if given); else the
    // row is skipped with a message naming what is missing.
    bool require(Backend::Capabilities caps, QByteArrayView at = {})
    {
        const Backend::Capabilities missing = caps & ~(at.isNull() ? m_b->capabilities() : m_b->itemCapabilities(at));
        if (!missing)
            return true;
        QByteArray message = "skipped by capability: " + m_b->name() + " lacks " + Backend::names(missing);
        if (!at.isNull())
            message += " for \"" + at.toByteArray() + '"';
        QTest::qSkip(message.constData(), __FILE__, __LINE__);
        return false;
    }

    bool seed(const Tree &tree)
    {
        QByteArray why;
        if (tree.isEmpty() || m_b->seed(tree, &why))
            return true;
        if (m_b->capabilities() & Backend::Seed) {
            QTest::qFail(QByteArray("could not make the fixture: " + why).constData(), __FILE__, __LINE__);
        } else {
            const QByteArray message = "skipped by capability: " + m_b->name() + " lacks seed (" + why + ')';
            QTest::qSkip(message.constData(), __FILE__, __LINE__);
        }
        return false;
    }

    QUrl url(const QByteArray &rel) const { return m_b->url(rel); }
    QByteArray local(const QByteArray &rel) const
    {
        return rel.isEmpty() ? m_local->path() : join(m_local->path(), rel);
    }
    QUrl localUrl(const QByteArray &rel) const { return fileUrl(local(rel)); }

    // ---------------------------------------------------- reading back through the backend

    struct Got
    {
        int error = -1;
        QByteArray data;
    };
    Got readBack(const QByteArray &rel)
    {
        auto j = run(Qvfs::storedGet(url(rel)));
        return Got { j->error(), j->data() };
    }
    struct Stated
    {
        int error = -1;
        Entry entry;
    };
    Stated statOf(const QByteArray &rel)
    {
        auto j = run(Qvfs::stat(url(rel), DetailBasic));
        return Stated { j->error(), j->statResult() };
    }
    Listing listOf(const QByteArray &rel, bool recursive = false)
    {
        return collect(recursive ? Qvfs::listRecursive(url(rel), DetailBasic) : Qvfs::listDir(url(rel), DetailBasic));
    }

    // The names in the scratch folder \a rel, when the backend can list; else no check.
    void compareNames(const QByteArray &rel, const QList<QByteArray> &expected)
    {
        if (!(m_b->capabilities() & Backend::List))
            return;
        const Listing l = listOf(rel);
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.keys(), sorted(expected));
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void capabilities_data();
    void capabilities();
    void list_data();
    void list();
    void stat_data();
    void stat();
    void get_data();
    void get();
    void put_data();
    void put();
    void copyIn_data();
    void copyIn();
    void copyOut_data();
    void copyOut();
    void copyWithin_data();
    void copyWithin();
    void move_data();
    void move();
    void del_data();
    void del();
    void mkdir_data();
    void mkdir();
    void rename_data();
    void rename();
    void oddNames_data();
    void oddNames();
    void conflicts_data();
    void conflicts();
    void skipAccounting_data();
    void skipAccounting();
    void renameLongName_data();
    void renameLongName();
    void mergeIntoExisting_data();
    void mergeIntoExisting();
    void mergeMovesNoData_data();
    void mergeMovesNoData();
    void killMidJob_data();
    void killMidJob();
    void watch_data();
    void watch();
};

void ConformanceTest::initTestCase()
{
    QVERIFY2(m_unknown.isEmpty(),
        QByteArray("QVFS_CONFORMANCE_BACKENDS names no backend: " + m_unknown.join(", ")).constData());
    QVERIFY2(!m_backends.empty(), "no backend");
    for (const auto &b : m_backends) {
        QByteArray why;
        if (!b->start(&why))
            m_unavailable.insert(b->name(), why.isEmpty() ? QByteArray("it did not start") : why);
    }
}

void ConformanceTest::cleanupTestCase()
{
    for (const auto &b : m_backends) {
        if (!m_unavailable.contains(b->name()))
            b->stop();
    }
}

void ConformanceTest::init()
{
    const QByteArray tag(QTest::currentDataTag());
    const QByteArray name = tag.left(tag.indexOf(": "));
    m_b = nullptr;
    for (const auto &b : m_backends) {
        if (b->name() == name)
            m_b = b.get();
    }
    QVERIFY2(m_b, QByteArray("no backend for the row " + tag).constData());
    if (m_unavailable.contains(name)) {
        const QByteArray message = "backend " + name + " is not available: " + m_unavailable.value(name);
        QTest::qSkip(message.constData(), __FILE__, __LINE__);
        return;
    }
    QByteArray why;
    QVERIFY2(m_b->beginRow(&why), why.constData());
    m_local = std::make_unique<FixtureDir>(QByteArrayLiteral("/dev/shm"));
    if (!m_local->isValid())
        m_local = std::make_unique<FixtureDir>();
    QVERIFY2(m_local->isValid(), m_local->errorString().constData());
}

void ConformanceTest::cleanup()
{
    if (!m_b || !m_local)
        return;
    const bool settled = settleWorkers();
    QList<QByteArray> temps;
    findTemporaries(m_local->path(), &temps);
    if (m_b->capabilities() & Backend::List && m_b->capabilities() & Backend::Write) {
        const Listing l = listOf({}, true);
        for (auto it = l.entries.cbegin(); it != l.entries.cend(); ++it) {
            if (isTemporaryName(nameOf(it.key())))
                temps << m_b->name() + ':' + it.key();
        }
    }
    m_local.reset();
    m_b->endRow();
    settleWorkers();
    m_b = nullptr;
    QVERIFY2(settled, "worker processes still running after the row");
    QVERIFY2(temps.isEmpty(), QByteArray("temporary files left behind: " + temps.join(", ")).constData());
}

// ---------------------------------------------------------------- capabilities

void ConformanceTest::capabilities_data()
{
    QTest::addColumn<int>("unused");
    for (const auto &b : m_backends)
        row(b.get(), "claimed by the backend, declared by the worker") << 0;
}

void ConformanceTest::capabilities()
{
    // A backend may claim less than its worker declares (a worker without storage cannot
    // read back what it wrote), never more: those rows would test what the worker says it
    // does not do. What it leaves out is printed, so a row skipped by mistake shows.
    static const QList<QPair<Backend::Capability, Protocol::Capability>> map {
        { Backend::List, Protocol::List },
        { Backend::Stat, Protocol::Stat },
        { Backend::Read, Protocol::Read },
        { Backend::Write, Protocol::Write },
        { Backend::Mkdir, Protocol::Mkdir },
        { Backend::Delete, Protocol::Delete },
        { Backend::Rename, Protocol::Rename },
        { Backend::Watch, Protocol::Watch },
    };
    const Protocol protocol = Protocol::find(m_b->scheme());
    QVERIFY2(protocol.isValid(), qPrintable(QStringLiteral("no worker serves ") + m_b->scheme()));
    Backend::Capabilities left;
    for (const auto &m : map) {
        if (m_b->capabilities() & m.first)
            QVERIFY2(protocol.hasCapability(m.second),
                QByteArray("the backend claims " + Backend::names(m.first) + ", its worker does not declare it")
                    .constData());
        else if (protocol.hasCapability(m.second))
            left |= m.first;
    }
    if (left)
        qInfo("%s: the worker declares %s, the backend does not claim it", m_b->name().constData(),
            Backend::names(left).constData());
}

// ---------------------------------------------------------------- list

void ConformanceTest::list_data()
{
    QTest::addColumn<Tree>("tree");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("recursive");
    QTest::addColumn<QList<QByteArray>>("names");
    QTest::addColumn<int>("error");
    const Tree flat { dir("d"), file("d/f0", ""), file("d/f1", "x"), file("d/f2", "xx") };
    const Tree nested { dir("d"), file("d/a", "alpha"), file("d/.hidden-file", "h"), dir("d/sub"),
        file("d/sub/b", "beta"), dir("d/sub/empty"), dir("d/sub/deeper"), file("d/sub/deeper/c", "") };
    for (const auto &b : m_backends) {
        row(b.get(), "flat folder") << flat << QByteArray("d") << false << QList<QByteArray> { "f0", "f1", "f2" } << 0;
        row(b.get(), "empty folder") << Tree { dir("e") } << QByteArray("e") << false << QList<QByteArray> {} << 0;
        row(b.get(), "flat listing of a tree")
            << nested << QByteArray("d") << false << QList<QByteArray> { ".hidden-file", "a", "sub" } << 0;
        row(b.get(), "recursive listing of a tree")
            << nested << QByteArray("d") << true
            << QList<QByteArray> { ".hidden-file", "a", "sub", "sub/b", "sub/deeper", "sub/deeper/c", "sub/empty" }
            << 0;
        row(b.get(), "missing folder") << Tree {} << QByteArray("missing") << false << QList<QByteArray> {}
                                       << int(ErrDoesNotExist);
        row(b.get(), "missing folder, recursive")
            << Tree {} << QByteArray("missing") << true << QList<QByteArray> {} << int(ErrDoesNotExist);
        row(b.get(), "a file") << Tree { filled("data", 10) } << QByteArray("data") << false << QList<QByteArray> {}
                               << int(ErrIsNotDirectory);
    }
}

void ConformanceTest::list()
{
    QFETCH(Tree, tree);
    QFETCH(QByteArray, target);
    QFETCH(bool, recursive);
    QFETCH(QList<QByteArray>, names);
    QFETCH(int, error);
    SEED(tree);
    REQUIRE(Backend::List, target);
    const Listing l = listOf(target, recursive);
    QCOMPARE(l.error, error);
    if (error) {
        QCOMPARE(l.count, 0);
        return;
    }
    QCOMPARE(l.entries.keys(), names);
    QCOMPARE(l.count, names.size()); // nothing twice
    for (const Item &item : std::as_const(tree)) {
        if (!item.path.startsWith(QByteArray(target + '/')))
            continue;
        const QByteArray rel = item.path.mid(target.size() + 1);
        if (!l.entries.contains(rel))
            continue; // below a flat listing
        const Entry e = l.entries.value(rel);
        QVERIFY2(e.type() == typeOf(item), rel.constData());
        if (item.kind == Item::File)
            QCOMPARE(e.size(), item.size());
    }
}

// ---------------------------------------------------------------- stat

void ConformanceTest::stat_data()
{
    QTest::addColumn<Tree>("tree");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("type");
    QTest::addColumn<qint64>("size");
    QTest::addColumn<int>("error");
    for (const auto &b : m_backends) {
        row(b.get(), "a file") << Tree { filled("data", 1000) } << QByteArray("data") << int(FileType::Regular)
                               << qint64(1000) << 0;
        row(b.get(), "an empty file") << Tree { filled("data", 0) } << QByteArray("data") << int(FileType::Regular)
                                      << qint64(0) << 0;
        row(b.get(), "a folder") << Tree { dir("d") } << QByteArray("d") << int(FileType::Directory) << qint64(-1) << 0;
        row(b.get(), "a file in a folder")
            << Tree { dir("d"), file("d/f", "12345") } << QByteArray("d/f") << int(FileType::Regular) << qint64(5) << 0;
        row(b.get(), "missing") << Tree {} << QByteArray("missing") << 0 << qint64(-1) << int(ErrDoesNotExist);
        row(b.get(), "missing parent") << Tree {} << QByteArray("nodir/missing") << 0 << qint64(-1)
                                       << int(ErrDoesNotExist);
    }
}

void ConformanceTest::stat()
{
    QFETCH(Tree, tree);
    QFETCH(QByteArray, target);
    QFETCH(int, type);
    QFETCH(qint64, size);
    QFETCH(int, error);
    SEED(tree);
    REQUIRE(Backend::Stat, target);
    auto j = run(Qvfs::stat(url(target), DetailBasic));
    QCOMPARE(j->error(), error);
    QCOMPARE(j->url(), url(target));
    if (error) {
        QVERIFY(j->statResult().isEmpty());
        QVERIFY(!j->errorString().isEmpty());
        return;
    }
    const Entry e = j->statResult();
    QCOMPARE(e.name().toByteArray(), nameOf(target));
    QCOMPARE(int(e.type()), type);
    if (size >= 0)
        QCOMPARE(e.size(), size);
}

// ---------------------------------------------------------------- get

void ConformanceTest::get_data()
{
    QTest::addColumn<Tree>("tree");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("stored");
    QTest::addColumn<int>("error");
    for (const auto &b : m_backends) {
        row(b.get(), "1,000 bytes, stored") << Tree { filled("data", 1000) } << QByteArray("data") << true << 0;
        row(b.get(), "3,000,000 bytes, streamed")
            << Tree { filled("data", 3000000) } << QByteArray("data") << false << 0;
        row(b.get(), "an empty file") << Tree { filled("data", 0) } << QByteArray("data") << true << 0;
        row(b.get(), "binary content") << Tree { file("data", pseudoRandom(300000, 5)) } << QByteArray("data") << false
                                       << 0;
        row(b.get(), "missing") << Tree {} << QByteArray("missing") << true << int(ErrDoesNotExist);
        row(b.get(), "a folder") << Tree { dir("d") } << QByteArray("d") << true << int(ErrIsDirectory);
    }
}

void ConformanceTest::get()
{
    QFETCH(Tree, tree);
    QFETCH(QByteArray, target);
    QFETCH(bool, stored);
    QFETCH(int, error);
    SEED(tree);
    REQUIRE(Backend::Read, target);
    TransferJob *job = stored ? Qvfs::storedGet(url(target)) : Qvfs::get(url(target));
    QByteArray received;
    connect(job, &TransferJob::data, this, [&received](TransferJob *, const QByteArray &d) { received += d; });
    auto j = run(job);
    QCOMPARE(j->error(), error);
    if (error) {
        QVERIFY(received.isEmpty());
        return;
    }
    const Item &item = tree.constFirst();
    const QByteArray data = stored ? static_cast<StoredTransferJob *>(j.get())->data() : received;
    if (item.fill)
        QVERIFY2(isFilled(data, item.size(), item.fill), QByteArray::number(data.size()).constData());
    else
        QVERIFY(data == item.content);
}

// ---------------------------------------------------------------- put

void ConformanceTest::put_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("chunk"); // 0: storedPut; else streamed in chunks of this size
    QTest::addColumn<bool>("existing");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("error");
    const QByteArray big = pseudoRandom(3000000, 11);
    for (const auto &b : m_backends) {
        row(b.get(), "new file, stored") << QByteArray("hello\n") << 0 << false << false << 0;
        row(b.get(), "empty file") << QByteArray() << 0 << false << false << 0;
        row(b.get(), "3,000,000 bytes in 64 KiB chunks") << big << 64 * 1024 << false << false << 0;
        row(b.get(), "onto an existing file, no overwrite")
            << QByteArray("new") << 0 << true << false << int(ErrAlreadyExists);
        row(b.get(), "onto an existing file, overwrite") << QByteArray("new") << 0 << true << true << 0;
        row(b.get(), "onto an existing file, overwrite, streamed") << big << 100 * 1024 << true << true << 0;
    }
}

void ConformanceTest::put()
{
    QFETCH(QByteArray, content);
    QFETCH(int, chunk);
    QFETCH(bool, existing);
    QFETCH(bool, overwrite);
    QFETCH(int, error);
    REQUIRE(Backend::Write | Backend::Read);
    if (existing)
        SEED(Tree { file("f", "old content, longer than the new one") });
    const PutFlags flags = overwrite ? PutOverwrite : PutDefault;
    TransferJob *job = nullptr;
    qsizetype sent = 0; // outlives the job: the handler below runs inside run()
    if (chunk == 0) {
        job = Qvfs::storedPut(content, url("f"), -1, flags);
    } else {
        job = Qvfs::put(url("f"), -1, flags);
        connect(job, &TransferJob::dataReq, this, [&sent, &content, chunk](TransferJob *, QByteArray &data) {
            data = content.mid(sent, chunk);
            sent += data.size();
        });
    }
    auto j = run(job);
    QCOMPARE(j->error(), error);
    const Got back = readBack("f");
    QCOMPARE(back.error, 0);
    QVERIFY(back.data == (error ? QByteArray("old content, longer than the new one") : content));
    compareNames({}, { "f" });
}

// ---------------------------------------------------------------- copy into the backend

void ConformanceTest::copyIn_data()
{
    QTest::addColumn<bool>("tree");
    QTest::addColumn<bool>("as"); // copyAs to "copied", else copy into the scratch folder
    QTest::addColumn<qint64>("size");
    for (const auto &b : m_backends) {
        row(b.get(), "a file, into the folder") << false << false << qint64(1000);
        row(b.get(), "a file, as a new name") << false << true << qint64(1000);
        row(b.get(), "an empty file") << false << true << qint64(0);
        row(b.get(), "3,000,000 bytes") << false << false << qint64(3000000);
        row(b.get(), "a tree, into the folder") << true << false << qint64(100);
        row(b.get(), "a tree, as a new name") << true << true << qint64(100);
    }
}

void ConformanceTest::copyIn()
{
    QFETCH(bool, tree);
    QFETCH(bool, as);
    QFETCH(qint64, size);
    REQUIRE(Backend::Write | Backend::Stat | Backend::Read);
    if (tree)
        REQUIRE(Backend::Mkdir | Backend::List);
    const QByteArray content = pseudoRandom(size, 3);
    QByteArray name = "a.bin";
    if (tree) {
        name = "t";
        QVERIFY(mkdirRaw(local("t")));
        QVERIFY(writeRaw(local("t/a.bin"), content));
        QVERIFY(mkdirRaw(local("t/sub")));
        QVERIFY(writeRaw(local("t/sub/b"), "b"));
        QVERIFY(mkdirRaw(local("t/sub/empty")));
    } else {
        QVERIFY(writeRaw(local("a.bin"), content));
    }
    const QByteArray result = as ? QByteArray("copied") : name;
    auto j = run(as ? Qvfs::copyAs(localUrl(name), url(result)) : Qvfs::copy(localUrl(name), url({})));
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    QCOMPARE(j->processedAmount(Job::Bytes), size + (tree ? 1 : 0));
    compareNames({}, { result });
    if (!tree) {
        QVERIFY(readBack(result).data == content);
        QCOMPARE(statOf(result).entry.size(), size);
        return;
    }
    const Listing l = listOf(result, true);
    QCOMPARE(l.error, 0);
    QCOMPARE(l.entries.keys(), (QList<QByteArray> { "a.bin", "sub", "sub/b", "sub/empty" }));
    QCOMPARE(l.entries.value("sub/empty").type(), FileType::Directory);
    QVERIFY(readBack(result + "/a.bin").data == content);
    QCOMPARE(readBack(result + "/sub/b").data, QByteArray("b"));
    QVERIFY(existsRaw(local("t/sub/b"))); // a copy keeps its source
}

// ---------------------------------------------------------------- copy out of the backend

void ConformanceTest::copyOut_data()
{
    QTest::addColumn<Tree>("tree");
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<bool>("as"); // copyAs to the local "copied", else copy into the local folder
    const Tree tree { dir("t"), file("t/a", "alpha"), dir("t/sub"), file("t/sub/b", "beta"), dir("t/sub/empty") };
    for (const auto &b : m_backends) {
        row(b.get(), "a file, into a folder") << Tree { filled("data", 1000) } << QByteArray("data") << false;
        row(b.get(), "a file, as a new name") << Tree { filled("data", 1000) } << QByteArray("data") << true;
        row(b.get(), "3,000,000 bytes") << Tree { filled("data", 3000000) } << QByteArray("data") << true;
        row(b.get(), "an empty file") << Tree { filled("data", 0) } << QByteArray("data") << false;
        row(b.get(), "binary content") << Tree { file("data", pseudoRandom(200000, 9)) } << QByteArray("data") << false;
        row(b.get(), "a tree") << tree << QByteArray("t") << false;
    }
}

void ConformanceTest::copyOut()
{
    QFETCH(Tree, tree);
    QFETCH(QByteArray, source);
    QFETCH(bool, as);
    SEED(tree);
    REQUIRE(Backend::Stat | Backend::Read, source);
    const bool isTree = tree.constFirst().kind == Item::Dir;
    if (isTree)
        REQUIRE(Backend::List);
    QVERIFY(mkdirRaw(local("out")));
    const QByteArray result = as ? QByteArray("out/copied") : QByteArray("out/" + source);
    auto j = run(as ? Qvfs::copyAs(url(source), localUrl(result)) : Qvfs::copy(url(source), localUrl("out")));
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    QCOMPARE(namesIn(local("out")), QList<QByteArray> { nameOf(result) });
    for (const Item &item : std::as_const(tree)) {
        const QByteArray p = local(result + item.path.mid(source.size()));
        if (item.kind == Item::Dir) {
            QVERIFY2(S_ISDIR(lstatRaw(p).st_mode), p.constData());
        } else if (item.fill) {
            QVERIFY2(isFilled(readRaw(p), item.size(), item.fill), p.constData());
        } else {
            QVERIFY2(readRaw(p) == item.content, p.constData());
        }
    }
    // The source is still there.
    QCOMPARE(statOf(source).error, 0);
}

// ---------------------------------------------------------------- copy within the backend

void ConformanceTest::copyWithin_data()
{
    QTest::addColumn<Tree>("tree");
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<bool>("as");
    QTest::addColumn<QList<QByteArray>>("names"); // of the copy, recursively
    for (const auto &b : m_backends) {
        row(b.get(), "a file, as a new name")
            << Tree { file("a", "alpha") } << QByteArray("a") << QByteArray("b") << true << QList<QByteArray> {};
        row(b.get(), "a file, into a folder") << Tree { file("a", "alpha"), dir("d") } << QByteArray("a")
                                              << QByteArray("d") << false << QList<QByteArray> {};
        row(b.get(), "a tree") << Tree { dir("t"), file("t/x", "x"), dir("t/sub"), file("t/sub/y", "yy") }
                               << QByteArray("t") << QByteArray("t2") << true
                               << QList<QByteArray> { "sub", "sub/y", "x" };
    }
}

void ConformanceTest::copyWithin()
{
    QFETCH(Tree, tree);
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, dest);
    QFETCH(bool, as);
    QFETCH(QList<QByteArray>, names);
    REQUIRE(Backend::Stat | Backend::Read | Backend::Write);
    SEED(tree);
    const bool isTree = !names.isEmpty();
    if (isTree)
        REQUIRE(Backend::List | Backend::Mkdir);
    auto j = run(as ? Qvfs::copyAs(url(source), url(dest)) : Qvfs::copy(url(source), url(dest)));
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    const QByteArray result = as ? dest : QByteArray(dest + '/' + source);
    if (isTree) {
        const Listing l = listOf(result, true);
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.keys(), names);
    }
    for (const Item &item : std::as_const(tree)) {
        if (item.kind != Item::File || !(item.path == source || item.path.startsWith(QByteArray(source + '/'))))
            continue;
        QCOMPARE(readBack(result + item.path.mid(source.size())).data, item.content);
        QCOMPARE(readBack(item.path).data, item.content); // the source stays
    }
}

// ---------------------------------------------------------------- move

void ConformanceTest::move_data()
{
    QTest::addColumn<QByteArray>("direction"); // "within", "in" (local -> backend), "out"
    QTest::addColumn<bool>("tree");
    for (const auto &b : m_backends) {
        for (const char *d : { "within", "in", "out" }) {
            row(b.get(), QByteArray(d) + ": a file") << QByteArray(d) << false;
            row(b.get(), QByteArray(d) + ": a tree") << QByteArray(d) << true;
        }
    }
}

void ConformanceTest::move()
{
    QFETCH(QByteArray, direction);
    QFETCH(bool, tree);
    Backend::Capabilities needs = Backend::Stat | Backend::Read;
    if (direction != "out")
        needs |= Backend::Write | (tree ? Backend::Mkdir : Backend::Capabilities());
    if (direction != "in")
        needs |= Backend::Delete;
    if (tree)
        needs |= Backend::List;
    REQUIRE(needs);
    const Tree t = tree ? Tree { dir("m"), file("m/a", "alpha"), dir("m/sub"), file("m/sub/b", "beta") }
                        : Tree { file("m", "moved content") };
    if (direction == "in") {
        for (const Item &item : t)
            QVERIFY(item.kind == Item::Dir ? mkdirRaw(local(item.path)) : writeRaw(local(item.path), item.content));
    } else {
        SEED(t);
    }
    const QUrl from = direction == "in" ? localUrl("m") : url("m");
    const QUrl to = direction == "out" ? localUrl("moved") : url("moved");
    auto j = run(Qvfs::moveAs(from, to));
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    // The source is gone ...
    if (direction == "in")
        QVERIFY(!existsRaw(local("m")));
    else
        QCOMPARE(statOf("m").error, int(ErrDoesNotExist));
    // ... and everything is at the destination.
    for (const Item &item : t) {
        const QByteArray rel = "moved" + item.path.mid(1);
        if (direction == "out") {
            if (item.kind == Item::Dir)
                QVERIFY(S_ISDIR(lstatRaw(local(rel)).st_mode));
            else
                QCOMPARE(readRaw(local(rel)), item.content);
        } else {
            const Stated s = statOf(rel);
            QCOMPARE(s.error, 0);
            QVERIFY2(s.entry.type() == typeOf(item), rel.constData());
            if (item.kind == Item::File)
                QCOMPARE(readBack(rel).data, item.content);
        }
    }
    if (direction != "out")
        compareNames({}, { "moved" });
}

// ---------------------------------------------------------------- delete

void ConformanceTest::del_data()
{
    QTest::addColumn<QList<QByteArray>>("targets");
    QTest::addColumn<int>("error");
    for (const auto &b : m_backends) {
        row(b.get(), "a file") << QList<QByteArray> { "f" } << 0;
        row(b.get(), "an empty folder") << QList<QByteArray> { "empty" } << 0;
        row(b.get(), "a tree") << QList<QByteArray> { "t" } << 0;
        row(b.get(), "a file in a tree") << QList<QByteArray> { "t/sub/b" } << 0;
        row(b.get(), "several") << QList<QByteArray> { "f", "t", "empty" } << 0;
        row(b.get(), "missing in the middle") << QList<QByteArray> { "f", "missing", "g" } << int(ErrDoesNotExist);
    }
}

void ConformanceTest::del()
{
    QFETCH(QList<QByteArray>, targets);
    QFETCH(int, error);
    REQUIRE(Backend::Delete | Backend::Stat);
    SEED((Tree { file("f", "f"), file("g", "g"), dir("empty"), dir("t"), file("t/a", "a"), dir("t/sub"),
        file("t/sub/b", "b"), dir("t/sub/deeper") }));
    QList<QUrl> urls;
    for (const QByteArray &t : std::as_const(targets))
        urls << url(t);
    auto j = run(Qvfs::del(urls));
    QCOMPARE(j->error(), error);
    const int deleted = error ? 1 : int(targets.size()); // stops at the first error
    for (int i = 0; i < targets.size(); ++i) {
        if (targets.at(i) == "missing")
            continue;
        QCOMPARE(statOf(targets.at(i)).error, i < deleted ? int(ErrDoesNotExist) : 0);
    }
    if (targets == QList<QByteArray> { "t/sub/b" })
        compareNames("t/sub", { "deeper" });
}

// ---------------------------------------------------------------- mkdir

void ConformanceTest::mkdir_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("parents"); // mkpath
    QTest::addColumn<int>("error");
    for (const auto &b : m_backends) {
        row(b.get(), "new folder") << QByteArray("new") << false << 0;
        row(b.get(), "existing folder") << QByteArray("d") << false << int(ErrAlreadyExists);
        row(b.get(), "existing file") << QByteArray("f") << false << int(ErrAlreadyExists);
        row(b.get(), "missing parent") << QByteArray("nodir/new") << false << int(ErrDoesNotExist);
        row(b.get(), "mkpath, three levels") << QByteArray("a/b/c") << true << 0;
        row(b.get(), "mkpath, existing folder") << QByteArray("d") << true << 0;
        row(b.get(), "mkpath onto a file") << QByteArray("f") << true << int(ErrAlreadyExists);
    }
}

void ConformanceTest::mkdir()
{
    QFETCH(QByteArray, target);
    QFETCH(bool, parents);
    QFETCH(int, error);
    REQUIRE(Backend::Mkdir | Backend::Stat);
    SEED((Tree { dir("d"), file("f", "a file") }));
    auto j = run(parents ? Qvfs::mkpath(url(target)) : Qvfs::mkdir(url(target)));
    QCOMPARE(j->error(), error);
    const Stated s = statOf(target);
    if (error == int(ErrDoesNotExist)) {
        QCOMPARE(s.error, int(ErrDoesNotExist));
        return;
    }
    QCOMPARE(s.error, 0);
    QCOMPARE(s.entry.type(), target == "f" ? FileType::Regular : FileType::Directory); // a file stays a file
    if (target == "f" && (m_b->capabilities() & Backend::Read))
        QCOMPARE(readBack("f").data, QByteArray("a file"));
}

// ---------------------------------------------------------------- rename

void ConformanceTest::rename_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("error");
    for (const auto &b : m_backends) {
        row(b.get(), "a file, to a new name") << QByteArray("f") << QByteArray("g") << false << 0;
        row(b.get(), "a file, into a folder") << QByteArray("f") << QByteArray("d/f") << false << 0;
        row(b.get(), "a folder") << QByteArray("d") << QByteArray("d2") << false << 0;
        row(b.get(), "onto a file, no overwrite")
            << QByteArray("f") << QByteArray("other") << false << int(ErrAlreadyExists);
        row(b.get(), "onto a file, overwrite") << QByteArray("f") << QByteArray("other") << true << 0;
        row(b.get(), "missing source") << QByteArray("missing") << QByteArray("g") << false << int(ErrDoesNotExist);
    }
}

void ConformanceTest::rename()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(bool, overwrite);
    QFETCH(int, error);
    REQUIRE(Backend::Rename | Backend::Stat | Backend::Read);
    SEED((Tree { file("f", "the file"), file("other", "other file"), dir("d"), file("d/x", "x") }));
    auto j = run(Qvfs::rename(url(from), url(to), overwrite));
    QCOMPARE(j->error(), error);
    if (error) {
        if (from != "missing")
            QCOMPARE(readBack(from).data, QByteArray("the file"));
        if (to == "other")
            QCOMPARE(readBack(to).data, QByteArray("other file"));
        return;
    }
    QCOMPARE(statOf(from).error, int(ErrDoesNotExist));
    if (from == "f")
        QCOMPARE(readBack(to).data, QByteArray("the file"));
    else
        QCOMPARE(readBack(to + "/x").data, QByteArray("x"));
}

// ---------------------------------------------------------------- odd names

void ConformanceTest::oddNames_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("raw"); // only where names are bytes (RawNames)
    const QList<QPair<QByteArray, QByteArray>> names = QvfsTest::oddNames();
    // Names every protocol must carry, UTF-8 ones too (SMB, WebDAV): what a URL has to
    // escape, and long names of characters of two bytes.
    QByteArray accents;
    while (accents.size() < 200)
        accents += "\xc3\xa9"; // U+00E9
    const QList<QPair<QByteArray, QByteArray>> portable = {
        { "UTF-8 spaces, percent and hash", QByteArray("caf\xc3\xa9 100% #1") },
        { "200 bytes of 2-byte characters", accents },
        { "leading dash and brackets", QByteArray("-x [draft] (2) {a}") },
    };
    for (const auto &b : m_backends) {
        for (const auto &n : names)
            row(b.get(), n.first) << n.second << true;
        for (const auto &n : portable)
            row(b.get(), n.first) << n.second << false;
    }
}

void ConformanceTest::oddNames()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, raw);
    if (raw)
        REQUIRE(Backend::RawNames | Backend::List | Backend::Stat | Backend::Read);
    else
        REQUIRE(Backend::List | Backend::Stat | Backend::Read);
    const QByteArray content = QByteArray("content of " + name);
    const QByteArray rel = join("src", name);
    SEED((Tree { dir("src"), file(rel, content) }));
    // list, stat, get
    const Listing l = listOf("src");
    QCOMPARE(l.error, 0);
    QCOMPARE(l.entries.keys(), QList<QByteArray> { name });
    const Stated s = statOf(rel);
    QCOMPARE(s.error, 0);
    QCOMPARE(s.entry.name().toByteArray(), name);
    QCOMPARE(s.entry.size(), qint64(content.size()));
    QCOMPARE(readBack(rel).data, content);
    // out, with the name kept byte for byte
    auto out = run(Qvfs::copy(url(rel), localUrl({})));
    QVERIFY2(out->error() == 0, qPrintable(out->errorString()));
    QCOMPARE(namesIn(local({})), QList<QByteArray> { name });
    QCOMPARE(readRaw(local(name)), content);
    // in, within and away, where the backend can
    if ((m_b->capabilities() & (Backend::Write | Backend::Mkdir)) == (Backend::Write | Backend::Mkdir)) {
        auto mk = run(Qvfs::mkdir(url("in")));
        QCOMPARE(mk->error(), 0);
        auto in = run(Qvfs::copy(localUrl(name), url("in")));
        QVERIFY2(in->error() == 0, qPrintable(in->errorString()));
        QCOMPARE(listOf("in").entries.keys(), QList<QByteArray> { name });
        QCOMPARE(readBack(join("in", name)).data, content);
        auto within = run(Qvfs::copyAs(url(rel), url("within")));
        QVERIFY2(within->error() == 0, qPrintable(within->errorString()));
        QCOMPARE(readBack("within").data, content);
    }
    if (m_b->capabilities() & Backend::Delete) {
        auto d = run(Qvfs::del(url(rel)));
        QCOMPARE(d->error(), 0);
        QVERIFY(listOf("src").entries.isEmpty());
    }
}

// ---------------------------------------------------------------- conflicts

void ConformanceTest::conflicts_data()
{
    QTest::addColumn<QByteArray>("direction"); // "out" (backend -> local), "in", "within"
    QTest::addColumn<ConflictPolicy>("policy");
    QTest::addColumn<QByteArray>("action"); // the delegate's answer with ConflictAsk
    QTest::addColumn<int>("error");
    QTest::addColumn<bool>("replaced");
    QTest::addColumn<bool>("renamed"); // the copy went to "data (1)"
    for (const auto &b : m_backends) {
        for (const char *d : { "out", "in", "within" }) {
            auto r = [&](const char *name) -> QTestData & { return row(b.get(), QByteArray(d) + ": " + name); };
            const QByteArray dd(d);
            r("fail") << dd << ConflictPolicy::Fail << QByteArray() << int(ErrAlreadyExists) << false << false;
            r("overwrite") << dd << ConflictPolicy::Overwrite << QByteArray() << 0 << true << false;
            r("skip") << dd << ConflictPolicy::Skip << QByteArray() << 0 << false << false;
            r("rename") << dd << ConflictPolicy::Rename << QByteArray() << 0 << false << true;
            r("ask: overwrite") << dd << ConflictPolicy::Ask << QByteArray("overwrite") << 0 << true << false;
            r("ask: skip") << dd << ConflictPolicy::Ask << QByteArray("skip") << 0 << false << false;
            r("ask: rename") << dd << ConflictPolicy::Ask << QByteArray("rename") << 0 << false << true;
            r("ask: cancel") << dd << ConflictPolicy::Ask << QByteArray("cancel") << int(ErrCancelled) << false
                             << false;
        }
    }
}

void ConformanceTest::conflicts()
{
    QFETCH(QByteArray, direction);
    QFETCH(ConflictPolicy, policy);
    QFETCH(QByteArray, action);
    QFETCH(int, error);
    QFETCH(bool, replaced);
    QFETCH(bool, renamed);
    const QByteArray fresh(100, 'x');
    const QByteArray old("old content");
    // Source "data" and an existing "data" in the destination folder.
    QUrl source;
    QUrl destFolder;
    if (direction == "out") {
        SEED(Tree { filled("data", fresh.size()) });
        REQUIRE(Backend::Stat | Backend::Read, "data");
        QVERIFY(mkdirRaw(local("dst")));
        QVERIFY(writeRaw(local("dst/data"), old));
        source = url("data");
        destFolder = localUrl("dst");
    } else {
        REQUIRE(Backend::Stat | Backend::Read | Backend::Write | Backend::List);
        if (direction == "in") {
            SEED((Tree { file("data", old) }));
            QVERIFY(writeRaw(local("data"), fresh));
            source = localUrl("data");
            destFolder = url({});
        } else {
            SEED((Tree { dir("src"), file("src/data", fresh), dir("dst"), file("dst/data", old) }));
            source = url("src/data");
            destFolder = url("dst");
        }
    }
    CopyJob *job = Qvfs::copy(source, destFolder);
    job->setConflictPolicy(policy);
    Answerer answerer;
    answerer.action = action;
    if (policy == ConflictPolicy::Ask)
        job->setAskDelegate(&answerer);
    auto j = run(job);
    QCOMPARE(j->error(), error);
    QCOMPARE(answerer.asked, policy == ConflictPolicy::Ask ? 1 : 0);
    // What the destination folder holds, read back from where it is.
    const bool out = direction == "out";
    const QByteArray folder = direction == "within" ? QByteArray("dst") : QByteArray();
    auto content = [&](const QByteArray &name) {
        return out ? readRaw(local(join("dst", name))) : readBack(folder.isEmpty() ? name : join(folder, name)).data;
    };
    QList<QByteArray> names { "data" };
    if (renamed)
        names << "data (1)";
    if (out)
        QCOMPARE(namesIn(local("dst")), sorted(names));
    else if (direction == "within")
        compareNames("dst", names);
    else
        compareNames({}, names);
    QCOMPARE(content("data"), replaced ? fresh : old);
    if (renamed)
        QCOMPARE(content("data (1)"), fresh);
}

// ---------------------------------------------------------------- the copy contract

namespace
{
// The three directions of a copy between the backend and local files.
void addDirections(const std::vector<std::unique_ptr<Backend>> &backends,
    const std::function<QTestData &(const Backend *, const QByteArray &)> &row)
{
    QTest::addColumn<QByteArray>("direction"); // "out" (backend -> local), "in", "within"
    for (const auto &b : backends) {
        for (const char *d : { "out", "in", "within" })
            row(b.get(), d) << QByteArray(d);
    }
}
} // namespace

void ConformanceTest::skipAccounting_data()
{
    addDirections(m_backends, [this](const Backend *b, const QByteArray &n) -> QTestData & { return row(b, n); });
}

void ConformanceTest::skipAccounting()
{
    // src/{a (50 bytes), b (20), sub/c (7)} into dst, where dst/src/b exists, with Skip:
    // as KIO counts, 3 files found, 2 processed, 1 skipped, and the bytes done (57) reach
    // the byte total, which lost b's 20 (copyrules.h, CopyAmounts).
    QFETCH(QByteArray, direction);
    const Tree source { dir("src"), filled("src/a", 50), filled("src/b", 20), dir("src/sub"), filled("src/sub/c", 7) };
    QUrl from;
    QUrl destFolder;
    if (direction == "out") {
        SEED(source);
        REQUIRE(Backend::Stat | Backend::Read | Backend::List, "src");
        QVERIFY(mkdirRaw(local("dst")) && mkdirRaw(local("dst/src")));
        QVERIFY(writeRaw(local("dst/src/b"), "old"));
        from = url("src");
        destFolder = localUrl("dst");
    } else {
        REQUIRE(Backend::Stat | Backend::Read | Backend::Write | Backend::Mkdir | Backend::List);
        if (direction == "in") {
            SEED((Tree { dir("src"), file("src/b", "old") }));
            for (const Item &item : source) {
                QVERIFY(item.kind == Item::Dir ? mkdirRaw(local(item.path))
                                               : writeRaw(local(item.path), QByteArray(item.size(), item.fill)));
            }
            from = localUrl("src");
            destFolder = url({});
        } else {
            Tree t = source;
            t << dir("dst") << dir("dst/src") << file("dst/src/b", "old");
            SEED(t);
            from = url("src");
            destFolder = url("dst");
        }
    }
    CopyJob *job = Qvfs::copy(from, destFolder);
    job->setConflictPolicy(ConflictPolicy::Skip);
    int skippedSignals = 0;
    connect(job, &CopyJob::skipped, this, [&] { ++skippedSignals; });
    auto j = run(job);
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    QCOMPARE(j->skippedCount(), qint64(1));
    QCOMPARE(skippedSignals, 1);
    QCOMPARE(j->processedAmount(Job::Bytes), qint64(57));
    QCOMPARE(j->totalAmount(Job::Bytes), qint64(57));
    QCOMPARE(j->processedAmount(Job::Files), qint64(2));
    if (j->totalAmount(Job::Files) > 0)
        QCOMPARE(j->totalAmount(Job::Files), qint64(3)); // as found
    QCOMPARE(j->percent(), 100ul);
    const QByteArray at = direction == "within" ? QByteArray("dst/src/") : QByteArray("src/");
    auto content = [&](const QByteArray &rel) {
        return direction == "out" ? readRaw(local("dst/src/" + rel)) : readBack(at + rel).data;
    };
    QCOMPARE(content("b"), QByteArray("old"));
    QCOMPARE(content("a"), QByteArray(50, 'x'));
    QCOMPARE(content("sub/c"), QByteArray(7, 'x'));
}

void ConformanceTest::renameLongName_data()
{
    addDirections(m_backends, [this](const Backend *b, const QByteArray &n) -> QTestData & { return row(b, n); });
}

void ConformanceTest::renameLongName()
{
    // A 252-byte name in the way, with Rename: the copy gets the free name of copyrules.h,
    // shortened to 255 bytes, on every protocol alike.
    QFETCH(QByteArray, direction);
    const QByteArray name = QByteArray(248, 'n') + ".txt";
    const QByteArray expected = freeNameCandidate(name, false, 0);
    QCOMPARE(expected.size(), 255);
    const QByteArray fresh("fresh content");
    QUrl from;
    QUrl destFolder;
    if (direction == "out") {
        SEED((Tree { dir("src"), file("src/" + name, fresh) }));
        REQUIRE(Backend::Stat | Backend::Read, QByteArray("src/" + name));
        QVERIFY(mkdirRaw(local("dst")));
        QVERIFY(writeRaw(local("dst/" + name), "old"));
        from = url("src/" + name);
        destFolder = localUrl("dst");
    } else {
        REQUIRE(Backend::Stat | Backend::Read | Backend::Write | Backend::List);
        if (direction == "in") {
            SEED((Tree { file(name, "old") }));
            QVERIFY(writeRaw(local(name), fresh));
            from = localUrl(name);
            destFolder = url({});
        } else {
            SEED((Tree { dir("src"), file("src/" + name, fresh), dir("dst"), file("dst/" + name, "old") }));
            from = url("src/" + name);
            destFolder = url("dst");
        }
    }
    CopyJob *job = Qvfs::copy(from, destFolder);
    job->setConflictPolicy(ConflictPolicy::Rename);
    auto j = run(job);
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    const QList<QByteArray> names = sorted(QList<QByteArray> { name, expected });
    if (direction == "out") {
        QCOMPARE(namesIn(local("dst")), names);
        QCOMPARE(readRaw(local("dst/" + expected)), fresh);
        QCOMPARE(readRaw(local("dst/" + name)), QByteArray("old"));
    } else {
        const QByteArray folder = direction == "within" ? QByteArray("dst") : QByteArray();
        compareNames(folder, names);
        QCOMPARE(readBack(folder.isEmpty() ? expected : join(folder, expected)).data, fresh);
        QCOMPARE(readBack(folder.isEmpty() ? name : join(folder, name)).data, QByteArray("old"));
    }
}

void ConformanceTest::mergeIntoExisting_data()
{
    QTest::addColumn<bool>("move");
    for (const auto &b : m_backends) {
        row(b.get(), "copy") << false;
        row(b.get(), "move") << true;
    }
}

void ConformanceTest::mergeIntoExisting()
{
    // tree/{a, sub/b} into dst, where dst/tree/{x, sub} exist, within one backend: the
    // content goes inside dst/tree (merged), never beside it into dst; a move renames
    // each entry on the server (Moved, no Copied) where the worker can.
    QFETCH(bool, move);
    REQUIRE(Backend::Stat | Backend::Read | Backend::Write | Backend::Mkdir | Backend::List
        | (move ? Backend::Delete : Backend::Capabilities()));
    SEED((Tree { dir("tree"), file("tree/a", "alpha"), dir("tree/sub"), file("tree/sub/b", "beta"), dir("dst"),
        dir("dst/tree"), file("dst/tree/x", "theirs"), dir("dst/tree/sub") }));
    CopyJob *job = move ? Qvfs::move(url("tree"), url("dst")) : Qvfs::copy(url("tree"), url("dst"));
    int copied = 0;
    int moved = 0;
    connect(job, &CopyJob::copied, this, [&] { ++copied; });
    connect(job, &CopyJob::moved, this, [&] { ++moved; });
    auto j = run(job);
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    compareNames("dst", { "tree" });
    compareNames("dst/tree", { "a", "sub", "x" });
    compareNames("dst/tree/sub", { "b" });
    QCOMPARE(readBack("dst/tree/a").data, QByteArray("alpha"));
    QCOMPARE(readBack("dst/tree/sub/b").data, QByteArray("beta"));
    QCOMPARE(readBack("dst/tree/x").data, QByteArray("theirs"));
    if (move) {
        QCOMPARE(statOf("tree").error, int(ErrDoesNotExist));
        // a worker that copies inside itself, on a server that renames
        if (Protocol::find(m_b->scheme()).hasCapability(Protocol::Copy)
            && !(m_b->capabilities() & Backend::NoServerRename))
            QVERIFY2(copied == 0 && moved >= 2,
                qPrintable(QStringLiteral("copied %1, moved %2: the move copied data").arg(copied).arg(moved)));
    } else {
        compareNames("tree", { "a", "sub" });
    }
}

void ConformanceTest::mergeMovesNoData_data()
{
    QTest::addColumn<bool>("move");
    for (const auto &b : m_backends) {
        row(b.get(), "copy") << false;
        row(b.get(), "move") << true;
    }
}

void ConformanceTest::mergeMovesNoData()
{
    // A copy or move merged into an existing folder on one server, by a worker that copies
    // inside itself: the data stays with the worker (the application reads events and
    // progress, a few KiB, never the files).
    QFETCH(bool, move);
    constexpr qint64 Size = 2 * MiB;
    REQUIRE(Backend::Stat | Backend::Read | Backend::Write | Backend::Mkdir | Backend::List
        | (move ? Backend::Delete : Backend::Capabilities()));
    if (!Protocol::find(m_b->scheme()).hasCapability(Protocol::Copy))
        QSKIP("this worker does not copy inside itself: every copy goes through the application");
    SEED((Tree { dir("tree"), filled("tree/a", Size), dir("tree/sub"), filled("tree/sub/b", Size), dir("dst"),
        dir("dst/tree"), dir("dst/tree/sub") }));
    const qint64 before = ProcUtil::bytesReadBySelf();
    auto j = run(move ? Qvfs::move(url("tree"), url("dst")) : Qvfs::copy(url("tree"), url("dst")));
    const qint64 through = ProcUtil::bytesReadBySelf() - before;
    QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
    QVERIFY2(through < Size / 4, qPrintable(QStringLiteral("%1 bytes read by the application").arg(through)));
    QVERIFY(isFilled(readBack("dst/tree/a").data, Size, 'x'));
    QVERIFY(isFilled(readBack("dst/tree/sub/b").data, Size, 'x'));
}

// ---------------------------------------------------------------- kill mid-job

void ConformanceTest::killMidJob_data()
{
    QTest::addColumn<QByteArray>("operation"); // "get", "put", "copy out", "copy in"
    QTest::addColumn<bool>("emitResult");
    for (const auto &b : m_backends) {
        for (const char *op : { "get", "put", "copy out", "copy in" }) {
            row(b.get(), QByteArray(op) + ", quietly") << QByteArray(op) << false;
            row(b.get(), QByteArray(op) + ", with a result") << QByteArray(op) << true;
        }
    }
}

void ConformanceTest::killMidJob()
{
    QFETCH(QByteArray, operation);
    QFETCH(bool, emitResult);
    const bool out = operation == "get" || operation == "copy out";
    if (out) {
        SEED(Tree { filled("data", KillSize) });
        REQUIRE(Backend::Read | (operation == "get" ? Backend::Capabilities() : Backend::Stat), "data");
    } else {
        REQUIRE(Backend::Write | Backend::Stat);
        if (operation == "copy in")
            QVERIFY(writeBig(local("data"), KillSize));
    }
    QVERIFY(mkdirRaw(local("dst")));
    Job *job = nullptr;
    if (operation == "get") {
        job = Qvfs::get(url("data"));
    } else if (operation == "put") {
        TransferJob *put = Qvfs::put(url("data"));
        connect(put, &TransferJob::dataReq, this, [](TransferJob *, QByteArray &data) {
            data = QByteArray(256 * 1024, 'k'); // never ends by itself
        });
        job = put;
    } else if (operation == "copy out") {
        job = Qvfs::copy(url("data"), localUrl("dst"));
    } else {
        job = Qvfs::copy(localUrl("data"), url({}));
    }
    job->setAutoDelete(false);
    std::unique_ptr<Job> hold(job);
    QSignalSpy resultSpy(job, &Job::result);
    bool killed = false;
    bool killOk = false;
    qint64 bytesAtKill = -1;
    auto killIt = [&] {
        if (killed)
            return;
        killed = true;
        bytesAtKill = job->processedAmount(Job::Bytes);
        killOk = job->kill(emitResult ? Job::EmitResult : Job::Quietly);
    };
    connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
        if (unit == Job::Bytes && amount > 0)
            killIt();
    });
    if (TransferJob *t = qobject_cast<TransferJob *>(job))
        connect(t, &TransferJob::data, this, [&](TransferJob *, const QByteArray &) { killIt(); });
    QTimer::singleShot(300, job, killIt); // in case no progress came yet
    QTRY_VERIFY_WITH_TIMEOUT(killed, 20000);
    // (a job over before its kill says why)
    QVERIFY2(killOk,
        qPrintable(QStringLiteral("%1 at %2 bytes: %3").arg(job->error()).arg(bytesAtKill).arg(job->errorString())));
    QVERIFY2(operation == "put" || bytesAtKill < KillSize, "the job was over before the kill: nothing tested");
    QCOMPARE(resultSpy.count(), emitResult ? 1 : 0);
    if (emitResult)
        QCOMPARE(job->error(), int(ErrCancelled));
    // The worker stops promptly; nothing partial is left where the job was writing.
    QVERIFY2(settleWorkers(3000), "the worker did not stop after the kill");
    if (operation == "copy out") {
        QVERIFY(namesIn(local("dst")).isEmpty());
    } else if (!out) {
        QCOMPARE(statOf("data").error, int(ErrDoesNotExist));
        compareNames({}, {});
    }
    if (out && m_b->itemCapabilities("data") & Backend::Stat)
        QCOMPARE(statOf("data").entry.size(), KillSize); // the source stays
}

// ---------------------------------------------------------------- watch

void ConformanceTest::watch_data()
{
    QTest::addColumn<int>("pollMs");
    for (const auto &b : m_backends) {
        row(b.get(), "a lister follows a change made out of band") << 0;
        row(b.get(), "a lister asked to poll follows a change made out of band") << 300;
    }
}

void ConformanceTest::watch()
{
    // A folder a DirLister shows learns of a file made behind the worker's back: from
    // the worker's native watch, or by polling when asked to (a worker that watches
    // natively does so even then).
    QFETCH(int, pollMs);
    SEED((Tree { dir("w"), file("w/old", "x") }));
    if (pollMs > 0)
        REQUIRE(Backend::List | Backend::Seed);
    else
        REQUIRE(Backend::List | Backend::Watch);
    DirLister lister;
    lister.setPollInterval(pollMs);
    ListerTracker t(&lister);
    const QUrl u = Url::normalized(url("w"));
    QVERIFY(lister.open(u));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(t.names(u), (QSet<QByteArray> { "old" }));
    QCOMPARE(lister.watchMode(u), m_b->capabilities() & Backend::Watch ? WatchMode::Native : WatchMode::Polling);
    QByteArray why;
    QVERIFY2(m_b->seed(Tree { file("w/new", "hello") }, &why), why.constData());
    QVERIFY(waitFor([&] { return t.entry(u, "new").size() == 5; }));
    QVERIFY(waitQuiet(t, 2 * qMax(pollMs, 200)));
    QCOMPARE(t.names(u), (QSet<QByteArray> { "old", "new" }));
    QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));
    QCOMPARE(t.gone, 0);
}

QTEST_GUILESS_MAIN(ConformanceTest)
#include "conformancetest.moc"
