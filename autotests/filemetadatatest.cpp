// SPDX-License-Identifier: LGPL-2.1-or-later
// What copies, moves and puts keep besides the data, through the real file:// worker and
// the jobs API, as an application meets it: POSIX ACLs and extended attributes (issue
// 15.1, 15.2), the owner of a replaced file (15.3), a symlink replaced rather than
// written through (16.7), pseudo files (16.12), and the per-file reports and skipped
// counts of a copy inside the worker.
//
// Tests run as root in CI; what needs root (other owners, mounts, trusted.*) is skipped
// otherwise. The engine's own cases are in fileopstest.cpp.

#include "procutil.h"
#include "rawfs.h"
#include "xattrs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <memory>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{

template<typename J>
std::unique_ptr<J> run(J *job)
{
    job->setAutoDelete(false);
    job->exec();
    return std::unique_ptr<J>(job);
}

} // namespace

class FileMetadataTest : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_root;
    QByteArray m_mount;
    bool m_isRoot = false;

    QByteArray path(const char *rel) const { return join(m_root, rel); }
    QUrl url(const char *rel) const { return fileUrl(path(rel)); }
    // Mounts a small filesystem of \a type (tmpfs: another filesystem with ACLs; ramfs:
    // one without extended attributes) on \a rel; false without root.
    bool mount(const char *rel, const char *type)
    {
        const QByteArray where = path(rel);
        ::mkdir(where.constData(), 0755);
        if (::mount(type, where.constData(), type, 0, std::strcmp(type, "tmpfs") == 0 ? "size=8m" : "") != 0)
            return false;
        m_mount = where;
        return true;
    }
    // A source file and folder with ACLs and user attributes: f (0640 + u:1000:rw, shows
    // 0660), d (0750, default ACL) holding g (inherits an ACL). False without ACLs here.
    bool makeSources()
    {
        if (!writeRaw(path("f"), "data", 0640) || !setXattr(path("f"), "system.posix_acl_access", userRwAcl())
            || !setXattr(path("f"), "user.xdg.origin.url", "https://example.org/f"))
            return false;
        return ::mkdir(path("d").constData(), 0750) == 0
            && setXattr(path("d"), "system.posix_acl_default", defaultAcl()) && setXattr(path("d"), "user.tag", "d")
            && writeRaw(path("d/g"), "g", 0640) && setXattr(path("d/g"), "user.tag", "g");
    }
    void compareMetadata(const QByteArray &src, const QByteArray &dst)
    {
        QCOMPARE(contentOf(dst), contentOf(src));
        QCOMPARE(lstatRaw(dst).st_mode & 07777, lstatRaw(src).st_mode & 07777);
        for (const char *name :
            { "system.posix_acl_access", "system.posix_acl_default", "user.xdg.origin.url", "user.tag" })
            QCOMPARE(xattrOf(dst, name), xattrOf(src, name));
    }

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void aclsAndAttributesKept_data();
    void aclsAndAttributesKept();
    void noMaskWithoutAcl();
    void replaceKeepsOwner_data();
    void replaceKeepsOwner();
    void putReplacesPlantedSymlink();
    void pseudoFiles_data();
    void pseudoFiles();
    void perFileSignals_data();
    void perFileSignals();
};

void FileMetadataTest::initTestCase()
{
    m_isRoot = ::geteuid() == 0;
}

void FileMetadataTest::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_tmp->setAutoRemove(false);
    m_root = QFile::encodeName(m_tmp->path());
    QCOMPARE(::chmod(m_root.constData(), 0755), 0);
}

void FileMetadataTest::cleanup()
{
    // no worker left running, no temporary left behind
    QElapsedTimer t;
    t.start();
    while (!ProcUtil::childPids().isEmpty() && t.elapsed() < 4000) {
        Qvfs::shutdownIdleWorkers();
        QTest::qWait(10);
    }
    const bool settled = ProcUtil::childPids().isEmpty();
    QList<QByteArray> temps;
    for (const QByteArray &dir : { m_root, m_mount, join(m_root, "out"), join(m_root, "d") }) {
        for (const QByteArray &n : namesIn(dir)) {
            if (n.contains(".qvfs-") && n.endsWith(".part"))
                temps.append(join(dir, n));
        }
    }
    if (!m_mount.isEmpty())
        ::umount2(m_mount.constData(), MNT_DETACH);
    m_mount.clear();
    removeTreeRaw(m_root); // unmounted above
    m_tmp.reset();
    QVERIFY2(settled, "a worker process is still running");
    QVERIFY2(temps.isEmpty(), QByteArray("temporaries left: " + temps.join(", ")).constData());
}

