// SPDX-License-Identifier: LGPL-2.1-or-later
// Files of a qvfs mount: reads as ranged FileJob reads, writes into a private spool
// uploaded whole (an atomic put) on flush and close.
#include "mountfs_p.h"
#include "qvfsmount_debug.h"

#include <Qvfs/Error>
#include <Qvfs/FileJob>
#include <Qvfs/Protocol>
#include <Qvfs/StatJob>
#include <Qvfs/TransferJob>
#include <Qvfs/Url>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Mount
{

namespace
{

FileHandle *handleOf(const fuse_file_info *fi)
{
    return reinterpret_cast<FileHandle *>(fi->fh);
}

/*! Writes all of \a data at \a off of the spool \a fd: 0, or the errno value (ENOSPC for a write of 0). */
int pwriteAll(int fd, const char *data, size_t size, qint64 off)
{
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(fd, data + done, size - done, off + qint64(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : ENOSPC;
        done += size_t(n);
    }
    return 0;
}

qint64 mtimeNs(const struct stat &st)
{
    return qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

} // namespace

Spool::~Spool()
{
    if (fd >= 0)
        ::close(fd);
}

int MountFs::newSpoolFd(int *error) const
{
    // Unnamed: nobody else can open it, and it is gone with the descriptor (even when
    // this process is killed). Where O_TMPFILE is not supported, a name removed at once.
    const QByteArray dir = m_options.spoolDir.isEmpty() ? QByteArray("/tmp") : m_options.spoolDir;
    int fd = ::open(dir.constData(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        QByteArray name = dir + "/.qvfs-mount-spool-XXXXXX";
        fd = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd >= 0)
            ::unlink(name.constData());
    }
    if (fd < 0)
        *error = errno;
    return fd;
}

FileHandle *MountFs::newFileHandle(fuse_req *req, Node *node, const fuse_file_info *fi)
{
    auto *h = new FileHandle;
    h->ino = node->ino;
    h->openReq = req;
    h->info = *fi;
    h->info.fh = reinterpret_cast<uint64_t>(h);
    m_files.insert(h, true);
    ++node->opens;
    return h;
}

void MountFs::open(fuse_req *req, quint64 ino, fuse_file_info *fi)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    if (node->kind != Node::Url) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if ((fi->flags & O_ACCMODE) != O_RDONLY) {
        if (canDo(req, node->url, Qvfs::Protocol::Write))
            openForWriting(req, node, fi, fi->flags & O_TRUNC, false, false);
        return;
    }
    FileHandle *h = newFileHandle(req, node, fi);
    h->url = node->url;
    if (!Qvfs::Protocol::find(node->url.scheme()).hasCapability(Qvfs::Protocol::Open)) {
        // No random access (trash:/): read in order by a streaming get, as programs read.
        h->streaming = true;
        h->opened = true;
        h->info.direct_io = 1;
        answerOpen(h, 0);
        return;
    }
    needJob(h);
}

void MountFs::startReading(FileHandle *h, const QUrl &url)
{
    Qvfs::FileJob *job = Qvfs::open(url, QIODevice::ReadOnly);
    h->job = job;
    job->setAskDelegate(m_options.askDelegate);
    connect(job, &Qvfs::FileJob::opened, this,
        [this, h](Qvfs::FileJob *, qint64 size, const QString &, Qvfs::FileJob::Capabilities caps) {
            h->ahead.setSize(size);
            if (h->opened)
                return; // opened again (the file changed on the server)
            h->opened = true;
            Node *n = m_nodes->find(h->ino);
            if (n) {
                // The kernel's cached pages stay when the file is as the last open found it.
                const qint64 mtime = n->hasAttr ? mtimeNs(n->attr) : -1;
                h->info.keep_cache = size >= 0 && size == n->openedSize && mtime == n->openedMtimeNs;
                n->openedSize = size;
                n->openedMtimeNs = mtime;
                if (size >= 0 && n->hasAttr && size != n->attr.st_size) {
                    n->attr.st_size = size;
                    invalidate(n);
                }
            }
            // A stream of unknown length, or one that cannot seek, is read as it comes. A
            // big file too: it goes from the read-ahead straight into the reader's buffer,
            // not through the kernel's page cache (filling that costs more than the
            // network here, and a film would push everything else out of it).
            if (size < 0 || size >= StreamSize || !(caps & Qvfs::FileJob::CanSeek))
                h->info.direct_io = 1;
            answerOpen(h, 0);
        });
    connect(
        job, &Qvfs::FileJob::dataRead, this, [this, h](Qvfs::FileJob *, quint32 id, qint64, const QByteArray &data) {
            if (h->ahead.arrived(id, data)) {
                if (!m_waitingSlots.isEmpty() && !h->ahead.hasWaiting())
                    serveWaiting(h->host);
                return;
            }
            const auto it = h->reads.find(id);
            if (it == h->reads.end())
                return;
            // In pieces, in order, the last one short or empty at the end of the file.
            it->data += data;
            if (!data.isEmpty() && size_t(it->data.size()) < it->size)
                return;
            fuse_reply_buf(it->req, it->data.constData(), size_t(it->data.size()));
            h->reads.erase(it);
            if (!m_waitingSlots.isEmpty())
                serveWaiting(h->host); // h may be idle now: another file can have its worker
        });
    connect(job, &Qvfs::Job::result, this, [this, h, url](Qvfs::Job *j) {
        if (j->error() == Qvfs::ErrSourceChanged && h->opened && h->reopens < 8) {
            // Changed on the server while open (a log that grows, under tail -f): what is
            // read from now on is the new content, as on a local file.
            ++h->reopens;
            QList<FileHandle::Read> pending = h->reads.values();
            h->reads.clear();
            for (const ReadAhead::Pending &w : h->ahead.takeWaiting())
                pending.append({ w.req, w.off, w.size, {} });
            startReading(h, url);
            for (const FileHandle::Read &r : std::as_const(pending))
                readFromServer(h, r.req, r.off, r.size);
            return;
        }
        // Failed (the worker died, the server went away), or closed after release.
        h->error = j->error() ? errnoFor(j->error()) : EBADF;
        jobGone(h);
        if (h->error == EBADF && !h->openReq && h->reads.isEmpty())
            return;
        qCDebug(QVFS_MOUNT) << "file job ended" << j->error() << j->errorString();
        for (const FileHandle::Read &r : std::as_const(h->reads))
            fuse_reply_err(r.req, h->error == EBADF ? EIO : h->error);
        h->reads.clear();
        h->ahead.fail(h->error == EBADF ? EIO : h->error);
        if (h->openReq) {
            answerOpen(h, h->error);
            dropHandle(h);
        }
    });
}

void MountFs::answerOpen(FileHandle *h, int error)
{
    fuse_req_t req = h->openReq;
    h->openReq = nullptr;
    if (!req)
        return;
    if (error) {
        fuse_reply_err(req, error);
        return;
    }
    if (!h->created) {
        fuse_reply_open(req, &h->info);
        return;
    }
    Node *n = m_nodes->find(h->ino);
    fuse_entry_param e = {};
    e.ino = h->ino;
    e.attr = n->attr;
    e.attr_timeout = 0; // the spool's size is asked for each time while it is written
    e.entry_timeout = timeout();
    if (fuse_reply_create(req, &e, &h->info) == 0)
        ++n->lookups;
}

void MountFs::dropHandle(FileHandle *h)
{
    m_files.remove(h);
    Node *n = m_nodes->find(h->ino);
    delete h;
    if (n)
        m_nodes->closed(n);
}

void MountFs::create(fuse_req *req, quint64 parentIno, const char *name, unsigned mode, fuse_file_info *fi)
{
    Node *parent = liveNode(req, parentIno);
    QUrl url;
    if (!parent || !childUrl(req, parent, name, &url) || !canDo(req, url, Qvfs::Protocol::Write))
        return;
    if (fi->flags & O_EXCL) {
        // A lock file's O_EXCL: the name must be free on the server now, not at the upload.
        const QByteArray childName(name);
        const fuse_file_info info = *fi;
        Qvfs::StatJob *job = Qvfs::stat(url, Qvfs::DetailBasic);
        onResult(this, job, m_options.askDelegate, [this, req, parentIno, childName, mode, info](Qvfs::Job *j) {
            if (j->error() != Qvfs::ErrDoesNotExist) {
                fuse_reply_err(req, j->error() ? errnoFor(j->error()) : EEXIST);
                return;
            }
            fuse_file_info fi = info;
            fi.flags &= ~O_EXCL;
            create(req, parentIno, childName.constData(), mode, &fi);
        });
        return;
    }
    // Nothing reaches the server before the first flush: a new name appears complete.
    Node *node = m_nodes->attach(parent, QByteArray(name), url);
    struct stat st = {};
    st.st_ino = node->ino;
    st.st_mode = S_IFREG | (mode & 07777);
    st.st_nlink = 1;
    st.st_uid = m_uid;
    st.st_gid = m_gid;
    st.st_blksize = 128 * 1024;
    ::clock_gettime(CLOCK_REALTIME, &st.st_mtim);
    st.st_atim = st.st_ctim = st.st_mtim;
    node->attr = st;
    node->hasAttr = true;
    node->linkTarget.clear();
    if (node->spool && node->spool->writers > 0) {
        // Created again while it is being written here (O_CREAT on a name only we have).
        openForWriting(req, node, fi, fi->flags & O_TRUNC, false, true);
        return;
    }
    node->spool.reset();
    openForWriting(req, node, fi, true, true, true); // the spool takes its mode from attr
}

void MountFs::openForWriting(fuse_req *req, Node *node, fuse_file_info *fi, bool truncate, bool created, bool viaCreate)
{
    FileHandle *h = newFileHandle(req, node, fi);
    h->writing = true;
    h->created = viaCreate;
    h->truncate = truncate;
    if (!node->spool) {
        auto spool = std::make_shared<Spool>();
        int error = 0;
        spool->fd = newSpoolFd(&error);
        if (spool->fd < 0) {
            qCWarning(QVFS_MOUNT) << "cannot make a spool file:" << strerror(error);
            answerOpen(h, error);
            dropHandle(h);
            return;
        }
        spool->mode = node->hasAttr ? int(node->attr.st_mode & 07777) : -1;
        node->spool = spool;
        if (truncate) {
            spool->ready = true;
        } else {
            // The old content first: a write in the middle keeps the rest.
            Qvfs::TransferJob *get = Qvfs::get(node->url);
            auto pos = std::make_shared<qint64>(0);
            connect(
                get, &Qvfs::TransferJob::data, this, [spool, pos, get](Qvfs::TransferJob *, const QByteArray &data) {
                    spool->error = pwriteAll(spool->fd, data.constData(), size_t(data.size()), *pos);
                    if (spool->error)
                        get->kill(Qvfs::Job::EmitResult);
                    *pos += data.size();
                });
            onResult(this, get, m_options.askDelegate, [this, spool, ino = node->ino](Qvfs::Job *j) {
                if (!spool->error && j->error())
                    spool->error = errnoFor(j->error());
                spool->ready = !spool->error;
                const QList<FileHandle *> waiting = std::exchange(spool->waitingOpens, {});
                for (FileHandle *w : waiting) {
                    if (spool->error) {
                        --spool->writers;
                        answerOpen(w, spool->error);
                        dropHandle(w);
                        continue;
                    }
                    if (w->truncate && ::ftruncate(spool->fd, 0) == 0) {
                        spool->dirty = true;
                        ++spool->generation;
                    }
                    answerOpen(w, 0);
                }
                releaseSpool(ino);
            });
        }
    }
    Spool *spool = node->spool.get();
    ++spool->writers;
    if (created || truncate) {
        spool->dirty = true; // an emptied or new file is uploaded even when nothing is written
        ++spool->generation;
    }
    if (!spool->ready) {
        spool->waitingOpens.append(h);
        return;
    }
    if (truncate && !created && ::ftruncate(spool->fd, 0) != 0) {
        --spool->writers;
        answerOpen(h, errno);
        dropHandle(h);
        return;
    }
    answerOpen(h, 0);
}

void MountFs::read(fuse_req *req, quint64, size_t size, qint64 off, fuse_file_info *fi)
{
    FileHandle *h = handleOf(fi);
    size = qMin(size, MaxIo);
    if (h->writing) {
        const Node *n = m_nodes->find(h->ino);
        QByteArray buf(qsizetype(size), Qt::Uninitialized);
        ssize_t got;
        do
            got = ::pread(n->spool->fd, buf.data(), size, off);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            fuse_reply_err(req, errno);
        else
            fuse_reply_buf(req, buf.constData(), size_t(got));
        return;
    }
    h->lastUse = ++m_useTick;
    if (h->streaming) {
        streamRead(h, req, off, size);
        return;
    }
    if (h->error) {
        fuse_reply_err(req, h->error != EBADF ? h->error : EIO);
        return;
    }
    if (!h->job) {
        // Closed to let another file have the worker, or waiting for one.
        h->queued.append({ req, off, size, {} });
        if (!h->waitingSlot)
            needJob(h);
        return;
    }
    if (!h->ahead.read(h->job, req, off, size))
        readFromServer(h, req, off, size);
}

void MountFs::readFromServer(FileHandle *h, fuse_req *req, qint64 off, size_t size)
{
    const quint32 id = h->job ? h->job->readAt(off, qint64(size)) : 0;
    if (!id) {
        fuse_reply_err(req, EIO);
        return;
    }
    h->reads.insert(id, { req, off, size, {} });
}

void MountFs::write(fuse_req *req, quint64, const char *buf, size_t size, qint64 off, fuse_file_info *fi)
{
    FileHandle *h = handleOf(fi);
    const Node *n = m_nodes->find(h->ino);
    if (!h->writing || !n || !n->spool) {
        fuse_reply_err(req, EBADF);
        return;
    }
    Spool *spool = n->spool.get();
    if (const int error = pwriteAll(spool->fd, buf, size, off)) {
        fuse_reply_err(req, error);
        return;
    }
    spool->dirty = true;
    ++spool->generation;
    fuse_reply_write(req, size);
}

void MountFs::flush(fuse_req *req, quint64, fuse_file_info *fi)
{
    FileHandle *h = handleOf(fi);
    Node *n = m_nodes->find(h->ino);
    if (!h->writing || !n) {
        fuse_reply_err(req, 0);
        return;
    }
    upload(n, [req](int error) { fuse_reply_err(req, error); });
}

void MountFs::upload(Node *node, std::function<void(int)> done)
{
    const std::shared_ptr<Spool> spool = node->spool;
    if (!spool || !spool->dirty) {
        done(0);
        return;
    }
    spool->afterUpload.append(std::move(done));
    if (spool->uploading)
        return; // it is told once the running upload ends (and another goes if needed)
    const quint64 generation = spool->generation;
    struct stat st;
    if (::fstat(spool->fd, &st) != 0) {
        const int error = errno;
        for (const auto &w : std::exchange(spool->afterUpload, {}))
            w(error);
        return;
    }
    Qvfs::TransferJob *job = Qvfs::put(node->url, spool->mode, Qvfs::PutOverwrite);
    job->setTotalSize(st.st_size);
    if (spool->mtime >= 0)
        job->setModificationTime(spool->mtime);
    spool->uploading = job;
    auto pos = std::make_shared<qint64>(0);
    connect(job, &Qvfs::TransferJob::dataReq, this, [spool, pos, job](Qvfs::TransferJob *, QByteArray &data) {
        data.resize(256 * 1024);
        ssize_t n;
        do
            n = ::pread(spool->fd, data.data(), size_t(data.size()), *pos);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            data.clear();
            job->kill(Qvfs::Job::EmitResult); // nothing replaces the server's file
            return;
        }
        data.resize(n);
        *pos += n;
    });
    const fuse_ino_t ino = node->ino;
    onResult(this, job, m_options.askDelegate, [this, spool, generation, ino](Qvfs::Job *j) {
        spool->uploading = nullptr;
        const int error = j->error() ? errnoFor(j->error()) : 0;
        if (error)
            qCWarning(QVFS_MOUNT).noquote() << "upload failed:" << j->errorString();
        if (!error && spool->generation == generation) {
            spool->dirty = false;
            spool->mtime = -1;
        }
        Node *n = m_nodes->find(ino);
        if (n && !error) {
            struct stat local;
            if (::fstat(spool->fd, &local) == 0) {
                n->attr.st_size = local.st_size;
                n->attr.st_blocks = local.st_blocks;
                n->attr.st_mtim = n->attr.st_ctim = local.st_mtim;
            }
            invalidate(n);
        }
        QList<std::function<void(int)>> waiters = std::exchange(spool->afterUpload, {});
        if (!error && spool->dirty && n && !waiters.isEmpty()) {
            // Written again while it went up: they wait for the next upload.
            auto all = std::make_shared<QList<std::function<void(int)>>>(std::move(waiters));
            upload(n, [all](int e) {
                for (const auto &w : std::as_const(*all))
                    w(e);
            });
            return;
        }
        for (const auto &w : std::as_const(waiters))
            w(error);
        releaseSpool(ino);
    });
}

void MountFs::releaseSpool(quint64 ino)
{
    Node *n = m_nodes->find(ino);
    if (!n || !n->spool || n->spool->writers > 0 || n->spool->uploading || !n->spool->waitingOpens.isEmpty())
        return;
    if (n->spool->dirty && n->spool->ready) {
        // Closed without a flush that worked: one more try, reported in the log only.
        upload(n, [this, ino](int error) {
            if (Node *n = m_nodes->find(ino); n && error && n->spool) {
                qCWarning(QVFS_MOUNT).noquote()
                    << "lost the changes to" << n->url.toDisplayString(QUrl::RemovePassword);
                n->spool->dirty = false;
                releaseSpool(ino);
            }
        });
        return;
    }
    n->spool.reset();
    m_nodes->dropIfUnused(n);
}

void MountFs::release(fuse_req *req, quint64, fuse_file_info *fi)
{
    FileHandle *h = handleOf(fi);
    const fuse_ino_t ino = h->ino;
    if (h->writing) {
        if (Node *n = m_nodes->find(ino); n && n->spool)
            --n->spool->writers;
    } else {
        if (h->job) {
            h->job->disconnect(this); // its end no longer concerns the handle, deleted now
            h->job->close();
        }
        m_waitingSlots.removeOne(h);
        jobGone(h);
        stopStream(h);
    }
    dropHandle(h);
    releaseSpool(ino);
    fuse_reply_err(req, 0);
}

} // namespace Mount
