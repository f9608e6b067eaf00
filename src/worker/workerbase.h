// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERBASE_H
#define QVFS_WORKERBASE_H

#include "error.h"
#include "field.h"
#include "metadata.h"
#include "questions.h"
#include "qvfsworker_export.h"
#include "requests.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QUrl>

#include <functional>
#include <memory>

namespace Qvfs
{

/*!
 * The outcome of a worker hook: pass, or an error code with arguments (usually the URL
 * concerned, fully encoded). The application turns it into translated text.
 * Must be checked: hooks return it, the base class sends it.
 * \since 0.1
 */
class [[nodiscard]] WorkerResult
{
public:
    /*! Success. */
    static WorkerResult pass() { return WorkerResult(); }
    /*! Failure with \a code (a Qvfs::Error) and up to a few arguments. */
    static WorkerResult fail(int code, const QByteArray &arg1 = {}, const QByteArray &arg2 = {})
    {
        WorkerResult r;
        r.m_code = code;
        if (!arg1.isNull())
            r.m_args.append(arg1);
        if (!arg2.isNull())
            r.m_args.append(arg2);
        return r;
    }
    /*! Failure about \a url (sent fully encoded). */
    static WorkerResult fail(int code, const QUrl &url) { return fail(code, url.toEncoded()); }
    bool ok() const noexcept { return m_code == 0; }
    int code() const noexcept { return m_code; }
    const QList<QByteArray> &args() const noexcept { return m_args; }

private:
    int m_code = 0;
    QList<QByteArray> m_args;
};

class WorkerBasePrivate;

/*!
 * The base of every worker process: the dispatch loop, batching of entries, streaming,
 * progress, questions to the application, kill and suspend handling.
 *
 * A worker is one executable per protocol with a JSON description beside it (see the
 * README's "Writing a worker"); its main() makes the worker object and returns exec().
 * It implements the hooks its description declares; the others answer
 * ErrUnsupportedAction (and the application does not send those commands anyway).
 *
 * Threading and blocking: hooks run one at a time on the main thread and may block;
 * while one runs, the base class still reads the socket for kill, suspend/resume and
 * answers (never a new command) whenever the hook sends something or calls wasKilled().
 * Event-driven code (Qt Network, QProcess) runs inside a hook through waitUntil(), which
 * spins a QEventLoop (on the QCoreApplication the EventLoop option makes) and still
 * notices a kill within 100 ms and sends heartbeats.
 *
 * Connections: the base class tells the worker which host it serves before each command
 * whose URL names another one (setHost()), and when to drop a connection
 * (closeConnection(): another host, or the application going away).
 * \since 0.1
 */
class QVFSWORKER_EXPORT WorkerBase
{
public:
    /*! What the worker needs from its process. */
    enum Option {
        NoOptions = 0,
        /*!
         * A QCoreApplication made by exec() before the first command, for Qt's
         * event-driven classes (QNetworkAccessManager, QTimer, QProcess) and waitUntil().
         * Without it a worker starts faster: the file worker needs none.
         */
        EventLoop = 0x1,
    };
    Q_DECLARE_FLAGS(Options, Option)

    /*! \a protocol is the scheme this worker serves (for messages and logs). */
    explicit WorkerBase(const QByteArray &protocol, Options options = NoOptions);
    virtual ~WorkerBase();
    WorkerBase(const WorkerBase &) = delete;
    WorkerBase &operator=(const WorkerBase &) = delete;

    /*! What a hook reports with setResult(). */
    enum class ResultKey {
        Removed, //!< entries a delete removed
        Bytes, //!< bytes of a directory size
        Files, //!< files (non-folders) of a directory size
        Folders, //!< folders of a directory size
        SkippedFolders, //!< folders a recursive listing could not enter
        TimesKept, //!< 1 when an upload kept the modification time asked for, 0 when it could not
        Device, //!< with Inode: the identity of what a mkdir created (see FileIdentity)
        Inode,
        SpaceTotal, //!< bytes of a free-space answer: the size of the filesystem or storage
        SpaceFree, //!< bytes not in use (some may be reserved for the administrator)
        SpaceAvailable, //!< bytes the user of the request may still write
        SpaceUsed, //!< bytes in use, when the protocol says so itself (else the application takes total - free)
    };