void FileMetadataTest::aclsAndAttributesKept_data()
{
    QTest::addColumn<QByteArray>("how");
    QTest::newRow("copy") << QByteArray("copy");
    QTest::newRow("copy as") << QByteArray("copyAs");
    QTest::newRow("move across filesystems") << QByteArray("move");
}

void FileMetadataTest::aclsAndAttributesKept()
{
    // issue 15.1 and 15.2: `qvfs cp f g` keeps the ACL and user.xdg.origin.url
    QFETCH(QByteArray, how);
    if (!makeSources())
        QSKIP("no ACLs or user attributes on this filesystem");
    // the sources as they are, to compare with (a move takes them away)
    QCOMPARE(::mkdir(path("ref").constData(), 0755), 0);
    QVERIFY(writeRaw(path("ref/f"), "data", 0640));
    QVERIFY(setXattr(path("ref/f"), "system.posix_acl_access", userRwAcl()));
    QVERIFY(setXattr(path("ref/f"), "user.xdg.origin.url", "https://example.org/f"));

    QByteArray out = path("out");
    std::unique_ptr<CopyJob> job;
    if (how == "move") {
        if (!mount("mnt", "tmpfs"))
            QSKIP("cannot mount a tmpfs (needs root)");
        out = m_mount;
        job = run(Qvfs::move({ url("f"), url("d") }, fileUrl(out)));
    } else {
        QCOMPARE(::mkdir(out.constData(), 0755), 0);
        job = how == "copyAs" ? run(Qvfs::copyAs(url("f"), fileUrl(join(out, "f"))))
                              : run(Qvfs::copy({ url("f"), url("d") }, fileUrl(out)));
    }
    QCOMPARE(job->error(), 0);
    compareMetadata(path("ref/f"), join(out, "f"));
    QCOMPARE(lstatRaw(join(out, "f")).st_mode & 07777, mode_t(0660));
    QCOMPARE(xattrOf(join(out, "f"), "system.posix_acl_access"), userRwAcl());
    if (how == "copyAs")
        return;
    QCOMPARE(xattrOf(join(out, "d"), "system.posix_acl_default"), defaultAcl());
    QCOMPARE(xattrOf(join(out, "d"), "user.tag"), QByteArrayLiteral("d"));
    QCOMPARE(lstatRaw(join(out, "d")).st_mode & 07777, mode_t(0750));
    QCOMPARE(xattrOf(join(out, "d/g"), "user.tag"), QByteArrayLiteral("g"));
    QVERIFY(xattrOf(join(out, "d/g"), "system.posix_acl_access") != "<none>"); // inherited in the source
    if (how == "move") {
        QVERIFY(namesIn(m_root).contains("mnt"));
        QVERIFY(!namesIn(m_root).contains("f"));
        QVERIFY(!namesIn(m_root).contains("d"));
    } else {
        compareMetadata(path("d/g"), join(out, "d/g"));
    }
}

void FileMetadataTest::noMaskWithoutAcl()
{
    // issue 15.1: where the ACL cannot follow, the mask (0660) must not become group rights
    if (!makeSources())
        QSKIP("no ACLs or user attributes on this filesystem");
    if (!mount("ramfs", "ramfs"))
        QSKIP("cannot mount a ramfs (needs root)");
    auto job = run(Qvfs::copy({ url("f"), url("d") }, fileUrl(m_mount)));
    QCOMPARE(job->error(), 0); // best effort: no error for what the filesystem cannot keep
    QCOMPARE(contentOf(join(m_mount, "f")), QByteArrayLiteral("data"));
    QCOMPARE(lstatRaw(join(m_mount, "f")).st_mode & 07777, mode_t(0640));
    // g inherited g::r-x and a mask of r--: the owning group keeps r--
    QCOMPARE(lstatRaw(join(m_mount, "d/g")).st_mode & 07777, mode_t(0640));
    QCOMPARE(lstatRaw(join(m_mount, "d")).st_mode & 07777, mode_t(0750));
}

