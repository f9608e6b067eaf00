// SPDX-License-Identifier: LGPL-2.1-or-later
// The walk of fileops_walk_p.h: folders by descriptors, a bounded number of them open.
#include "fileops_walk_p.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace Qvfs::FileOps
{

void DirReader::start(int fd, bool rewind)
{
    m_fd = fd;
    m_pos = m_end = 0;
    if (rewind)
        ::lseek(fd, 0, SEEK_SET);
}

struct dirent64 *DirReader::next()
{
    for (;;) {
        if (m_pos >= m_end) {
            errno = 0;
            const ssize_t n = ::getdents64(m_fd, m_buffer, sizeof m_buffer);
            if (n <= 0) {
                if (n == 0)
                    errno = 0;
                return nullptr;
            }
            m_pos = 0;
            m_end = size_t(n);
        }
        auto *e = reinterpret_cast<struct dirent64 *>(m_buffer + m_pos);
        m_pos += e->d_reclen;
        const char *n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
            continue;
        return e;
    }
}

FolderWalk::FolderWalk(Fd root, bool follow)
    : m_follow(follow)
{
    Level top;
    top.fd = root.release();
    m_levels.append(top);
}

FolderWalk::~FolderWalk()
{
    for (const Level &level : std::as_const(m_levels)) {
        if (level.fd >= 0)
            ::close(level.fd);
    }
}

void FolderWalk::queue(const char *name, size_t size)
{
    m_queue.append(name, qsizetype(size));
    m_queue.append('\0');
    ++m_levels.last().queued;
}

QByteArray FolderWalk::nameOf(qsizetype index) const
{
    const qsizetype start = index > 1 ? m_levels.at(index - 1).pathEnd + 1 : 0;
    return m_path.mid(start, m_levels.at(index).pathEnd - start);
}

bool FolderWalk::isLevel(int fd, const Level &level) const
{
    struct stat st;
    return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == level.dev && st.st_ino == level.ino;
}

bool FolderWalk::enterNext(QByteArray *failedName)
{
    Level &current = m_levels.last();
    Q_ASSERT(current.queued > 0);
    // The last name queued: from the NUL before it (or the level's start) to the last NUL.
    const qsizetype end = m_queue.size() - 1;
    qsizetype start = end;
    while (start > current.queueStart && m_queue.at(start - 1) != '\0')
        --start;
    const char *name = m_queue.constData() + start;
    const int fd = ::openat(current.fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (m_follow ? 0 : O_NOFOLLOW));
    const int err = errno;
    --current.queued;
    if (fd < 0) {
        if (failedName)
            *failedName = QByteArray(name, end - start);
        m_queue.truncate(start);
        errno = err;
        return false;
    }
    if (!m_path.isEmpty())
        m_path.append('/');
    m_path.append(name, end - start);
    m_queue.truncate(start);
    Level next;
    next.fd = fd;
    next.pathEnd = m_path.size();
    next.queueStart = m_queue.size();
    m_levels.append(next);
    closeShallowest();
    return true;
}

void FolderWalk::closeShallowest()
{
    while (m_levels.size() - m_firstOpen > MaxOpenLevels) {
        Level &level = m_levels[m_firstOpen];
        struct stat st;
        if (::fstat(level.fd, &st) == 0) {
            level.dev = st.st_dev;
            level.ino = st.st_ino;
        } else {
            level.dev = 0;
            level.ino = 0; // never matches again: reached by name or dropped
        }
        ::close(level.fd);
        level.fd = -1;
        ++m_firstOpen;
    }
}

bool FolderWalk::leave(QByteArray *leftName, qsizetype *abandoned)
{
    Q_ASSERT(m_levels.size() > 1);
    const qsizetype top = m_levels.size() - 1;
    const qsizetype parent = top - 1;
    *abandoned = m_levels.at(top).queued;
    if (leftName)
        *leftName = nameOf(top);
    if (m_levels.at(parent).fd < 0) {
        // ".." leads to the parent, unless the folder was moved meanwhile: check it.
        Fd up(::openat(m_levels.at(top).fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
        if (up.valid() && isLevel(up.get(), m_levels.at(parent)))
            m_levels[parent].fd = up.release();
    }
    const Level left = m_levels.takeLast();
    ::close(left.fd);
    m_queue.truncate(left.queueStart);
    m_path.truncate(parent > 0 ? m_levels.at(parent).pathEnd : 0);
    bool intact = true;
    if (m_levels.at(parent).fd < 0)
        intact = reopenFromRoot(parent, abandoned);
    m_firstOpen = qMin(m_firstOpen, qMax<qsizetype>(1, m_levels.size() - 1));
    return intact;
}

bool FolderWalk::reopenFromRoot(qsizetype index, qsizetype *abandoned)
{
    // Levels 1..index are closed (only the root and the deepest ones are kept open).
    Fd current;
    qsizetype i = 1;
    for (; i <= index; ++i) {
        const int from = i == 1 ? m_levels.first().fd : current.get();
        Fd next(
            ::openat(from, nameOf(i).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (m_follow ? 0 : O_NOFOLLOW)));
        if (!next.valid() || !isLevel(next.get(), m_levels.at(i)))
            break;
        current = std::move(next);
    }
    if (i > index) {
        m_levels[index].fd = current.release();
        m_firstOpen = index;
        return true;
    }
    // Level i is no longer the folder entered: it goes with everything below it.
    for (qsizetype j = i; j <= index; ++j)
        *abandoned += m_levels.at(j).queued;
    m_queue.truncate(m_levels.at(i).queueStart);
    m_levels.resize(i);
    m_path.truncate(i > 1 ? m_levels.at(i - 1).pathEnd : 0);
    if (i > 1) {
        m_levels[i - 1].fd = current.release();
        m_firstOpen = i - 1;
    } else {
        m_firstOpen = 1;
    }
    return false;
}

} // namespace Qvfs::FileOps
