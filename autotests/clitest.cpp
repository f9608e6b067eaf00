// SPDX-License-Identifier: LGPL-2.1-or-later
// Drives the built `qvfs` program through every command: output for people and for
// scripts, exit statuses, errors naming the URL, raw non-UTF-8 names given on the
// command line, translations, and the progress line under a real pseudo-terminal.

#include "testutil/clirun.h"
#include "testutil/procutil.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

namespace
{

using CliRun::Result;

/*! Writes \a bytes to the file at the raw path \a path. */
bool writeRaw(const QByteArray &path, const QByteArray &bytes)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, bytes.constData(), size_t(bytes.size())) == bytes.size();
    ::close(fd);
    return ok;
}

QByteArray readRaw(const QByteArray &path)
{
    QByteArray data;
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return QByteArray();
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        data.append(buf, n);
    ::close(fd);
    return data;
}

bool existsRaw(const QByteArray &path)
{
    struct stat st;
    return ::lstat(path.constData(), &st) == 0;
}

/*!
 * A request to delete \a url recursively, as the application sends it to a worker: the
 * frame layout of src/proto/wire_p.h (12-byte header: payload length, message type 10
 * "Command", request id; payload: varint command 5 "Delete", varint URL count, URL as
 * length-prefixed bytes, options block with "recursive" = 1). A file with these bytes is
 * what an attacker leaves for `qvfs cat` when its standard output might be the socket.
 */
QByteArray deleteRequestFrame(const QByteArray &url)
{
    auto varint = [](QByteArray &out, quint64 v) {
        while (v >= 0x80) {
            out += char((v & 0x7f) | 0x80);
            v >>= 7;
        }
        out += char(v);
    };
    QByteArray payload;
    varint(payload, 5); // Command::Delete
    varint(payload, 1);
    varint(payload, quint64(url.size()));
    payload += url;
    varint(payload, 1); // one option
    varint(payload, 9);
    payload += "recursive";
    payload += char(0); // a number
    varint(payload, 2); // zigzag(1)
    auto le32 = [](QByteArray &out, quint32 v) {
        for (int i = 0; i < 4; ++i)
            out += char((v >> (8 * i)) & 0xff);
    };
    QByteArray frame;
    le32(frame, quint32(payload.size()));
    le32(frame, 10); // Msg::Command, no flags
    le32(frame, 4242);
    return frame + payload;
}

/*!
 * `clitest --peak-rss DIR PROGRAM ARG...`: runs PROGRAM in DIR with its output to
 * /dev/null and prints its peak resident memory in KiB (its own, or a child's when
 * larger). A helper mode of this program, run before Qt starts, so the child is forked
 * from a small process: a child's peak counts its parent's memory at the fork.
 */
int peakRssHelper(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const pid_t pid = ::fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        if (null < 0 || ::dup2(null, STDOUT_FILENO) < 0 || ::chdir(argv[0]) != 0)
            ::_exit(127);
        ::execv(argv[1], argv + 1);
        ::_exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    std::printf("%ld\n", usage.ru_maxrss);
    return 0;
}

bool line_contains(const QList<QByteArray> &lines, const char *which, const QByteArray &what)
{
    for (const QByteArray &line : lines) {
        if (line.contains(which))
            return line.contains(what);
    }
    return false;
}

} // namespace

class CliTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QByteArray m_root; // raw bytes of the temporary folder

    /*! Runs qvfs with \a args in the test folder. */
    Result run(const QStringList &args, const QByteArray &input = QByteArray(),
        const QProcessEnvironment &env = CliRun::environment())
    {
        return CliRun::run(CliRun::qvfsBinary(), args, m_tmp.path(), input, env);
    }
    /*!
     * Runs \a script with /bin/sh in the test folder: "$Q" is qvfs. Arguments built
     * there with printf reach qvfs as the exact bytes.
     */
    Result sh(const QString &script, const QProcessEnvironment &env = CliRun::environment())
    {
        QProcessEnvironment e = env;
        e.insert(QStringLiteral("Q"), CliRun::qvfsBinary());
        return CliRun::run(QStringLiteral("/bin/sh"), { QStringLiteral("-c"), script }, m_tmp.path(), QByteArray(), e);
    }
    /*! Runs \a command under a pseudo-terminal with script(1), typing \a input; the terminal's output. */
    Result underPty(const QString &command, const QProcessEnvironment &env = CliRun::environment(),
        const QByteArray &input = QByteArray())
    {
        QProcessEnvironment e = env;
        e.insert(QStringLiteral("Q"), CliRun::qvfsBinary());
        return CliRun::run(QStringLiteral("script"), { QStringLiteral("-qfec"), command, QStringLiteral("/dev/null") },
            m_tmp.path(), input, e);
    }
    QByteArray path(const char *relative) const { return m_root + '/' + relative; }
    void makeTree(const char *name);

private Q_SLOTS:
    void initTestCase();
    void usage();
    void help();
    void lsText();
    void lsLong();
    void lsJson();
    void lsRecursive();
    void lsOperandsAndErrors();
    void lsTerminalQuoting();
    void stat();
    void cp();
    void cpConflicts();
    void cpInteractive();
    void mv();
    void rm();
    void mkdir();
    void cat();
    void catRange_data();
    void catRange();
    void put();
    void du();
    void df();
    void watch();
    void nonUtf8Names();
    void urls();
    void questions();
    void germanErrors();
    void progressUnderPty();
    // Issue 16: what an attacker or an unlucky user can do.
    void closedStandardDescriptors();
    void decodedPathChecks_data();
    void decodedPathChecks();
    void rmFolderSwappedIn();
    void controlCharactersOnTerminal();
    void controlCharactersOffTerminal();
    void jsonTimesBeyond64Bits_data();
    void jsonTimesBeyond64Bits();
    void statDereferenceFails();
    void copyPipesAndDevices();
    void lsLongMemory();
    void fileUrlWithThisHost();
};

void CliTest::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_root = QFile::encodeName(m_tmp.path());
    QVERIFY2(QFileInfo(CliRun::qvfsBinary()).isExecutable(), qPrintable(CliRun::qvfsBinary()));
    QVERIFY2(QFileInfo(QStringLiteral(QVFS_CLI_TEST_BIN_DIR "/qvfs-worker-file")).isExecutable(),
        "the file worker is not built");
    ::umask(022);
}

void CliTest::makeTree(const char *name)
{
    const QByteArray t = path(name);
    QVERIFY(::mkdir(t.constData(), 0755) == 0);
    QVERIFY(writeRaw(t + "/a", "hello"));
    QVERIFY(writeRaw(t + "/b", "hello world"));
    QVERIFY(writeRaw(t + "/.hidden", "h"));
    QVERIFY(::mkdir(QByteArray(t + "/sub").constData(), 0755) == 0);
    QVERIFY(writeRaw(t + "/sub/c", "ccc"));
    QVERIFY(::mkdir(QByteArray(t + "/sub/deep").constData(), 0755) == 0);
    QVERIFY(writeRaw(t + "/sub/deep/d", "dddd"));
    QVERIFY(::mkdir(QByteArray(t + "/.hid").constData(), 0755) == 0);
    QVERIFY(writeRaw(t + "/.hid/x", "x"));
    QVERIFY(::symlink("a", QByteArray(t + "/link").constData()) == 0);
}

void CliTest::usage()
{
    Result r = run({});
    QCOMPARE(r.code, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY(r.err.contains("qvfs --help"));

    r = run({ QStringLiteral("frobnicate") });
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("frobnicate"));

    r = run({ QStringLiteral("ls"), QStringLiteral("--frobnicate") });
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--frobnicate"));
    QVERIFY(r.err.contains("qvfs ls --help"));

    for (const char *cmd : { "cp", "mv" }) {
        r = run({ QLatin1String(cmd), QStringLiteral("x") });
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("missing destination"));
    }
    for (const char *cmd : { "rm", "mkdir", "cat", "stat", "put" }) {
        r = run({ QLatin1String(cmd) });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("missing operand"), cmd);
    }
    r = run({ QStringLiteral("mkdir"), QStringLiteral("-m"), QStringLiteral("rwx"), QStringLiteral("x") });
    QCOMPARE(r.code, 2);
}

void CliTest::help()
{
    Result r = run({ QStringLiteral("--help") });
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.isEmpty());
    QVERIFY(r.out.startsWith("Usage: qvfs"));
    for (const char *cmd : { "ls", "stat", "cp", "mv", "rm", "mkdir", "cat", "put", "du", "df", "watch" }) {
        QVERIFY2(r.out.contains(QByteArray(QByteArray("  ") + cmd + ' ')), cmd);
        const Result a = run({ QStringLiteral("help"), QLatin1String(cmd) });
        const Result b = run({ QLatin1String(cmd), QStringLiteral("--help") });
        QCOMPARE(a.code, 0);
        QCOMPARE(b.code, 0);
        QCOMPARE(a.out, b.out);
        QVERIFY2(a.out.startsWith(QByteArray(QByteArray("Usage: qvfs ") + cmd)), cmd);
    }
    // The JSON escaping scheme is documented.
    QVERIFY(run({ QStringLiteral("help"), QStringLiteral("ls") }).out.contains("name_bytes"));

    r = run({ QStringLiteral("help"), QStringLiteral("nope") });
    QCOMPARE(r.code, 2);

    r = run({ QStringLiteral("--version") });
    QCOMPARE(r.code, 0);
    QVERIFY(
        QRegularExpression(QStringLiteral("^qvfs \\d+\\.\\d+\\.\\d+\n$")).match(QString::fromUtf8(r.out)).hasMatch());
}

