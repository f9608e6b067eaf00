// SPDX-License-Identifier: LGPL-2.1-or-later
// Tests of the file:// worker's local operations (src/workers/file/fileops*.cpp).
#include "fileops.h"
#include "error.h"
#include "fileops_tempfile_p.h"
#include "fileops_testhook_p.h"

#include "asnobody.h"
#include "fixturedir.h"
#include "procutil.h"
#include "rawfs.h"
#include "tmpfsmount.h"
#include "xattrs.h"

#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtEndian>

#include <algorithm>
#include <functional>
#include <memory>

using namespace Qvfs;
using namespace QvfsTest;
using ProcUtil::openFdCount;
using namespace Qvfs::FileOps;

// QSKIP with one argument trips -pedantic (empty variadic macro arguments) in Qt 6.4
#define SKIP_TEST(message)                                                                                             \
    do {                                                                                                               \
        QTest::qSkip(message, __FILE__, __LINE__);                                                                     \
        return;                                                                                                        \
    } while (false)

namespace
{

class TestContext : public Context
{
public:
    bool isCancelled() override
    {
        ++cancelChecks;
        return cancelWhen && cancelWhen(*this);
    }
    void setTotals(qint64 b, qint64 f, qint64 d) override
    {
        totalsSet = true;
        totalBytes = b;
        totalFiles = f;
        totalDirs = d;
    }
    void progress(qint64 b, qint64 f, qint64 d) override
    {
        bytes = b;
        files = f;
        dirs = d;
        ++progressCalls;
        if (onProgress)
            onProgress(*this);
    }
    ConflictAction askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) override
    {
        asked.append(qMakePair(src, dst));
        *applyToAll = answerAll;
        return answer;
    }
    void skipped(qint64 count) override { skippedCount = count; }
    UnreadableAction unreadable(const QByteArray &path, int error) override
    {
        unreadables.append(qMakePair(path, error));
        return unreadableAnswer;
    }
    void item(CopyItemEvent event, const QByteArray &source, const QByteArray &destination) override
    {
        static const char *const names[] = { "?", "copying", "copied", "created folder", "skipped", "moved" };
        items.append(QByteArray(names[int(event) < 6 ? int(event) : 0]) + ' ' + source + " -> " + destination);
    }

    QList<QByteArray> items; // "event source -> destination"
    qint64 skippedCount = 0;
    std::function<bool(TestContext &)> cancelWhen;
    std::function<void(TestContext &)> onProgress;
    ConflictAction answer = ConflictAction::Cancel;
    bool answerAll = false;
    QList<QPair<QByteArray, QByteArray>> asked;
    QList<QPair<QByteArray, int>> unreadables; // (path, error) of each unreadable() call
    UnreadableAction unreadableAnswer = UnreadableAction::Skip;
    int cancelChecks = 0;
    int progressCalls = 0;
    bool totalsSet = false;
    qint64 totalBytes = -1, totalFiles = -1, totalDirs = -1;
    qint64 bytes = 0, files = 0, dirs = 0;
};

// A file of \a size bytes of a repeating, non-zero pattern.
bool writeBigFile(const QByteArray &path, qint64 size)
{
    QByteArray block(int(MiB), Qt::Uninitialized);
    for (int i = 0; i < block.size(); ++i)
        block[i] = char('a' + i % 23);
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    bool ok = true;
    for (qint64 done = 0; ok && done < size; done += block.size())
        ok = ::write(fd, block.constData(), size_t(std::min<qint64>(block.size(), size - done)))
            == std::min<qint64>(block.size(), size - done);
    ::close(fd);
    return ok;
}

CopyOptions options(ConflictPolicy conflict = ConflictPolicy::Fail, bool preserve = true, bool move = false)
{
    CopyOptions o;
    o.conflict = conflict;
    o.preserve = preserve;
    o.move = move;
    return o;
}

} // namespace

Q_DECLARE_METATYPE(Qvfs::ConflictPolicy)
Q_DECLARE_METATYPE(Qvfs::ConflictAction)

class FileOpsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void errorMapping_data();
    void errorMapping();
    void copyFile_data();
    void copyFile();
    void copyTree();
    void copySymlinkNotFollowed();
    void copyManySources();
    void copySparse_data();
    void copySparse();
    void copyOntoItself_data();
    void copyOntoItself();
    void copyIntoItself_data();
    void copyIntoItself();
    void conflicts_data();
    void conflicts();
    void askApplyToAll();
    void conflictRenameFolder();
    void mergeFolders();
    void overwriteSymlinkDestination();
    void moveSameFilesystem();
    void moveMerge();
    void moveCrossFilesystem();
    void moveCrossFilesystemFailureKeepsSources();
    void copyErrors_data();
    void copyErrors();
    void accessDenied_data();
    void accessDenied();
    void diskFull_data();
    void diskFull();
    void sourceChanged();
    void cancel_data();
    void cancel();
    void sigkill_data();
    void sigkill();
    void userPartFileUntouched();
    void oddNames_data();
    void oddNames();
    void remove_data();
    void remove();
    void removeDoesNotFollowSymlinks();
    void mkdir_data();
    void mkdir();
    void mkdirMode();
    void rename_data();
    void rename();
    void symlink();
    void chmod();
    void directorySize();
    void atomicWriter_data();
    void atomicWriter();
    void atomicWriterErrors();

    void copyGrowingSparse_data();
    void copyGrowingSparse();
    void copyPseudoFile_data();
    void copyPseudoFile();
    void keepAcl_data();
    void keepAcl();
    void keepXattrs_data();
    void keepXattrs();
    void replaceKeepsOwner_data();
    void replaceKeepsOwner();
    void tempNameOwner_data();
    void tempNameOwner();
    void staleTemporaries();
    void itemReports();
    void skippedNotProcessed_data();
    void skippedNotProcessed();

private:
    QByteArray path(const char *name) const { return join(m_root, name); }
    QByteArray path(const QByteArray &name) const { return join(m_root, name); }

    std::unique_ptr<FixtureDir> m_tmp;
    QByteArray m_root;
    int m_fdCount = 0;
};

void FileOpsTest::init()
{
    // 0755, so that a test running as nobody fails on the file it targets, not on the fixture
    m_tmp = std::make_unique<FixtureDir>();
    QVERIFY2(m_tmp->isValid(), m_tmp->errorString().constData());
    m_root = m_tmp->path();
    m_fdCount = openFdCount();
}

void FileOpsTest::cleanup()
{
    FileOps::testHook = nullptr;
    QCOMPARE(openFdCount(), m_fdCount); // no fd leaked, errors and cancels included
    m_tmp.reset(); // removed with raw calls: odd names and closed folders too
}

void FileOpsTest::errorMapping_data()
{
    QTest::addColumn<int>("err");
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("expected");
    const int read = int(Operation::Read);
    const int write = int(Operation::Write);
    const int del = int(Operation::Delete);
    QTest::newRow("0") << 0 << read << int(NoError);
    QTest::newRow("ENOENT") << ENOENT << read << int(ErrDoesNotExist);
    QTest::newRow("EACCES") << EACCES << write << int(ErrAccessDenied);
    QTest::newRow("EPERM") << EPERM << del << int(ErrAccessDenied);
    QTest::newRow("ENOSPC") << ENOSPC << write << int(ErrDiskFull);
    QTest::newRow("EDQUOT") << EDQUOT << write << int(ErrDiskFull);
    QTest::newRow("EFBIG") << EFBIG << write << int(ErrFileTooLarge);
    QTest::newRow("EEXIST") << EEXIST << write << int(ErrAlreadyExists);
    QTest::newRow("EISDIR") << EISDIR << read << int(ErrIsDirectory);
    QTest::newRow("ENOTDIR") << ENOTDIR << read << int(ErrIsNotDirectory);
    QTest::newRow("ENOTEMPTY") << ENOTEMPTY << del << int(ErrDirectoryNotEmpty);
    QTest::newRow("ENAMETOOLONG") << ENAMETOOLONG << read << int(ErrNameTooLong);
    QTest::newRow("ELOOP") << ELOOP << read << int(ErrSymlinkLoop);
    QTest::newRow("EROFS") << EROFS << write << int(ErrReadOnlyFilesystem);
    QTest::newRow("EXDEV") << EXDEV << write << int(ErrUnsupportedAction);
    QTest::newRow("EIO read") << EIO << read << int(ErrCannotRead);
    QTest::newRow("EIO write") << EIO << write << int(ErrCannotWrite);
    QTest::newRow("EIO delete") << EIO << del << int(ErrCannotDelete);
    QTest::newRow("EBUSY delete") << EBUSY << del << int(ErrCannotDelete);
    QTest::newRow("other") << EPROTO << read << int(ErrInternal);
}

void FileOpsTest::errorMapping()
{
    QFETCH(int, err);
    QFETCH(int, op);
    QFETCH(int, expected);
    QCOMPARE(errorFromErrno(err, Operation(op)), expected);
}

void FileOpsTest::copyFile_data()
{
    QTest::addColumn<qint64>("size");
    QTest::addColumn<bool>("preserve");
    QTest::addColumn<bool>("tmpFile");
    QTest::addColumn<bool>("destIsDirectory");
    QTest::newRow("small") << qint64(100) << true << true << true;
    QTest::newRow("empty") << qint64(0) << true << true << true;
    QTest::newRow("copyAs") << qint64(5000) << true << true << false;
    QTest::newRow("no preserve") << qint64(5000) << false << true << true;
    QTest::newRow(".part fallback") << qint64(5000) << true << false << true;
    QTest::newRow("20 MiB, several chunks") << 20 * MiB << true << true << true;
    QTest::newRow("20 MiB, .part") << 20 * MiB << true << false << false;
}

void FileOpsTest::copyFile()
{
    QFETCH(qint64, size);
    QFETCH(bool, preserve);
    QFETCH(bool, tmpFile);
    QFETCH(bool, destIsDirectory);
    const QByteArray src = path("source.bin");
    QVERIFY(writeBigFile(src, size));
    QCOMPARE(::chmod(src.constData(), 0640), 0);
    QVERIFY(setTimes(src, 1600000000, 123456789));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);

    TestContext context;
    CopyOptions o = options(ConflictPolicy::Fail, preserve);
    o.allowTmpFile = tmpFile;
    const QByteArray dst = destIsDirectory ? path("out/source.bin") : path("out/renamed.bin");
    const OpResult r = FileOps::copy({ src }, destIsDirectory ? path("out") : dst, destIsDirectory, o, context);
    QVERIFY2(r.ok(), r.path.constData());
    QCOMPARE(contentOf(dst), contentOf(src));
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { dst.mid(dst.lastIndexOf('/') + 1) }); // no temporary left
    const struct stat st = lstatRaw(dst);
    QVERIFY(S_ISREG(st.st_mode));
    if (preserve) {
        QCOMPARE(st.st_mode & 07777, mode_t(0640));
        QCOMPARE(qint64(st.st_mtim.tv_sec), qint64(1600000000));
        QCOMPARE(qint64(st.st_mtim.tv_nsec), qint64(123456789));
    } else {
        const mode_t mask = ::umask(022);
        ::umask(mask);
        QCOMPARE(st.st_mode & 07777, mode_t(0640 & ~mask));
        QVERIFY(st.st_mtim.tv_sec > 1600000000);
    }
    QVERIFY(context.totalsSet);
    QCOMPARE(context.totalBytes, size);
    QCOMPARE(context.totalFiles, qint64(1));
    QCOMPARE(context.totalDirs, qint64(0));
    QCOMPARE(context.bytes, size);
    QCOMPARE(context.files, qint64(1));
    if (size > 16 * MiB)
        QVERIFY(context.progressCalls >= 2);
}

