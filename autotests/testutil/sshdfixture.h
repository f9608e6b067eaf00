// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SSHDFIXTURE_H
#define QVFS_SSHDFIXTURE_H

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>

class QProcess;
class QTemporaryDir;

/*!
 * A real OpenSSH server on 127.0.0.1 for the tests, with everything a client needs,
 * all of it throwaway and inside one temporary folder (on tmpfs when possible):
 *
 * - /usr/sbin/sshd -D on a free port (retried when the port was taken meanwhile), with
 *   its own ed25519 host key, logging to a file (LogLevel INFO: one "Accepted ..." line
 *   per authentication), internal-sftp, StrictModes off (the folder is under /tmp);
 * - a user key (no passphrase) loaded into an ssh-agent the fixture starts, and a
 *   second key with a passphrase that is not loaded; both are authorised for every user;
 * - ssh_config files written on demand (known_hosts in the folder, the system-wide files
 *   never read), private runtime folders for the sessions' control sockets;
 * - for password tests, a local user made with useradd and chpasswd (needs root) and
 *   removed again by stop().
 *
 * stop() (also run by the destructor) kills sshd with every process it forked, the
 * agent, any ssh client still running from one of the fixture's folders (connection
 * masters), removes the user and the folder.
 */
class SshdFixture
{
public:
    enum class HostKeyCheck {
        Trusted, //!< known_hosts holds the server's key
        Ask, //!< known_hosts empty, StrictHostKeyChecking ask
        Strict, //!< known_hosts empty, StrictHostKeyChecking yes
    };

    SshdFixture();
    ~SshdFixture();
    SshdFixture(const SshdFixture &) = delete;
    SshdFixture &operator=(const SshdFixture &) = delete;

    /*!
     * Before start(): authenticate passwords through PAM's keyboard-interactive method
     * (UsePAM yes) instead of sshd's own password method.
     */
    void setKeyboardInteractive(bool on) { m_keyboardInteractive = on; }

    /*! Sets everything up; false with the reason in \a error. */
    bool start(QString *error);
    void stop();
    bool isRunning() const;

    /*! Where the temporary folder goes: /dev/shm when it is a tmpfs with room, else /tmp. */
    static const char *baseDir();

    /*! Whether this machine can run the fixture (sshd and the client tools installed). */
    static bool available(QString *why);

    int port() const { return m_port; }
    QByteArray host() const { return QByteArrayLiteral("127.0.0.1"); }
    /*! The temporary folder; tests may put server-side data under dataDir(). */
    QByteArray dir() const { return m_dir; }
    QByteArray dataDir() const { return m_dir + "/data"; }

    /*!
     * Writes an ssh_config for \a check and returns its path. \a extra lines come first
     * under "Host *" (ssh takes the first value it reads, so they win, e.g.
     * "StrictHostKeyChecking no"); an "IdentityFile" among them replaces the default key.
     * The known_hosts file is the fixture's: Trusted (re)writes it with the server's key,
     * Ask and Strict empty it.
     */
    QByteArray clientConfig(HostKeyCheck check, const QList<QByteArray> &extra = {});
    QByteArray knownHostsPath() const { return m_dir + "/known_hosts"; }
    /*! Puts a different key for this server into known_hosts (a "changed" key). */
    bool writeWrongHostKey();
    /*! The server key's fingerprint as ssh shows it ("SHA256:..."). */
    QByteArray hostKeyFingerprint() const { return m_fingerprint; }
    /*! Whether known_hosts holds a key for this server (ssh-keygen -F). */
    bool knownHostsHasServer() const;

    /*! "SSH_AUTH_SOCK=..." (and HOME) for the session's ssh. */
    QList<QByteArray> agentEnvironment() const;
    /*! The same without an agent, for password and passphrase tests. */
    QList<QByteArray> noAgentEnvironment() const;
    QByteArray agentSocket() const { return m_dir + "/agent.sock"; }
    QByteArray passphraseKeyPath() const { return m_dir + "/id_pass"; }
    QByteArray passphrase() const { return QByteArrayLiteral("correct horse battery"); }

    /*! A new private (0700) folder for control sockets: a fresh one has no master yet. */
    QByteArray newRuntimeDir();

    /*! sshd's log so far. */
    QByteArray log() const;
    /*! How many lines of the log contain \a needle. */
    int countInLog(const QByteArray &needle) const;

    /*!
     * Creates a local user with \a password and a home folder inside dir(); false (with
     * the reason) when not root or useradd fails. The user is removed by stop().
     */
    bool createUser(const QByteArray &password, QByteArray *name, QString *error);
    QByteArray userHome() const { return m_userHome; }

    /*! Kills sshd and every process it forked, at once (SIGKILL): a server that dies. */
    void killServer();
    /*! Stops (SIGSTOP) or resumes (SIGCONT) sshd and everything it forked: a server that hangs. */
    void freezeServer(bool frozen);

    /*! Runs a program to its end; returns its exit code (-1 if it did not run), output in \a out. */
    static int run(const QString &program, const QStringList &args, QByteArray *out = nullptr,
        const QByteArray &input = {}, const QList<QByteArray> &environment = {});

private:
    bool startSshd(QString *error);
    void killTree(int pid, int signal);

    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_dir;
    int m_port = 0;
    int m_sshdPid = -1;
    int m_agentPid = -1;
    int m_runtimeDirs = 0;
    bool m_keyboardInteractive = false;
    QByteArray m_fingerprint;
    QByteArray m_hostKeyLine; //!< the server's public key ("ssh-ed25519 AAAA...")
    QByteArray m_user;
    QByteArray m_userHome;
};

#endif
