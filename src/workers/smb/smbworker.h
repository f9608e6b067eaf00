// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SMBWORKER_H
#define QVFS_SMBWORKER_H

#include "smbcontext_p.h"
#include "workerbase.h"

#include <QByteArray>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

struct stat;

namespace Qvfs
{

/*!
 * The smb:// worker: Windows shares and Samba servers through libsmbclient (SMB2/3).
 *
 * URLs: smb://host/ lists the host's disk shares (as folders; IPC$ and printers are left
 * out), smb://host/share/path the files and folders of a share. The user is the URL's
 * ("smb://user@host", "smb://DOMAIN;user@host", "smb://DOMAIN%5Cuser@host"), "guest" logs
 * in anonymously; the password is the URL's, else asked with askPassword() (realm "smb",
 * so the application's credential cache answers for every job and worker), and asked
 * again when the server refuses it. Names are UTF-8.
 *
 * What SMB cannot tell is not invented: no owner and no permission bits (libsmbclient
 * makes them up from DOS attributes); hidden files are reported as hidden. Copies and
 * moves inside one server go through TreeCopy (smbcopybackend.cpp): a file is copied by
 * the server (SMB2 copychunk, smbc_splice), a move is a rename.
 *
 * Split by subject: smbworker.cpp (connection, credentials, errors, listings and stat),
 * smbworker_ops.cpp (transfers and single operations), smbworker_open.cpp (random access),
 * smbcopybackend.cpp (copies inside a server), smbworker_watch.cpp and smbnotifier.cpp
 * (watching), smbcontext.cpp (the libsmbclient context).
 */
class SmbWorker : public WorkerBase
{
public:
    SmbWorker();
    ~SmbWorker() override;

    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult mkdir(const MkdirRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult rename(const RenameRequest &request) override;
    WorkerResult copy(const CopyRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult put(const PutRequest &request) override;
    WorkerResult setModificationTime(const SetTimeRequest &request) override;
    WorkerResult directorySize(const DirectorySizeRequest &request) override;
    WorkerResult freeSpace(const FreeSpaceRequest &request) override;
    WorkerResult copyToFile(const FileCopyRequest &request) override;
    WorkerResult copyFromFile(const FileCopyRequest &request) override;
    // ---- watching (smbworker_watch.cpp)
    WorkerResult watch(const WatchRequest &request) override;
    void unwatch(quint32 id) override;
    void watchEvent() override;

protected:
    // ---- random access (smbworker_open.cpp)
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
    friend class SmbCopyBackend;
    struct Watch; // smbwatch_p.h
    struct Watches;

    /*! One entry of a folder, from readdirplus2 (or a share from readdir). */
    struct DirEntry
    {
        QByteArray name;
        bool isFolder = false;
        bool hidden = false;
        bool readOnly = false;
        qint64 size = 0;
        struct timespec mtime = {};
        struct timespec atime = {};
        struct timespec btime = {};
    };

    // ---- connection and errors (smbworker.cpp)
    /*! Makes the context on first use. */
    WorkerResult ensureContext();
    /*!
     * Runs \a call (a libsmbclient call: negative with errno set on failure) about \a url,
     * logging in again when the server refused the credentials: asks for a password once
     * more, up to three times. Failures are mapped by fail().
     */
    WorkerResult run(const QUrl &url, int op, const std::function<int()> &call);
    /*! The error for \a err (an errno value) about \a url while doing \a op (FileOps::Operation). */
    WorkerResult fail(int err, const QUrl &url, int op);
    /*! The credentials for the current host, asked for when not known. */
    Smb::Login loginFor(const char *server, const char *share);
    /*! Whether the last failed call of run() was a refused login (not a denied file). */
    bool loginRefused(int err) const;
    QByteArray lib(const QUrl &url) const { return Smb::Context::libraryUrl(url); }
    /*! Whether \a url names the host itself (smb://host/), where the shares are. */
    static bool isHostRoot(const QUrl &url);

    // ---- folders (smbworker.cpp)
    /*! Reads the folder \a url, calling \a onEntry for each entry ("." and ".." left out). */
    WorkerResult readFolder(const QUrl &url, const std::function<bool(const DirEntry &)> &onEntry);
    WorkerResult statEntry(const QUrl &url, struct stat *st);
    /*!
     * \a e from \a st, a libsmbclient stat: a file's hidden attribute as the library
     * encodes it in the mode (a folder's cannot be told from it).
     */
    static void entryFromStat(const struct stat &st, DirEntry *e);
    void addEntry(QByteArrayView name, const DirEntry &e, Details details);

    // ---- trees (smbworker_ops.cpp)
    struct TreeCounts
    {
        qint64 bytes = 0;
        qint64 files = 0;
        qint64 folders = 0;
    };
    WorkerResult countTree(const QUrl &url, TreeCounts *counts, bool report);
    WorkerResult removeTree(const QUrl &url, qint64 *removed);
    /*!
     * Makes sure of the context (ensureContext()), then opens the file \a url for reading
     * into \a file (made here: it closes through the context) and fills \a st (a folder:
     * ErrIsDirectory).
     */
    WorkerResult openForReading(const QUrl &url, std::optional<Smb::File> *file, struct stat *st);
    /*! Opens \a path (default: \a url) with \a flags into \a file, through run(); errors name \a url. */
    WorkerResult openRemote(const QUrl &url, int flags, SMBCFILE **file, const QUrl &path = {});
    /*!
     * Reads the open \a file from \a offset (-1: from where it is, on this connection
     * alone) to its end, in large pieces given to \a sink in order (whose failure ends
     * the read); a kill is noticed after each piece. A file of known \a size more than a
     * chunk past \a offset is read over several connections (smblane_p.h). Errors name \a url.
     */
    WorkerResult readToEnd(SMBCFILE *file, const QUrl &url, qint64 offset, qint64 size,
        const std::function<WorkerResult(QByteArrayView)> &sink);
    /*!
     * Writes \a url through a temporary beside it: \a fill writes the open temporary
     * (\a temp), which is then closed, given \a times (access, modification; null: left
     * as they are; \a timesKept says whether that worked) and renamed into place
     * (ErrAlreadyExists naming \a url when something is there without \a overwrite). On
     * any failure the temporary goes: \a url is complete or as it was.
     */
    WorkerResult writeReplacing(const QUrl &url, bool overwrite, const struct timeval *times, bool *timesKept,
        const std::function<WorkerResult(SMBCFILE *out, const QUrl &temp)> &fill);
    /*!
     * Writes \a url from what \a pull gives (the bytes it put into its buffer of the
     * given room, 0 at the end, a negative error code to stop), through
     * writeReplacing(). \a mtime (seconds, -1: now) and \a size (-1: unknown) as put's.
     * More than a chunk goes over several connections (smblane_p.h).
     */
    WorkerResult upload(const QUrl &url, bool overwrite, qint64 mtime, qint64 size,
        const std::function<qint64(char *into, qint64 room)> &pull);
    /*! Renames \a from to \a to (one server call; \a overwrite: replacing what is there). */
    WorkerResult renameEntry(const QUrl &from, const QUrl &to, bool overwrite);

    // ---- watching (smbworker_watch.cpp)
    /*! Starts \a w's notifier with the current login and waits until it is watching. */
    WorkerResult startNotifier(Watch &w);
    /*! Stops \a w's notifier; the next flush looks at its folder and starts it again. */
    void stopNotifier(Watch &w);
    /*! Reads what \a w's notifier said. */
    void readNotifier(Watch &w);
    /*! Reports what the watches collected: each changed name looked at once. */
    void flushWatches();

    // ---- random access (smbworker_open.cpp)
    WorkerResult seekOpen(qint64 offset, int whence, qint64 *at);
    WorkerResult writeAll(QByteArrayView data);

    Smb::Context m_ctx;
    QUrl m_host; //!< scheme, user, host and port of the current host
    Smb::Login m_login;
    bool m_haveLogin = false; //!< m_login holds credentials to try
    bool m_askAgain = false; //!< the server refused the last ones: ask, not the cache
    bool m_unanswered = false; //!< nobody answered the password question
    QByteArray m_authServer; //!< what the last authentication was for
    QByteArray m_authShare;
    SMBCFILE *m_open = nullptr; //!< the file openFile() opened
    QUrl m_openUrl;
    bool m_openAppend = false;
    std::unique_ptr<Watches> m_watches;
};

} // namespace Qvfs

#endif
