// SPDX-License-Identifier: LGPL-2.1-or-later
// The session, names and attributes of a qvfs mount: lookup, getattr, setattr, mkdir,
// unlink, rmdir, symlink, rename, statfs. Files are in mountfs_io.cpp, folders in
// mountfs_dir.cpp.
#include "kernelnotifier_p.h"
#include "mountfs_p.h"
#include "qvfsmount_debug.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/Error>
#include <Qvfs/FreeSpaceJob>
#include <Qvfs/Protocol>
#include <Qvfs/SimpleJob>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QSocketNotifier>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace Mount
{

namespace
{

MountFs *fsOf(fuse_req_t req)
{
    return static_cast<MountFs *>(fuse_req_userdata(req));
}

/*! The callbacks: each hands the request to the MountFs it was mounted with. */
fuse_lowlevel_ops makeOps()
{
    fuse_lowlevel_ops ops = {};
    ops.init = [](void *userdata, fuse_conn_info *conn) { static_cast<MountFs *>(userdata)->init(conn); };
    ops.lookup = [](fuse_req_t req, fuse_ino_t parent, const char *name) { fsOf(req)->lookup(req, parent, name); };
    ops.forget = [](fuse_req_t req, fuse_ino_t ino, uint64_t n) {
        fsOf(req)->forget(ino, n);
        fuse_reply_none(req);
    };
    ops.forget_multi = [](fuse_req_t req, size_t count, fuse_forget_data *forgets) {
        for (size_t i = 0; i < count; ++i)
            fsOf(req)->forget(forgets[i].ino, forgets[i].nlookup);
        fuse_reply_none(req);
    };
    ops.getattr = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->getattr(req, ino, fi); };
    ops.setattr = [](fuse_req_t req, fuse_ino_t ino, struct stat *attr, int toSet, fuse_file_info *fi) {
        fsOf(req)->setattr(req, ino, attr, toSet, fi);
    };
    ops.readlink = [](fuse_req_t req, fuse_ino_t ino) { fsOf(req)->readlink(req, ino); };
    ops.mkdir = [](fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
        fsOf(req)->mkdir(req, parent, name, mode);
    };
    ops.unlink
        = [](fuse_req_t req, fuse_ino_t parent, const char *name) { fsOf(req)->remove(req, parent, name, false); };
    ops.rmdir = [](fuse_req_t req, fuse_ino_t parent, const char *name) { fsOf(req)->remove(req, parent, name, true); };
    ops.symlink = [](fuse_req_t req, const char *target, fuse_ino_t parent, const char *name) {
        fsOf(req)->symlink(req, target, parent, name);
    };
    ops.rename = [](fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newParent, const char *newName,
                     unsigned flags) { fsOf(req)->rename(req, parent, name, newParent, newName, flags); };
    ops.open = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->open(req, ino, fi); };
    ops.create = [](fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, fuse_file_info *fi) {
        fsOf(req)->create(req, parent, name, mode, fi);
    };
    ops.read = [](fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info *fi) {
        fsOf(req)->read(req, ino, size, off, fi);
    };
    ops.write = [](fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off, fuse_file_info *fi) {
        fsOf(req)->write(req, ino, buf, size, off, fi);
    };
    ops.flush = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->flush(req, ino, fi); };
    ops.fsync = [](fuse_req_t req, fuse_ino_t ino, int, fuse_file_info *fi) { fsOf(req)->flush(req, ino, fi); };
    ops.release = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->release(req, ino, fi); };
    ops.opendir = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->opendir(req, ino, fi); };
    ops.readdir = [](fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info *fi) {
        fsOf(req)->readdir(req, ino, size, off, fi, false);
    };
    ops.readdirplus = [](fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info *fi) {
        fsOf(req)->readdir(req, ino, size, off, fi, true);
    };
    ops.releasedir = [](fuse_req_t req, fuse_ino_t ino, fuse_file_info *fi) { fsOf(req)->releasedir(req, ino, fi); };
    ops.statfs = [](fuse_req_t req, fuse_ino_t ino) { fsOf(req)->statfs(req, ino); };
    return ops;
}