    /*!
     * Runs the worker: expects "--fd N" in \a argv (the inherited socket). Returns the
     * process exit code: 0 when the application closed the connection. Also opens
     * /dev/null onto any closed standard descriptor first, and raises the open-file soft
     * limit to the hard limit (deep trees).
     */
    int exec(int argc, char **argv);

protected:
    // ---- hooks: one per command (see requests.h) ----
    /*! Lists a folder; each entry via beginEntry()/endEntry(). Recursive: relative paths in Name. */
    virtual WorkerResult listDir(const ListRequest &request);
    /*! Describes one URL: exactly one entry via beginEntry()/endEntry(). */
    virtual WorkerResult stat(const StatRequest &request);
    virtual WorkerResult mkdir(const MkdirRequest &request);
    /*! Deletes; reports how many entries went with setResult(Removed, n). */
    virtual WorkerResult del(const DeleteRequest &request);
    virtual WorkerResult rename(const RenameRequest &request);
    /*! Copies or moves between URLs of this worker's host; reportItem() per entry when asked. */
    virtual WorkerResult copy(const CopyRequest &request);
    /*! Streams the content with data(), mimeType() first. */
    virtual WorkerResult get(const GetRequest &request);
    /*! Writes from readData(); the destination appears only once complete. */
    virtual WorkerResult put(const PutRequest &request);
    virtual WorkerResult symlink(const SymlinkRequest &request);
    virtual WorkerResult chmod(const ChmodRequest &request);
    virtual WorkerResult setModificationTime(const SetTimeRequest &request);
    /*! Counts files, folders and bytes: setResult(Bytes/Files/Folders, n). */
    virtual WorkerResult directorySize(const DirectorySizeRequest &request);
    /*!
     * The size and free space of the filesystem (or storage quota) holding \a request.url:
     * setResult(SpaceTotal/SpaceFree/SpaceAvailable, bytes) for each figure the protocol
     * gives, and SpaceUsed when it reports that itself; a figure left out is unknown to the
     * application (-1). Fail with ErrDoesNotExist for a missing URL, and with
     * ErrUnsupportedAction naming the URL when the server has no such figures at all. The
     * worker's description declares "freeSpace". The default fails with ErrUnsupportedAction.
     */
    virtual WorkerResult freeSpace(const FreeSpaceRequest &request);
    /*!
     * Moves \a request.urls into the trash, or restores trash entries (TrashRequest): one
     * entry after the other, each reported with reportItem() (Moved, or Skipped by the
     * conflict policy) when the request asks for it; an entry that cannot be moved is
     * reported with leftOut() and the others go on. The description declares "trash".
     * The default fails with ErrUnsupportedAction.
     */
    virtual WorkerResult trash(const TrashRequest &request);
    /*! Copies its URL (source) to a local file (destination, file://) itself. */
    virtual WorkerResult copyToFile(const FileCopyRequest &request);
    /*! Copies a local file (source, file://) to its URL (destination) itself. */
    virtual WorkerResult copyFromFile(const FileCopyRequest &request);
    /*! A protocol-specific command described by options(). */
    virtual WorkerResult special(const QUrl &url);

