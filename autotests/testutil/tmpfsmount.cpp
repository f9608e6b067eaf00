// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tmpfsmount.h"

#include <QString>

#include <cerrno>
#include <cstring>
#include <sys/mount.h>
#include <sys/stat.h>

namespace QvfsTest
{

TmpfsMount::TmpfsMount(const QByteArray &path, const char *options, unsigned long flags, const char *type)
    : m_path(path)
{
    if (::mkdir(path.constData(), 0755) != 0 && errno != EEXIST) {
        m_error = QByteArray(QByteArray("mkdir ") + path + ": " + std::strerror(errno));
        return;
    }
    m_mounted = ::mount(type, path.constData(), type, flags, options) == 0;
    if (!m_mounted)
        m_error = QByteArray(QByteArray("mount -t ") + type + " " + path + ": " + std::strerror(errno));
}

TmpfsMount::~TmpfsMount()
{
    if (m_mounted)
        ::umount2(m_path.constData(), MNT_DETACH);
}

} // namespace QvfsTest