/*! \a value for a -o option: ',' and '\\' escaped as libfuse's option parser wants. */
QByteArray optionValue(QByteArrayView value)
{
    QByteArray out;
    for (const char c : value) {
        if (c == ',' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

/*!
 * Whether \a url is a host's root on a protocol that cannot list (http): its stat may
 * fail (403 for "/"), yet its files are there; it is shown as a folder of them.
 */
bool isBareHost(const QUrl &url)
{
    return (url.path().isEmpty() || url.path() == QLatin1String("/"))
        && !Qvfs::Protocol::find(url.scheme()).hasCapability(Qvfs::Protocol::List);
}

// The errno value the kernel is given for each Qvfs error code.
struct ErrnoOf
{
    int code;
    int errnoValue;
};
constexpr ErrnoOf errnoTable[] = {
    { Qvfs::NoError, 0 },
    { Qvfs::ErrDoesNotExist, ENOENT },
    { Qvfs::ErrAccessDenied, EACCES },
    { Qvfs::ErrCannotAuthenticate, EACCES },
    { Qvfs::ErrNotAnswered, EACCES },
    { Qvfs::ErrUnknownHostKey, EACCES },
    { Qvfs::ErrHostKeyChanged, EACCES },
    { Qvfs::ErrUntrustedCertificate, EACCES },
    { Qvfs::ErrIsDirectory, EISDIR },
    { Qvfs::ErrIsNotDirectory, ENOTDIR },
    { Qvfs::ErrAlreadyExists, EEXIST },
    { Qvfs::ErrDiskFull, ENOSPC },
    { Qvfs::ErrUnsupportedAction, ENOTSUP },
    { Qvfs::ErrUnsupportedProtocol, ENOTSUP },
    { Qvfs::ErrDirectoryNotEmpty, ENOTEMPTY },
    { Qvfs::ErrNameTooLong, ENAMETOOLONG },
    { Qvfs::ErrUrlTooLong, ENAMETOOLONG },
    { Qvfs::ErrSymlinkLoop, ELOOP },
    { Qvfs::ErrReadOnlyFilesystem, EROFS },
    { Qvfs::ErrFileTooLarge, EFBIG },
    { Qvfs::ErrLocked, EBUSY },
    { Qvfs::ErrCancelled, EINTR },
    { Qvfs::ErrCycle, EINVAL },
    { Qvfs::ErrIdenticalFiles, EINVAL },
    { Qvfs::ErrUnsafeName, EINVAL },
    { Qvfs::ErrMalformedUrl, EINVAL },
    { Qvfs::ErrCannotSeek, ESPIPE },
};

} // namespace

int errnoFor(int code)
{
    for (const ErrnoOf &e : errnoTable) {
        if (e.code == code)
            return e.errnoValue;
    }
    // The worker died, the server went away or stopped answering, a protocol error.
    return EIO;
}

MountFs::MountFs(const Options &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_nodes(std::make_unique<NodeTable>(options.url))
    , m_uid(::getuid())
    , m_gid(::getgid())
{
    m_buf = std::calloc(1, sizeof(fuse_buf));
}

MountFs::~MountFs()
{
    unmount();
    m_nodes->dropped = nullptr;
    m_kernel.reset(); // before the session goes
    if (m_session)
        fuse_session_destroy(m_session);
    auto *buf = static_cast<fuse_buf *>(m_buf);
    std::free(buf->mem);
    std::free(buf);
    for (auto it = m_files.cbegin(); it != m_files.cend(); ++it) {
        if (it.key()->job)
            it.key()->job->kill();
        delete it.key();
    }
    for (auto it = m_dirs.cbegin(); it != m_dirs.cend(); ++it) {
        if (it.key()->job)
            it.key()->job->kill();
        delete it.key();
    }
}

bool MountFs::mount(QString *error)
{
    QByteArray options = "default_permissions,subtype=qvfs,fsname=";
    options
        += optionValue(m_options.url.isEmpty() ? QByteArray("qvfs") : m_options.url.toEncoded(QUrl::RemovePassword));
    if (m_options.allowOther)
        options += ",allow_other";
    QList<QByteArray> argv = { "qvfs", "-o", options, "-o", "max_read=" + QByteArray::number(qulonglong(MaxIo)) };
    QList<char *> pointers;
    for (QByteArray &a : argv)
        pointers.append(a.data());
    fuse_args args = FUSE_ARGS_INIT(int(pointers.size()), pointers.data());
    static const fuse_lowlevel_ops ops = makeOps();
    m_session = fuse_session_new(&args, &ops, sizeof ops, this);
    fuse_opt_free_args(&args);
    if (!m_session) {
        *error = QCoreApplication::translate("qvfs", "cannot start a FUSE session");
        return false;
    }
    if (fuse_session_mount(m_session, m_options.mountPoint.constData()) != 0) {
        *error = QCoreApplication::translate("qvfs", "cannot mount on %1 (is /dev/fuse there, and may you use it?)")
                     .arg(QString::fromLocal8Bit(m_options.mountPoint));
        return false;
    }
    m_mounted = true;
    m_kernel = std::make_unique<KernelNotifier>(m_session);
    m_nodes->dropped = [this](const Node &n) { unwatch(n); };
    // The first program in should not wait for a connection to be made.
    if (!m_options.url.isEmpty())
        Qvfs::prestartWorker(m_options.url);
    const int fd = fuse_session_fd(m_session);
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    auto *notifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    connect(notifier, &QSocketNotifier::activated, this, &MountFs::readDevice);
    m_notifier = notifier;
    return true;
}

void MountFs::unmount()
{
    if (m_notifier) {
        static_cast<QSocketNotifier *>(m_notifier)->setEnabled(false);
        m_notifier = nullptr;
    }
    if (m_mounted) {
        m_mounted = false;
        fuse_session_unmount(m_session);
        Q_EMIT finished();
    }
}

void MountFs::readDevice()
{
    auto *buf = static_cast<fuse_buf *>(m_buf);
    // A few requests per wake-up, so that replies (job results) are not held back.
    for (int i = 0; i < 64 && m_session; ++i) {
        const int res = fuse_session_receive_buf(m_session, buf);
        if (res == -EINTR)
            continue;
        if (res == -EAGAIN)
            return;
        if (res <= 0 || fuse_session_exited(m_session)) {
            // Unmounted from outside (umount, fusermount3 -u): the kernel is done with us.
            qCDebug(QVFS_MOUNT) << "device closed" << res;
            unmount();
            return;
        }
        fuse_session_process_buf(m_session, buf);
    }
}

void MountFs::init(fuse_conn_info *conn)
{
    // O_TRUNC comes with open(), so a truncating open spools an empty file instead of
    // truncating the server's at once; the kernel's writeback cache would hold writes
    // the server never sees (and reorder them): off, as kio-fuse has it.
    if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
        conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    if (conn->capable & FUSE_CAP_READDIRPLUS)
        conn->want |= FUSE_CAP_READDIRPLUS;
    conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO; // readdirplus always: ls -l makes no lookup per name
    if (conn->capable & FUSE_CAP_ASYNC_READ)
        conn->want |= FUSE_CAP_ASYNC_READ;
    conn->max_write = unsigned(MaxIo);
    conn->max_read = unsigned(MaxIo);
    conn->max_readahead = qMax<unsigned>(conn->max_readahead, unsigned(MaxIo));
    conn->max_background = 64;
    conn->congestion_threshold = 48;
    conn->time_gran = 1;
}

Node *MountFs::liveNode(fuse_req *req, quint64 ino)
{
    Node *node = m_nodes->find(ino);
    if (!node)
        fuse_reply_err(req, ESTALE);
    return node;
}

bool MountFs::childUrl(fuse_req *req, const Node *parent, const char *name, QUrl *url)
{
    *url = NodeTable::childUrl(parent, name);
    if (!url->isValid()) {
        // Space and scheme folders hold nothing else; "/" and ".." never pass.
        fuse_reply_err(req, parent->kind == Node::Url ? EINVAL : ENOENT);
        return false;
    }
    return true;
}

bool MountFs::canDo(fuse_req *req, const QUrl &url, quint32 capability)
{
    const Qvfs::Protocol protocol = Qvfs::Protocol::find(url.scheme());
    if (protocol.hasCapability(Qvfs::Protocol::Capability(capability)))
        return true;
    // A protocol that cannot write at all is a read-only file system.
    fuse_reply_err(req, protocol.hasCapability(Qvfs::Protocol::Write) ? ENOTSUP : EROFS);
    return false;
}

bool MountFs::childFor(fuse_req *req, quint64 parentIno, const char *name, quint32 capability, QUrl *url)
{
    const Node *parent = liveNode(req, parentIno);
    return parent && childUrl(req, parent, name, url) && canDo(req, *url, capability);
}

void MountFs::setAttributes(Node *node, const Qvfs::Entry &entry)
{
    node->attr = statFromEntry(entry, node->ino, m_uid, m_gid);
    node->hasAttr = true;
    node->linkTarget.clear();
    if (entry.isLink()) {
        QByteArray topPath;
        const QList<QByteArray> dir = m_nodes->folderBelowTop(node, &topPath);
        node->linkTarget = containedLinkTarget(entry.bytes(Qvfs::LinkTarget), dir, topPath);
        node->attr.st_size = node->linkTarget.size();
    }
}

void MountFs::replyEntry(fuse_req *req, Node *node)
{
    fuse_entry_param e = {};
    e.ino = node->ino;
    e.attr = node->attr;
    e.attr_timeout = timeout();
    e.entry_timeout = timeout();
    if (fuse_reply_entry(req, &e) == 0)
        ++node->lookups;
}

void MountFs::refresh(quint64 ino, std::function<void(int)> done)
{
    const Node *node = m_nodes->find(ino);
    if (!node) {
        done(ESTALE);
        return;
    }
    Qvfs::StatJob *job = Qvfs::stat(node->url, MountDetails);
    onResult(this, job, m_options.askDelegate, [this, ino, done](Qvfs::Job *j) {
        Node *n = m_nodes->find(ino);
        if (!j->error() && n)
            setAttributes(n, static_cast<Qvfs::StatJob *>(j)->statResult());
        done(j->error() ? errnoFor(j->error()) : n ? 0 : ESTALE);
    });
}

void MountFs::invalidate(Node *node)
{
    if (m_kernel)
        m_kernel->inode(node->ino, false);
}

void MountFs::lookup(fuse_req *req, quint64 parentIno, const char *name)
{
    Node *parent = liveNode(req, parentIno);
    if (!parent)
        return;
    QUrl url;
    if (!childUrl(req, parent, name, &url))
        return;
    const QByteArray childName(name);
    if (parent->kind == Node::Space) {
        Node *node = m_nodes->attach(parent, childName, url, Node::Scheme);
        node->attr = virtualFolderStat(node->ino, m_uid, m_gid);
        node->hasAttr = true;
        replyEntry(req, node);
        return;
    }
    Qvfs::StatJob *job = Qvfs::stat(url, MountDetails);
    onResult(this, job, m_options.askDelegate, [this, req, parentIno, childName, url](Qvfs::Job *j) {
        Node *parent = m_nodes->find(parentIno);
        if (j->error() == Qvfs::ErrDoesNotExist) {
            // Remembered as absent for as long as names are (a negative entry).
            fuse_entry_param e = {};
            e.entry_timeout = timeout();
            fuse_reply_entry(req, &e);
            return;
        }
        if (!parent) {
            fuse_reply_err(req, ESTALE);
            return;
        }
        const bool hostFolder = parent->kind == Node::Scheme && isBareHost(url);
        if (j->error() && !hostFolder) {
            fuse_reply_err(req, errnoFor(j->error()));
            return;
        }
        watch(parent); // the kernel keeps this name now: its changes must reach it
        Node *node = m_nodes->attach(parent, childName, url);
        if (j->error())
            node->attr = virtualFolderStat(node->ino, m_uid, m_gid);
        else
            setAttributes(node, static_cast<Qvfs::StatJob *>(j)->statResult());
        node->hasAttr = true;
        replyEntry(req, node);
    });
}

void MountFs::forget(quint64 ino, quint64 count)
{
    m_nodes->forget(ino, count);
}

void MountFs::getattr(fuse_req *req, quint64 ino, fuse_file_info *)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    if (node->kind != Node::Url) {
        const struct stat st = virtualFolderStat(node->ino, m_uid, m_gid);
        fuse_reply_attr(req, &st, timeout());
        return;
    }
    if (node->spool && node->spool->ready) {
        // Being written here: what the writers see is the spool.
        struct stat st = node->attr;
        struct stat local;
        if (::fstat(node->spool->fd, &local) == 0) {
            st.st_size = local.st_size;
            st.st_blocks = local.st_blocks;
            st.st_mtim = local.st_mtim;
            st.st_ctim = local.st_ctim;
        }
        fuse_reply_attr(req, &st, 0);
        return;
    }
    refresh(ino, [this, req, ino](int error) {
        const Node *n = m_nodes->find(ino);
        if (n && error && isBareHost(n->url)) {
            const struct stat st = virtualFolderStat(ino, m_uid, m_gid);
            fuse_reply_attr(req, &st, timeout());
        } else if (error || !n) {
            fuse_reply_err(req, error ? error : ESTALE);
        } else {
            fuse_reply_attr(req, &n->attr, timeout());
        }
    });
}

void MountFs::setattr(fuse_req *req, quint64 ino, struct stat *attr, int toSet, fuse_file_info *)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    if (node->kind != Node::Url) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if (((toSet & FUSE_SET_ATTR_UID) && attr->st_uid != m_uid)
        || ((toSet & FUSE_SET_ATTR_GID) && attr->st_gid != m_gid)) {
        fuse_reply_err(req, EPERM); // every file here is the mounting user's
        return;
    }
    // The steps, run one after the other: each a job, or a change to the spool.
    QList<std::function<Qvfs::Job *()>> steps;
    const QUrl url = node->url;
    Spool *spool = node->spool.get();
    if (toSet & FUSE_SET_ATTR_SIZE) {
        if (spool && spool->ready) {
            if (::ftruncate(spool->fd, attr->st_size) != 0) {
                fuse_reply_err(req, errno);
                return;
            }
            spool->dirty = true;
            ++spool->generation;
        } else if (attr->st_size == 0) {
            if (!canDo(req, url, Qvfs::Protocol::Write))
                return;
            const int mode = node->hasAttr ? int(node->attr.st_mode & 07777) : -1;
            steps.append([url, mode] { return Qvfs::storedPut(QByteArray(), url, mode, Qvfs::PutOverwrite); });
        } else {
            // Shortening or growing the server's file in place would show a half-done
            // state; a program doing it opens the file (then the spool takes it).
            fuse_reply_err(req, ENOTSUP);
            return;
        }
    }
    if (toSet & FUSE_SET_ATTR_MODE) {
        if (!canDo(req, url, Qvfs::Protocol::Chmod))
            return;
        const int mode = int(attr->st_mode & 07777);
        if (spool)
            spool->mode = mode;
        steps.append([url, mode] { return Qvfs::chmod(url, mode); });
    }
    const bool canSetTime = Qvfs::Protocol::find(url.scheme()).hasCapability(Qvfs::Protocol::SetTime);
    if ((toSet & FUSE_SET_ATTR_MTIME_NOW) && spool && (spool->dirty || !canSetTime)) {
        // "Now" on a file open for writing here (touch): the upload gives it that time,
        // or gave it just now.
        spool->mtime = -1;
    } else if (toSet & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)) {
        if (!canDo(req, url, Qvfs::Protocol::SetTime))
            return;
        struct timespec t = attr->st_mtim;
        if (toSet & FUSE_SET_ATTR_MTIME_NOW)
            ::clock_gettime(CLOCK_REALTIME, &t);
        if (spool && spool->dirty)
            spool->mtime = t.tv_sec; // given to the upload, which would set it anew
        else
            steps.append([url, t] { return Qvfs::setModificationTime(url, t.tv_sec, t.tv_nsec); });
    }
    // Run them in order, then answer with the attributes as they are now.
    auto run = std::make_shared<std::function<void(int)>>();
    *run = [this, req, ino, steps, run](int index) mutable {
        if (index == steps.size()) {
            getattr(req, ino, nullptr);
            *run = nullptr; // breaks the cycle
            return;
        }
        Qvfs::Job *job = steps.at(index)();
        onResult(this, job, m_options.askDelegate, [this, req, ino, index, run](Qvfs::Job *j) {
            if (Node *n = m_nodes->find(ino))
                invalidate(n);
            if (j->error()) {
                fuse_reply_err(req, errnoFor(j->error()));
                *run = nullptr;
                return;
            }
            (*run)(index + 1);
        });
    };
    (*run)(0);
}

