// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CHANGEBATCHTIMER_P_H
#define QVFS_CHANGEBATCHTIMER_P_H

#include "qvfsworker_export.h"

#include <QDeadlineTimer>

namespace Qvfs
{

/*!
 * When the events of native watches make one batch of changes (WorkerBase::beginChanges()):
 * QuietMs after the last event, but no later than MaxDelayMs after the first, so that each
 * changed name is looked at once per batch and a steady stream of events still gets through.
 * The file worker's inotify watches and the smb worker's notifiers coalesce by it. Internal
 * to the workers (not installed).
 */
class QVFSWORKER_EXPORT ChangeBatchTimer
{
public:
    static constexpr int QuietMs = 30; //!< a batch waits this long after the last event...
    static constexpr int MaxDelayMs = 150; //!< ...but no longer than this after the first one

    /*! An event came in now; the first one since reset() starts the batch. */
    void eventSeen();
    /*!
     * Milliseconds until the batch is due (for WorkerBase::setWatchTimer()): 0 when it is
     * due now, and when no event has started one.
     */
    int msUntilDue() const;
    /*! The batch went out (or there is nothing to send): the next event starts a new one. */
    void reset() { m_started = false; }

private:
    QDeadlineTimer m_quiet;
    QDeadlineTimer m_latest;
    bool m_started = false;
};

} // namespace Qvfs

#endif
