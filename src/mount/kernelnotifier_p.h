// SPDX-License-Identifier: LGPL-2.1-or-later
// Tells the kernel what changed (its cached names, attributes and pages), from a thread
// of its own: a notification may wait for a lock the kernel holds while it waits for
// one of our replies, which only the event loop's thread sends. Internal to the mount.
#ifndef QVFS_KERNELNOTIFIER_P_H
#define QVFS_KERNELNOTIFIER_P_H

#include "fuseapi_p.h"

#include <QByteArray>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace Mount
{

class KernelNotifier
{
public:
    explicit KernelNotifier(fuse_session *session);
    /*! Sends what is queued, then stops. */
    ~KernelNotifier();
    KernelNotifier(const KernelNotifier &) = delete;
    KernelNotifier &operator=(const KernelNotifier &) = delete;

    /*! The attributes of \a ino, and with \a data its cached pages too, are stale. */
    void inode(fuse_ino_t ino, bool data);
    /*! The name \a name in the folder \a parent is stale (gone, new, or another file now). */
    void entry(fuse_ino_t parent, const QByteArray &name);

private:
    struct Item
    {
        fuse_ino_t ino;
        bool data;
        QByteArray name; //!< set: an entry of the folder ino
    };
    void push(Item item);
    void run();

    fuse_session *m_session;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Item> m_queue;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace Mount

#endif
