// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_GENERICPATH_H
#define QVFS_TESTUTIL_GENERICPATH_H

#include <QByteArray>

namespace QvfsTest
{

/*!
 * Describes the real file worker (the one beside the test program) without the "copy"
 * capability, in the folder \a dir (made if missing): with QVFS_WORKER_PATH=\a dir every
 * copy between file:// URLs takes the generic path (the job's plan, get → put), through
 * the same worker. False when it cannot.
 */
bool describeFileWorkerWithoutCopy(const QByteArray &dir);

} // namespace QvfsTest

#endif
