// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SMBWATCH_P_H
#define QVFS_SMBWATCH_P_H

#include "changebatchtimer_p.h"
#include "childprocess_p.h"
#include "field.h"
#include "smbworker.h"

#include <QElapsedTimer>
#include <QList>
#include <QSet>
#include <QUrl>

#include <map>
#include <memory>
#include <utility>

namespace Qvfs
{

/*! One watched folder: its notifier process and what it reported since the last flush. */
struct SmbWorker::Watch
{
    quint32 id = 0;
    QUrl url;
    Details details = {};
    ChildProcess notifier;
    QByteArray input; //!< the notifier's output not yet split into lines
    QSet<QByteArray> dirty; //!< names to look at again
    QList<std::pair<QByteArray, QByteArray>> renames;
    QByteArray renamedFrom; //!< a rename's first half
    bool resync = false; //!< events were lost: list anew
    bool gone = false; //!< the folder is gone
    bool broken = false; //!< the notifier ended without saying why: started again
    qint64 retryAtMs = -1; //!< when to start it again after a failed start
    bool pending() const { return !dirty.isEmpty() || resync || gone || broken; }
};

/*! The watches of the process: one epoll descriptor over every notifier's output. */
struct SmbWorker::Watches
{
    Watches();
    ~Watches();
    int epoll = -1;
    std::map<quint32, std::unique_ptr<Watch>> byId;
    ChangeBatchTimer batch; //!< when the notifiers' events are looked at
    QElapsedTimer clock; //!< for the notifiers' retries
};

} // namespace Qvfs

#endif
