// SPDX-License-Identifier: LGPL-2.1-or-later
#include "atomicupload.h"
#include "url.h"

#include <QRandomGenerator>

namespace Qvfs
{

namespace
{
constexpr qsizetype NameMax = 255;

QByteArray randomTag()
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    QByteArray tag(10, Qt::Uninitialized);
    for (char &c : tag)
        c = letters[QRandomGenerator::system()->bounded(int(sizeof letters) - 1)];
    return tag;
}

// The first \a size bytes of \a name, never cut inside a UTF-8 sequence.
QByteArray truncated(const QByteArray &name, qsizetype size)
{
    if (name.size() <= size)
        return name;
    qsizetype cut = size;
    while (cut > 0 && (uchar(name.at(cut)) & 0xC0) == 0x80)
        --cut;
    return name.left(cut);
}
} // namespace

QUrl AtomicUpload::temporaryFor(const QUrl &destination)
{
    const QByteArray middle = QByteArrayLiteral(".qvfs-") + randomTag();
    const QByteArray suffix = QByteArrayLiteral(".part");
    const QByteArray base = truncated(Url::fileName(destination), NameMax - 1 - middle.size() - suffix.size());
    QByteArray name(".");
    name += base;
    name += middle;
    name += suffix;
    return Url::child(Url::parent(destination), name);
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
