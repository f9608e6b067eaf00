// SPDX-License-Identifier: LGPL-2.1-or-later
#include "simplejob_p.h"

namespace Qvfs
{

SimpleJob::SimpleJob(SimpleJobPrivate &dd)
    : Job(dd)
{ }

QUrl SimpleJob::url() const
{
    return d_func()->request.command().urls.value(d_func()->request.command().urls.size() - 1);
}

SimpleJob *mkdir(const QUrl &url, int permissions)
{
    return SimpleJobPrivate::create(MkdirRequest { url, permissions, false, {} });
}

SimpleJob *mkpath(const QUrl &url, int permissions)
{
    return SimpleJobPrivate::create(MkdirRequest { url, permissions, true, {} });
}

SimpleJob *rename(const QUrl &src, const QUrl &dest, bool overwrite)
{
    return SimpleJobPrivate::create(RenameRequest { src, dest, overwrite });
}

SimpleJob *symlink(const QByteArray &target, const QUrl &link)
{
    return SimpleJobPrivate::create(SymlinkRequest { target, link, {} });
}

SimpleJob *chmod(const QUrl &url, int permissions)
{
    return SimpleJobPrivate::create(ChmodRequest { url, permissions, {} });
}

SimpleJob *setModificationTime(const QUrl &url, qint64 seconds, qint64 nanoseconds)
{
    return SimpleJobPrivate::create(SetTimeRequest { url, seconds, nanoseconds, {} });
}

} // namespace Qvfs