void FileOpsTest::copyTree()
{
    const QByteArray tree = path("tree");
    QCOMPARE(::mkdir(tree.constData(), 0750), 0);
    QCOMPARE(::mkdir(path("tree/sub").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/sub/deeper").constData(), 0700), 0);
    QCOMPARE(::mkdir(path("tree/empty").constData(), 0755), 0);
    QVERIFY(writeRaw(path("tree/a.txt"), QByteArrayLiteral("alpha"), 0600));
    QVERIFY(writeRaw(path("tree/sub/b.txt"), QByteArrayLiteral("beta!"), 0644));
    QVERIFY(writeRaw(path("tree/sub/deeper/c"), QByteArray(3000, 'c'), 0755));
    QCOMPARE(::symlink("a.txt", path("tree/link").constData()), 0);
    QCOMPARE(::symlink("/nonexistent/target", path("tree/dangling").constData()), 0);
    QCOMPARE(::mkfifo(path("tree/fifo").constData(), 0640), 0);
    QVERIFY(setTimes(path("tree/link"), 1500000000, 111));
    QVERIFY(setTimes(path("tree/sub"), 1400000000, 999999999));
    QVERIFY(setTimes(tree, 1300000000, 42));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);

    TestContext context;
    const OpResult r = FileOps::copy({ tree }, path("out"), true, options(), context);
    QVERIFY2(r.ok(), r.path.constData());

    QCOMPARE(namesIn(path("out/tree")), (QList<QByteArray> { "a.txt", "dangling", "empty", "fifo", "link", "sub" }));
    QCOMPARE(contentOf(path("out/tree/a.txt")), QByteArrayLiteral("alpha"));
    QCOMPARE(contentOf(path("out/tree/sub/b.txt")), QByteArrayLiteral("beta!"));
    QCOMPARE(contentOf(path("out/tree/sub/deeper/c")), QByteArray(3000, 'c'));
    QVERIFY(namesIn(path("out/tree/empty")).isEmpty());
    QVERIFY(S_ISLNK(lstatRaw(path("out/tree/link")).st_mode));
    QCOMPARE(readLinkRaw(path("out/tree/link")), QByteArrayLiteral("a.txt"));
    QCOMPARE(readLinkRaw(path("out/tree/dangling")), QByteArrayLiteral("/nonexistent/target"));
    QVERIFY(S_ISFIFO(lstatRaw(path("out/tree/fifo")).st_mode));
    QCOMPARE(lstatRaw(path("out/tree/fifo")).st_mode & 07777, mode_t(0640));
    // permissions and times with nanoseconds, folders included (set after their content)
    QCOMPARE(lstatRaw(path("out/tree")).st_mode & 07777, mode_t(0750));
    QCOMPARE(lstatRaw(path("out/tree/sub/deeper")).st_mode & 07777, mode_t(0700));
    QCOMPARE(lstatRaw(path("out/tree/a.txt")).st_mode & 07777, mode_t(0600));
    QCOMPARE(lstatRaw(path("out/tree/sub/deeper/c")).st_mode & 07777, mode_t(0755));
    QCOMPARE(qint64(lstatRaw(path("out/tree")).st_mtim.tv_sec), qint64(1300000000));
    QCOMPARE(qint64(lstatRaw(path("out/tree")).st_mtim.tv_nsec), qint64(42));
    QCOMPARE(qint64(lstatRaw(path("out/tree/sub")).st_mtim.tv_sec), qint64(1400000000));
    QCOMPARE(qint64(lstatRaw(path("out/tree/sub")).st_mtim.tv_nsec), qint64(999999999));
    QCOMPARE(qint64(lstatRaw(path("out/tree/link")).st_mtim.tv_sec), qint64(1500000000));
    QCOMPARE(qint64(lstatRaw(path("out/tree/link")).st_mtim.tv_nsec), qint64(111));

    // totals counted first, progress reaches them: 5 + 3000 bytes, 6 non-folders, 4 folders
    QVERIFY(context.totalsSet);
    QCOMPARE(context.totalBytes, qint64(3010));
    QCOMPARE(context.totalFiles, qint64(6));
    QCOMPARE(context.totalDirs, qint64(4));
    QCOMPARE(context.bytes, context.totalBytes);
    QCOMPARE(context.files, context.totalFiles);
    QCOMPARE(context.dirs, context.totalDirs);
}

void FileOpsTest::copySymlinkNotFollowed()
{
    QCOMPARE(::mkdir(path("target").constData(), 0755), 0);
    QVERIFY(writeRaw(path("target/big"), QByteArray(10000, 'x')));
    QCOMPARE(::symlink(path("target").constData(), path("link").constData()), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    const OpResult r = FileOps::copy({ path("link") }, path("out"), true, options(), context);
    QVERIFY(r.ok());
    QVERIFY(S_ISLNK(lstatRaw(path("out/link")).st_mode));
    QCOMPARE(readLinkRaw(path("out/link")), path("target"));
    QCOMPARE(context.totalBytes, qint64(0));
    QCOMPARE(context.totalFiles, qint64(1));
}

void FileOpsTest::copyManySources()
{
    QVERIFY(writeRaw(path("one"), QByteArrayLiteral("1")));
    QVERIFY(writeRaw(path("two"), QByteArrayLiteral("22")));
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    OpResult r = FileOps::copy({ path("one"), path("two"), path("dir") }, path("out"), true, options(), context);
    QVERIFY(r.ok());
    QCOMPARE(namesIn(path("out")), (QList<QByteArray> { "dir", "one", "two" }));
    QCOMPARE(context.totalBytes, qint64(3));
    QCOMPARE(context.totalFiles, qint64(2));
    QCOMPARE(context.totalDirs, qint64(1));
    // copyAs wants one source
    r = FileOps::copy({ path("one"), path("two") }, path("out/x"), false, options(), context);
    QCOMPARE(r.error, int(ErrInternal));
}

void FileOpsTest::copySparse_data()
{
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("O_TMPFILE") << true;
    QTest::newRow(".part") << false;
}

void FileOpsTest::copySparse()
{
    QFETCH(bool, tmpFile);
    const QByteArray src = path("sparse");
    const qint64 size = 5 * 1024 * MiB; // over 4 GiB
    const int fd = ::open(src.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    const QByteArray head(65536, 'h');
    const QByteArray middle(65536, 'm');
    QCOMPARE(::pwrite(fd, head.constData(), size_t(head.size()), 0), ssize_t(head.size()));
    QCOMPARE(::pwrite(fd, middle.constData(), size_t(middle.size()), off_t(4608) * MiB), ssize_t(middle.size()));
    QCOMPARE(::ftruncate(fd, off_t(size)), 0);
    ::close(fd);
    const struct stat srcSt = lstatRaw(src);
    QCOMPARE(qint64(srcSt.st_size), size);
    if (qint64(srcSt.st_blocks) * 512 >= size)
        SKIP_TEST("this filesystem does not make sparse files");

    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    CopyOptions o;
    o.allowTmpFile = tmpFile;
    const OpResult r = FileOps::copy({ src }, path("out"), true, o, context);
    QVERIFY2(r.ok(), r.detail.constData());
    const struct stat st = lstatRaw(path("out/sparse"));
    QCOMPARE(qint64(st.st_size), size);
    QVERIFY2(qint64(st.st_blocks) * 512 <= 4 * MiB, QByteArray::number(qint64(st.st_blocks)).constData());
    QCOMPARE(context.bytes, size); // holes count as done
    const int in = ::open(path("out/sparse").constData(), O_RDONLY | O_CLOEXEC);
    QVERIFY(in >= 0);
    QByteArray buffer(65536, 0);
    QCOMPARE(::pread(in, buffer.data(), 65536, 0), ssize_t(65536));
    QCOMPARE(buffer, head);
    QCOMPARE(::pread(in, buffer.data(), 65536, off_t(4608) * MiB), ssize_t(65536));
    QCOMPARE(buffer, middle);
    QCOMPARE(::pread(in, buffer.data(), 65536, off_t(2048) * MiB), ssize_t(65536));
    QCOMPARE(buffer, QByteArray(65536, 0));
    ::close(in);
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { "sparse" });
}

void FileOpsTest::copyOntoItself_data()
{
    QTest::addColumn<int>("kind"); // 0: into its own folder, 1: onto a hard link, 2: folder into its parent
    QTest::addColumn<ConflictPolicy>("conflict");
    QTest::addColumn<bool>("move");
    QTest::newRow("file, fail") << 0 << ConflictPolicy::Fail << false;
    QTest::newRow("file, overwrite") << 0 << ConflictPolicy::Overwrite << false;
    QTest::newRow("file, skip") << 0 << ConflictPolicy::Skip << false;
    QTest::newRow("file, ask") << 0 << ConflictPolicy::Ask << false;
    QTest::newRow("hard link, overwrite") << 1 << ConflictPolicy::Overwrite << false;
    QTest::newRow("folder, overwrite") << 2 << ConflictPolicy::Overwrite << false;
    QTest::newRow("file, move") << 0 << ConflictPolicy::Overwrite << true;
    QTest::newRow("hard link, move") << 1 << ConflictPolicy::Overwrite << true;
}

void FileOpsTest::copyOntoItself()
{
    QFETCH(int, kind);
    QFETCH(ConflictPolicy, conflict);
    QFETCH(bool, move);
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/file"), QByteArrayLiteral("precious")));
    QCOMPARE(::link(path("dir/file").constData(), path("dir/hardlink").constData()), 0);
    const struct stat before = lstatRaw(path("dir/file"));
    TestContext context;
    OpResult r;
    QByteArray expectedPath;
    if (kind == 0) {
        r = FileOps::copy({ path("dir/file") }, path("dir"), true, options(conflict, true, move), context);
        expectedPath = path("dir/file");
    } else if (kind == 1) {
        r = FileOps::copy({ path("dir/file") }, path("dir/hardlink"), false, options(conflict, true, move), context);
        expectedPath = path("dir/hardlink");
    } else {
        r = FileOps::copy({ path("dir") }, m_root, true, options(conflict, true, move), context);
        expectedPath = path("dir");
    }
    QCOMPARE(r.error, int(ErrIdenticalFiles));
    QCOMPARE(r.path, expectedPath);
    QVERIFY(context.asked.isEmpty());
    QCOMPARE(namesIn(path("dir")), (QList<QByteArray> { "file", "hardlink" }));
    QCOMPARE(contentOf(path("dir/file")), QByteArrayLiteral("precious"));
    QCOMPARE(lstatRaw(path("dir/file")).st_ino, before.st_ino);
    if (kind == 0 && !move) {
        // except when the policy renames: that makes a second copy
        r = FileOps::copy({ path("dir/file") }, path("dir"), true, options(ConflictPolicy::Rename), context);
        QVERIFY(r.ok());
        QCOMPARE(contentOf(path("dir/file (1)")), QByteArrayLiteral("precious"));
    }
}

void FileOpsTest::copyIntoItself_data()
{
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<bool>("destIsDirectory");
    QTest::addColumn<bool>("move");
    QTest::newRow("into itself") << QByteArray("dir") << true << false;
    QTest::newRow("into a subfolder") << QByteArray("dir/sub/deeper") << true << false;
    QTest::newRow("as a subfolder") << QByteArray("dir/sub/copy") << false << false;
    QTest::newRow("through a symlink") << QByteArray("link-to-sub") << true << false;
    QTest::newRow("move into a subfolder") << QByteArray("dir/sub") << true << true;
}

void FileOpsTest::copyIntoItself()
{
    QFETCH(QByteArray, dest);
    QFETCH(bool, destIsDirectory);
    QFETCH(bool, move);
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("dir/sub").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("dir/sub/deeper").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/file"), QByteArrayLiteral("x")));
    QVERIFY(writeRaw(path("other"), QByteArrayLiteral("y")));
    QCOMPARE(::symlink(path("dir/sub").constData(), path("link-to-sub").constData()), 0);
    TestContext context;
    // a harmless first source: nothing at all may be written, not even it
    const QList<QByteArray> sources
        = destIsDirectory ? QList<QByteArray> { path("other"), path("dir") } : QList<QByteArray> { path("dir") };
    const OpResult r
        = FileOps::copy(sources, path(dest), destIsDirectory, options(ConflictPolicy::Fail, true, move), context);
    QCOMPARE(r.error, int(ErrCycle));
    QCOMPARE(r.path, path("dir"));
    QCOMPARE(namesIn(path("dir")), (QList<QByteArray> { "file", "sub" }));
    QCOMPARE(namesIn(path("dir/sub")), QList<QByteArray> { "deeper" });
    QVERIFY(namesIn(path("dir/sub/deeper")).isEmpty());
    QVERIFY(existsRaw(path("other")));
}

void FileOpsTest::conflicts_data()
{
    QTest::addColumn<ConflictPolicy>("conflict");
    QTest::addColumn<ConflictAction>("answer");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("content"); // of file.txt afterwards
    QTest::addColumn<QList<QByteArray>>("names"); // in out/ afterwards
    QTest::addColumn<bool>("asked");
    const QList<QByteArray> plain { "file (1).txt", "file.txt" };
    const QList<QByteArray> renamed { "file (1).txt", "file (2).txt", "file.txt" };
    QTest::newRow("fail") << ConflictPolicy::Fail << ConflictAction::Cancel << int(ErrAlreadyExists)
                          << QByteArray("old") << plain << false;
    QTest::newRow("overwrite") << ConflictPolicy::Overwrite << ConflictAction::Cancel << 0 << QByteArray("new") << plain
                               << false;
    QTest::newRow("skip") << ConflictPolicy::Skip << ConflictAction::Cancel << 0 << QByteArray("old") << plain << false;
    QTest::newRow("rename") << ConflictPolicy::Rename << ConflictAction::Cancel << 0 << QByteArray("old") << renamed
                            << false;
    QTest::newRow("ask: overwrite") << ConflictPolicy::Ask << ConflictAction::Overwrite << 0 << QByteArray("new")
                                    << plain << true;
    QTest::newRow("ask: skip") << ConflictPolicy::Ask << ConflictAction::Skip << 0 << QByteArray("old") << plain
                               << true;
    QTest::newRow("ask: rename") << ConflictPolicy::Ask << ConflictAction::Rename << 0 << QByteArray("old") << renamed
                                 << true;
    QTest::newRow("ask: cancel") << ConflictPolicy::Ask << ConflictAction::Cancel << int(ErrCancelled)
                                 << QByteArray("old") << plain << true;
}

void FileOpsTest::conflicts()
{
    QFETCH(ConflictPolicy, conflict);
    QFETCH(ConflictAction, answer);
    QFETCH(int, error);
    QFETCH(QByteArray, content);
    QFETCH(QList<QByteArray>, names);
    QFETCH(bool, asked);
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/file.txt"), QByteArrayLiteral("new")));
    QVERIFY(writeRaw(path("out/file.txt"), QByteArrayLiteral("old")));
    QVERIFY(writeRaw(path("out/file (1).txt"), QByteArrayLiteral("older")));
    TestContext context;
    context.answer = answer;
    const OpResult r = FileOps::copy({ path("src/file.txt") }, path("out"), true, options(conflict), context);
    QCOMPARE(r.error, error);
    if (error != 0)
        QCOMPARE(r.path, path("out/file.txt"));
    QCOMPARE(contentOf(path("out/file.txt")), content);
    QCOMPARE(contentOf(path("out/file (1).txt")), QByteArrayLiteral("older"));
    QCOMPARE(namesIn(path("out")), names);
    if (names.contains("file (2).txt"))
        QCOMPARE(contentOf(path("out/file (2).txt")), QByteArrayLiteral("new"));
    QCOMPARE(context.asked.size(), asked ? 1 : 0);
    if (asked) {
        QCOMPARE(context.asked.at(0).first, path("src/file.txt"));
        QCOMPARE(context.asked.at(0).second, path("out/file.txt"));
    }
}

void FileOpsTest::askApplyToAll()
{
    // a folder merged into an existing one: conflicts apply per file, asked once for all
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/src").constData(), 0755), 0);
    for (const char *name : { "a", "b", "c" }) {
        QVERIFY(writeRaw(path("src/") + name, QByteArrayLiteral("new")));
        QVERIFY(writeRaw(path("out/src/") + name, QByteArrayLiteral("old")));
    }
    TestContext context;
    context.answer = ConflictAction::Overwrite;
    context.answerAll = true;
    const OpResult r = FileOps::copy({ path("src") }, path("out"), true, options(ConflictPolicy::Ask), context);
    QVERIFY(r.ok());
    QCOMPARE(context.asked.size(), 1);
    for (const char *name : { "a", "b", "c" })
        QCOMPARE(contentOf(path("out/src/") + name), QByteArrayLiteral("new"));
    QCOMPARE(namesIn(path("out/src")), (QList<QByteArray> { "a", "b", "c" }));
}

void FileOpsTest::conflictRenameFolder()
{
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("src/dir.d").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/dir.d/f"), QByteArrayLiteral("new")));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/dir.d").constData(), 0755), 0);
    TestContext context;
    OpResult r = FileOps::copy({ path("src/dir.d") }, path("out"), true, options(ConflictPolicy::Rename), context);
    QVERIFY(r.ok());
    r = FileOps::copy({ path("src/dir.d") }, path("out"), true, options(ConflictPolicy::Rename), context);
    QVERIFY(r.ok());
    // folders have no extension
    QCOMPARE(namesIn(path("out")), (QList<QByteArray> { "dir.d", "dir.d (1)", "dir.d (2)" }));
    QVERIFY(namesIn(path("out/dir.d")).isEmpty());
    QCOMPARE(contentOf(path("out/dir.d (2)/f")), QByteArrayLiteral("new"));
}

