// SPDX-License-Identifier: LGPL-2.1-or-later
// `qvfs mount`: a FUSE file system whose files are Qvfs URLs, served by Qvfs jobs from
// Qt's event loop (libfuse's low-level API, one job per request, many in flight).
#ifndef QVFS_MOUNTFS_H
#define QVFS_MOUNTFS_H

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>
#include <memory>
#include <sys/types.h>

struct fuse_session;
struct fuse_conn_info;
struct fuse_file_info;
struct fuse_req;
struct stat;

namespace Qvfs
{
class AskDelegate;
class DirLister;
class Entry;
class Job;
} // namespace Qvfs

namespace Mount
{

class NodeTable;
struct Node;
struct Spool;
struct FileHandle;
struct DirHandle;
class KernelNotifier;

/*! How to mount. */
struct Options
{
    /*! The URL tree shown at the mount point; empty: the whole URL space (DIR/sftp/host/...). */
    QUrl url;
    /*! The folder to mount on (raw bytes, absolute). */
    QByteArray mountPoint;
    /*! How long the kernel may keep names and attributes without asking (seconds). */
    double cacheTimeout = 1.0;
    /*! Let other users in (-o allow_other; needs user_allow_other in /etc/fuse.conf unless root). */
    bool allowOther = false;
    /*! Folder for the private copies of files being written (unnamed O_TMPFILE files). */
    QByteArray spoolDir;
    /*! Who answers worker questions (passwords, host keys); nullptr: they fail. Not owned. */
    Qvfs::AskDelegate *askDelegate = nullptr;
};

/*!
 * One mounted file system. Every kernel request becomes a Qvfs job; the reply is sent
 * when the job ends, so requests for many files run at once and a slow server blocks
 * only the programs that wait for it.
 *
 * Writes are spooled: a file opened for writing is a private local copy (the old
 * content downloaded first unless truncated) that is uploaded with an atomic put when
 * the program flushes or closes it; the upload's error is close()'s. Until then the
 * server keeps the previous content, and a put never leaves part of a file under its
 * name.
 */
class MountFs : public QObject
{
    Q_OBJECT
public:
    explicit MountFs(const Options &options, QObject *parent = nullptr);
    ~MountFs() override;

