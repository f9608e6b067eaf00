// SPDX-License-Identifier: LGPL-2.1-or-later
#include "rawpath.h"
#include "serverprocess.h"

#include <QTest>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

namespace QvfsTest
{

QByteArray join(QByteArrayView dir, QByteArrayView name)
{
    QByteArray r = dir.toByteArray();
    if (!r.endsWith('/'))
        r += '/';
    r += name;
    return r;
}

bool writeRaw(const QByteArray &path, QByteArrayView content, mode_t mode)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return false;
    const char *p = content.data();
    qsizetype left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            return false;
        }
        p += n;
        left -= n;
    }
    const bool ok = ::fchmod(fd, mode) == 0;
    return ::close(fd) == 0 && ok;
}

QByteArray readRaw(const QByteArray &path, bool *ok)
{
    return ServerProcess::readFile(path, ok);
}

QByteArray contentOf(const QByteArray &path)
{
    bool ok = false;
    const QByteArray data = readRaw(path, &ok);
    return ok ? data : CannotRead.toByteArray();
}

bool mkdirRaw(const QByteArray &path, mode_t mode)
{
    return ::mkdir(path.constData(), 0700) == 0 && ::chmod(path.constData(), mode) == 0;
}

bool symlinkRaw(const QByteArray &target, const QByteArray &path)
{
    return ::symlink(target.constData(), path.constData()) == 0;
}

bool existsRaw(const QByteArray &path)
{
    return ServerProcess::exists(path);
}

struct stat lstatRaw(const QByteArray &path)
{
    struct stat st;
    std::memset(&st, 0, sizeof st);
    if (::lstat(path.constData(), &st) != 0)
        std::memset(&st, 0, sizeof st);
    return st;
}

QByteArray readLinkRaw(const QByteArray &path)
{
    char buf[4096];
    const ssize_t n = ::readlink(path.constData(), buf, sizeof buf);
    return n < 0 ? QByteArray() : QByteArray(buf, n);
}

bool setTimes(const QByteArray &path, qint64 sec, long nsec)
{
    struct timespec t[2];
    t[0].tv_sec = time_t(sec);
    t[0].tv_nsec = nsec;
    t[1] = t[0];
    return ::utimensat(AT_FDCWD, path.constData(), t, AT_SYMLINK_NOFOLLOW) == 0;
}

QList<QByteArray> namesIn(const QByteArray &dir)
{
    QList<QByteArray> names;
    DIR *d = ::opendir(dir.constData());
    if (!d)
        return names;
    while (dirent *e = ::readdir(d)) {
        const char *n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
            continue;
        names.append(QByteArray(n));
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

QList<QByteArray> sorted(QList<QByteArray> list)
{
    std::sort(list.begin(), list.end());
    return list;
}

namespace
{
/*!
 * Removes \a name in the folder \a parentFd, a folder with all it holds: by descriptor,
 * so a tree deeper than PATH_MAX (a hostile server's folders without end) goes too.
 */
void removeAt(int parentFd, const char *name)
{
    struct stat st;
    if (::fstatat(parentFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        ::unlinkat(parentFd, name, 0);
        return;
    }
    ::fchmodat(parentFd, name, 0700, 0);
    const int fd = ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        if (DIR *d = ::fdopendir(fd)) {
            QList<QByteArray> names;
            while (const struct dirent *e = ::readdir(d)) {
                if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                    names.append(QByteArray(e->d_name));
            }
            for (const QByteArray &n : std::as_const(names))
                removeAt(::dirfd(d), n.constData());
            ::closedir(d);
        } else {
            ::close(fd);
        }
    }
    ::unlinkat(parentFd, name, AT_REMOVEDIR);
}
} // namespace

void removeTreeRaw(const QByteArray &path)
{
    if (!path.isEmpty())
        removeAt(AT_FDCWD, path.constData());
}

void findTemporaries(const QByteArray &dir, QList<QByteArray> *found)
{
    const QList<QByteArray> names = namesIn(dir);
    for (const QByteArray &n : names) {
        const QByteArray p = join(dir, n);
        if (n.contains(".qvfs-") && n.endsWith(".part"))
            found->append(p);
        struct stat st;
        if (::lstat(p.constData(), &st) == 0 && S_ISDIR(st.st_mode))
            findTemporaries(p, found);
    }
}

QByteArray pseudoRandom(qsizetype size, quint32 seed)
{
    QByteArray r(size, Qt::Uninitialized);
    quint32 x = seed * 2654435761u + 1;
    for (qsizetype i = 0; i < size; ++i) {
        x = x * 1664525u + 1013904223u;
        r[i] = char(x >> 24);
    }
    return r;
}

bool writeBig(const QByteArray &path, qint64 size)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const QByteArray chunk = pseudoRandom(MiB, 42);
    for (qint64 done = 0; done < size; done += MiB) {
        if (::write(fd, chunk.constData(), size_t(chunk.size())) != chunk.size()) {
            ::close(fd);
            return false;
        }
    }
    return ::close(fd) == 0;
}

QByteArray userName(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? QByteArray(pw->pw_name) : QByteArray::number(uid);
}

QByteArray groupName(gid_t gid)
{
    const group *gr = ::getgrgid(gid);
    return gr ? QByteArray(gr->gr_name) : QByteArray::number(gid);
}

mode_t currentUmask()
{
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
}

// ---------------------------------------------------------------- tree snapshots

namespace
{

void snapshotInto(const QByteArray &root, const QByteArray &rel, QMap<QByteArray, Node> *map)
{
    const QByteArray path = rel.isEmpty() ? root : join(root, rel);
    struct stat st;
    if (::lstat(path.constData(), &st) != 0)
        return;
    Node n;
    n.type = st.st_mode & S_IFMT;
    n.mode = st.st_mode & 07777;
    n.size = S_ISDIR(st.st_mode) ? 0 : qint64(st.st_size);
    n.mtime = st.st_mtim.tv_sec;
    n.mtimeNs = st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode))
        n.content = readRaw(path);
    if (S_ISLNK(st.st_mode))
        n.link = readLinkRaw(path);
    map->insert(rel, n);
    if (S_ISDIR(st.st_mode)) {
        const QList<QByteArray> names = namesIn(path);
        for (const QByteArray &c : names)
            snapshotInto(root, rel.isEmpty() ? c : join(rel, c), map);
    }
}

