// SPDX-License-Identifier: LGPL-2.1-or-later
// sftp://: the real sftp worker against a real OpenSSH server on 127.0.0.1, reached by the
// real OpenSSH client with a throwaway key in a throwaway agent. The server runs in the
// helper qvfs-test-sshd (testutil/sshdhelper.cpp), outside this process's children, since
// the suite checks after every row that no child process is left. The worker finds the
// fixture's ssh_config through QVFS_SSH_CONFIG (so the real ~/.ssh is never read), the
// agent through SSH_AUTH_SOCK and keeps its connection sockets under the fixture's folder
// (XDG_RUNTIME_DIR). One fresh folder per row on the server, seeded with raw system calls
// behind the server's back (sshd serves this machine's files).
#include "backend.h"

#include "localtree.h"
#include "rawfs.h"
#include "url.h"

#include <Qvfs/Job>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace
{

class SftpBackend : public QvfsConformance::Backend
{
public:
    ~SftpBackend() override { stopHelper(); }

    QByteArray name() const override { return QByteArrayLiteral("sftp"); }
    QString scheme() const override { return QStringLiteral("sftp"); }
    Capabilities capabilities() const override
    {
        return List | Stat | Read | Write | Mkdir | Delete | Rename | Seed | RawNames;
    }

    bool start(QByteArray *why) override
    {
        if (!startHelper(why))
            return false;
        for (const char *name : { "QVFS_SSH_CONFIG", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "HOME" })
            m_savedEnv.append({ name, qgetenv(name), qEnvironmentVariableIsSet(name) });
        const QByteArray runtime = m_dir + "/xdg-runtime";
        QvfsTest::mkdirRaw(runtime, 0700);
        Qvfs::shutdownIdleWorkers(); // a worker that started before would not see these
        qputenv("QVFS_SSH_CONFIG", m_config);
        qputenv("SSH_AUTH_SOCK", m_dir + "/agent.sock");
        qputenv("XDG_RUNTIME_DIR", runtime);
        qputenv("HOME", m_dir);
        return true;
    }

    void stop() override
    {
        Qvfs::shutdownIdleWorkers();
        for (const auto &[name, value, set] : std::as_const(m_savedEnv)) {
            if (set)
                qputenv(name, value);
            else
                qunsetenv(name);
        }
        m_savedEnv.clear();
        stopHelper();
    }

    bool beginRow(QByteArray *why) override
    {
        m_row = "row-" + QByteArray::number(++m_rows);
        if (!QvfsTest::mkdirRaw(rowPath())) {
            *why = "cannot make the row's folder " + rowPath();
            return false;
        }
        return true;
    }
    void endRow() override { QvfsTest::removeTreeRaw(rowPath()); }

    bool seed(const QvfsConformance::Tree &tree, QByteArray *why) override
    {
        return QvfsConformance::seedLocal(rowPath(), tree, why);
    }

    QUrl url(QByteArrayView rel) const override
    {
        QUrl root;
        root.setScheme(QStringLiteral("sftp"));
        root.setUserName(QStringLiteral("root"));
        root.setHost(QStringLiteral("127.0.0.1"));
        root.setPort(m_port);
        root.setPath(QStringLiteral("/"));
        const QUrl row = Qvfs::Url::child(root, rowPath().mid(1));
        return rel.isEmpty() ? row : Qvfs::Url::child(row, rel);
    }

private:
    QByteArray rowPath() const { return m_dir + "/data/" + m_row; }

    bool startHelper(QByteArray *why)
    {
        const QByteArray program = QFile::encodeName(QCoreApplication::applicationDirPath()) + "/qvfs-test-sshd";
        if (::access(program.constData(), X_OK) != 0) {
            *why = program + " is not built";
            return false;
        }
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
            *why = "pipe failed";
            return false;
        }
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        char *argv[] = { const_cast<char *>(program.constData()), nullptr };
        pid_t pid = -1;
        const int rc = posix_spawn(&pid, program.constData(), &fa, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        m_toHelper = in[1];
        m_fromHelper = out[0];
        if (rc != 0) {
            *why = "cannot start " + program;
            stopHelper();
            return false;
        }
        int status = 0;
        ::waitpid(pid, &status, 0); // it forked: the fixture lives on in its child
        // "ok PORT DIR CONFIG" or "error WHY"
        QByteArray line;
        QElapsedTimer t;
        t.start();
        while (!line.contains('\n') && t.elapsed() < 60000) {
            pollfd p { m_fromHelper, POLLIN, 0 };
            if (::poll(&p, 1, 1000) <= 0)
                continue;
            char buf[1024];
            const ssize_t n = ::read(m_fromHelper, buf, sizeof buf);
            if (n <= 0)
                break;
            line.append(buf, n);
        }
        line = line.left(line.indexOf('\n'));
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 4 || f.at(0) != "ok") {
            *why = line.isEmpty() ? QByteArray("the sshd fixture did not start") : line.mid(line.indexOf(' ') + 1);
            stopHelper();
            return false;
        }
        m_port = f.at(1).toInt();
        m_dir = f.at(2);
        m_config = f.at(3);
        return true;
    }

    void stopHelper()
    {
        if (m_toHelper >= 0) {
            ::close(m_toHelper); // the helper stops the fixture, then closes its output
            m_toHelper = -1;
        }
        if (m_fromHelper >= 0) {
            QElapsedTimer t;
            t.start();
            while (t.elapsed() < 15000) {
                pollfd p { m_fromHelper, POLLIN, 0 };
                if (::poll(&p, 1, 500) <= 0)
                    continue;
                char buf[256];
                if (::read(m_fromHelper, buf, sizeof buf) <= 0)
                    break;
            }
            ::close(m_fromHelper);
            m_fromHelper = -1;
        }
    }

    struct SavedEnv
    {
        const char *name;
        QByteArray value;
        bool set;
    };
    QList<SavedEnv> m_savedEnv;
    int m_toHelper = -1;
    int m_fromHelper = -1;
    int m_port = 0;
    QByteArray m_dir;
    QByteArray m_config;
    QByteArray m_row;
    int m_rows = 0;
};

} // namespace

QVFS_CONFORMANCE_BACKEND(SftpBackend, "sftp");
