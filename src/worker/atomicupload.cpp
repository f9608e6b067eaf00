// SPDX-License-Identifier: LGPL-2.1-or-later
#include "atomicupload.h"
#include "copyrules.h"
#include "url.h"

#include <QRandomGenerator>

namespace Qvfs
{

namespace
{
QByteArray randomTag()
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    QByteArray tag(10, Qt::Uninitialized);
    for (char &c : tag)
        c = letters[QRandomGenerator::system()->bounded(int(sizeof letters) - 1)];
    return tag;
}

} // namespace

QUrl AtomicUpload::temporaryFor(const QUrl &destination)
{
    return Url::child(Url::parent(destination), temporaryNameFor(Url::fileName(destination), randomTag()));
}

WorkerResult AtomicUpload::run(const QUrl &destination, bool overwrite, const Operations &operations)
{
    const QUrl temporary = temporaryFor(destination);
    if (!temporary.isValid())
        return WorkerResult::fail(ErrMalformedUrl, destination);
    WorkerResult r = operations.write(temporary);
    if (r.ok())
        r = operations.rename(temporary, destination, overwrite);
    if (!r.ok() && operations.remove)
        operations.remove(temporary);
    return r;
}

} // namespace Qvfs