void CliTest::lsText()
{
    makeTree("lstext");
    Result r = run({ QStringLiteral("ls"), QStringLiteral("lstext") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(r.out, QByteArray("a\nb\nlink\nsub\n"));

    r = run({ QStringLiteral("ls"), QStringLiteral("-a"), QStringLiteral("lstext") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray(".hid\n.hidden\na\nb\nlink\nsub\n"));

    // The working folder by default; byte order (upper case first, like LC_ALL=C).
    QVERIFY(writeRaw(path("lstext/sub/Zed"), "z"));
    r = CliRun::run(CliRun::qvfsBinary(), { QStringLiteral("ls") }, m_tmp.path() + QStringLiteral("/lstext/sub"));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("Zed\nc\ndeep\n"));
}

void CliTest::lsLong()
{
    QVERIFY(::mkdir(path("lslong").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("lslong/new"), "12345"));
    QVERIFY(::chmod(path("lslong/new").constData(), 0640) == 0);
    QVERIFY(writeRaw(path("lslong/old"), "1"));
    struct timeval times[2] = { { 946684800, 0 }, { 946684800, 0 } }; // 2000-01-01 00:00 UTC
    QVERIFY(::utimes(path("lslong/old").constData(), times) == 0);
    QVERIFY(::mkdir(path("lslong/dir").constData(), 0755) == 0);
    QVERIFY(::symlink("new", path("lslong/ln").constData()) == 0);

    const Result r = run({ QStringLiteral("ls"), QStringLiteral("-l"), QStringLiteral("lslong") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    const QList<QByteArray> lines = r.out.split('\n');
    QCOMPARE(lines.size(), 6); // total, 4 entries, ""
    QVERIFY(lines.at(0).startsWith("total "));
    const QString re = QStringLiteral("^%1 +\\d+ \\S+ +\\S+ +%2 %3 %4$");
    const QString recent = QStringLiteral("[A-Z][a-z]{2} [ 1-3]\\d \\d\\d:\\d\\d");
    auto check = [&](int i, const char *mode, const char *size, const QString &date, const char *name) {
        const QRegularExpression rx(re.arg(QLatin1String(mode), QLatin1String(size), date, QLatin1String(name)));
        QVERIFY2(rx.match(QString::fromUtf8(lines.at(i))).hasMatch(), lines.at(i).constData());
    };
    check(1, "drwxr-xr-x", "\\d+", recent, "dir");
    check(2, "lrwxrwxrwx", "3", recent, "ln -> new");
    check(3, "-rw-r-----", "5", recent, "new");
    check(4, "-rw-r--r--", "1", QStringLiteral("Jan  1  2000"), "old");
}

void CliTest::lsJson()
{
    makeTree("lsjson");
    const Result r = run({ QStringLiteral("ls"), QStringLiteral("--json"), QStringLiteral("lsjson") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QList<QByteArray> lines = r.out.split('\n');
    QCOMPARE(lines.takeLast(), QByteArray());
    QCOMPARE(lines.size(), 4);
    QHash<QString, QJsonObject> byName;
    for (const QByteArray &line : std::as_const(lines)) {
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        QVERIFY2(err.error == QJsonParseError::NoError && doc.isObject(), line.constData());
        byName.insert(doc.object().value(QLatin1String("name")).toString(), doc.object());
    }
    QCOMPARE(byName.keys().size(), 4);
    struct stat st;
    QVERIFY(::lstat(path("lsjson/b").constData(), &st) == 0);
    const QJsonObject b = byName.value(QStringLiteral("b"));
    QCOMPARE(b.value(QLatin1String("type")).toString(), QStringLiteral("file"));
    QCOMPARE(b.value(QLatin1String("size")).toInteger(), 11);
    QCOMPARE(b.value(QLatin1String("mode")).toInteger(), 0644);
    QCOMPARE(b.value(QLatin1String("uid")).toInteger(), qint64(::getuid()));
    QCOMPARE(b.value(QLatin1String("gid")).toInteger(), qint64(st.st_gid));
    QVERIFY(!b.value(QLatin1String("user")).toString().isEmpty());
    QVERIFY(!b.value(QLatin1String("group")).toString().isEmpty());
    QCOMPARE(b.value(QLatin1String("mtime")).toInteger(), qint64(st.st_mtim.tv_sec));
    // mtime_ns is the whole time in nanoseconds: compare it as text, doubles would round.
    QVERIFY2(line_contains(lines, "\"name\":\"b\"",
                 QByteArray("\"mtime_ns\":")
                     + QByteArray::number(qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec)),
        "mtime_ns");
    QCOMPARE(b.value(QLatin1String("url")).toString(),
        QStringLiteral("file://") + m_tmp.path() + QStringLiteral("/lsjson/b"));
    QCOMPARE(byName.value(QStringLiteral("sub")).value(QLatin1String("type")).toString(), QStringLiteral("dir"));
    const QJsonObject link = byName.value(QStringLiteral("link"));
    QCOMPARE(link.value(QLatin1String("type")).toString(), QStringLiteral("symlink"));
    QCOMPARE(link.value(QLatin1String("target")).toString(), QStringLiteral("a"));
}

void CliTest::lsRecursive()
{
    makeTree("lsrec");
    Result r = run({ QStringLiteral("ls"), QStringLiteral("-R"), QStringLiteral("lsrec") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(r.out,
        QByteArray("lsrec:\na\nb\nlink\nsub\n"
                   "\nlsrec/sub:\nc\ndeep\n"
                   "\nlsrec/sub/deep:\nd\n"));

    r = run({ QStringLiteral("ls"), QStringLiteral("-Ra"), QStringLiteral("lsrec/") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out,
        QByteArray("lsrec/:\n.hid\n.hidden\na\nb\nlink\nsub\n"
                   "\nlsrec/.hid:\nx\n"
                   "\nlsrec/sub:\nc\ndeep\n"
                   "\nlsrec/sub/deep:\nd\n"));

    r = run({ QStringLiteral("ls"), QStringLiteral("-R"), QStringLiteral("--json"), QStringLiteral("lsrec") });
    QCOMPARE(r.code, 0);
    QStringList names;
    for (const QByteArray &line : r.out.split('\n')) {
        if (!line.isEmpty())
            names << QJsonDocument::fromJson(line).object().value(QLatin1String("name")).toString();
    }
    QCOMPARE(names,
        QStringList({ QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("link"), QStringLiteral("sub"),
            QStringLiteral("sub/c"), QStringLiteral("sub/deep"), QStringLiteral("sub/deep/d") }));
}

void CliTest::lsOperandsAndErrors()
{
    makeTree("lsops");
    // A file prints as given; files come before folders; folders get headers.
    Result r = run(
        { QStringLiteral("ls"), QStringLiteral("lsops/sub"), QStringLiteral("lsops/b"), QStringLiteral("lsops/a") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(r.out, QByteArray("lsops/a\nlsops/b\n\nlsops/sub:\nc\ndeep\n"));

    // A missing operand: error naming it, exit 1, the others still listed.
    r = run({ QStringLiteral("ls"), QStringLiteral("lsops/nope"), QStringLiteral("lsops/sub") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.startsWith("qvfs: "), r.err.constData());
    QVERIFY2(r.err.contains(path("lsops/nope")), r.err.constData());
    QCOMPARE(r.out, QByteArray("lsops/sub:\nc\ndeep\n"));

    // -d shows the folder itself; ls of a link to a folder lists the folder.
    r = run({ QStringLiteral("ls"), QStringLiteral("-d"), QStringLiteral("lsops/sub") });
    QCOMPARE(r.out, QByteArray("lsops/sub\n"));
    QVERIFY(::symlink("sub", path("lsops/tosub").constData()) == 0);
    r = run({ QStringLiteral("ls"), QStringLiteral("lsops/tosub") });
    QCOMPARE(r.out, QByteArray("c\ndeep\n"));
    r = run({ QStringLiteral("ls"), QStringLiteral("-l"), QStringLiteral("lsops/tosub") });
    QVERIFY2(r.out.endsWith(" lsops/tosub -> sub\n"), r.out.constData());
}

void CliTest::lsTerminalQuoting()
{
    if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
        QSKIP("script(1) from util-linux is needed to run qvfs under a pseudo-terminal");
    QVERIFY(::mkdir(path("quote").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("quote/a\nb"), ""));
    QVERIFY(writeRaw(path("quote/plain"), ""));
    QVERIFY(writeRaw(path("quote/with space"), ""));
    // Not a terminal: raw names, one per line.
    Result r = run({ QStringLiteral("ls"), QStringLiteral("quote") });
    QCOMPARE(r.out, QByteArray("a\nb\nplain\nwith space\n"));
    // A terminal: quoted like coreutils (shell-escape), plain names aligned with a space.
    r = underPty(QStringLiteral("\"$Q\" ls -1 quote"));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("'a'$'\\n''b'\r\n plain\r\n'with space'\r\n"));
}

void CliTest::stat()
{
    makeTree("stat");
    Result r = run({ QStringLiteral("stat"), QStringLiteral("stat/b"), QStringLiteral("stat/link") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QVERIFY(r.out.contains("  File: stat/b\n"));
    QVERIFY(r.out.contains("  Size: 11"));
    QVERIFY(r.out.contains("regular file"));
    QVERIFY(r.out.contains("Access: (0644/-rw-r--r--)"));
    QVERIFY(r.out.contains("Modify: "));
    QVERIFY(r.out.contains("  File: stat/link -> a\n"));
    QVERIFY(r.out.contains("symbolic link"));

    // JSON, and an error in the middle: named, exit 1, the rest still done.
    r = run({ QStringLiteral("stat"), QStringLiteral("--json"), QStringLiteral("stat/sub"), QStringLiteral("stat/nope"),
        QStringLiteral("stat/a") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(path("stat/nope")), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    const QJsonObject sub = QJsonDocument::fromJson(lines.at(0)).object();
    QCOMPARE(sub.value(QLatin1String("type")).toString(), QStringLiteral("dir"));
    QCOMPARE(sub.value(QLatin1String("name")).toString(), QStringLiteral("sub"));
    const QJsonObject a = QJsonDocument::fromJson(lines.at(1)).object();
    QCOMPARE(a.value(QLatin1String("size")).toInteger(), 5);
    QVERIFY(a.contains(QLatin1String("atime")));
    QVERIFY(a.contains(QLatin1String("mtime_ns")));
}

void CliTest::cp()
{
    makeTree("cp");
    // A file.
    Result r = run({ QStringLiteral("cp"), QStringLiteral("cp/b"), QStringLiteral("cp/b2") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(readRaw(path("cp/b2")), QByteArray("hello world"));

    // A folder needs -r; the other sources are still copied.
    QVERIFY(::mkdir(path("cpdest").constData(), 0755) == 0);
    r = run({ QStringLiteral("cp"), QStringLiteral("cp/sub"), QStringLiteral("cp/a"), QStringLiteral("cpdest") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("-r not specified; omitting directory 'cp/sub'"), r.err.constData());
    QVERIFY(!existsRaw(path("cpdest/sub")));
    QCOMPARE(readRaw(path("cpdest/a")), QByteArray("hello"));

    // -r copies the tree.
    r = run({ QStringLiteral("cp"), QStringLiteral("-r"), QStringLiteral("cp/sub"), QStringLiteral("cpdest") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(readRaw(path("cpdest/sub/deep/d")), QByteArray("dddd"));

    // Several sources need an existing folder.
    r = run({ QStringLiteral("cp"), QStringLiteral("cp/a"), QStringLiteral("cp/b"), QStringLiteral("cp/nofolder") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("cp/nofolder"));

    // A missing source: named, exit 1.
    r = run({ QStringLiteral("cp"), QStringLiteral("cp/missing"), QStringLiteral("cp/x") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("cp/missing")));
}

void CliTest::cpConflicts()
{
    QVERIFY(::mkdir(path("conf").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("conf/src"), "new"));
    QVERIFY(writeRaw(path("conf/dst"), "old"));
    const QStringList files { QStringLiteral("conf/src"), QStringLiteral("conf/dst") };

    // Default without a terminal: an error, the destination untouched.
    Result r = run(QStringList { QStringLiteral("cp") } + files);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(path("conf/dst")), r.err.constData());
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("old"));

    r = run(QStringList { QStringLiteral("cp"), QStringLiteral("-n") } + files);
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("old"));
    r = run(QStringList { QStringLiteral("cp"), QStringLiteral("--no") } + files);
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("old"));

    r = run(QStringList { QStringLiteral("cp"), QStringLiteral("--rename") } + files);
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("old"));
    QCOMPARE(readRaw(path("conf/dst (1)")), QByteArray("new"));

    r = run(QStringList { QStringLiteral("cp"), QStringLiteral("-f") } + files);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("new"));

    QVERIFY(writeRaw(path("conf/dst"), "old"));
    r = run(QStringList { QStringLiteral("--yes"), QStringLiteral("cp") } + files);
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("conf/dst")), QByteArray("new"));
}

void CliTest::cpInteractive()
{
    if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
        QSKIP("script(1) from util-linux is needed to run qvfs under a pseudo-terminal");
    QVERIFY(::mkdir(path("ask").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("ask/src"), "new"));
    QVERIFY(writeRaw(path("ask/dst"), "old"));
    // Standard input is the terminal: the conflict is asked on /dev/tty.
    Result r = underPty(QStringLiteral("\"$Q\" cp ask/src ask/dst"), CliRun::environment(), "n\n");
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QByteArray(path("ask/dst") + " already exists")), r.out.constData());
    QCOMPARE(readRaw(path("ask/dst")), QByteArray("old"));
    r = underPty(QStringLiteral("\"$Q\" cp ask/src ask/dst"), CliRun::environment(), "y\n");
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("ask/dst")), QByteArray("new"));
    // "cancel" fails the command and leaves the destination alone.
    QVERIFY(writeRaw(path("ask/dst"), "old"));
    r = underPty(QStringLiteral("\"$Q\" cp ask/src ask/dst"), CliRun::environment(), "c\n");
    QCOMPARE(r.code, 1);
    QCOMPARE(readRaw(path("ask/dst")), QByteArray("old"));
    // --no answers for the terminal.
    r = underPty(QStringLiteral("\"$Q\" --no cp ask/src ask/dst"));
    QCOMPARE(r.code, 0);
    QVERIFY(!r.out.contains("already exists"));
    QCOMPARE(readRaw(path("ask/dst")), QByteArray("old"));
}

void CliTest::mv()
{
    QVERIFY(::mkdir(path("mv").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("mv/one"), "1"));
    QVERIFY(writeRaw(path("mv/two"), "2"));
    QVERIFY(::mkdir(path("mv/into").constData(), 0755) == 0);
    Result r = run({ QStringLiteral("mv"), QStringLiteral("mv/one"), QStringLiteral("mv/uno") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QVERIFY(!existsRaw(path("mv/one")));
    QCOMPARE(readRaw(path("mv/uno")), QByteArray("1"));

    r = run({ QStringLiteral("mv"), QStringLiteral("mv/uno"), QStringLiteral("mv/nope"), QStringLiteral("mv/two"),
        QStringLiteral("mv/into") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("mv/nope")));
    QCOMPARE(readRaw(path("mv/into/uno")), QByteArray("1"));
    QCOMPARE(readRaw(path("mv/into/two")), QByteArray("2"));
    QVERIFY(!existsRaw(path("mv/two")));
}

void CliTest::rm()
{
    makeTree("rm");
    Result r = run({ QStringLiteral("rm"), QStringLiteral("rm/a"), QStringLiteral("rm/link") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QVERIFY(!existsRaw(path("rm/a")));
    QVERIFY(!existsRaw(path("rm/link")));

    // A folder without -r: coreutils' complaint; the other operands still go.
    r = run({ QStringLiteral("rm"), QStringLiteral("rm/sub"), QStringLiteral("rm/b") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("cannot remove 'rm/sub': Is a directory"), r.err.constData());
    QVERIFY(existsRaw(path("rm/sub/c")));
    QVERIFY(!existsRaw(path("rm/b")));

    r = run({ QStringLiteral("rm"), QStringLiteral("-r"), QStringLiteral("rm/sub") });
    QCOMPARE(r.code, 0);
    QVERIFY(!existsRaw(path("rm/sub")));

    r = run({ QStringLiteral("rm"), QStringLiteral("rm/nope") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("rm/nope")));
    r = run({ QStringLiteral("rm"), QStringLiteral("-f"), QStringLiteral("rm/nope") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());

    r = run({ QStringLiteral("rm"), QStringLiteral("-r"), QStringLiteral("rm/.") });
    QCOMPARE(r.code, 1);
    QVERIFY(existsRaw(path("rm")));
}

void CliTest::mkdir()
{
    Result r = run({ QStringLiteral("mkdir"), QStringLiteral("mk") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QVERIFY(existsRaw(path("mk")));

    r = run({ QStringLiteral("mkdir"), QStringLiteral("mk") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("mk")));

    r = run({ QStringLiteral("mkdir"), QStringLiteral("mk/x/y") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("mk/x/y")));

    r = run({ QStringLiteral("mkdir"), QStringLiteral("-p"), QStringLiteral("-m"), QStringLiteral("700"),
        QStringLiteral("mk/x/y"), QStringLiteral("mk") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    struct stat st;
    QVERIFY(::stat(path("mk/x/y").constData(), &st) == 0);
    QCOMPARE(st.st_mode & 07777, 0700u);
}

void CliTest::cat()
{
    QVERIFY(::mkdir(path("cat").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("cat/one"), "first\n"));
    QVERIFY(writeRaw(path("cat/two"), "second\n"));
    Result r = run({ QStringLiteral("cat"), QStringLiteral("cat/one"), QStringLiteral("cat/two") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(r.out, QByteArray("first\nsecond\n"));

    r = run(
        { QStringLiteral("cat"), QStringLiteral("cat/one"), QStringLiteral("cat/nope"), QStringLiteral("cat/two") });
    QCOMPARE(r.code, 1);
    QCOMPARE(r.out, QByteArray("first\nsecond\n"));
    QVERIFY(r.err.contains(path("cat/nope")));

    r = run({ QStringLiteral("cat"), QStringLiteral("cat") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("cat")));

    // A big file through a pipe (many chunks, written as the reader takes them).
    QByteArray big;
    big.reserve(5 * 1024 * 1024);
    for (int i = 0; big.size() < 5 * 1024 * 1024; ++i)
        big += QByteArray::number(i) + '\n';
    QVERIFY(writeRaw(path("cat/big"), big));
    r = run({ QStringLiteral("cat"), QStringLiteral("cat/big") });
    QCOMPARE(r.code, 0);
    QVERIFY(r.out == big);

    // A reader that goes away early: the program ends (like cat, by SIGPIPE).
    r = sh(QStringLiteral("\"$Q\" cat cat/big | head -c 10 >/dev/null; echo done"));
    QCOMPARE(r.out, QByteArray("done\n"));
}

void CliTest::catRange_data()
{
    // Arguments after "cat"; the expected bytes of the 1,000,001-byte file (-1: an error).
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("length");
    QTest::addColumn<int>("code");
    const qint64 size = 1000001;
    const auto row = [](const char *name, const QStringList &args, qint64 from, qint64 length, int code = 0) {
        QTest::newRow(name) << args << from << length << code;
    };
    const QString f = QStringLiteral("range/f");
    row("offset and length",
        { QStringLiteral("--offset"), QStringLiteral("10"), QStringLiteral("--length"), QStringLiteral("20"), f }, 10,
        20);
    row("with =", { QStringLiteral("--offset=262140"), QStringLiteral("--length=300000"), f }, 262140, 300000);
    row("offset alone: to the end", { QStringLiteral("--offset"), QStringLiteral("999990"), f }, 999990, 11);
    row("length alone: from the start", { QStringLiteral("--length"), QStringLiteral("5"), f }, 0, 5);
    row("length past the end", { QStringLiteral("--offset=999000"), QStringLiteral("--length=5000"), f }, 999000, 1001);
    row("length 0", { QStringLiteral("--length=0"), f }, 0, 0);
    row("offset past the end", { QStringLiteral("--offset=5000000"), f }, size, 0);
    row("two files", { QStringLiteral("--offset=1"), QStringLiteral("--length=2"), f, f }, -2, 0);
    row("bad offset", { QStringLiteral("--offset=-1"), f }, 0, 0, 2);
    row("bad length", { QStringLiteral("--length=1k"), f }, 0, 0, 2);
    row("missing file", { QStringLiteral("--offset=1"), QStringLiteral("range/nope") }, 0, 0, 1);
    row("a folder", { QStringLiteral("--length=1"), QStringLiteral("range") }, 0, 0, 1);
}

void CliTest::catRange()
{
    QFETCH(QStringList, args);
    QFETCH(qint64, from);
    QFETCH(qint64, length);
    QFETCH(int, code);
    QByteArray content;
    for (int i = 0; content.size() < 1000001; ++i)
        content += QByteArray::number(i) + ',';
    content.truncate(1000001);
    QVERIFY(::mkdir(path("range").constData(), 0755) == 0 || errno == EEXIST);
    QVERIFY(writeRaw(path("range/f"), content));
    const Result r = run(QStringList { QStringLiteral("cat") } + args);
    QCOMPARE(r.code, code);
    if (code) {
        QCOMPARE(r.out, QByteArray());
        QVERIFY(!r.err.isEmpty());
        return;
    }
    QCOMPARE(r.err, QByteArray());
    const QByteArray expected = from == -2 ? content.mid(1, 2).repeated(2) : content.mid(from, length);
    QVERIFY2(
        r.out == expected, qPrintable(QStringLiteral("%1 bytes, %2 expected").arg(r.out.size()).arg(expected.size())));
}

void CliTest::put()
{
    QVERIFY(::mkdir(path("put").constData(), 0755) == 0);
    Result r = run({ QStringLiteral("put"), QStringLiteral("put/f") }, "from stdin\n");
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(readRaw(path("put/f")), QByteArray("from stdin\n"));

    r = run({ QStringLiteral("put"), QStringLiteral("put/f") }, "other\n");
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("put/f")));
    QCOMPARE(readRaw(path("put/f")), QByteArray("from stdin\n"));

    r = run({ QStringLiteral("put"), QStringLiteral("-f"), QStringLiteral("put/f") }, "other\n");
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("put/f")), QByteArray("other\n"));

    // Empty input gives an empty file; a big one arrives whole.
    r = run({ QStringLiteral("put"), QStringLiteral("put/empty") });
    QCOMPARE(r.code, 0);
    QVERIFY(existsRaw(path("put/empty")));
    QCOMPARE(readRaw(path("put/empty")), QByteArray());
    const QByteArray big(3 * 1024 * 1024 + 7, 'x');
    r = run({ QStringLiteral("put"), QStringLiteral("put/big") }, big);
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("put/big")).size(), big.size());
}

void CliTest::du()
{
    makeTree("du");
    // a 5 + b 11 + .hidden 1 + sub/c 3 + sub/deep/d 4 + .hid/x 1 = 25 (the link is not followed)
    Result r = run({ QStringLiteral("du"), QStringLiteral("du"), QStringLiteral("du/sub") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(r.out, QByteArray("25\tdu\n7\tdu/sub\n"));

    r = run({ QStringLiteral("du"), QStringLiteral("--json"), QStringLiteral("du/sub") });
    QCOMPARE(r.code, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o.value(QLatin1String("bytes")).toInteger(), 7);
    QCOMPARE(o.value(QLatin1String("files")).toInteger(), 2);
    QCOMPARE(o.value(QLatin1String("dirs")).toInteger(), 1);

    QVERIFY(writeRaw(path("du/big"), QByteArray(4096, 'x')));
    r = run({ QStringLiteral("du"), QStringLiteral("-h"), QStringLiteral("du/big") });
    QCOMPARE(r.out, QByteArray("4.0K\tdu/big\n"));

    r = run({ QStringLiteral("du"), QStringLiteral("du/nope") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(path("du/nope")));
}

void CliTest::df()
{
    QVERIFY(::mkdir(path("df").constData(), 0755) == 0);
    struct statvfs st;
    QCOMPARE(::statvfs(path("df").constData(), &st), 0);
    const qint64 total = qint64(st.f_blocks) * qint64(st.f_frsize ? st.f_frsize : st.f_bsize);

    // A heading, then one line per URL: size, used, available, Use%, the URL as given.
    Result r = run({ QStringLiteral("df"), QStringLiteral("df"), QStringLiteral("df/.") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QList<QByteArray> lines = r.out.split('\n');
    QCOMPARE(lines.size(), 4); // heading, two rows, ""
    QCOMPARE(lines.at(0).simplified(), QByteArray("Size Used Avail Use% URL"));
    const QRegularExpression row(QStringLiteral("^ *(\\d+) +(\\d+) +(\\d+) +(\\d+)% (.+)$"));
    for (int i = 1; i <= 2; ++i) {
        // the columns line up under the heading (right-aligned figures)
        QCOMPARE(lines.at(i).indexOf('%'), lines.at(0).indexOf('%'));
        const QRegularExpressionMatch m = row.match(QString::fromUtf8(lines.at(i)));
        QVERIFY2(m.hasMatch(), lines.at(i).constData());
        QCOMPARE(m.captured(1).toLongLong(), total);
        const qint64 used = m.captured(2).toLongLong();
        const qint64 avail = m.captured(3).toLongLong();
        QVERIFY(used + avail <= total);
        QCOMPARE(m.captured(4).toLongLong(), used + avail ? (used * 100 + used + avail - 1) / (used + avail) : 0);
        QCOMPARE(m.captured(5), i == 1 ? QStringLiteral("df") : QStringLiteral("df/."));
    }

    // JSON: one object per URL, the figures in bytes.
    r = run({ QStringLiteral("df"), QStringLiteral("--json"), QStringLiteral("df") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out.count('\n'), qsizetype(1));
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o.value(QLatin1String("name")).toString(), QStringLiteral("df"));
    QCOMPARE(o.value(QLatin1String("url")).toString(),
        QString::fromUtf8(QUrl::fromLocalFile(QString::fromUtf8(path("df"))).toEncoded()));
    QCOMPARE(o.value(QLatin1String("size")).toInteger(), total);
    const qint64 free = o.value(QLatin1String("free")).toInteger(-1);
    QVERIFY(free >= 0 && free <= total);
    QCOMPARE(o.value(QLatin1String("used")).toInteger(), total - free);
    QVERIFY(o.value(QLatin1String("available")).toInteger(-1) >= 0);
    QVERIFY(o.value(QLatin1String("available")).toInteger() <= free);

    // -h: sizes as du -h writes them.
    r = run({ QStringLiteral("df"), QStringLiteral("-h"), QStringLiteral("df") });
    QCOMPARE(r.code, 0);
    lines = r.out.split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY2(QRegularExpression(QStringLiteral("^ *[0-9.]+[KMGTPE]? +[0-9.]+[KMGTPE]? +[0-9.]+[KMGTPE]? +\\d+% df$"))
                 .match(QString::fromUtf8(lines.at(1)))
                 .hasMatch(),
        lines.at(1).constData());

    // A URL that fails: its error, exit status 1, the others still shown; no heading without a row.
    r = run({ QStringLiteral("df"), QStringLiteral("df/nope") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains(path("df/nope")), r.err.constData());
    r = run({ QStringLiteral("df"), QStringLiteral("df/nope"), QStringLiteral("df") });
    QCOMPARE(r.code, 1);
    QCOMPARE(r.out.count('\n'), qsizetype(2));
    QVERIFY(r.out.endsWith(" df\n"));
    // A protocol whose worker cannot tell.
    r = run({ QStringLiteral("df"), QStringLiteral("test:///ok") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("test:///ok"), r.err.constData());
    r = run({ QStringLiteral("df"), QStringLiteral("--json"), QStringLiteral("test:///ok") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.isEmpty());

    // The heading is translated (German in po/de, when the catalog is built).
    QString qm = QStringLiteral(QVFS_CLI_TEST_QM_DIR "/de/qvfs_qt.qm");
    QTranslator translator;
    if (!QFile::exists(qm) || !translator.load(qm))
        return;
    QProcessEnvironment env = CliRun::environment();
    env.remove(QStringLiteral("LC_ALL"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8"));
    r = run({ QStringLiteral("df"), QStringLiteral("df") }, QByteArray(), env);
    QCOMPARE(r.code, 0);
    QStringList heading;
    for (const char *word : { "Size", "Used", "Avail", "Use%", "URL" }) {
        const QString t = translator.translate("qvfs", word); // empty: the same in German ("URL")
        heading << (t.isEmpty() ? QString::fromLatin1(word) : t);
    }
    QVERIFY(heading.join(QLatin1Char(' ')) != QLatin1String("Size Used Avail Use% URL"));
    QCOMPARE(QString::fromUtf8(r.out.split('\n').at(0)).simplified(), heading.join(QLatin1Char(' ')));
}

void CliTest::watch()
{
    // qvfs watch lists, says "ready", prints each change as it happens, and ends when
    // the folder is deleted. A name that is not UTF-8 and one with a newline included.
    const QByteArray dir = path("watched");
    QVERIFY(::mkdir(dir.constData(), 0755) == 0);
    QVERIFY(writeRaw(dir + "/old", "o"));
    QVERIFY(writeRaw(dir + "/caf\xe9", "c"));
    for (const bool json : { true, false }) {
        QProcess p;
        p.setProcessEnvironment(CliRun::environment());
        p.setWorkingDirectory(m_tmp.path());
        QStringList args { QStringLiteral("watch"), QStringLiteral("watched") };
        if (json)
            args.insert(1, QStringLiteral("--json"));
        p.start(CliRun::qvfsBinary(), args);
        QVERIFY(p.waitForStarted(10000));
        QByteArray got;
        const auto waitFor = [&](const QByteArray &what) {
            for (int i = 0; i < 200 && !got.contains(what); ++i) {
                p.waitForReadyRead(100);
                got += p.readAllStandardOutput();
            }
            return got.contains(what);
        };
        QVERIFY2(waitFor(json ? "\"event\":\"ready\"" : "ready watched\n"), got.constData());
        if (json) {
            QVERIFY(got.contains("{\"event\":\"listed\",\"folder\":"));
            QVERIFY(got.contains("\"name\":null,\"name_bytes\":\"Y2Fm6Q==\"")); // "caf\xe9"
            QVERIFY(got.contains("\"mode\":\"native\""));
        } else {
            QVERIFY(got.contains("listed watched/old\n"));
        }
        QVERIFY(writeRaw(dir + "/new\nline", "n"));
        QVERIFY(waitFor(json ? "{\"event\":\"added\"" : "added watched/new\nline\n"));
        QVERIFY(::rename(QByteArray(dir + "/old").constData(), QByteArray(dir + "/older").constData()) == 0);
        QVERIFY(waitFor(json ? "{\"event\":\"renamed\"" : "renamed watched/old -> watched/older\n"));
        if (json)
            QVERIFY(got.contains("\"from\":\"old\",\"name\":\"older\""));
        QVERIFY(::unlink(QByteArray(dir + "/new\nline").constData()) == 0);
        QVERIFY(waitFor(json ? "{\"event\":\"removed\"" : "removed watched/new\nline\n"));
        QVERIFY(::rename(QByteArray(dir + "/older").constData(), QByteArray(dir + "/old").constData()) == 0);
        QVERIFY(waitFor(json ? "\"from\":\"older\"" : "renamed watched/older -> watched/old\n"));
        if (!json) {
            // Deleted under the watch: said once, and the command ends.
            QVERIFY(::unlink(QByteArray(dir + "/old").constData()) == 0);
            QVERIFY(::unlink(QByteArray(dir + "/caf\xe9").constData()) == 0);
            QVERIFY(::rmdir(dir.constData()) == 0);
            QVERIFY(waitFor("gone watched\n"));
            QVERIFY(p.waitForFinished(10000));
            QCOMPARE(p.exitCode(), 0);
            QCOMPARE(got.count("gone"), 1);
        } else {
            p.terminate();
            QVERIFY(p.waitForFinished(10000));
        }
    }
    const Result missing = run({ QStringLiteral("watch"), QStringLiteral("nowhere") });
    QCOMPARE(missing.code, 1);
    QVERIFY(missing.err.contains("nowhere"));
}

void CliTest::nonUtf8Names()
{
    // "a\377b" is not UTF-8. The shell builds the argument with printf, so qvfs gets
    // the exact bytes in argv; QProcess (QString arguments) could not pass them.
    QVERIFY(::mkdir(path("raw").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("raw/a\377b"), "raw content"));

    Result r = sh(QStringLiteral("\"$Q\" stat --json \"raw/$(printf 'a\\377b')\""));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QVERIFY(o.value(QLatin1String("name")).isNull());
    QCOMPARE(o.value(QLatin1String("name_bytes")).toString(), QString::fromLatin1(QByteArray("a\377b").toBase64()));
    QCOMPARE(o.value(QLatin1String("size")).toInteger(), 11);
    QVERIFY(o.value(QLatin1String("url")).toString().endsWith(QLatin1String("/raw/a%FFb")));

    // ls shows the bytes as they are when not on a terminal, and reversibly in JSON.
    r = run({ QStringLiteral("ls"), QStringLiteral("raw") });
    QCOMPARE(r.out, QByteArray("a\377b\n"));
    r = run({ QStringLiteral("ls"), QStringLiteral("--json"), QStringLiteral("raw") });
    o = QJsonDocument::fromJson(r.out).object();
    QVERIFY(o.value(QLatin1String("name")).isNull());
    QCOMPARE(QByteArray::fromBase64(o.value(QLatin1String("name_bytes")).toString().toLatin1()), QByteArray("a\377b"));

    // cat, cp, mv and rm reach the same bytes.
    r = sh(QStringLiteral("\"$Q\" cat \"raw/$(printf 'a\\377b')\""));
    QCOMPARE(r.out, QByteArray("raw content"));
    r = sh(QStringLiteral("\"$Q\" cp \"raw/$(printf 'a\\377b')\" \"raw/$(printf 'c\\376d')\""));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
    QCOMPARE(readRaw(path("raw/c\376d")), QByteArray("raw content"));
    r = sh(QStringLiteral("\"$Q\" mv \"raw/$(printf 'c\\376d')\" \"raw/$(printf 'e\\375f')\""));
    QCOMPARE(r.code, 0);
    QVERIFY(!existsRaw(path("raw/c\376d")));
    QVERIFY(existsRaw(path("raw/e\375f")));
    r = sh(QStringLiteral("\"$Q\" rm \"raw/$(printf 'a\\377b')\" \"raw/$(printf 'e\\375f')\""));
    QCOMPARE(r.code, 0);
    QVERIFY(!existsRaw(path("raw/a\377b")));
    QVERIFY(!existsRaw(path("raw/e\375f")));

    // An error about such a name still names the file.
    r = sh(QStringLiteral("\"$Q\" stat \"raw/$(printf 'a\\377b')\""));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(path("raw/a")), r.err.constData());
}

void CliTest::urls()
{
    QVERIFY(::mkdir(path("urls").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("urls/x y"), "url"));
    const QString url = QStringLiteral("file://") + m_tmp.path() + QStringLiteral("/urls/x%20y");
    Result r = run({ QStringLiteral("cat"), url });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("url"));
    r = run({ QStringLiteral("cp"), url, QStringLiteral("file://") + m_tmp.path() + QStringLiteral("/urls/copy") });
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("urls/copy")), QByteArray("url"));
    r = run({ QStringLiteral("ls"), QStringLiteral("nosuchscheme://host/x") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("nosuchscheme"));
}

void CliTest::questions()
{
    // The test worker asks on stat: "ask" (a conflict; Name = the action) and
    // "password" (Name = user:password).
    if (!QFileInfo(QStringLiteral(QVFS_CLI_TEST_BIN_DIR "/qvfs-worker-test")).isExecutable())
        QSKIP("the test worker is not built");
    auto nameOf = [](const Result &r) {
        return QJsonDocument::fromJson(r.out.mid(r.out.indexOf('{'))).object().value(QLatin1String("name")).toString();
    };
    Result r = run(
        { QStringLiteral("--yes"), QStringLiteral("stat"), QStringLiteral("--json"), QStringLiteral("test:///ask") });
    QCOMPARE(r.code, 0);
    QCOMPARE(nameOf(r), QStringLiteral("overwrite"));
    r = run(
        { QStringLiteral("stat"), QStringLiteral("--no"), QStringLiteral("--json"), QStringLiteral("test:///ask") });
    QCOMPARE(r.code, 0);
    QCOMPARE(nameOf(r), QStringLiteral("skip"));

    // Standard input is not a terminal: refused, the job fails and says so.
    r = run({ QStringLiteral("stat"), QStringLiteral("test:///ask") });
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("test:///ask"), r.err.constData());
    r = run({ QStringLiteral("stat"), QStringLiteral("test:///password") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.isEmpty());

    if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
        QSKIP("script(1) from util-linux is needed to run qvfs under a pseudo-terminal");
    // On a terminal: asked on /dev/tty (typed ahead here).
    r = underPty(QStringLiteral("\"$Q\" stat --json test:///ask"), CliRun::environment(), "r\n");
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("[r]ename"), r.out.constData());
    QCOMPARE(nameOf(r), QStringLiteral("rename"));
    r = underPty(QStringLiteral("\"$Q\" stat --json test:///password"), CliRun::environment(), "alice\nsecret\n");
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("Password for alice"), r.out.constData());
    QCOMPARE(nameOf(r), QStringLiteral("alice:secret"));
}

void CliTest::germanErrors()
{
    // ecm_install_po_files_as_qm() builds <build>/<lang>/qvfs_qt.qm from po/<lang>/qvfs_qt.po.
    QString qm = QStringLiteral(QVFS_CLI_TEST_QM_DIR "/de/qvfs_qt.qm");
    if (!QFile::exists(qm))
        qm = QStringLiteral(QVFS_CLI_TEST_QM_DIR "/po/de/qvfs_qt.qm");
    if (!QFile::exists(qm))
        QSKIP("no German catalog in the build (po/de/qvfs_qt.po is not written yet): de/qvfs_qt.qm is missing");
    QProcessEnvironment env = CliRun::environment();
    env.remove(QStringLiteral("LC_ALL"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8"));
    const Result r = run({ QStringLiteral("ls"), QStringLiteral("/nicht-da") }, QByteArray(), env);
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("/nicht-da"));
    QTranslator translator;
    QVERIFY(translator.load(qm));
    const QString german = translator.translate("Qvfs", "%1 does not exist.");
    if (german.isEmpty()) {
        QVERIFY2(!r.err.contains("does not exist"), r.err.constData());
    } else {
        QCOMPARE(QString::fromUtf8(r.err),
            QStringLiteral("qvfs: ") + german.arg(QStringLiteral("/nicht-da")) + QLatin1Char('\n'));
    }
}

void CliTest::progressUnderPty()
{
    if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
        QSKIP("script(1) from util-linux is needed to run qvfs under a pseudo-terminal");
    QVERIFY(::mkdir(path("prog").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("prog/big"), QByteArray(8 * 1024 * 1024, 'p')));
    QProcessEnvironment env = CliRun::environment();
    env.insert(QStringLiteral("QVFS_PROGRESS_DELAY_MS"), QStringLiteral("0"));

    // Under a terminal: a progress line with the total and 100% at the end.
    Result r = underPty(QStringLiteral("\"$Q\" cp prog/big prog/copy"), env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("100%"), r.out.constData());
    QVERIFY2(r.out.contains("8.0 MiB"), r.out.constData());
    QVERIFY2(r.out.contains("/s"), r.out.constData());
    QVERIFY(r.out.contains('\r'));
    QCOMPARE(readRaw(path("prog/copy")).size(), 8 * 1024 * 1024);

    r = underPty(QStringLiteral("\"$Q\" cat prog/big > /dev/null"), env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("100%"), r.out.constData());

    r = underPty(QStringLiteral("\"$Q\" put -f prog/put < prog/big"), env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("8.0 MiB"), r.out.constData());

    r = underPty(QStringLiteral("\"$Q\" du prog > /dev/null"), env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("files"), r.out.constData());

    // Data on the terminal itself: no progress line mixed into it.
    QVERIFY(writeRaw(path("prog/small"), "just data\n"));
    r = underPty(QStringLiteral("\"$Q\" cat prog/small"), env);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("just data\r\n"));

    // Not a terminal: quiet, even with no delay.
    r = run({ QStringLiteral("cp"), QStringLiteral("-f"), QStringLiteral("prog/big"), QStringLiteral("prog/copy") },
        QByteArray(), env);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, QByteArray());
}

void CliTest::closedStandardDescriptors()
{
    // 16.3: with standard input and output closed, the first descriptors a program opens
    // get numbers 0 and 1. Were the socket to the worker one of them, what `cat` prints
    // would reach the worker as requests: this file deletes the folder "victim".
    QVERIFY(::mkdir(path("closed").constData(), 0755) == 0);
    QVERIFY(::mkdir(path("closed/victim").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("closed/victim/keep"), "keep"));
    QVERIFY(writeRaw(path("closed/evil"), deleteRequestFrame("file://" + path("closed/victim"))));
    Result r = sh(QStringLiteral("timeout 30 \"$Q\" cat closed/evil <&- >&-; echo \"status $?\" >&2"));
    QVERIFY2(existsRaw(path("closed/victim/keep")), r.err.constData());
    // The output went nowhere: that is a write error, as for coreutils.
    QVERIFY2(r.err.contains("write error on standard output"), r.err.constData());
    QVERIFY2(r.err.endsWith("status 1\n"), r.err.constData());
    // A closed standard input alone changes nothing for cat.
    r = sh(QStringLiteral("timeout 30 \"$Q\" cat closed/victim/keep <&-"));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("keep"));
    // ls to a closed standard output fails the same way.
    r = sh(QStringLiteral("timeout 30 \"$Q\" ls closed >&-; echo \"status $?\" >&2"));
    QVERIFY2(r.err.contains("write error on standard output") && r.err.endsWith("status 1\n"), r.err.constData());

    // put with a closed standard input: refused at once with a clear error (it used to
    // read Qt's event descriptor forever, growing a hidden temporary).
    QVERIFY(::mkdir(path("closed/dest").constData(), 0755) == 0);
    r = sh(QStringLiteral("timeout 30 \"$Q\" put closed/dest/x <&-; echo \"status $?\" >&2"));
    QVERIFY2(r.err.contains("qvfs: standard input is closed\n"), r.err.constData());
    QVERIFY2(r.err.endsWith("status 1\n"), r.err.constData()); // 124 would be the timeout
    QCOMPARE(QDir(m_tmp.path() + QStringLiteral("/closed/dest"))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
        QStringList());
}

void CliTest::decodedPathChecks_data()
{
    // 16.4: the client's own checks compare the paths the worker will act on, decoded.
    QTest::addColumn<QString>("script");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("rm -r x/%2E%2E") << QStringLiteral("\"$Q\" rm -r \"file://$PWD/dec/victim/x/%2E%2E\"")
                                    << QByteArray("refusing to remove '.' or '..'");
    QTest::newRow("rm -r x/%2e%2e/") << QStringLiteral("\"$Q\" rm -r \"file://$PWD/dec/victim/x/%2e%2e/\"")
                                     << QByteArray("refusing to remove '.' or '..'");
    QTest::newRow("rm -r %2e") << QStringLiteral("\"$Q\" rm -r \"file://$PWD/dec/victim/%2e\"")
                               << QByteArray("refusing to remove '.' or '..'");
    QTest::newRow("rm -r x%2F..") << QStringLiteral("\"$Q\" rm -r \"file://$PWD/dec/victim/x%2F..\"")
                                  << QByteArray("refusing to remove '.' or '..'");
    QTest::newRow("rm x/%2E%2E") << QStringLiteral("\"$Q\" rm \"file://$PWD/dec/victim/x/%2E%2E\"")
                                 << QByteArray("refusing to remove '.' or '..'");
    // The root itself: should the check ever fail, no worker can start to act on it.
    QTest::newRow("rm -r %2F") << QStringLiteral(
        "QVFS_WORKER_PREFIX=\"$(command -v false)\" \"$Q\" rm -r \"file:///%2F\" \"file:///%2f/\"")
                               << QByteArray("qvfs: it is dangerous to operate recursively on 'file:///%2F'\n"
                                             "qvfs: it is dangerous to operate recursively on 'file:///%2f/'\n");
    QTest::newRow("cp -r into itself") << QStringLiteral(
        "\"$Q\" cp -r dec/victim \"file://$PWD/dec/victim/x/%2E%2E/x/copy\"")
                                       << QByteArray("into itself");
    QTest::newRow("cp -r into itself, %2F")
        << QStringLiteral("\"$Q\" cp -r dec/victim \"file://$PWD/dec/other%2F..%2Fvictim/x\"")
        << QByteArray("into itself");
    QTest::newRow("mv into itself") << QStringLiteral("\"$Q\" mv dec/victim \"file://$PWD/dec/victim/x/%2E%2E/x\"")
                                    << QByteArray("subfolder of itself");
}

void CliTest::decodedPathChecks()
{
    QFETCH(QString, script);
    QFETCH(QByteArray, message);
    if (!existsRaw(path("dec")))
        QVERIFY(::mkdir(path("dec").constData(), 0755) == 0);
    if (!existsRaw(path("dec/victim"))) {
        QVERIFY(::mkdir(path("dec/victim").constData(), 0755) == 0);
        QVERIFY(::mkdir(path("dec/victim/x").constData(), 0755) == 0);
    }
    QVERIFY(writeRaw(path("dec/victim/keep"), "keep"));
    const Result r = sh(script);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(message), r.err.constData());
    QCOMPARE(readRaw(path("dec/victim/keep")), QByteArray("keep"));
    QVERIFY(existsRaw(path("dec/victim/x")));
    QVERIFY(!existsRaw(path("dec/victim/x/copy")));
    QVERIFY(!existsRaw(path("dec/victim/x/x")));
    QVERIFY(!existsRaw(path("dec/victim/x/victim")));
}

void CliTest::rmFolderSwappedIn()
{
    // 16.10: `rm FILE` checks that FILE is no folder; a folder swapped in after that check
    // must not be deleted. The worker's stat is held (strace delays its return) while the
    // file is replaced by a folder.
    if (QStandardPaths::findExecutable(QStringLiteral("strace")).isEmpty())
        QSKIP("strace is needed to hold the worker's system call");
    QVERIFY(::mkdir(path("swap").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("swap/f"), "file"));
    const Result r = sh(QStringLiteral(
        "T=\"$PWD/swap.trace\"; F=\"$PWD/swap/f\"\n"
        "QVFS_WORKER_PREFIX=\"strace -f -qq -o $T -e trace=statx -P $F -e inject=statx:delay_exit=2000000\" "
        "\"$Q\" rm swap/f & pid=$!\n"
        // The trace line appears when the stat has looked (and is being held).
        "i=0; until grep -q statx \"$T\" 2>/dev/null || [ $i -gt 600 ]; do sleep 0.05; i=$((i+1)); done\n"
        "rm \"$F\"; mkdir \"$F\"; echo keep > \"$F/keep\"\n"
        "wait $pid; echo \"status $?\" >&2\n"));
    QVERIFY2(existsRaw(path("swap/f/keep")), r.err.constData());
    QVERIFY2(r.err.contains("cannot remove 'swap/f': Is a directory\n"), r.err.constData());
    QVERIFY2(r.err.endsWith("status 1\n"), r.err.constData());
}

void CliTest::controlCharactersOnTerminal()
{
    // 16.11: names reach the terminal quoted as ls quotes them (shell-escape), never raw:
    // a name could set the title, move the cursor or clear the screen.
    if (QStandardPaths::findExecutable(QStringLiteral("script")).isEmpty())
        QSKIP("script(1) from util-linux is needed to run qvfs under a pseudo-terminal");
    QVERIFY(::mkdir(path("ctl").constData(), 0755) == 0);
    // "\033]0;owned\007" sets the terminal title; "\033[2J" clears the screen.
    const QByteArray evil("x\033]0;owned\007\033[2Jy");
    const QByteArray quoted("'x'$'\\033'']0;owned'$'\\a\\033''[2Jy'");
    QVERIFY(writeRaw(path("ctl/") + evil, "evil"));
    QVERIFY(::symlink(evil.constData(), path("ctl/link").constData()) == 0);
    const QString name = QStringLiteral("\"$(printf 'x\\033]0;owned\\007\\033[2Jy')\"");
    // Inside a quoted path: ...ctl/x'$'\033'']0;owned'$'\a\033''[2Jy...
    const QByteArray inside("ctl/x'$'\\033'']0;owned'$'\\a\\033''[2Jy");
    const struct
    {
        QString command;
        QByteArray expected;
    } cases[] = {
        // Errors (standard error is the terminal): from the library, and the client's own.
        { QStringLiteral("\"$Q\" cat ctl/%1.missing").arg(name), inside + ".missing' does not exist" },
        { QStringLiteral("\"$Q\" rm ctl/%1.missing").arg(name), inside + ".missing' does not exist" },
        { QStringLiteral("\"$Q\" mkdir ctl/%1/sub/x").arg(name), inside + "/sub/x' is a file" },
        { QStringLiteral("\"$Q\" rm ctl/%1/..").arg(name), "skipping '" + inside + "/..'" },
        { QStringLiteral("\"$Q\" cp ctl/%1 ctl/%1").arg(name), inside + "' cannot be copied onto itself" },
        { QStringLiteral("\"$Q\" frob%1").arg(name), "unknown command 'frobx'$'\\033'']0;owned'" },
        // Output for people on the terminal.
        { QStringLiteral("\"$Q\" ls -1 ctl"), quoted + "\r\n" },
        { QStringLiteral("\"$Q\" ls -l ctl"), "link -> " + quoted + "\r\n" },
        { QStringLiteral("\"$Q\" stat ctl/%1").arg(name), "File: '" + inside + "'\r\n" },
        { QStringLiteral("\"$Q\" du ctl/%1").arg(name), "\t'" + inside + "'\r\n" },
        // A question on the terminal.
        { QStringLiteral("\"$Q\" cp ctl/link ctl/%1").arg(name), inside + "' already exists. Overwrite it?" },
    };
    for (const auto &c : cases) {
        const bool asks = c.expected.endsWith("Overwrite it?");
        const Result r = underPty(c.command, CliRun::environment(), asks ? QByteArray("n\n") : QByteArray());
        QVERIFY2(!r.out.contains('\033') && !r.out.contains('\007'), r.out.constData());
        QVERIFY2(r.out.contains(c.expected), QByteArray(c.command.toUtf8() + ":\n" + r.out).constData());
    }
    QVERIFY(existsRaw(path("ctl/") + evil));
}

void CliTest::controlCharactersOffTerminal()
{
    // 16.11, the other half: off a terminal names on standard output are written as they
    // are (scripts read them); in messages they are quoted all the same, as coreutils
    // quotes them (`2>&1 | tee log` shows them on a screen).
    QVERIFY(::mkdir(path("ctlraw").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("ctlraw/a\033b"), ""));
    Result r = run({ QStringLiteral("ls"), QStringLiteral("ctlraw") });
    QCOMPARE(r.out, QByteArray("a\033b\n"));
    r = sh(QStringLiteral("\"$Q\" cat \"ctlraw/$(printf 'a\\033b').missing\""));
    QCOMPARE(r.code, 1);
    QCOMPARE(r.err, QByteArray("qvfs: '" + path("ctlraw/a") + "'$'\\033''b.missing' does not exist.\n"));
    r = sh(QStringLiteral("\"$Q\" rm \"ctlraw\""));
    QCOMPARE(r.err, QByteArray("qvfs: cannot remove 'ctlraw': Is a directory\n"));
}

void CliTest::jsonTimesBeyond64Bits_data()
{
    // 16.12: mtime_ns = mtime * 10^9 + ns does not fit 64 bits before 1677 or after 2262.
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<qint64>("nanoseconds");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("1600") << qint64(-11676096000) << qint64(0) << QByteArray("-11676096000000000000");
    QTest::newRow("1600 + 0.25 s") << qint64(-11676096000) << qint64(250000000) << QByteArray("-11676095999750000000");
    QTest::newRow("2400") << qint64(13569465600) << qint64(123456789) << QByteArray("13569465600123456789");
    QTest::newRow("1969") << qint64(-1) << qint64(500000000) << QByteArray("-500000000");
}

void CliTest::jsonTimesBeyond64Bits()
{
    QFETCH(qint64, seconds);
    QFETCH(qint64, nanoseconds);
    QFETCH(QByteArray, expected);
    // ext4 keeps times from 1901 to 2446 only; tmpfs keeps any.
    const struct timespec times[2] = { { time_t(seconds), long(nanoseconds) }, { time_t(seconds), long(nanoseconds) } };
    std::unique_ptr<QTemporaryDir> tmpfs;
    QByteArray folder = path("times");
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!existsRaw(folder))
            QVERIFY(::mkdir(folder.constData(), 0755) == 0);
        const QByteArray file = folder + '/' + QTest::currentDataTag();
        QVERIFY(writeRaw(file, "t"));
        QVERIFY(::utimensat(AT_FDCWD, file.constData(), times, 0) == 0);
        struct stat st;
        QVERIFY(::lstat(file.constData(), &st) == 0);
        if (st.st_mtim.tv_sec == seconds && st.st_mtim.tv_nsec == nanoseconds)
            break;
        QVERIFY(::unlink(file.constData()) == 0);
        if (attempt == 1 || !QFileInfo(QStringLiteral("/dev/shm")).isWritable())
            QSKIP("no file system here can store this time");
        tmpfs = std::make_unique<QTemporaryDir>(QStringLiteral("/dev/shm/clitest-XXXXXX"));
        QVERIFY(tmpfs->isValid());
        folder = QFile::encodeName(tmpfs->path()) + "/times";
    }
    const QByteArray file = folder + '/' + QTest::currentDataTag();
    const QByteArray key = "\"mtime_ns\":" + expected + ',';
    Result r = run({ QStringLiteral("stat"), QStringLiteral("--json"), QString::fromUtf8(file) });
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(key), r.out.constData());
    QVERIFY2(r.out.contains(QByteArray("\"mtime\":" + QByteArray::number(seconds) + ',')), r.out.constData());
    r = run({ QStringLiteral("ls"), QStringLiteral("--json"), QString::fromUtf8(folder) });
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(key), r.out.constData());
    // The JSON stays JSON.
    for (const QByteArray &line : r.out.trimmed().split('\n'))
        QVERIFY2(QJsonDocument::fromJson(line).isObject(), line.constData());
}

void CliTest::statDereferenceFails()
{
    // 16.12: `stat -L` of a link that cannot be followed fails as coreutils' stat -L does.
    QVERIFY(::mkdir(path("deref").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("deref/file"), "12345"));
    QVERIFY(::symlink("file", path("deref/good").constData()) == 0);
    QVERIFY(::symlink("nowhere", path("deref/dangling").constData()) == 0);
    QVERIFY(::symlink("loop2", path("deref/loop1").constData()) == 0);
    QVERIFY(::symlink("loop1", path("deref/loop2").constData()) == 0);
    QVERIFY(::symlink("../deref/./good", path("deref/chain").constData()) == 0);

    Result r = run(
        { QStringLiteral("stat"), QStringLiteral("-L"), QStringLiteral("deref/good"), QStringLiteral("deref/chain") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out.count("regular file"), 2);
    QVERIFY(!r.out.contains("->"));

    r = run({ QStringLiteral("stat"), QStringLiteral("-L"), QStringLiteral("deref/dangling") });
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err, QByteArray("qvfs: " + path("deref/dangling") + " does not exist.\n"));

    r = run({ QStringLiteral("stat"), QStringLiteral("-L"), QStringLiteral("--json"), QStringLiteral("deref/loop1"),
        QStringLiteral("deref/good") });
    QCOMPARE(r.code, 1);
    QCOMPARE(r.err, QByteArray("qvfs: Too many levels of symbolic links at " + path("deref/loop1") + ".\n"));
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QLatin1String("size")).toInteger(), 5);

    // Without -L the link itself is described, dangling or not.
    r = run({ QStringLiteral("stat"), QStringLiteral("deref/dangling"), QStringLiteral("deref/loop1") });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out.count("symbolic link"), 2);
}

void CliTest::copyPipesAndDevices()
{
    // 16.12: a source named on the command line that is a pipe or a device, or a link to
    // one (/dev/stdin, <(...)), is copied as its data, like cp; not as a link (to
    // "pipe:[...]" or /proc/self/fd/0) nor as a device node.
    QVERIFY(::mkdir(path("pipes").constData(), 0755) == 0);
    QVERIFY(::mkdir(path("pipes/into").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("pipes/regular"), "from a file\n"));
    QVERIFY(::mkfifo(path("pipes/fifo").constData(), 0644) == 0);
    QVERIFY(::symlink("fifo", path("pipes/tofifo").constData()) == 0);
    auto isRegular = [](const QByteArray &p) {
        struct stat st;
        return ::lstat(p.constData(), &st) == 0 && S_ISREG(st.st_mode);
    };
    const struct
    {
        const char *script;
        const char *dest;
        QByteArray data;
    } cases[] = {
        { "printf 'piped\\n' | \"$Q\" cp /dev/stdin pipes/a", "pipes/a", "piped\n" },
        { "\"$Q\" cp /dev/stdin pipes/b < pipes/regular", "pipes/b", "from a file\n" },
        { "printf 'into\\n' | \"$Q\" cp /dev/stdin pipes/into", "pipes/into/stdin", "into\n" },
        { "printf 'fifo\\n' > pipes/fifo & \"$Q\" cp pipes/fifo pipes/c; wait", "pipes/c", "fifo\n" },
        { "printf 'link\\n' > pipes/fifo & \"$Q\" cp pipes/tofifo pipes/d; wait", "pipes/d", "link\n" },
        { "\"$Q\" cp /dev/null pipes/e", "pipes/e", "" },
        { "printf 'fd\\n' | \"$Q\" cp /dev/fd/0 pipes/f", "pipes/f", "fd\n" },
    };
    for (const auto &c : cases) {
        const Result r = sh(QLatin1String(c.script));
        QVERIFY2(r.code == 0 && r.err.isEmpty(), QByteArray(QByteArray(c.script) + ": " + r.err).constData());
        QVERIFY2(isRegular(path(c.dest)), c.script);
        QCOMPARE(readRaw(path(c.dest)), c.data);
    }
    // The conflict policies hold for them too.
    Result r = sh(QStringLiteral("printf 'new\\n' | \"$Q\" cp /dev/stdin pipes/a"));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("already exists"), r.err.constData());
    QCOMPARE(readRaw(path("pipes/a")), QByteArray("piped\n"));
    r = sh(QStringLiteral("printf 'new\\n' | \"$Q\" cp -n /dev/stdin pipes/a"));
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("pipes/a")), QByteArray("piped\n"));
    r = sh(QStringLiteral("printf 'new\\n' | \"$Q\" cp -f /dev/stdin pipes/a"));
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("pipes/a")), QByteArray("new\n"));
    r = sh(QStringLiteral("printf 'other\\n' | \"$Q\" cp --rename /dev/stdin pipes/a"));
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("pipes/a (1)")), QByteArray("other\n"));

    // bash's process substitution, the case of the issue.
    const QString bash = QStandardPaths::findExecutable(QStringLiteral("bash"));
    if (!bash.isEmpty()) {
        QProcessEnvironment env = CliRun::environment();
        env.insert(QStringLiteral("Q"), CliRun::qvfsBinary());
        r = CliRun::run(bash, { QStringLiteral("-c"), QStringLiteral("\"$Q\" cp <(echo x) pipes/g") }, m_tmp.path(),
            QByteArray(), env);
        QCOMPARE(r.code, 0);
        QVERIFY(isRegular(path("pipes/g")));
        QCOMPARE(readRaw(path("pipes/g")), QByteArray("x\n"));
    }
    // With -r links and special files are copied as they are, like cp -R.
    r = run({ QStringLiteral("cp"), QStringLiteral("-r"), QStringLiteral("pipes/tofifo"), QStringLiteral("pipes/h") });
    QCOMPARE(r.code, 0);
    struct stat st;
    QVERIFY(::lstat(path("pipes/h").constData(), &st) == 0 && S_ISLNK(st.st_mode));
}

void CliTest::lsLongMemory()
{
    // 16.12: `ls -l` of a big folder keeps the library's entries and a small index per
    // entry, not copies: it peaked at about 400 bytes per entry, the library's own
    // share is about 40. Measured against an empty folder in the same run; on tmpfs
    // when there is one (creating the files on a disk takes long).
    const int count = 50000;
    std::unique_ptr<QTemporaryDir> tmpfs;
    QByteArray root = m_root;
    if (QFileInfo(QStringLiteral("/dev/shm")).isWritable()) {
        tmpfs = std::make_unique<QTemporaryDir>(QStringLiteral("/dev/shm/clitest-XXXXXX"));
        QVERIFY(tmpfs->isValid());
        root = QFile::encodeName(tmpfs->path());
    }
    QVERIFY(::mkdir(QByteArray(root + "/many").constData(), 0755) == 0);
    QVERIFY(::mkdir(QByteArray(root + "/none").constData(), 0755) == 0);
    for (int i = 0; i < count; ++i) {
        const int fd = ::open(QByteArray(root + "/many/file-" + QByteArray::number(i)).constData(),
            O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        ::close(fd);
    }
    // Measured by a fresh process (this program again): the peak of a child forked from
    // this test would count the test's own memory at the fork.
    auto peak = [&root](const char *folder) -> qint64 {
        const Result r = CliRun::run(QCoreApplication::applicationFilePath(),
            { QStringLiteral("--peak-rss"), QString::fromUtf8(root), CliRun::qvfsBinary(), QStringLiteral("ls"),
                QStringLiteral("-l"), QLatin1String(folder) },
            QDir::tempPath());
        return r.code == 0 ? r.out.trimmed().toLongLong() : -1;
    };
    const qint64 empty = peak("none");
    const qint64 full = peak("many");
    QVERIFY(empty > 0 && full > 0);
    const double perEntry = double(full - empty) * 1024 / count;
    qInfo("ls -l: %lld KiB for an empty folder, %lld KiB for %d entries: %.0f bytes per entry", empty, full, count,
        perEntry);
    if (ProcUtil::memoryFiguresMeaningful())
        QVERIFY2(perEntry < 120, qPrintable(QString::number(perEntry)));
}

void CliTest::fileUrlWithThisHost()
{
    // Issue 15: `ls --hyperlink` writes file://HOSTNAME/path; this machine's name is local.
    QVERIFY(::mkdir(path("host").constData(), 0755) == 0);
    QVERIFY(writeRaw(path("host/a b"), "here"));
    char name[256] = {};
    QVERIFY(::gethostname(name, sizeof name - 1) == 0);
    const QString url = QStringLiteral("file://%1%2/host/a%20b").arg(QLatin1String(name), m_tmp.path());
    Result r = run({ QStringLiteral("cat"), url });
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("here"));
    r = run({ QStringLiteral("cp"), url,
        QStringLiteral("file://%1%2/host/c").arg(QString::fromLatin1(name).toUpper(), m_tmp.path()) });
    QCOMPARE(r.code, 0);
    QCOMPARE(readRaw(path("host/c")), QByteArray("here"));
    // Another host stays an error, and says why.
    r = run({ QStringLiteral("cat"), QStringLiteral("file://elsewhere.invalid%1/host/c").arg(m_tmp.path()) });
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains("elsewhere.invalid") && r.err.contains("this machine"), r.err.constData());
}

// QTEST_GUILESS_MAIN(CliTest), with the measuring helper first.
int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--peak-rss") == 0)
        return peakRssHelper(argc - 2, argv + 2);
    QCoreApplication app(argc, argv);
    CliTest test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "clitest.moc"