    // ---- watching folders (WatchRequest) ----
    /*!
     * Starts watching the folder \a request.url: add the watch first, then list the folder
     * as listDir() does (beginEntry()/endEntry(); calling listDir() is fine), then return
     * pass. Nothing is lost between the two: a change during the listing is reported as
     * well, and an entry both listed and reported is one row (reports are upserts by name).
     *
     * Unlike other hooks the request outlives the call: the watch stays live under
     * requestId() until the application stops it (unwatch()). Meanwhile one process serves
     * any number of watches: between commands the base class waits on the socket together
     * with the descriptor given to setWatchDescriptor() and the time given to
     * setWatchTimer(), and calls watchEvent() when one is due; the worker reports a batch
     * of changes of a watch between beginChanges() and endChanges(), a lost event queue
     * with beginResync()/endResync(), a deleted or renamed folder with watchGone() /
     * watchMoved(). The base class sends the end of the listing with the mode set by
     * setWatchMode() (Native unless set). A failure ends the request with that error.
     *
     * The default implementation polls when \a request.pollMs is above 0: it lists with
     * listDir() every pollMs milliseconds, keeps a digest of each entry's fields per name
     * and sends only what differs; otherwise it fails with ErrUnsupportedAction. A worker
     * that watches natively calls it for a folder it cannot watch (a system limit reached),
     * after setWatchMode(WatchMode::PollingAtLimit).
     */
    virtual WorkerResult watch(const WatchRequest &request);
    /*!
     * The watch \a id ends (the application stopped it, or watchGone() was called): release
     * what it holds. Called between hooks, never inside one. The default ends its polling.
     */
    virtual void unwatch(quint32 id);
    /*! The watch descriptor became readable or the watch timer is due (see watch()). */
    virtual void watchEvent();
    // ---- random access (OpenRequest; the description declares "open") ----
    /*!
     * Opens \a request.url and describes it in \a file: its size, MIME type and what it
     * can do. Follow a symlink as open(2) does; refuse what is not a regular file or its
     * protocol's equivalent (a fifo would block).
     *
     * After a pass the base class serves the application's positional operations, one at
     * a time in the order they were sent, with readAt(), writeAt(), append(), truncate()
     * and fileSize(), until the application closes the file or kills the job; then it
     * calls closeFile(). A failing operation ends the request with its error (the file is
     * closed first). Lengths are clamped and reads go through one buffer the base class
     * reuses: a hook is never asked for more than 256 KiB at once, whatever the
     * application asked for.
     *
     * Writes are in place by nature: the file itself changes, with no temporary and no
     * rename; a reader may see a write half done, and a kill leaves what was written.
     */
    virtual WorkerResult openFile(const OpenRequest &request, OpenedFile *file);
    /*!
     * Reads up to \a length bytes (1..256 KiB) at \a offset into \a buffer and sets
     * \a *bytesRead: fewer than asked is fine (the base class asks again for the rest),
     * 0 means the end of the file. A file that cannot seek (OpenedFile::canSeek false)
     * fails with ErrCannotSeek when \a offset is not where the previous read ended.
     */
    virtual WorkerResult readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead);
    /*! Writes all of \a data (at most 256 KiB) at \a offset. */
    virtual WorkerResult writeAt(qint64 offset, QByteArrayView data);
    /*! Writes all of \a data at the end of the file; \a *offset: where it went (-1: unknown). */
    virtual WorkerResult append(QByteArrayView data, qint64 *offset);
    /*! Cuts the file to \a length bytes, or extends it with zeros. */
    virtual WorkerResult truncate(qint64 length);
    /*! The file's current size. */
    virtual WorkerResult fileSize(qint64 *size);
    /*!
     * Closes what openFile() opened, once: after the application closed the file (the result
     * is the request's: a failing close, as on a network filesystem, is reported), or on a
     * kill or the application going away (the result is ignored).
     */
    virtual WorkerResult closeFile();

    // ---- connection lifecycle ----
    /*!
     * The next commands are about \a url's host (scheme, user, host, port; path, query
     * and password stripped). Called before a command whose host differs from the last
     * one, after closeConnection(). The default does nothing.
     */
    virtual void setHost(const QUrl &host);
    /*!
     * Drop the connection to the current host: another host comes next, or the
     * application closed the socket. The default does nothing.
     */
    virtual void closeConnection();
    /*!
     * Called once, after the greeting, when no command is waiting yet (the application is
     * still starting): a place to prepare what the first command needs, off its path. A
     * command that arrives meanwhile waits for it, so keep it short. The file worker loads
     * the name service with its own user's and group's names (with a slow directory
     * service that is a lookup the first command might not have needed). The default does
     * nothing.
     */
    virtual void warmUp();

    /*!
     * Called once when the application has gone (it closed the connection or ended),
     * before the process exits: the place to finish background work begun with
     * setWatchTimer() that must not be left half done (the trash worker deletes what an
     * emptying put aside). The process stays until it returns, its socket already closed,
     * and the application may be waiting for it to end: work that takes long goes to a
     * detached child. The default does nothing.
     */
    virtual void finishBackgroundWork();

