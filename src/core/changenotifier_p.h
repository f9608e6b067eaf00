// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CHANGENOTIFIER_P_H
#define QVFS_CHANGENOTIFIER_P_H

// How jobs publish what they changed (ChangeNotifier), and which folders want the
// worker's result entries. Internal.

#include "field.h"
#include "requests_p.h"

#include <QUrl>

namespace Qvfs
{
class Entry;
}

namespace Qvfs::Internal
{

/*!
 * A lister holds the folder \a dir without a native watch and wants the entries jobs
 * make in it, with \a details (\a on false: no longer). Counted; thread-safe.
 */
void wantResultEntries(const QUrl &dir, Details details, bool on);
/*!
 * Asks the worker for the entry of what \a command creates or changes (the result-entry
 * option) when a lister wants that folder's entries; nothing otherwise.
 */
void requestResultEntry(WireCommand &command);
/*!
 * Publishes what the successful \a command changed. \a entry is the worker's result
 * entry (empty when none came).
 */
void publishResult(const WireCommand &command, const Entry &entry);

} // namespace Qvfs::Internal

#endif
