// SPDX-License-Identifier: LGPL-2.1-or-later
// Folders of a qvfs mount: a listing streams into readdirplus replies as its batches
// arrive, every entry with its attributes (ls -l makes no request per name).
#include "mountfs_p.h"
#include "qvfsmount_debug.h"

#include <Qvfs/ListJob>
#include <Qvfs/Protocol>
#include <Qvfs/Url>

#include <cerrno>

namespace Mount
{

namespace
{

DirHandle *dirOf(const fuse_file_info *fi)
{
    return reinterpret_cast<DirHandle *>(fi->fh);
}

/*! What the kernel's d_type needs of \a st: the type bits. */
mode_t typeBits(const struct stat &st)
{
    return st.st_mode & S_IFMT;
}

// readdir without plus has no inode to give for a name the kernel has not looked up.
constexpr ino_t UnknownIno = 0xffffffff;

} // namespace

void MountFs::opendir(fuse_req *req, quint64 ino, fuse_file_info *fi)
{
    Node *node = liveNode(req, ino);
    if (!node)
        return;
    if (node->kind == Node::Url && !canDo(req, node->url, Qvfs::Protocol::List))
        return;
    auto *d = new DirHandle;
    d->ino = ino;
    m_dirs.insert(d, true);
    ++node->opens;
    fi->fh = reinterpret_cast<uint64_t>(d);
    if (node->kind != Node::Url) {
        listVirtual(d, node);
        fuse_reply_open(req, fi);
        return;
    }
    watch(node);
    // Answered at once: the names follow while the listing streams.
    Qvfs::ListJob *job = Qvfs::listDir(node->url, MountDetails);
    d->job = job;
    job->setAskDelegate(m_options.askDelegate);
    connect(job, &Qvfs::ListJob::entries, this, [this, d](Qvfs::ListJob *, const Qvfs::EntryList &list) {
        d->entries.append(list);
        const QList<DirHandle::Waiting> waiting = std::exchange(d->waiting, {});
        for (const DirHandle::Waiting &w : waiting)
            fillDir(d, w.req, w.size, w.off, w.plus);
    });
    connect(job, &Qvfs::Job::result, this, [this, d](Qvfs::Job *j) {
        d->done = true;
        d->error = errnoFor(j->error());
        const QList<DirHandle::Waiting> waiting = std::exchange(d->waiting, {});
        for (const DirHandle::Waiting &w : waiting)
            fillDir(d, w.req, w.size, w.off, w.plus);
    });
    fuse_reply_open(req, fi);
}

void MountFs::listVirtual(DirHandle *d, Node *node)
{
    d->done = true;
    d->isVirtual = true;
    if (node->kind == Node::Space) {
        // The schemes whose folders can be entered (an alias is its protocol's).
        const QStringList schemes = Qvfs::Protocol::schemes();
        for (const QString &s : schemes) {
            if (NodeTable::childUrl(node, s.toUtf8()).isValid())
                d->virtualNames.append(s.toUtf8());
        }
        return;
    }
    // A scheme folder: the hosts entered so far.
    for (auto it = node->children.cbegin(); it != node->children.cend(); ++it)
        d->virtualNames.append(it.key());
    std::sort(d->virtualNames.begin(), d->virtualNames.end());
}

void MountFs::readdir(fuse_req *req, quint64, size_t size, qint64 off, fuse_file_info *fi, bool plus)
{
    fillDir(dirOf(fi), req, size, off, plus);
}

void MountFs::fillDir(DirHandle *d, fuse_req *req, size_t size, qint64 off, bool plus)
{
    const bool isVirtual = d->isVirtual;
    const qint64 count = isVirtual ? d->virtualNames.size() : d->entries.size();
    if (off >= count && !d->done) {
        d->waiting.append({ req, size, off, plus }); // answered when more arrives
        return;
    }
    if (off >= count && d->error) {
        fuse_reply_err(req, d->error); // a listing that broke off is not shown as complete
        return;
    }
    Node *dir = m_nodes->find(d->ino);
    if (!dir) {
        fuse_reply_err(req, ESTALE);
        return;
    }
    QByteArray buf(qsizetype(size), Qt::Uninitialized);
    size_t used = 0;
    for (qint64 i = off; i < count; ++i) {
        Qvfs::Entry entry;
        QByteArray name;
        if (isVirtual) {
            name = d->virtualNames.at(i);
        } else {
            entry = d->entries.at(i);
            name = entry.name().toByteArray();
        }
        // A name that cannot be one file here ('/', "..", NUL, too long) is left out,
        // as the copy path leaves it out: it never names anything outside the tree.
        if (!Qvfs::Url::isSafeName(name) || name.size() > 255)
            continue;
        Node *known = m_nodes->child(dir, name);
        if (!plus) {
            struct stat st = {};
            st.st_ino = known ? known->ino : UnknownIno;
            st.st_mode = isVirtual ? S_IFDIR : typeBits(statFromEntry(entry, 0, m_uid, m_gid));
            const size_t need = fuse_add_direntry(req, buf.data() + used, size - used, name.constData(), &st, i + 1);
            if (need > size - used)
                break;
            used += need;
            continue;
        }
        Node *child = known;
        if (!child) {
            const QUrl url = NodeTable::childUrl(dir, name);
            if (!url.isValid())
                continue;
            child = m_nodes->attach(dir, name, url, dir->kind == Node::Space ? Node::Scheme : Node::Url);
        }
        if (!isVirtual && !child->spool)
            setAttributes(child, entry);
        else if (!child->hasAttr)
            child->attr = virtualFolderStat(child->ino, m_uid, m_gid);
        fuse_entry_param e = {};
        e.ino = child->ino;
        e.attr = child->attr;
        e.attr_timeout = entry.number(Qvfs::Incomplete, 0) == 1 || child->spool ? 0 : timeout();
        e.entry_timeout = timeout();
        const size_t need = fuse_add_direntry_plus(req, buf.data() + used, size - used, name.constData(), &e, i + 1);
        if (need > size - used) {
            m_nodes->dropIfUnused(child);
            break;
        }
        ++child->lookups;
        used += need;
    }
    fuse_reply_buf(req, buf.constData(), used);
}

void MountFs::releasedir(fuse_req *req, quint64, fuse_file_info *fi)
{
    DirHandle *d = dirOf(fi);
    if (d->job) {
        d->job->disconnect(this);
        d->job->kill();
    }
    for (const DirHandle::Waiting &w : std::as_const(d->waiting))
        fuse_reply_err(w.req, EINTR);
    m_dirs.remove(d);
    Node *n = m_nodes->find(d->ino);
    delete d;
    if (n)
        m_nodes->closed(n);
    fuse_reply_err(req, 0);
}

} // namespace Mount