    // ---- for hooks ----
    /*! The whole options block of the running request (for protocol-specific extras). */
    const MetaData &options() const;
    /*! Starts an entry of a listing or stat; add fields, then endEntry(). */
    void beginEntry();
    void addNumber(Field field, qint64 value);
    void addString(Field field, QByteArrayView value);
    /*! An interned string (user, group, MIME type). */
    void addAtom(Field field, QByteArrayView value);
    /*! Finishes the entry; batches are flushed by size and time. */
    void endEntry();
    /*! Sends a chunk of data (get). Blocks while the application is slow or suspended. */
    void data(QByteArrayView chunk);
    /*!
     * Reads the next chunk of a put. Returns false at the end of the data (or on kill);
     * \a chunk receives the bytes.
     */
    bool readData(QByteArray *chunk);
    /*! Totals for percent: bytes, files, folders (-1 = unknown). */
    void setTotals(qint64 bytes, qint64 files = -1, qint64 dirs = -1);
    /*! Cumulative processed amounts; throttled to about ten messages a second. */
    void setProcessed(qint64 bytes, qint64 files = -1, qint64 dirs = -1);
    /*! Entries skipped by a conflict policy or answer so far (cumulative). */
    void setSkipped(qint64 count);
    /*! Sends metadata to the application now (e.g. the MIME type before data). */
    void sendMetaData(const MetaData &meta);
    /*! Sends the MIME type of a get's content (before its first data()). */
    void mimeType(const QString &type);
    /*! The request now works on \a url (an HTTP redirect), reported to the application. */
    void redirection(const QUrl &url);
    /*! A copy's per-entry event, sent when the request asked for them (CopyRequest::reportItems). */
    void reportItem(CopyItemEvent event, const QUrl &source, const QUrl &destination);
    /*! A result value sent with the final Finished message. */
    void setResult(ResultKey key, qint64 value);
    /*!
     * A freeSpace() answer in the form statvfs(2) gives it: \a totalBlocks, \a freeBlocks
     * and \a availableBlocks of \a unit bytes each, as SpaceTotal, SpaceFree and
     * SpaceAvailable (held at INT64_MAX rather than wrapping).
     */
    void setFreeSpace(quint64 unit, quint64 totalBlocks, quint64 freeBlocks, quint64 availableBlocks);

    /*! Asks the application about a conflict and waits (still handling kill). */
    ConflictAnswer askConflict(const ConflictQuestion &question);
    /*! Asks for credentials (or uses the application's cache) and waits. */
    Credentials askPassword(const PasswordQuestion &question);
    /*! Asks whether to trust a host key or certificate and waits; Refuse when unanswered. */
    Trust askTrust(const TrustQuestion &question);
    /*!
     * An entry inside a tree cannot be read: asks whether to skip it, retry or cancel
     * (nobody answering means skip). Report what is finally skipped with leftOut().
     */
    UnreadableAnswer askUnreadable(const UnreadableQuestion &question);
    /*!
     * Reports that \a url (inside the tree the request works on) was left out because of
     * \a error; the request goes on, and the application's job ends with ErrPartial.
     */
    void leftOut(const QUrl &url, int error);
    /*!
     * Reports the entry \a name of \a folder, as a server listed it, as left out with
     * ErrUnsafeName: a name that is no safe name ('/', "..", NUL ...; Url::isSafeName()) is
     * never used, and never dropped in silence either.
     */
    void leftOutUnsafeName(const QUrl &folder, QByteArrayView name);
    /*!
     * The longest path (in bytes, relative to the folder listed) of a folder that a
     * recursive listing of a remote tree still enters: PATH_MAX, as much as a local copy
     * could name. Deeper folders are listed, not entered, and reported with leftOut() and
     * ErrUrlTooLong, so that a server whose every folder holds another cannot keep a
     * listing (or a copy's plan) going for ever.
     */
    static constexpr qsizetype MaxTreePathBytes = 4096;

    /*!
     * Whether the running request was killed (or the application went away). Also
     * reads pending control messages and sends a heartbeat when one is due: long hooks
     * call it between chunks.
     */
    bool wasKilled();
    /*!
     * Runs a QEventLoop until \a done returns true (checked after every event), the
     * request is killed (then false within 100 ms), or \a timeoutMs passes (-1: no limit;
     * then false). Control messages are read and heartbeats sent meanwhile. For Qt's
     * asynchronous classes: start the operation, then waitUntil([&]{ return finished; }).
     */
    bool waitUntil(const std::function<bool()> &done, int timeoutMs = -1);

