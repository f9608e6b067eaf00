// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CONFORMANCE_LOCALTREE_H
#define QVFS_CONFORMANCE_LOCALTREE_H

#include "backend.h"

namespace QvfsConformance
{

/*!
 * Makes \a tree below the local folder \a dir with raw system calls (the seed of every
 * backend whose server serves a local folder). False, with \a why, on failure.
 */
bool seedLocal(const QByteArray &dir, const Tree &tree, QByteArray *why);

} // namespace QvfsConformance

#endif
