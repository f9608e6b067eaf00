// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conflict.h"

namespace Qvfs
{

namespace
{
constexpr qsizetype NameMax = 255;
constexpr qsizetype MaxExtension = 31;

// The first \a size bytes of \a bytes, cut before a UTF-8 continuation byte.
QByteArray truncatedName(QByteArrayView bytes, qsizetype size)
{
    if (bytes.size() <= size)
        return bytes.toByteArray();
    if (size <= 0)
        return QByteArray();
    qsizetype cut = size;
    while (cut > 0 && (uchar(bytes.at(cut)) & 0xC0) == 0x80)
        --cut;
    return bytes.first(cut > 0 ? cut : size).toByteArray();
}
} // namespace

QByteArray conflictPolicyName(ConflictPolicy policy)
{
    switch (policy) {
    case ConflictPolicy::Overwrite:
        return QByteArrayLiteral("overwrite");
    case ConflictPolicy::Skip:
        return QByteArrayLiteral("skip");
    case ConflictPolicy::Rename:
        return QByteArrayLiteral("rename");
    case ConflictPolicy::Ask:
        return QByteArrayLiteral("ask");
    case ConflictPolicy::Fail:
        break;
    }
    return QByteArrayLiteral("fail");
}

ConflictPolicy conflictPolicyFromName(QByteArrayView name, bool *ok)
{
    for (ConflictPolicy p : { ConflictPolicy::Fail, ConflictPolicy::Overwrite, ConflictPolicy::Skip,
             ConflictPolicy::Rename, ConflictPolicy::Ask }) {
        if (name == conflictPolicyName(p)) {
            if (ok)
                *ok = true;
            return p;
        }
    }
    if (ok)
        *ok = false;
    return ConflictPolicy::Fail;
}

QByteArray conflictActionName(ConflictAction action)
{
    switch (action) {
    case ConflictAction::Overwrite:
        return QByteArrayLiteral("overwrite");
    case ConflictAction::Skip:
        return QByteArrayLiteral("skip");
    case ConflictAction::Rename:
        return QByteArrayLiteral("rename");
    case ConflictAction::Cancel:
        break;
    }
    return QByteArrayLiteral("cancel");
}

ConflictAction conflictActionFromName(QByteArrayView name, bool *ok)
{
    for (ConflictAction a :
        { ConflictAction::Overwrite, ConflictAction::Skip, ConflictAction::Rename, ConflictAction::Cancel }) {
        if (name == conflictActionName(a)) {
            if (ok)
                *ok = true;
            return a;
        }
    }
    if (ok)
        *ok = false;
    return ConflictAction::Cancel;
}

QByteArray freeNameCandidate(QByteArrayView name, bool isDirectory, int attempt)
{
    if (name.isEmpty() || attempt < 0 || attempt >= MaxFreeNameAttempts)
        return QByteArray();
    QByteArrayView base = name;
    QByteArrayView ext;
    if (!isDirectory) {
        const qsizetype dot = name.lastIndexOf('.');
        if (dot > 0 && dot < name.size() - 1 && name.size() - dot <= MaxExtension) {
            base = name.first(dot);
            ext = name.sliced(dot);
        }
    }
    qint64 first = 1;
    // "name (3)" goes on with "name (4)", not "name (3) (1)".
    if (base.endsWith(')')) {
        const qsizetype open = base.lastIndexOf(QByteArrayView(" ("));
        if (open > 0 && open + 2 < base.size() - 1) {
            bool ok = false;
            const qint64 n = base.sliced(open + 2, base.size() - open - 3).toLongLong(&ok);
            if (ok && n > 0 && n < 1000000) {
                first = n + 1;
                base = base.first(open);
            }
        }
    }
    QByteArray number(" (");
    number += QByteArray::number(first + attempt);
    number += ')';
    QByteArray out = truncatedName(base, NameMax - number.size() - ext.size());
    out += number;
    out += ext;
    return out;
}

int foreignCopyMode(int mode, int umask)
{
    if (mode < 0)
        return -1;
    return mode & 0777 & ~umask;
}

} // namespace Qvfs
