// SPDX-License-Identifier: LGPL-2.1-or-later
#include "unprivilegedworkers.h"
#include "fixturedir.h"
#include "procutil.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <memory>
#include <unistd.h>

namespace QvfsTest
{

namespace
{

constexpr const char *WorkerBinDir = QVFS_CLI_TEST_BIN_DIR;

/*
 * The build tree may lie where nobody cannot go (a clone in root's 0700 home): a worker
 * started from there as nobody fails in the dynamic loader. So the workers, their helper
 * programs and Qvfs's libraries are copied once per test process into a root-owned 0755
 * folder in the fixtures' place, and started from there through a small shell shim that
 * maps the build tree's program name to its copy. The user's folders keep their modes.
 */
class RunnableCopy
{
public:
    RunnableCopy()
    {
        if (!m_dir.isReachableByOthers()) {
            m_error = m_dir.errorString();
            return;
        }
        const QString target = QString::fromLocal8Bit(m_dir.path());
        const QDir bin(QString::fromLocal8Bit(WorkerBinDir));
        static const QRegularExpression soname(QStringLiteral("^lib.*\\.so\\.[0-9]+$"));
        const QFileInfoList files = bin.entryInfoList(QDir::Files);
        for (const QFileInfo &fi : files) {
            const QString name = fi.fileName();
            const bool program = name.startsWith(QLatin1String("qvfs-")) && fi.isExecutable();
            if (!program && !soname.match(name).hasMatch())
                continue;
            if (!copy(fi.absoluteFilePath(), target + QLatin1Char('/') + name))
                return;
        }
        // The sanitizers read their suppression files as the worker: copies of those too.
        QByteArray env = "LD_LIBRARY_PATH=" + m_dir.path();
        for (const char *var : { "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS" }) {
            QByteArray value = qgetenv(var);
            if (value.isEmpty())
                continue;
            static const QRegularExpression supp(QStringLiteral("suppressions=([^:]+)"));
            const QRegularExpressionMatch m = supp.match(QString::fromLocal8Bit(value));
            if (m.hasMatch()) {
                const QString copyName = target + QLatin1Char('/') + QLatin1String(var) + QLatin1String(".supp");
                if (!copy(m.captured(1), copyName))
                    return;
                value.replace(m.captured(1).toLocal8Bit(), copyName.toLocal8Bit());
            }
            env += ' ' + QByteArray(var) + "=\"" + value + '"';
        }
        const QByteArray shim = m_dir.path() + "/run-copy";
        QFile script(QString::fromLocal8Bit(shim));
        if (!script.open(QIODevice::WriteOnly)) {
            m_error = "cannot write " + shim;
            return;
        }
        script.write("#!/bin/sh\n# $1: a program of the build tree; run its copy in this folder instead.\n"
                     "name=${1##*/}\nshift\nexec \""
            + m_dir.path() + "/$name\" \"$@\"\n");
        script.close();
        QFile::setPermissions(
            script.fileName(), QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
        m_prefix = UnprivilegedWorkers::dropPrefix() + " env " + env + " /bin/sh " + shim;
    }

    QByteArray prefix() const { return m_prefix; }
    QByteArray errorString() const { return m_error; }

private:
    bool copy(const QString &from, const QString &to)
    {
        // QFile::copy follows symbolic links: the copy is the library itself, under its soname.
        if (QFile::copy(from, to)
            && QFile::setPermissions(to, QFile(from).permissions() & ~(QFile::WriteGroup | QFile::WriteOther)))
            return true;
        m_error = "cannot copy " + from.toLocal8Bit() + " to " + to.toLocal8Bit();
        return false;
    }

    FixtureDir m_dir;
    QByteArray m_prefix;
    QByteArray m_error;
};

} // namespace

UnprivilegedWorkers::UnprivilegedWorkers()
    : WorkerEnv("QVFS_WORKER_PREFIX", dropsPrivileges() ? prefix() : QByteArray())
{ }

bool UnprivilegedWorkers::dropsPrivileges()
{
    return ::geteuid() == 0;
}

QByteArray UnprivilegedWorkers::dropPrefix()
{
    return QByteArrayLiteral("setpriv --reuid=65534 --regid=65534 --clear-groups");
}

QByteArray UnprivilegedWorkers::prefix()
{
    static const std::unique_ptr<RunnableCopy> copy = std::make_unique<RunnableCopy>();
    if (copy->prefix().isEmpty())
        qFatal("UnprivilegedWorkers: no copy of the workers that nobody can run: %s", copy->errorString().constData());
    return copy->prefix();
}

bool UnprivilegedWorkers::allWorkersUnprivileged()
{
    const QList<qint64> pids = ProcUtil::childPids();
    if (pids.isEmpty())
        return false;
    for (qint64 pid : pids) {
        if (ProcUtil::realUid(pid) != NobodyId)
            return false;
    }
    return true;
}

} // namespace QvfsTest
