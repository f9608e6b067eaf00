// SPDX-License-Identifier: LGPL-2.1-or-later
#include "smbdfixture.h"
#include "serverprocess.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace
{

using namespace QvfsTest::ServerProcess;

constexpr const char *Smbd = "/usr/sbin/smbd";

// A program of the Samba tools, by its path; empty when it is not installed.
QString tool(const char *name)
{
    const QString n = QLatin1String(name);
    QString p = QStandardPaths::findExecutable(n);
    if (p.isEmpty())
        p = QStandardPaths::findExecutable(n, { QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin") });
    return p;
}

// Whether \a uid (group \a gid) can reach \a path: every folder on the way searchable.
bool reachable(const QByteArray &path, uid_t uid, gid_t gid)
{
    QByteArray p = path;
    while (!p.isEmpty()) {
        struct stat st;
        if (::stat(p.constData(), &st) != 0)
            return false;
        const mode_t bit = st.st_uid == uid ? S_IXUSR : st.st_gid == gid ? S_IXGRP : S_IXOTH;
        if (uid != 0 && !(st.st_mode & bit))
            return false;
        p.truncate(p.lastIndexOf('/'));
    }
    return true;
}

// Whether smbclient's share listing \a out has the disk share \a name.
bool listsShare(const QByteArray &out, const QByteArray &name)
{
    const QList<QByteArray> lines = out.split('\n');
    for (const QByteArray &line : lines) {
        const QList<QByteArray> words = line.simplified().split(' ');
        if (words.size() >= 2 && words.at(0) == name && words.at(1) == "Disk")
            return true;
    }
    return false;
}

// Runs \a program to its end with HOME set to \a home (so nothing reads or writes the
// real ~/.smb); its exit code, or -1.
int run(const QString &program, const QStringList &args, const QByteArray &home, QByteArray *out = nullptr,
    const QByteArray &input = {})
{
    return QvfsTest::ServerProcess::run(program, args, out, input, { "HOME=" + home }, 60000);
}

// Waits until no process names \a needle; false if some still do after \a ms.
bool waitUntilGone(const QByteArray &needle, int ms)
{
    const qint64 deadline = nowMs() + ms;
    while (!QvfsTest::SmbdFixture::processesMentioning(needle).isEmpty()) {
        if (nowMs() > deadline)
            return false;
        ::usleep(10000);
    }
    return true;
}

} // namespace

namespace QvfsTest
{

SmbdFixture::SmbdFixture() = default;

SmbdFixture::~SmbdFixture()
{
    stop();
}

bool SmbdFixture::available(QString *why)
{
    if (::access(Smbd, X_OK) != 0) {
        *why = QStringLiteral("%1 is missing (scripts/setup.sh --test installs samba)").arg(QLatin1String(Smbd));
        return false;
    }
    for (const char *name : { "smbclient", ::geteuid() == 0 ? "smbpasswd" : "pdbedit" }) {
        if (tool(name).isEmpty()) {
            *why = QStringLiteral("%1 is missing (scripts/setup.sh --test installs samba and smbclient)")
                       .arg(QLatin1String(name));
            return false;
        }
    }
    return true;
}

bool SmbdFixture::start(QString *error)
{
    stop();
    if (!available(error))
        return false;
    // As root smbd works on the share as "nobody"; otherwise it cannot switch users and
    // the only account it can serve is the one it runs as.
    const passwd *pw = ::geteuid() == 0 ? ::getpwnam("nobody") : ::getpwuid(::geteuid());
    if (!pw) {
        *error = QStringLiteral("no Unix account for the share (\"nobody\" when root)");
        return false;
    }
    m_user = pw->pw_name;
    m_uid = pw->pw_uid;
    m_gid = pw->pw_gid;
    m_password = "qvfs-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);

    // The account must reach the shares: TMPDIR may be a private folder.
    QByteArray base = QFile::encodeName(QDir::tempPath());
    if (!reachable(base, m_uid, m_gid))
        base = "/tmp";
    m_tmp.reset(new QTemporaryDir(QFile::decodeName(base) + QStringLiteral("/qvfs-smbd-XXXXXX")));
    if (!m_tmp->isValid()) {
        *error = QStringLiteral("cannot make a temporary folder");
        return false;
    }
    m_dir = QFile::encodeName(m_tmp->path());
    ::chmod(m_dir.constData(), 0755); // the share's account goes through it
    for (const char *sub : { "lock", "state", "cache", "run", "ncalrpc", "binddns", "usershares" })
        ::mkdir(QByteArray(m_dir + '/' + sub).constData(), 0755);
    ::mkdir(QByteArray(m_dir + "/private").constData(), 0700);
    for (const QByteArray &share : { sharePath(), guestPath() }) {
        if (::mkdir(share.constData(), 0755) != 0 || !handOver(share)) {
            *error = QStringLiteral("cannot make the share folder ") + QString::fromLocal8Bit(share);
            return false;
        }
    }
    m_port = freePort();
    writeConfig();
    if (!setPassword(error))
        return false;
    return startSmbd(error);
}

void SmbdFixture::writeConfig()
{
    const QByteArray d = m_dir;
    const QList<QByteArray> lines {
        "# A throwaway Samba server of the Qvfs tests (autotests/testutil/smbdfixture.cpp).",
        "[global]",
        "  server role = standalone server",
        "  workgroup = QVFSTEST",
        "  netbios name = QVFSSRV", // must differ from the workgroup
        "  smb ports = " + QByteArray::number(m_port),
        "  interfaces = 127.0.0.1",
        "  bind interfaces only = yes",
        "  disable netbios = yes",
        "  private dir = " + d + "/private",
        "  lock directory = " + d + "/lock",
        "  state directory = " + d + "/state",
        "  cache directory = " + d + "/cache",
        "  pid directory = " + d + "/run",
        "  ncalrpc dir = " + d + "/ncalrpc",
        "  binddns dir = " + d + "/binddns",
        "  usershare path = " + d + "/usershares",
        "  log file = " + d + "/log.%m",
        "  passdb backend = tdbsam:" + d + "/private/passdb.tdb",
        "  map to guest = Bad User",
        "  guest account = " + m_user,
        "  load printers = no",
        "  printing = bsd",
        "  printcap name = /dev/null",
        "  disable spoolss = yes",
        // Uploads keep the mode they were made with (not owner-executable for "archive").
        "  map archive = no",
        // For smbclient run with this file: no Kerberos tickets looked for.
        "  client use kerberos = off",
        "[share]",
        "  path = " + sharePath(),
        "  read only = no",
        "  valid users = " + m_user,
        "[guest]",
        "  path = " + guestPath(),
        "  read only = yes",
        "  guest ok = yes",
    };
    writeFile(configPath(), lines.join('\n') + '\n');
}

bool SmbdFixture::setPassword(QString *error)
{
    const QByteArray twice = m_password + '\n' + m_password + '\n';
    const QString conf = QString::fromLocal8Bit(configPath());
    const QString user = QString::fromLocal8Bit(m_user);
    QStringList args;
    QString program;
    if (::geteuid() == 0) {
        program = tool("smbpasswd");
        args = { QStringLiteral("-c"), conf, QStringLiteral("-a"), QStringLiteral("-s"), user };
    } else {
        // An unprivileged smbpasswd refuses -a; pdbedit writes the database directly.
        program = tool("pdbedit");
        args = { QStringLiteral("-s"), conf, QStringLiteral("-a"), QStringLiteral("-u"), user, QStringLiteral("-t") };
    }
    QByteArray out;
    const int rc = run(program, args, m_dir, &out, twice);
    if (rc != 0) {
        *error = QStringLiteral("cannot set the SMB password: ") + QString::fromLocal8Bit(out.simplified());
        return false;
    }
    return true;
}

bool SmbdFixture::startSmbd(QString *error)
{
    const QByteArray logPath = m_dir + "/smbd.log";
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (attempt > 0) {
            m_port = freePort();
            writeConfig();
        }
        const qsizetype logStart = log().size();
        // --no-process-group: the session of its own is the group it signals when it stops.
        m_smbdPid = spawnInOwnSession(
            { Smbd, "--foreground", "--no-process-group", "--debug-stdout", "-s", configPath() }, logPath);
        if (m_smbdPid < 0) {
            *error = QStringLiteral("cannot start smbd");
            return false;
        }
        bool listening = false;
        const qint64 deadline = nowMs() + 10000;
        while (!listening && nowMs() < deadline && !exited(m_smbdPid)) {
            listening = canConnect(m_port);
            if (!listening)
                ::usleep(10000);
        }
        // One share listing: it spawns samba-dcerpcd, so the tests' first one is quick.
        // It also proves that what listens is this smbd (another program may have taken
        // the port meanwhile).
        QByteArray out;
        if (listening
            && smbclient({ QStringLiteral("-L"), QStringLiteral("127.0.0.1"), QStringLiteral("-U"),
                             QString::fromLocal8Bit(m_user + '%' + m_password) },
                   &out)
                == 0
            && listsShare(out, "share") && listsShare(out, "guest") && !exited(m_smbdPid))
            return true;
        const QByteArray said = log().mid(logStart);
        const bool portTaken = said.contains("ADDRESS_ALREADY_ASSOCIATED") || said.contains("No sockets available")
            || said.contains("in use");
        ::kill(m_smbdPid, SIGTERM);
        reapOrKill(m_smbdPid, 5000);
        m_smbdPid = -1;
        if (!portTaken) {
            *error = QStringLiteral("smbd did not start: ")
                + QString::fromLocal8Bit(listening ? out.simplified() : said.simplified().right(2000));
            return false;
        }
    }
    *error = QStringLiteral("no free port for smbd");
    return false;
}

void SmbdFixture::stopDcerpcd()
{
    // samba-dcerpcd (spawned by smbd, reparented to init) and any helper with a pid file
    // of its own; pid files outlive their processes and PIDs wrap, so each is checked.
    const QByteArray conf = configPath();
    const QByteArray runDir = m_dir + "/run";
    DIR *d = ::opendir(runDir.constData());
    if (!d)
        return;
    while (dirent *e = ::readdir(d)) {
        const QByteArray name(e->d_name);
        if (!name.endsWith(".pid"))
            continue;
        const int pid = readFile(runDir + '/' + name).trimmed().toInt();
        if (pid > 1 && mentions(pid, conf))
            ::kill(pid, SIGTERM);
    }
    ::closedir(d);
}

void SmbdFixture::stop()
{
    if (m_smbdPid > 0) {
        ::kill(m_smbdPid, SIGTERM); // smbd passes it on to its process group
        reapOrKill(m_smbdPid, 5000);
        m_smbdPid = -1;
    }
    if (!m_dir.isEmpty()) {
        stopDcerpcd();
        // Then whatever still names our configuration (the rpcd_* helpers end with
        // samba-dcerpcd, smbd's children with smbd): asked first, killed after 5 s.
        const QByteArray conf = configPath();
        for (int pid : processesMentioning(conf))
            ::kill(pid, SIGTERM);
        if (!waitUntilGone(conf, 5000)) {
            for (int pid : processesMentioning(conf))
                ::kill(pid, SIGKILL);
            waitUntilGone(conf, 2000);
        }
    }
    m_tmp.reset();
    m_dir.clear();
    m_port = 0;
}

bool SmbdFixture::handOver(const QByteArray &path) const
{
    if (m_uid == ::geteuid())
        return true;
    return chownTree(path, m_uid, m_gid);
}

int SmbdFixture::smbclient(const QStringList &args, QByteArray *out) const
{
    QStringList all { QStringLiteral("-s"), QString::fromLocal8Bit(configPath()), QStringLiteral("-p"),
        QString::number(m_port) };
    all.append(args);
    return run(tool("smbclient"), all, m_dir, out);
}

QByteArray SmbdFixture::log() const
{
    return readFile(m_dir + "/smbd.log");
}

QList<int> SmbdFixture::processesMentioning(const QByteArray &needle)
{
    return ServerProcess::processesMentioning(needle);
}

} // namespace QvfsTest