void FileOpsTest::mergeFolders()
{
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("src/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/new"), QByteArrayLiteral("n")));
    QVERIFY(writeRaw(path("src/sub/deep"), QByteArrayLiteral("d")));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/src/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out/src/mine"), QByteArrayLiteral("m")));
    TestContext context;
    // no conflicting file: merged even with Fail
    OpResult r = FileOps::copy({ path("src") }, path("out"), true, options(ConflictPolicy::Fail), context);
    QVERIFY(r.ok());
    QCOMPARE(namesIn(path("out/src")), (QList<QByteArray> { "mine", "new", "sub" }));
    QCOMPARE(contentOf(path("out/src/sub/deep")), QByteArrayLiteral("d"));
    // now a file conflicts: the error names it
    r = FileOps::copy({ path("src") }, path("out"), true, options(ConflictPolicy::Fail), context);
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QVERIFY(r.path == path("out/src/new") || r.path == path("out/src/sub/deep"));
    // folder onto file
    QCOMPARE(::mkdir(path("out3").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out3/src"), QByteArrayLiteral("file")));
    r = FileOps::copy({ path("src") }, path("out3"), true, options(ConflictPolicy::Overwrite), context);
    QCOMPARE(r.error, int(ErrIsNotDirectory));
    QCOMPARE(r.path, path("out3/src"));
    QCOMPARE(contentOf(path("out3/src")), QByteArrayLiteral("file"));
    // file onto folder
    r = FileOps::copy({ path("src/new") }, path("out/src/sub"), false, options(ConflictPolicy::Overwrite), context);
    QCOMPARE(r.error, int(ErrIsDirectory));
    QCOMPARE(r.path, path("out/src/sub"));
}

void FileOpsTest::overwriteSymlinkDestination()
{
    QVERIFY(writeRaw(path("src"), QByteArrayLiteral("new")));
    QVERIFY(writeRaw(path("target"), QByteArrayLiteral("target content")));
    QCOMPARE(::symlink("target", path("dst").constData()), 0);
    TestContext context;
    const OpResult r = FileOps::copy({ path("src") }, path("dst"), false, options(ConflictPolicy::Overwrite), context);
    QVERIFY(r.ok());
    QVERIFY(S_ISREG(lstatRaw(path("dst")).st_mode)); // the link was replaced, not written through
    QCOMPARE(contentOf(path("dst")), QByteArrayLiteral("new"));
    QCOMPARE(contentOf(path("target")), QByteArrayLiteral("target content"));
}

void FileOpsTest::moveSameFilesystem()
{
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/f"), QByteArrayLiteral("f")));
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("x")));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    const ino_t dirIno = lstatRaw(path("dir")).st_ino;
    const ino_t fileIno = lstatRaw(path("dir/f")).st_ino;
    TestContext context;
    OpResult r = FileOps::copy(
        { path("dir"), path("file") }, path("out"), true, options(ConflictPolicy::Fail, true, true), context);
    QVERIFY(r.ok());
    QVERIFY(!existsRaw(path("dir")));
    QVERIFY(!existsRaw(path("file")));
    QCOMPARE(lstatRaw(path("out/dir")).st_ino, dirIno); // renamed, not copied
    QCOMPARE(lstatRaw(path("out/dir/f")).st_ino, fileIno);
    QCOMPARE(contentOf(path("out/file")), QByteArrayLiteral("x"));
    // a file onto an existing one: Fail keeps both, Overwrite replaces
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("y")));
    r = FileOps::copy({ path("file") }, path("out"), true, options(ConflictPolicy::Fail, true, true), context);
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(r.path, path("out/file"));
    QVERIFY(existsRaw(path("file")));
    r = FileOps::copy({ path("file") }, path("out"), true, options(ConflictPolicy::Overwrite, true, true), context);
    QVERIFY(r.ok());
    QVERIFY(!existsRaw(path("file")));
    QCOMPARE(contentOf(path("out/file")), QByteArrayLiteral("y"));
}

void FileOpsTest::moveMerge()
{
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/new"), QByteArrayLiteral("n")));
    QVERIFY(writeRaw(path("dir/both"), QByteArrayLiteral("src")));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out/dir/both"), QByteArrayLiteral("dst")));
    TestContext context;
    OpResult r = FileOps::copy({ path("dir") }, path("out"), true, options(ConflictPolicy::Skip, true, true), context);
    QVERIFY(r.ok());
    // the skipped file stays in the source, which therefore stays
    QCOMPARE(namesIn(path("dir")), QList<QByteArray> { "both" });
    QCOMPARE(namesIn(path("out/dir")), (QList<QByteArray> { "both", "new" }));
    QCOMPARE(contentOf(path("out/dir/both")), QByteArrayLiteral("dst"));
    r = FileOps::copy({ path("dir") }, path("out"), true, options(ConflictPolicy::Overwrite, true, true), context);
    QVERIFY(r.ok());
    QVERIFY(!existsRaw(path("dir")));
    QCOMPARE(contentOf(path("out/dir/both")), QByteArrayLiteral("src"));
}

void FileOpsTest::moveCrossFilesystem()
{
    TmpfsMount mount(path("mnt"), "size=64m");
    if (!mount.mounted())
        SKIP_TEST("cannot mount a tmpfs (needs root): no second filesystem to move across");
    QCOMPARE(::mkdir(path("dir").constData(), 0750), 0);
    QCOMPARE(::mkdir(path("dir/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/sub/f"), QByteArray(100000, 'f'), 0600));
    QCOMPARE(::symlink("sub/f", path("dir/link").constData()), 0);
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("x")));
    QVERIFY(setTimes(path("dir/sub/f"), 1600000000, 7));
    TestContext context;
    const OpResult r = FileOps::copy(
        { path("dir"), path("file") }, path("mnt"), true, options(ConflictPolicy::Fail, true, true), context);
    QVERIFY2(r.ok(), r.path.constData());
    QVERIFY(!existsRaw(path("dir")));
    QVERIFY(!existsRaw(path("file")));
    QCOMPARE(namesIn(path("mnt")), (QList<QByteArray> { "dir", "file" }));
    QCOMPARE(contentOf(path("mnt/dir/sub/f")), QByteArray(100000, 'f'));
    QCOMPARE(readLinkRaw(path("mnt/dir/link")), QByteArrayLiteral("sub/f"));
    QCOMPARE(lstatRaw(path("mnt/dir")).st_mode & 07777, mode_t(0750));
    QCOMPARE(qint64(lstatRaw(path("mnt/dir/sub/f")).st_mtim.tv_nsec), qint64(7));
    // counted because they are on another filesystem
    QCOMPARE(context.totalBytes, qint64(100001));
    QCOMPARE(context.bytes, qint64(100001));
}

