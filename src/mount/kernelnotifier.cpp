// SPDX-License-Identifier: LGPL-2.1-or-later
#include "kernelnotifier_p.h"

namespace Mount
{

KernelNotifier::KernelNotifier(fuse_session *session)
    : m_session(session)
    , m_thread([this] { run(); })
{ }

KernelNotifier::~KernelNotifier()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_one();
    m_thread.join();
}

void KernelNotifier::inode(fuse_ino_t ino, bool data)
{
    push({ ino, data, {} });
}

void KernelNotifier::entry(fuse_ino_t parent, const QByteArray &name)
{
    push({ parent, false, name });
}

void KernelNotifier::push(Item item)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(std::move(item));
    }
    m_wake.notify_one();
}

void KernelNotifier::run()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
        if (m_queue.empty())
            return; // stopping, and everything was sent
        const Item item = std::move(m_queue.front());
        m_queue.pop_front();
        lock.unlock();
        // ENOENT: the kernel has forgotten it already; after unmounting: ENOTCONN.
        if (!item.name.isEmpty())
            fuse_lowlevel_notify_inval_entry(m_session, item.ino, item.name.constData(), size_t(item.name.size()));
        else
            fuse_lowlevel_notify_inval_inode(m_session, item.ino, item.data ? 0 : -1, 0);
        lock.lock();
    }
}

} // namespace Mount
