// SPDX-License-Identifier: LGPL-2.1-or-later
#include "directorysizejob.h"
#include "job_p.h"
#include "keys_p.h"

namespace Qvfs
{

class DirectorySizeJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(DirectorySizeJob)
    static DirectorySizeJob *create(const QUrl &url)
    {
        auto *d = new DirectorySizeJobPrivate;
        d->request.set(DirectorySizeRequest { url });
        return new DirectorySizeJob(*d);
    }
};

DirectorySizeJob::DirectorySizeJob(DirectorySizeJobPrivate &dd)
    : Job(dd)
{ }

QUrl DirectorySizeJob::url() const
{
    return d_func()->request.url();
}

qint64 DirectorySizeJob::totalBytes() const
{
    return d_func()->meta.number(Internal::Keys::Bytes);
}

qint64 DirectorySizeJob::totalFiles() const
{
    return d_func()->meta.number(Internal::Keys::Files);
}

qint64 DirectorySizeJob::totalDirectories() const
{
    return d_func()->meta.number(Internal::Keys::Dirs);
}

DirectorySizeJob *directorySize(const QUrl &url)
{
    return DirectorySizeJobPrivate::create(url);
}

} // namespace Qvfs