void FileOpsTest::moveCrossFilesystemFailureKeepsSources()
{
    TmpfsMount mount(path("mnt"), "size=64m");
    if (!mount.mounted())
        SKIP_TEST("cannot mount a tmpfs (needs root): no second filesystem to move across");
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/a"), QByteArrayLiteral("a")));
    QVERIFY(writeRaw(path("dir/b"), QByteArrayLiteral("b")));
    QVERIFY(writeRaw(path("second"), QByteArrayLiteral("2")));
    QVERIFY(writeRaw(path("mnt/second"), QByteArrayLiteral("in the way")));
    TestContext context;
    // the first source is copied, the second conflicts: no source may be deleted
    const OpResult r = FileOps::copy(
        { path("dir"), path("second") }, path("mnt"), true, options(ConflictPolicy::Fail, true, true), context);
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(r.path, path("mnt/second"));
    QCOMPARE(namesIn(path("dir")), (QList<QByteArray> { "a", "b" }));
    QCOMPARE(contentOf(path("second")), QByteArrayLiteral("2"));
    QCOMPARE(contentOf(path("mnt/second")), QByteArrayLiteral("in the way"));

    // a conflict inside, skipped: that file stays in the source, the rest moves
    QCOMPARE(FileOps::remove(path("mnt/dir"), true, context, nullptr).error, 0);
    QCOMPARE(::mkdir(path("mnt/dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("mnt/dir/b"), QByteArrayLiteral("theirs")));
    const OpResult r2
        = FileOps::copy({ path("dir") }, path("mnt"), true, options(ConflictPolicy::Skip, true, true), context);
    QVERIFY(r2.ok());
    QCOMPARE(namesIn(path("dir")), QList<QByteArray> { "b" });
    QCOMPARE(contentOf(path("mnt/dir/a")), QByteArrayLiteral("a"));
    QCOMPARE(contentOf(path("mnt/dir/b")), QByteArrayLiteral("theirs"));
}

void FileOpsTest::copyErrors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QByteArray>("dest");
    QTest::addColumn<bool>("destIsDirectory");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("errorPath");
    QTest::newRow("missing source") << QByteArray("missing") << QByteArray("out") << true << int(ErrDoesNotExist)
                                    << QByteArray("missing");
    QTest::newRow("missing destination folder")
        << QByteArray("file") << QByteArray("nowhere") << true << int(ErrDoesNotExist) << QByteArray("nowhere");
    QTest::newRow("missing parent of copyAs")
        << QByteArray("file") << QByteArray("nowhere/x") << false << int(ErrDoesNotExist) << QByteArray("nowhere");
    QTest::newRow("destination folder is a file")
        << QByteArray("file") << QByteArray("file2") << true << int(ErrIsNotDirectory) << QByteArray("file2");
}

void FileOpsTest::copyErrors()
{
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, dest);
    QFETCH(bool, destIsDirectory);
    QFETCH(int, error);
    QFETCH(QByteArray, errorPath);
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("x")));
    QVERIFY(writeRaw(path("file2"), QByteArrayLiteral("x")));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    const OpResult r = FileOps::copy({ path(source) }, path(dest), destIsDirectory, options(), context);
    QCOMPARE(r.error, error);
    QCOMPARE(r.path, path(errorPath));
    QVERIFY(namesIn(path("out")).isEmpty());
}

void FileOpsTest::accessDenied_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("unreadable source") << 0;
    QTest::newRow("unreadable folder in a tree") << 1;
    QTest::newRow("unwritable destination") << 2;
    QTest::newRow("undeletable file") << 3;
}

void FileOpsTest::accessDenied()
{
    QFETCH(int, kind);
    // Made before dropping to nobody, with modes that also stop their owner, so the test
    // means the same when it does not run as root.
    QCOMPARE(::mkdir(path("tree").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/locked").constData(), 0755), 0);
    QVERIFY(writeRaw(path("tree/locked/f"), QByteArrayLiteral("f")));
    QVERIFY(writeRaw(path("secret"), QByteArrayLiteral("s"), 0));
    QVERIFY(writeRaw(path("public"), QByteArrayLiteral("p"), 0644));
    QCOMPARE(::mkdir(path("readonly").constData(), 0755), 0);
    QVERIFY(writeRaw(path("readonly/f"), QByteArrayLiteral("f")));
    QCOMPARE(::mkdir(path("writable").constData(), 0777), 0);
    QCOMPARE(::chmod(path("writable").constData(), 0777), 0);
    QCOMPARE(::chmod(path("tree/locked").constData(), 0), 0);
    QCOMPARE(::chmod(path("readonly").constData(), 0555), 0);
    struct Restore
    {
        QByteArray root;
        ~Restore()
        {
            ::chmod(QByteArray(root + "/tree/locked").constData(), 0755);
            ::chmod(QByteArray(root + "/readonly").constData(), 0755);
        }
    } restore { m_root };

    AsNobody nobody;
    if (!nobody.ok())
        SKIP_TEST("running as root without CAP_SETUID: root bypasses permissions");
    TestContext context;
    OpResult r;
    QByteArray expected;
    switch (kind) {
    case 0:
        r = FileOps::copy({ path("secret") }, path("writable"), true, options(), context);
        expected = path("secret");
        break;
    case 1:
        r = FileOps::copy({ path("tree") }, path("writable"), true, options(), context);
        expected = path("tree/locked");
        break;
    case 2:
        r = FileOps::copy({ path("public") }, path("readonly"), true, options(), context);
        expected = path("readonly/public");
        break;
    case 3:
        r = FileOps::remove(path("readonly/f"), false, context, nullptr);
        expected = path("readonly/f");
        break;
    }
    if (kind == 1) {
        // Inside a tree: asked about, left out (the default answer), the rest copied.
        QCOMPARE(r.error, 0);
        QCOMPARE(context.unreadables, (QList<QPair<QByteArray, int>> { { expected, int(ErrAccessDenied) } }));
        QCOMPARE(namesIn(path("writable/tree")), QList<QByteArray>());
        // the folder left out stays in the totals, never processed (as a skipped one)
        QCOMPARE(context.files + context.dirs + 1, context.totalFiles + context.totalDirs);
        QCOMPARE(context.bytes, context.totalBytes);
        // Cancel ends the copy there.
        context.unreadables.clear();
        context.unreadableAnswer = UnreadableAction::Cancel;
        r = FileOps::copy({ path("tree") }, path("writable/again"), false, options(), context);
        QCOMPARE(r.error, int(ErrCancelled));
        QCOMPARE(context.unreadables.size(), 1);
        return;
    }
    QCOMPARE(r.error, int(ErrAccessDenied));
    QCOMPARE(r.path, expected);
    QVERIFY(!r.detail.isEmpty());
    if (kind == 0)
        QVERIFY(namesIn(path("writable")).isEmpty());
    if (kind == 2 || kind == 3)
        QCOMPARE(namesIn(path("readonly")), QList<QByteArray> { "f" });
}

void FileOpsTest::diskFull_data()
{
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("new file") << false << true;
    QTest::newRow("overwrite keeps the old content") << true << true;
    QTest::newRow("new file, .part") << false << false;
    QTest::newRow("overwrite, .part") << true << false;
}

void FileOpsTest::diskFull()
{
    QFETCH(bool, overwrite);
    QFETCH(bool, tmpFile);
    QVERIFY(writeBigFile(path("big"), 3 * MiB));
    TmpfsMount mount(path("small"), "size=1m");
    QByteArray dir = path("small");
    int expectedError = ErrDiskFull;
    struct rlimit oldLimit;
    ::getrlimit(RLIMIT_FSIZE, &oldLimit);
    bool limited = false;
    if (!mount.mounted()) {
        // not root: a file size limit instead; EFBIG is ErrFileTooLarge (SIGXFSZ must be ignored)
        ::signal(SIGXFSZ, SIG_IGN);
        expectedError = ErrFileTooLarge;
        struct rlimit limit = oldLimit;
        limit.rlim_cur = MiB;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limit), 0);
        limited = true;
    }
    if (overwrite)
        QVERIFY(writeRaw(dir + "/big", QByteArrayLiteral("old content")));
    TestContext context;
    CopyOptions o = options(ConflictPolicy::Overwrite);
    o.allowTmpFile = tmpFile;
    const OpResult r = FileOps::copy({ path("big") }, dir, true, o, context);
    if (limited)
        ::setrlimit(RLIMIT_FSIZE, &oldLimit);
    QCOMPARE(r.error, expectedError);
    QCOMPARE(r.path, dir + "/big");
    if (overwrite) {
        QCOMPARE(contentOf(dir + "/big"), QByteArrayLiteral("old content"));
        QCOMPARE(namesIn(dir), QList<QByteArray> { "big" });
    } else {
        QVERIFY(namesIn(dir).isEmpty());
    }
}

void FileOpsTest::sourceChanged()
{
    const QByteArray src = path("growing-smaller");
    QVERIFY(writeBigFile(src, 40 * MiB));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    bool truncated = false;
    context.onProgress = [&](TestContext &c) {
        if (c.bytes > 0 && !truncated) {
            truncated = true;
            QCOMPARE(::truncate(src.constData(), off_t(MiB)), 0);
        }
    };
    const OpResult r = FileOps::copy({ src }, path("out"), true, options(), context);
    QVERIFY(truncated);
    QCOMPARE(r.error, int(ErrSourceChanged));
    QCOMPARE(r.path, src);
    QVERIFY(namesIn(path("out")).isEmpty());
}

void FileOpsTest::cancel_data()
{
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<bool>("tmpFile");
    QTest::addColumn<bool>("tree");
    QTest::newRow("new") << false << true << false;
    QTest::newRow("overwrite") << true << true << false;
    QTest::newRow("new, .part") << false << false << false;
    QTest::newRow("overwrite, .part") << true << false << false;
    QTest::newRow("inside a tree") << false << true << true;
}

void FileOpsTest::cancel()
{
    QFETCH(bool, overwrite);
    QFETCH(bool, tmpFile);
    QFETCH(bool, tree);
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QVERIFY(writeBigFile(path("src/large"), 40 * MiB));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    if (overwrite)
        QVERIFY(writeRaw(path("out/large"), QByteArrayLiteral("old")));
    TestContext context;
    // a kill arrives once the first chunk was written
    context.cancelWhen = [](TestContext &c) { return c.bytes > 0; };
    CopyOptions o = options(ConflictPolicy::Overwrite);
    o.allowTmpFile = tmpFile;
    const OpResult r = tree ? FileOps::copy({ path("src") }, path("out"), true, o, context)
                            : FileOps::copy({ path("src/large") }, path("out"), true, o, context);
    QCOMPARE(r.error, int(ErrCancelled));
    QVERIFY(context.bytes > 0 && context.bytes < 40 * MiB);
    if (tree) {
        QCOMPARE(namesIn(path("out")), QList<QByteArray> { "src" });
        QVERIFY(namesIn(path("out/src")).isEmpty());
    } else if (overwrite) {
        QCOMPARE(namesIn(path("out")), QList<QByteArray> { "large" });
        QCOMPARE(contentOf(path("out/large")), QByteArrayLiteral("old"));
    } else {
        QVERIFY(namesIn(path("out")).isEmpty());
    }
}

void FileOpsTest::sigkill_data()
{
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("O_TMPFILE") << true;
    QTest::newRow(".part") << false;
}

void FileOpsTest::sigkill()
{
    // the worker process killed outright in the middle of a copy
    QFETCH(bool, tmpFile);
    QVERIFY(writeBigFile(path("large"), 40 * MiB));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    const pid_t pid = ::fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
        TestContext context;
        context.onProgress = [](TestContext &c) {
            if (c.bytes > 0)
                ::kill(::getpid(), SIGKILL);
        };
        CopyOptions o;
        o.allowTmpFile = tmpFile;
        (void)FileOps::copy({ path("large") }, path("out"), true, o, context);
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    const QList<QByteArray> left = namesIn(path("out"));
    if (tmpFile) {
        QVERIFY(left.isEmpty()); // an O_TMPFILE file dies with the process
    } else {
        // the .part fallback cannot clean up after SIGKILL, but never takes the real name
        QCOMPARE(left.size(), 1);
        QVERIFY2(left.at(0).startsWith(".large.qvfs-") && left.at(0).endsWith(".part"), left.at(0).constData());
    }
}

void FileOpsTest::userPartFileUntouched()
{
    QVERIFY(writeBigFile(path("x"), 20 * MiB));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QVERIFY(writeRaw(path("out/x.part"), QByteArrayLiteral("mine")));
    QVERIFY(writeRaw(path("out/.x.part"), QByteArrayLiteral("mine too")));
    for (bool tmpFile : { true, false }) {
        TestContext context;
        context.cancelWhen = [](TestContext &c) { return c.bytes > 0; };
        CopyOptions o;
        o.allowTmpFile = tmpFile;
        OpResult r = FileOps::copy({ path("x") }, path("out"), true, o, context);
        QCOMPARE(r.error, int(ErrCancelled));
        QCOMPARE(namesIn(path("out")), (QList<QByteArray> { ".x.part", "x.part" }));
        TestContext quiet;
        r = FileOps::copy({ path("x") }, path("out"), true, options(ConflictPolicy::Overwrite), quiet);
        QVERIFY(r.ok());
        QCOMPARE(namesIn(path("out")), (QList<QByteArray> { ".x.part", "x", "x.part" }));
        QCOMPARE(contentOf(path("out/x.part")), QByteArrayLiteral("mine"));
        QCOMPARE(contentOf(path("out/.x.part")), QByteArrayLiteral("mine too"));
        QCOMPARE(::unlink(path("out/x").constData()), 0);
    }
}

