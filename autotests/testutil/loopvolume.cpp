// SPDX-License-Identifier: LGPL-2.1-or-later
#include "loopvolume.h"

#include <QProcess>
#include <QStringList>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace QvfsTest
{

namespace
{
bool runTool(const QString &program, const QStringList &args, QByteArray *error)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = program.toUtf8() + " failed: " + p.readAll() + p.errorString().toUtf8();
        return false;
    }
    return true;
}
} // namespace

LoopVolume::LoopVolume(const QByteArray &mountPoint, const QByteArray &image, int sizeMiB)
    : m_path(mountPoint)
    , m_image(image)
{
    if (::geteuid() != 0) {
        m_error = "loop mounts need root";
        return;
    }
    ::mkdir(m_path.constData(), 0755);
    const QString img = QString::fromLocal8Bit(m_image);
    if (!runTool(QStringLiteral("truncate"), { QStringLiteral("-s"), QString::number(sizeMiB) + QLatin1Char('M'), img },
            &m_error)
        || !runTool(QStringLiteral("mkfs.ext4"), { QStringLiteral("-q"), QStringLiteral("-F"), img }, &m_error)
        || !runTool(QStringLiteral("mount"),
            { QStringLiteral("-o"), QStringLiteral("loop"), img, QString::fromLocal8Bit(m_path) }, &m_error))
        return;
    m_mounted = true;
}

LoopVolume::~LoopVolume()
{
    if (m_mounted)
        ::umount2(m_path.constData(), MNT_DETACH); // the loop device goes with it (autoclear)
    ::unlink(m_image.constData());
}

bool LoopVolume::enterPrivateMountNamespace(QByteArray *error)
{
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        *error = QByteArray("unshare/mount: ") + std::strerror(errno);
        return false;
    }
    return true;
}

} // namespace QvfsTest
