// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ATOMICUPLOAD_H
#define QVFS_ATOMICUPLOAD_H

#include "qvfsworker_export.h"
#include "workerbase.h"

#include <QUrl>

#include <functional>

namespace Qvfs
{

/*!
 * The destination rule for workers that write to a server: the data goes to a unique
 * temporary name in the destination's folder and is renamed onto the destination only
 * once complete; after a failure or a kill the temporary is deleted. The destination is
 * then complete and byte-identical, or absent, or as it was before — what a local copy
 * gets from O_TMPFILE.
 *
 * A worker supplies the three server operations; run() sequences them:
 * \code
 * AtomicUpload::Operations ops;
 * ops.write = [&](const QUrl &temporary) { return uploadTo(temporary); };
 * ops.rename = [&](const QUrl &from, const QUrl &to, bool overwrite) { return serverRename(from, to, overwrite); };
 * ops.remove = [&](const QUrl &temporary) { serverDelete(temporary); };
 * return AtomicUpload::run(request.url, request.overwrite, ops);
 * \endcode
 *
 * Whether replacing an existing destination is atomic depends on the server's rename
 * (an atomic rename-over, or a delete then a rename): say which in the worker's docs.
 * \since 0.1
 */
class QVFSWORKER_EXPORT AtomicUpload
{
public:
    struct Operations
    {
        /*! Writes the whole content to \a temporary (which does not exist yet). */
        std::function<WorkerResult(const QUrl &temporary)> write;
        /*! Renames \a temporary onto \a destination; without \a overwrite an existing destination is ErrAlreadyExists.
         */
        std::function<WorkerResult(const QUrl &temporary, const QUrl &destination, bool overwrite)> rename;
        /*! Deletes \a temporary, best effort (it may not exist). */
        std::function<void(const QUrl &temporary)> remove;
    };

    /*!
     * A fresh temporary name beside \a destination: ".<name>.qvfs-<random>.part", at
     * most 255 bytes, hidden, never a name a user would pick, different at every call.
     */
    static QUrl temporaryFor(const QUrl &destination);

    /*!
     * Writes through a temporary and renames it into place. A failed write or rename
     * (or a kill, which the write reports as ErrCancelled) removes the temporary and
     * returns that error; an existing destination is never touched before the rename.
     */
    static WorkerResult run(const QUrl &destination, bool overwrite, const Operations &operations);
};

} // namespace Qvfs

#endif