void FileMetadataTest::replaceKeepsOwner_data()
{
    QTest::addColumn<QByteArray>("how");
    QTest::newRow("put -f") << QByteArray("put");
    QTest::newRow("cp -f (copy as)") << QByteArray("copyAs");
    QTest::newRow("overwriting copy into a folder") << QByteArray("copy");
}

void FileMetadataTest::replaceKeepsOwner()
{
    // issue 15.3: `chown 4242:4343 f; chmod 600 f; printf new | qvfs put -f f` keeps 4242:4343
    QFETCH(QByteArray, how);
    if (!m_isRoot)
        QSKIP("giving files to other users needs root");
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out/f"), "old", 0600));
    QCOMPARE(::chown(path("out/f").constData(), 4242, 4343), 0);
    QVERIFY(writeRaw(path("f"), "new", 0644));
    std::unique_ptr<Job> job;
    if (how == "put") {
        job = run(Qvfs::storedPut("new", url("out/f"), -1, PutOverwrite));
    } else {
        CopyJob *c = how == "copyAs" ? Qvfs::copyAs(url("f"), url("out/f")) : Qvfs::copy(url("f"), url("out"));
        c->setConflictPolicy(ConflictPolicy::Overwrite);
        job = run(c);
    }
    QCOMPARE(job->error(), 0);
    QCOMPARE(contentOf(path("out/f")), QByteArrayLiteral("new"));
    QCOMPARE(lstatRaw(path("out/f")).st_uid, uid_t(4242));
    QCOMPARE(lstatRaw(path("out/f")).st_gid, gid_t(4343));
    // a put keeps the replaced file's permissions, a copy brings the source's
    QCOMPARE(lstatRaw(path("out/f")).st_mode & 07777, mode_t(how == "put" ? 0600 : 0644));
}

void FileMetadataTest::putReplacesPlantedSymlink()
{
    // issue 16.7: in a shared sticky folder another user plants a link to root's secret;
    // `put -f` replaces the link, the secret stays as it was (also as root)
    QCOMPARE(::mkdir(path("shared").constData(), 0755), 0);
    QCOMPARE(::chmod(path("shared").constData(), 01777), 0);
    QVERIFY(writeRaw(path("secret"), "secret", 0600));
    QCOMPARE(::symlink("../secret", path("shared/report").constData()), 0);
    if (m_isRoot)
        QCOMPARE(::lchown(path("shared/report").constData(), 65534, 65534), 0);
    auto job = run(Qvfs::storedPut("report", url("shared/report"), -1, PutOverwrite));
    QCOMPARE(job->error(), 0);
    QVERIFY(S_ISREG(lstatRaw(path("shared/report")).st_mode));
    QCOMPARE(contentOf(path("shared/report")), QByteArrayLiteral("report"));
    QCOMPARE(lstatRaw(path("shared/report")).st_uid, ::geteuid()); // not the link's owner
    QCOMPARE(contentOf(path("secret")), QByteArrayLiteral("secret"));
    QCOMPARE(lstatRaw(path("secret")).st_mode & 07777, mode_t(0600));
    QCOMPARE(namesIn(path("shared")), QList<QByteArray> { "report" });
}

void FileMetadataTest::pseudoFiles_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::newRow("sysfs (st_size 4096, shorter)") << QByteArray("/sys/devices/system/cpu/online");
    QTest::newRow("proc (st_size 0, longer)") << QByteArray("/proc/version");
}

