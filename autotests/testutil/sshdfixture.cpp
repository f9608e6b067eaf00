// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sshdfixture.h"
#include "serverprocess.h"

#include <QFile>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

extern char **environ;

namespace
{

using namespace QvfsTest::ServerProcess;

constexpr const char *Sshd = "/usr/sbin/sshd";

// ssh refuses keys and configuration others may read: 0600, also for a file that was there.
bool writeSshFile(const QByteArray &path, const QByteArray &contents, int mode = 0600)
{
    return writeFile(path, contents, mode_t(mode)) && ::chmod(path.constData(), mode_t(mode)) == 0;
}

// Starts a long-running program with stdin/stdout/stderr on /dev/null.
int spawn(const QList<QByteArray> &argv, const QList<QByteArray> &extraEnv = {})
{
    std::vector<char *> args;
    for (const QByteArray &a : argv)
        args.push_back(const_cast<char *>(a.constData()));
    args.push_back(nullptr);
    std::vector<char *> env;
    for (char **e = environ; *e; ++e)
        env.push_back(*e);
    for (const QByteArray &e : extraEnv)
        env.push_back(const_cast<char *>(e.constData()));
    env.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? int(pid) : -1;
}

// pid → parent pid of every process.
std::map<int, int> parents()
{
    std::map<int, int> out;
    DIR *d = ::opendir("/proc");
    if (!d)
        return out;
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        const QByteArray stat = readFile(QByteArray("/proc/") + e->d_name + "/stat");
        const qsizetype close = stat.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> f = stat.mid(close + 2).split(' ');
        if (f.size() > 1)
            out[atoi(e->d_name)] = f.at(1).toInt();
    }
    ::closedir(d);
    return out;
}

} // namespace

SshdFixture::SshdFixture() = default;

