// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs cp, qvfs mv.
#include "commands.h"
#include "progress.h"
#include "rawpath_p.h"
#include "terminalask.h"

#include <Qvfs/CopyJob>
#include <Qvfs/CopyRules>
#include <Qvfs/Error>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <memory>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace Cli
{

namespace
{

enum CopyOption { OptRecursive = 1, OptForce, OptNoClobber, OptRename };

bool isSpecial(mode_t mode)
{
    return S_ISFIFO(mode) || S_ISCHR(mode) || S_ISBLK(mode) || S_ISSOCK(mode);
}

/*!
 * Whether the local \a path, a source named on the command line, is copied as the data
 * read from it, as `cp` without -r does: a pipe or a device, a link to one
 * (`<(echo x)` is /dev/fd/63 -> pipe:[...]), or a link through /proc, which means
 * something else in every process (/dev/stdin -> /proc/self/fd/0). Copying those as
 * links or device nodes would give nothing of what the user sees.
 */
bool copiesAsData(const QByteArray &path)
{
    struct stat st;
    if (::lstat(path.constData(), &st) != 0)
        return false;
    if (!S_ISLNK(st.st_mode))
        return isSpecial(st.st_mode);
    struct stat target;
    if (::stat(path.constData(), &target) == 0 && isSpecial(target.st_mode))
        return true;
    QByteArray link = path;
    for (int hop = 0; hop < 40; ++hop) {
        struct statfs fs;
        if (::statfs(Qvfs::Internal::parentPath(link).constData(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)
            return true;
        char buf[PATH_MAX];
        const ssize_t n = ::readlink(link.constData(), buf, sizeof buf);
        if (n <= 0 || size_t(n) >= sizeof buf)
            return false;
        QByteArray next(buf, n);
        if (!next.startsWith('/'))
            next = Qvfs::Internal::joinPath(Qvfs::Internal::parentPath(link), next);
        if (::lstat(next.constData(), &st) != 0 || !S_ISLNK(st.st_mode))
            return false;
        link = next;
    }
    return false;
}

/*! A free name for the file \a url in its folder, by the library's rule (an invalid URL when none is free). */
QUrl freeName(const QUrl &url)
{
    const QByteArray name = Qvfs::Url::fileName(url);
    const QUrl folder = Qvfs::Url::parent(url);
    for (int attempt = 0; attempt < Qvfs::MaxFreeNameAttempts; ++attempt) {
        const QUrl candidate = Qvfs::Url::child(folder, Qvfs::freeNameCandidate(name, false, attempt));
        if (!candidate.isValid())
            break;
        Qvfs::StatJob *job = Qvfs::stat(candidate, Qvfs::DetailBasic);
        prepareJob(job);
        if (!job->exec() && job->error() == Qvfs::ErrDoesNotExist)
            return candidate;
    }
    return QUrl();
}

/*! What became of one source. */
enum class Outcome { Done, Failed, Cancelled };

/*!
 * Copies the data of the local source \a arg (\a path; see copiesAsData()) to \a dest,
 * or into it when \a destIsFolder, with *\a policy for an existing file (an answer for
 * all changes it).
 */
Outcome copyData(const QByteArray &arg, const QByteArray &path, const QUrl &dest, bool destIsFolder,
    Qvfs::ConflictPolicy *policy, ProgressBar *bar)
{
    using Qvfs::ConflictPolicy;
    QUrl target = destIsFolder ? Qvfs::Url::child(dest, lastSegment(path)) : dest;
    if (!target.isValid()) {
        error(QCoreApplication::translate("qvfs", "invalid path or URL: %1").arg(nameArg(arg)));
        setFailed();
        return Outcome::Failed;
    }
    Qvfs::PutFlags flags = Qvfs::PutDefault;
    if (*policy == ConflictPolicy::Overwrite) {
        flags = Qvfs::PutOverwrite;
    } else if (*policy != ConflictPolicy::Fail) {
        // Fail is the worker's: put refuses an existing file by itself.
        Qvfs::StatJob *job = Qvfs::stat(target, Qvfs::DetailBasic);
        prepareJob(job);
        const bool exists = job->exec();
        if (!exists && job->error() != Qvfs::ErrDoesNotExist) {
            jobError(job);
            return Outcome::Failed;
        }
        ConflictPolicy action = *policy;
        if (exists && action == ConflictPolicy::Ask) {
            const Qvfs::ConflictAnswer answer = TerminalAsk::instance()->askConflict(target);
            switch (answer.action) {
            case Qvfs::ConflictAction::Overwrite:
                action = ConflictPolicy::Overwrite;
                break;
            case Qvfs::ConflictAction::Skip:
                action = ConflictPolicy::Skip;
                break;
            case Qvfs::ConflictAction::Rename:
                action = ConflictPolicy::Rename;
                break;
            case Qvfs::ConflictAction::Cancel:
                reportError(answer.answered ? Qvfs::ErrCancelled : Qvfs::ErrNotAnswered,
                    { target.toString(QUrl::FullyEncoded) });
                return Outcome::Cancelled;
            }
            if (answer.applyToAll)
                *policy = action;
        }
        if (exists && action == ConflictPolicy::Skip)
            return Outcome::Done;
        if (exists && action == ConflictPolicy::Rename) {
            const QUrl free = freeName(target);
            if (!free.isValid()) {
                reportError(Qvfs::ErrAlreadyExists, { target.toString(QUrl::FullyEncoded) });
                return Outcome::Failed;
            }
            target = free;
        }
        if (exists && action == ConflictPolicy::Overwrite)
            flags = Qvfs::PutOverwrite;
    }

    // Opened here, in this process: /dev/stdin and /dev/fd/N are ours, not the worker's.
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        error(QCoreApplication::translate("qvfs", "cannot open %1 for reading: %2")
                  .arg(nameArg(arg), QString::fromLocal8Bit(strerror(err))));
        setFailed();
        return Outcome::Failed;
    }
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        error(QCoreApplication::translate("qvfs", "-r not specified; omitting directory %1").arg(nameArg(arg)));
        setFailed();
        return Outcome::Failed;
    }
    const bool ok = putFromDescriptor(fd, nameArg(arg), target, flags, bar);
    ::close(fd);
    return ok ? Outcome::Done : Outcome::Failed;
}

/*!
 * Whether copying or moving \a src to \a dest would put a folder into itself. The paths
 * are compared decoded ("x/%2E%2E/x" is "x"), as the worker will see them.
 */
bool intoItself(
    const char *command, const QByteArray &arg, const QUrl &src, const QByteArray &destArg, const QUrl &dest)
{
    if (!sameLocation(src, dest)
        || !isSameOrBelow(cleanAbsolutePath(decodedPath(dest)), cleanAbsolutePath(decodedPath(src))))
        return false;
    Qvfs::StatJob *job = Qvfs::stat(src, Qvfs::DetailBasic);
    prepareJob(job);
    if (!job->exec() || !job->statResult().isDir())
        return false; // the job reports it
    if (qstrcmp(command, "mv") == 0)
        error(QCoreApplication::translate("qvfs", "cannot move %1 to a subfolder of itself, %2")
                  .arg(nameArg(arg), nameArg(destArg)));
    else
        error(QCoreApplication::translate("qvfs", "cannot copy a folder, %1, into itself, %2")
                  .arg(nameArg(arg), nameArg(destArg)));
    setFailed();
    return true;
}

int runCopy(const char *command, const QList<QByteArray> &args, bool move)
{
    QList<OptionSpec> specs { { OptForce, 'f', "force" }, { OptNoClobber, 'n', "no-clobber" },
        { OptRename, 0, "rename" } };
    if (!move) {
        specs.append({ OptRecursive, 'r', "recursive" });
        specs.append({ OptRecursive, 'R', nullptr });
    }
    Parsed p;
    int status = Ok;
    if (!prepare(command, args, specs, &p, &status))
        return status;
    if (p.operands.isEmpty())
        return usageError(command, QCoreApplication::translate("qvfs", "missing file operand"));
    if (p.operands.size() == 1)
        return usageError(command,
            QCoreApplication::translate("qvfs", "missing destination file operand after %1")
                .arg(nameArg(p.operands.first())));
    const QByteArray destArg = p.operands.last();
    const QList<QByteArray> sources = p.operands.first(p.operands.size() - 1);
    const QUrl dest = toUrl(destArg);
    if (!dest.isValid())
        return ctx().status;
    // Whether dest is an existing folder (-1: not known yet).
    int destIsFolder = -1;
    auto statDest = [&dest, &destIsFolder]() {
        Qvfs::StatJob *job = Qvfs::stat(dest, Qvfs::DetailBasic | Qvfs::DetailResolveSymlink);
        prepareJob(job);
        if (!job->exec() && job->error() != Qvfs::ErrDoesNotExist) {
            jobError(job);
            return false;
        }
        destIsFolder = !job->error() && job->statResult().isDir();
        return true;
    };
    if (sources.size() > 1) {
        // Several sources go into a folder, which must exist.
        if (!statDest())
            return ctx().status;
        if (!destIsFolder) {
            error(QCoreApplication::translate("qvfs", "target %1 is not a folder").arg(nameArg(destArg)));
            setFailed();
            return ctx().status;
        }
    }

    Qvfs::ConflictPolicy policy = conflictPolicy(p, OptForce, OptNoClobber, OptRename);
    const bool recursive = p.has(OptRecursive);

    std::unique_ptr<ProgressBar> bar;
    if (ProgressBar::wanted(false))
        bar = std::make_unique<ProgressBar>(ProgressBar::Transfer);
    for (const QByteArray &arg : sources) {
        const QUrl src = toUrl(arg);
        if (!src.isValid())
            continue;
        if (!move && !recursive && Qvfs::Url::isLocalFile(src) && copiesAsData(Qvfs::Url::localPath(src))) {
            if (destIsFolder < 0 && !statDest())
                continue;
            if (copyData(arg, Qvfs::Url::localPath(src), dest, destIsFolder > 0, &policy, bar.get())
                == Outcome::Cancelled)
                break;
            continue;
        }
        if ((move || recursive) && intoItself(command, arg, src, destArg, dest))
            continue;
        if (!move && !recursive) {
            // Like coreutils: a folder (or a link to one) needs -r.
            Qvfs::StatJob *job = Qvfs::stat(src, Qvfs::DetailBasic | Qvfs::DetailResolveSymlink);
            prepareJob(job);
            if (!job->exec()) {
                jobError(job);
                continue;
            }
            if (job->statResult().isDir()) {
                error(QCoreApplication::translate("qvfs", "-r not specified; omitting directory %1").arg(nameArg(arg)));
                setFailed();
                continue;
            }
        }
        Qvfs::CopyJob *job = move ? Qvfs::move(src, dest) : Qvfs::copy(src, dest);
        job->setConflictPolicy(policy);
        prepareJob(job);
        if (bar)
            bar->attach(job);
        if (!job->exec()) {
            const bool cancelled = job->error() == Qvfs::ErrCancelled;
            jobError(job);
            if (cancelled)
                break; // "cancel" at a question ends the whole command
        }
    }
    if (bar)
        bar->finish();
    flushOut();
    return ctx().status;
}

} // namespace

int cmdCp(const QList<QByteArray> &args)
{
    return runCopy("cp", args, false);
}

int cmdMv(const QList<QByteArray> &args)
{
    return runCopy("mv", args, true);
}

} // namespace Cli
