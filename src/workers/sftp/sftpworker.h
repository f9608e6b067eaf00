// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SFTPWORKER_H
#define QVFS_SFTPWORKER_H

#include "sftpsession.h"
#include "workerbase.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QUrl>

namespace Qvfs
{

/*!
 * The sftp:// worker: the hooks of WorkerBase on one Qvfs::Sftp::Session (the user's own
 * OpenSSH client speaking SFTP version 3 and OpenSSH's extensions).
 *
 * One session per worker, connected at the first command for the host setHost() names
 * (user and port from the URL, else from ssh_config), dropped in closeConnection(), and
 * connected again when the engine reports the connection gone. ssh's prompts become the
 * job's questions: passwords, passphrases and keyboard-interactive codes through
 * askPassword() (realm "ssh"), an unknown host key through askTrust(); a changed host key
 * is refused by OpenSSH and reported as ErrHostKeyChanged. The engine polls by itself and
 * asks wasKilled() at least every 50 ms, which also sends the heartbeats.
 *
 * URL paths are the server's absolute paths, percent-decoded to raw bytes; an empty path
 * is the login folder. Names in listings are the server's bytes.
 *
 * Split by subject: sftpworker.cpp (connection, prompts, errors, listings and stat),
 * sftpworker_ops.cpp (transfers and single operations), sftpcopybackend.cpp (copies and
 * moves inside the server with copy-data), sftpworker_local.cpp (copies to and from local
 * files), sftpworker_open.cpp (random access: an open remote handle).
 */
class SftpWorker : public WorkerBase
{
public:
    SftpWorker();
    ~SftpWorker() override;

    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult mkdir(const MkdirRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult rename(const RenameRequest &request) override;
    WorkerResult copy(const CopyRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult put(const PutRequest &request) override;
    WorkerResult symlink(const SymlinkRequest &request) override;
    WorkerResult chmod(const ChmodRequest &request) override;
    WorkerResult setModificationTime(const SetTimeRequest &request) override;
    WorkerResult directorySize(const DirectorySizeRequest &request) override;
    WorkerResult freeSpace(const FreeSpaceRequest &request) override;
    WorkerResult copyToFile(const FileCopyRequest &request) override;
    WorkerResult copyFromFile(const FileCopyRequest &request) override;

protected:
    // ---- random access (sftpworker_open.cpp)
    WorkerResult openFile(const OpenRequest &request, OpenedFile *file) override;
    WorkerResult readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead) override;
    WorkerResult writeAt(qint64 offset, QByteArrayView data) override;
    WorkerResult append(QByteArrayView data, qint64 *offset) override;
    WorkerResult truncate(qint64 length) override;
    WorkerResult fileSize(qint64 *size) override;
    WorkerResult closeFile() override;

    void setHost(const QUrl &host) override;
    void closeConnection() override;

private:
    using Result = Sftp::Session::Result;
    friend class SftpCopyBackend;

    // ---- connection (sftpworker.cpp)
    /*! Connects unless connected; \a fresh (optional) says whether this call connected. */
    WorkerResult ensureConnected(bool *fresh = nullptr);
    Sftp::Session::AskResult answerPrompt(const Sftp::Session::Prompt &prompt);
    /*! Whether \a r says the connection went away (worth one new connection when it was idle). */
    static bool connectionLost(const Result &r);

    // ---- paths and errors (sftpworker.cpp)
    /*!
     * The server path of \a url (raw bytes, absolute, no trailing slash but for "/"); an
     * empty URL path is the login folder (which needs the connection).
     */
    WorkerResult serverPath(const QUrl &url, QByteArray *path);
    /*! Connects unless connected, then serverPath(); \a fresh (optional) as ensureConnected(). */
    WorkerResult connectedPath(const QUrl &url, QByteArray *path, bool *fresh = nullptr);
    /*!
     * connectedPath() for a listing or a stat: an empty URL path (the login folder) is
     * also told to the application as a redirection() to its server path.
     */
    WorkerResult connectedRedirectedPath(const QUrl &url, QByteArray *path, bool *fresh);
    /*!
     * connectedPath(), then the attributes of the entry \a path itself (a symlink is not
     * followed) into \a attrs; a failed lstat is the hook's answer about \a url.
     */
    WorkerResult connectedLstat(const QUrl &url, QByteArray *path, Sftp::Attributes *attrs);
    /*!
     * Connects, finds the server path of \a url (into \a path) and stats it, following a
     * link as open(2) would, into \a attrs; a connection found dead is made once more. A
     * failure to connect or to name the path is returned; the stat's own result goes to
     * \a statResult for the caller to judge. Everything that opens a file stats first:
     * opening a fifo would block the server's sftp process for good.
     */
    WorkerResult statBeforeOpen(const QUrl &url, QByteArray *path, Sftp::Attributes *attrs, Result *statResult);
    /*!
     * statBeforeOpen() for reading the file \a url whole (get, copyToFile): fails, naming
     * \a url, unless the stat passed and found a file (a folder: ErrIsDirectory, a fifo or
     * device: ErrCannotRead). SFTP has no file identity: \a expected cannot be checked.
     */
    WorkerResult statForReading(
        const QUrl &url, const FileIdentity &expected, QByteArray *path, Sftp::Attributes *attrs);
    /*! The URL of the server path \a path on the current host. */
    QUrl urlOf(QByteArrayView path) const;
    /*! The worker's answer for a failed engine call about \a url (or the path the engine names). */
    WorkerResult fail(const Result &r, const QUrl &url);

    // ---- entries (sftpworker.cpp)
    /*! Adds one entry named \a name from \a attrs (\a target: the symlink's target, if read). */
    void addEntry(QByteArrayView name, const Sftp::Attributes &attrs, Details details, const QByteArrayView *target,
        QByteArrayView longName = {});
    /*! Remembers the user and group names of \a longName (OpenSSH's `ls -l` line) for \a attrs' ids. */
    void learnNames(QByteArrayView longName, const Sftp::Attributes &attrs);
    /*! Asks the server for the names of \a attrs' ids not known yet (where it offers that). */
    void lookUpNames(const Sftp::Attributes &attrs);

    // ---- writing files (sftpworker_ops.cpp)
    /*!
     * The engine's options for writing a file as a request asks: \a overwrite, the
     * \a permissions (-1: the server's default) and the modification time \a mtime (-1: none;
     * else \a timesKept learns whether the server kept it).
     */
    static Sftp::Session::PutOptions putOptions(bool overwrite, int permissions, qint64 mtime, bool *timesKept);

    // ---- walks (sftpworker_ops.cpp)
    struct TreeCounts
    {
        qint64 bytes = 0;
        qint64 files = 0;
        qint64 folders = 0;
    };
    /*! Counts what the folder \a path holds (not following symlinks), reporting progress when \a report. */
    Result countTree(const QByteArray &path, TreeCounts *counts, bool report);
    /*! Deletes the folder \a path and everything inside; \a removed counts the entries that went. */
    Result removeTree(const QByteArray &path, qint64 *removed);
    /*! The names (and attributes) in \a path, without "." and "..", or an error. */
    Result readFolder(const QByteArray &path, QList<std::pair<QByteArray, Sftp::Attributes>> *entries);

    Sftp::Session m_session;
    QUrl m_host; //!< scheme, user, host and port of the current host
    QByteArray m_loginUser; //!< a user the person answered a password question with (URL without a user)
    QByteArray m_loginPassword; //!< that answer's password, for the new connection's first prompt
    QByteArray m_home; //!< the login folder, once asked
    bool m_promptUnanswered = false; //!< a question of the current connection attempt went unanswered
    QHash<quint32, QByteArray> m_userNames; //!< uid → name, learnt from listings
    QHash<quint32, QByteArray> m_groupNames;
    bool m_namesUnsupported = false; //!< the server has no users-groups-by-id
    QByteArray m_openHandle; //!< the remote handle of the open file (openFile()), empty when none
    QUrl m_openUrl;
    bool m_openWrite = false;
};

} // namespace Qvfs

#endif
