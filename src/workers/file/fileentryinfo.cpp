// SPDX-License-Identifier: LGPL-2.1-or-later
// The user and group names, .hidden and MIME helpers of fileentryinfo_p.h.
#include "fileentryinfo_p.h"

#include <QMimeDatabase>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs::FileEntryInfo
{

QByteArray lookupUser(uint uid, char *buf, size_t size)
{
    passwd pw;
    passwd *res = nullptr;
    return getpwuid_r(uid, &pw, buf, size, &res) == 0 && res ? QByteArray(res->pw_name) : QByteArray();
}

QByteArray lookupGroup(uint gid, char *buf, size_t size)
{
    group gr;
    group *res = nullptr;
    return getgrgid_r(gid, &gr, buf, size, &res) == 0 && res ? QByteArray(res->gr_name) : QByteArray();
}

QByteArrayView NameCache::get(uint id)
{
    // Most listings have one owner: the last answer first, then the hash, then the system.
    if (id == lastId && !last.isNull())
        return last;
    auto it = names.find(id);
    if (it == names.end()) {
        char buf[4096];
        QByteArray name = lookup(id, buf, sizeof buf);
        if (name.isNull())
            name = QByteArray::number(id);
        it = names.insert(id, name);
    }
    lastId = id;
    last = it.value();
    return last;
}

const QMimeDatabase &mimeDatabase()
{
    static const QMimeDatabase db;
    return db;
}

QString mimeTypeOf(int dirfd, const char *path, QByteArrayView name, FileType type)
{
    const QMimeDatabase &db = mimeDatabase();
    const QString fileName = QString::fromLocal8Bit(name.data(), name.size());
    if (type != FileType::Regular)
        return db.mimeTypeForFile(fileName, QMimeDatabase::MatchExtension).name();
    // The name and the first bytes; O_NONBLOCK so that nothing can make the open wait.
    QByteArray head;
    const int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
        head.resize(4096);
        const ssize_t n = read(fd, head.data(), size_t(head.size()));
        head.resize(n > 0 ? n : 0);
        ::close(fd);
    }
    return db.mimeTypeForFileNameAndData(fileName, head).name();
}

QSet<QByteArray> readHiddenFile(int dirfd)
{
    QSet<QByteArray> names;
    // Anyone who can write the folder can make .hidden a fifo: never wait on it.
    const int fd = openat(dirfd, ".hidden", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return names;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return names;
    }
    QByteArray content;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 && content.size() < 1024 * 1024)
        content.append(buf, n);
    ::close(fd);
    for (const QByteArray &line : content.split('\n')) {
        if (!line.isEmpty())
            names.insert(line);
    }
    return names;
}

} // namespace Qvfs::FileEntryInfo
