// SPDX-License-Identifier: LGPL-2.1-or-later
// Temporary files (fileops_tempfile_p.h): O_TMPFILE linked in through /proc/self/fd, or
// a named hidden .part file renamed into place.
#include "fileops_tempfile_p.h"

#include "copyrules.h"

#include "error.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <mutex>
#include <set>
#include <utility>

namespace Qvfs::FileOps
{

namespace
{

// linkat() of an O_TMPFILE file goes through /proc/self/fd (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH).
bool procFdAvailable()
{
    static const bool available = ::access("/proc/self/fd", X_OK) == 0;
    return available;
}

std::mutex &cleanedMutex()
{
    static std::mutex mutex;
    return mutex;
}

// The folders removeStaleTemporaries() looked at (device, inode)
std::set<std::pair<dev_t, ino_t>> &cleanedFolders()
{
    static std::set<std::pair<dev_t, ino_t>> folders;
    return folders;
}

QByteArray randomLetters(int count)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char bytes[16];
    if (::getrandom(bytes, size_t(count), GRND_NONBLOCK) != count) {
        static unsigned counter = 0;
        struct timespec now;
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        unsigned long long seed
            = (unsigned long long)now.tv_nsec ^ ((unsigned long long)::getpid() << 32) ^ (++counter * 2654435761u);
        for (int i = 0; i < count; ++i) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            bytes[i] = (unsigned char)(seed >> 33);
        }
    }
    QByteArray result(count, Qt::Uninitialized);
    for (int i = 0; i < count; ++i)
        result[i] = letters[bytes[i] % (sizeof letters - 1)];
    return result;
}

// Who makes temporaries: "<boot>-<pid namespace>-<pid>-<start time>" (hex but the pid),
// the first 8 hex digits of the boot id, the pid namespace's inode and the process's
// start time in clock ticks after boot. A pid alone is not enough: pids are reused, and
// mean nothing on another machine (a shared filesystem), after a reboot or in another
// pid namespace (a container sharing the folder); such temporaries are never judged.
// Empty when /proc cannot tell all of it (then nobody's temporaries are removed).
struct Owner
{
    pid_t pid = 0;
    QByteArray boot; // 8 hex digits
    QByteArray pidNamespace; // hex
    QByteArray tag;
};

QByteArray readSmallFile(const char *path)
{
    char buffer[1024];
    Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return QByteArray();
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    return n > 0 ? QByteArray(buffer, n) : QByteArray();
}

// The start time (clock ticks after boot) of the process \a pid as /proc sees it ("self"
// for this one), and in \a procPid the pid /proc gives it. Empty if unknown.
QByteArray startTimeOf(const QByteArray &pid, QByteArray *procPid = nullptr)
{
    const QByteArray stat = readSmallFile(QByteArray("/proc/" + pid + "/stat").constData());
    const qsizetype paren = stat.lastIndexOf(')');
    if (paren < 0)
        return QByteArray();
    if (procPid)
        *procPid = stat.left(stat.indexOf(' '));
    const QList<QByteArray> fields = stat.mid(paren + 2).split(' ');
    bool ok = false;
    const qulonglong start = fields.value(19).toULongLong(&ok); // field 22 of proc(5)
    return ok ? QByteArray::number(start, 16) : QByteArray();
}

const Owner &currentOwner()
{
    static Owner owner;
    const pid_t pid = ::getpid();
    if (owner.pid == pid)
        return owner; // computed once per process (again in a forked child)
    owner = Owner();
    owner.pid = pid;
    const QByteArray boot = readSmallFile("/proc/sys/kernel/random/boot_id").left(8);
    struct stat ns;
    QByteArray procPid;
    const QByteArray start = startTimeOf(QByteArrayLiteral("self"), &procPid);
    // /proc must be this pid namespace's, or its pids are not ours
    if (boot.size() != 8 || ::stat("/proc/self/ns/pid", &ns) != 0 || start.isEmpty()
        || procPid != QByteArray::number(qint64(pid)))
        return owner;
    owner.boot = boot.toLower();
    owner.pidNamespace = QByteArray::number(qulonglong(ns.st_ino), 16);
    owner.tag = owner.boot + '-' + owner.pidNamespace + '-' + QByteArray::number(qint64(pid)) + '-' + start;
    return owner;
}

