// SPDX-License-Identifier: LGPL-2.1-or-later
// Where a file URL becomes a path (issue 16, findings 4 and 8): after decoding, a "." or
// ".." segment ("%2E%2E" is one) and a NUL byte ("%00") make the URL malformed for every
// request of the file worker, so `rm -r file:///s/victim/x/%2E%2E` never empties victim/
// and `cat file:///s/s.txt%00.png` never reads s.txt. Every job of the public API, every
// form of URL, through the real worker; the fixture must be untouched afterwards.

#include "jobfixture.h"
#include "jobrunner.h"
#include "rawfs.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QTest>

#include <memory>

using namespace Qvfs;
using namespace QvfsTest;

class FileUrlPathTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void refusedEverywhere_data();
    void refusedEverywhere();

private:
    JobFixture m_fixture;
    QByteArray m_root;
};

void FileUrlPathTest::init()
{
    m_fixture.init();
    m_root = m_fixture.root();
    QVERIFY(mkdirRaw(join(m_root, "victim")) && mkdirRaw(join(m_root, "victim/x")));
    QVERIFY(writeRaw(join(m_root, "victim/keep.txt"), "keep"));
    QVERIFY(writeRaw(join(m_root, "s.txt"), "s"));
    QVERIFY(mkdirRaw(join(m_root, "dst")));
    // Times that any change would move.
    for (const char *p : { "victim/keep.txt", "s.txt", "victim/x", "victim", "dst" })
        QVERIFY(setTimes(join(m_root, p), 1000000000, 0));
}

void FileUrlPathTest::cleanup()
{
    m_fixture.cleanup();
}

void FileUrlPathTest::refusedEverywhere_data()
{
    QTest::addColumn<QByteArray>("operation");
    QTest::addColumn<QByteArray>("suffix"); // appended to the root's encoded URL
    const QList<QPair<const char *, const char *>> forms {
        { "%2E%2E last", "/victim/x/%2E%2E" },
        { ".. last", "/victim/x/.." },
        { "%2E last", "/victim/%2E" },
        { "%2E%2E inside", "/victim/x/%2E%2E/keep.txt" },
        { ". inside", "/victim/./keep.txt" },
        { "%2E%2E with a slash after it", "/victim/x/%2E%2E/" },
        { "NUL in a name", "/s.txt%00.png" },
        { "NUL at the end", "/s.txt%00" },
        { "NUL as a name", "/victim/%00" },
    };
    const char *operations[] = { "list", "listRecursive", "stat", "mkdir", "mkpath", "deleteTree", "deleteEntry",
        "deleteNotFolder", "renameFrom", "renameTo", "copyFrom", "copyTo", "copyAsTo", "moveFrom", "get", "put",
        "symlink", "chmod", "setTime", "size" };
    for (const char *op : operations) {
        for (const auto &form : forms)
            QTest::addRow("%s, %s", op, form.first) << QByteArray(op) << QByteArray(form.second);
    }
}

void FileUrlPathTest::refusedEverywhere()
{
    QFETCH(QByteArray, operation);
    QFETCH(QByteArray, suffix);
    const QUrl bad = QUrl::fromEncoded(Url::fromLocalPath(m_root).toEncoded() + suffix, QUrl::StrictMode);
    QVERIFY(bad.isValid());
    const QUrl file = Url::fromLocalPath(join(m_root, "s.txt"));
    const QUrl dst = Url::fromLocalPath(join(m_root, "dst"));
    const QMap<QByteArray, Node> before = snapshot(m_root);

    std::unique_ptr<Job> job;
    const auto start = [&job](Job *j) {
        j->setAutoDelete(false);
        job.reset(j);
    };
    if (operation == "list")
        start(Qvfs::listDir(bad));
    else if (operation == "listRecursive")
        start(Qvfs::listRecursive(bad));
    else if (operation == "stat")
        start(Qvfs::stat(bad));
    else if (operation == "mkdir")
        start(Qvfs::mkdir(bad));
    else if (operation == "mkpath")
        start(Qvfs::mkpath(bad));
    else if (operation == "deleteTree")
        start(Qvfs::del(bad, DeleteScope::Tree));
    else if (operation == "deleteEntry")
        start(Qvfs::del(bad, DeleteScope::EmptyFolders));
    else if (operation == "deleteNotFolder")
        start(Qvfs::del(bad, DeleteScope::NoFolders));
    else if (operation == "renameFrom")
        start(Qvfs::rename(bad, Url::fromLocalPath(join(m_root, "dst/renamed"))));
    else if (operation == "renameTo")
        start(Qvfs::rename(file, bad, true));
    else if (operation == "copyFrom")
        start(Qvfs::copy(bad, dst));
    else if (operation == "copyTo")
        start(Qvfs::copy(file, bad));
    else if (operation == "copyAsTo")
        start(Qvfs::copyAs(file, bad));
    else if (operation == "moveFrom")
        start(Qvfs::move(bad, dst));
    else if (operation == "get")
        start(Qvfs::storedGet(bad));
    else if (operation == "put")
        start(Qvfs::storedPut("overwritten", bad, -1, PutOverwrite));
    else if (operation == "symlink")
        start(Qvfs::symlink("/", bad));
    else if (operation == "chmod")
        start(Qvfs::chmod(bad, 0777));
    else if (operation == "setTime")
        start(Qvfs::setModificationTime(bad, 2000000000));
    else if (operation == "size")
        start(Qvfs::directorySize(bad));
    QVERIFY(job);
    runToResult(job.get());
    QCOMPARE(job->error(), int(ErrMalformedUrl));
    // (A move is refused by the job itself: the destination's name would be "..", "." or
    // hold a NUL byte, which no URL can name.)
    if (operation != "moveFrom")
        QCOMPARE(job->errorArgs().value(0), QString::fromLatin1(bad.toEncoded()));
    compareTrees(before, snapshot(m_root), false, true); // nothing touched, not even a time
    QVERIFY(!QTest::currentTestFailed());
}

QTEST_GUILESS_MAIN(FileUrlPathTest)

#include "fileurlpathtest.moc"
