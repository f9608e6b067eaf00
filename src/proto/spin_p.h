// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SPIN_P_H
#define QVFS_SPIN_P_H

#include <QtGlobal>

namespace Qvfs::Internal
{

/*!
 * How long either side of a connection stays awake waiting for the other's next message
 * after a request or a reply (microseconds; QVFS_SPIN_US, 0 turns it off). Waking a
 * sleeping CPU costs tens of microseconds on virtual machines, more than a whole stat.
 */
inline qint64 spinMicroseconds()
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue("QVFS_SPIN_US", &ok);
    return ok && v >= 0 ? qMin(v, 10000) : 100;
}

} // namespace Qvfs::Internal

#endif
