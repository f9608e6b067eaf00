// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs trash: move to the trash, list it, restore from it, empty it.
#include "commands.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/TrashJob>

#include "url.h"

#include <QCoreApplication>

namespace Cli
{

namespace
{
enum TrashOption {
    OptList = 1,
    OptRestore,
    OptEmpty,
    OptLong,
    OptAll,
    OptJson,
    OptOnePerLine,
    OptForce,
    OptNoClobber,
    OptRename
};

/*! The trash:/ URL of a name as `qvfs trash --list` shows it ("0-report.pdf"), or a trash:/ URL as given. */
QUrl trashUrl(const QByteArray &arg)
{
    if (arg.startsWith("trash:"))
        return toUrl(arg);
    return Qvfs::Url::child(QUrl(QStringLiteral("trash:/")), arg);
}

int runJob(Qvfs::Job *job)
{
    prepareJob(job);
    if (!job->exec())
        jobError(job);
    return ctx().status;
}
} // namespace

int trashUrls(const QList<QByteArray> &operands)
{
    QList<QUrl> urls;
    for (const QByteArray &arg : operands) {
        const QUrl url = toUrl(arg);
        if (url.isValid())
            urls.append(url);
    }
    if (urls.isEmpty())
        return ctx().status;
    // One job for all: the worker finds each volume's trash once.
    return runJob(Qvfs::trash(urls));
}

int cmdTrash(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("trash", args,
            { { OptList, 0, "list" }, { OptRestore, 0, "restore" }, { OptEmpty, 0, "empty" }, { OptLong, 'l', "long" },
                { OptAll, 'a', "all" }, { OptJson, 0, "json" }, { OptOnePerLine, '1', nullptr },
                { OptForce, 'f', "force" }, { OptNoClobber, 'n', "no-clobber" }, { OptRename, 0, "rename" } },
            &p, &status))
        return status;
    const int modes = int(p.has(OptList)) + int(p.has(OptRestore)) + int(p.has(OptEmpty));
    if (modes > 1)
        return usageError(
            "trash", QCoreApplication::translate("qvfs", "--list, --restore and --empty cannot be combined"));
    if (p.has(OptList)) {
        if (!p.operands.isEmpty())
            return usageError("trash", QCoreApplication::translate("qvfs", "--list takes no operand"));
        // What ls shows for trash:/, with ls's own columns and JSON.
        QList<QByteArray> ls;
        const std::pair<int, const char *> passed[]
            = { { OptLong, "-l" }, { OptAll, "-a" }, { OptJson, "--json" }, { OptOnePerLine, "-1" } };
        for (const auto &[option, text] : passed) {
            if (p.has(option))
                ls.append(text);
        }
        ls.append("trash:/");
        return cmdLs(ls);
    }
    if (p.has(OptEmpty)) {
        if (!p.operands.isEmpty())
            return usageError("trash", QCoreApplication::translate("qvfs", "--empty takes no operand"));
        return runJob(Qvfs::emptyTrash());
    }
    if (p.operands.isEmpty())
        return usageError("trash", QCoreApplication::translate("qvfs", "missing operand"));
    if (p.has(OptRestore)) {
        QList<QUrl> urls;
        for (const QByteArray &arg : std::as_const(p.operands)) {
            const QUrl url = trashUrl(arg);
            if (!url.isValid()) {
                error(QCoreApplication::translate("qvfs", "%1 is no entry of the trash").arg(nameArg(arg)));
                setFailed();
                continue;
            }
            urls.append(url);
        }
        if (urls.isEmpty())
            return ctx().status;
        return runJob(Qvfs::restoreFromTrash(urls, conflictPolicy(p, OptForce, OptNoClobber, OptRename)));
    }
    return trashUrls(p.operands);
}

} // namespace Cli
