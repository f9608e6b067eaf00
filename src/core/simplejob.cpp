// SPDX-License-Identifier: LGPL-2.1-or-later
#include "simplejob_p.h"

namespace Qvfs
{

SimpleJob::SimpleJob(SimpleJobPrivate &dd)
    : Job(dd)
{ }

QUrl SimpleJob::url() const
{
    return d_func()->request.urls.isEmpty() ? QUrl() : d_func()->request.urls.last();
}

SimpleJob *SimpleJobPrivate::create(Wire::Command command, const QList<QUrl> &urls, const MetaData &options)
{
    auto *d = new SimpleJobPrivate;
    d->request.command = command;
    d->request.urls = urls;
    d->request.options = options;
    return new SimpleJob(*d);
}

static SimpleJob *makeDir(const QUrl &url, int permissions, bool parents)
{
    MetaData o;
    o.setNumber("permissions", permissions);
    o.setNumber("parents", parents ? 1 : 0);
    return SimpleJobPrivate::create(Wire::Command::Mkdir, { url }, o);
}

SimpleJob *mkdir(const QUrl &url, int permissions)
{
    return makeDir(url, permissions, false);
}

SimpleJob *mkpath(const QUrl &url, int permissions)
{
    return makeDir(url, permissions, true);
}

SimpleJob *rename(const QUrl &src, const QUrl &dest, bool overwrite)
{
    MetaData o;
    o.setNumber("overwrite", overwrite ? 1 : 0);
    return SimpleJobPrivate::create(Wire::Command::Rename, { src, dest }, o);
}

SimpleJob *symlink(const QByteArray &target, const QUrl &link)
{
    MetaData o;
    o.setBytes("target", target);
    return SimpleJobPrivate::create(Wire::Command::Symlink, { link }, o);
}

SimpleJob *chmod(const QUrl &url, int permissions)
{
    MetaData o;
    o.setNumber("permissions", permissions);
    return SimpleJobPrivate::create(Wire::Command::Chmod, { url }, o);
}

SimpleJob *setModificationTime(const QUrl &url, qint64 seconds, qint64 nanoseconds)
{
    MetaData o;
    o.setNumber("mtime", seconds);
    o.setNumber("mtime-ns", nanoseconds);
    return SimpleJobPrivate::create(Wire::Command::SetModificationTime, { url }, o);
}

} // namespace Qvfs
