// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conflict.h"

#include <array>

namespace Qvfs
{

namespace
{

// The stable names, in the order of the enums' values: one table serves both directions.
constexpr std::array<const char *, 5> policyNames { "fail", "overwrite", "skip", "rename", "ask" };
constexpr std::array<const char *, 4> actionNames { "overwrite", "skip", "rename", "cancel" };

// The name of value \a index in \a names; the name of \a fallback when out of range.
template<size_t N>
QByteArray nameOf(const std::array<const char *, N> &names, size_t index, size_t fallback)
{
    return QByteArray(names[index < N ? index : fallback]);
}

// The value whose name in \a names is \a name; \a fallback (and *ok false) when none is.
template<typename Enum, size_t N>
Enum valueNamed(const std::array<const char *, N> &names, QByteArrayView name, Enum fallback, bool *ok)
{
    for (size_t i = 0; i < N; ++i) {
        if (name == names[i]) {
            if (ok)
                *ok = true;
            return Enum(i);
        }
    }
    if (ok)
        *ok = false;
    return fallback;
}

} // namespace

QByteArray conflictPolicyName(ConflictPolicy policy)
{
    return nameOf(policyNames, size_t(policy), size_t(ConflictPolicy::Fail));
}

ConflictPolicy conflictPolicyFromName(QByteArrayView name, bool *ok)
{
    return valueNamed(policyNames, name, ConflictPolicy::Fail, ok);
}

QByteArray conflictActionName(ConflictAction action)
{
    return nameOf(actionNames, size_t(action), size_t(ConflictAction::Cancel));
}

ConflictAction conflictActionFromName(QByteArrayView name, bool *ok)
{
    return valueNamed(actionNames, name, ConflictAction::Cancel, ok);
}

} // namespace Qvfs
