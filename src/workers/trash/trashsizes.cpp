// SPDX-License-Identifier: LGPL-2.1-or-later
#include "trashsizes_p.h"

#include "fileops_util_p.h"
#include "trashinfo_p.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs::Trash
{

namespace
{
constexpr char FileName[] = "directorysizes";
constexpr qint64 MaxBytes = 16 * 1024 * 1024;
} // namespace

void SizeCache::load(int trashFd)
{
    m_lines.clear();
    m_dirty = false;
    FileOps::Fd fd(::openat(trashFd, FileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid())
        return;
    QByteArray all;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || all.size() + n > MaxBytes)
            break;
        all.append(buf, n);
    }
    for (const QByteArray &line : all.split('\n')) {
        const qsizetype a = line.indexOf(' ');
        const qsizetype b = a < 0 ? -1 : line.indexOf(' ', a + 1);
        if (b < 0)
            continue;
        bool ok1 = false;
        bool ok2 = false;
        const qint64 bytes = line.first(a).toLongLong(&ok1);
        const qint64 mtime = line.sliced(a + 1, b - a - 1).toLongLong(&ok2);
        QByteArray name;
        if (ok1 && ok2 && decodePath(line.sliced(b + 1), &name))
            m_lines.insert(name, { bytes, mtime });
    }
}

qint64 SizeCache::size(const QByteArray &name, qint64 infoMtime) const
{
    const auto it = m_lines.constFind(name);
    if (it == m_lines.cend())
        return -1;
    if (it->mtime == infoMtime || it->mtime / 1000 == infoMtime)
        return it->bytes;
    return -1;
}

void SizeCache::set(const QByteArray &name, qint64 infoMtime, qint64 bytes)
{
    m_lines.insert(name, { bytes, infoMtime });
    m_dirty = true;
}

void SizeCache::remove(const QByteArray &name)
{
    if (m_lines.remove(name))
        m_dirty = true;
}

void SizeCache::retain(const QHash<QByteArray, bool> &names)
{
    for (auto it = m_lines.begin(); it != m_lines.end();) {
        if (names.contains(it.key())) {
            ++it;
        } else {
            it = m_lines.erase(it);
            m_dirty = true;
        }
    }
}

void SizeCache::save(int trashFd)
{
    if (!m_dirty)
        return;
    m_dirty = false;
    QByteArray out;
    for (auto it = m_lines.cbegin(); it != m_lines.cend(); ++it)
        out += QByteArray::number(it->bytes) + ' ' + QByteArray::number(it->mtime) + ' ' + encodePath(it.key()) + '\n';
    const QByteArray tmp = QByteArray(".") + FileName + ".qvfs-" + QByteArray::number(::getpid());
    FileOps::Fd fd(::openat(trashFd, tmp.constData(), O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid())
        return;
    const bool ok = FileOps::writeAll(fd.get(), out);
    fd.reset();
    if (!ok || ::renameat(trashFd, tmp.constData(), trashFd, FileName) < 0)
        ::unlinkat(trashFd, tmp.constData(), 0); // the cache is a cache: without it sizes are counted again
}

} // namespace Qvfs::Trash
