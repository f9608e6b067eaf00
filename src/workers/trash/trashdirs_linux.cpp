// SPDX-License-Identifier: LGPL-2.1-or-later
#include "trashdirs_p.h"

#include "error.h"
#include "mounttable_p.h"

#include <QSet>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace Qvfs::Trash
{

using FileOps::Fd;
using FileOps::OpResult;

namespace
{
/*! The device of \a path, or of its nearest parent that exists; false when none does. */
bool deviceOfNearest(QByteArray path, dev_t *device)
{
    for (;;) {
        struct stat st;
        if (::stat(path.constData(), &st) == 0) {
            *device = st.st_dev;
            return true;
        }
        const qsizetype slash = path.lastIndexOf('/');
        if (slash < 0 || path == "/")
            return false;
        path = slash == 0 ? QByteArray("/") : path.left(slash);
    }
}

/*! Makes the folders of \a path that are missing (0700, as XDG data folders are made). */
void makeParents(const QByteArray &path)
{
    for (qsizetype i = 1; i < path.size(); ++i) {
        if (path.at(i) == '/')
            ::mkdir(path.left(i).constData(), 0700);
    }
    ::mkdir(path.constData(), 0700);
}

/*! The top folder of the volume holding \a path: its highest parent on \a device. */
QByteArray topFolderOf(const QByteArray &path, dev_t device)
{
    QByteArray top = path;
    for (;;) {
        const qsizetype slash = top.lastIndexOf('/');
        if (slash < 0)
            return {};
        const QByteArray parent = slash == 0 ? QByteArray("/") : top.left(slash);
        struct stat st;
        if (::stat(parent.constData(), &st) < 0 || st.st_dev != device)
            return top == path ? QByteArray() : top;
        top = parent;
        if (top == "/")
            return top;
    }
}

/*!
 * Opens the trash of the volume whose top folder \a topFd is (\a topdir): the shared
 * .Trash/$uid when .Trash is a sticky folder (not a link), else .Trash-$uid. With \a
 * kinds 1 only the shared one is tried, 2 only the private one, 3 both in that order.
 */
bool openVolumeTrash(int topFd, const QByteArray &topdir, bool create, int kinds, Folder *out)
{
    const QByteArray uid = QByteArray::number(uint(::geteuid()));
    if (kinds & 1) {
        Fd shared(::openat(topFd, ".Trash", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        struct stat st;
        if (shared.valid() && ::fstat(shared.get(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) {
            Fd mine(openOwnedFolder(shared.get(), uid.constData(), create));
            if (mine.valid()) {
                out->fd = std::move(mine);
                out->path = FileOps::joinPath(topdir, ".Trash/" + uid);
                if (openParts(out, create)) {
                    out->id += 's';
                    return true;
                }
            }
        }
    }
    if (kinds & 2) {
        const QByteArray name = ".Trash-" + uid;
        Fd mine(openOwnedFolder(topFd, name.constData(), create));
        if (mine.valid()) {
            out->fd = std::move(mine);
            out->path = FileOps::joinPath(topdir, name);
            if (openParts(out, create))
                return true;
        }
    }
    return false;
}

bool openHomeTrash(const QByteArray &path, dev_t device, bool create, Folder *out)
{
    QByteArray parent;
    QByteArray name;
    FileOps::splitPath(path, &parent, &name);
    if (create)
        makeParents(parent);
    Fd parentFd(::open(parent.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!parentFd.valid())
        return false;
    out->fd.reset(openOwnedFolder(parentFd.get(), name.constData(), create));
    if (!out->fd.valid() || !openParts(out, create))
        return false;
    // The canonical path: what the trasher compares an entry's canonical path with.
    char *real = ::realpath(parent.constData(), nullptr);
    out->path = real ? FileOps::joinPath(QByteArray(real) == "/" ? QByteArray() : QByteArray(real), name) : path;
    ::free(real);
    out->topdir.clear();
    out->id = "0";
    out->device = device;
    return true;
}

/*! Filesystems that never hold a user's files (and autofs, which a look would mount). */
bool isPseudoFilesystem(QByteArrayView type)
{
    static const char *const types[] = { "autofs", "proc", "sysfs", "cgroup", "cgroup2", "devpts", "devtmpfs", "mqueue",
        "debugfs", "tracefs", "securityfs", "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "binfmt_misc",
        "efivarfs", "nsfs", "rpc_pipefs", "selinuxfs" };
    for (const char *t : types) {
        if (type == t)
            return true;
    }
    return false;
}

/*!
 * Filesystems of other machines, or of a program (FUSE): a look at their top folder may
 * wait on a network, or on the very process that asks (a qvfs mount of trash:/ serves
 * its listing through this worker). Not looked into for trashes, as KIO and GIO do not;
 * FUSE on a local disk (fuseblk: NTFS, exFAT) is.
 */
bool isRemoteFilesystem(QByteArrayView type)
{
    static const char *const types[] = { "fuse", "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph",
        "glusterfs", "lustre", "ncpfs", "coda", "davfs" };
    if (type.startsWith("fuse."))
        return true;
    for (const char *t : types) {
        if (type == t)
            return true;
    }
    return false;
}

} // namespace

/*!
 * Opens the folder \a name in \a parent without following a link, making it (0700) when
 * missing and \a create is set, and checks that it is a folder this user owns. -1 (errno
 * set; EPERM for a wrong owner or type) otherwise.
 */
int openOwnedFolder(int parent, const char *name, bool create)
{
    int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (::mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
            return -1;
        fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    struct stat st;
    if (::fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
        ::close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/*! Opens info/ and files/ of the trash \a f (made when \a create). */
bool openParts(Folder *f, bool create)
{
    f->info.reset(openOwnedFolder(f->fd.get(), "info", create));
    f->files.reset(openOwnedFolder(f->fd.get(), "files", create));
    return f->info.valid() && f->files.valid();
}

QByteArray Folder::originalPath(const QByteArray &infoPath) const
{
    if (infoPath.startsWith('/') || topdir.isEmpty())
        return infoPath;
    return FileOps::joinPath(topdir, infoPath);
}

QByteArray Folder::infoPathFor(const QByteArray &absolutePath) const
{
    if (topdir.isEmpty())
        return absolutePath;
    if (topdir == "/")
        return absolutePath.mid(1);
    if (absolutePath.startsWith(QByteArray(topdir + '/')))
        return absolutePath.mid(topdir.size() + 1);
    return absolutePath;
}

QByteArray homeTrashPath()
{
    QByteArray data = qgetenv("XDG_DATA_HOME");
    if (!data.startsWith('/')) {
        const QByteArray home = qgetenv("HOME");
        if (!home.startsWith('/'))
            return {};
        data = FileOps::joinPath(FileOps::stripTrailingSlashes(home), ".local/share");
    }
    return FileOps::joinPath(FileOps::stripTrailingSlashes(data), "Trash");
}

QByteArray volumeId(dev_t device)
{
    return QByteArray::number(uint(major(device))) + '.' + QByteArray::number(uint(minor(device)));
}

OpResult trashFor(const QByteArray &path, dev_t device, Folder *out)
{
    const QByteArray home = homeTrashPath();
    dev_t homeDevice = 0;
    if (!home.isEmpty() && deviceOfNearest(home, &homeDevice) && homeDevice == device) {
        if (openHomeTrash(home, device, true, out))
            return {};
        return FileOps::makeError(ErrNoTrash, path, errno);
    }
    const QByteArray top = topFolderOf(path, device);
    if (top.isEmpty())
        return FileOps::makeError(ErrNoTrash, path);
    Fd topFd(::open(top.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!topFd.valid() || ::fstat(topFd.get(), &st) < 0 || st.st_dev != device)
        return FileOps::makeError(ErrNoTrash, path, errno);
    out->topdir = top;
    out->device = device;
    out->id = volumeId(device);
    if (!openVolumeTrash(topFd.get(), top, true, 3, out))
        return FileOps::makeError(ErrNoTrash, path, errno);
    return {};
}

namespace
{
struct Volume
{
    QByteArray top;
    Fd fd;
    dev_t device = 0;
};

/*!
 * The volumes a trash of this user may be on besides the home trash's (\a homeDevice,
 * when \a haveHome): every mount that is neither a pseudo filesystem nor a remote one, opened.
 */
std::vector<Volume> otherVolumes(bool haveHome, dev_t homeDevice)
{
    std::vector<Volume> out;
    for (const Internal::MountEntry &m : Internal::mountTable()) {
        if (isPseudoFilesystem(m.type) || isRemoteFilesystem(m.type))
            continue;
        Fd topFd(::open(m.point.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
        struct stat st;
        if (!topFd.valid() || ::fstat(topFd.get(), &st) < 0 || (haveHome && st.st_dev == homeDevice))
            continue;
        out.push_back(Volume { m.point, std::move(topFd), st.st_dev });
    }
    return out;
}
} // namespace

std::vector<Folder> existingTrashes()
{
    std::vector<Folder> out;
    QSet<std::pair<qint64, qint64>> seen; // (device, inode) of each trash folder listed
    auto remember = [&seen](const Folder &f) {
        struct stat st;
        if (::fstat(f.fd.get(), &st) < 0)
            return false;
        const std::pair<qint64, qint64> key(qint64(st.st_dev), qint64(st.st_ino));
        if (seen.contains(key))
            return false;
        seen.insert(key);
        return true;
    };
    const QByteArray home = homeTrashPath();
    dev_t homeDevice = 0;
    const bool haveHome = !home.isEmpty() && deviceOfNearest(home, &homeDevice);
    if (haveHome) {
        Folder f;
        if (openHomeTrash(home, homeDevice, false, &f) && remember(f))
            out.push_back(std::move(f));
    }
    QSet<QByteArray> ids;
    for (const Volume &v : otherVolumes(haveHome, homeDevice)) {
        for (int kind : { 1, 2 }) {
            Folder f;
            f.topdir = v.top;
            f.device = v.device;
            f.id = volumeId(v.device);
            if (!openVolumeTrash(v.fd.get(), v.top, false, kind, &f) || !remember(f) || ids.contains(f.id))
                continue;
            ids.insert(f.id);
            out.push_back(std::move(f));
        }
    }
    return out;
}

QList<Place> trashPlaces()
{
    QList<Place> out;
    // A trash folder made but not yet complete: its info/ or files/ still to come.
    auto incomplete = [&out](const QByteArray &trash) {
        struct stat st;
        if (::lstat(trash.constData(), &st) != 0 || !S_ISDIR(st.st_mode))
            return;
        for (const char *part : { "info", "files" }) {
            if (::lstat(QByteArray(trash + '/' + part).constData(), &st) != 0) {
                out.append(Place { trash, { QByteArray("info"), QByteArray("files") } });
                return;
            }
        }
    };
    const QByteArray uid = QByteArray::number(uint(::geteuid()));
    const QByteArray home = homeTrashPath();
    dev_t homeDevice = 0;
    const bool haveHome = !home.isEmpty() && deviceOfNearest(home, &homeDevice);
    if (haveHome) {
        // The home trash, or the nearest folder above it that exists.
        QByteArray below = home;
        for (;;) {
            QByteArray parent;
            QByteArray name;
            FileOps::splitPath(below, &parent, &name);
            if (parent.isEmpty())
                parent = "/";
            struct stat st;
            if (::stat(parent.constData(), &st) == 0) {
                if (below != home || ::stat(home.constData(), &st) != 0)
                    out.append(Place { parent, { name } });
                break;
            }
            if (parent == "/")
                break;
            below = parent;
        }
        incomplete(home);
    }
    for (const Volume &v : otherVolumes(haveHome, homeDevice)) {
        out.append(Place { v.top, { QByteArray(".Trash"), ".Trash-" + uid } });
        incomplete(FileOps::joinPath(v.top, ".Trash-" + uid));
        struct stat st;
        if (::fstatat(v.fd.get(), ".Trash", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            out.append(Place { FileOps::joinPath(v.top, ".Trash"), { uid } });
            incomplete(FileOps::joinPath(v.top, ".Trash/" + uid));
        }
    }
    return out;
}

} // namespace Qvfs::Trash
