// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp worker through the public jobs API and the real worker process, against a
// real OpenSSH server on 127.0.0.1 (testutil/sshdfixture.h): every operation, details of
// listings and stat, host keys (unknown: asked once; changed: refused), passwords asked
// again when wrong and then taken from the credential cache, five parallel jobs with one
// authentication, 10,000 entries, a name that is not UTF-8 from listing to deletion, kills
// mid-transfer, 100 MB both ways byte for byte (and which copy strategy ran), and a
// server that dies mid-job. The worker reads the fixture's ssh_config (QVFS_SSH_CONFIG)
// and never the real ~/.ssh; its connection sockets live in the fixture's folder.
#include "testutil/bigfile.h"
#include "testutil/serverprocess.h"
#include "testutil/sshdfixture.h"

#include "answerer.h"
#include "fixturedir.h"
#include "jobrunner.h"
#include "procutil.h"
#include "rawfs.h"
#include "tmpfsmount.h"
#include "workerenv.h"

#include <Qvfs/AskDelegate>
#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirectorySizeJob>
#include <Qvfs/Entry>
#include <Qvfs/Error>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/Protocol>
#include <Qvfs/Question>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstring>
#include <random>

using namespace Qvfs;
using namespace QvfsTest;

Q_DECLARE_METATYPE(Qvfs::DeleteScope)
Q_DECLARE_METATYPE(Qvfs::Trust)

namespace
{

constexpr qint64 BigSize = 100 * MiB;

using Delegate = QvfsTest::CredentialsAnswerer;

QList<qint64> workers(const char *exe)
{
    return ProcUtil::childrenRunning(exe);
}

// Ends the idle workers and waits until none is left (sshd and the agent are children
// of this test too: only workers count).
bool settleTestWorkers(int timeoutMs = 5000)
{
    return QvfsTest::settleWorkers({ "/qvfs-worker-sftp", "/qvfs-worker-file" }, timeoutMs);
}

qint64 bytesReadByThisProcess()
{
    return ProcUtil::bytesReadBySelf();
}

QList<QByteArray> temporariesIn(const QByteArray &dir)
{
    QList<QByteArray> out;
    for (const QByteArray &n : namesIn(dir)) {
        if (n.contains(".qvfs-") && n.endsWith(".part"))
            out.append(n);
    }
    return out;
}

} // namespace

class SftpWorkerTest : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    QByteArray m_trusted; // ssh_config with the server's key known

    QUrl url(const QByteArray &path, int port = 0, const QByteArray &user = "root") const
    {
        return sftpUrl(port ? port : m_sshd.port(), path, user);
    }
    QByteArray data(const QByteArray &rel) const { return join(m_sshd.dataDir(), rel); }

    /*!
     * The workers from now on use \a config (and the fixture's agent unless \a agent is
     * empty) and a new folder for connection sockets: their first command connects and
     * authenticates again. Idle workers are ended first, so none keeps an old setting.
     */
    void useConfig(const QByteArray &config, const QByteArray &agent, SshdFixture *sshd = nullptr)
    {
        QVERIFY(settleTestWorkers());
        qputenv("QVFS_SSH_CONFIG", config);
        qputenv("SSH_AUTH_SOCK", agent);
        qputenv("XDG_RUNTIME_DIR", (sshd ? sshd : &m_sshd)->newRuntimeDir());
    }
    void useTrusted() { useConfig(m_trusted, m_sshd.agentSocket()); }