void FileOpsTest::oddNames_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("newline") << QByteArray("new\nline") << true;
    QTest::newRow("leading dash") << QByteArray("-rf") << true;
    QTest::newRow("not UTF-8") << QByteArray("caf\xe9-\xff\xfe.txt") << true;
    QTest::newRow("not UTF-8, .part") << QByteArray("caf\xe9-\xff\xfe.txt") << false;
    QTest::newRow("255 bytes") << (QByteArray(251, 'n') + ".txt") << true;
    QTest::newRow("255 bytes, .part") << (QByteArray(251, 'n') + ".txt") << false;
    QTest::newRow("255 bytes of UTF-8") << (QByteArray("\xc3\xa9").repeated(126) + "abc") << false;
}

void FileOpsTest::oddNames()
{
    QFETCH(QByteArray, name);
    QFETCH(bool, tmpFile);
    QVERIFY(name.size() <= 255);
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(QByteArray(path("src/") + name).constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/") + name + '/' + name, QByteArrayLiteral("content")));
    QCOMPARE(::symlink(name.constData(), (path("src/link")).constData()), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    CopyOptions o;
    o.allowTmpFile = tmpFile;
    // a tree holding the name
    OpResult r = FileOps::copy({ path("src") }, path("out"), true, o, context);
    QVERIFY2(r.ok(), r.path.constData());
    QList<QByteArray> expected { name, "link" };
    std::sort(expected.begin(), expected.end());
    QCOMPARE(namesIn(path("out/src")), expected);
    QCOMPARE(contentOf(path("out/src/") + name + '/' + name), QByteArrayLiteral("content"));
    QCOMPARE(readLinkRaw(path("out/src/link")), name);
    // the name as a top-level source, overwriting (hidden temporary next to it) and renaming
    const QByteArray file = path("src/") + name + '/' + name;
    o.conflict = ConflictPolicy::Overwrite;
    r = FileOps::copy({ file }, path("out"), true, o, context);
    QVERIFY(r.ok());
    r = FileOps::copy({ file }, path("out"), true, o, context);
    QVERIFY(r.ok());
    o.conflict = ConflictPolicy::Rename;
    r = FileOps::copy({ file }, path("out"), true, o, context);
    QVERIFY(r.ok());
    const QList<QByteArray> out = namesIn(path("out"));
    QCOMPARE(out.size(), 3);
    QVERIFY(out.contains(name));
    for (const QByteArray &n : out) {
        QVERIFY(n.size() <= 255);
        QVERIFY(!n.contains(".qvfs-"));
        if (n != name && n != QByteArrayLiteral("src")) {
            QVERIFY2(n.contains(" (1)"), n.constData());
            QCOMPARE(contentOf(path("out/") + n), QByteArrayLiteral("content"));
        }
    }
    // errors name it exactly
    o.conflict = ConflictPolicy::Fail;
    r = FileOps::copy({ file }, path("out"), true, o, context);
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(r.path, path("out/") + name);
    // and deleting works
    qint64 count = 0;
    r = FileOps::remove(path("out/src"), true, context, &count);
    QVERIFY(r.ok());
    QCOMPARE(count, qint64(4));
    r = FileOps::remove(path("out/") + name, false, context, &count);
    QVERIFY(r.ok());
    QVERIFY(!existsRaw(path("out/") + name));
}

void FileOpsTest::remove_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("recursive");
    QTest::addColumn<int>("error");
    QTest::addColumn<qint64>("count");
    QTest::newRow("file") << QByteArray("file") << false << 0 << qint64(1);
    QTest::newRow("symlink") << QByteArray("link") << false << 0 << qint64(1);
    QTest::newRow("empty folder") << QByteArray("empty") << false << 0 << qint64(1);
    QTest::newRow("tree") << QByteArray("tree") << true << 0 << qint64(6);
    QTest::newRow("tree, trailing slash") << QByteArray("tree/") << true << 0 << qint64(6);
    QTest::newRow("non-empty, not recursive") << QByteArray("tree") << false << int(ErrDirectoryNotEmpty) << qint64(0);
    QTest::newRow("missing") << QByteArray("missing") << false << int(ErrDoesNotExist) << qint64(0);
}

void FileOpsTest::remove()
{
    QFETCH(QByteArray, target);
    QFETCH(bool, recursive);
    QFETCH(int, error);
    QFETCH(qint64, count);
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("x")));
    QCOMPARE(::symlink("file", path("link").constData()), 0);
    QCOMPARE(::mkdir(path("empty").constData(), 0755), 0);
    // tree: 2 folders inside + itself, 3 files
    QCOMPARE(::mkdir(path("tree").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/a").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/a/b").constData(), 0555), 0); // read-only folders can be emptied by root only...
    QCOMPARE(::chmod(path("tree/a/b").constData(), 0755), 0); // ...so keep it writable
    QVERIFY(writeRaw(path("tree/1"), QByteArrayLiteral("1")));
    QVERIFY(writeRaw(path("tree/a/2"), QByteArrayLiteral("2")));
    QVERIFY(writeRaw(path("tree/a/b/3"), QByteArrayLiteral("3")));
    TestContext context;
    qint64 removed = -1;
    const OpResult r = FileOps::remove(path(target), recursive, context, &removed);
    QCOMPARE(r.error, error);
    QCOMPARE(removed, count);
    if (error == 0) {
        QVERIFY(!existsRaw(path(target)));
        if (target == QByteArrayLiteral("link"))
            QVERIFY(existsRaw(path("file")));
    } else if (error != ErrDoesNotExist) {
        QCOMPARE(r.path, path(target));
        QVERIFY(existsRaw(path("tree/a/b/3")));
    }
}

void FileOpsTest::removeDoesNotFollowSymlinks()
{
    QCOMPARE(::mkdir(path("keep").constData(), 0755), 0);
    QVERIFY(writeRaw(path("keep/precious"), QByteArrayLiteral("p")));
    QCOMPARE(::mkdir(path("tree").constData(), 0755), 0);
    QCOMPARE(::symlink(path("keep").constData(), path("tree/link-to-dir").constData()), 0);
    QCOMPARE(::symlink(path("keep").constData(), path("top-link").constData()), 0);
    TestContext context;
    qint64 removed = 0;
    OpResult r = FileOps::remove(path("tree"), true, context, &removed);
    QVERIFY(r.ok());
    QCOMPARE(removed, qint64(2));
    r = FileOps::remove(path("top-link"), true, context, &removed);
    QVERIFY(r.ok());
    QCOMPARE(removed, qint64(1));
    QVERIFY(!existsRaw(path("top-link")));
    QCOMPARE(contentOf(path("keep/precious")), QByteArrayLiteral("p"));
    // refusing the root folder
    r = FileOps::remove(QByteArrayLiteral("/"), true, context, &removed);
    QCOMPARE(r.error, int(ErrAccessDenied));
}

void FileOpsTest::mkdir_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<bool>("parents");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("errorPath");
    QTest::newRow("new") << QByteArray("new") << false << 0 << QByteArray();
    QTest::newRow("existing") << QByteArray("existing") << false << int(ErrAlreadyExists) << QByteArray("existing");
    QTest::newRow("existing, -p") << QByteArray("existing") << true << 0 << QByteArray();
    QTest::newRow("missing parent") << QByteArray("a/b/c") << false << int(ErrDoesNotExist)
                                    << QByteArray("a/b"); // names the missing parent
    QTest::newRow("-p") << QByteArray("a/b/c") << true << 0 << QByteArray();
    QTest::newRow("-p, doubled slashes") << QByteArray("a//b///c/") << true << 0 << QByteArray();
    QTest::newRow("-p through an existing one") << QByteArray("existing/x/y") << true << 0 << QByteArray();
    QTest::newRow("-p through a symlink") << QByteArray("link/x") << true << 0 << QByteArray();
    QTest::newRow("-p through a file") << QByteArray("file/x") << true << int(ErrIsNotDirectory) << QByteArray("file");
    QTest::newRow("-p onto a file") << QByteArray("file") << true << int(ErrAlreadyExists) << QByteArray("file");
}

void FileOpsTest::mkdir()
{
    QFETCH(QByteArray, target);
    QFETCH(bool, parents);
    QFETCH(int, error);
    QFETCH(QByteArray, errorPath);
    QCOMPARE(::mkdir(path("existing").constData(), 0755), 0);
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("x")));
    QCOMPARE(::symlink("existing", path("link").constData()), 0);
    const OpResult r = FileOps::mkdir(path(target), -1, parents);
    QCOMPARE(r.error, error);
    if (error == 0) {
        struct stat st;
        QCOMPARE(::stat(path(target).constData(), &st), 0);
        QVERIFY(S_ISDIR(st.st_mode));
    } else {
        QCOMPARE(r.path, path(errorPath));
    }
}

void FileOpsTest::mkdirMode()
{
    // an explicit mode is exact (the umask does not apply); -1 is the default
    OpResult r = FileOps::mkdir(path("open"), 0777, false);
    QVERIFY(r.ok());
    QCOMPARE(lstatRaw(path("open")).st_mode & 07777, mode_t(0777));
    r = FileOps::mkdir(path("p/q/r"), 0750, true);
    QVERIFY(r.ok());
    QCOMPARE(lstatRaw(path("p/q/r")).st_mode & 07777, mode_t(0750));
    const mode_t mask = ::umask(022);
    ::umask(mask);
    QCOMPARE(lstatRaw(path("p")).st_mode & 07777, mode_t(0777 & ~mask));
    r = FileOps::mkdir(path("default"), -1, false);
    QVERIFY(r.ok());
    QCOMPARE(lstatRaw(path("default")).st_mode & 07777, mode_t(0777 & ~mask));
}

void FileOpsTest::rename_data()
{
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<int>("error");
    QTest::addColumn<QByteArray>("errorPath");
    QTest::newRow("simple") << QByteArray("a") << QByteArray("c") << false << 0 << QByteArray();
    QTest::newRow("folder") << QByteArray("dir") << QByteArray("dir2") << false << 0 << QByteArray();
    QTest::newRow("exists") << QByteArray("a") << QByteArray("b") << false << int(ErrAlreadyExists) << QByteArray("b");
    QTest::newRow("overwrite") << QByteArray("a") << QByteArray("b") << true << 0 << QByteArray();
    QTest::newRow("missing") << QByteArray("missing") << QByteArray("c") << false << int(ErrDoesNotExist)
                             << QByteArray("missing");
    QTest::newRow("hard link") << QByteArray("a") << QByteArray("hardlink") << true << int(ErrIdenticalFiles)
                               << QByteArray("hardlink");
    QTest::newRow("folder into itself") << QByteArray("dir") << QByteArray("dir/sub") << false << int(ErrCycle)
                                        << QByteArray("dir");
    QTest::newRow("folder onto non-empty folder")
        << QByteArray("dir") << QByteArray("full") << true << int(ErrDirectoryNotEmpty) << QByteArray("full");
}

void FileOpsTest::rename()
{
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(bool, overwrite);
    QFETCH(int, error);
    QFETCH(QByteArray, errorPath);
    QVERIFY(writeRaw(path("a"), QByteArrayLiteral("A")));
    QVERIFY(writeRaw(path("b"), QByteArrayLiteral("B")));
    QCOMPARE(::link(path("a").constData(), path("hardlink").constData()), 0);
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("full").constData(), 0755), 0);
    QVERIFY(writeRaw(path("full/x"), QByteArrayLiteral("x")));
    const OpResult r = FileOps::rename(path(from), path(to), overwrite);
    QCOMPARE(r.error, error);
    if (error == 0) {
        QVERIFY(!existsRaw(path(from)));
        if (from == QByteArrayLiteral("a"))
            QCOMPARE(contentOf(path(to)), QByteArrayLiteral("A"));
    } else {
        QCOMPARE(r.path, path(errorPath));
        if (to == QByteArrayLiteral("b"))
            QCOMPARE(contentOf(path("b")), QByteArrayLiteral("B"));
    }
}

void FileOpsTest::symlink()
{
    OpResult r = FileOps::symlink(QByteArrayLiteral("some/target\xff"), path("link"));
    QVERIFY(r.ok());
    QCOMPARE(readLinkRaw(path("link")), QByteArrayLiteral("some/target\xff"));
    r = FileOps::symlink(QByteArrayLiteral("other"), path("link"));
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(r.path, path("link"));
    r = FileOps::symlink(QByteArrayLiteral("x"), path("missing/link"));
    QCOMPARE(r.error, int(ErrDoesNotExist));
}

