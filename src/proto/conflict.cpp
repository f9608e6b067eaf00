// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conflict.h"

namespace Qvfs
{

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

} // namespace Qvfs
