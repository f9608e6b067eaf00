// SPDX-License-Identifier: LGPL-2.1-or-later
#include "clirun.h"

#include <QProcess>

namespace CliRun
{

QString qvfsBinary()
{
    return QStringLiteral(QVFS_CLI_TEST_BIN_DIR "/qvfs");
}

QProcessEnvironment environment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : { "LANGUAGE", "LC_MESSAGES", "LC_TIME", "QVFS_PROGRESS_DELAY_MS", "COLUMNS" })
        env.remove(QLatin1String(name));
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C"));
    env.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
    env.insert(QStringLiteral("SHELL"), QStringLiteral("/bin/sh"));
    return env;
}

Result run(const QString &program, const QStringList &args, const QString &cwd, const QByteArray &input,
    const QProcessEnvironment &env, const std::function<void()> &inChild)
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (inChild)
        p.setChildProcessModifier(inChild);
    p.setWorkingDirectory(cwd);
    p.start(program, args);
    Result r;
    if (!p.waitForStarted(10000))
        return r;
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return r;
}

} // namespace CliRun
