// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_RACERUNS_H
#define QVFS_TESTUTIL_RACERUNS_H

#include <QtGlobal>

/*!
 * How many times a test repeats a race (a listing against thousands of creations): \a wanted,
 * or fewer when QVFS_TEST_RACE_RUNS says so. The ASan suite sets it (scripts/test.sh): it
 * looks for memory errors, which any run shows, and each run is seconds of system calls
 * there; the normal suite repeats in full for the rarer interleavings.
 */
inline int raceRuns(int wanted)
{
    bool set = false;
    const int cap = qEnvironmentVariableIntValue("QVFS_TEST_RACE_RUNS", &set);
    return set && cap > 0 ? qMin(wanted, cap) : wanted;
}

#endif