void FileMetadataTest::pseudoFiles()
{
    // issue 16.12: copied like `cp` does, not "changed while it was being copied"
    QFETCH(QByteArray, source);
    const QByteArray content = contentOf(source);
    if (content == CannotRead)
        QSKIP("not on this system");
    QVERIFY(qint64(lstatRaw(source).st_size) != qint64(content.size()));
    auto job = run(Qvfs::copyAs(fileUrl(source), url("copy")));
    QCOMPARE(job->error(), 0);
    QCOMPARE(contentOf(path("copy")), content);
    QCOMPARE(job->percent(), 100ul);
}

void FileMetadataTest::perFileSignals_data()
{
    QTest::addColumn<bool>("move");
    QTest::newRow("copy") << false;
    QTest::newRow("move") << true;
}

void FileMetadataTest::perFileSignals()
{
    // Skipped entries are counted apart, per-file signals come from inside the worker,
    // and percent still reaches 100.
    QFETCH(bool, move);
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("src/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/a"), QByteArray(1000, 'a')));
    QVERIFY(writeRaw(path("src/b"), QByteArray(500, 'b')));
    QVERIFY(writeRaw(path("src/sub/c"), "c"));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/src").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out/src/b"), "theirs"));

    CopyJob *c = move ? Qvfs::move(url("src"), url("out")) : Qvfs::copy(url("src"), url("out"));
    c->setConflictPolicy(ConflictPolicy::Skip);
    QStringList events;
    auto rel = [this](const QUrl &u) { return QString::fromUtf8(Url::localPath(u).mid(m_root.size() + 1)); };
    connect(c, &CopyJob::copying, this, [&](CopyJob *, const QUrl &f, const QUrl &t) {
        events.append(QStringLiteral("copying %1 %2").arg(rel(f), rel(t)));
    });
    connect(c, &CopyJob::copied, this, [&](CopyJob *, const QUrl &f, const QUrl &t) {
        events.append(QStringLiteral("copied %1 %2").arg(rel(f), rel(t)));
    });
    connect(c, &CopyJob::createdFolder, this,
        [&](CopyJob *, const QUrl &u) { events.append(QStringLiteral("created %1").arg(rel(u))); });
    connect(c, &CopyJob::skipped, this, [&](CopyJob *, const QUrl &f, const QUrl &t) {
        events.append(QStringLiteral("skipped %1 %2").arg(rel(f), rel(t)));
    });
    connect(c, &CopyJob::moved, this, [&](CopyJob *, const QUrl &f, const QUrl &t) {
        events.append(QStringLiteral("moved %1 %2").arg(rel(f), rel(t)));
    });
    auto job = run(c);
    QCOMPARE(job->error(), 0);
    QCOMPARE(job->skippedCount(), qint64(1));
    QStringList expected;
    if (move) {
        // merged into out/src: the rest is renamed
        expected = QStringList { QStringLiteral("moved src/a out/src/a"), QStringLiteral("moved src/sub out/src/sub"),
            QStringLiteral("skipped src/b out/src/b") };
    } else {
        expected = QStringList { QStringLiteral("copying src/a out/src/a"), QStringLiteral("copied src/a out/src/a"),
            QStringLiteral("skipped src/b out/src/b"), QStringLiteral("created out/src/sub"),
            QStringLiteral("copying src/sub/c out/src/sub/c"), QStringLiteral("copied src/sub/c out/src/sub/c") };
        // as KIO counts: 3 files found, 2 processed; the skipped bytes left the byte
        // total, so the bytes done reach it
        QCOMPARE(job->totalAmount(Job::Bytes), qint64(1001));
        QCOMPARE(job->processedAmount(Job::Bytes), qint64(1001));
        QCOMPARE(job->totalAmount(Job::Files), qint64(3));
        QCOMPARE(job->processedAmount(Job::Files), qint64(2));
        QCOMPARE(job->percent(), 100ul);
    }
    QStringList got = events;
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
    QCOMPARE(job->percent(), 100ul);
    QCOMPARE(contentOf(path("out/src/b")), QByteArrayLiteral("theirs"));
    if (move)
        QCOMPARE(namesIn(path("src")), QList<QByteArray> { "b" }); // the skipped file stays
}

QTEST_GUILESS_MAIN(FileMetadataTest)

#include "filemetadatatest.moc"
