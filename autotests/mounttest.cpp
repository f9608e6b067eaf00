// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs mount end to end: file://, sftp:// (a real sshd, testutil/sshdfixture.h) and
// webdav:// (a real nginx, testutil/httpserverfixture.h) mounted by the built `qvfs` on
// a real /dev/fuse, and ordinary programs run through the mount — ls, find, cat, cmp,
// dd, cp -r both ways, mv, rm -r, python3's os.pread, tail -f — each compared with the
// same files on the server's side (or with `qvfs` on the URL). Then the faults: a change
// made on the server, a writer SIGKILLed midway, an upload that fails (a full disk, a
// body the server refuses), a worker killed mid-read, many readers at once, a busy
// unmount, a killed mount process, a password nobody can answer.
//
// Mounting needs root and /dev/fuse (CI has both); without them the test says so and
// skips. The workers read the fixture's ssh_config, never the real ~/.ssh.
#include "mounttable_p.h"
#include "testutil/clirun.h"
#include "testutil/httpserverfixture.h"
#include "testutil/serverprocess.h"
#include "testutil/sshdfixture.h"
#include "testutil/tmpfsmount.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

using CliRun::Result;

// The server's files by their bytes (QFile would turn a name that is not UTF-8 into "?").
using QvfsTest::ServerProcess::exists;
using QvfsTest::ServerProcess::readFile;
using QvfsTest::ServerProcess::writeFile;

QByteArray randomBytes(qsizetype size)
{
    QByteArray data(size, Qt::Uninitialized);
    QRandomGenerator gen { quint32(size) };
    for (qsizetype i = 0; i + 4 <= size; i += 4) {
        const quint32 v = gen.generate();
        std::memcpy(data.data() + i, &v, 4);
    }
    return data;
}

/*! Whether a qvfs mount is at \a dir. */
bool isMounted(const QByteArray &dir)
{
    const QList<Qvfs::Internal::MountEntry> mounts = Qvfs::Internal::mountTable();
    return std::any_of(mounts.cbegin(), mounts.cend(),
        [&dir](const Qvfs::Internal::MountEntry &m) { return m.type == "fuse.qvfs" && m.point == dir; });
}

} // namespace

class MountTest : public QObject
{
    Q_OBJECT

private:
    SshdFixture m_sshd;
    std::unique_ptr<HttpServerFixture> m_http;
    std::unique_ptr<QTemporaryDir> m_tmp;
    QProcessEnvironment m_env;
    int m_mounts = 0;

    /*! A backend: the URL mounted and the folder on the server's side that it is. */
    struct Backend
    {
        QByteArray url;
        QByteArray server;
    };

    Backend backend(const QByteArray &name) const
    {
        if (name == "sftp")
            return { "sftp://root@127.0.0.1:" + QByteArray::number(m_sshd.port()) + m_sshd.dataDir() + "/m",
                m_sshd.dataDir() + "/m" };
        if (name == "webdav")
            return { "webdav://127.0.0.1:" + QByteArray::number(m_http->port()) + "/m", m_http->path("m") };
        return { "file://" + tmp("files"), tmp("files") };
    }

    QByteArray tmp(const QByteArray &rel) const { return QFile::encodeName(m_tmp->path()) + '/' + rel; }

    Result run(const QString &program, const QStringList &args, const QByteArray &input = {})
    {
        return CliRun::run(program, args, m_tmp->path(), input, m_env);
    }
    Result sh(const QByteArray &script)
    {
        return run(QStringLiteral("/bin/sh"), { QStringLiteral("-c"), QString::fromUtf8(script) });
    }
    Result qvfs(const QStringList &args) { return run(CliRun::qvfsBinary(), args); }
    Result python(const QByteArray &script, const QStringList &args = {})
    {
        return run(QStringLiteral("python3"), QStringList { QStringLiteral("-c"), QString::fromUtf8(script) } + args);
    }

    /*!
     * A foreground mount of \a url (a child process) at a fresh folder; umount() ends it,
     * and a test that fails before leaves nothing mounted either.
     */
    struct Mount
    {
        std::unique_ptr<QProcess> process;
        QByteArray dir;
        Mount() = default;
        Mount(Mount &&) = default;
        ~Mount()
        {
            if (process && process->state() != QProcess::NotRunning) {
                process->kill();
                process->waitForFinished();
            }
            if (!dir.isEmpty() && isMounted(dir))
                ::umount2(dir.constData(), MNT_DETACH);
        }
    };