void MountFs::readlink(fuse_req *req, quint64 ino)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    if (!node->linkTarget.isEmpty()) {
        fuse_reply_readlink(req, node->linkTarget.constData());
        return;
    }
    refresh(ino, [this, req, ino](int error) {
        const Node *n = m_nodes->find(ino);
        if (!error && (!n || n->linkTarget.isEmpty()))
            error = n ? EINVAL : ESTALE;
        if (error)
            fuse_reply_err(req, error);
        else
            fuse_reply_readlink(req, n->linkTarget.constData());
    });
}

void MountFs::replyMade(fuse_req *req, quint64 parentIno, const QByteArray &name, const QUrl &url)
{
    Node *parent = m_nodes->find(parentIno);
    if (!parent) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    Node *node = m_nodes->attach(parent, name, url);
    refresh(node->ino, [this, req, ino = node->ino](int error) {
        Node *n = m_nodes->find(ino);
        if (error || !n)
            fuse_reply_err(req, error ? error : ESTALE);
        else
            replyEntry(req, n);
    });
}

void MountFs::mkdir(fuse_req *req, quint64 parentIno, const char *name, unsigned mode)
{
    QUrl url;
    if (!childFor(req, parentIno, name, Qvfs::Protocol::Mkdir, &url))
        return;
    const QByteArray childName(name);
    whenDone(req, Qvfs::mkdir(url, int(mode & 07777)),
        [this, req, parentIno, childName, url](Qvfs::Job *) { replyMade(req, parentIno, childName, url); });
}

