// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SFTPSESSION_H
#define QVFS_SFTPSESSION_H

#include "sftptypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace Qvfs::Sftp
{

class SessionPrivate;

/*!
 * One SFTP connection: the user's own OpenSSH client (`ssh -s HOST sftp`) runs as a
 * child process and this class speaks SFTP version 3 plus OpenSSH's extensions over its
 * pipes (the GVfs approach). Everything ssh_config, ssh-agent, known_hosts, FIDO keys and
 * certificates offer comes from OpenSSH; connections to one host are shared between
 * sessions (ControlMaster=auto, ControlPersist) so that N workers authenticate once.
 *
 * The engine is synchronous and single-threaded: each call runs its own poll() loop on
 * ssh's pipes until it is done, the server fails, the connection is lost or silent for
 * longer than Options::ioTimeoutMs, or the cancel callback says so. The cancel callback
 * is asked at least every 50 ms while a call waits (a worker sends its heartbeats from
 * there too); a cancelled call returns ErrCancelled within about 200 ms, after closing
 * its handles (and removing a temporary upload) as far as the server answers in that
 * time; what is left is finished by the next call or by disconnect(), since the server
 * executes requests in order.
 *
 * Prompts (password, key passphrase, keyboard-interactive, an unknown host key) reach
 * the ask callback through SSH_ASKPASS with SSH_ASKPASS_REQUIRE=force, pointing at the
 * small program qvfs-sftp-askpass, which relays the prompt over a socket in a private
 * (0700) runtime folder. A changed host key is never asked: it ends the connection with
 * Failure::HostKeyChanged.
 *
 * Reads and writes are pipelined: up to Options::maxRequests requests in flight, each as
 * large as the server's limits@openssh.com allow (32 KiB without the extension), short
 * reads re-requested; memory stays bounded by in-flight × request size.
 *
 * Paths are the server's raw bytes (never decoded); relative paths are relative to the
 * login folder (realPath(".") gives it).
 *
 * The callbacks a call takes (sinks, sources, progress, entry callbacks) run inside that
 * call's loop: they must not call the session themselves.
 *
 * Writing to ssh after it ended never raises SIGPIPE in the process: the engine blocks
 * the signal around its writes and swallows the one it caused.
 * \since 0.1
 */
class Session
{
public:
    /*! How the connection is made. Empty fields take the documented defaults. */
    struct Options
    {
        QByteArray host; //!< host name, address or ssh_config alias (required)
        QByteArray user; //!< empty: ssh_config's User, else the local user
        int port = 0; //!< 0: ssh_config's Port, else 22
        QByteArray sshProgram; //!< default: $QVFS_SSH_PROGRAM, else "ssh" from PATH
        /*!
         * An ssh_config file given to ssh with -F (then ~/.ssh/config and the system-wide
         * file are not read). Default: $QVFS_SSH_CONFIG, a test-only variable; empty:
         * ssh's usual files.
         */
        QByteArray configFile;
        /*!
         * The private folder for the control sockets, locks and the askpass socket;
         * created 0700 and refused when it is not ours. Default: $XDG_RUNTIME_DIR/qvfs-ssh,
         * else /tmp/qvfs-ssh-UID.
         */
        QByteArray runtimeDir;
        /*! The askpass relay. Default: qvfs-sftp-askpass beside the running program. */
        QByteArray askpassProgram;
        QList<QByteArray> environment; //!< "NAME=value" entries added to ssh's environment
        QList<QByteArray> sshOptions; //!< extra "-o" values ("Compression=yes")
        bool shareConnection = true; //!< ControlMaster=auto with ControlPersist
        int controlPersistSeconds = 60;
        int connectTimeoutSeconds = 10; //!< ssh's ConnectTimeout
        int serverAliveSeconds = 5; //!< ssh's ServerAliveInterval (ServerAliveCountMax 3)
        /*! A request unanswered this long (and no other byte from the server) fails. */
        int ioTimeoutMs = 20000;
        int maxRequests = 64; //!< reads or writes in flight per transfer (at least 1)
    };

    /*! Why a connection failed, beyond the error code (which has no "host key changed"). */
    enum class Failure {
        None,
        HostKeyChanged, //!< the server's key differs from the known one: never asked
        HostKeyUnknown, //!< unknown key refused (by the user, or by StrictHostKeyChecking)
        AuthenticationFailed,
        HostNotFound,
        ConnectionRefused,
        TimedOut,
        ConnectionLost, //!< ssh ended, or the server went away, after the connection was up
        NoSftpServer, //!< the server refused the sftp subsystem
        ProtocolError, //!< the server sent bytes that are not SFTP
        SshFailed, //!< ssh could not be started, or failed for another reason (see detail)
    };

    /*!
     * The outcome of a call: error 0 on success, else a Qvfs::Error code (error.h), the
     * raw path concerned (empty for connection errors), a detail text (the server's
     * status message, ssh's own message, or a translated sentence of ours) and, for
     * connection errors, the failure.
     */
    struct Result
    {
        int error = 0;
        QByteArray path;
        QString detail;
        Failure failure = Failure::None;
        bool ok() const { return error == 0; }
    };

    /*! A question ssh asks through askpass. */
    struct Prompt
    {
        enum Kind {
            Password, //!< "user@host's password:" or keyboard-interactive "Password:"
            Passphrase, //!< "Enter passphrase for key '...':"
            UnknownHostKey, //!< first connection to a host: accept its key?
            Other, //!< keyboard-interactive (one-time codes), a PIN, a confirmation
        };
        Kind kind = Other;
        QString text; //!< the prompt exactly as ssh wrote it
        QByteArray host; //!< the host the session connects to (as in Options)
        QByteArray user; //!< as in Options (may be empty)
        int port = 0; //!< as in Options (may be 0)
        QString keyType; //!< UnknownHostKey: "ED25519", ...
        QString fingerprint; //!< UnknownHostKey: "SHA256:..."
        QString keyFile; //!< Passphrase: the key file named in the prompt
        bool echo = false; //!< the answer is not secret (a yes/no or visible code)
        /*!
         * 1 the first time this prompt is asked in this connect(), 2 when ssh asks it
         * again (the previous answer was wrong: drop it from any cache), ...
         */
        int attempt = 1;
    };

    /*!
     * The answer to a Prompt. accepted=false cancels: connect() then ends ssh and returns
     * ErrCancelled (for UnknownHostKey: ErrUnknownHostKey with Failure::HostKeyUnknown).
     * For UnknownHostKey, accepted=true is "yes" (OpenSSH then records the key in the
     * known_hosts file itself); answer is ignored.
     */
    struct AskResult
    {
        bool accepted = false;
        QByteArray answer;
    };

    using AskCallback = std::function<AskResult(const Prompt &)>;
    /*! Returns true to stop the current call (the job was killed). */
    using CancelCallback = std::function<bool()>;
    /*!
     * Receives downloaded bytes in file order; the view is valid during the call only. It
     * may block (backpressure). Returns 0, or a Qvfs::Error code to stop the transfer with.
     */
    using Sink = std::function<int(QByteArrayView chunk)>;
    /*!
     * Fills \a buffer with up to \a capacity bytes to upload: returns how many (> 0), 0 at
     * the end, or a negative Qvfs::Error code (-ErrCannotRead) to stop with.
     */
    using Source = std::function<qint64(char *buffer, qint64 capacity)>;
    /*! Bytes transferred so far in the current call (acknowledged by the server for writes). */
    using Progress = std::function<void(quint64 bytes)>;

    /*! A directory entry handed to listDir()'s callback; views valid during the call only. */
    struct DirEntry
    {
        QByteArrayView name; //!< the server's bytes
        /*!
         * The server's `ls -l` line for the entry (version 3's longname): OpenSSH puts the
         * owner's and group's names there, which the attributes lack. Free-form text.
         */
        QByteArrayView longName;
        Attributes attrs; //!< lstat-like: a symlink is a symlink
        QByteArrayView linkTarget; //!< ResolveLinks: readlink() of a symlink
        Attributes targetAttrs; //!< ResolveLinks: stat() of what the symlink points at
        bool targetValid = false; //!< targetAttrs was filled (false: dangling link)
    };
    using EntryCallback = std::function<int(const DirEntry &entry)>;

    enum ListFlag {
        ResolveLinks = 0x1, //!< read each symlink's target and stat it (two requests per link)
        IncludeDotEntries = 0x2, //!< pass "." and ".." on too
    };

    /*! How put() and friends write their destination. */
    struct PutOptions
    {
        bool overwrite = false; //!< replace an existing destination (else ErrAlreadyExists)
        /*! The new file's permission bits; default: an existing destination's, else the server's default. */
        std::optional<quint32> permissions;
        std::optional<qint64> mtime; //!< modification time to set (seconds); default: now
        bool fsync = false; //!< fsync@openssh.com before the rename, where offered
        /*!
         * When set, receives whether the modification time of \a mtime was set (a server
         * may refuse it, which does not fail the upload); untouched without \a mtime.
         */
        bool *timesKept = nullptr;
    };

    /*! Counters for tests and benchmarks. */
    struct Statistics
    {
        quint64 requests = 0; //!< requests sent
        int peakInFlight = 0; //!< the most requests unanswered at once
    };

    Session();
    ~Session();
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    void setCancelCallback(CancelCallback callback);
    /*! Without a callback every prompt is refused. */
    void setAskCallback(AskCallback callback);

    /*!
     * Starts ssh and negotiates SFTP version 3 (then limits@openssh.com when offered).
     * Connections to the same (config, user, host, port) are made one at a time across
     * processes (a lock in the runtime folder), so that the first one authenticates and
     * becomes the ControlMaster and the others ride on it.
     *
     * Errors: ErrCannotAuthenticate, ErrHostNotFound, ErrConnectionFailed, ErrHostKeyChanged,
     * ErrUnknownHostKey, ErrTimedOut (the server: a worker reports it as ErrServerTimedOut), ErrCancelled,
     * ErrMalformedUrl (a host or user ssh would misread), ErrCannotCreateWorker (ssh or
     * the askpass relay cannot be started), ErrInternal (the runtime folder).
     */
    Result connect(const Options &options);
    /*!
     * Ends ssh: first waits (at most 2 s) for requests still unanswered, such as the
     * cleanup of a cancelled upload, then closes ssh's input, then terminates it.
     */
    void disconnect();
    /*! True between a successful connect() and disconnect() or a lost connection. */
    bool isConnected() const;

    quint32 serverVersion() const;
    /*! Whether the server announced \a name (any version we can use). */
    bool hasExtension(QByteArrayView name) const;
    Limits limits() const;
    /*! The size of each READ request / WRITE packet's data used in transfers. */
    quint32 readChunkSize() const;
    quint32 writeChunkSize() const;
    Statistics statistics() const;
    void resetStatistics();

    /*! Canonical absolute form of \a path (REALPATH); "." gives the login folder. */
    Result realPath(const QByteArray &path, QByteArray *resolved);
    /*! STAT (follows symlinks). */
    Result stat(const QByteArray &path, Attributes *attrs);
    /*! LSTAT (a symlink is reported as such). */
    Result lstat(const QByteArray &path, Attributes *attrs);
    /*!
     * Lists \a path, calling \a callback once per entry (in the server's order). A
     * callback returning non-zero stops the listing with that error. Readdir requests
     * are pipelined on OpenSSH servers.
     */
    Result listDir(const QByteArray &path, int flags, const EntryCallback &callback);
    /*! MKDIR; \a mode < 0: the server's default. ErrAlreadyExists when something is there. */
    Result mkdir(const QByteArray &path, int mode = -1);
    Result rmdir(const QByteArray &path);
    /*! Removes a file or symlink (REMOVE). */
    Result remove(const QByteArray &path);
    /*!
     * Renames \a from to \a to. With \a overwrite an existing \a to is replaced atomically
     * by posix-rename@openssh.com; a server without it gets the existing destination
     * renamed aside first, then removed (not atomic, but never both lost). Without
     * \a overwrite the standard RENAME is used, which fails on an existing destination
     * on OpenSSH (ErrAlreadyExists).
     */
    Result rename(const QByteArray &from, const QByteArray &to, bool overwrite);
    /*! Creates the symlink \a linkPath pointing at \a target (raw bytes, not resolved). */
    Result symlink(const QByteArray &target, const QByteArray &linkPath);
    Result readLink(const QByteArray &path, QByteArray *target);
    /*! hardlink@openssh.com; ErrUnsupportedAction without it. */
    Result hardlink(const QByteArray &from, const QByteArray &to);
    /*! SETSTAT with the fields flagged in \a attrs. */
    Result setStat(const QByteArray &path, const Attributes &attrs);
    /*!
     * SETSTAT on a symlink itself rather than what it points at (lsetstat@openssh.com);
     * ErrUnsupportedAction without the extension.
     */
    Result lsetStat(const QByteArray &path, const Attributes &attrs);
    Result setPermissions(const QByteArray &path, quint32 mode);
    /*! Sets the modification time (and the access time to the same, as version 3 needs both). */
    Result setModificationTime(const QByteArray &path, qint64 mtime);
    /*!
     * The names of the users \a uids and groups \a gids on the server
     * (users-groups-by-id@openssh.com), one per id in the same order, empty where the
     * server knows none. ErrUnsupportedAction without the extension.
     */
    Result userGroupNames(
        const QList<quint32> &uids, const QList<quint32> &gids, QList<QByteArray> *users, QList<QByteArray> *groups);
    /*! statvfs@openssh.com; ErrUnsupportedAction without it. */
    Result statVfs(const QByteArray &path, StatVfs *out);

    /*! OPEN with Packet::OpenFlag bits and initial attributes; the handle is opaque bytes. */
    Result open(const QByteArray &path, quint32 openFlags, const Attributes &attrs, QByteArray *handle);
    Result close(const QByteArray &handle);
    /*!
     * Sends CLOSE for \a handle without waiting for the answer (a file that was only read:
     * nothing to learn from it; the server runs requests in order).
     */
    void closeInBackground(const QByteArray &handle);
    Result fstat(const QByteArray &handle, Attributes *attrs);
    /*! fsync@openssh.com; ErrUnsupportedAction without it. */
    Result fsync(const QByteArray &handle);
    /*! One READ of at most readChunkSize() bytes; \a data is empty at the end of the file. */
    Result read(const QByteArray &handle, quint64 offset, quint32 length, QByteArray *data);
    /*! Writes \a data at \a offset (pipelined WRITE packets). */
    Result write(const QByteArray &handle, quint64 offset, QByteArrayView data);
    /*! FSETSTAT: sets the fields flagged in \a attrs on the open file \a handle (a size truncates). */
    Result fsetStat(const QByteArray &handle, const Attributes &attrs);
    /*!
     * Reads up to \a length bytes at \a offset into \a buffer: one READ per
     * readChunkSize() bytes, all in flight at once, short replies asked again for the rest.
     * \a *got receives how many bytes were read: fewer than \a length only when the file
     * ends first (0: \a offset is at or past the end).
     *
     * With \a readAhead > 0, a read that starts where the previous one ended also sends
     * the READs for the next \a readAhead pieces of \a length before it waits, and a
     * following read of exactly the next piece takes their answers: a file read in order
     * keeps the pipe full although each call asks for one piece. Any other request drops
     * the read-ahead (its replies are thrown away when they come); memory stays bounded
     * by \a readAhead pieces.
     */
    Result readAt(
        const QByteArray &handle, quint64 offset, char *buffer, quint32 length, quint32 *got, int readAhead = 0);

    /*!
     * Reads from \a offset to the end of the file into \a sink, pipelined.
     * \a sizeHint (from fstat; -1: unknown) keeps small files from being over-requested;
     * the file may still be longer. \a transferred receives the bytes delivered.
     * Errors: the server's (ErrCannotRead...), the sink's, ErrSourceChanged when the file
     * shrank in the middle, ErrCancelled, connection errors.
     */
    Result download(const QByteArray &handle, quint64 offset, const Sink &sink, const Progress &progress = {},
        quint64 *transferred = nullptr, qint64 sizeHint = -1);
    /*!
     * Writes everything \a source gives at \a offset onwards, pipelined; returns when the
     * server has acknowledged every write.
     */
    Result upload(const QByteArray &handle, quint64 offset, const Source &source, const Progress &progress = {},
        quint64 *transferred = nullptr);

    /*!
     * Downloads the file \a path into \a sink (open, fstat, download, close). \a attrs
     * receives the file's attributes (fstat), e.g. to set the local mtime.
     */
    Result get(const QByteArray &path, const Sink &sink, const Progress &progress = {}, Attributes *attrs = nullptr);
    /*!
     * Uploads \a source to \a path without ever leaving it half-written: the data goes to
     * a new file with a unique name in the same folder (".qvfs-XXXXXXXXXXXXXXXX.part",
     * created exclusively), which gets the permissions and mtime of \a options, then is
     * renamed into place (see rename() for what "atomic" means on which server; without
     * overwrite OpenSSH's RENAME fails on an existing destination, so no check-then-write
     * race). On any error or cancellation the temporary file is removed. A symlink at
     * \a path is replaced by the file, not written through.
     */
    Result put(const QByteArray &path, const PutOptions &options, const Source &source, const Progress &progress = {});
    /*! get() into the file descriptor \a fd (written from its current position). */
    Result downloadToFd(const QByteArray &path, int fd, const Progress &progress = {}, Attributes *attrs = nullptr);
    /*! put() from the file descriptor \a fd (read from its current position to its end). */
    Result uploadFromFd(int fd, const QByteArray &path, const PutOptions &options, const Progress &progress = {});
    /*!
     * Server-side copy of the file \a from to \a to with copy-data (in ranges, so that
     * each reply comes well within the timeout), through a temporary name as put() does.
     * ErrUnsupportedAction when the server does not offer copy-data.
     */
    Result copyFile(
        const QByteArray &from, const QByteArray &to, const PutOptions &options, const Progress &progress = {});

private:
    std::unique_ptr<SessionPrivate> d;
};

} // namespace Qvfs::Sftp

#endif
