// SPDX-License-Identifier: LGPL-2.1-or-later
#include "changebatchtimer_p.h"

namespace Qvfs
{

void ChangeBatchTimer::eventSeen()
{
    if (!m_started) {
        m_started = true;
        m_latest.setRemainingTime(MaxDelayMs);
    }
    m_quiet.setRemainingTime(QuietMs);
}

int ChangeBatchTimer::msUntilDue() const
{
    return m_started ? int(qMin(m_quiet.remainingTime(), m_latest.remainingTime())) : 0;
}

} // namespace Qvfs