void MountFs::remove(fuse_req *req, quint64 parentIno, const char *name, bool folder)
{
    QUrl url;
    if (!childFor(req, parentIno, name, Qvfs::Protocol::Delete, &url))
        return;
    const QByteArray childName(name);
    Qvfs::DeleteJob *job = Qvfs::del(url, folder ? Qvfs::DeleteScope::EmptyFolders : Qvfs::DeleteScope::NoFolders);
    whenDone(req, job, [this, req, parentIno, childName](Qvfs::Job *) {
        if (Node *parent = m_nodes->find(parentIno)) {
            if (Node *gone = m_nodes->child(parent, childName))
                m_nodes->detach(gone);
        }
        fuse_reply_err(req, 0);
    });
}

void MountFs::symlink(fuse_req *req, const char *target, quint64 parentIno, const char *name)
{
    QUrl url;
    if (!childFor(req, parentIno, name, Qvfs::Protocol::Symlink, &url))
        return;
    const QByteArray childName(name);
    whenDone(req, Qvfs::symlink(QByteArray(target), url),
        [this, req, parentIno, childName, url](Qvfs::Job *) { replyMade(req, parentIno, childName, url); });
}

void MountFs::rename(
    fuse_req *req, quint64 parentIno, const char *name, quint64 newParentIno, const char *newName, unsigned flags)
{
    Node *parent = liveNode(req, parentIno);
    if (!parent)
        return;
    Node *newParent = liveNode(req, newParentIno);
    if (!newParent)
        return;
    QUrl from, to;
    if (!childUrl(req, parent, name, &from) || !childUrl(req, newParent, newName, &to)
        || !canDo(req, from, Qvfs::Protocol::Rename))
        return;
    if (flags & ~unsigned(RENAME_NOREPLACE)) {
        fuse_reply_err(req, EINVAL); // RENAME_EXCHANGE, RENAME_WHITEOUT
        return;
    }
    const auto where = QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment;
    if (from.adjusted(where) != to.adjusted(where)) {
        fuse_reply_err(req, EXDEV); // mv then copies and deletes, through the mount
        return;
    }
    const QByteArray oldName(name), targetName(newName);
    auto doRename = [this, req, parentIno, newParentIno, oldName, targetName, from, to, flags](int error) {
        if (error) {
            fuse_reply_err(req, error);
            return;
        }
        Qvfs::SimpleJob *job = Qvfs::rename(from, to, !(flags & RENAME_NOREPLACE));
        whenDone(req, job, [this, req, parentIno, newParentIno, oldName, targetName](Qvfs::Job *) {
            Node *parent = m_nodes->find(parentIno);
            Node *newParent = m_nodes->find(newParentIno);
            if (parent && newParent) {
                if (Node *moved = m_nodes->child(parent, oldName))
                    m_nodes->move(moved, newParent, targetName);
                else if (Node *replaced = m_nodes->child(newParent, targetName))
                    m_nodes->detach(replaced);
            }
            fuse_reply_err(req, 0);
        });
    };
    // A file still being written here goes up first: the rename moves what was written.
    Node *moved = m_nodes->child(parent, oldName);
    if (moved && moved->spool && moved->spool->dirty)
        upload(moved, doRename);
    else
        doRename(0);
}

void MountFs::statfs(fuse_req *req, quint64 ino)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    struct statvfs st = {};
    st.f_bsize = 4096;
    st.f_frsize = 4096;
    st.f_namemax = 255;
    if (node->kind != Node::Url || !Qvfs::Protocol::find(node->url.scheme()).hasCapability(Qvfs::Protocol::FreeSpace)) {
        fuse_reply_statfs(req, &st);
        return;
    }
    Qvfs::FreeSpaceJob *job = Qvfs::freeSpace(node->url);
    onResult(this, job, m_options.askDelegate, [req, st](Qvfs::Job *j) mutable {
        const auto *f = static_cast<Qvfs::FreeSpaceJob *>(j);
        if (!j->error()) {
            st.f_blocks = fsblkcnt_t(qMax<qint64>(0, f->total()) / 4096);
            st.f_bfree = fsblkcnt_t(qMax<qint64>(0, f->free()) / 4096);
            st.f_bavail = fsblkcnt_t(qMax<qint64>(0, f->available()) / 4096);
        }
        fuse_reply_statfs(req, &st); // figures a server does not give stay 0
    });
}

} // namespace Mount
