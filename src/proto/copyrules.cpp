// SPDX-License-Identifier: LGPL-2.1-or-later
#include "copyrules.h"

#include "error.h"

#include <QUrl>

#include <algorithm>

namespace Qvfs
{

namespace
{
constexpr qsizetype NameMax = 255;
constexpr qsizetype MaxExtension = 31;
constexpr QByteArrayView TempMiddle(".qvfs-");
constexpr QByteArrayView TempSuffix(".part");

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

bool isTagByte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}
} // namespace

CopyDecision decideCopy(ConflictPolicy policy, bool sourceIsFolder, CopyTarget target, bool identical)
{
    if (target == CopyTarget::Absent)
        return { CopyAction::Create };
    if (sourceIsFolder && target == CopyTarget::Folder && !identical && policy != ConflictPolicy::Rename)
        return { CopyAction::Merge };
    if (identical && policy != ConflictPolicy::Rename)
        return { CopyAction::Fail, ErrIdenticalFiles };
    switch (policy) {
    case ConflictPolicy::Skip:
        return { CopyAction::Skip };
    case ConflictPolicy::Rename:
        return { CopyAction::Rename };
    case ConflictPolicy::Ask:
        return { CopyAction::Ask };
    case ConflictPolicy::Overwrite:
        if (sourceIsFolder)
            return { CopyAction::Fail, ErrIsNotDirectory };
        if (target == CopyTarget::Folder)
            return { CopyAction::Fail, ErrIsDirectory };
        return { CopyAction::Replace };
    case ConflictPolicy::Fail:
        break;
    }
    return { CopyAction::Fail, ErrAlreadyExists };
}

std::optional<ConflictPolicy> policyForAnswer(ConflictAction action)
{
    switch (action) {
    case ConflictAction::Overwrite:
        return ConflictPolicy::Overwrite;
    case ConflictAction::Skip:
        return ConflictPolicy::Skip;
    case ConflictAction::Rename:
        return ConflictPolicy::Rename;
    case ConflictAction::Cancel:
        break;
    }
    return std::nullopt;
}

CopyDecision decideCopyAsking(ConflictPolicy *policy, bool sourceIsFolder, CopyTarget target, bool identical,
    const std::function<ConflictAnswer()> &ask)
{
    const CopyDecision d = decideCopy(*policy, sourceIsFolder, target, identical);
    if (d.action != CopyAction::Ask)
        return d;
    const ConflictAnswer a = ask();
    if (!a.answered)
        return { CopyAction::Fail, ErrNotAnswered };
    const std::optional<ConflictPolicy> answer = policyForAnswer(a.action);
    if (!answer)
        return { CopyAction::Fail, ErrCancelled };
    if (a.applyToAll)
        *policy = *answer;
    return decideCopy(*answer, sourceIsFolder, target, identical);
}

void CopyAmounts::skip(qint64 entryBytes)
{
    ++skipped;
    leaveOut(entryBytes);
}

void CopyAmounts::leaveOut(qint64 entryBytes)
{
    totalBytes = qMax<qint64>(0, totalBytes - qMax<qint64>(0, entryBytes));
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

QByteArray firstFreeName(
    QByteArrayView name, bool isDirectory, const std::function<NameProbe(const QByteArray &candidate)> &probe)
{
    for (int attempt = 0; attempt < MaxFreeNameAttempts; ++attempt) {
        const QByteArray candidate = freeNameCandidate(name, isDirectory, attempt);
        if (candidate.isEmpty())
            return QByteArray();
        switch (probe(candidate)) {
        case NameProbe::Free:
            return candidate;
        case NameProbe::Taken:
            continue;
        case NameProbe::Failed:
            return QByteArray();
        }
    }
    return QByteArray();
}

QByteArray temporaryNameFor(QByteArrayView name, QByteArrayView tag)
{
    const qsizetype room = NameMax - 1 - TempMiddle.size() - tag.size() - TempSuffix.size();
    QByteArray out(".");
    out += truncatedName(name, room);
    out += TempMiddle;
    out += tag;
    out += TempSuffix;
    return out;
}

bool isTemporaryName(QByteArrayView name, QByteArrayView *tag)
{
    if (!name.startsWith('.') || !name.endsWith(TempSuffix))
        return false;
    const QByteArrayView body = name.first(name.size() - TempSuffix.size());
    const qsizetype at = body.lastIndexOf(TempMiddle);
    if (at < 0)
        return false;
    const QByteArrayView t = body.sliced(at + TempMiddle.size());
    if (t.isEmpty() || !std::all_of(t.begin(), t.end(), isTagByte))
        return false;
    if (tag)
        *tag = t;
    return true;
}

bool isSameServer(const QUrl &a, const QUrl &b, int defaultPort)
{
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0
        && a.host().compare(b.host(), Qt::CaseInsensitive) == 0 && a.port(defaultPort) == b.port(defaultPort)
        && a.userName() == b.userName();
}

int foreignCopyMode(int mode, int umask)
{
    if (mode < 0)
        return -1;
    return mode & 0777 & ~umask;
}

} // namespace Qvfs
