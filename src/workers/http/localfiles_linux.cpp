// SPDX-License-Identifier: LGPL-2.1-or-later
#include "localfiles_p.h"

#include "error.h"

#include <QtGlobal>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Qvfs::Http::LocalFiles
{

int openSpool()
{
    QByteArray dir = qgetenv("TMPDIR");
    if (dir.isEmpty() || dir.at(0) != '/')
        dir = "/tmp";
    int fd = ::open(dir.constData(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    // no O_TMPFILE there: a unique name, unlinked at once
    QByteArray templ = dir + "/.qvfs-http-spool-XXXXXX";
    fd = ::mkostemp(templ.data(), O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ::unlink(templ.constData());
    return fd;
}

int readError(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return ErrDoesNotExist;
    case EACCES:
    case EPERM:
        return ErrAccessDenied;
    case ELOOP:
        return ErrSymlinkLoop;
    case EISDIR:
        return ErrIsDirectory;
    case ENAMETOOLONG:
        return ErrNameTooLong;
    case ENOSPC:
    case EDQUOT:
        return ErrDiskFull;
    default:
        return ErrCannotRead;
    }
}

} // namespace Qvfs::Http::LocalFiles