void FileOpsTest::chmod()
{
    QVERIFY(writeRaw(path("f"), QByteArrayLiteral("x")));
    OpResult r = FileOps::chmod(path("f"), 0604);
    QVERIFY(r.ok());
    QCOMPARE(lstatRaw(path("f")).st_mode & 07777, mode_t(0604));
    r = FileOps::chmod(path("missing"), 0644);
    QCOMPARE(r.error, int(ErrDoesNotExist));
    QCOMPARE(r.path, path("missing"));
}

void FileOpsTest::directorySize()
{
    QCOMPARE(::mkdir(path("tree").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/a").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/a/b").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("tree/empty").constData(), 0755), 0);
    QVERIFY(writeRaw(path("tree/1"), QByteArray(100, 'x')));
    QVERIFY(writeRaw(path("tree/a/2"), QByteArray(20, 'x')));
    QVERIFY(writeRaw(path("tree/a/b/3"), QByteArray(3, 'x')));
    QCOMPARE(::mkdir(path("outside").constData(), 0755), 0);
    QVERIFY(writeRaw(path("outside/big"), QByteArray(100000, 'x')));
    QCOMPARE(::symlink(path("outside").constData(), path("tree/link-to-dir").constData()), 0);
    QCOMPARE(::symlink(path("outside/big").constData(), path("tree/a/link-to-file").constData()), 0);
    TestContext context;
    qint64 bytes = -1, files = -1, dirs = -1;
    OpResult r = FileOps::directorySize(path("tree"), context, &bytes, &files, &dirs);
    QVERIFY(r.ok());
    QCOMPARE(bytes, qint64(123)); // the symlinks are not followed
    QCOMPARE(files, qint64(5)); // 3 files + 2 symlinks
    QCOMPARE(dirs, qint64(3));
    QVERIFY(context.progressCalls > 0);
    r = FileOps::directorySize(path("outside/big"), context, &bytes, &files, &dirs);
    QVERIFY(r.ok());
    QCOMPARE(bytes, qint64(100000));
    QCOMPARE(files, qint64(1));
    QCOMPARE(dirs, qint64(0));
    r = FileOps::directorySize(path("missing"), context, &bytes, &files, &dirs);
    QCOMPARE(r.error, int(ErrDoesNotExist));
    QCOMPARE(r.path, path("missing"));
}

void FileOpsTest::atomicWriter_data()
{
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("O_TMPFILE") << true;
    QTest::newRow(".part") << false;
}

void FileOpsTest::atomicWriter()
{
    QFETCH(bool, tmpFile);
    const mode_t mask = ::umask(022);
    ::umask(mask);
    const QByteArray name = QByteArrayLiteral("new \xff\nfile");
    // a new file appears only at commit, complete, with its time
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path(name), false, -1, tmpFile).ok());
        QVERIFY(writer.write(QByteArrayLiteral("hello ")).ok());
        QVERIFY(writer.write(QByteArrayLiteral("world")).ok());
        QVERIFY(!existsRaw(path(name)));
        writer.setModificationTime(1234567890, 987654321);
        QVERIFY(writer.commit().ok());
    }
    QCOMPARE(contentOf(path(name)), QByteArrayLiteral("hello world"));
    QCOMPARE(lstatRaw(path(name)).st_mode & 07777, mode_t(0666 & ~mask));
    QCOMPARE(qint64(lstatRaw(path(name)).st_mtim.tv_sec), qint64(1234567890));
    QCOMPARE(qint64(lstatRaw(path(name)).st_mtim.tv_nsec), qint64(987654321));
    QCOMPARE(namesIn(m_root), QList<QByteArray> { name });

    // overwriting: the old content stays until commit, and the permissions too
    QCOMPARE(::chmod(path(name).constData(), 0640), 0);
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path(name), true, -1, tmpFile).ok());
        QVERIFY(writer.write(QByteArrayLiteral("second")).ok());
        QCOMPARE(contentOf(path(name)), QByteArrayLiteral("hello world"));
        QVERIFY(writer.commit().ok());
    }
    QCOMPARE(contentOf(path(name)), QByteArrayLiteral("second"));
    QCOMPARE(lstatRaw(path(name)).st_mode & 07777, mode_t(0640));
    QCOMPARE(namesIn(m_root), QList<QByteArray> { name });

    // not committed (an error or a kill): nothing changes, nothing is left
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path(name), true, -1, tmpFile).ok());
        QVERIFY(writer.write(QByteArray(100000, 'x')).ok());
    }
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path("never"), false, 0600, tmpFile).ok());
        QVERIFY(writer.write(QByteArrayLiteral("x")).ok());
        writer.discard();
        QCOMPARE(writer.commit().error, int(ErrInternal));
    }
    QCOMPARE(contentOf(path(name)), QByteArrayLiteral("second"));
    QCOMPARE(namesIn(m_root), QList<QByteArray> { name });

    // explicit permissions are exact
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path("exact"), false, 0604, tmpFile).ok());
        QVERIFY(writer.commit().ok());
    }
    QCOMPARE(lstatRaw(path("exact")).st_mode & 07777, mode_t(0604));
    QCOMPARE(contentOf(path("exact")), QByteArray());

    // onto a symlink: the link is replaced, its target untouched (issue 16.7), also as
    // root, also when it points to a file of another user; a new file's default mode
    QCOMPARE(::symlink("exact", path("link").constData()), 0);
    if (::geteuid() == 0)
        QCOMPARE(::lchown(path("exact").constData(), 4242, 4242), 0);
    {
        AtomicWriter writer;
        QVERIFY(writer.open(path("link"), true, -1, tmpFile).ok());
        QVERIFY(writer.write(QByteArrayLiteral("not via link")).ok());
        QVERIFY(writer.commit().ok());
    }
    QVERIFY(S_ISREG(lstatRaw(path("link")).st_mode));
    QCOMPARE(contentOf(path("link")), QByteArrayLiteral("not via link"));
    QCOMPARE(lstatRaw(path("link")).st_mode & 07777, mode_t(0666 & ~mask));
    QCOMPARE(lstatRaw(path("link")).st_uid, ::geteuid()); // not the link target's owner
    QCOMPARE(contentOf(path("exact")), QByteArray());
    // without overwrite a link is an existing entry, even a dangling one
    QCOMPARE(::symlink("nowhere", path("dangling").constData()), 0);
    {
        AtomicWriter writer;
        QCOMPARE(writer.open(path("dangling"), false, -1, tmpFile).error, int(ErrAlreadyExists));
    }
    QVERIFY(!existsRaw(path("nowhere")));
}

void FileOpsTest::atomicWriterErrors()
{
    QVERIFY(writeRaw(path("file"), QByteArrayLiteral("old")));
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    AtomicWriter writer;
    OpResult r = writer.open(path("file"), false);
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(r.path, path("file"));
    r = writer.open(path("dir"), true);
    QCOMPARE(r.error, int(ErrIsDirectory));
    r = writer.open(path("missing/file"), true);
    QCOMPARE(r.error, int(ErrDoesNotExist));
    QCOMPARE(r.path, path("missing"));
    // the name taken between open() and commit() without overwrite: not replaced
    QVERIFY(writer.open(path("late"), false).ok());
    QVERIFY(writer.write(QByteArrayLiteral("mine")).ok());
    QVERIFY(writeRaw(path("late"), QByteArrayLiteral("theirs")));
    r = writer.commit();
    QCOMPARE(r.error, int(ErrAlreadyExists));
    QCOMPARE(contentOf(path("late")), QByteArrayLiteral("theirs"));
    QCOMPARE(namesIn(m_root), (QList<QByteArray> { "dir", "file", "late" }));

    TmpfsMount mount(path("small"), "size=1m");
    if (!mount.mounted())
        SKIP_TEST("cannot mount a small tmpfs (needs root) to fill");
    QVERIFY(writeRaw(path("small/f"), QByteArrayLiteral("old content")));
    QVERIFY(writer.open(path("small/f"), true).ok());
    r = writer.write(QByteArray(int(2 * MiB), 'x'));
    QCOMPARE(r.error, int(ErrDiskFull));
    QCOMPARE(r.path, path("small/f"));
    writer.discard();
    QCOMPARE(contentOf(path("small/f")), QByteArrayLiteral("old content"));
    QCOMPARE(namesIn(path("small")), QList<QByteArray> { "f" });
}

// ---- issue 16.6: a sparse file growing while it is copied