    Mount mount(const QByteArray &url, const QStringList &options = { QStringLiteral("--cache-timeout=0.5") })
    {
        Mount m;
        m.dir = tmp("mnt" + QByteArray::number(++m_mounts));
        ::mkdir(m.dir.constData(), 0755);
        m.process = std::make_unique<QProcess>();
        m.process->setProcessEnvironment(m_env);
        m.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QStringList args = QStringList { QStringLiteral("mount"), QStringLiteral("-f") } + options;
        if (!url.isEmpty())
            args.append(QString::fromUtf8(url));
        m.process->start(CliRun::qvfsBinary(), args + QStringList { QFile::decodeName(m.dir) });
        QElapsedTimer t;
        t.start();
        while (!isMounted(m.dir) && m.process->state() != QProcess::NotRunning && t.elapsed() < 10000)
            QTest::qWait(20);
        return m;
    }

    bool umount(Mount &m)
    {
        const Result r = qvfs({ QStringLiteral("umount"), QFile::decodeName(m.dir) });
        if (r.code != 0)
            qWarning() << "umount:" << r.err;
        const bool ended = m.process->waitForFinished(10000);
        if (!ended) {
            m.process->kill();
            m.process->waitForFinished();
            sh("umount -l '" + m.dir + "'");
        }
        // The mount process ends cleanly (in the sanitizer build: no leak, no error either).
        const bool clean = ended && m.process->exitStatus() == QProcess::NormalExit && m.process->exitCode() == 0;
        if (!clean)
            qWarning() << "the mount process ended with" << m.process->exitStatus() << m.process->exitCode();
        return r.code == 0 && clean && !isMounted(m.dir);
    }

    /*! The server side of every backend holds the same tree. */
    void fillServer(const QByteArray &name)
    {
        const QByteArray s = backend(name).server;
        sh("rm -rf '" + s + "'");
        QVERIFY(QDir().mkpath(QFile::decodeName(s + "/sub/deep")));
        QVERIFY(writeFile(s + "/a.txt", "alpha\n"));
        QVERIFY(writeFile(s + "/with space", "space\n"));
        QVERIFY(writeFile(s + "/sub/deep/f", "deep\n"));
        QVERIFY(writeFile(s + "/big", randomBytes(3 * 1024 * 1024 + 123)));
    }