    // ---- for watches (see watch()) ----
    /*! How the watch being started is watched (sent with the end of its listing). */
    void setWatchMode(WatchMode mode);
    /*! A descriptor (inotify...) to wait on beside the socket while watches live; -1: none. */
    void setWatchDescriptor(int fd);
    /*!
     * Calls watchEvent() once \a ms milliseconds have passed (-1: cancels), between
     * commands; also when no watch lives, for work a worker does in the background in
     * short slices (the trash worker deleting what an emptying put aside): a command that
     * comes in waits for the running slice only.
     */
    void setWatchTimer(int ms);
    /*!
     * Starts a batch of changes of the live watch \a id: entries added with beginEntry() /
     * endEntry() until endChanges() are new or changed entries (an upsert by name; one
     * equal to the known entry changes nothing). Returns false when \a id is not live
     * (stopped meanwhile): report nothing then.
     */
    bool beginChanges(quint32 id);
    /*! In a batch: the entry \a name is gone. */
    void reportRemoved(QByteArrayView name);
    /*! In a batch: the entry \a from is now called \a to (report \a to's entry too). */
    void reportRenamed(QByteArrayView from, QByteArrayView to);
    /*! Sends the batch; the application applies it as one. */
    void endChanges();
    /*!
     * Lists the live watch \a id afresh (after events were lost): list its folder as in
     * watch(), then endResync(). Every entry the new listing does not name is gone.
     * Returns false when \a id is not live.
     */
    bool beginResync(quint32 id);
    void endResync();
    /*! The folder of watch \a id is gone: reported once; the watch ends (unwatch() follows). */
    void watchGone(quint32 id);
    /*! The folder of watch \a id now lives at \a url (renamed); the watch continues. */
    void watchMoved(quint32 id, const QUrl &url);
    /*! Whether the watch \a id is live. */
    bool isWatching(quint32 id) const;
    /*!
     * Of the renames \a renames seen in one batch of a folder's events (old name, new
     * name, in order), those to report with reportRenamed(): the old name is gone, the
     * new one is there (\a existing: the names of the batch that exist now), and neither
     * end is part of another rename of the batch. The others are reported by what they
     * left behind: a removed name, a new or changed one.
     */
    static QList<std::pair<QByteArray, QByteArray>> plainRenames(
        const QList<std::pair<QByteArray, QByteArray>> &renames, const QSet<QByteArray> &existing);
    /*!
     * In a batch: reports each of \a renames (what plainRenames() returned) with
     * reportRenamed(). Returns their old names: gone, but not to be reported as removed.
     * \since 0.1
     */
    QSet<QByteArray> reportRenames(const QList<std::pair<QByteArray, QByteArray>> &renames);
    /*!
     * Runs \a hook once the first batch of entries of the running request has gone to the
     * application (or when the request's hook returns, if none did), with the names that
     * batch held. For work a watch must do before its listing can be trusted but that
     * need not hold back its first rows; the entries named were listed before it.
     */
    void whenFirstBatchSent(std::function<void(const QList<QByteArray> &names)> hook);
    /*!
     * Waits up to \a timeoutMs (-1: no limit) until \a fd is readable, handling the
     * application's control messages meanwhile (kill, suspend, answers). True when \a fd is
     * readable; false on timeout, on kill and when the application is gone. For hooks that
     * wait on a descriptor of their own (a watch, a subprocess).
     */
    bool waitForDescriptor(int fd, int timeoutMs);

    /*! The socket, for test workers that must misbehave on purpose. */
    int socketFd() const;
    /*! The running request's id on the wire (test workers). */
    quint32 requestId() const;

private:
    // The private parts behind this facade run the hooks (workerengine_p.h and its siblings).
    friend class WorkerEngine;
    friend class WatchServer;
    friend class PollingWatch;
    friend class OpenFileServer;
    friend class WorkerCopyObserver; // treecopy.cpp: TreeCopy reports through these protected calls
    std::unique_ptr<WorkerBasePrivate> d;
};

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::WorkerBase::Options)

#endif