private Q_SLOTS:
    void initTestCase()
    {
        QVFS_START_SERVER(m_sshd);
        qputenv("HOME", m_sshd.dir()); // whatever ssh might look at: never the real one
        m_trusted = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
        useTrusted();
    }

    void cleanupTestCase()
    {
        QVERIFY(settleTestWorkers());
        m_sshd.stop();
    }

    void cleanup()
    {
        QVERIFY2(settleTestWorkers(), "worker processes still running after the test");
        QCOMPARE(temporariesIn(m_sshd.dataDir()), QList<QByteArray>());
    }

    // ------------------------------------------------------------ operations

    void operations()
    {
        QVERIFY(mkdirRaw(data("ops")));
        // mkdir, mkpath (an existing folder is fine, a file in the way is not)
        QCOMPARE(run(Qvfs::mkdir(url(data("ops/d")), 0750))->error(), 0);
        QCOMPARE(lstatRaw(data("ops/d")).st_mode & 07777, 0750u);
        QCOMPARE(run(Qvfs::mkdir(url(data("ops/d"))))->error(), int(ErrAlreadyExists));
        QCOMPARE(run(Qvfs::mkdir(url(data("ops/no/such"))))->error(), int(ErrDoesNotExist));
        QCOMPARE(run(Qvfs::mkpath(url(data("ops/a/b/c"))))->error(), 0);
        QVERIFY(S_ISDIR(lstatRaw(data("ops/a/b/c")).st_mode));
        QCOMPARE(run(Qvfs::mkpath(url(data("ops/a/b"))))->error(), 0);
        QVERIFY(writeRaw(data("ops/file"), "content"));
        QCOMPARE(run(Qvfs::mkpath(url(data("ops/file/x"))))->error(), int(ErrAlreadyExists));

        // put with permissions and a modification time; get it back
        {
            StoredTransferJob *p = Qvfs::storedPut("hello sftp", url(data("ops/put")), 0640);
            p->setModificationTime(1600000000);
            QCOMPARE(run(p)->error(), 0);
            const struct stat st = lstatRaw(data("ops/put"));
            QCOMPARE(st.st_mode & 07777, 0640u);
            QCOMPARE(qint64(st.st_mtime), qint64(1600000000));
            QCOMPARE(readRaw(data("ops/put")), QByteArray("hello sftp"));
            auto g = run(Qvfs::storedGet(url(data("ops/put"))));
            QCOMPARE(g->error(), 0);
            QCOMPARE(g->data(), QByteArray("hello sftp"));
            QCOMPARE(run(Qvfs::storedPut("again", url(data("ops/put"))))->error(), int(ErrAlreadyExists));
            QCOMPARE(run(Qvfs::storedPut("again", url(data("ops/put")), -1, PutOverwrite))->error(), 0);
            QCOMPARE(readRaw(data("ops/put")), QByteArray("again"));
            QCOMPARE(lstatRaw(data("ops/put")).st_mode & 07777, 0640u); // a replaced file keeps its mode
        }
        // get of a folder, of something missing; get from an offset
        QCOMPARE(run(Qvfs::storedGet(url(data("ops/d"))))->error(), int(ErrIsDirectory));
        QCOMPARE(run(Qvfs::storedGet(url(data("ops/missing"))))->error(), int(ErrDoesNotExist));
        {
            TransferJob *g = Qvfs::get(url(data("ops/file")), 3);
            QByteArray got;
            connect(g, &TransferJob::data, this, [&got](TransferJob *, const QByteArray &d) { got += d; });
            QCOMPARE(run(g)->error(), 0);
            QCOMPARE(got, QByteArray("tent"));
        }

        // rename: plain, onto an existing file with and without overwrite
        QVERIFY(writeRaw(data("ops/r1"), "one"));
        QVERIFY(writeRaw(data("ops/r2"), "two"));
        QCOMPARE(run(Qvfs::rename(url(data("ops/r1")), url(data("ops/r3"))))->error(), 0);
        QCOMPARE(run(Qvfs::rename(url(data("ops/r3")), url(data("ops/r2"))))->error(), int(ErrAlreadyExists));
        QCOMPARE(run(Qvfs::rename(url(data("ops/r3")), url(data("ops/r2")), true))->error(), 0);
        QCOMPARE(readRaw(data("ops/r2")), QByteArray("one"));
        QVERIFY(!existsRaw(data("ops/r3")));
        QCOMPARE(run(Qvfs::rename(url(data("ops/missing")), url(data("ops/x"))))->error(), int(ErrDoesNotExist));

        // symlink, chmod, modification time (of a link: its own)
        QCOMPARE(run(Qvfs::symlink("put", url(data("ops/link"))))->error(), 0);
        QCOMPARE(readLinkRaw(data("ops/link")), QByteArray("put"));
        QCOMPARE(run(Qvfs::symlink("put", url(data("ops/link"))))->error(), int(ErrAlreadyExists));
        QCOMPARE(run(Qvfs::chmod(url(data("ops/file")), 0604))->error(), 0);
        QCOMPARE(lstatRaw(data("ops/file")).st_mode & 07777, 0604u);
        QVERIFY(setTimes(data("ops/file"), 1400000000, 0));
        QCOMPARE(run(Qvfs::setModificationTime(url(data("ops/file")), 1500000000))->error(), 0);
        QCOMPARE(qint64(lstatRaw(data("ops/file")).st_mtime), qint64(1500000000));
        QCOMPARE(qint64(lstatRaw(data("ops/file")).st_atime), qint64(1400000000)); // left alone
        const qint64 targetTime = qint64(lstatRaw(data("ops/put")).st_mtime);
        QCOMPARE(run(Qvfs::setModificationTime(url(data("ops/link")), 1300000000))->error(), 0);
        QCOMPARE(qint64(lstatRaw(data("ops/link")).st_mtime), qint64(1300000000));
        QCOMPARE(qint64(lstatRaw(data("ops/put")).st_mtime), targetTime);
        QCOMPARE(run(Qvfs::chmod(url(data("ops/missing")), 0600))->error(), int(ErrDoesNotExist));

        // directory size: files (links too), folders inside, bytes of regular files
        {
            QVERIFY(mkdirRaw(data("ops/size")));
            QVERIFY(mkdirRaw(data("ops/size/sub")));
            QVERIFY(writeRaw(data("ops/size/a"), QByteArray(1000, 'a')));
            QVERIFY(writeRaw(data("ops/size/sub/b"), QByteArray(234, 'b')));
            QVERIFY(symlinkRaw("a", data("ops/size/l")));
            auto j = run(Qvfs::directorySize(url(data("ops/size"))));
            QCOMPARE(j->error(), 0);
            QCOMPARE(j->totalBytes(), qint64(1234));
            QCOMPARE(j->totalFiles(), qint64(3));
            QCOMPARE(j->totalDirectories(), qint64(1));
        }
    }

    void freeSpace()
    {
        // statvfs@openssh.com: what statvfs(2) says of the same folder, which the server
        // shares with this test (bracketed: others write to that disk meanwhile).
        QVERIFY(Protocol::find(QStringLiteral("sftp")).hasCapability(Protocol::FreeSpace));
        QVERIFY(mkdirRaw(data("space")));
        QVERIFY(writeRaw(data("space/f"), "f"));
        auto figures = [](const QByteArray &path, qint64 *total, qint64 *free, qint64 *available) {
            struct statvfs st;
            if (::statvfs(path.constData(), &st) != 0)
                return false;
            const qint64 unit = qint64(st.f_frsize ? st.f_frsize : st.f_bsize);
            *total = qint64(st.f_blocks) * unit;
            *free = qint64(st.f_bfree) * unit;
            *available = qint64(st.f_bavail) * unit;
            return true;
        };
        qint64 total0 = 0, free0 = 0, avail0 = 0, total1 = 0, free1 = 0, avail1 = 0;
        QVERIFY(figures(data("space"), &total0, &free0, &avail0));
        auto j = run(Qvfs::freeSpace(url(data("space/f"))));
        QVERIFY(figures(data("space"), &total1, &free1, &avail1));
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(j->total(), total0);
        QCOMPARE(total1, total0);
        constexpr qint64 Slack = 4 * MiB;
        QVERIFY2(j->free() >= qMin(free0, free1) - Slack && j->free() <= qMax(free0, free1) + Slack,
            qPrintable(QStringLiteral("free %1, statvfs %2 / %3").arg(j->free()).arg(free0).arg(free1)));
        QVERIFY2(j->available() >= qMin(avail0, avail1) - Slack && j->available() <= qMax(avail0, avail1) + Slack,
            qPrintable(QStringLiteral("available %1, statvfs %2 / %3").arg(j->available()).arg(avail0).arg(avail1)));
        QCOMPARE(j->used(), j->total() - j->free());

        // Exact on a tmpfs of its own below the served folder (sshd runs as root here).
        {
            TmpfsMount tmpfs(data("space/tmpfs"), "size=64m,mode=0755");
            QVERIFY2(tmpfs.mounted(), tmpfs.errorString().constData());
            QVERIFY(writeBig(data("space/tmpfs/data"), 3 * MiB));
            j = run(Qvfs::freeSpace(url(data("space/tmpfs"))));
            QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
            qint64 t = 0, f = 0, a = 0;
            QVERIFY(figures(data("space/tmpfs"), &t, &f, &a));
            QCOMPARE(j->total(), 64 * MiB);
            QCOMPARE(j->free(), f);
            QCOMPARE(j->available(), a);
            QCOMPARE(j->used(), 3 * MiB);
        }

        // A missing path names its URL.
        j = run(Qvfs::freeSpace(url(data("space/missing"))));
        QCOMPARE(j->error(), int(ErrDoesNotExist));
        QCOMPARE(j->errorArgs().value(0), url(data("space/missing")).toString(QUrl::FullyEncoded));
        QCOMPARE(j->total(), qint64(-1));
    }

    void freeSpaceUnsupported()
    {
        // A server that does not offer statvfs@openssh.com: the real one, with the
        // extension taken out of its VERSION packet by a relay the worker runs as its ssh.
        const QByteArray relay = m_sshd.dir() + "/ssh-without-statvfs";
        QVERIFY(writeRaw(relay,
            "#!/bin/sh\n"
            "ssh \"$@\" | exec python3 -c '\n"
            "import os, struct\n"
            "def read(n):\n"
            "    b = b\"\"\n"
            "    while len(b) < n:\n"
            "        c = os.read(0, n - len(b))\n"
            "        if not c: raise SystemExit(0)\n"
            "        b += c\n"
            "    return b\n"
            "body = read(struct.unpack(\">I\", read(4))[0])\n"
            "out, rest = body[:5], body[5:]\n"
            "while rest:\n"
            "    n = struct.unpack(\">I\", rest[:4])[0]; name = rest[4:4 + n]; rest = rest[4 + n:]\n"
            "    m = struct.unpack(\">I\", rest[:4])[0]; data = rest[4:4 + m]; rest = rest[4 + m:]\n"
            "    if name != b\"statvfs@openssh.com\":\n"
            "        out += struct.pack(\">I\", n) + name + struct.pack(\">I\", m) + data\n"
            "os.write(1, struct.pack(\">I\", len(out)) + out)\n"
            "while True:\n"
            "    c = os.read(0, 65536)\n"
            "    if not c: break\n"
            "    while c: c = c[os.write(1, c):]\n"
            "'\n",
            0755));
        QVERIFY(settleTestWorkers());
        qputenv("QVFS_SSH_PROGRAM", relay);
        const auto restore = qScopeGuard([] { qunsetenv("QVFS_SSH_PROGRAM"); }); // cleanup() ends the worker
        QVERIFY(mkdirRaw(data("nospace")));
        auto s = run(Qvfs::stat(url(data("nospace")))); // the relay passes everything else
        QVERIFY2(s->error() == 0, qPrintable(s->errorString()));
        auto j = run(Qvfs::freeSpace(url(data("nospace"))));
        QCOMPARE(j->error(), int(ErrUnsupportedAction));
        QCOMPARE(j->errorArgs().value(0), url(data("nospace")).toString(QUrl::FullyEncoded));
        QCOMPARE(j->total(), qint64(-1));
    }

    void details()
    {
        QVERIFY(mkdirRaw(data("det")));
        QVERIFY(writeRaw(data("det/f.txt"), "12345"));
        QVERIFY(setTimes(data("det/f.txt"), 1600000000, 0));
        QVERIFY(mkdirRaw(data("det/sub")));
        QVERIFY(symlinkRaw("f.txt", data("det/link")));
        QVERIFY(symlinkRaw("sub", data("det/dirlink")));
        QVERIFY(symlinkRaw("/nowhere/\xff", data("det/dangling")));
        QVERIFY(writeRaw(data("det/.hidden"), ""));

        // Everything by default: types, sizes, modes, times, owners by name, link targets.
        Listing l = collect(Qvfs::listDir(url(data("det")), DetailsFull | DetailMimeType));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.keys(), (QList<QByteArray> { ".hidden", "dangling", "dirlink", "f.txt", "link", "sub" }));
        const Entry f = l.entries.value("f.txt");
        QCOMPARE(f.type(), FileType::Regular);
        QCOMPARE(f.size(), qint64(5));
        QCOMPARE(f.number(Mode), qint64(0644));
        QCOMPARE(f.number(MTime), qint64(1600000000));
        QCOMPARE(f.number(Uid), qint64(0));
        QCOMPARE(f.bytes(User), QByteArrayView("root"));
        QCOMPARE(f.bytes(Group), QByteArrayView("root"));
        QCOMPARE(f.number(NLink), qint64(1));
        QCOMPARE(f.string(MimeType), QStringLiteral("text/plain"));
        QVERIFY(!f.contains(LinkTarget));
        QVERIFY(!f.contains(Hidden));
        QCOMPARE(l.entries.value(".hidden").number(Hidden), qint64(1));
        QCOMPARE(l.entries.value("sub").type(), FileType::Directory);
        QCOMPARE(l.entries.value("sub").string(MimeType), QStringLiteral("inode/directory"));
        QCOMPARE(l.entries.value("link").type(), FileType::Symlink);
        QCOMPARE(l.entries.value("link").bytes(LinkTarget), QByteArrayView("f.txt"));
        QCOMPARE(l.entries.value("dangling").bytes(LinkTarget), QByteArrayView("/nowhere/\xff"));

        // Names only: no link targets (no request per link), no sizes.
        l = collect(Qvfs::listDir(url(data("det")), Details()));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.size(), 6);
        QVERIFY(!l.entries.value("link").contains(LinkTarget));
        QVERIFY(!l.entries.value("f.txt").contains(Size));
        QCOMPARE(l.entries.value("link").type(), FileType::Symlink);

        // Resolved: what the link points at, its target kept.
        l = collect(Qvfs::listDir(url(data("det")), DetailBasic | DetailResolveSymlink));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.value("link").type(), FileType::Regular);
        QCOMPARE(l.entries.value("link").size(), qint64(5));
        QCOMPARE(l.entries.value("link").bytes(LinkTarget), QByteArrayView("f.txt"));
        QCOMPARE(l.entries.value("dirlink").type(), FileType::Directory);
        QCOMPARE(l.entries.value("dangling").type(), FileType::Symlink);

        // stat: a link itself, or resolved
        auto s = run(Qvfs::stat(url(data("det/link")), DetailBasic));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().name(), QByteArrayView("link"));
        QCOMPARE(s->statResult().type(), FileType::Symlink);
        QCOMPARE(s->statResult().bytes(LinkTarget), QByteArrayView("f.txt"));
        s = run(Qvfs::stat(url(data("det/link")), DetailBasic | DetailResolveSymlink));
        QCOMPARE(s->statResult().type(), FileType::Regular);
        QCOMPARE(s->statResult().size(), qint64(5));
        QCOMPARE(s->statResult().bytes(LinkTarget), QByteArrayView("f.txt"));
        s = run(Qvfs::stat(url(data("det/link")), DetailTime));
        QVERIFY(!s->statResult().contains(LinkTarget));
        s = run(Qvfs::stat(url("/"), DetailBasic));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().name(), QByteArrayView("/"));
        QCOMPARE(s->statResult().type(), FileType::Directory);
        s = run(Qvfs::stat(url(data("det/missing"))));
        QCOMPARE(s->error(), int(ErrDoesNotExist));
        QCOMPARE(s->errorArgs().value(0), url(data("det/missing")).toString(QUrl::FullyEncoded));

        // errors of listings
        QCOMPARE(collect(Qvfs::listDir(url(data("det/f.txt")))).error, int(ErrIsNotDirectory));
        QCOMPARE(collect(Qvfs::listDir(url(data("det/missing")))).error, int(ErrDoesNotExist));

        // recursive, with and without following links (each folder once)
        QVERIFY(writeRaw(data("det/sub/inner"), "i"));
        l = collect(Qvfs::listRecursive(url(data("det")), DetailBasic));
        QCOMPARE(l.error, 0);
        QVERIFY(l.entries.contains("sub/inner"));
        QVERIFY(!l.entries.contains("dirlink/inner"));
        l = collect(Qvfs::listRecursive(url(data("det")), DetailBasic, ListJob::FollowSymlinks));
        QCOMPARE(l.error, 0);
        QCOMPARE(int(l.entries.contains("sub/inner")) + int(l.entries.contains("dirlink/inner")), 1);
    }

    void deleteScopes_data()
    {
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<DeleteScope>("scope");
        QTest::addColumn<int>("error");
        QTest::addColumn<int>("left"); // entries left in del/
        QTest::newRow("file") << QByteArray("f") << DeleteScope::Tree << 0 << 3;
        QTest::newRow("link, not its target") << QByteArray("l") << DeleteScope::Tree << 0 << 3;
        QTest::newRow("empty folder") << QByteArray("e") << DeleteScope::EmptyFolders << 0 << 3;
        QTest::newRow("tree, as a tree") << QByteArray("t") << DeleteScope::Tree << 0 << 3;
        QTest::newRow("tree, only empty folders")
            << QByteArray("t") << DeleteScope::EmptyFolders << int(ErrDirectoryNotEmpty) << 4;
        QTest::newRow("folder, no folders") << QByteArray("e") << DeleteScope::NoFolders << int(ErrIsDirectory) << 4;
        QTest::newRow("missing") << QByteArray("missing") << DeleteScope::Tree << int(ErrDoesNotExist) << 4;
    }

    void deleteScopes()
    {
        QFETCH(QByteArray, target);
        QFETCH(DeleteScope, scope);
        QFETCH(int, error);
        QFETCH(int, left);
        removeTreeRaw(data("del"));
        QVERIFY(mkdirRaw(data("del")));
        QVERIFY(writeRaw(data("del/f"), "f"));
        QVERIFY(symlinkRaw("f", data("del/l")));
        QVERIFY(mkdirRaw(data("del/e")));
        QVERIFY(mkdirRaw(data("del/t")));
        QVERIFY(mkdirRaw(data("del/t/sub")));
        QVERIFY(writeRaw(data("del/t/sub/x"), "x"));
        QVERIFY(symlinkRaw("/", data("del/t/root"))); // never followed
        QVERIFY(mkdirRaw(data("del/t/closed"), 0));
        QVERIFY(writeRaw(data("del/t/closed/y"), "y"));
        auto j = run(Qvfs::del(url(data("del/" + target)), scope));
        QCOMPARE(j->error(), error);
        QCOMPARE(namesIn(data("del")).size(), left);
        QVERIFY(existsRaw(data("del/f")) || target == "f");
        removeTreeRaw(data("del"));
    }

    void copyAndMoveWithin()
    {
        QVERIFY(mkdirRaw(data("within")));
        QVERIFY(mkdirRaw(data("within/t")));
        QVERIFY(writeRaw(data("within/t/a"), QByteArray(200000, 'a'), 0640));
        QVERIFY(setTimes(data("within/t/a"), 1500000000, 0));
        QVERIFY(mkdirRaw(data("within/t/sub"), 0710));
        QVERIFY(writeRaw(data("within/t/sub/b"), "b"));
        QVERIFY(symlinkRaw("../a", data("within/t/sub/l")));
        QVERIFY(settleTestWorkers());
        const int startsBefore = Qvfs::workerStartCount();
        CopyJob *job = Qvfs::copyAs(url(data("within/t")), url(data("within/t2")));
        QList<QUrl> copied;
        connect(job, &CopyJob::copied, this, [&copied](CopyJob *, const QUrl &, const QUrl &to) { copied << to; });
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        // Inside the worker (copy-data): one sftp worker, nothing through the application.
        QCOMPARE(Qvfs::workerStartCount() - startsBefore, 1);
        QCOMPARE(copied.size(), 3);
        QCOMPARE(readRaw(data("within/t2/a")), QByteArray(200000, 'a'));
        QCOMPARE(lstatRaw(data("within/t2/a")).st_mode & 07777, 0640u);
        QCOMPARE(qint64(lstatRaw(data("within/t2/a")).st_mtime), qint64(1500000000));
        QCOMPARE(lstatRaw(data("within/t2/sub")).st_mode & 07777, 0710u);
        QCOMPARE(readLinkRaw(data("within/t2/sub/l")), QByteArray("../a"));
        QCOMPARE(j->processedAmount(Job::Bytes), qint64(200001));
        // a folder into itself
        QCOMPARE(run(Qvfs::copy(url(data("within/t")), url(data("within/t/sub"))))->error(), int(ErrCycle));
        // conflicts: rename policy
        CopyJob *again = Qvfs::copy(url(data("within/t/a")), url(data("within/t2")));
        again->setConflictPolicy(ConflictPolicy::Rename);
        QCOMPARE(run(again)->error(), 0);
        QCOMPARE(readRaw(data("within/t2/a (1)")), QByteArray(200000, 'a'));
        // a move is a rename
        QCOMPARE(run(Qvfs::moveAs(url(data("within/t2")), url(data("within/t3"))))->error(), 0);
        QVERIFY(!existsRaw(data("within/t2")));
        QCOMPARE(readRaw(data("within/t3/sub/b")), QByteArray("b"));
        removeTreeRaw(data("within"));
    }

    // ------------------------------------------------------------ host keys and passwords

    void unknownHostKey_data()
    {
        QTest::addColumn<Trust>("answer");
        QTest::newRow("accepted") << Trust::Once;
        QTest::newRow("refused") << Trust::Refuse;
    }

    void unknownHostKey()
    {
        QFETCH(Trust, answer);
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Ask); // known_hosts emptied
        useConfig(config, m_sshd.agentSocket());
        Delegate delegate;
        delegate.trust = answer;
        StatJob *job = Qvfs::stat(url("/"));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QCOMPARE(delegate.trusts.size(), 1);
        QCOMPARE(delegate.kinds, QList<Question::Kind> { Question::Kind::HostKey });
        const TrustQuestion q = delegate.trusts.constFirst();
        QCOMPARE(q.kind, QuestionKind::HostKey);
        QCOMPARE(q.fingerprint.toUtf8(), m_sshd.hostKeyFingerprint());
        QCOMPARE(q.host, QStringLiteral("127.0.0.1:%1").arg(m_sshd.port()));
        QCOMPARE(q.detail, QStringLiteral("ED25519"));
        if (answer == Trust::Refuse) {
            QCOMPARE(j->error(), int(ErrUnknownHostKey));
            QVERIFY(!m_sshd.knownHostsHasServer());
        } else {
            QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
            // OpenSSH recorded the key: a new connection (new worker, no master) asks nothing.
            QVERIFY(m_sshd.knownHostsHasServer());
            useConfig(config, m_sshd.agentSocket());
            Delegate second;
            StatJob *again = Qvfs::stat(url("/"));
            again->setAskDelegate(&second);
            QCOMPARE(run(again)->error(), 0);
            QVERIFY(second.kinds.isEmpty());
        }
        m_trusted = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
        useTrusted();
    }

    void changedHostKey()
    {
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Ask);
        QVERIFY(m_sshd.writeWrongHostKey());
        useConfig(config, m_sshd.agentSocket());
        Delegate delegate;
        delegate.trust = Trust::Always; // never asked anyway
        StatJob *job = Qvfs::stat(url("/"));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QCOMPARE(j->error(), int(ErrHostKeyChanged));
        QVERIFY(delegate.kinds.isEmpty());
        QVERIFY2(j->errorString().contains(QStringLiteral("127.0.0.1")), qPrintable(j->errorString()));
        m_trusted = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
        useTrusted();
    }

    void wrongPassword()
    {
        QByteArray user;
        QString why;
        if (!m_sshd.createUser("pass word!", &user, &why))
            QSKIP(qPrintable(why));
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
            { "PubkeyAuthentication no", "PreferredAuthentications password", "NumberOfPasswordPrompts 3" });
        useConfig(config, {});
        const QByteArray home = m_sshd.userHome();

        // Wrong, asked again (not from the cache), right: remembered.
        Delegate delegate;
        delegate.answers = { "wrong", "pass word!" };
        StatJob *job = Qvfs::stat(url(home, 0, user));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(delegate.passwords.size(), 2);
        QCOMPARE(delegate.passwords.at(0).realm, QStringLiteral("ssh"));
        QCOMPARE(delegate.passwords.at(0).user, QString::fromUtf8(user));
        QVERIFY(!delegate.passwords.at(0).retry);
        QVERIFY(delegate.passwords.at(1).retry);
        QVERIFY(delegate.passwords.at(1).prompt.contains(QString::fromUtf8(user)));

        // Another job on a new connection (new worker, no master): the cache answers.
        useConfig(config, {});
        const int accepted = m_sshd.countInLog("Accepted password for " + user);
        Delegate second;
        StoredTransferJob *put = Qvfs::storedPut("mine", url(home + "/file", 0, user));
        put->setAskDelegate(&second);
        QCOMPARE(run(put)->error(), 0);
        QVERIFY(second.kinds.isEmpty());
        QCOMPARE(m_sshd.countInLog("Accepted password for " + user), accepted + 1);
        QVERIFY(lstatRaw(home + "/file").st_uid != 0);

        // A URL without a user: ssh asks for the local user's password; the answer names
        // another user, and the worker logs in as that one, without asking twice.
        useConfig(config, {});
        Delegate other;
        other.answers = { "pass word!" };
        other.answerUser = QString::fromUtf8(user);
        StoredTransferJob *asOther = Qvfs::storedPut("theirs", url(home + "/other", 0, {}));
        asOther->setAskDelegate(&other);
        auto o = run(asOther);
        QVERIFY2(o->error() == 0, qPrintable(o->errorString()));
        QCOMPARE(other.passwords.size(), 1);
        QCOMPARE(other.passwords.at(0).user, QStringLiteral("root"));
        QCOMPARE(lstatRaw(home + "/other").st_uid, lstatRaw(home + "/file").st_uid);

        // Refused: the job says nobody answered.
        useConfig(m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
                      { "PubkeyAuthentication no", "PreferredAuthentications password" }),
            {});
        Delegate refusing;
        StatJob *refused = Qvfs::stat(url(home, 0, "nobody-here-" + user));
        refused->setAskDelegate(&refusing);
        QCOMPARE(run(refused)->error(), int(ErrNotAnswered));
        QCOMPARE(refusing.passwords.size(), 1);
        useTrusted();
    }

    void passphrase()
    {
        const QByteArray config = m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted,
            { "IdentityFile " + m_sshd.passphraseKeyPath(), "PreferredAuthentications publickey" });
        useConfig(config, {});
        Delegate delegate;
        delegate.answers = { "not the passphrase", m_sshd.passphrase() };
        StatJob *job = Qvfs::stat(url("/"));
        job->setAskDelegate(&delegate);
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QCOMPARE(delegate.passwords.size(), 2);
        for (const PasswordQuestion &q : std::as_const(delegate.passwords)) {
            QVERIFY(q.secretOnly);
            QCOMPARE(q.realm, QStringLiteral("ssh key ") + QString::fromLocal8Bit(m_sshd.passphraseKeyPath()));
            QVERIFY2(q.prompt.contains(QStringLiteral("passphrase")), qPrintable(q.prompt));
        }
        QVERIFY(!delegate.passwords.at(0).retry);
        QVERIFY(delegate.passwords.at(1).retry);
        useTrusted();
    }

    void sshConfigDecides()
    {
        // No user and no port in the URL: ssh_config's alias, User and Port apply.
        QFile trusted(QString::fromLocal8Bit(m_trusted));
        QVERIFY(trusted.open(QIODevice::ReadOnly));
        const QByteArray config = m_sshd.dir() + "/ssh_config-alias";
        QVERIFY(writeRaw(config,
            QByteArray("Host qvfs-alias\n  HostName 127.0.0.1\n  Port " + QByteArray::number(m_sshd.port())
                + "\n  User root\n  HostKeyAlias [127.0.0.1]:" + QByteArray::number(m_sshd.port()) + '\n'
                + trusted.readAll()),
            0600));
        useConfig(config, m_sshd.agentSocket());
        QVERIFY(writeRaw(data("alias-file"), "via the alias"));
        QUrl u(QStringLiteral("sftp://qvfs-alias/"));
        u = Url::child(u, data("alias-file").mid(1));
        auto g = run(Qvfs::storedGet(u));
        QVERIFY2(g->error() == 0, qPrintable(g->errorString()));
        QCOMPARE(g->data(), QByteArray("via the alias"));
        // An empty path is the login folder (root's home).
        auto s = run(Qvfs::stat(QUrl(QStringLiteral("sftp://qvfs-alias"))));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().type(), FileType::Directory);
        QCOMPARE(s->statResult().name(), QByteArrayView("root"));
        ::unlink(data("alias-file").constData());
        useTrusted();
    }

    void reconnectsAfterLostConnection()
    {
        useTrusted();
        const QByteArray runtime = qgetenv("XDG_RUNTIME_DIR");
        // A fresh worker: the names come from the server, not from an earlier listing.
        auto s = run(Qvfs::stat(url(m_sshd.dataDir()), DetailsDefault));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().bytes(User), QByteArrayView("root"));
        QCOMPARE(s->statResult().bytes(Group), QByteArrayView("root"));
        const int accepted = m_sshd.countInLog("Accepted publickey");
        const int starts = Qvfs::workerStartCount();
        // The shared connection goes away while the worker is idle.
        QByteArray out;
        QCOMPARE(SshdFixture::run(QStringLiteral("ssh"),
                     { QStringLiteral("-F"), QString::fromLocal8Bit(m_trusted), QStringLiteral("-o"),
                         QStringLiteral("ControlPath=%1/qvfs-ssh/%C").arg(QString::fromLocal8Bit(runtime)),
                         QStringLiteral("-p"), QString::number(m_sshd.port()), QStringLiteral("-O"),
                         QStringLiteral("exit"), QStringLiteral("root@127.0.0.1") },
                     &out, {}, m_sshd.agentEnvironment()),
            0);
        QTest::qWait(200);
        // The same worker notices, connects again and answers.
        s = run(Qvfs::stat(url(m_sshd.dataDir())));
        QVERIFY2(s->error() == 0, qPrintable(s->errorString()));
        QCOMPARE(Qvfs::workerStartCount(), starts);
        QCOMPARE(m_sshd.countInLog("Accepted publickey"), accepted + 1);
    }

    void parallelJobsAuthenticateOnce()
    {
        QVERIFY(mkdirRaw(data("par")));
        for (int i = 0; i < 5; ++i)
            QVERIFY(writeRaw(data("par/f" + QByteArray::number(i)), QByteArray(100000 * (i + 1), 'p')));
        useTrusted(); // no master yet
        const int before = m_sshd.countInLog("Accepted publickey");
        const int startsBefore = Qvfs::workerStartCount();
        QList<StoredTransferJob *> jobs;
        for (int i = 0; i < 5; ++i) {
            jobs << Qvfs::storedGet(url(data("par/f" + QByteArray::number(i))));
            jobs.last()->setAutoDelete(false);
        }
        for (StoredTransferJob *j : std::as_const(jobs))
            runToResult(j);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(jobs.at(i)->error(), 0);
            QCOMPARE(jobs.at(i)->data().size(), 100000 * (i + 1));
        }
        qDeleteAll(jobs);
        qInfo("figure: 5 parallel jobs: %d worker(s) started, %d authentication(s) in the sshd log",
            Qvfs::workerStartCount() - startsBefore, m_sshd.countInLog("Accepted publickey") - before);
        QVERIFY(Qvfs::workerStartCount() - startsBefore > 1); // really in parallel
        QCOMPARE(m_sshd.countInLog("Accepted publickey") - before, 1);
        removeTreeRaw(data("par"));
    }

    // ------------------------------------------------------------ volume and names

    void list10000()
    {
        const QByteArray dir = data("many");
        QVERIFY(mkdirRaw(dir));
        for (int i = 0; i < 10000; ++i)
            QVERIFY(writeRaw(dir + "/entry-" + QByteArray::number(i), i % 10 ? QByteArray() : QByteArray("x")));
        QElapsedTimer t;
        t.start();
        const Listing l = collect(Qvfs::listDir(url(dir)));
        const qint64 ms = t.elapsed();
        QCOMPARE(l.error, 0);
        QCOMPARE(l.count, 10000);
        QCOMPARE(l.entries.size(), 10000);
        int sized = 0;
        for (const Entry &e : l.entries) {
            sized += e.size() == 1 ? 1 : 0;
            QVERIFY(e.bytes(User) == "root");
        }
        QCOMPARE(sized, 1000);
        qInfo("figure: listing of 10,000 entries with default details: %lld ms", ms);
        removeTreeRaw(dir);
    }

    void nonUtf8Name()
    {
        const QByteArray name("caf\xe9-\xff\xfe \x01.bin");
        QVERIFY(mkdirRaw(data("raw")));
        QVERIFY(writeRaw(data("raw/" + name), "raw bytes"));
        const Listing l = collect(Qvfs::listDir(url(data("raw"))));
        QCOMPARE(l.error, 0);
        QCOMPARE(l.entries.keys(), QList<QByteArray> { name });
        const QUrl u = Url::child(url(data("raw")), l.entries.firstKey());
        auto s = run(Qvfs::stat(u));
        QCOMPARE(s->error(), 0);
        QCOMPARE(s->statResult().name(), QByteArrayView(name));
        QCOMPARE(s->statResult().size(), qint64(9));
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        auto c = run(Qvfs::copy(u, fileUrl(local.path())));
        QVERIFY2(c->error() == 0, qPrintable(c->errorString()));
        QCOMPARE(namesIn(local.path()), QList<QByteArray> { name });
        QCOMPARE(readRaw(join(local.path(), name)), QByteArray("raw bytes"));
        QCOMPARE(run(Qvfs::del(u))->error(), 0);
        QCOMPARE(namesIn(data("raw")), QList<QByteArray>());
        removeTreeRaw(data("raw"));
    }

    // ------------------------------------------------------------ transfers

    void bigTransfers()
    {
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const QByteArray src = join(local.path(), "src");
        QVERIFY(makeRandomFile(src, BigSize, 42));
        QVERIFY(mkdirRaw(data("big")));
        // Which strategy ran shows in what this process (the application) read: a
        // stream get → put passes every byte through it, a copy by the worker none.
        const auto strategy = [](qint64 appBytes) {
            return appBytes >= BigSize ? "get → put through the application" : "by the sftp worker itself";
        };

        // file → sftp
        QVERIFY(settleTestWorkers());
        qint64 appRead = bytesReadByThisProcess();
        QElapsedTimer t;
        t.start();
        auto up = run(Qvfs::copyAs(fileUrl(src), url(data("big/up"))));
        const qint64 upMs = t.elapsed();
        const qint64 upThroughApp = bytesReadByThisProcess() - appRead;
        QVERIFY2(up->error() == 0, qPrintable(up->errorString()));
        QVERIFY(sameFiles(src, data("big/up")));
        QCOMPARE(up->processedAmount(Job::Bytes), BigSize);

        // sftp → file
        QVERIFY(settleTestWorkers());
        appRead = bytesReadByThisProcess();
        t.restart();
        auto down = run(Qvfs::copyAs(url(data("big/up")), fileUrl(join(local.path(), "down"))));
        const qint64 downMs = t.elapsed();
        const qint64 downThroughApp = bytesReadByThisProcess() - appRead;
        QVERIFY2(down->error() == 0, qPrintable(down->errorString()));
        QVERIFY(sameFiles(src, join(local.path(), "down")));
        QCOMPARE(down->processedAmount(Job::Bytes), BigSize);
        QCOMPARE(temporariesIn(local.path()), QList<QByteArray>());

        qInfo("figure: 100 MiB file → sftp %lld ms (%s: %lld bytes through the application); sftp → file %lld ms "
              "(%s: %lld bytes)",
            upMs, strategy(upThroughApp), upThroughApp, downMs, strategy(downThroughApp), downThroughApp);
        // What the worker's description declares decides it (copyFromFile / copyToFile).
        const Protocol sftp = Protocol::find(QStringLiteral("sftp"));
        QCOMPARE(upThroughApp >= BigSize, !sftp.hasCapability(Protocol::CopyFromFile));
        QCOMPARE(downThroughApp >= BigSize, !sftp.hasCapability(Protocol::CopyToFile));
        removeTreeRaw(data("big"));
    }

    void copyOutDestination()
    {
        // The worker writes the local file with a local copy's guarantees: a symlink at the
        // destination is replaced (its target untouched), an existing file only with
        // overwrite, and the mode and time asked for.
        QVERIFY(writeRaw(data("out-src"), "from the server", 0640));
        QVERIFY(setTimes(data("out-src"), 1500000000, 0));
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        const QByteArray target = join(local.path(), "target");
        const QByteArray link = join(local.path(), "link");
        QVERIFY(writeRaw(target, "the link's target"));
        QVERIFY(symlinkRaw("target", link));
        CopyJob *job = Qvfs::copyAs(url(data("out-src")), fileUrl(link));
        QCOMPARE(run(job)->error(), int(ErrAlreadyExists));
        job = Qvfs::copyAs(url(data("out-src")), fileUrl(link));
        job->setConflictPolicy(ConflictPolicy::Overwrite);
        auto j = run(job);
        QVERIFY2(j->error() == 0, qPrintable(j->errorString()));
        QVERIFY(S_ISREG(lstatRaw(link).st_mode));
        QCOMPARE(readRaw(link), QByteArray("from the server"));
        QCOMPARE(readRaw(target), QByteArray("the link's target"));
        QCOMPARE(lstatRaw(link).st_mode & 07777, 0640u);
        QCOMPARE(qint64(lstatRaw(link).st_mtime), qint64(1500000000));
        QCOMPARE(namesIn(local.path()), (QList<QByteArray> { "link", "target" }));
        ::unlink(data("out-src").constData());
    }

    void noSetuidFromServer()
    {
        // A server listing setuid, setgid and sticky modes: the local copies (root's, in
        // CI) are never setuid programs with the server's bytes. Its owner is not the
        // copy's, so the bits go and the umask applies, as coreutils' cp -r does.
        QVERIFY(mkdirRaw(data("suid")));
        QVERIFY(writeRaw(data("suid/setuid"), "#!/bin/sh\n", 0644));
        QVERIFY(writeRaw(data("suid/setgid"), "#!/bin/sh\n", 0644));
        QVERIFY(mkdirRaw(data("suid/shared")));
        QVERIFY(writeRaw(data("suid/shared/open"), "anyone's", 0644));
        QCOMPARE(::chmod(data("suid/setuid").constData(), 04755), 0);
        QCOMPARE(::chmod(data("suid/setgid").constData(), 02755), 0);
        QCOMPARE(::chmod(data("suid/shared/open").constData(), 0666), 0);
        QCOMPARE(::chmod(data("suid/shared").constData(), 03777), 0);
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        auto job = run(Qvfs::copy(url(data("suid")), fileUrl(local.path())));
        QVERIFY2(job->error() == 0, qPrintable(job->errorString()));
        const mode_t mask = ::umask(022);
        ::umask(mask);
        const auto modeOf = [&](const char *rel) { return lstatRaw(join(local.path(), rel)).st_mode & 07777; };
        QCOMPARE(modeOf("suid/setuid"), 0755u & ~mask);
        QCOMPARE(modeOf("suid/setgid"), 0755u & ~mask);
        QCOMPARE(modeOf("suid/shared"), 0777u & ~mask);
        QCOMPARE(modeOf("suid/shared/open"), 0666u & ~mask);
        QCOMPARE(readRaw(join(local.path(), "suid/setuid")), QByteArray("#!/bin/sh\n"));
        QVERIFY(::chmod(data("suid/shared").constData(), 0755) == 0);
        removeTreeRaw(data("suid"));
    }

    void slowReader()
    {
        // A get the application reads slowly (here: suspended for a while) holds the
        // worker back: memory stays bounded, nothing is lost.
        QVERIFY(makeRandomFile(data("slow"), BigSize, 5));
        useTrusted();
        TransferJob *job = Qvfs::get(url(data("slow")));
        qint64 received = 0;
        qint64 rssWhileSuspended = -1;
        bool paused = false;
        connect(job, &TransferJob::data, this, [&](TransferJob *j, const QByteArray &d) {
            received += d.size();
            if (!paused && received >= 10 * MiB) {
                paused = true;
                j->suspend();
                QTimer::singleShot(1500, j, [&, j] {
                    for (qint64 pid : workers("/qvfs-worker-sftp"))
                        rssWhileSuspended = qMax(rssWhileSuspended, ProcUtil::statusKb(pid, "VmHWM:"));
                    j->resume();
                });
            }
        });
        auto j = run(job);
        QCOMPARE(j->error(), 0);
        QCOMPARE(received, BigSize);
        QVERIFY(paused);
        qint64 peak = -1;
        for (qint64 pid : workers("/qvfs-worker-sftp"))
            peak = qMax(peak, ProcUtil::statusKb(pid, "VmHWM:"));
        qInfo(
            "figure: 100 MiB get, suspended 1.5 s after 10 MiB: sftp worker peak RSS %lld KiB (%lld KiB at the pause)",
            peak, rssWhileSuspended);
        QVERIFY(peak > 0);
        if (ProcUtil::memoryFiguresMeaningful())
            QVERIFY2(peak < 48 * 1024, QByteArray::number(peak).constData());
        ::unlink(data("slow").constData());
    }

    void killMidTransfer_data()
    {
        QTest::addColumn<QByteArray>("operation");
        QTest::newRow("put") << QByteArray("put");
        QTest::newRow("get") << QByteArray("get");
        QTest::newRow("copy in") << QByteArray("copy in");
        QTest::newRow("copy out") << QByteArray("copy out");
    }

    void killMidTransfer()
    {
        QFETCH(QByteArray, operation);
        removeTreeRaw(data("kill"));
        QVERIFY(mkdirRaw(data("kill")));
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        QVERIFY(mkdirRaw(join(local.path(), "dst")));
        const bool out = operation == "get" || operation == "copy out";
        if (out)
            QVERIFY(makeRandomFile(data("kill/data"), 300 * MiB, 7));
        if (operation == "copy in")
            QVERIFY(makeRandomFile(join(local.path(), "data"), 300 * MiB, 7));
        Job *job = nullptr;
        if (operation == "put") {
            TransferJob *put = Qvfs::put(url(data("kill/data")));
            connect(put, &TransferJob::dataReq, this,
                [](TransferJob *, QByteArray &d) { d = QByteArray(256 * 1024, 'k'); });
            job = put;
        } else if (operation == "get") {
            job = Qvfs::get(url(data("kill/data")));
        } else if (operation == "copy in") {
            job = Qvfs::copy(fileUrl(join(local.path(), "data")), url(data("kill")));
        } else {
            job = Qvfs::copy(url(data("kill/data")), fileUrl(join(local.path(), "dst")));
        }
        job->setAutoDelete(false);
        std::unique_ptr<Job> hold(job);
        QSignalSpy result(job, &Job::result);
        QElapsedTimer sinceKill;
        connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
            if (unit == Job::Bytes && amount >= 20 * MiB && !sinceKill.isValid()) {
                sinceKill.start();
                job->kill(Job::EmitResult);
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 60000);
        QCOMPARE(job->error(), int(ErrCancelled));
        // The worker stops promptly and is reusable or ended; nothing partial is left.
        QElapsedTimer settle;
        settle.start();
        QVERIFY2(settleTestWorkers(3000), "the worker did not stop after the kill");
        qInfo("figure: %s killed after 20 MiB: workers settled %lld ms after the kill", operation.constData(),
            sinceKill.elapsed());
        if (out) {
            QCOMPARE(namesIn(join(local.path(), "dst")), QList<QByteArray>());
            QCOMPARE(qint64(lstatRaw(data("kill/data")).st_size), 300 * MiB);
        } else {
            QCOMPARE(namesIn(data("kill")), QList<QByteArray>());
        }
        removeTreeRaw(data("kill"));
    }

    void stalledServer()
    {
        // A server that stops answering without closing the connection: the job fails
        // with ErrServerTimedOut (the worker is fine), and once the server is back the
        // next job works on a new connection.
        SshdFixture sshd;
        QString why;
        QVERIFY2(sshd.start(&why), qPrintable(why));
        qputenv("QVFS_SFTP_TIMEOUT_MS", "1500");
        useConfig(sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted), sshd.agentSocket(), &sshd);
        const QUrl u = url("/", sshd.port());
        QCOMPARE(run(Qvfs::stat(u))->error(), 0);
        sshd.freezeServer(true);
        QElapsedTimer t;
        t.start();
        auto stalled = run(Qvfs::stat(u), 60000);
        const qint64 ms = t.elapsed();
        sshd.freezeServer(false);
        QCOMPARE(stalled->error(), int(ErrServerTimedOut));
        QVERIFY2(stalled->errorString().contains(QStringLiteral("127.0.0.1")), qPrintable(stalled->errorString()));
        qInfo("figure: a frozen server: the stat failed after %lld ms (1500 ms set): %s", ms,
            qPrintable(stalled->errorString()));
        auto again = run(Qvfs::stat(u), 60000);
        QVERIFY2(again->error() == 0, qPrintable(again->errorString()));
        qunsetenv("QVFS_SFTP_TIMEOUT_MS");
        QVERIFY(settleTestWorkers());
        useTrusted();
    }

    void serverDies_data()
    {
        QTest::addColumn<QByteArray>("operation");
        QTest::newRow("download") << QByteArray("get");
        QTest::newRow("upload") << QByteArray("put");
        QTest::newRow("copy out") << QByteArray("copy out");
        QTest::newRow("copy in") << QByteArray("copy in");
    }

    void serverDies()
    {
        QFETCH(QByteArray, operation);
        const bool upload = operation == "put" || operation == "copy in";
        SshdFixture sshd; // its own server, to kill
        QString why;
        QVERIFY2(sshd.start(&why), qPrintable(why));
        useConfig(sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted), sshd.agentSocket(), &sshd);
        FixtureDir local("/dev/shm");
        QVERIFY(local.isValid());
        QVERIFY(mkdirRaw(join(local.path(), "dst")));
        if (!upload)
            QVERIFY(makeRandomFile(sshd.dataDir() + "/src", BigSize, 9));
        if (operation == "copy in")
            QVERIFY(makeRandomFile(join(local.path(), "src"), BigSize, 9));
        const QUrl u = [&] {
            QUrl r = url("/", sshd.port());
            return Url::child(r, QByteArray(sshd.dataDir() + (upload ? "/dst" : "/src")).mid(1));
        }();
        Job *job = nullptr;
        if (operation == "put") {
            TransferJob *put = Qvfs::put(u);
            connect(put, &TransferJob::dataReq, this,
                [](TransferJob *, QByteArray &d) { d = QByteArray(256 * 1024, 'u'); });
            job = put;
        } else if (operation == "get") {
            job = Qvfs::get(u);
        } else if (operation == "copy out") {
            job = Qvfs::copy(u, fileUrl(join(local.path(), "dst")));
        } else {
            job = Qvfs::copyAs(fileUrl(join(local.path(), "src")), u);
        }
        job->setAutoDelete(false);
        std::unique_ptr<Job> hold(job);
        QSignalSpy result(job, &Job::result);
        QElapsedTimer sinceKill;
        connect(job, &Job::processedAmountChanged, this, [&](Job *, Job::Unit unit, qint64 amount) {
            if (unit == Job::Bytes && amount >= 10 * MiB && sshd.isRunning()) {
                sshd.killServer();
                sinceKill.start();
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 60000);
        QVERIFY(!sshd.isRunning());
        QCOMPARE(job->error(), int(ErrConnectionFailed));
        QVERIFY2(job->errorString().contains(QStringLiteral("127.0.0.1")), qPrintable(job->errorString()));
        qInfo("figure: %s, server killed: the job failed %lld ms later: %s", operation.constData(), sinceKill.elapsed(),
            qPrintable(job->errorString()));
        QCOMPARE(namesIn(join(local.path(), "dst")), QList<QByteArray>()); // nothing half-written here
        // The next job on that host fails cleanly too, without hanging.
        auto again = run(Qvfs::stat(u), 60000);
        QCOMPARE(again->error(), int(ErrConnectionFailed));
        QVERIFY(settleTestWorkers());
        useTrusted();
    }
};

QTEST_GUILESS_MAIN(SftpWorkerTest)
#include "sftpworkertest.moc"