namespace
{
int s_growth = 0; // the copyGrowingSparse row
int s_hookCalls = 0;
QByteArray s_growingPath;

void growSource(TestPoint point, int)
{
    if (point != TestPoint::SparseScanned)
        return;
    ++s_hookCalls;
    // The moment between "no more data" and the size being read: another writer grows
    // the file (the race of issue 16.6, 9 of 200 runs without help).
    const int fd = ::open(s_growingPath.constData(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    ::fstat(fd, &st);
    if (s_growth == 0 && s_hookCalls == 1) {
        const QByteArray tail(65536, 't');
        (void)!::pwrite(fd, tail.constData(), size_t(tail.size()), st.st_size);
    } else if (s_growth == 1 && s_hookCalls == 1) {
        (void)!::ftruncate(fd, st.st_size + off_t(MiB)); // grows by a hole: zeros are its content
    } else if (s_growth == 2) {
        (void)!::pwrite(fd, "more", 4, st.st_size); // never stops growing
    }
    ::close(fd);
}
} // namespace

void FileOpsTest::copyGrowingSparse_data()
{
    QTest::addColumn<int>("growth");
    QTest::addColumn<bool>("tmpFile");
    QTest::newRow("data appended") << 0 << true;
    QTest::newRow("data appended, .part") << 0 << false;
    QTest::newRow("extended by a hole") << 1 << true;
    QTest::newRow("growing at every look") << 2 << true;
}

void FileOpsTest::copyGrowingSparse()
{
    QFETCH(int, growth);
    QFETCH(bool, tmpFile);
    const QByteArray src = path("growing");
    const int fd = ::open(src.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    const QByteArray head(65536, 'h');
    QCOMPARE(::pwrite(fd, head.constData(), size_t(head.size()), 0), ssize_t(head.size()));
    QCOMPARE(::ftruncate(fd, off_t(4 * MiB)), 0);
    ::close(fd);
    if (qint64(lstatRaw(src).st_blocks) * 512 >= 4 * MiB)
        SKIP_TEST("this filesystem does not make sparse files");
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);

    s_growth = growth;
    s_hookCalls = 0;
    s_growingPath = src;
    FileOps::testHook = growSource;
    TestContext context;
    CopyOptions o;
    o.allowTmpFile = tmpFile;
    const OpResult r = FileOps::copy({ src }, path("out"), true, o, context);
    FileOps::testHook = nullptr;
    if (s_hookCalls == 0)
        SKIP_TEST("the file was cloned (FICLONE): no extents were copied");
    if (growth == 2) {
        // never caught up: an error, and no copy at all
        QCOMPARE(r.error, int(ErrSourceChanged));
        QCOMPARE(r.path, src);
        QVERIFY(namesIn(path("out")).isEmpty());
        return;
    }
    // the file as it was once it grew: never its new size with zeros where it has data
    QVERIFY2(r.ok(), r.detail.constData());
    const QByteArray copy = contentOf(path("out/growing"));
    const QByteArray now = contentOf(src);
    QCOMPARE(copy.size(), now.size());
    QVERIFY2(copy.right(65536) == now.right(65536), "the copy's tail differs from the source's");
    QVERIFY2(copy == now, "the copy differs from the source");
    QVERIFY(qint64(now.size()) > 4 * MiB);
    QCOMPARE(context.bytes, qint64(now.size()));
    QCOMPARE(s_hookCalls, growth == 0 ? 2 : 1); // new data: looked again
}

// ---- issue 16.12: files whose size the kernel does not know

void FileOpsTest::copyPseudoFile_data()
{
    QTest::addColumn<QByteArray>("source");
    // sysfs: st_size 4096 and no blocks whatever the content; proc: st_size 0
    QTest::newRow("sysfs") << QByteArray("/sys/devices/system/cpu/online");
    QTest::newRow("sysfs, kernel") << QByteArray("/sys/kernel/mm/transparent_hugepage/enabled");
    QTest::newRow("proc") << QByteArray("/proc/version");
    QTest::newRow("proc sysctl") << QByteArray("/proc/sys/kernel/ostype");
}

void FileOpsTest::copyPseudoFile()
{
    QFETCH(QByteArray, source);
    const QByteArray content = contentOf(source);
    if (content == "<cannot open>")
        SKIP_TEST("not on this system");
    const struct stat st = lstatRaw(source);
    QVERIFY(S_ISREG(st.st_mode));
    QCOMPARE(qint64(st.st_blocks), qint64(0));
    QVERIFY(qint64(st.st_size) != qint64(content.size())); // what makes it a test
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    for (const bool preserve : { true, false }) {
        TestContext context;
        const OpResult r
            = FileOps::copy({ source }, path("out/copy"), false, options(ConflictPolicy::Overwrite, preserve), context);
        QVERIFY2(r.ok(), QByteArray(r.path + ' ' + r.detail).constData());
        QCOMPARE(contentOf(path("out/copy")), content);
        QCOMPARE(context.bytes, context.totalBytes); // progress still reaches the totals
    }
}

// ---- issue 15.1: POSIX ACLs

void FileOpsTest::keepAcl_data()
{
    QTest::addColumn<QByteArray>("how");
    QTest::newRow("copy") << QByteArray("copy");
    QTest::newRow("copy without preserving") << QByteArray("copy, no preserve");
    QTest::newRow("copy, .part") << QByteArray("copy, .part");
    QTest::newRow("folder with a default ACL") << QByteArray("folder");
    QTest::newRow("move across filesystems") << QByteArray("move");
    QTest::newRow("onto a filesystem without ACLs") << QByteArray("no acl");
    QTest::newRow("put replacing a file") << QByteArray("put");
}

void FileOpsTest::keepAcl()
{
    QFETCH(QByteArray, how);
    const QByteArray f = path("f");
    QVERIFY(writeRaw(f, QByteArrayLiteral("s"), 0640));
    if (!setXattr(f, "system.posix_acl_access", userRwAcl()))
        SKIP_TEST("no POSIX ACLs on this filesystem");
    QCOMPARE(lstatRaw(f).st_mode & 0777, mode_t(0660)); // the mask shows as group bits
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    TestContext context;
    QByteArray dst = path("out/f");

    if (how == "copy" || how == "copy, .part") {
        CopyOptions o = options();
        o.allowTmpFile = how == "copy";
        QVERIFY(FileOps::copy({ f }, path("out"), true, o, context).ok());
    } else if (how == "copy, no preserve") {
        const mode_t old = ::umask(0); // the umask would hide group write
        const OpResult r = FileOps::copy({ f }, path("out"), true, options(ConflictPolicy::Fail, false), context);
        ::umask(old);
        QVERIFY(r.ok());
        // no ACL, and the group gets what the owning group had (r), never the mask (rw)
        QCOMPARE(xattrOf(dst, "system.posix_acl_access"), QByteArrayLiteral("<none>"));
        QCOMPARE(lstatRaw(dst).st_mode & 0777, mode_t(0640));
        return;
    } else if (how == "folder") {
        QCOMPARE(::mkdir(path("dir").constData(), 0750), 0);
        QVERIFY(setXattr(path("dir"), "system.posix_acl_default", defaultAcl()));
        QVERIFY(setXattr(path("dir"), "system.posix_acl_access", defaultAcl())); // rwx for u:1000 too
        QVERIFY(writeRaw(path("dir/inherits"), QByteArrayLiteral("i"), 0640)); // gets an ACL from the default
        QVERIFY(xattrOf(path("dir/inherits"), "system.posix_acl_access") != "<none>");
        QVERIFY(FileOps::copy({ path("dir") }, path("out"), true, options(), context).ok());
        QCOMPARE(xattrOf(path("out/dir"), "system.posix_acl_default"), defaultAcl());
        QCOMPARE(xattrOf(path("out/dir"), "system.posix_acl_access"), defaultAcl());
        QCOMPARE(lstatRaw(path("out/dir")).st_mode & 07777, lstatRaw(path("dir")).st_mode & 07777);
        QCOMPARE(xattrOf(path("out/dir/inherits"), "system.posix_acl_access"),
            xattrOf(path("dir/inherits"), "system.posix_acl_access"));
        QCOMPARE(lstatRaw(path("out/dir/inherits")).st_mode & 07777, lstatRaw(path("dir/inherits")).st_mode & 07777);
        return;
    } else if (how == "move") {
        TmpfsMount mount(path("mnt"), "size=4m");
        if (!mount.mounted())
            SKIP_TEST("cannot mount a tmpfs (needs root)");
        QVERIFY(FileOps::copy({ f }, path("mnt"), true, options(ConflictPolicy::Fail, true, true), context).ok());
        QVERIFY(!existsRaw(f));
        QCOMPARE(xattrOf(path("mnt/f"), "system.posix_acl_access"), userRwAcl());
        QCOMPARE(lstatRaw(path("mnt/f")).st_mode & 07777, mode_t(0660));
        return;
    } else if (how == "no acl") {
        TmpfsMount mount(path("mnt"), "", 0, "ramfs");
        if (!mount.mounted())
            SKIP_TEST("cannot mount a ramfs (needs root)");
        QVERIFY(FileOps::copy({ f }, path("mnt"), true, options(), context).ok());
        QCOMPARE(contentOf(path("mnt/f")), QByteArrayLiteral("s"));
        // the ACL cannot follow: its mask must not become the group's rights
        QCOMPARE(lstatRaw(path("mnt/f")).st_mode & 07777, mode_t(0640));
        return;
    } else if (how == "put") {
        // replacing keeps the mode, and so the ACL its group bits stand for
        dst = f;
        AtomicWriter writer;
        QVERIFY(writer.open(f, true).ok());
        QVERIFY(writer.write(QByteArrayLiteral("new")).ok());
        QVERIFY(writer.commit().ok());
        QCOMPARE(contentOf(f), QByteArrayLiteral("new"));
    }
    QCOMPARE(xattrOf(dst, "system.posix_acl_access"), userRwAcl());
    QCOMPARE(lstatRaw(dst).st_mode & 07777, mode_t(0660));
}

// ---- issue 15.2: extended attributes

void FileOpsTest::keepXattrs_data()
{
    QTest::addColumn<bool>("preserve");
    QTest::addColumn<bool>("move");
    QTest::newRow("copy") << true << false;
    QTest::newRow("copy without preserving") << false << false;
    QTest::newRow("move across filesystems") << true << true;
}

void FileOpsTest::keepXattrs()
{
    QFETCH(bool, preserve);
    QFETCH(bool, move);
    const bool root = ::geteuid() == 0;
    QCOMPARE(::mkdir(path("dir").constData(), 0755), 0);
    QVERIFY(writeRaw(path("dir/f"), QByteArrayLiteral("data")));
    QCOMPARE(::mkfifo(path("dir/fifo").constData(), 0644), 0);
    if (!setXattr(path("dir/f"), "user.xdg.origin.url", "https://example.org/f"))
        SKIP_TEST("no user extended attributes on this filesystem");
    const QByteArray big(3000, 'b'); // more than a first guess of the size (ext4 takes up to a block)
    QVERIFY(setXattr(path("dir/f"), "user.big", big));
    QVERIFY(setXattr(path("dir"), "user.folder", "yes"));
    if (root) {
        QVERIFY(setXattr(path("dir/f"), "trusted.qvfs", "t"));
        QVERIFY(setXattr(path("dir/fifo"), "trusted.fifo", "p"));
    }
    QByteArray dest = path("out");
    std::unique_ptr<TmpfsMount> mount;
    if (move) {
        mount = std::make_unique<TmpfsMount>(path("mnt"), "size=4m");
        if (!mount->mounted())
            SKIP_TEST("cannot mount a tmpfs (needs root)");
        dest = path("mnt");
    } else {
        QCOMPARE(::mkdir(dest.constData(), 0755), 0);
    }
    TestContext context;
    const OpResult r
        = FileOps::copy({ path("dir") }, dest, true, options(ConflictPolicy::Fail, preserve, move), context);
    QVERIFY2(r.ok(), r.path.constData());
    QCOMPARE(contentOf(dest + "/dir/f"), QByteArrayLiteral("data"));
    QCOMPARE(xattrOf(dest + "/dir/f", "user.xdg.origin.url"), QByteArrayLiteral("https://example.org/f"));
    QCOMPARE(xattrOf(dest + "/dir/f", "user.big"), big);
    QCOMPARE(xattrOf(dest + "/dir", "user.folder"), QByteArrayLiteral("yes"));
    if (root) {
        QCOMPARE(xattrOf(dest + "/dir/f", "trusted.qvfs"), QByteArrayLiteral("t"));
        QCOMPARE(xattrOf(dest + "/dir/fifo", "trusted.fifo"), QByteArrayLiteral("p"));
    }
    QCOMPARE(existsRaw(path("dir")), !move);
}

// ---- issue 15.3: replacing a file keeps its owner and group

void FileOpsTest::replaceKeepsOwner_data()
{
    QTest::addColumn<QByteArray>("how"); // copy or put
    QTest::addColumn<int>("folderMode");
    QTest::addColumn<int>("folderOwner");
    QTest::addColumn<bool>("kept");
    QTest::newRow("copy") << QByteArray("copy") << 0755 << 0 << true;
    QTest::newRow("copy, .part") << QByteArray("copy, .part") << 0755 << 0 << true;
    QTest::newRow("put") << QByteArray("put") << 0755 << 0 << true;
    QTest::newRow("put, .part") << QByteArray("put, .part") << 0755 << 0 << true;
    // a file planted in a shared sticky folder must not win a copy of what replaces it
    QTest::newRow("copy, planted in a sticky folder") << QByteArray("copy") << 01777 << 0 << false;
    QTest::newRow("put, planted in a sticky folder") << QByteArray("put") << 01777 << 0 << false;
    QTest::newRow("copy, sticky folder of the owner") << QByteArray("copy") << 01777 << 4242 << true;
}

void FileOpsTest::replaceKeepsOwner()
{
    QFETCH(QByteArray, how);
    QFETCH(int, folderMode);
    QFETCH(int, folderOwner);
    QFETCH(bool, kept);
    if (::geteuid() != 0)
        SKIP_TEST("giving files to other users needs root");
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::chown(path("out").constData(), uid_t(folderOwner), 0), 0);
    QCOMPARE(::chmod(path("out").constData(), mode_t(folderMode)), 0);
    const QByteArray dst = path("out/f");
    QVERIFY(writeRaw(dst, QByteArrayLiteral("old"), 0600));
    QCOMPARE(::chown(dst.constData(), 4242, 4343), 0);
    // a setuid source with a file capability: neither may come under another owner
    QVERIFY(writeRaw(path("f"), QByteArrayLiteral("new"), 0755));
    QCOMPARE(::chmod(path("f").constData(), 04755), 0);
    QByteArray cap(20, 0);
    qToLittleEndian<quint32>(0x02000000, cap.data()); // VFS_CAP_REVISION_2
    qToLittleEndian<quint32>(1u << 10, cap.data() + 4); // CAP_NET_BIND_SERVICE permitted
    const bool haveCap = setXattr(path("f"), "security.capability", cap);

    if (how.startsWith("copy")) {
        TestContext context;
        CopyOptions o = options(ConflictPolicy::Overwrite);
        o.allowTmpFile = !how.endsWith(".part");
        const OpResult r = FileOps::copy({ path("f") }, path("out"), true, o, context);
        QVERIFY2(r.ok(), r.path.constData());
    } else {
        AtomicWriter writer;
        QVERIFY(writer.open(dst, true, -1, !how.endsWith(".part")).ok());
        QVERIFY(writer.write(QByteArrayLiteral("new")).ok());
        QVERIFY(writer.commit().ok());
    }
    QCOMPARE(contentOf(dst), QByteArrayLiteral("new"));
    const struct stat st = lstatRaw(dst);
    QCOMPARE(st.st_uid, uid_t(kept ? 4242 : 0));
    QCOMPARE(st.st_gid, gid_t(kept ? 4343 : 0));
    if (how.startsWith("copy")) {
        // kept permissions, but no setuid nor capability under another owner than the source's
        QCOMPARE(st.st_mode & 07777, mode_t(kept ? 0755 : 04755));
        if (haveCap)
            QCOMPARE(xattrOf(dst, "security.capability"), kept ? QByteArrayLiteral("<none>") : cap);
    } else {
        QCOMPARE(st.st_mode & 07777, mode_t(0600)); // a put keeps the replaced file's permissions
    }
    QCOMPARE(namesIn(path("out")), QList<QByteArray> { "f" });
}

// ---- the temporary's name, and what a killed worker leaves (issue 15, left over)

namespace
{
// The parts of one of our temporary names: ".<name>.qvfs-<boot>-<ns>-<pid>-<start>-<random>.part"
QList<QByteArray> tempNameParts(const QByteArray &temp)
{
    const qsizetype at = temp.lastIndexOf(".qvfs-");
    return temp.mid(at + 6, temp.size() - at - 6 - 5).split('-');
}

QByteArray tempNameWith(const QList<QByteArray> &parts)
{
    return ".x.qvfs-" + parts.join('-') + ".part";
}

QByteArray startTimeOf(qint64 pid)
{
    const QList<QByteArray> f = ProcUtil::procStat(pid);
    return f.size() > 19 ? QByteArray::number(f.at(19).toULongLong(), 16) : QByteArray();
}
} // namespace

void FileOpsTest::tempNameOwner_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<int>("owner");
    const QByteArray mine = tempName(QByteArrayLiteral("a file.txt"));
    QVERIFY(mine.startsWith(".a file.txt.qvfs-") && mine.endsWith(".part"));
    const QList<QByteArray> parts = tempNameParts(mine);
    if (parts.size() != 5)
        SKIP_TEST("no /proc of this pid namespace: temporaries carry no owner");
    QCOMPARE(parts.at(2), QByteArray::number(qint64(::getpid())));

