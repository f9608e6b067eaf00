// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fixturedir.h"
#include "rawpath.h"

#include <QString>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

namespace QvfsTest
{

FixtureDir::FixtureDir(const QByteArray &base)
{
    QByteArray dir = base;
    if (dir.isEmpty())
        dir = qgetenv("TMPDIR");
    if (dir.isEmpty())
        dir = "/tmp";
    QByteArray t = join(dir, "qvfs-test-XXXXXX");
    if (!::mkdtemp(t.data())) {
        m_error = QByteArray(QByteArray("mkdtemp in ") + dir + ": " + std::strerror(errno));
        return;
    }
    m_path = t;
    if (::chmod(m_path.constData(), 0755) != 0) {
        m_error = QByteArray(QByteArray("chmod 0755 ") + m_path + ": " + std::strerror(errno));
        remove();
        return;
    }
    // Every folder above must let others through, or an unprivileged worker fails there.
    for (QByteArray p = dir; !p.isEmpty(); p = p.left(p.lastIndexOf('/'))) {
        struct stat st;
        if (::stat(p.constData(), &st) != 0 || !(st.st_mode & S_IXOTH)) {
            m_error = QByteArray(p
                + " cannot be searched by other users: an unprivileged worker could not reach "
                  "the fixtures (set TMPDIR to a folder that can)");
            return;
        }
    }
}

FixtureDir::~FixtureDir()
{
    remove();
}

void FixtureDir::remove()
{
    removeTreeRaw(m_path);
    m_path.clear();
}

} // namespace QvfsTest
