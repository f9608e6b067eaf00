// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mounttable_p.h"

#include <QFile>

namespace Qvfs::Internal
{

namespace
{

/*! Undoes the octal escapes of a mountinfo field (\040 for a space...). */
QByteArray unescapeMountField(QByteArrayView field)
{
    QByteArray out;
    out.reserve(field.size());
    for (qsizetype i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size()) {
            const QByteArrayView digits = field.sliced(i + 1, 3);
            bool ok = false;
            const int v = digits.toByteArray().toInt(&ok, 8);
            if (ok && v > 0 && v < 256) {
                out += char(v);
                i += 3;
                continue;
            }
        }
        out += field[i];
    }
    return out;
}

} // namespace

QList<MountEntry> mountTable()
{
    QList<MountEntry> out;
    QFile f(QStringLiteral("/proc/self/mountinfo"));
    if (!f.open(QIODevice::ReadOnly))
        return out;
    const QByteArray all = f.readAll();
    for (const QByteArray &line : all.split('\n')) {
        // id parent major:minor root mountpoint options [optional...] - type source superoptions
        const QList<QByteArray> fields = line.split(' ');
        const qsizetype dash = fields.indexOf(QByteArray("-"));
        if (fields.size() < 5 || dash < 5 || dash + 1 >= fields.size())
            continue;
        out.append(MountEntry { unescapeMountField(fields.at(4)), fields.at(dash + 1) });
    }
    return out;
}

} // namespace Qvfs::Internal
