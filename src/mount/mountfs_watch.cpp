// SPDX-License-Identifier: LGPL-2.1-or-later
// Change notification for a qvfs mount: the folders the kernel has listed or looked a
// name up in, on protocols that can watch (file://, smb://, trash:/), are held by a
// DirLister; what it reports changed goes to the kernel's caches at once
// (KernelNotifier), instead of after the cache timeout.
#include "kernelnotifier_p.h"
#include "mountfs_p.h"
#include "qvfsmount_debug.h"

#include <Qvfs/DirLister>
#include <Qvfs/Protocol>

namespace Mount
{

namespace
{

/*! Enough for the folders one works in, few enough not to use up inotify watches. */
constexpr int MaxWatched = 256;

QList<QByteArray> namesOf(const Qvfs::EntryList &entries)
{
    QList<QByteArray> names;
    names.reserve(entries.size());
    for (const Qvfs::Entry &e : entries)
        names.append(e.name().toByteArray());
    return names;
}

} // namespace

void MountFs::watch(const Node *dir)
{
    if (!m_kernel || dir->kind != Node::Url || m_watched.contains(dir->url) || m_watched.size() >= MaxWatched
        || !Qvfs::Protocol::find(dir->url.scheme()).hasCapability(Qvfs::Protocol::Watch))
        return;
    if (!m_lister) {
        m_lister = new Qvfs::DirLister(this);
        m_lister->setShowHidden(true);
        m_lister->setDetails(MountDetails);
        connect(m_lister, &Qvfs::DirLister::entriesAdded, this, [this](const QUrl &url, const Qvfs::EntryList &e) {
            if (m_lister->isComplete(url)) // (before: the first listing)
                watchedChange(url, namesOf(e), false);
        });
        connect(m_lister, &Qvfs::DirLister::entriesRemoved, this,
            [this](const QUrl &url, const Qvfs::EntryList &e) { watchedChange(url, namesOf(e), false); });
        connect(m_lister, &Qvfs::DirLister::entriesChanged, this,
            [this](const QUrl &url, const Qvfs::EntryList &, const Qvfs::EntryList &after) {
                watchedChange(url, namesOf(after), true);
            });
        connect(m_lister, &Qvfs::DirLister::entryRenamed, this,
            [this](const QUrl &url, const Qvfs::Entry &before, const Qvfs::Entry &after) {
                watchedChange(url, { before.name().toByteArray(), after.name().toByteArray() }, false);
            });
        connect(m_lister, &Qvfs::DirLister::dirGone, this, [this](const QUrl &url) {
            const Node *dir = m_nodes->find(m_watched.value(url));
            if (dir && dir->parent)
                m_kernel->entry(dir->parent, dir->name);
        });
    }
    qCDebug(QVFS_MOUNT) << "watching" << dir->url;
    m_watched.insert(dir->url, dir->ino);
    m_lister->open(dir->url, Qvfs::DirLister::Keep);
}

void MountFs::unwatch(const Node &dir)
{
    const auto it = m_watched.find(dir.url);
    if (it == m_watched.end() || it.value() != dir.ino)
        return;
    m_watched.erase(it);
    m_lister->close(dir.url);
}

void MountFs::watchedChange(const QUrl &folder, const QList<QByteArray> &names, bool data)
{
    Node *dir = m_nodes->find(m_watched.value(folder));
    qCDebug(QVFS_MOUNT) << "changed in" << folder << names << data << bool(dir);
    if (!dir || !m_kernel)
        return;
    m_kernel->inode(dir->ino, false); // its time and size
    for (const QByteArray &name : names) {
        Node *child = m_nodes->child(dir, name);
        if (!child || !data) {
            // New, gone or renamed: the kernel looks the name up again.
            m_kernel->entry(dir->ino, name);
            if (child && !child->spool)
                m_nodes->detach(child);
            continue;
        }
        // Changed in place: its attributes, and its cached pages, are stale — unless this
        // mount is writing it (the change is its own upload).
        if (!child->spool) {
            const Qvfs::Entry e = m_lister->find(folder, name);
            if (!e.isEmpty())
                setAttributes(child, e);
            m_kernel->inode(child->ino, true);
        }
    }
}

} // namespace Mount
