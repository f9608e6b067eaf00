// SPDX-License-Identifier: LGPL-2.1-or-later
#include "localtree.h"

#include "rawfs.h"

#include <fcntl.h>
#include <unistd.h>

namespace QvfsConformance
{

namespace
{
bool writeFilled(const QByteArray &path, char fill, qint64 size)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const QByteArray chunk(1024 * 1024, fill);
    bool ok = true;
    for (qint64 done = 0; ok && done < size; done += chunk.size()) {
        const size_t n = size_t(qMin<qint64>(chunk.size(), size - done));
        ok = ::write(fd, chunk.constData(), n) == ssize_t(n);
    }
    return ::close(fd) == 0 && ok;
}
} // namespace

bool seedLocal(const QByteArray &dir, const Tree &tree, QByteArray *why)
{
    for (const Item &item : tree) {
        const QByteArray p = QvfsTest::join(dir, item.path);
        bool ok = false;
        if (item.kind == Item::Dir)
            ok = QvfsTest::mkdirRaw(p);
        else if (item.fill)
            ok = writeFilled(p, item.fill, item.fillSize);
        else
            ok = QvfsTest::writeRaw(p, item.content);
        if (!ok) {
            *why = QByteArray("cannot make " + p);
            return false;
        }
    }
    return true;
}

} // namespace QvfsConformance
