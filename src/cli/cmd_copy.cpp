// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs cp, qvfs mv.
#include "commands.h"
#include "progress.h"
#include "terminalask.h"

#include <Qvfs/CopyJob>
#include <Qvfs/Error>
#include <Qvfs/StatJob>

#include <QCoreApplication>

#include <memory>

namespace Cli
{

namespace
{

enum CopyOption { OptRecursive = 1, OptForce, OptNoClobber, OptRename };

/*!
 * Whether copying or moving \a src to \a dest would put a folder into itself. The paths
 * are compared decoded ("x/%2E%2E/x" is "x"), as the worker will see them.
 */
bool intoItself(
    const char *command, const QByteArray &arg, const QUrl &src, const QByteArray &destArg, const QUrl &dest)
{
    if (!sameLocation(src, dest) || !isSameOrBelow(cleanPath(decodedPath(dest)), cleanPath(decodedPath(src))))
        return false;
    Qvfs::StatJob *job = Qvfs::stat(src, Qvfs::DetailBasic);
    job->setAskDelegate(TerminalAsk::instance());
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
    if (sources.size() > 1) {
        // Several sources go into a folder, which must exist.
        Qvfs::StatJob *job = Qvfs::stat(dest, Qvfs::DetailBasic | Qvfs::DetailResolveSymlink);
        job->setAskDelegate(TerminalAsk::instance());
        if (!job->exec() && job->error() != Qvfs::ErrDoesNotExist) {
            jobError(job);
            return ctx().status;
        }
        if (job->error() || !job->statResult().isDir()) {
            error(QCoreApplication::translate("qvfs", "target %1 is not a folder").arg(nameArg(destArg)));
            setFailed();
            return ctx().status;
        }
    }

    Qvfs::ConflictPolicy policy = Qvfs::ConflictPolicy::Fail;
    switch (p.last({ OptForce, OptNoClobber, OptRename })) {
    case OptForce:
        policy = Qvfs::ConflictPolicy::Overwrite;
        break;
    case OptNoClobber:
        policy = Qvfs::ConflictPolicy::Skip;
        break;
    case OptRename:
        policy = Qvfs::ConflictPolicy::Rename;
        break;
    default:
        if (ctx().answers == Answers::Yes)
            policy = Qvfs::ConflictPolicy::Overwrite;
        else if (ctx().answers == Answers::No)
            policy = Qvfs::ConflictPolicy::Skip;
        else if (ctx().stdinTty)
            policy = Qvfs::ConflictPolicy::Ask;
        break;
    }
    const bool recursive = p.has(OptRecursive);

    std::unique_ptr<ProgressBar> bar;
    if (ProgressBar::wanted(false))
        bar = std::make_unique<ProgressBar>(ProgressBar::Transfer);
    for (const QByteArray &arg : sources) {
        const QUrl src = toUrl(arg);
        if (!src.isValid())
            continue;
        if ((move || recursive) && intoItself(command, arg, src, destArg, dest))
            continue;
        if (!move && !recursive) {
            // Like coreutils: a folder (or a link to one) needs -r.
            Qvfs::StatJob *job = Qvfs::stat(src, Qvfs::DetailBasic | Qvfs::DetailResolveSymlink);
            job->setAskDelegate(TerminalAsk::instance());
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
        job->setAskDelegate(TerminalAsk::instance());
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