QByteArray at(const QByteArray &what, const QByteArray &key)
{
    return QByteArray(what + " differs at \"" + key + "\"");
}

} // namespace

QMap<QByteArray, Node> snapshot(const QByteArray &root)
{
    QMap<QByteArray, Node> map;
    snapshotInto(root, QByteArray(), &map);
    return map;
}

void compareTrees(
    const QMap<QByteArray, Node> &expected, const QMap<QByteArray, Node> &actual, bool skipRoot, bool times)
{
    QList<QByteArray> ek = expected.keys();
    QList<QByteArray> ak = actual.keys();
    if (skipRoot) {
        ek.removeAll(QByteArray());
        ak.removeAll(QByteArray());
    }
    QCOMPARE(ak, ek);
    for (const QByteArray &k : std::as_const(ek)) {
        const Node e = expected.value(k);
        const Node a = actual.value(k);
        QVERIFY2(a.type == e.type, at("type", k).constData());
        QVERIFY2(a.mode == e.mode,
            QByteArray(
                at("mode", k) + ": " + QByteArray::number(a.mode, 8) + " instead of " + QByteArray::number(e.mode, 8))
                .constData());
        QVERIFY2(a.size == e.size, at("size", k).constData());
        QVERIFY2(a.content == e.content, at("content", k).constData());
        QVERIFY2(a.link == e.link, at("link target", k).constData());
        if (times) {
            QVERIFY2(a.mtime == e.mtime && a.mtimeNs == e.mtimeNs,
                QByteArray(at("mtime", k) + ": " + QByteArray::number(a.mtime) + '.'
                    + QByteArray::number(qint64(a.mtimeNs)) + " instead of " + QByteArray::number(e.mtime) + '.'
                    + QByteArray::number(qint64(e.mtimeNs)))
                    .constData());
        }
    }
}

bool makeTree(const QByteArray &t, bool fifo)
{
    bool ok = mkdirRaw(t, 0755);
    ok = ok && writeRaw(join(t, "a.txt"), "alpha\n", 0644);
    ok = ok && writeRaw(join(t, ".dot"), "dot", 0600);
    ok = ok && mkdirRaw(join(t, "sub"), 0750);
    ok = ok && writeRaw(join(t, "sub/b.bin"), pseudoRandom(100 * 1024, 7), 0640);
    ok = ok && mkdirRaw(join(t, "sub/empty"), 0700);
    ok = ok && mkdirRaw(join(t, "sub/deep"), 0755);
    ok = ok && mkdirRaw(join(t, "sub/deep/deeper"), 0711);
    ok = ok && writeRaw(join(t, "sub/deep/deeper/c"), "c", 0444);
    ok = ok && symlinkRaw("a.txt", join(t, "link-rel"));
    ok = ok && symlinkRaw(join(t, "a.txt"), join(t, "link-abs"));
    ok = ok && symlinkRaw("does-not-exist", join(t, "link-dangling"));
    ok = ok && symlinkRaw("sub", join(t, "link-dir"));
    if (fifo)
        ok = ok && ::mkfifo(join(t, "fifo").constData(), 0640) == 0 && ::chmod(join(t, "fifo").constData(), 0640) == 0;
    if (!ok)
        return false;
    // children before their parents: reverse order of the sorted relative paths
    QList<QByteArray> keys = snapshot(t).keys();
    std::reverse(keys.begin(), keys.end());
    qint64 i = 0;
    for (const QByteArray &k : std::as_const(keys)) {
        if (!setTimes(k.isEmpty() ? t : join(t, k), 1500000000 + i * 1000, long(123456789 + i)))
            return false;
        ++i;
    }
    return true;
}

QList<QPair<QByteArray, QByteArray>> oddNames()
{
    QByteArray cjk;
    while (cjk.size() < 255)
        cjk += "\xe6\x97\xa5"; // U+65E5, 3 bytes: 85 of them are 255 bytes
    return {
        { "Latin-1 byte", QByteArray("caf\xe9") },
        { "invalid UTF-8", QByteArray("\xff\xfe\x80 bad \xc3(") },
        { "spaces", QByteArray(" two  spaces ") },
        { "newline", QByteArray("line1\nline2") },
        { "leading dash", QByteArray("-rf --help") },
        { "255 bytes", QByteArray(255, 'n') },
        { "255 bytes of 3-byte characters", cjk },
        { "percent, hash, question mark", QByteArray("100% #1 ?x=y&z") },
        { "backslash and quotes", QByteArray("a\\b \"c\" 'd'") },
        { "tab and control bytes", QByteArray("tab\there\x01\x7f") },
        { "dot name with extension", QByteArray(".hidden name.tar.gz") },
        { "looks like a URL", QByteArray("file:%2F%2Fx") },
    };
}

} // namespace QvfsTest
