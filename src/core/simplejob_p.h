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
    /*! A SimpleJob that sends \a command about \a urls with \a options. */
    static SimpleJob *create(Wire::Command command, const QList<QUrl> &urls, const MetaData &options = {});
};

} // namespace Qvfs

#endif