    /*! Mounts and starts serving; false with \a error set (translated) when it cannot. */
    bool mount(QString *error);
    /*! Unmounts (lazily: programs still inside see errors) and stops serving. */
    void unmount();

Q_SIGNALS:
    /*! The file system was unmounted (by umount, or by unmount()); the process may end. */
    void finished();

public:
    // The libfuse callbacks (fuse_lowlevel_ops) land here.
    void init(fuse_conn_info *conn);
    void lookup(fuse_req *req, quint64 parent, const char *name);
    void forget(quint64 ino, quint64 count);
    void getattr(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void setattr(fuse_req *req, quint64 ino, struct stat *attr, int toSet, fuse_file_info *fi);
    void readlink(fuse_req *req, quint64 ino);
    void mkdir(fuse_req *req, quint64 parent, const char *name, unsigned mode);
    void remove(fuse_req *req, quint64 parent, const char *name, bool folder);
    void symlink(fuse_req *req, const char *target, quint64 parent, const char *name);
    void rename(
        fuse_req *req, quint64 parent, const char *name, quint64 newParent, const char *newName, unsigned flags);
    void open(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void create(fuse_req *req, quint64 parent, const char *name, unsigned mode, fuse_file_info *fi);
    void read(fuse_req *req, quint64 ino, size_t size, qint64 off, fuse_file_info *fi);
    void write(fuse_req *req, quint64 ino, const char *buf, size_t size, qint64 off, fuse_file_info *fi);
    void flush(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void release(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void opendir(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void readdir(fuse_req *req, quint64 ino, size_t size, qint64 off, fuse_file_info *fi, bool plus);
    void releasedir(fuse_req *req, quint64 ino, fuse_file_info *fi);
    void statfs(fuse_req *req, quint64 ino);

private:
    void readDevice();
    /*! Replies an entry for \a node (one more kernel reference). */
    void replyEntry(fuse_req *req, Node *node);
    /*! Answers \a req with the entry \a name of \a parentIno just made at \a url (stats it). */
    void replyMade(fuse_req *req, quint64 parentIno, const QByteArray &name, const QUrl &url);
    /*! Describes \a node from \a entry. */
    void setAttributes(Node *node, const Qvfs::Entry &entry);
    /*! Stats the URL of inode \a ino, then calls \a done with 0 or an errno value. */
    void refresh(quint64 ino, std::function<void(int)> done);
    /*! Ends \a req with \a job's outcome; on success calls \a then instead. */
    template<typename Then>
    void whenDone(fuse_req *req, Qvfs::Job *job, Then then);
    Node *liveNode(fuse_req *req, quint64 ino);
    /*! The URL of the child \a name of \a parent; false after replying the error. */
    bool childUrl(fuse_req *req, const Node *parent, const char *name, QUrl *url);
    /*! Whether \a url's worker declares \a capability; false after replying the error. */
    bool canDo(fuse_req *req, const QUrl &url, quint32 capability);
    /*!
     * The URL of the child \a name of the live inode \a parentIno, for an operation that
     * needs \a capability (liveNode(), childUrl(), canDo()); false after replying the error.
     */
    bool childFor(fuse_req *req, quint64 parentIno, const char *name, quint32 capability, QUrl *url);
    double timeout() const { return m_options.cacheTimeout; }
    void invalidate(Node *node);

    // reads and writes (mountfs_io.cpp)
    /*!
     * Opens \a node for writing into its spool: emptied with \a truncate, new with \a created;
     * answered as a create() with \a viaCreate, else as an open().
     */
    void openForWriting(fuse_req *req, Node *node, fuse_file_info *fi, bool truncate, bool created, bool viaCreate);
    /*!
     * A new handle of \a node for the open request \a req: kept in m_files, named by its
     * info.fh, counted in node->opens.
     */
    FileHandle *newFileHandle(fuse_req *req, Node *node, const fuse_file_info *fi);
    /*! Uploads \a node's spool if it changed, then calls \a done with 0 or an errno value. */
    void upload(Node *node, std::function<void(int)> done);
    int newSpoolFd(int *error) const;
    /*! Opens \a url for \a h's reads (again, when it changed on the server). */
    void startReading(FileHandle *h, const QUrl &url);
    /*! Reads \a size bytes at \a off for \a req through \a h's file job. */
    void readFromServer(FileHandle *h, fuse_req *req, qint64 off, size_t size);
    // reads without random access (mountfs_stream.cpp)
    /*! Reads for \a h through one streaming get, started again where a read jumps. */
    void streamRead(FileHandle *h, fuse_req *req, qint64 off, size_t size);
    void startStream(FileHandle *h, qint64 off);
    /*! Answers what \a h's stream can answer now. */
    void serveStream(FileHandle *h);
    void stopStream(FileHandle *h);

    // file jobs within each host's worker limit (mountfs_slots.cpp)
    /*! \a h has no file job: one is started within the host's budget, or it waits. */
    void needJob(FileHandle *h);
    /*! \a h's file job is gone (closed, failed): its place goes to a handle waiting. */
    void jobGone(FileHandle *h);
    /*! Starts jobs for handles of \a host waiting for one, closing idle ones to make room. */
    void serveWaiting(const QString &host);
    /*! Closes the file job of the least recently used idle handle of \a host. */
    bool parkIdle(const QString &host);
    /*! Answers \a h's opened() or its first read: takes the reads queued for a job. */
    void issueQueued(FileHandle *h);
    /*! Answers the open (or create) \a h waits for, with \a error or its handle. */
    void answerOpen(FileHandle *h, int error);
    /*! Forgets \a h (its node loses an open). */
    void dropHandle(FileHandle *h);
    /*! Drops \a ino's spool when nobody writes and nothing is left to upload. */
    void releaseSpool(quint64 ino);

    // change notification (mountfs_watch.cpp)
    /*! Watches the folder \a dir (a protocol that can): its changes reach the kernel at once. */
    void watch(const Node *dir);
    void unwatch(const Node &dir);
    void watchedChange(const QUrl &folder, const QList<QByteArray> &names, bool data);

    // folders (mountfs_dir.cpp)
    void fillDir(DirHandle *d, fuse_req *req, size_t size, qint64 off, bool plus);
    void listVirtual(DirHandle *d, Node *node);

    Options m_options;
    std::unique_ptr<NodeTable> m_nodes;
    fuse_session *m_session = nullptr;
    bool m_mounted = false;
    QObject *m_notifier = nullptr;
    void *m_buf = nullptr; // struct fuse_buf, reused for every request
    uid_t m_uid;
    gid_t m_gid;
    std::unique_ptr<KernelNotifier> m_kernel;
    Qvfs::DirLister *m_lister = nullptr;
    QHash<QUrl, quint64> m_watched; //!< folders watched, by URL: their inodes
    QHash<FileHandle *, bool> m_files;
    QHash<QString, int> m_jobsPerHost; //!< file jobs open (holding a worker), per host
    QList<FileHandle *> m_waitingSlots; //!< handles waiting for a file job, in order
    quint64 m_useTick = 0;
    QHash<DirHandle *, bool> m_dirs;
};

/*! The errno value for the Qvfs error \a code (ErrDoesNotExist: ENOENT, ...). */
int errnoFor(int code);

} // namespace Mount

#endif