    void addBackendRows()
    {
        QTest::addColumn<QByteArray>("name");
        for (const char *name : { "file", "sftp", "webdav" })
            QTest::newRow(name) << QByteArray(name);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("qvfs mount is tested as root (CI runs the tests as root): /dev/fuse is root's here");
        const int fuse = ::open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (fuse < 0)
            QSKIP("/dev/fuse cannot be opened on this machine: no FUSE mount can be tested");
        ::close(fuse);
        QString why;
        QVERIFY2(SshdFixture::available(&why), qPrintable(why));
        QVERIFY2(m_sshd.start(&why), qPrintable(why));
        m_http = std::make_unique<HttpServerFixture>(HttpServerFixture::Server::Nginx);
        QVERIFY2(m_http->start(), qPrintable(m_http->errorString()));
        m_tmp = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/qvfs-mounttest-XXXXXX"));
        QVERIFY(m_tmp->isValid());
        m_env = CliRun::environment();
        m_env.insert(QStringLiteral("HOME"), QString::fromLocal8Bit(m_sshd.dir()));
        m_env.insert(QStringLiteral("QVFS_SSH_CONFIG"),
            QString::fromLocal8Bit(m_sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted)));
        m_env.insert(QStringLiteral("SSH_AUTH_SOCK"), QString::fromLocal8Bit(m_sshd.agentSocket()));
        m_env.insert(QStringLiteral("XDG_RUNTIME_DIR"), QString::fromLocal8Bit(m_sshd.newRuntimeDir()));
        m_env.insert(QStringLiteral("TMPDIR"), m_tmp->path());
        m_env.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp->path() + QStringLiteral("/xdg")); // its own trash
    }

    void cleanupTestCase()
    {
        if (m_tmp)
            sh("rm -rf '" + QFile::encodeName(m_tmp->path()) + "'/*"); // names that are not UTF-8 too
        m_http.reset();
        m_sshd.stop();
    }

    void readPrograms_data() { addBackendRows(); }
    void readPrograms()
    {
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        Mount m = mount(b.url);
        QVERIFY(isMounted(m.dir));
        // ls -l: the names qvfs ls gives for the URL, with sizes.
        Result r = sh("ls -1A '" + m.dir + "'");
        QCOMPARE(r.code, 0);
        const Result cli = qvfs({ QStringLiteral("ls"), QStringLiteral("-1a"), QString::fromUtf8(b.url) });
        QCOMPARE(cli.code, 0);
        QCOMPARE(r.out, cli.out);
        r = sh("ls -l '" + m.dir + "' | grep ' big$'");
        QVERIFY2(r.out.contains(" 3145851 "), (r.out).constData());
        // find: the same tree as on the server.
        r = sh("cd '" + m.dir + "' && find . | sort");
        const Result server = sh("cd '" + b.server + "' && find . | sort");
        QCOMPARE(r.out, server.out);
        // cat, cmp, dd with offsets, stat.
        QCOMPARE(sh("cat '" + m.dir + "/a.txt' '" + m.dir + "/sub/deep/f'").out, QByteArray("alpha\ndeep\n"));
        QCOMPARE(sh("cmp '" + m.dir + "/big' '" + b.server + "/big'").code, 0);
        r = sh("dd if='" + m.dir + "/big' bs=4096 skip=301 count=7 status=none | od -An -tx1 | md5sum; " + "dd if='"
            + b.server + "/big' bs=4096 skip=301 count=7 status=none | od -An -tx1 | md5sum");
        const QList<QByteArray> sums = r.out.split('\n');
        QVERIFY(sums.size() >= 2);
        QCOMPARE(sums.at(0), sums.at(1));
        QCOMPARE(sh("stat -c %F '" + m.dir + "/sub'").out, QByteArray("directory\n"));
        QCOMPARE(sh("stat -c %s '" + m.dir + "/with space'").out.trimmed(), QByteArray("6"));
        // What does not exist says so.
        r = sh("cat '" + m.dir + "/missing'");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("No such file or directory"), (r.err).constData());
        QVERIFY(umount(m));
    }

    void randomReads_data() { addBackendRows(); }
    void randomReads()
    {
        // A small file (through the page cache) and one big enough to be read by direct
        // I/O, at random offsets, against the server's copy.
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        QVERIFY(writeFile(b.server + "/large", randomBytes(70 * 1024 * 1024 + 5)));
        Mount m = mount(b.url);
        const Result r = python("import os, random, sys\n"
                                "random.seed(3)\n"
                                "for name in ('big', 'large'):\n"
                                "    ref = open(sys.argv[2] + '/' + name, 'rb').read()\n"
                                "    fd = os.open(sys.argv[1] + '/' + name, os.O_RDONLY)\n"
                                "    for i in range(150):\n"
                                "        o = random.randrange(0, len(ref) + 100)\n"
                                "        n = random.choice((1, 4096, 65536, 300000))\n"
                                "        d = os.pread(fd, n, o)\n"
                                "        assert d == ref[o:o + n], (name, o, n, len(d))\n"
                                "    os.close(fd)\n"
                                "print('ok')\n",
            { QFile::decodeName(m.dir), QFile::decodeName(b.server) });
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(r.out, QByteArray("ok\n"));
        // Read in order, the big one through the read-ahead, whole.
        QCOMPARE(sh("cmp '" + m.dir + "/large' '" + b.server + "/large'").code, 0);
        QVERIFY(umount(m));
    }

    void writePrograms_data() { addBackendRows(); }
    void writePrograms()
    {
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        QVERIFY(QDir().mkpath(QFile::decodeName(tmp("tree/in/deeper"))));
        QVERIFY(writeFile(tmp("tree/one"), "one\n"));
        QVERIFY(writeFile(tmp("tree/in/deeper/two"), randomBytes(300000)));
        QVERIFY(writeFile(tmp("tree/in/three"), "three\n"));
        Mount m = mount(b.url);
        const QByteArray d = m.dir;
        // cp -r in and out.
        QCOMPARE(sh("cp -r '" + tmp("tree") + "' '" + d + "/tree'").err, QByteArray());
        QCOMPARE(sh("diff -r '" + tmp("tree") + "' '" + b.server + "/tree'").code, 0);
        sh("rm -rf '" + tmp("back") + "'");
        QCOMPARE(sh("cp -r '" + d + "/tree' '" + tmp("back") + "'").code, 0);
        QCOMPARE(sh("diff -r '" + tmp("tree") + "' '" + tmp("back") + "'").code, 0);
        // mv a folder and a file, mkdir, rm -r.
        QCOMPARE(sh("mv '" + d + "/tree' '" + d + "/moved' && mv '" + d + "/a.txt' '" + d + "/sub/a2.txt'").err,
            QByteArray());
        QVERIFY(!exists(b.server + "/tree"));
        QCOMPARE(readFile(b.server + "/moved/one"), QByteArray("one\n"));
        QCOMPARE(readFile(b.server + "/sub/a2.txt"), QByteArray("alpha\n"));
        QCOMPARE(sh("mkdir '" + d + "/made' && rmdir '" + d + "/made'").code, 0);
        QCOMPARE(sh("rm -r '" + d + "/moved'").code, 0);
        QVERIFY(!exists(b.server + "/moved"));
        QCOMPARE(sh("ls '" + d + "/moved'").code, 2);
        // A shorter content over a longer file is exactly the shorter one; >> appends.
        QCOMPARE(sh("printf short > '" + d + "/big'").code, 0);
        QCOMPARE(readFile(b.server + "/big"), QByteArray("short"));
        QCOMPARE(sh("echo more >> '" + d + "/big'").code, 0);
        QCOMPARE(readFile(b.server + "/big"), QByteArray("shortmore\n"));
        QCOMPARE(sh("cat '" + d + "/big'").out, QByteArray("shortmore\n"));
        // A GLib-style save: a temporary file, then renamed over the file.
        const Result save = python("import os, sys\n"
                                   "p = sys.argv[1] + '/with space'\n"
                                   "with open(p + '.tmp', 'w') as f:\n"
                                   "    f.write('saved\\n')\n"
                                   "    f.flush()\n"
                                   "    os.fsync(f.fileno())\n"
                                   "os.rename(p + '.tmp', p)\n"
                                   "print(open(p).read(), end='')\n",
            { QFile::decodeName(d) });
        QCOMPARE(save.out, QByteArray("saved\n"));
        QCOMPARE(readFile(b.server + "/with space"), QByteArray("saved\n"));
        QVERIFY(!exists(b.server + "/with space.tmp"));
        // While a file is being written, the server keeps the old content.
        const Result during = python("import sys\n"
                                     "f = open(sys.argv[1] + '/sub/deep/f', 'r+b')\n"
                                     "f.seek(0, 2)\n"
                                     "f.write(b'tail\\n')\n"
                                     "f.flush()\n"
                                     "print(open(sys.argv[2] + '/sub/deep/f', 'rb').read().decode(), end='')\n"
                                     "f.close()\n",
            { QFile::decodeName(d), QFile::decodeName(b.server) });
        QCOMPARE(during.out, QByteArray("deep\n"));
        QCOMPARE(readFile(b.server + "/sub/deep/f"), QByteArray("deep\ntail\n"));
        // Links, permissions and times where the protocol has them; a clear error where not.
        const Result ln = sh("ln -s a2.txt '" + d + "/sub/link' && cat '" + d + "/sub/link'");
        const Result ch = sh("chmod 640 '" + d + "/sub/a2.txt' && stat -c %a '" + d + "/sub/a2.txt'");
        const Result touch = sh("touch -d 2001-02-03 '" + d + "/sub/a2.txt' && date -r '" + d + "/sub/a2.txt' +%F");
        if (name == "webdav") {
            QVERIFY2(ln.err.contains("Operation not supported"), (ln.err).constData());
            QVERIFY2(ch.err.contains("Operation not supported"), (ch.err).constData());
            QVERIFY2(touch.err.contains("Operation not supported"), (touch.err).constData());
        } else {
            QCOMPARE(ln.out, QByteArray("alpha\n"));
            QCOMPARE(ch.out, QByteArray("640\n"));
            QCOMPARE(touch.out, QByteArray("2001-02-03\n"));
        }
        // O_EXCL (lock files): refused for a name the server has, taken for a free one.
        const Result excl = python("import os, sys\n"
                                   "d = sys.argv[1]\n"
                                   "try:\n"
                                   "    os.open(d + '/sub/a2.txt', os.O_WRONLY | os.O_CREAT | os.O_EXCL)\n"
                                   "    print('taken')\n"
                                   "except FileExistsError:\n"
                                   "    print('exists')\n"
                                   "os.close(os.open(d + '/lock', os.O_WRONLY | os.O_CREAT | os.O_EXCL))\n"
                                   "print('locked')\n",
            { QFile::decodeName(d) });
        QCOMPARE(excl.out, QByteArray("exists\nlocked\n"));
        QVERIFY(exists(b.server + "/lock"));
        // A new file made with touch appears, empty.
        QCOMPARE(sh("touch '" + d + "/new-empty'").err, QByteArray());
        QVERIFY(exists(b.server + "/new-empty"));
        QCOMPARE(readFile(b.server + "/new-empty"), QByteArray());
        QVERIFY(umount(m));
    }

    void serverChanges_data() { addBackendRows(); }
    void serverChanges()
    {
        // Changes made on the server are seen within the cache timeout (0.5 s here).
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        Mount m = mount(b.url);
        QCOMPARE(sh("cat '" + m.dir + "/a.txt'").out, QByteArray("alpha\n"));
        QCOMPARE(sh("ls '" + m.dir + "'").out.contains("appeared"), false);
        QVERIFY(writeFile(b.server + "/a.txt", "changed on the server\n"));
        QVERIFY(writeFile(b.server + "/appeared", "x"));
        QTRY_COMPARE_WITH_TIMEOUT(sh("cat '" + m.dir + "/a.txt'").out, QByteArray("changed on the server\n"), 3000);
        QTRY_VERIFY_WITH_TIMEOUT(sh("ls '" + m.dir + "'").out.contains("appeared"), 3000);
        // tail -f follows a file that grows on the server.
        QVERIFY(writeFile(b.server + "/log", "first\n"));
        QProcess tail;
        tail.setProcessChannelMode(QProcess::MergedChannels);
        tail.start(QStringLiteral("tail"),
            { QStringLiteral("-f"), QStringLiteral("-s"), QStringLiteral("0.2"), QFile::decodeName(m.dir + "/log") });
        QVERIFY(tail.waitForStarted());
        QByteArray seen;
        QTRY_VERIFY2_WITH_TIMEOUT((seen += tail.readAll()).contains("first"), seen.constData(), 3000);
        QVERIFY(writeFile(b.server + "/log", "first\nsecond\n"));
        QTRY_VERIFY2_WITH_TIMEOUT((seen += tail.readAll()).contains("second"), seen.constData(), 5000);
        tail.kill();
        tail.waitForFinished();
        QVERIFY(umount(m));
    }

    void watchedChanges()
    {
        // Where the worker watches (file://), a change on the server reaches the kernel's
        // caches at once, long before the cache timeout (30 s here).
        fillServer("file");
        const Backend b = backend("file");
        Mount m = mount(b.url, { QStringLiteral("--cache-timeout=30") });
        // What the kernel keeps without asking again: attributes (stat) and names.
        QCOMPARE(sh("stat -c %s '" + m.dir + "/a.txt' '" + m.dir + "/with space'").out, QByteArray("6\n6\n"));
        QCOMPARE(sh("ls '" + m.dir + "/sub'").out, QByteArray("deep\n"));
        QTest::qWait(300); // the watch is set up while the listing runs
        QVERIFY(writeFile(b.server + "/a.txt", "changed, and longer\n"));
        QVERIFY(writeFile(b.server + "/sub/new", "n"));
        QCOMPARE(
            ::rename(QByteArray(b.server + "/with space").constData(), QByteArray(b.server + "/renamed").constData()),
            0);
        QTRY_COMPARE_WITH_TIMEOUT(sh("stat -c %s '" + m.dir + "/a.txt'").out, QByteArray("20\n"), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(sh("stat -c %s '" + m.dir + "/with space'").code, 1, 5000);
        QCOMPARE(
            sh("cat '" + m.dir + "/a.txt' '" + m.dir + "/renamed'").out, QByteArray("changed, and longer\nspace\n"));
        QCOMPARE(sh("ls '" + m.dir + "/sub'").out, QByteArray("deep\nnew\n"));
        QVERIFY(umount(m));
    }

    void killedWriter_data() { addBackendRows(); }
    void killedWriter()
    {
        // A writer SIGKILLed midway: nothing under the name while it writes; then what it
        // wrote, whole (the kernel closes its file, and the spool goes up in one put).
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        Mount m = mount(b.url);
        QProcess writer;
        writer.setProcessEnvironment(m_env);
        writer.start(QStringLiteral("python3"),
            { QStringLiteral("-c"),
                QString::fromUtf8("import sys, time\n"
                                  "f = open(sys.argv[1], 'wb')\n"
                                  "for i in range(8):\n"
                                  "    f.write(bytes([65 + i]) * 131072)\n"
                                  "f.flush()\n"
                                  "print('written', flush=True)\n"
                                  "time.sleep(60)\n"),
                QFile::decodeName(m.dir + "/new.bin") });
        QByteArray said;
        while (!said.endsWith('\n') && writer.waitForReadyRead(10000))
            said += writer.readAllStandardOutput();
        QCOMPARE(said, QByteArray("written\n"));
        QVERIFY(!exists(b.server + "/new.bin"));
        ::kill(pid_t(writer.processId()), SIGKILL);
        QVERIFY(writer.waitForFinished());
        QByteArray expected;
        for (int i = 0; i < 8; ++i)
            expected += QByteArray(131072, char(65 + i));
        QTRY_COMPARE_WITH_TIMEOUT(readFile(b.server + "/new.bin").size(), expected.size(), 5000);
        QCOMPARE(readFile(b.server + "/new.bin"), expected);
        // No temporary name is left beside it.
        QCOMPARE(sh("ls -A '" + b.server + "' | grep -v -x -e a.txt -e big -e sub -e 'with space' -e new.bin").out,
            QByteArray());
        QVERIFY(umount(m));
    }

    void failedUpload_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::newRow("file, full disk") << QByteArray("file");
        QTest::newRow("webdav, body refused") << QByteArray("webdav");
    }
    void failedUpload()
    {
        // An upload that fails is close()'s error, and the old file stays as it was.
        QFETCH(QByteArray, name);
        QByteArray url, server;
        std::unique_ptr<QvfsTest::TmpfsMount> small;
        if (name == "file") {
            server = tmp("small");
            ::mkdir(server.constData(), 0755);
            small = std::make_unique<QvfsTest::TmpfsMount>(server, "size=256k,mode=0755");
            QVERIFY2(small->mounted(), small->errorString().constData());
            url = "file://" + server;
        } else {
            QVERIFY(m_http->makeDir("small"));
            server = m_http->path("small");
            url = "webdav://127.0.0.1:" + QByteArray::number(m_http->port()) + "/small";
        }
        QVERIFY(writeFile(server + "/kept", "old\n"));
        Mount m = mount(url);
        const Result r = python("import sys\n"
                                "f = open(sys.argv[1] + '/kept', 'wb')\n"
                                "f.write(b'x' * 1048576)\n"
                                "try:\n"
                                "    f.close()\n"
                                "    print('closed')\n"
                                "except OSError as e:\n"
                                "    print('close failed:', e.strerror)\n",
            { QFile::decodeName(m.dir) });
        QVERIFY2(r.out.startsWith("close failed: "), QByteArray(r.out + r.err).constData());
        QCOMPARE(readFile(server + "/kept"), QByteArray("old\n"));
        QCOMPARE(sh("cat '" + m.dir + "/kept'").out, QByteArray("old\n"));
        QVERIFY(umount(m));
    }

    void workerKilledMidRead()
    {
        // The worker dies under a reader: its reads fail with EIO, and the mount lives on.
        fillServer("sftp");
        const Backend b = backend("sftp");
        QVERIFY(writeFile(b.server + "/large", randomBytes(80 * 1024 * 1024)));
        Mount m = mount(b.url);
        QProcess reader;
        reader.start(QStringLiteral("python3"),
            { QStringLiteral("-c"),
                QString::fromUtf8("import os, sys\n"
                                  "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
                                  "os.read(fd, 1 << 20)\n"
                                  "print('reading', flush=True)\n"
                                  "sys.stdin.readline()\n"
                                  "try:\n"
                                  "    while os.read(fd, 1 << 20):\n"
                                  "        pass\n"
                                  "    print('read to the end')\n"
                                  "except OSError as e:\n"
                                  "    print(e.strerror)\n"),
                QFile::decodeName(m.dir + "/large") });
        QByteArray said;
        while (!said.endsWith('\n') && reader.waitForReadyRead(10000))
            said += reader.readAllStandardOutput();
        QCOMPARE(said, QByteArray("reading\n"));
        const Result killed
            = sh("pkill -KILL -P " + QByteArray::number(m.process->processId()) + " -f qvfs-worker-sftp");
        QCOMPARE(killed.code, 0);
        reader.write("\n");
        QVERIFY(reader.waitForFinished(30000));
        QCOMPARE(reader.readAllStandardOutput(), QByteArray("Input/output error\n"));
        QCOMPARE(sh("cat '" + m.dir + "/a.txt'").out, QByteArray("alpha\n"));
        QCOMPARE(sh("cmp '" + m.dir + "/big' '" + b.server + "/big'").code, 0);
        QVERIFY(umount(m));
    }

    void manyReaders_data() { addBackendRows(); }
    void manyReaders()
    {
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        QByteArray script;
        for (int i = 0; i < 8; ++i) {
            const QByteArray f = "/r" + QByteArray::number(i);
            QVERIFY(writeFile(b.server + f, randomBytes(1024 * 1024 + i)));
            script += "cmp '" + b.server + f + "' '@" + f + "' & pids=\"$pids $!\"; ";
        }
        Mount m = mount(b.url);
        script.replace('@', m.dir);
        script += "for p in $pids; do wait $p || exit 1; done; echo all";
        const Result r = sh(script);
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(r.out, QByteArray("all\n"));
        QVERIFY(umount(m));
    }

    void moreFilesOpenThanWorkers_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::newRow("sftp") << QByteArray("sftp");
        QTest::newRow("webdav") << QByteArray("webdav");
    }
    void moreFilesOpenThanWorkers()
    {
        // Twelve files held open and read in turns (sort -m, paste) where a host has five
        // workers: none waits forever, and a stat on the host still gets through.
        QFETCH(QByteArray, name);
        fillServer(name);
        const Backend b = backend(name);
        for (int i = 0; i < 12; ++i)
            QVERIFY(writeFile(b.server + "/o" + QByteArray::number(i), randomBytes(300000 + i)));
        Mount m = mount(b.url);
        const Result r = python("import os, sys\n"
                                "d, s = sys.argv[1], sys.argv[2]\n"
                                "fds = [os.open(d + '/o%d' % i, os.O_RDONLY) for i in range(12)]\n"
                                "got = [b''] * 12\n"
                                "for rnd in range(4):\n"
                                "    for i, fd in enumerate(fds):\n"
                                "        got[i] += os.read(fd, 100000)\n"
                                "    os.stat(d + '/a.txt')\n"
                                "for i in range(12):\n"
                                "    assert got[i] == open(s + '/o%d' % i, 'rb').read(), i\n"
                                "print('ok')\n",
            { QFile::decodeName(m.dir), QFile::decodeName(b.server) });
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(r.out, QByteArray("ok\n"));
        QVERIFY(umount(m));
    }

    void detachedBusyAndKilled()
    {
        fillServer("file");
        const QByteArray url = backend("file").url;
        const QByteArray dir = tmp("detached");
        ::mkdir(dir.constData(), 0755);
        // Detached: it says where, and the mount is there when it returns.
        Result r = qvfs({ QStringLiteral("mount"), QString::fromUtf8(url), QFile::decodeName(dir) });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QByteArray("is mounted at " + dir)), r.out.constData());
        QVERIFY(isMounted(dir));
        const qsizetype at = r.out.indexOf("(process ");
        const pid_t pid = pid_t(r.out.mid(at + 9, r.out.indexOf(')', at) - at - 9).toInt());
        QVERIFY(pid > 0 && ::kill(pid, 0) == 0);
        QCOMPARE(qvfs({ QStringLiteral("mount"), QString::fromUtf8(url), QFile::decodeName(dir) }).code,
            1); // twice: refused
        // Busy: a program inside keeps it; then it goes, and the process with it.
        QProcess inside;
        inside.setWorkingDirectory(QFile::decodeName(dir));
        inside.start(QStringLiteral("sleep"), { QStringLiteral("30") });
        QVERIFY(inside.waitForStarted());
        r = qvfs({ QStringLiteral("umount"), QFile::decodeName(dir) });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("busy"), (r.err).constData());
        QVERIFY(isMounted(dir));
        inside.kill();
        inside.waitForFinished();
        QCOMPARE(qvfs({ QStringLiteral("umount"), QFile::decodeName(dir) }).code, 0);
        QVERIFY(!isMounted(dir));
        QTRY_VERIFY(::kill(pid, 0) != 0);
        // A killed mount process leaves a dead mount, which umount clears.
        r = qvfs({ QStringLiteral("mount"), QString::fromUtf8(url), QFile::decodeName(dir) });
        QCOMPARE(r.code, 0);
        const qsizetype at2 = r.out.indexOf("(process ");
        const pid_t pid2 = pid_t(r.out.mid(at2 + 9, r.out.indexOf(')', at2) - at2 - 9).toInt());
        QCOMPARE(::kill(pid2, SIGKILL), 0);
        QTRY_VERIFY(sh("ls '" + dir + "'").err.contains("Transport endpoint is not connected"));
        QCOMPARE(qvfs({ QStringLiteral("umount"), QFile::decodeName(dir) }).code, 0);
        QVERIFY(!isMounted(dir));
        QCOMPARE(qvfs({ QStringLiteral("umount"), QFile::decodeName(dir) }).code, 1); // nothing there now
    }

    void passwordInTheBackground()
    {
        // Nobody can answer a password question of a detached mount: it fails, at once.
        QVERIFY(m_http->makeDir("auth/x"));
        const QByteArray dir = tmp("auth");
        ::mkdir(dir.constData(), 0755);
        const QByteArray url = "webdav://127.0.0.1:" + QByteArray::number(m_http->port()) + "/auth";
        QCOMPARE(qvfs({ QStringLiteral("mount"), QString::fromUtf8(url), QFile::decodeName(dir) }).code, 0);
        QElapsedTimer t;
        t.start();
        const Result r = sh("ls '" + dir + "'");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("Permission denied"), (r.err).constData());
        QVERIFY(t.elapsed() < 20000);
        QCOMPARE(qvfs({ QStringLiteral("umount"), QFile::decodeName(dir) }).code, 0);
    }

    void namesAreBytes()
    {
        // A name that is not UTF-8 lists, reads and is created exactly.
        fillServer("file");
        const Backend b = backend("file");
        QVERIFY(writeFile(b.server + "/caf\xe9", "latin-1\n"));
        Mount m = mount(b.url);
        const Result r = python("import os, sys\n"
                                "d = os.fsencode(sys.argv[1])\n"
                                "assert b'caf\\xe9' in os.listdir(d), os.listdir(d)\n"
                                "print(open(d + b'/caf\\xe9').read(), end='')\n"
                                "open(d + b'/new\\xff', 'w').write('made\\n')\n",
            { QFile::decodeName(m.dir) });
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(r.out, QByteArray("latin-1\n"));
        QCOMPARE(readFile(b.server + "/new\xff"), QByteArray("made\n"));
        QVERIFY(umount(m));
    }

    void symlinksStayInside_data() { addBackendRows(); }
    void symlinksStayInside()
    {
        // The kernel follows links under the mount point itself: a server's link to
        // /etc/... (or up past the top with "..") must not reach this machine's files.
        QFETCH(QByteArray, name);
        if (name == "webdav")
            QSKIP("WebDAV has no symbolic links");
        fillServer(name);
        const Backend b = backend(name);
        QCOMPARE(::symlink("/etc/hostname", QByteArray(b.server + "/abs").constData()), 0);
        QCOMPARE(
            ::symlink(QByteArray(b.server + "/a.txt").constData(), QByteArray(b.server + "/abs-in").constData()), 0);
        QCOMPARE(::symlink("../../../../../../../etc/hostname", QByteArray(b.server + "/sub/climb").constData()), 0);
        QCOMPARE(::symlink("deep/f", QByteArray(b.server + "/sub/rel").constData()), 0);
        Mount m = mount(b.url);
        const QByteArray d = m.dir;
        QCOMPARE(sh("readlink '" + d + "/abs' '" + d + "/abs-in' '" + d + "/sub/climb' '" + d + "/sub/rel'").out,
            QByteArray("etc/hostname\na.txt\n../etc/hostname\ndeep/f\n"));
        QCOMPARE(sh("cat '" + d + "/abs'").code, 1); // there is no etc/hostname in the tree
        QCOMPARE(sh("cat '" + d + "/sub/climb'").code, 1);
        QCOMPARE(sh("cat '" + d + "/abs-in' '" + d + "/sub/rel'").out, QByteArray("alpha\ndeep\n"));
        QCOMPARE(sh("stat -c %s '" + d + "/abs'").out, QByteArray("12\n")); // the length of what readlink gives
        QVERIFY(sh("realpath -m '" + d + "/sub/climb'").out.startsWith(QByteArray(d + '/')));
        QVERIFY(umount(m));
    }

    void trashThroughTheMount()
    {
        // trash:/ has no random access: reads stream; delete empties the entry. (Its
        // worker, looking for trashes on every volume, must not look into this mount.)
        QVERIFY(QDir().mkpath(QFile::decodeName(tmp("xdg"))));
        QVERIFY(writeFile(tmp("doomed.txt"), "in the trash\n"));
        QVERIFY(writeFile(tmp("doomed.bin"), randomBytes(5 * 1024 * 1024)));
        sh("cp '" + tmp("doomed.bin") + "' '" + tmp("doomed.ref") + "'");
        QCOMPARE(qvfs({ QStringLiteral("trash"), QFile::decodeName(tmp("doomed.txt")),
                          QFile::decodeName(tmp("doomed.bin")) })
                     .code,
            0);
        Mount m = mount("trash:/");
        QVERIFY(isMounted(m.dir));
        QCOMPARE(sh("ls '" + m.dir + "'").out, QByteArray("0-doomed.bin\n0-doomed.txt\n"));
        QCOMPARE(sh("cat '" + m.dir + "/0-doomed.txt'").out, QByteArray("in the trash\n"));
        QCOMPARE(sh("cmp '" + m.dir + "/0-doomed.bin' '" + tmp("doomed.ref") + "'").code, 0);
        QCOMPARE(sh("dd if='" + m.dir + "/0-doomed.bin' bs=4096 skip=700 count=2 status=none | cmp - '"
                     + tmp("doomed.ref") + "' -i 0:2867200 -n 8192")
                     .code,
            0);
        QCOMPARE(sh("rm '" + m.dir + "/0-doomed.txt'").code, 0);
        QCOMPARE(qvfs({ QStringLiteral("ls"), QStringLiteral("trash:/") }).out, QByteArray("0-doomed.bin\n"));
        const Result w = sh("echo x > '" + m.dir + "/new'");
        QVERIFY2(w.err.contains("Read-only file system"), w.err.constData());
        QVERIFY(umount(m));
    }

    void urlSpaceAndReadOnly()
    {
        // The whole URL space: DIR/sftp/USER@HOST:PORT/PATH; http:// is read-only.
        fillServer("sftp");
        QVERIFY(m_http->writeFile("plain.txt", "plain\n"));
        Mount m = mount({});
        QVERIFY(isMounted(m.dir));
        const QByteArray ssh
            = m.dir + "/sftp/root@127.0.0.1:" + QByteArray::number(m_sshd.port()) + backend("sftp").server;
        QCOMPARE(sh("cat '" + ssh + "/a.txt'").out, QByteArray("alpha\n"));
        QVERIFY(sh("ls '" + m.dir + "'").out.contains("sftp\n"));
        QVERIFY(sh("ls '" + m.dir + "/sftp'").out.contains("root@127.0.0.1:"));
        QCOMPARE(sh("cat '" + m.dir + "/nosuchscheme/x'").code, 1);
        const QByteArray web = m.dir + "/http/127.0.0.1:" + QByteArray::number(m_http->port());
        QCOMPARE(sh("cat '" + web + "/plain.txt'").out, QByteArray("plain\n"));
        const Result w = sh("echo x > '" + web + "/new.txt'");
        QVERIFY2(w.err.contains("Read-only file system"), (w.err).constData());
        QVERIFY(umount(m));
    }
};

QTEST_GUILESS_MAIN(MountTest)
#include "mounttest.moc"