    // a pid that existed and is gone: a child that exited
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    QVERIFY(child > 0);
    QCOMPARE(::waitpid(child, nullptr, 0), child);

    auto with = [&](int index, const QByteArray &value) {
        QList<QByteArray> p = parts;
        p[index] = value;
        return tempNameWith(p);
    };
    const QByteArray parent = QByteArray::number(qint64(::getppid()));
    QList<QByteArray> parentParts = parts;
    parentParts[2] = parent;
    parentParts[3] = startTimeOf(::getppid());
    QList<QByteArray> oldParent = parentParts;
    oldParent[3] = "1";

    QTest::newRow("ours") << mine << int(TempOwner::Alive);
    QTest::newRow("a living process") << tempNameWith(parentParts) << int(TempOwner::Alive);
    QTest::newRow("a process gone") << with(2, QByteArray::number(qint64(child))) << int(TempOwner::Gone);
    QTest::newRow("an earlier process with our pid") << with(3, "1") << int(TempOwner::Gone);
    QTest::newRow("an earlier process with a living pid") << tempNameWith(oldParent) << int(TempOwner::Gone);
    QTest::newRow("another boot or machine")
        << with(0, parts.at(0) == "00000000" ? "00000001" : "00000000") << int(TempOwner::Alive);
    QTest::newRow("another pid namespace") << with(1, "1") << int(TempOwner::Alive);
    QTest::newRow("no owner recorded") << QByteArray(".x.qvfs-abc123.part") << int(TempOwner::Alive);
    QTest::newRow("a user's .part") << QByteArray("x.part") << int(TempOwner::None);
    QTest::newRow("a user's hidden .part") << QByteArray(".x.part") << int(TempOwner::None);
    QTest::newRow("not quite ours") << QByteArray(".x.qvfs-abc.part") << int(TempOwner::None);
    QTest::newRow("not ours: pid") << with(2, "12x") << int(TempOwner::None);
    QTest::newRow("not ours: random part") << with(4, "abc") << int(TempOwner::None);
    QTest::newRow("not ours: hidden") << tempNameWith(parts).mid(1) << int(TempOwner::None);
}

void FileOpsTest::tempNameOwner()
{
    QFETCH(QByteArray, name);
    QFETCH(int, owner);
    QCOMPARE(int(ownerOfTempName(name)), owner);
    QVERIFY(tempName(QByteArray(300, 'n')).size() <= 255);
}

void FileOpsTest::staleTemporaries()
{
    // a worker SIGKILLed while writing a named .part temporary (no O_TMPFILE) leaves it
    QVERIFY(writeBigFile(path("large"), 40 * MiB));
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    const pid_t pid = ::fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
        TestContext context;
        context.onProgress = [](TestContext &c) {
            if (c.bytes > 0)
                ::kill(::getpid(), SIGKILL);
        };
        CopyOptions o;
        o.allowTmpFile = false;
        (void)FileOps::copy({ path("large") }, path("out"), true, o, context);
        ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    const QList<QByteArray> left = namesIn(path("out"));
    QCOMPARE(left.size(), 1);
    const QByteArray stale = left.at(0);
    QVERIFY2(stale.startsWith(".large.qvfs-") && stale.endsWith(".part"), stale.constData());
    if (tempNameParts(stale).size() != 5)
        SKIP_TEST("no /proc of this pid namespace: temporaries carry no owner");
    QCOMPARE(ownerOfTempName(stale), TempOwner::Gone);

    // beside it: a living process's temporary, another machine's, a user's look-alikes
    QList<QByteArray> parts = tempNameParts(stale);
    const QByteArray living = tempName(QByteArrayLiteral("mine"));
    parts[0] = parts.at(0) == "00000000" ? "00000001" : "00000000";
    const QByteArray otherMachine = tempNameWith(parts);
    QList<QByteArray> kept { living, otherMachine, ".large.part", "large.part", ".large.qvfs-abc.part",
        ".large.qvfs-abcdef.part" };
    for (const QByteArray &name : std::as_const(kept))
        QVERIFY(writeRaw(path("out/") + name, QByteArrayLiteral("keep")));
    // a stale-looking temporary of another user is not ours to delete
    if (::geteuid() == 0) {
        const QByteArray othersStale = stale.left(stale.size() - 5 - 6) + "zzzzzz.part";
        QVERIFY(writeRaw(path("out/") + othersStale, QByteArrayLiteral("keep")));
        QCOMPARE(::chown(path("out/" + othersStale).constData(), 4242, 4242), 0);
        kept.append(othersStale);
    }

    // the next write of a named temporary into that folder removes the stale one, only it
    FileOps::forgetCleanedFolders();
    QVERIFY(writeRaw(path("small"), QByteArrayLiteral("s")));
    TestContext context;
    CopyOptions o;
    o.allowTmpFile = false;
    QVERIFY(FileOps::copy({ path("small") }, path("out"), true, o, context).ok());
    QList<QByteArray> expected = kept;
    expected.append("small");
    std::sort(expected.begin(), expected.end());
    QCOMPARE(namesIn(path("out")), expected);
    for (const QByteArray &name : std::as_const(kept))
        QCOMPARE(contentOf(path("out/") + name), QByteArrayLiteral("keep"));

    // the same through an AtomicWriter (put) after another kill
    const pid_t writer = ::fork();
    QVERIFY(writer >= 0);
    if (writer == 0) {
        AtomicWriter w;
        if (w.open(path("out/put"), false, -1, false).ok() && w.write(QByteArrayLiteral("partial")).ok())
            ::kill(::getpid(), SIGKILL);
        ::_exit(1);
    }
    QCOMPARE(::waitpid(writer, &status, 0), writer);
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(namesIn(path("out")).size(), expected.size() + 1);
    FileOps::forgetCleanedFolders();
    {
        AtomicWriter w;
        QVERIFY(w.open(path("out/put"), false, -1, false).ok());
        QVERIFY(w.write(QByteArrayLiteral("complete")).ok());
        QVERIFY(w.commit().ok());
    }
    expected.append("put");
    std::sort(expected.begin(), expected.end());
    QCOMPARE(namesIn(path("out")), expected);
}

// ---- per-entry reports and skipped entries

void FileOpsTest::itemReports()
{
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("src/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/a"), QByteArrayLiteral("a")));
    QVERIFY(writeRaw(path("src/b"), QByteArrayLiteral("bb")));
    QVERIFY(writeRaw(path("src/sub/c"), QByteArrayLiteral("ccc")));
    QCOMPARE(::symlink("a", path("src/link").constData()), 0);
    QCOMPARE(::mkdir(path("out").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("out/src").constData(), 0755), 0); // merged
    QVERIFY(writeRaw(path("out/src/b"), QByteArrayLiteral("theirs"))); // skipped

    TestContext context;
    OpResult r = FileOps::copy({ path("src") }, path("out"), true, options(ConflictPolicy::Skip), context);
    QVERIFY(r.ok());
    const QByteArray s = path("src/"), o = path("out/src/");
    QList<QByteArray> expected { "copying " + s + "a -> " + o + "a", "copied " + s + "a -> " + o + "a",
        "skipped " + s + "b -> " + o + "b", "copying " + s + "link -> " + o + "link",
        "copied " + s + "link -> " + o + "link", "created folder " + s + "sub -> " + o + "sub",
        "copying " + s + "sub/c -> " + o + "sub/c", "copied " + s + "sub/c -> " + o + "sub/c" };
    QList<QByteArray> got = context.items;
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(got, expected);
    // Copying comes before its Copied
    QVERIFY(context.items.indexOf("copying " + s + "a -> " + o + "a")
        < context.items.indexOf("copied " + s + "a -> " + o + "a"));
    QCOMPARE(contentOf(path("out/src/b")), QByteArrayLiteral("theirs"));

    // a move: renamed entries are Moved
    QCOMPARE(::mkdir(path("moved").constData(), 0755), 0);
    TestContext moves;
    r = FileOps::copy(
        { path("src/a"), path("src/sub") }, path("moved"), true, options(ConflictPolicy::Fail, true, true), moves);
    QVERIFY(r.ok());
    expected = { "moved " + s + "a -> " + path("moved/a"), "moved " + s + "sub -> " + path("moved/sub") };
    QCOMPARE(moves.items, expected);
}

void FileOpsTest::skippedNotProcessed_data()
{
    QTest::addColumn<bool>("move");
    QTest::addColumn<bool>("askSkip"); // skipped by an answer rather than the policy
    QTest::newRow("copy") << false << false;
    QTest::newRow("copy, answered skip") << false << true;
    QTest::newRow("move") << true << false;
}

void FileOpsTest::skippedNotProcessed()
{
    QFETCH(bool, move);
    QFETCH(bool, askSkip);
    // src/{a, b, sub/{c, d}}; out/src/b exists (a file skipped), out/src/sub is a file (a
    // folder skipped with what it holds)
    QCOMPARE(::mkdir(path("src").constData(), 0755), 0);
    QCOMPARE(::mkdir(path("src/sub").constData(), 0755), 0);
    QVERIFY(writeRaw(path("src/a"), QByteArray(100, 'a')));
    QVERIFY(writeRaw(path("src/b"), QByteArray(20, 'b')));
    QVERIFY(writeRaw(path("src/sub/c"), QByteArray(3, 'c')));
    QVERIFY(writeRaw(path("src/sub/d"), QByteArray(4, 'd')));
    std::unique_ptr<TmpfsMount> mount;
    QByteArray out = path("out");
    if (move) {
        // across filesystems: counted and copied, then deleted
        mount = std::make_unique<TmpfsMount>(path("mnt"), "size=4m");
        if (!mount->mounted())
            SKIP_TEST("cannot mount a tmpfs (needs root)");
        out = path("mnt");
    } else {
        QCOMPARE(::mkdir(out.constData(), 0755), 0);
    }
    QCOMPARE(::mkdir(QByteArray(out + "/src").constData(), 0755), 0);
    QVERIFY(writeRaw(out + "/src/b", QByteArrayLiteral("theirs")));
    QVERIFY(writeRaw(out + "/src/sub", QByteArrayLiteral("a file")));

    TestContext context;
    context.answer = ConflictAction::Skip;
    const OpResult r = FileOps::copy(
        { path("src") }, out, true, options(askSkip ? ConflictPolicy::Ask : ConflictPolicy::Skip, true, move), context);
    QVERIFY2(r.ok(), r.path.constData());
    QCOMPARE(context.skippedCount, qint64(2));
    // counted apart, as KIO counts: the byte total loses what was skipped (sub with its
    // content), so the bytes done reach it; the file and folder totals stay as found,
    // and only what was copied is processed
    QCOMPARE(context.totalBytes, qint64(100));
    QCOMPARE(context.totalFiles, qint64(4));
    QCOMPARE(context.totalDirs, qint64(2));
    QCOMPARE(context.bytes, context.totalBytes);
    QCOMPARE(context.files, qint64(1));
    QCOMPARE(context.dirs, qint64(1));
    QCOMPARE(contentOf(out + "/src/a"), QByteArray(100, 'a'));
    QCOMPARE(contentOf(out + "/src/b"), QByteArrayLiteral("theirs"));
    QCOMPARE(contentOf(out + "/src/sub"), QByteArrayLiteral("a file"));
    if (move) // what was skipped stays in the source
        QCOMPARE(namesIn(path("src")), (QList<QByteArray> { "b", "sub" }));
}

QTEST_GUILESS_MAIN(FileOpsTest)

#include "fileopstest.moc"
