// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_NATURALCOMPARE_H
#define QVFS_NATURALCOMPARE_H

#include "qvfsmodels_export.h"

#include <QByteArrayView>

namespace Qvfs
{

/*!
 * Compares two file names as people read them, on their bytes: digit runs by value
 * ("file9" before "file10"), ASCII letters without regard to case, every other byte by
 * its value (so UTF-8 text sorts by code point). Ties are broken by the number of
 * leading zeros ("1" before "01"), then by case ("A" before "a"): only identical names
 * compare equal, so the order is total and stable. No locale, no allocation; a name
 * that is not UTF-8 sorts like any other.
 *
 * Returns a negative number, 0 or a positive number as \a a sorts before, with or after
 * \a b.
 * \since 0.1
 */
QVFSMODELS_EXPORT int naturalCompare(QByteArrayView a, QByteArrayView b) noexcept;

} // namespace Qvfs

#endif