constexpr int RandomLength = 6;

bool isRandomPart(QByteArrayView s)
{
    return s.size() == RandomLength
        && std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

bool isHex(QByteArrayView s, qsizetype maxSize)
{
    return !s.isEmpty() && s.size() <= maxSize
        && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

} // namespace

// Links the O_TMPFILE file \a fd in as \a name: linkat(AT_EMPTY_PATH) on the descriptor
// itself when the kernel lets this process (CAP_DAC_READ_SEARCH; since Linux 6.10 also
// the file's opener), else through /proc/self/fd. The /proc walk (procfs lookups of self,
// fd and the number, and the symlink) was most of the cost of committing a small file: a
// tree copy of 20,000 files of 4 KiB spent a fifth of its time in it. Returns linkat's.
int linkTmpFile(int fd, int dirFd, const char *name)
{
    static std::atomic<bool> emptyPathRefused { false };
    if (!emptyPathRefused.load(std::memory_order_relaxed)) {
        if (::linkat(fd, "", dirFd, name, AT_EMPTY_PATH) == 0)
            return 0;
        if (errno != ENOENT && errno != EPERM)
            return -1;
    }
    char procPath[64];
    std::snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", fd);
    const int rc = ::linkat(AT_FDCWD, procPath, dirFd, name, AT_SYMLINK_FOLLOW);
    if (rc == 0)
        emptyPathRefused.store(true, std::memory_order_relaxed); // refused, not a missing folder
    return rc;
}

QByteArray tempName(const QByteArray &name)
{
    // copyrules.h's rule, the tag recording this process (ownerOfTempName())
    const QByteArray &owner = currentOwner().tag;
    const QByteArray letters = randomLetters(RandomLength);
    return temporaryNameFor(name, owner.isEmpty() ? letters : owner + '-' + letters);
}

TempOwner ownerOfTempName(QByteArrayView name)
{
    QByteArrayView middle;
    // A local temporary always carries the name it stands for: ".<name>.qvfs-<tag>.part".
    if (!isTemporaryName(name, &middle) || middle.data() - name.data() < qsizetype(sizeof ".x.qvfs-") - 1)
        return TempOwner::None;
    if (isRandomPart(middle))
        return TempOwner::Alive; // no owner recorded: cannot be judged
    const QList<QByteArray> parts = middle.toByteArray().split('-');
    if (parts.size() != 5 || parts.at(0).size() != 8 || !isHex(parts.at(0), 8) || !isHex(parts.at(1), 16)
        || !isHex(parts.at(3), 16) || !isRandomPart(parts.at(4)))
        return TempOwner::None;
    bool ok = false;
    const qint64 pid = parts.at(2).toLongLong(&ok);
    if (!ok || pid <= 0 || pid > INT_MAX || parts.at(2) != QByteArray::number(pid))
        return TempOwner::None;
    const Owner &me = currentOwner();
    if (me.tag.isEmpty() || parts.at(0) != me.boot || parts.at(1) != me.pidNamespace)
        return TempOwner::Alive; // another machine, boot or namespace: its pids are not ours
    if (pid == me.pid)
        return me.tag.endsWith(QByteArray('-' + parts.at(3))) ? TempOwner::Alive : TempOwner::Gone;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
        return TempOwner::Gone;
    // a process with that pid exists: the same one, or a later one (pid reused)
    const QByteArray start = startTimeOf(parts.at(2));
    return !start.isEmpty() && start != parts.at(3) ? TempOwner::Gone : TempOwner::Alive;
}

void removeStaleTemporaries(int dirFd)
{
    struct stat dir;
    if (::fstat(dirFd, &dir) != 0)
        return;
    {
        const std::lock_guard<std::mutex> lock(cleanedMutex());
        std::set<std::pair<dev_t, ino_t>> &cleaned = cleanedFolders();
        if (!cleaned.insert({ dir.st_dev, dir.st_ino }).second)
            return;
        if (cleaned.size() > 4096) {
            cleaned.clear();
            cleaned.insert({ dir.st_dev, dir.st_ino });
        }
    }
    DirStream entries(Fd(::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
    if (!entries.valid())
        return;
    const uid_t me = ::geteuid();
    while (struct dirent *e = entries.next()) {
        const QByteArrayView name(e->d_name);
        if (!isTemporaryName(name) || ownerOfTempName(name) != TempOwner::Gone)
            continue;
        struct stat st;
        if (::fstatat(dirFd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) && st.st_uid == me)
            ::unlinkat(dirFd, e->d_name, 0);
    }
}

void forgetCleanedFolders()
{
    const std::lock_guard<std::mutex> lock(cleanedMutex());
    cleanedFolders().clear();
}

OpResult openTempFile(
    int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, mode_t mode, bool allowTmpFile, TempFile *tmp)
{
    if (allowTmpFile && procFdAvailable()) {
        const int fd = ::openat(dstDirFd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        if (fd >= 0) {
            tmp->fd.reset(fd);
            return OpResult();
        }
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    removeStaleTemporaries(dstDirFd);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const QByteArray name = tempName(dstName);
        const int fd = ::openat(dstDirFd, name.constData(), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            tmp->fd.reset(fd);
            tmp->dirFd = dstDirFd;
            tmp->name = name;
            return OpResult();
        }
        if (errno != EEXIST)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    return makeError(ErrCannotWrite, dstPath);
}

OpResult commitTempFile(TempFile *tmp, int dstDirFd, const QByteArray &dstName, const QByteArray &dstPath, bool replace)
{
    if (tmp->name.isEmpty()) {
        if (!replace) {
            // fails with EEXIST if the name was taken meanwhile: nothing is overwritten
            if (linkTmpFile(tmp->fd.get(), dstDirFd, dstName.constData()) != 0)
                return errnoResult(errno, Operation::Write, dstPath);
            return OpResult();
        }
        // give it a hidden unique name, then rename it over the destination
        removeStaleTemporaries(dstDirFd);
        for (int attempt = 0;; ++attempt) {
            const QByteArray name = tempName(dstName);
            if (linkTmpFile(tmp->fd.get(), dstDirFd, name.constData()) == 0) {
                tmp->dirFd = dstDirFd;
                tmp->name = name;
                break;
            }
            if (errno != EEXIST || attempt == 100)
                return errnoResult(errno, Operation::Write, dstPath);
        }
    }
    // a named temporary: close first, some filesystems report write errors on close
    if (::close(tmp->fd.release()) != 0 && errno != EINTR)
        return errnoResult(errno, Operation::Write, dstPath);
    if (replace) {
        if (::renameat(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData()) != 0)
            return errnoResult(errno, Operation::Write, dstPath);
    } else if (::renameat2(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData(), RENAME_NOREPLACE) != 0) {
        if (errno != EINVAL && errno != ENOSYS)
            return errnoResult(errno, Operation::Write, dstPath);
        // no RENAME_NOREPLACE here: check, then rename (racy, but nothing better exists)
        struct stat st;
        if (::fstatat(dstDirFd, dstName.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            return makeError(ErrAlreadyExists, dstPath);
        if (::renameat(dstDirFd, tmp->name.constData(), dstDirFd, dstName.constData()) != 0)
            return errnoResult(errno, Operation::Write, dstPath);
    }
    tmp->name.clear(); // committed
    return OpResult();
}

} // namespace Qvfs::FileOps