const char *SshdFixture::baseDir()
{
    // tmpfs when there is room: disk writeback would make the figures noise.
    struct statfs fs;
    if (::statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC
        && quint64(fs.f_bavail) * quint64(fs.f_bsize) >= 2ULL * 1024 * 1024 * 1024 && ::access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    return "/tmp";
}

SshdFixture::~SshdFixture()
{
    stop();
}

bool SshdFixture::available(QString *why)
{
    for (const char *p : { Sshd, "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/ssh-agent", "/usr/bin/ssh-add" }) {
        if (::access(p, X_OK) != 0) {
            *why = QStringLiteral("%1 is missing (scripts/setup.sh --test installs openssh-server and openssh-client)")
                       .arg(QLatin1String(p));
            return false;
        }
    }
    if (::geteuid() != 0) {
        *why = QStringLiteral("sshd needs root to run here (privilege separation)");
        return false;
    }
    return true;
}

int SshdFixture::run(const QString &program, const QStringList &args, QByteArray *out, const QByteArray &input,
    const QList<QByteArray> &environment)
{
    return QvfsTest::ServerProcess::run(program, args, out, input, environment);
}

bool SshdFixture::start(QString *error)
{
    if (!available(error))
        return false;
    m_tmp.reset(new QTemporaryDir(QStringLiteral("%1/qvfs-sshd-XXXXXX").arg(QLatin1String(baseDir()))));
    if (!m_tmp->isValid()) {
        *error = QStringLiteral("cannot make a temporary folder");
        return false;
    }
    m_dir = QFile::encodeName(m_tmp->path());
    ::chmod(m_dir.constData(), 0755); // the password test's user must reach its home inside
    ::mkdir(dataDir().constData(), 0755);
    ::mkdir("/run/sshd", 0755); // sshd's privilege separation folder

    const auto keygen = [&](const QByteArray &path, const QByteArray &passphrase) {
        return run(QStringLiteral("ssh-keygen"),
                   { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                       QString::fromLatin1(passphrase), QStringLiteral("-C"), QStringLiteral("qvfs-test"),
                       QStringLiteral("-f"), QString::fromLocal8Bit(path) })
            == 0;
    };
    if (!keygen(m_dir + "/host_key", {}) || !keygen(m_dir + "/id_user", {})
        || !keygen(passphraseKeyPath(), passphrase())) {
        *error = QStringLiteral("ssh-keygen failed");
        return false;
    }
    m_hostKeyLine = readFile(m_dir + "/host_key.pub").trimmed();
    m_hostKeyLine = m_hostKeyLine.left(m_hostKeyLine.lastIndexOf(' ')); // without the comment
    QByteArray fp;
    run(QStringLiteral("ssh-keygen"),
        { QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"), QStringLiteral("-f"),
            QString::fromLocal8Bit(m_dir + "/host_key.pub") },
        &fp);
    const QList<QByteArray> fpFields = fp.split(' ');
    m_fingerprint = fpFields.value(1);
    if (!m_fingerprint.startsWith("SHA256:")) {
        *error = QStringLiteral("cannot read the host key's fingerprint: ") + QString::fromLocal8Bit(fp);
        return false;
    }
    writeSshFile(
        m_dir + "/authorized_keys", readFile(m_dir + "/id_user.pub") + readFile(passphraseKeyPath() + ".pub"), 0644);
    writeSshFile(knownHostsPath(), {});

    // The agent, with the key without passphrase.
    m_agentPid = spawn({ "ssh-agent", "-D", "-a", agentSocket() });
    const qint64 agentDeadline = nowMs() + 5000;
    struct stat st;
    while (::stat(agentSocket().constData(), &st) != 0 && nowMs() < agentDeadline)
        ::usleep(5000);
    if (m_agentPid < 0) {
        *error = QStringLiteral("cannot start ssh-agent");
        return false;
    }
    // The socket file appears at bind(), a moment before the agent listens: retry.
    QByteArray said;
    while (run(QStringLiteral("ssh-add"), { QStringLiteral("-q"), QString::fromLocal8Bit(m_dir + "/id_user") }, &said,
               {}, { "SSH_AUTH_SOCK=" + agentSocket() })
        != 0) {
        if (nowMs() > agentDeadline) {
            *error = QStringLiteral("ssh-add failed: ") + QString::fromLocal8Bit(said);
            return false;
        }
        ::usleep(20000);
    }
    return startSshd(error);
}

bool SshdFixture::startSshd(QString *error)
{
    for (int attempt = 0; attempt < 5; ++attempt) {
        m_port = freePort();
        const QByteArray config = "Port " + QByteArray::number(m_port) + "\nListenAddress 127.0.0.1\nHostKey " + m_dir
            + "/host_key\nPidFile " + m_dir + "/sshd.pid\nAuthorizedKeysFile " + m_dir
            + "/authorized_keys\n"
              "StrictModes no\n"
            + QByteArray(m_keyboardInteractive
                    ? "UsePAM yes\nPasswordAuthentication no\nKbdInteractiveAuthentication yes\n"
                    : "UsePAM no\nPasswordAuthentication yes\nKbdInteractiveAuthentication no\n")
            + "PermitRootLogin prohibit-password\nPubkeyAuthentication yes\nSubsystem sftp internal-sftp\n"
              "LogLevel INFO\nMaxSessions 64\nMaxStartups 64\nPrintMotd no\nAcceptEnv none\nUseDNS no\n";
        writeSshFile(m_dir + "/sshd_config", config);
        QByteArray out;
        if (run(QString::fromLatin1(Sshd),
                { QStringLiteral("-t"), QStringLiteral("-f"), QString::fromLocal8Bit(m_dir + "/sshd_config") }, &out)
            != 0) {
            *error = QStringLiteral("sshd -t refused the configuration: ") + QString::fromLocal8Bit(out);
            return false;
        }
        const qsizetype logStart = log().size();
        m_sshdPid = spawn({ Sshd, "-D", "-f", m_dir + "/sshd_config", "-E", m_dir + "/sshd.log" });
        if (m_sshdPid < 0) {
            *error = QStringLiteral("cannot start sshd");
            return false;
        }
        const qint64 deadline = nowMs() + 5000;
        while (nowMs() < deadline) {
            if (canConnect(m_port))
                return true;
            if (exited(m_sshdPid))
                break;
            ::usleep(5000);
        }
        const QByteArray said = log().mid(logStart);
        reapOrKill(m_sshdPid, 0);
        m_sshdPid = -1;
        if (!said.contains("Address already in use")) {
            *error = QStringLiteral("sshd did not start: ") + QString::fromLocal8Bit(said);
            return false;
        }
    }
    *error = QStringLiteral("no free port for sshd");
    return false;
}

bool SshdFixture::isRunning() const
{
    return m_sshdPid > 0;
}

void SshdFixture::killTree(int pid, int signal)
{
    if (pid <= 0)
        return;
    // The listener first (no new connections), then everything it forked.
    const std::map<int, int> ppid = parents();
    QList<int> tree { pid };
    for (qsizetype i = 0; i < tree.size(); ++i) {
        for (const auto &[child, parent] : ppid) {
            if (parent == tree.at(i))
                tree.append(child);
        }
    }
    for (int p : std::as_const(tree))
        ::kill(p, signal);
}

void SshdFixture::killServer()
{
    killTree(m_sshdPid, SIGKILL);
    reapOrKill(m_sshdPid, 1000);
    m_sshdPid = -1;
}

void SshdFixture::freezeServer(bool frozen)
{
    if (!frozen)
        killTree(m_sshdPid, SIGCONT);
    else
        killTree(m_sshdPid, SIGSTOP);
}

void SshdFixture::stop()
{
    if (m_sshdPid > 0) {
        killTree(m_sshdPid, SIGTERM);
        killTree(m_sshdPid, SIGCONT);
        reapOrKill(m_sshdPid, 2000);
        m_sshdPid = -1;
    }
    if (m_agentPid > 0) {
        ::kill(m_agentPid, SIGTERM);
        reapOrKill(m_agentPid, 2000);
        m_agentPid = -1;
    }
    if (!m_dir.isEmpty()) {
        // Connection masters of the sessions (ControlPersist) end with the server's
        // connection; any straggler that mentions our folder is ended here.
        const qint64 deadline = nowMs() + 3000;
        QList<int> left = processesMentioning(m_dir);
        while (!left.isEmpty() && nowMs() < deadline) {
            ::usleep(10000);
            left = processesMentioning(m_dir);
        }
        for (int pid : std::as_const(left))
            ::kill(pid, SIGKILL);
    }
    if (!m_user.isEmpty()) {
        run(QStringLiteral("userdel"), { QString::fromLatin1(m_user) });
        m_user.clear();
    }
    m_tmp.reset();
    m_dir.clear();
}

QByteArray SshdFixture::clientConfig(HostKeyCheck check, const QList<QByteArray> &extra)
{
    static int counter = 0;
    const QByteArray path = m_dir + "/ssh_config-" + QByteArray::number(++counter);
    // ssh takes the first value it reads: the test's own lines go first.
    QByteArray c = "Host *\n";
    bool ownIdentity = false;
    for (const QByteArray &line : extra) {
        c += "  " + line + '\n';
        ownIdentity = ownIdentity || line.startsWith("IdentityFile");
    }
    c += "  UserKnownHostsFile " + knownHostsPath()
        + "\n"
          "  GlobalKnownHostsFile /dev/null\n";
    if (!ownIdentity)
        c += "  IdentityFile " + m_dir + "/id_user\n";
    c += QByteArray("  CheckHostIP no\n"
                    "  HashKnownHosts no\n"
                    "  UpdateHostKeys no\n"
                    "  StrictHostKeyChecking ")
        + QByteArray(check == HostKeyCheck::Strict ? "yes" : "ask") + "\n";
    writeSshFile(path, c, 0600);
    if (check == HostKeyCheck::Trusted)
        writeSshFile(knownHostsPath(), "[127.0.0.1]:" + QByteArray::number(m_port) + ' ' + m_hostKeyLine + '\n');
    else
        writeSshFile(knownHostsPath(), {});
    return path;
}

bool SshdFixture::writeWrongHostKey()
{
    const QByteArray other = m_dir + "/other_key";
    ::unlink(other.constData());
    ::unlink(QByteArray(other + ".pub").constData());
    if (run(QStringLiteral("ssh-keygen"),
            { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
                QStringLiteral("-f"), QString::fromLocal8Bit(other) })
        != 0)
        return false;
    QByteArray line = readFile(other + ".pub").trimmed();
    line = line.left(line.lastIndexOf(' '));
    return writeSshFile(knownHostsPath(), "[127.0.0.1]:" + QByteArray::number(m_port) + ' ' + line + '\n');
}

bool SshdFixture::knownHostsHasServer() const
{
    QByteArray out;
    return run(QStringLiteral("ssh-keygen"),
               { QStringLiteral("-F"), QStringLiteral("[127.0.0.1]:%1").arg(m_port), QStringLiteral("-f"),
                   QString::fromLocal8Bit(knownHostsPath()) },
               &out)
        == 0
        && out.contains(m_hostKeyLine.split(' ').value(1));
}

QList<QByteArray> SshdFixture::agentEnvironment() const
{
    return { "SSH_AUTH_SOCK=" + agentSocket(), "HOME=" + m_dir };
}

QList<QByteArray> SshdFixture::noAgentEnvironment() const
{
    return { "SSH_AUTH_SOCK=", "HOME=" + m_dir };
}

QByteArray SshdFixture::newRuntimeDir()
{
    const QByteArray d = m_dir + "/run-" + QByteArray::number(++m_runtimeDirs);
    ::mkdir(d.constData(), 0700);
    return d;
}

QByteArray SshdFixture::log() const
{
    return readFile(m_dir + "/sshd.log");
}

int SshdFixture::countInLog(const QByteArray &needle) const
{
    int n = 0;
    const QList<QByteArray> lines = log().split('\n');
    for (const QByteArray &l : lines)
        n += l.contains(needle) ? 1 : 0;
    return n;
}

bool SshdFixture::createUser(const QByteArray &password, QByteArray *name, QString *error)
{
    if (::geteuid() != 0) {
        *error = QStringLiteral("creating a user needs root");
        return false;
    }
    if (!m_user.isEmpty()) {
        *name = m_user;
        return true;
    }
    const QByteArray user = "qvfst" + QByteArray::number(::getpid() % 100000) + QByteArray::number(m_port % 1000);
    const QByteArray home = m_dir + "/home-" + user;
    QByteArray out;
    if (run(QStringLiteral("useradd"),
            { QStringLiteral("-M"), QStringLiteral("-d"), QString::fromLocal8Bit(home), QStringLiteral("-s"),
                QStringLiteral("/bin/sh"), QString::fromLatin1(user) },
            &out)
        != 0) {
        *error = QStringLiteral("useradd failed: ") + QString::fromLocal8Bit(out);
        return false;
    }
    m_user = user;
    if (run(QStringLiteral("chpasswd"), {}, &out, user + ':' + password + '\n') != 0) {
        *error = QStringLiteral("chpasswd failed: ") + QString::fromLocal8Bit(out);
        return false;
    }
    ::mkdir(home.constData(), 0755);
    QByteArray ids;
    run(QStringLiteral("id"), { QStringLiteral("-u"), QString::fromLatin1(user) }, &ids);
    const uid_t uid = uid_t(ids.trimmed().toUInt());
    run(QStringLiteral("id"), { QStringLiteral("-g"), QString::fromLatin1(user) }, &ids);
    if (::chown(home.constData(), uid, gid_t(ids.trimmed().toUInt())) != 0) {
        *error = QStringLiteral("cannot give the home folder to the user");
        return false;
    }
    m_userHome = home;
    *name = user;
    return true;
}
