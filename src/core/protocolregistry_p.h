// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_PROTOCOLREGISTRY_P_H
#define QVFS_PROTOCOLREGISTRY_P_H

// Which worker serves which scheme: the workers' JSON descriptions, found and cached.
// Internal; the public face is Qvfs::Protocol (protocol.h).

#include "workerinfo_p.h"

#include <QHash>
#include <QMutex>
#include <QStringList>

namespace Qvfs::Internal
{

class ProtocolRegistry
{
public:
    /*! The registry of this process (thread-safe). */
    static ProtocolRegistry &instance();

    /*!
     * The worker serving \a scheme (an alias resolves to its protocol; the scheme is
     * compared in lower case). Invalid when none is installed.
     */
    ProtocolInfo find(const QString &scheme);
    /*! Every scheme an installed worker serves (canonical names, sorted). */
    QStringList schemes();
    /*!
     * Where descriptions are looked for, first match wins: $QVFS_WORKER_PATH, the worker
     * folder relative to this library's own location (so a relocated installation
     * works), this library's own folder when it holds descriptions (the build tree),
     * then the folder fixed at configure time.
     */
    QStringList searchPath() const;
    /*! Forgets what was found (tests that change QVFS_WORKER_PATH). */
    void reset();

private:
    ProtocolRegistry() = default;
    ProtocolInfo scan(const QString &scheme) const;
    QMutex m_mutex;
    QHash<QString, ProtocolInfo> m_cache;
};

} // namespace Qvfs::Internal

#endif
