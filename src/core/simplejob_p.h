// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SIMPLEJOB_P_H
#define QVFS_SIMPLEJOB_P_H

#include "job_p.h"
#include "simplejob.h"

namespace Qvfs
{

class SimpleJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(SimpleJob)
    /*! A SimpleJob that sends \a request. */
    template<typename R>
    static SimpleJob *create(const R &request)
    {
        auto *d = new SimpleJobPrivate;
        d->request.set(request);
        return new SimpleJob(*d);
    }
    /*! A SimpleJob that sends \a command as it is. */
    static SimpleJob *createCommand(Internal::WireCommand command)
    {
        auto *d = new SimpleJobPrivate;
        d->request.setCommand(std::move(command));
        return new SimpleJob(*d);
    }
};

} // namespace Qvfs

#endif
