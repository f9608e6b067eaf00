// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-worker-example: a complete worker built outside Qvfs's source tree, against the
// installed Qvfs::Worker package. It serves example:///path as the files below the folder
// $QVFS_EXAMPLE_ROOT (never outside it: every path is resolved beneath that folder by the
// kernel, openat2 with RESOLVE_BENEATH), with names as raw bytes. Writes go through the
// worker library's AtomicUpload: a file appears only once complete.
//
// Read it as a template: one class, one hook per command its JSON file declares.

#include <Qvfs/AtomicUpload>
#include <Qvfs/Url>
#include <Qvfs/WorkerBase>

#include <QList>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

using namespace Qvfs;

namespace
{

/*! An owned file descriptor. */
class Fd
{
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    { }
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd &operator=(Fd &&other) noexcept
    {
        if (this != &other) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_fd = other.release();
        }
        return *this;
    }
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

int errorOf(int err)
{
    switch (err) {
    case ENOENT:
        return ErrDoesNotExist;
    case EACCES:
    case EPERM:
        return ErrAccessDenied;
    case EEXIST:
        return ErrAlreadyExists;
    case EISDIR:
        return ErrIsDirectory;
    case ENOTDIR:
        return ErrIsNotDirectory;
    case ENOTEMPTY:
        return ErrDirectoryNotEmpty;
    case ENOSPC:
    case EDQUOT:
        return ErrDiskFull;
    case ENAMETOOLONG:
        return ErrNameTooLong;
    case EXDEV:
        return ErrUnsafeName; // a path that would leave the root
    default:
        return ErrCannotWrite;
    }
}

class ExampleWorker : public WorkerBase
{
public:
    ExampleWorker()
        : WorkerBase(QByteArrayLiteral("example"))
    { }

protected:
    void setHost(const QUrl &) override
    {
        // One "host": the root folder, opened when the first command comes.
        const QByteArray root = qgetenv("QVFS_EXAMPLE_ROOT");
        m_root = Fd(root.isEmpty() ? -1 : ::open(root.constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    }

    void closeConnection() override { m_root = Fd(); }

    WorkerResult listDir(const ListRequest &r) override
    {
        // Folders still to list, relative to r.url ("" first); a recursive listing names
        // entries by their path below it.
        QList<QByteArray> todo { QByteArray() };
        while (!todo.isEmpty()) {
            const QByteArray prefix = todo.takeLast();
            const QUrl folder = prefix.isEmpty() ? r.url : Url::child(r.url, prefix);
            Fd dir(openBeneath(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
            if (!dir.valid()) {
                if (prefix.isEmpty())
                    return failErrno(r.url);
                continue; // gone or unreadable meanwhile: listed, not entered
            }
            DIR *d = ::fdopendir(dir.release());
            if (!d)
                return failErrno(folder);
            while (dirent *e = ::readdir(d)) {
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
                    continue;
                struct stat st;
                if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                    continue; // gone meanwhile
                const QByteArray name = prefix.isEmpty() ? QByteArray(e->d_name) : prefix + '/' + e->d_name;
                addEntry(name, st, r.details);
                if (r.recursive && S_ISDIR(st.st_mode))
                    todo.append(name);
            }
            ::closedir(d);
            if (wasKilled())
                return WorkerResult::fail(ErrCancelled, r.url);
        }
        return WorkerResult::pass();
    }

    WorkerResult stat(const StatRequest &r) override
    {
        Fd fd(openBeneath(r.url, O_PATH | O_NOFOLLOW));
        struct stat st;
        if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
            return failErrno(r.url);
        const QByteArray name = Url::fileName(r.url);
        addEntry(name.isEmpty() ? QByteArrayLiteral("/") : name, st, r.details);
        return WorkerResult::pass();
    }

    WorkerResult get(const GetRequest &r) override
    {
        Fd fd(openBeneath(r.url, O_RDONLY | O_NOFOLLOW));
        struct stat st;
        if (!fd.valid() || ::fstat(fd.get(), &st) != 0)
            return failErrno(r.url);
        if (S_ISDIR(st.st_mode))
            return WorkerResult::fail(ErrIsDirectory, r.url);
        if (r.offset > 0 && ::lseek(fd.get(), r.offset, SEEK_SET) < 0)
            return failErrno(r.url);
        setTotals(qint64(st.st_size) - r.offset, 1);
        char buf[64 * 1024];
        qint64 done = 0;
        for (;;) {
            const ssize_t n = ::read(fd.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return failErrno(r.url);
            if (n == 0 || wasKilled())
                break;
            data(QByteArrayView(buf, n));
            setProcessed(done += n);
        }
        return wasKilled() ? WorkerResult::fail(ErrCancelled, r.url) : WorkerResult::pass();
    }

    WorkerResult put(const PutRequest &r) override
    {
        AtomicUpload::Operations ops;
        ops.write = [&](const QUrl &temporary) {
            Fd fd(openBeneath(
                temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, r.permissions >= 0 ? r.permissions : 0666));
            if (!fd.valid())
                return failErrno(r.url);
            QByteArray chunk;
            qint64 done = 0;
            while (readData(&chunk)) {
                if (::write(fd.get(), chunk.constData(), size_t(chunk.size())) != chunk.size())
                    return failErrno(r.url);
                setProcessed(done += chunk.size());
            }
            if (wasKilled())
                return WorkerResult::fail(ErrCancelled, r.url);
            if (r.mtime >= 0) {
                const timespec times[2] = { { 0, UTIME_OMIT }, { time_t(r.mtime), long(r.mtimeNs) } };
                ::futimens(fd.get(), times);
            }
            return WorkerResult::pass();
        };
        ops.rename = [&](const QUrl &from, const QUrl &to, bool overwrite) {
            return renameBeneath(from, to, overwrite) ? WorkerResult::pass() : failErrno(to);
        };
        ops.remove = [&](const QUrl &temporary) { unlinkBeneath(temporary); };
        return AtomicUpload::run(r.url, r.overwrite, ops);
    }

    WorkerResult mkdir(const MkdirRequest &r) override
    {
        const QByteArray name = Url::fileName(r.url);
        if (!Url::isSafeName(name)) // the root: it exists
            return r.parents ? WorkerResult::pass() : WorkerResult::fail(ErrAlreadyExists, r.url);
        Fd parent(openBeneath(Url::parent(r.url), O_PATH | O_DIRECTORY));
        if (!parent.valid() && errno == ENOENT && r.parents) {
            // `mkdir -p`: the missing parents first.
            MkdirRequest parents;
            parents.url = Url::parent(r.url);
            parents.parents = true;
            const WorkerResult up = mkdir(parents);
            if (!up.ok())
                return up;
            parent = Fd(openBeneath(Url::parent(r.url), O_PATH | O_DIRECTORY));
        }
        if (!parent.valid())
            return failErrno(r.url);
        if (::mkdirat(parent.get(), name.constData(), r.permissions >= 0 ? mode_t(r.permissions) : 0777) != 0) {
            struct stat st;
            if (errno == EEXIST && r.parents && ::fstatat(parent.get(), name.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0
                && S_ISDIR(st.st_mode))
                return WorkerResult::pass();
            return failErrno(r.url);
        }
        return WorkerResult::pass();
    }

    WorkerResult del(const DeleteRequest &r) override
    {
        Fd parent(openBeneath(Url::parent(r.url), O_PATH | O_DIRECTORY));
        const QByteArray name = Url::fileName(r.url);
        if (!Url::isSafeName(name))
            return WorkerResult::fail(ErrAccessDenied, r.url); // the root itself
        if (!parent.valid())
            return failErrno(r.url);
        qint64 removed = 0;
        const bool ok = r.scope == DeleteRequest::Scope::Tree
            ? removeTree(parent.get(), name, &removed)
            : (::unlinkat(parent.get(), name.constData(), 0) == 0
                || (r.scope == DeleteRequest::Scope::Entry && errno == EISDIR
                    && ::unlinkat(parent.get(), name.constData(), AT_REMOVEDIR) == 0));
        const int err = errno;
        if (ok && r.scope != DeleteRequest::Scope::Tree)
            removed = 1;
        setResult(ResultKey::Removed, removed);
        if (!ok)
            return WorkerResult::fail(wasKilled() ? int(ErrCancelled) : errorOf(err), r.url);
        return WorkerResult::pass();
    }

    WorkerResult rename(const RenameRequest &r) override
    {
        return renameBeneath(r.source, r.destination, r.overwrite) ? WorkerResult::pass() : failErrno(r.destination);
    }

private:
    /*! The path of \a url below the root, relative ("." for the root itself). */
    static QByteArray relative(const QUrl &url)
    {
        QByteArray path = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
        while (path.startsWith('/'))
            path.remove(0, 1);
        return path.isEmpty() ? QByteArrayLiteral(".") : path;
    }

    /*! Opens \a url beneath the root: the kernel refuses "..", absolute links and the like. */
    int openBeneath(const QUrl &url, int flags, int mode = 0)
    {
        if (!m_root.valid()) {
            errno = ENOENT;
            return -1;
        }
        const QByteArray path = relative(url);
        if (path.contains('\0')) {
            errno = ENOENT;
            return -1;
        }
        open_how how {};
        how.flags = quint64(flags | O_CLOEXEC);
        how.mode = quint64((flags & O_CREAT) ? mode : 0);
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, m_root.get(), path.constData(), &how, sizeof how);
        return int(fd);
    }

    void unlinkBeneath(const QUrl &url)
    {
        Fd parent(openBeneath(Url::parent(url), O_PATH | O_DIRECTORY));
        const QByteArray name = Url::fileName(url);
        if (parent.valid() && Url::isSafeName(name))
            ::unlinkat(parent.get(), name.constData(), 0);
    }

    /*! Deletes \a name in the folder \a dirFd with everything inside, never following a link. */
    bool removeTree(int dirFd, const QByteArray &name, qint64 *removed)
    {
        if (::unlinkat(dirFd, name.constData(), 0) == 0) {
            ++*removed;
            return true;
        }
        if (errno != EISDIR)
            return false;
        Fd sub(::openat(dirFd, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!sub.valid())
            return false;
        DIR *d = ::fdopendir(::dup(sub.get()));
        if (!d)
            return false;
        QList<QByteArray> names;
        while (dirent *e = ::readdir(d)) {
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                names.append(QByteArray(e->d_name));
        }
        ::closedir(d);
        for (const QByteArray &child : std::as_const(names)) {
            if (wasKilled() || !removeTree(sub.get(), child, removed))
                return false;
        }
        if (::unlinkat(dirFd, name.constData(), AT_REMOVEDIR) != 0)
            return false;
        ++*removed;
        return true;
    }

    bool renameBeneath(const QUrl &from, const QUrl &to, bool overwrite)
    {
        Fd a(openBeneath(Url::parent(from), O_PATH | O_DIRECTORY));
        Fd b(openBeneath(Url::parent(to), O_PATH | O_DIRECTORY));
        const QByteArray na = Url::fileName(from), nb = Url::fileName(to);
        if (!a.valid() || !b.valid() || !Url::isSafeName(na) || !Url::isSafeName(nb))
            return false;
        return ::renameat2(a.get(), na.constData(), b.get(), nb.constData(), overwrite ? 0 : RENAME_NOREPLACE) == 0;
    }

    void addEntry(const QByteArray &name, const struct stat &st, Details details)
    {
        beginEntry();
        addString(Name, name);
        const FileType type = S_ISDIR(st.st_mode) ? FileType::Directory
            : S_ISREG(st.st_mode)                 ? FileType::Regular
            : S_ISLNK(st.st_mode)                 ? FileType::Symlink
                                                  : FileType::Unknown;
        addNumber(Type, qint64(type));
        if (details & DetailBasic) {
            addNumber(Mode, st.st_mode & 07777);
            addNumber(Size, st.st_size);
        }
        if (details & DetailTime) {
            addNumber(MTime, st.st_mtim.tv_sec);
            addNumber(MTimeNs, st.st_mtim.tv_nsec);
        }
        if (name.startsWith('.'))
            addNumber(Hidden, 1);
        endEntry();
    }

    static WorkerResult failErrno(const QUrl &url) { return WorkerResult::fail(errorOf(errno), url); }

    Fd m_root;
};

} // namespace

int main(int argc, char **argv)
{
    std::signal(SIGPIPE, SIG_IGN);
    ExampleWorker worker;
    return worker.exec(argc, argv);
}
