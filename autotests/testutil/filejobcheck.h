// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FILEJOBCHECK_H
#define QVFS_TESTUTIL_FILEJOBCHECK_H

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace QvfsTest
{

/*! What checkRandomReads() found. */
struct RandomReadReport
{
    QString failure; //!< empty when every read matched
    int reads = 0; //!< reads answered
    int pastEnd = 0; //!< reads that started at or past the end
    int empty = 0; //!< reads of length 0
    int acrossChunks = 0; //!< reads longer than one 256 KiB piece
    qint64 bytes = 0; //!< bytes received
    int peakInFlight = 0; //!< the most reads in flight at once
};

/*!
 * Opens \a url read-only with Qvfs::open() and makes \a count reads at random offsets
 * and lengths (seeded by \a seed; past the end, of length 0, and across the 256 KiB piece
 * size among them), up to \a maxInFlight at a time. Each answer is compared byte for
 * byte with what pread() gives for the same range of \a localPath, the same file seen
 * directly; pieces must come in order, add up, and end with an empty piece exactly when
 * the read ends short. Closes the file at the end.
 */
RandomReadReport checkRandomReads(
    const QUrl &url, const QByteArray &localPath, int count, quint32 seed, int maxInFlight = 8);

} // namespace QvfsTest

#endif
